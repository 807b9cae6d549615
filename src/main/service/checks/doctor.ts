/**
 * `mnemo doctor`: every precondition of a run, checked at once, each with its fix in one line,
 * instead of finding them one at a time by failing. The same checks serve the app's Settings
 * view. Each check is a value: ok, warn (a run may work, but something is off) or fail.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, statfs, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { DoctorCheck } from '../../../shared/app-api';
import { formatBytes } from '../../../shared/format';
import { MODEL_FAMILIES, type ModelSettings } from '../../../shared/settings';
import { checkModel, probeProvider } from '../../model/provider-check';
import type { AccessibilityProbe } from '../../operator/a11y/open-reader';
import { screenFrame } from '../../operator/geometry';
import type { IsolatedOperator, IsolatedOperatorLoad } from '../../operator/isolated-operator';
import type { KeyStoreStatus } from '../../settings/key-store';
import { pendingUploadIds } from '../../store/pending-uploads';
import type { SharedStore, StoreProblemKind } from '../../store/shared-store/types';

/** One check: `check`, `status` (ok, warn, fail), `detail`, and `fix` (what to do, in one line; empty when all is well). */
export type { DoctorCheck };

export interface DoctorDeps {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  dataDir: string;
  /** The model the settings name, or why there is none. */
  model: { ok: true; settings: ModelSettings } | { ok: false; message: string };
  openOperator: () => Promise<IsolatedOperatorLoad>;
  /** Whether a program is on PATH. */
  hasProgram?: (name: string) => boolean;
  /** Where the package is installed (to find Electron's binary). */
  packageRoot: string;
  /** Where an API key saved in Settings is kept (the OS keychain, or config.json and why); absent, no line. */
  keyStore?: KeyStoreStatus;
  /** Whether the display has an accessibility bus that answers (default: asked on the display in `env`). */
  probeAccessibility?: (env: NodeJS.ProcessEnv) => Promise<AccessibilityProbe>;
  /** The shared session store the settings name (or why they do not read); absent or null, no line. */
  sessionStore?: { ok: true; store: SharedStore } | { ok: false; message: string } | null;
  /** Free space below this is a warning (bytes). Default 200 MB. */
  minFreeBytes?: number;
  now?: () => number;
}

const ok = (check: string, detail: string): DoctorCheck => ({ check, status: 'ok', detail, fix: '' });
const warn = (check: string, detail: string, fix: string): DoctorCheck => ({ check, status: 'warn', detail, fix });
const fail = (check: string, detail: string, fix: string): DoctorCheck => ({ check, status: 'fail', detail, fix });

