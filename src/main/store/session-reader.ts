/**
 * Reads a recorded session back: its metadata, its events (a corrupt or truncated line is skipped
 * with a warning, never a crash) and a per-step view for inspection, replay and reports.
 *
 * session.json is written when the run starts and when it ends: while it says `running` (a run
 * going on, or one a crash cut off), the steps and the cost come from the events, through the same
 * fold the recorder uses at the end (src/shared/run-totals.ts). Records of earlier versions read
 * through the schema's normalisation (src/shared/events.ts: `normaliseRecordedEvent`).
 *
 * Reading never throws and never writes. A damaged session still reads: a garbage or missing
 * session.json is rebuilt from the events (with a warning), a missing or empty events.jsonl gives
 * a session without steps (with a warning). Only a session folder that does not exist, or an id
 * that could not be one, is `ok: false`.
 *
 * A run whose disk filled up ends with session.json still at `running` and no run-finished event;
 * its ending is then read from the space the recorder reserved for it (session-ending.ts), or,
 * where even that could not be written, the run is said to have ended on a write failure.
 */
import { RunDesktopSchema } from '../../shared/desktop';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { knownToFit } from '../../shared/checked-once';
import { AgentEventListSchema, parseAgentEvent, type AgentEvent } from '../../shared/events';
import { addToTotals, NO_TOTALS, totalsOf, type RunTotals } from '../../shared/run-totals';
import { stepsOf, type StepView } from '../../shared/steps';
import { EVENTS_FILE, REPLIES_DIR, SCREENSHOTS_DIR, SESSION_FILE, SESSION_ID_PATTERN, sessionDirectory, sessionsRoot } from './paths';
import { ENDING_FILE, readRecordedEnding, withRecordedEnding, WRITE_FAILED_FILE } from './session-ending';
import type { SessionMeta } from './session-meta';
import { isWriterIdentity } from './writer-identity';

export { sessionDirectory } from './paths';

export interface ReadWarning {
  /** The line in `file` (from 1); 0 for a problem with the file as a whole. */
  line: number;
  message: string;
  /** `events.jsonl` when absent (the original warnings were all about it), or `session.json`. */
  file?: string;
}

/** A step as the shared fold sees it, plus what only the session folder tells. */
export interface RecordedStep extends StepView {
  /** The model's raw reply (masked), relative to the session folder, when recorded. */
  replyFile?: string;
  /** The full-resolution capture (PNG), relative to the session folder, when recorded. */
  fullResolutionFile?: string;
  /** True when `screenshot` names a file that is not on disk (deleted, lost in a power cut). */
  screenshotMissing?: boolean;
}

export interface SessionRecord {
  meta: SessionMeta;
  /** The session folder: in the data directory, or its copy in the store cache (store-cache.ts). */
  directory: string;
  /** The shared store it was read from (`s3://bucket/prefix`, a folder); absent: the data directory's own. */
  store?: string;
  events: AgentEvent[];
  steps: RecordedStep[];
  warnings: ReadWarning[];
}

export type SessionRead = { ok: true; session: SessionRecord } | { ok: false; message: string };

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isStepNumber = (value: unknown): boolean => Number.isInteger(value) && (value as number) >= 0;
const isStringOrNull = (value: unknown): boolean => value === null || typeof value === 'string';

/**
 * Parses JSONL, skipping lines that are not a valid event (a crash mid-write, damage, a type this
 * version does not know), each with a warning. Sessions recorded before events carried `seq` get
 * their line order as `seq`.
 */
export function parseEventLines(text: string): { events: AgentEvent[]; warnings: ReadWarning[] } {
  const events: AgentEvent[] = [];
  const warnings: ReadWarning[] = [];
  const lines = text.split('\n');
  let lastSeq = 0;
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      // Every line is written with its newline: a last line without one was cut off mid-write.
      const kind = index === lines.length - 1 ? 'truncated' : 'corrupt';
      warnings.push({ line: index + 1, message: `${kind} line skipped: ${(error as Error).message}`, file: EVENTS_FILE });
      return;
    }
    if (isObject(value) && value.seq === undefined) value = { ...value, seq: lastSeq + 1 };
    const parsed = parseAgentEvent(value);
    if (!parsed.ok) {
      warnings.push({ line: index + 1, message: `${parsed.message}; line skipped`, file: EVENTS_FILE });
      return;
    }
    lastSeq = parsed.event.seq;
    events.push(parsed.event);
  });
  // Each one made by the event schema: the front ends need not check the list again.
  return { events: knownToFit(AgentEventListSchema, events), warnings };
}

