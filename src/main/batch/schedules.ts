/**
 * Schedules: a batch made again at the times a cron expression names. With a queue they are
 * BullMQ job schedulers (kept in Redis, fired by the queue); without one, they are kept here, in
 * `<data-dir>/schedules.json` (written whole and atomically), and `mnemo worker` or the app fires
 * them, each firing taken once by whichever asks first (`claimFiring`). The
 * cron expression is checked, and the next runs computed, with cron-parser (five fields, or six
 * with seconds first), the same parser BullMQ fires them with.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, readdir, stat, unlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as CronParser from 'cron-parser';
import { z } from 'zod';
import { makePrivateDir, writeJsonAtomically } from '../disk/files';
import { QueuedModelFlagsSchema } from './queue/jobs';
import { BatchSourceSchema } from './records';

const SCHEDULES_FILE = 'schedules.json';
/** One empty file per firing taken, so two firers of one data directory (a worker, the app) fire it once. */
const FIRINGS_DIR = 'schedule-firings';
/** Claims older than this are removed as new ones are made. */
const CLAIM_KEPT_MS = 24 * 3600_000;

export const LocalScheduleSchema = z.object({
  id: z.string(),
  createdAt: z.number(),
  cron: z.string(),
  source: BatchSourceSchema,
  /** Read again at each firing (the file may change between them): an absolute path. */
  valuesFile: z.string(),
  retries: z.number().int().nonnegative(),
  concurrency: z.number().int().positive().optional(),
  desktop: z.object({ size: z.string().optional(), apps: z.array(z.string()).optional() }),
  model: QueuedModelFlagsSchema,
});
export type LocalSchedule = z.infer<typeof LocalScheduleSchema>;

const SchedulesFileSchema = z.object({ schedules: z.array(LocalScheduleSchema) });

/** `s-1a2b3c4d`. */
export function newScheduleId(): string {
  return `s-${randomBytes(4).toString('hex')}`;
}

/**
 * cron-parser (and the luxon it brings) is loaded at the first expression read: most commands that
 * open the run service never read one, and start without it.
 */
let cronParser: typeof CronParser.CronExpressionParser | undefined;
const loadCronParser = (): typeof CronParser.CronExpressionParser => (cronParser ??= (createRequire(import.meta.url)('cron-parser') as typeof CronParser).CronExpressionParser);

export type CronChecked = { ok: true; next: number[] } | { ok: false; message: string };

/** The next `count` times (ms) the expression names after `from`, or what is wrong with it. */
export function nextRuns(cron: string, from: number, count: number): CronChecked {
  try {
    const expression = loadCronParser().parse(cron, { currentDate: new Date(from), strict: false });
    const next: number[] = [];
    for (let i = 0; i < count && expression.hasNext(); i++) next.push(expression.next().getTime());
    return { ok: true, next };
  } catch (error) {
    return { ok: false, message: `--cron "${cron}": ${(error as Error).message} (five fields: minute hour day-of-month month day-of-week, e.g. "0 2 * * 1-5"; or six with seconds first)` };
  }
}

export type SchedulesRead = { ok: true; schedules: LocalSchedule[] } | { ok: false; message: string };

export async function readLocalSchedules(dataDir: string): Promise<SchedulesRead> {
  let text: string;
  try {
    text = await readFile(join(dataDir, SCHEDULES_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, schedules: [] };
    return { ok: false, message: `cannot read ${SCHEDULES_FILE}: ${(error as Error).message}` };
  }
  try {
    const parsed = SchedulesFileSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { ok: true, schedules: parsed.data.schedules };
    return { ok: false, message: `${SCHEDULES_FILE} is damaged (${parsed.error.issues[0]?.message ?? 'unreadable'})` };
  } catch (error) {
    return { ok: false, message: `${SCHEDULES_FILE} is damaged (${(error as Error).message})` };
  }
}

export async function writeLocalSchedules(dataDir: string, schedules: readonly LocalSchedule[]): Promise<void> {
  await makePrivateDir(dataDir);
  await writeJsonAtomically(join(dataDir, SCHEDULES_FILE), { schedules }, { sync: true });
}

/** A schedule due to fire: its time (ms) is the firing's name. */
export interface DueFiring {
  schedule: LocalSchedule;
  dueAt: number;
}

/** The schedules whose next time after `since` has come by `now` (the latest such time each). Pure. */
export function dueFirings(schedules: readonly LocalSchedule[], since: number, now: number): DueFiring[] {
  const due: DueFiring[] = [];
  for (const schedule of schedules) {
    const next = nextRuns(schedule.cron, since, 1);
    const first = next.ok ? next.next[0] : undefined;
    if (first === undefined || first > now) continue;
    due.push({ schedule, dueAt: first });
  }
  return due;
}

/**
 * Takes one firing for this process: true for the first firer of the data directory to ask (an
 * exclusive create of an empty file named by the schedule and the time), false for any other.
 * Claims of more than a day ago are removed on the way.
 */
export async function claimFiring(dataDir: string, firing: DueFiring, now = Date.now()): Promise<boolean> {
  const dir = join(dataDir, FIRINGS_DIR);
  await makePrivateDir(dir, { recursive: true });
  try {
    const handle = await open(join(dir, `${firing.schedule.id}-${firing.dueAt}`), 'wx', 0o600);
    await handle.close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info && now - info.mtimeMs > CLAIM_KEPT_MS) await unlink(path).catch(() => undefined);
  }
  return true;
}
