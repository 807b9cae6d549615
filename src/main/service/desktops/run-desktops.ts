/**
 * Where a run works, for the launcher: the user's own display (one run at a time there, as
 * before), or a private desktop started for it by the desktop host (operator level), which any
 * number of runs can have side by side. Either way the run gets a display's environment for its
 * operator, a name to lock, and how to let it go; it never learns which kind it got.
 */
import { privateDesktopOf, type DesktopRequest, type PrivateDesktopSpec, type RunDesktop } from '../../../shared/desktop';
import { formatDesktopSize } from '../../../shared/desktop-size';
import { DesktopHost, type PrivateDesktop } from '../../operator/private-desktop/desktop-host';
import { displayName } from './display-lock';
import type { ServiceConfig } from '../service-config';
import type { ServiceResult } from '../service-result';

/** A run's desktop, opened. */
export interface OpenedDesktop {
  /** What the session records and the live runs list shows; `display` is also the name its lock takes. */
  desktop: RunDesktop;
  /** The environment of the run's operator (DISPLAY, XAUTHORITY). */
  env: NodeJS.ProcessEnv;
  /** Said before the first step (no window manager, ...). */
  notes: string[];
  /**
   * Lets the desktop go once the run has ended: a private one is stopped, unless `keep`, then it
   * stays for the user and the answer says where.
   */
  release(keep: boolean): Promise<string | null>;
}

export interface RunDesktopsDeps {
  config: ServiceConfig;
  /** Told of leftovers stopped (a Mnemo killed hard). */
  log: (message: string) => void;
}

export class RunDesktops {
  private host: DesktopHost | undefined;

  constructor(private readonly deps: RunDesktopsDeps) {}

  /**
   * The private desktop a request asks for, the settings filling in what it leaves out; for a
   * replay asked for none, the desktop its session recorded (started the same again). Null: the
   * user's display.
   */
  specFor(request: DesktopRequest | undefined, recorded?: RunDesktop): PrivateDesktopSpec | null {
    const defaults = this.deps.config.desktopSettings();
    if (request) return privateDesktopOf(request, defaults);
    if (recorded?.private) return privateDesktopOf({ private: true, size: recorded.size, apps: recorded.apps }, defaults);
    return null;
  }

  /** Stops what Mnemo processes killed hard left running (looked for once per service); said in the log. */
  async reapLeftovers(): Promise<void> {
    for (const line of await this.desktopHost().reapLeftovers()) this.deps.log(line);
  }

  /** The user's display (display index `display` of DISPLAY), or a private desktop started for the run. */
  async open(spec: PrivateDesktopSpec | null, display: number | undefined, signal?: AbortSignal): Promise<ServiceResult<OpenedDesktop>> {
    const { env } = this.deps.config;
    await this.reapLeftovers();
    if (spec === null) {
      return { ok: true, value: { desktop: { private: false, display: displayName(env, display) }, env, notes: [], release: async () => null } };
    }
    // How desktops start is read now: settings saved since the last run apply to this one.
    const { firstDisplay, windowManager, appTimeoutMs } = this.deps.config.desktopSettings();
    const started = await this.desktopHost().start({
      size: spec.size,
      apps: spec.apps,
      firstDisplay,
      appTimeoutMs,
      ...(windowManager !== undefined ? { windowManager } : {}),
      ...(signal ? { signal } : {}),
    });
    if (!started.ok) return { ok: false, error: { kind: 'no_display', message: started.message } };
    const desktop = started.desktop;
    return {
      ok: true,
      value: {
        desktop: { private: true, size: formatDesktopSize(spec.size), apps: [...spec.apps], display: desktop.display },
        env: desktop.env,
        notes: desktop.notes.map((note) => `private desktop ${desktop.display}: ${note}`),
        release: (keep) => letGo(desktop, keep),
      },
    };
  }

  /** The private desktops' host (one per service: it knows the display numbers it is claiming). */
  private desktopHost(): DesktopHost {
    this.host ??= new DesktopHost({ dataDir: this.deps.config.dataDir, env: this.deps.config.env });
    return this.host;
  }
}

async function letGo(desktop: PrivateDesktop, keep: boolean): Promise<string | null> {
  if (!keep) {
    await desktop.stop();
    return null;
  }
  await desktop.keep();
  return `the private desktop stays: DISPLAY=${desktop.display} XAUTHORITY=${desktop.env.XAUTHORITY} (stop it with: kill ${desktop.serverPid})`;
}