/** The start time written in an id made by newSessionId, else null. */
function startFromId(id: string): number | null {
  const match = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(id);
  if (!match) return null;
  const time = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), Number(match[4]), Number(match[5]), Number(match[6]));
  return Number.isFinite(time) ? time : null;
}

/**
 * Metadata rebuilt from the events, for a session.json that is missing or damaged. Without a
 * run-finished event the run did not end properly: it is `interrupted`.
 */
export function metaFromEvents(id: string, events: readonly AgentEvent[], fallbackStart: number): SessionMeta {
  const started = events.find((event) => event.type === 'run-started');
  const finished = [...events].reverse().find((event) => event.type === 'run-finished');
  const progress = totalsOf(events);
  const base: SessionMeta = {
    id,
    task: started?.task ?? '(unknown task)',
    status: 'interrupted',
    startedAt: started?.at ?? startFromId(id) ?? fallbackStart,
    endedAt: progress.lastEventAt,
    model: started?.model ?? '',
    family: started?.family ?? '',
    steps: progress.steps,
    costUsd: progress.usage.costUsd,
    reason: 'the run did not finish (no run-finished event)',
    usage: progress.usage,
  };
  if (!finished) return base;
  return { ...base, status: finished.status, endedAt: finished.at, steps: finished.steps, costUsd: finished.usage.costUsd, usage: finished.usage, reason: finished.reason };
}

const META_CHECKS: Record<string, (value: unknown) => boolean> = {
  id: (v) => typeof v === 'string',
  task: (v) => typeof v === 'string',
  status: (v) => typeof v === 'string' && v !== '',
  startedAt: isNumber,
  endedAt: (v) => v === null || isNumber(v),
  model: (v) => typeof v === 'string',
  family: (v) => typeof v === 'string',
  steps: isStepNumber,
  costUsd: isNumber,
  reason: isStringOrNull,
};

/**
 * Checks a parsed session.json: the fields that are wrong or missing (empty when it is sound).
 * Optional fields that are malformed are dropped rather than reported.
 */
export function metaProblems(value: unknown): string[] {
  if (!isObject(value)) return ['not a JSON object'];
  return Object.entries(META_CHECKS)
    .filter(([field, check]) => !check(value[field]))
    .map(([field]) => field);
}

function cleanMeta(value: Fields): SessionMeta {
  const meta = { ...value } as unknown as SessionMeta & Fields;
  if (meta.writer !== undefined && !isWriterIdentity(meta.writer)) delete meta.writer;
  if (meta.usage !== undefined && !(isObject(meta.usage) && isNumber(meta.usage.inputTokens) && isNumber(meta.usage.outputTokens) && isNumber(meta.usage.costUsd))) delete meta.usage;
  if (meta.bytes !== undefined && !isNumber(meta.bytes)) delete meta.bytes;
  if (meta.replayOf !== undefined && typeof meta.replayOf !== 'string') delete meta.replayOf;
  if (meta.sample !== undefined && meta.sample !== true) delete meta.sample;
  if (meta.desktop !== undefined && !RunDesktopSchema.safeParse(meta.desktop).success) delete meta.desktop;
  if (meta.batch !== undefined && !(isObject(meta.batch) && typeof meta.batch.id === 'string' && Number.isInteger(meta.batch.row))) delete meta.batch;
  return meta;
}

export type MetaRead = { ok: true; meta: SessionMeta } | { ok: false; missing: boolean; message: string; partial: Fields | null };

/**
 * Reads and checks a session.json; one still at `running` or `interrupted` takes the ending the
 * recorder left in its reserved space, if any, and one still `running` after that its progress
 * from the events.
 */
export async function readSessionMeta(directory: string): Promise<MetaRead> {
  const read = await readSessionJson(directory);
  if (!read.ok || (read.meta.status !== 'running' && read.meta.status !== 'interrupted')) return read;
  const recorded = await readRecordedEnding(directory);
  // The progress first: an ending on a write failure says how many steps were recorded.
  const meta = read.meta.status === 'running' && recorded?.kind !== 'ending' ? withProgress(read.meta, await readRecordedTotals(directory)) : read.meta;
  return { ok: true, meta: withRecordedEnding(meta, recorded) };
}

/** The metadata of a session still running, with the steps and cost its events show. */
export function withProgress(meta: SessionMeta, totals: RunTotals): SessionMeta {
  return { ...meta, steps: totals.steps, costUsd: totals.usage.costUsd, usage: { ...totals.usage } };
}

