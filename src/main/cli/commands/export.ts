/**
 * `mnemo export <session-id>`: a recorded session as one self-contained HTML report (--html)
 * and/or its raw record as JSON (--json). Files are written beside their target and renamed into
 * place, so a reader never sees half a file. A session in the shared session store (`--store`,
 * MNEMO_STORE, `store.shared`) is exported as a local one, its screenshots fetched first.
 *
 * The settings' secrets (the API key, ...) are masked in what is exported, also for sessions
 * recorded before they were masked at the source. Every file written is owner-only (0600, whatever
 * the umask: it holds screenshots and what was typed; disk/user-file.ts), and the command reminds
 * that a report holds screenshots; a file that cannot be written is one line naming it and why.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { writeUserFile } from '../../disk/user-file';
import { redactionOfDataDir } from '../../settings/redaction';
import type { SessionRecord } from '../../store/session-reader';
import { screenshotReader } from '../../replay/inspect';
import { renderHtmlReport } from '../../replay/report';
import { ExitCode } from '../exit-codes';
import { openDataDir } from '../data-dir';
import { keychainApiKeyQuietly } from '../stored-key';
import { openSessionLibrary } from '../session-library';

export interface ExportOptions {
  html?: string;
  json?: string;
  dataDir?: string;
  store?: string;
}

/** The raw record as `--json` writes it. */
export function rawRecord(session: SessionRecord): { meta: SessionRecord['meta']; events: SessionRecord['events']; warnings: SessionRecord['warnings'] } {
  return { meta: session.meta, events: session.events, warnings: session.warnings };
}

/** Inside the data directory (no note about sharing there). */
function insideFolder(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** `512 B`, `3.4 KB`, `1.2 MB` (powers of 1024): the size of a file just written. */
function formatBinarySize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function fail(code: ExitCode, message: string): void {
  process.stderr.write(`mnemo export: ${message}\n`);
  process.exitCode = code;
}

export async function exportCommand(sessionId: string, options: ExportOptions): Promise<void> {
  if (options.html === undefined && options.json === undefined) {
    fail(ExitCode.invalidInput, 'nothing to write: give --html FILE, --json FILE or both');
    return;
  }
  const html = options.html === undefined ? undefined : resolve(options.html);
  const json = options.json === undefined ? undefined : resolve(options.json);
  if (html !== undefined && html === json) {
    fail(ExitCode.invalidInput, `--html and --json name the same file: ${html}`);
    return;
  }
  const dataDir = await openDataDir(options.dataDir);
  // Here, or in the shared store with every screenshot fetched (the report embeds them).
  const { library, close } = await openSessionLibrary(dataDir, options.store !== undefined ? { store: options.store } : {});
  const read = await library.readExact(sessionId, { whole: true }).finally(close);
  if (!read.ok) {
    fail(ExitCode.errorResult, read.message);
    return;
  }
  const session = (await redactionOfDataDir(dataDir, undefined, process.env, await keychainApiKeyQuietly(dataDir))).deep(read.session);
  // A damaged record still exports; say what was left out.
  for (const warning of session.warnings.slice(0, 5)) {
    const file = (warning as { file?: string }).file ?? 'events.jsonl';
    process.stderr.write(`mnemo export: note: ${file}${warning.line > 0 ? ` line ${warning.line}` : ''}: ${warning.message}\n`);
  }
  if (session.warnings.length > 5) process.stderr.write(`mnemo export: note: ... and ${session.warnings.length - 5} more\n`);
  if (html !== undefined) {
    const written = await writeUserFile(html, await renderHtmlReport(session, screenshotReader(session.directory)));
    if (!written.ok) return fail(ExitCode.errorResult, written.message);
    process.stdout.write(`wrote ${html}: HTML report of session ${session.meta.id}, ${session.steps.length} step(s), ${formatBinarySize(written.bytes)}\n`);
    if (!insideFolder(dataDir, html)) {
      process.stderr.write('mnemo export: note: the report holds the screenshots of the session (what was on the screen); share it with care\n');
    }
  }
  if (json !== undefined) {
    const written = await writeUserFile(json, `${JSON.stringify(rawRecord(session), null, 2)}\n`);
    if (!written.ok) return fail(ExitCode.errorResult, written.message);
    process.stdout.write(`wrote ${json}: raw record of session ${session.meta.id}, ${session.events.length} event(s), ${formatBinarySize(written.bytes)}\n`);
  }
}