function onPath(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

export async function runDoctor(deps: DoctorDeps): Promise<DoctorCheck[]> {
  const has = deps.hasProgram ?? onPath;
  const now = deps.now ?? Date.now;
  const checks: DoctorCheck[] = [];
  const linux = deps.platform === 'linux';

  // The display, capture and input: through the operator a run would use.
  const wayland = deps.env.XDG_SESSION_TYPE === 'wayland' || (deps.env.WAYLAND_DISPLAY !== undefined && deps.env.WAYLAND_DISPLAY !== '');
  let operator: IsolatedOperator | null = null;
  if (linux && !deps.env.DISPLAY?.trim()) {
    checks.push(fail('display', 'DISPLAY is not set: there is no X display to see and drive', wayland ? 'log in to an "X11" (Xorg) session, or run Mnemo in XWayland with DISPLAY set' : 'start an X server (for example `Xvfb :99 -screen 0 1280x800x24 &`) and set DISPLAY=:99'));
  } else {
    const opened = await deps.openOperator();
    if (opened.ok) {
      operator = opened.operator;
      checks.push(ok('display', linux ? `DISPLAY=${deps.env.DISPLAY} answers` : 'the desktop answers'));
    } else checks.push(fail('display', opened.message, 'start the X server or fix access to it (XAUTHORITY, xhost), then run mnemo doctor again'));
  }
  if (linux && wayland) {
    checks.push(warn('wayland', 'this is a Wayland session: only windows running under XWayland can be seen and driven', 'for full control, log out and choose an "X11" / "Xorg" session at the login screen, or run tasks on a private desktop (below)'));
    checks.push(privateDesktopCheck(has));
  }

  try {
    if (operator) {
      const started = now();
      const captured = await operator.observe({ maxWidth: 1280, format: 'jpeg', quality: 80 });
      const ms = now() - started;
      if (captured.ok) {
        const { captured: size } = captured.observation.frame;
        checks.push(ok('capture', `grabbed ${size.width}x${size.height} in ${ms} ms (${captured.observation.source})`));
      } else checks.push(fail('capture', captured.message, linux ? 'check the X server; the fallback needs xrandr and ImageMagick (apt install x11-xserver-utils imagemagick)' : 'allow screen recording for this terminal or the app'));
      checks.push(await checkInput(operator));
    } else {
      checks.push(fail('capture', 'not tried: no display', 'fix the display first'));
      checks.push(fail('input', 'not tried: no display', 'fix the display first'));
    }
  } finally {
    await operator?.close();
  }

  if (linux) {
    const missing = ['xrandr', 'import'].filter((name) => !has(name));
    checks.push(
      missing.length === 0
        ? ok('fallback capture', 'xrandr and ImageMagick import are installed')
        : warn('fallback capture', `${missing.join(' and ')} not found: the capture has no fallback if the direct grab fails`, 'apt install x11-xserver-utils imagemagick'),
    );
    const clipboard = ['xsel', 'xclip'].find((name) => has(name));
    checks.push(
      clipboard
        ? ok('clipboard', `${clipboard} types what no key produces (accents, CJK, emoji)`)
        : warn('clipboard', 'neither xsel nor xclip is installed: text with characters no key produces cannot be typed', 'apt install xsel'),
    );
    if (operator) checks.push(await accessibilityCheck(deps));
  }
  if (deps.platform === 'darwin') {
    checks.push(warn('macOS permissions', 'Screen Recording and Accessibility must be allowed for the app (or the terminal running mnemo)', 'System Settings → Privacy & Security → Screen Recording and Accessibility: turn on Mnemo (or your terminal)'));
  }

  checks.push(electronCheck(deps.packageRoot));
  checks.push(await dataDirCheck(deps.dataDir, deps.minFreeBytes ?? 200e6));
  if (deps.keyStore) checks.push({ check: 'key store', ...deps.keyStore });
  if (deps.sessionStore) checks.push(await sessionStoreCheck(deps.sessionStore, deps.dataDir));
  checks.push(await providerCheck(deps.model, now));
  return checks;
}

/**
 * Elements (the accessibility tree) on the user's display: Mnemo uses the bus that is there and
 * never starts one; without it, a run works from pixels alone, and the fix says how to have one.
 */
async function accessibilityCheck(deps: DoctorDeps): Promise<DoctorCheck> {
  const probe = deps.probeAccessibility ?? (async (env: NodeJS.ProcessEnv) => (await import('../../operator/a11y/open-reader')).probeAccessibility(env));
  const probed = await probe(deps.env);
  if (!probed.ok) return warn('accessibility', probed.message, probed.fix);
  if (probed.disabled) return warn('accessibility', probed.detail, 'turn on assistive technologies (GNOME: `gsettings set org.gnome.desktop.interface toolkit-accessibility true`), then start the apps again');
  return ok('accessibility', `${probed.detail}: elements can be read`);
}

/**
 * On Wayland, what works whatever the session: a private X display of the run's own, with the
 * apps started in it, watched in the window.
 */
function privateDesktopCheck(has: (name: string) => boolean): DoctorCheck {
  const how = 'mnemo run --desktop private --app "firefox" "TASK" (or the Run form\'s Private desktop switch): the run gets an X display of its own, its apps open there, and you watch and take over in the window';
  if (!has('Xvfb')) return warn('private desktops', `private desktops work on Wayland too, but Xvfb is not installed; once it is: ${how}`, 'apt install xvfb openbox');
  const frames = has('openbox') ? '' : ' (install openbox to give their windows frames)';
  return ok('private desktops', `private desktops work here, on Wayland too${frames}: ${how}`);
}

/** The pointer moves one pixel and comes back, as the operator reports it. */
async function checkInput(operator: IsolatedOperator): Promise<DoctorCheck> {
  const before = await operator.pointerPosition();
  const displays = await operator.displays();
  if (!before.ok || !displays.ok) return fail('input', before.ok ? (displays as { message: string }).message : before.message, 'check the display and its access');
  const display = displays.displays.find((d) => d.primary) ?? displays.displays[0];
  if (!display) return fail('input', 'no display to move the pointer on', 'check the display');
  const frame = screenFrame(display.bounds, display.id, display.scaleFactor);
  // Away from the fail-safe corner, and back to where the user left it.
  const target = { x: Math.max(before.point.x, 10) + (before.point.x > 20 ? -1 : 1), y: Math.max(before.point.y, 10) };
  const moved = await operator.execute({ type: 'mouse_move', x: target.x - display.bounds.x, y: target.y - display.bounds.y }, frame);
  const at = await operator.pointerPosition();
  await operator.execute({ type: 'mouse_move', x: before.point.x - display.bounds.x, y: before.point.y - display.bounds.y }, frame);
  if (!moved.ok) {
    const corner = moved.error.kind === 'user_abort';
    return fail('input', moved.error.message, corner ? 'move the mouse out of the top-left corner (the fail-safe) and try again' : 'check that synthetic input is allowed (XTEST on X11; Accessibility on macOS)');
  }
  if (!at.ok || at.point.x !== target.x || at.point.y !== target.y) return fail('input', `the pointer did not arrive where it was sent (${target.x}, ${target.y})`, 'check that synthetic input is allowed (XTEST on X11; Accessibility on macOS)');
  return ok('input', 'the pointer moved and came back');
}

function electronCheck(packageRoot: string): DoctorCheck {
  if (process.versions.electron) return ok('electron', `this is the desktop app (Electron ${process.versions.electron})`);
  try {
    const path = createRequire(join(packageRoot, 'package.json'))('electron') as unknown;
    if (typeof path === 'string' && existsSync(path)) return ok('electron', `the desktop app's binary is installed (${path})`);
  } catch {
    // Reported below.
  }
  return warn('electron', "Electron's binary is not installed: the desktop window cannot open (the CLI and `mnemo serve` work)", 'node node_modules/electron/install.js (meanwhile: npx mnemo serve)');
}

async function dataDirCheck(dataDir: string, minFree: number): Promise<DoctorCheck> {
  const probe = join(dataDir, `.doctor-${process.pid}`);
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await writeFile(probe, 'ok', { mode: 0o600 });
    await rm(probe, { force: true });
  } catch (error) {
    return fail('data directory', `${dataDir} cannot be written: ${(error as Error).message}`, 'choose another with --data-dir or MNEMO_DATA_DIR, or fix its permissions');
  }
  try {
    const space = await statfs(dataDir);
    const free = space.bavail * space.bsize;
    if (free < minFree) return warn('data directory', `${dataDir} is writable but has only ${formatBytes(free)} free`, 'free some space (a run records screenshots), or set store.retentionGb to keep fewer sessions');
    return ok('data directory', `${dataDir} is writable, ${formatBytes(free)} free`);
  } catch {
    return ok('data directory', `${dataDir} is writable`);
  }
}