/** The events that move the totals, found without parsing every line (memory events are most of a record). */
const TOTALS_LINE = /"type":"(?:prediction|step-finished|run-finished)"/;

/**
 * The totals of a session's record, folding only the lines that count: a listing asks this of
 * every running session, so it reads the file but parses a few lines per step. Never throws.
 */
export async function readRecordedTotals(directory: string): Promise<RunTotals> {
  const text = await readFile(join(directory, EVENTS_FILE), 'utf8').catch(() => '');
  let totals = NO_TOTALS;
  for (const line of text.split('\n')) {
    if (!TOTALS_LINE.test(line)) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    // Records from before events carried `seq`: the order of the lines is all the fold needs.
    if (isObject(value) && value.seq === undefined) value = { ...value, seq: 1 };
    const parsed = parseAgentEvent(value);
    if (parsed.ok) totals = addToTotals(totals, parsed.event);
  }
  return totals;
}

async function readSessionJson(directory: string): Promise<MetaRead> {
  let text: string;
  try {
    text = await readFile(join(directory, SESSION_FILE), 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return { ok: false, missing, message: missing ? `${SESSION_FILE} is missing` : `${SESSION_FILE} cannot be read: ${(error as Error).message}`, partial: null };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, missing: false, message: `${SESSION_FILE} is not valid JSON (${(error as Error).message})`, partial: null };
  }
  const problems = metaProblems(value);
  if (problems.length > 0) {
    return { ok: false, missing: false, message: `${SESSION_FILE}: ${problems.join(', ')} missing or invalid`, partial: isObject(value) ? value : null };
  }
  return { ok: true, meta: cleanMeta(value as Fields) };
}

/** Combines what survived of a damaged session.json with what the events tell. */
function repairMeta(id: string, partial: Fields | null, events: readonly AgentEvent[], fallbackStart: number): SessionMeta {
  const rebuilt = metaFromEvents(id, events, fallbackStart);
  if (!partial) return rebuilt;
  const kept: Fields = {};
  for (const [field, check] of Object.entries(META_CHECKS)) if (check(partial[field])) kept[field] = partial[field];
  return cleanMeta({ ...partial, ...rebuilt, ...kept, id });
}

/** How a session folder is read beyond what is on disk. */
export interface ReadOptions {
  /**
   * Files of the session (paths inside its folder) that exist though not (yet) on disk here: a
   * stored session's screenshots and replies, fetched when asked for.
   */
  present?: ReadonlySet<string>;
}

/** Per-step files found in the session folder (or known to exist): the raw replies and the full-resolution captures. */
async function stepFiles(directory: string, present: ReadonlySet<string>): Promise<{ screenshots: Set<string>; replies: Map<number, string>; full: Map<number, string> }> {
  const elsewhere = (folder: string) => [...present].filter((path) => path.startsWith(`${folder}/`) && !path.slice(folder.length + 1).includes('/')).map((path) => path.slice(folder.length + 1));
  const list = async (folder: string) => [...new Set([...(await readdir(join(directory, folder)).catch(() => [] as string[])), ...elsewhere(folder)])];
  const [shots, replies] = await Promise.all([list(SCREENSHOTS_DIR), list(REPLIES_DIR)]);
  const byStep = (names: string[], folder: string, pattern: RegExp) => {
    const map = new Map<number, string>();
    for (const name of names) {
      const match = pattern.exec(name);
      if (match) map.set(Number(match[1]), `${folder}/${name}`);
    }
    return map;
  };
  return {
    screenshots: new Set(shots.map((name) => `${SCREENSHOTS_DIR}/${name}`)),
    replies: byStep(replies, REPLIES_DIR, /^step-(\d+)\.txt$/),
    full: byStep(shots, SCREENSHOTS_DIR, /^step-(\d+)\.full\.png$/),
  };
}

