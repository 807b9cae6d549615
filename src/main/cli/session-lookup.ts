/**
 * Finds the session a command names (an id, a unique prefix, or `last`) and reads it whole, from
 * the data directory or the shared store (session-library.ts), marking a local one interrupted
 * first if its process died. A malformed id is invalid input (exit 2); a session that does not
 * exist, cannot be read, or is in a store that cannot be read is said on stderr and sets exit 1.
 * The record comes back with the redaction policy applied, for sessions recorded before it was
 * applied at the source.
 */
import { redactionOfDataDir } from '../settings/redaction';
import type { SessionRecord } from '../store/session-reader';
import { ExitCode, InvalidInputError } from './exit-codes';
import { keychainApiKeyQuietly } from './stored-key';
import { printWarnings } from './commands/sessions';
import { openSessionLibrary, type LibraryFlags } from './session-library';

export async function readNamedSession(dataDir: string, ref: string, flags: LibraryFlags = {}): Promise<SessionRecord | undefined> {
  const { library, close } = await openSessionLibrary(dataDir, flags);
  try {
    const lookup = await library.resolve(ref);
    if (!lookup.ok) {
      if (lookup.kind === 'invalid') throw new InvalidInputError(`${lookup.message} (ids look like 20261129-124501-3fa9c2)`);
      process.stderr.write(`mnemo: ${lookup.message}\n`);
      process.exitCode = ExitCode.errorResult;
      return undefined;
    }
    if (lookup.warning) process.stderr.write(`mnemo: warning: ${lookup.warning}\n`);
    const read = await library.read(lookup.id, { whole: true });
    if (!read.ok) {
      process.stderr.write(`mnemo: ${read.message}\n`);
      process.exitCode = ExitCode.errorResult;
      return undefined;
    }
    printWarnings(read.warnings ?? []);
    return (await redactionOfDataDir(dataDir, flags.config, process.env, await keychainApiKeyQuietly(dataDir))).deep(read.session);
  } finally {
    close();
  }
}
