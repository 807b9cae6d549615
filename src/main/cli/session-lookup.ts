/**
 * Finds the session a command names (an id, a unique prefix, or `last`) and reads it, marking it
 * interrupted first if its process died. A malformed id is invalid input (exit 2); a session that
 * does not exist or cannot be read is said on stderr and sets exit 1. The record comes back with
 * the redaction policy applied, for sessions recorded before it was applied at the source.
 */
import { redactionOfDataDir } from '../settings/redaction';
import type { SessionRecord } from '../store/session-reader';
import { SessionStore } from '../store/session-store';
import { ExitCode, InvalidInputError } from './exit-codes';
import { keychainApiKeyQuietly } from './stored-key';
import { printWarnings } from './commands/sessions';

export async function readNamedSession(dataDir: string, ref: string): Promise<SessionRecord | undefined> {
  const store = new SessionStore(dataDir);
  const lookup = await store.resolve(ref);
  if (!lookup.ok) {
    if (lookup.kind === 'invalid') throw new InvalidInputError(`${lookup.message} (ids look like 20261129-124501-3fa9c2)`);
    process.stderr.write(`mnemo: ${lookup.message}\n`);
    process.exitCode = ExitCode.errorResult;
    return undefined;
  }
  const read = await store.read(lookup.id);
  if (!read.ok) {
    process.stderr.write(`mnemo: ${read.message}\n`);
    process.exitCode = ExitCode.errorResult;
    return undefined;
  }
  printWarnings(read.warnings ?? []);
  return (await redactionOfDataDir(dataDir, undefined, process.env, await keychainApiKeyQuietly(dataDir))).deep(read.session);
}