async function fileExists(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

export type EventsRead = { ok: true; events: AgentEvent[] } | { ok: false; message: string };

/**
 * Only the events of the session folder `directory`: what the window asks for when it opens a
 * session, so none of the rest (session.json, the steps' fold, a look at every screenshot) is paid
 * for. Lines that do not read are skipped as `readSessionFolder` skips them; a missing or empty
 * events.jsonl is a session without events.
 */
export async function readSessionEvents(directory: string, id: string, place: string): Promise<EventsRead> {
  let text: string;
  try {
    text = await readFile(join(directory, EVENTS_FILE), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return { ok: false, message: `session "${id}" cannot be read: ${(error as Error).message}` };
    // No events yet, or no such session: the folder tells which.
    const folder = await stat(directory).then((info) => info.isDirectory(), () => false);
    return folder ? { ok: true, events: [] } : { ok: false, message: `no session "${id}" in ${place}` };
  }
  return { ok: true, events: parseEventLines(text).events };
}

/** Reads a session of a data directory by id; a missing session is a message, a damaged one reads with warnings. */
export async function readSession(dataDir: string, id: string, options: ReadOptions = {}): Promise<SessionRead> {
  if (!SESSION_ID_PATTERN.test(id)) return { ok: false, message: `"${id}" is not a session id` };
  return readSessionFolder(sessionDirectory(dataDir, id), id, sessionsRoot(dataDir), options);
}

/** Reads the session folder `directory` (its id is `id`; `place` names where it was looked for in messages). */
export async function readSessionFolder(directory: string, id: string, place: string, options: ReadOptions = {}): Promise<SessionRead> {
  let folderTime: number;
  try {
    const info = await stat(directory);
    if (!info.isDirectory()) return { ok: false, message: `no session "${id}" in ${place}` };
    folderTime = info.birthtimeMs || info.mtimeMs;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, message: code === 'ENOENT' ? `no session "${id}" in ${place}` : `session "${id}" cannot be read: ${(error as Error).message}` };
  }

  const warnings: ReadWarning[] = [];
  const [metaRead, recorded, eventsText, files] = await Promise.all([
    readSessionJson(directory),
    readRecordedEnding(directory),
    readFile(join(directory, EVENTS_FILE), 'utf8').then(
      (text) => ({ ok: true as const, text }),
      (error: NodeJS.ErrnoException) => ({ ok: false as const, message: error.code === 'ENOENT' ? `${EVENTS_FILE} is missing: no events were recorded` : `${EVENTS_FILE} cannot be read: ${error.message}` }),
    ),
    stepFiles(directory, options.present ?? new Set()),
  ]);

  let events: AgentEvent[] = [];
  if (!eventsText.ok) warnings.push({ line: 0, message: eventsText.message, file: EVENTS_FILE });
  else if (eventsText.text.trim() === '') warnings.push({ line: 0, message: `${EVENTS_FILE} is empty: no events were recorded`, file: EVENTS_FILE });
  else {
    const parsed = parseEventLines(eventsText.text);
    events = parsed.events;
    warnings.push(...parsed.warnings);
  }

  let meta: SessionMeta;
  if (metaRead.ok) meta = metaRead.meta;
  else {
    meta = repairMeta(id, metaRead.partial, events, folderTime);
    warnings.unshift({ line: 0, message: `${metaRead.message}; rebuilt from the events`, file: SESSION_FILE });
  }
  const unfinished = meta.status === 'running' || meta.status === 'interrupted';
  const totals = totalsOf(events);
  if (meta.status === 'running') meta = withProgress(meta, totals);
  meta = withRecordedEnding(meta, recorded, totals.lastEventAt);
  if (unfinished && meta.status !== 'running' && meta.status !== 'interrupted' && !events.some((event) => event.type === 'run-finished')) {
    // Ended, but neither session.json nor the events say so: writing failed (a full disk, most likely).
    const file = recorded?.kind === 'ending' ? ENDING_FILE : WRITE_FAILED_FILE;
    warnings.push({ line: 0, message: `the record stops before the run's end (writing failed, most likely); the end was read from ${file}`, file });
  }
  if (meta.id !== id) {
    warnings.push({ line: 0, message: `${SESSION_FILE} names the session "${meta.id}"; the folder's name "${id}" is used`, file: SESSION_FILE });
    meta = { ...meta, id };
  }

  const steps: RecordedStep[] = stepsOf(events);
  for (const view of steps) {
    const reply = files.replies.get(view.step);
    const full = files.full.get(view.step);
    if (reply) view.replyFile = reply;
    if (full) view.fullResolutionFile = full;
    const shot = view.screenshot;
    if (shot && !files.screenshots.has(shot.path) && !(await fileExists(join(directory, shot.path)))) {
      // Referenced but not on disk (deleted, or lost with the page cache in a power cut).
      warnings.push({ line: 0, message: `the screenshot of step ${view.step} is missing`, file: shot.path });
      view.screenshotMissing = true;
    }
  }
  return { ok: true, session: { meta, directory, events, steps, warnings } };
}
