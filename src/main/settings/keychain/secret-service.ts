/**
 * Linux: the Secret Service (GNOME Keyring, KeePassXC, KWallet's Secret Service) on the session
 * bus, through libsecret's `secret-tool` (Debian: libsecret-tools). The item carries the
 * attributes `application=mnemo` and `data-dir=<the data directory>` and the entry's label.
 *
 * `secret-tool lookup` answers the same (exit 1, nothing said) for "no such item" and "the item is
 * locked", and may ask its user to unlock; `secret-tool search` never asks and lists a locked item
 * without its secret. So a read searches first: nothing found is no key; a locked item is read
 * with `lookup` only when the caller allows a prompt. `clear` answers exit 1 for "nothing to
 * clear" and for "locked" alike, so a removal is checked by searching again.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { KeychainEntry, KeychainProblem, KeychainRead, KeychainWrite, OsKeychain } from './keychain';
import { lastLine, runTool, type ToolRun } from './tool';

const NAME = 'the Secret Service';

export interface SecretServiceDeps {
  /** Where the session bus is named (DBUS_SESSION_BUS_ADDRESS, DISPLAY for autolaunch). */
  env: NodeJS.ProcessEnv;
  /** The command (default: secret-tool on PATH). */
  command?: string;
  /** How long a call that may wait for its user (an unlock prompt) is given. */
  promptTimeoutMs?: number;
  /** How long a call that never prompts is given. */
  timeoutMs?: number;
}

/** What secret-tool says when there is no Secret Service to keep a key in (no bus, nothing owning the name, no default keyring). */
const UNAVAILABLE = [
  /Could not connect/i,
  /autolaunch/i,
  /Error spawning command line/i,
  /was not provided by any \.service files/i,
  /ServiceUnknown/i,
  /Object does not exist at path/i,
];
const LOCKED = [/locked/i, /dismissed/i, /prompt/i];

const unlockFix = 'unlock the keyring (log in to the desktop session, or open Passwords and Keys), then try again; or set the key in the environment (OPENAI_API_KEY, or the family\'s variable) instead';

/**
 * Without a session bus named (the variable, or GLib's default $XDG_RUNTIME_DIR/bus), libsecret
 * would autolaunch a bus of its own on the X display (dbus-launch), and D-Bus would start a keyring
 * on it that outlives Mnemo and holds no keyring of the user's: there is no Secret Service to use.
 */
function sessionBusProblem(env: NodeJS.ProcessEnv): KeychainProblem | null {
  if (env.DBUS_SESSION_BUS_ADDRESS?.trim()) return null;
  if (env.XDG_RUNTIME_DIR && existsSync(join(env.XDG_RUNTIME_DIR, 'bus'))) return null;
  return {
    kind: 'unavailable',
    message: 'there is no session bus (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service can be reached',
    fix: 'run Mnemo in a desktop session with a keyring (GNOME Keyring, KeePassXC, KWallet) to keep the key out of config.json',
  };
}