/** What to do about a store that cannot be used, by what is wrong (its message says the details). */
const STORE_FIX: Record<StoreProblemKind, string> = {
  unreachable: 'start the store (or mount the folder), or name where it is: AWS_ENDPOINT_URL_S3 or store.s3.endpoint; until then sessions stay in the data directory',
  missing: 'create the bucket (or the folder), or name another with --store, MNEMO_STORE or store.shared',
  credentials: 'set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) to a key that may use the bucket',
  failed: 'see the message; sessions stay in the data directory until the store takes them',
};

/** The shared session store: it answers, and how many sessions here still wait for it. */
async function sessionStoreCheck(setting: NonNullable<DoctorDeps['sessionStore']>, dataDir: string): Promise<DoctorCheck> {
  if (!setting.ok) return fail('session store', setting.message, 'fix --store, MNEMO_STORE or store.shared (s3://BUCKET/PREFIX or a folder)');
  const { store } = setting;
  const checked = await store.check();
  if (!checked.ok) return fail('session store', checked.message, STORE_FIX[checked.kind]);
  const waiting = (await pendingUploadIds(dataDir)).length;
  if (waiting > 0) return warn('session store', `${store.name} answers; ${waiting} session${waiting === 1 ? '' : 's'} of this data directory wait${waiting === 1 ? 's' : ''} for the upload`, 'mnemo sessions upload');
  return ok('session store', `${store.name} answers; sessions go there as their runs end`);
}

async function providerCheck(model: DoctorDeps['model'], now: () => number): Promise<DoctorCheck> {
  if (!model.ok) return fail('provider', model.message, `mnemo run --base-url URL --model NAME --family ${MODEL_FAMILIES.join('|')}, or set them in config.json (the app: Settings)`);
  const probe = await probeProvider(model.settings);
  if (!probe.ok && probe.fatal) return fail('provider', probe.message, 'fix the base URL or the API key in the settings');
  const started = now();
  const checked = await checkModel(model.settings);
  if (!checked.ok) return fail('provider', checked.message, 'fix the model settings (mnemo check-model shows the same)');
  const where = `${model.settings.model} at ${model.settings.baseUrl}`;
  if (!checked.imageAccepted) return warn('provider', `${where} answered in ${now() - started} ms but did not accept an image`, 'choose a vision model');
  return ok('provider', `${where} answered in ${checked.latencyMs} ms and accepted an image`);
}
