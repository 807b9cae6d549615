/**
 * macOS: a generic password in the user's default keychain, through `/usr/bin/security`
 * (service "mnemo", account the data directory, the entry's label as its name in Keychain Access).
 *
 * The secret never goes on a command line: `security add-generic-password -w SECRET` would show it
 * to every account in `ps`. It is written through `security -i`, which reads its command from stdin,
 * with the password as hex (`-X`), so no quoting can break it. Not tested here (no macOS in CI).
 */
import type { KeychainEntry, KeychainProblem, KeychainRead, KeychainWrite, OsKeychain } from './keychain';
import { lastLine, runTool, type ToolRun } from './tool';

const NAME = 'the macOS Keychain';
/** errSecItemNotFound, as `security` exits with it. */
const NOT_FOUND = 44;

export interface MacosKeychainDeps {
  env: NodeJS.ProcessEnv;
  command?: string;
  promptTimeoutMs?: number;
}

/** A word of `security -i`'s command line: in double quotes, its own quotes and backslashes escaped. */
function quoted(word: string): string {
  return `"${word.replace(/["\\]/g, (character) => `\\${character}`)}"`;
}

export function macosKeychain(deps: MacosKeychainDeps): OsKeychain {
  const command = deps.command ?? '/usr/bin/security';
  const timeoutMs = deps.promptTimeoutMs ?? 180_000;
  const run = (args: string[], input?: string) => runTool(command, args, { env: deps.env, timeoutMs, ...(input !== undefined ? { input } : {}) });
  const find = (entry: KeychainEntry) => ['-s', entry.service, '-a', entry.account];

  function problemOf(ran: ToolRun, doing: string): KeychainProblem {
    switch (ran.kind) {
      case 'missing':
        return { kind: 'unavailable', message: `${command} is not there, so Mnemo cannot reach ${NAME}`, fix: 'keep the key in config.json (owner-only), or set it in the environment' };
      case 'timed out':
        return { kind: 'failed', message: `${NAME} did not answer within ${Math.round(ran.ms / 1000)} s while ${doing} (a prompt left open?)`, fix: 'answer the Keychain prompt, then try again' };
      case 'failed':
        return { kind: 'failed', message: `${command} could not be run while ${doing}: ${ran.message}`, fix: 'check Keychain Access, or set the key in the environment instead' };
      case 'exited': {
        const said = lastLine(ran.stderr);
        if (/interaction is not allowed|locked/i.test(said)) {
          return { kind: 'locked', message: `the keychain is locked (${said}) while ${doing}`, fix: 'unlock the login keychain (Keychain Access, or log in at the Mac), then try again' };
        }
        if (/no default keychain|could not be found|A default keychain could not be found/i.test(said)) {
          return { kind: 'unavailable', message: `there is no default keychain (${said})`, fix: 'create or choose a default keychain in Keychain Access to keep the key out of config.json' };
        }
        return { kind: 'failed', message: `${NAME} refused while ${doing}: ${said || `security exited with ${ran.code}`}`, fix: 'check Keychain Access, or set the key in the environment instead' };
      }
    }
  }

  return {
    name: NAME,
    async read(entry): Promise<KeychainRead> {
      const ran = await run(['find-generic-password', ...find(entry), '-w']);
      if (ran.kind === 'exited' && ran.code === 0) return { ok: true, secret: ran.stdout.replace(/\n$/, '') };
      if (ran.kind === 'exited' && ran.code === NOT_FOUND) return { ok: true, secret: null };
      return { ok: false, problem: problemOf(ran, 'reading the API key') };
    },
    async write(entry, secret): Promise<KeychainWrite> {
      const hex = Buffer.from(secret, 'utf8').toString('hex');
      // -U replaces the item of the same service and account.
      const line = ['add-generic-password', '-U', '-s', quoted(entry.service), '-a', quoted(entry.account), '-l', quoted(entry.label), '-X', hex].join(' ');
      const ran = await run(['-i'], `${line}\n`);
      // `security -i` exits 0 whatever its commands did; a failed command says so on stderr.
      return ran.kind === 'exited' && ran.code === 0 && lastLine(ran.stderr) === '' ? { ok: true } : { ok: false, problem: problemOf(ran, 'saving the API key') };
    },
    async remove(entry): Promise<KeychainWrite> {
      const ran = await run(['delete-generic-password', ...find(entry)]);
      if (ran.kind === 'exited' && (ran.code === 0 || ran.code === NOT_FOUND)) return { ok: true };
      return { ok: false, problem: problemOf(ran, 'removing the API key') };
    },
  };
}