export function secretServiceKeychain(deps: SecretServiceDeps): OsKeychain {
  const command = deps.command ?? 'secret-tool';
  const promptTimeoutMs = deps.promptTimeoutMs ?? 180_000;
  const timeoutMs = deps.timeoutMs ?? 60_000;
  const attributes = (entry: KeychainEntry) => ['application', entry.service, 'data-dir', entry.account];
  const run = (args: string[], prompt: boolean, input?: string) => runTool(command, args, { env: deps.env, timeoutMs: prompt ? promptTimeoutMs : timeoutMs, ...(input !== undefined ? { input } : {}) });

  /** A run that did not end with an answer secret-tool gives, as a problem. */
  function problemOf(ran: ToolRun, doing: string): KeychainProblem {
    switch (ran.kind) {
      case 'missing':
        return {
          kind: 'unavailable',
          message: `${command} is not installed, so Mnemo cannot reach ${NAME}`,
          fix: 'install it (Debian, Ubuntu: apt install libsecret-tools; Fedora: dnf install libsecret) to keep the key in the desktop keyring',
        };
      case 'timed out':
        return { kind: 'failed', message: `${NAME} did not answer within ${Math.round(ran.ms / 1000)} s while ${doing} (an unlock prompt left open?)`, fix: unlockFix };
      case 'failed':
        return { kind: 'failed', message: `${command} could not be run while ${doing}: ${ran.message}`, fix: 'check the keyring (Passwords and Keys), or set the key in the environment instead' };
      case 'exited': {
        const said = lastLine(ran.stderr).replace(/^secret-tool:\s*/, '');
        if (UNAVAILABLE.some((pattern) => pattern.test(said))) {
          return {
            kind: 'unavailable',
            message: `no Secret Service keyring answers on the session bus (${said})`,
            fix: 'start a keyring in this session (GNOME Keyring, KeePassXC with its Secret Service, KWallet) to keep the key out of config.json',
          };
        }
        if (LOCKED.some((pattern) => pattern.test(said))) return { kind: 'locked', message: `the keyring is locked (${said}) while ${doing}`, fix: unlockFix };
        return { kind: 'failed', message: `${NAME} refused while ${doing}: ${said || `secret-tool exited with ${ran.code}`}`, fix: 'check the keyring (Passwords and Keys), or set the key in the environment instead' };
      }
    }
  }

  /** The items of the entry: how many, and whether one is locked (listed without its secret). Never prompts. */
  async function search(entry: KeychainEntry, doing: string): Promise<{ ok: true; items: number; locked: boolean } | { ok: false; problem: KeychainProblem }> {
    const ran = await run(['search', '--all', ...attributes(entry)], false);
    if (ran.kind !== 'exited') return { ok: false, problem: problemOf(ran, doing) };
    // secret-tool prints an item's attributes on stderr, and "Cannot get secret of a locked object"
    // (exit 0, the item listed); anything else there is a failure.
    const said = ran.stderr
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^attribute\./.test(line) && !/locked object/i.test(line))
      .join('\n');
    if (said !== '' || ran.code !== 0) return { ok: false, problem: problemOf({ ...ran, stderr: said }, doing) };
    // Each item starts with a line "[<object path>]"; an unlocked one has a "secret = " line.
    const blocks = ran.stdout.split(/^\[/m).slice(1);
    return { ok: true, items: blocks.length, locked: blocks.some((block) => !/^secret = /m.test(block)) };
  }

  return {
    name: NAME,
    async read(entry, options): Promise<KeychainRead> {
      const noBus = sessionBusProblem(deps.env);
      if (noBus) return { ok: false, problem: noBus };
      const doing = 'reading the API key';
      const found = await search(entry, doing);
      if (!found.ok) return found;
      if (found.items === 0) return { ok: true, secret: null };
      if (found.locked && !options.interactive) return { ok: false, problem: { kind: 'locked', message: `the keyring holding "${entry.label}" is locked`, fix: unlockFix } };
      // Exact bytes (search prints them inside its own lines); may ask to unlock a locked item.
      const ran = await run(['lookup', ...attributes(entry)], true);
      if (ran.kind === 'exited' && ran.code === 0) return { ok: true, secret: ran.stdout };
      if (ran.kind === 'exited' && lastLine(ran.stderr) === '') return { ok: false, problem: { kind: 'locked', message: `the keyring holding "${entry.label}" is locked and was not unlocked`, fix: unlockFix } };
      return { ok: false, problem: problemOf(ran, doing) };
    },
    async write(entry, secret): Promise<KeychainWrite> {
      const noBus = sessionBusProblem(deps.env);
      if (noBus) return { ok: false, problem: noBus };
      // Replaces an item with the same attributes; the secret goes on stdin, never on the command line.
      const ran = await run(['store', `--label=${entry.label}`, ...attributes(entry)], true, secret);
      return ran.kind === 'exited' && ran.code === 0 ? { ok: true } : { ok: false, problem: problemOf(ran, 'saving the API key') };
    },
    async remove(entry): Promise<KeychainWrite> {
      const noBus = sessionBusProblem(deps.env);
      if (noBus) return { ok: false, problem: noBus };
      const doing = 'removing the API key';
      const ran = await run(['clear', ...attributes(entry)], true);
      if (ran.kind !== 'exited' || lastLine(ran.stderr) !== '') return { ok: false, problem: problemOf(ran, doing) };
      const left = await search(entry, doing);
      if (!left.ok) return left;
      if (left.items > 0) return { ok: false, problem: { kind: 'locked', message: `"${entry.label}" could not be removed: its keyring is locked`, fix: unlockFix } };
      return { ok: true };
    },
  };
}
