/**
 * Sessions as the front ends print and serve them: `mnemo sessions --json` and
 * `GET /api/sessions` give `SessionListItem`s, `mnemo show --json` and `GET /api/sessions/<id>`
 * a `ShownSession` (the server turns each file path into a URL on itself).
 */
import { join } from 'node:path';
import type { Action } from '../../../shared/actions';
import type { SessionListItem } from '../../../shared/app-api';
import type { ActionResult } from '../../../shared/action-result';
import type { RunDesktop } from '../../../shared/desktop';
import type { UsageSummary } from '../../../shared/events';
import type { SessionSummary } from '../../store/session-index';
import type { SessionRecord, RecordedStep } from '../../store/session-reader';

/** One element of `mnemo sessions --json`: the contract's `SessionListItemSchema`, the one shape. */
export type { SessionListItem };

export function listItemOf(summary: SessionSummary): SessionListItem {
  return {
    id: summary.id,
    task: summary.task,
    status: summary.status,
    startedAt: new Date(summary.startedAt).toISOString(),
    steps: summary.steps,
    cost: summary.costUsd,
    ...(summary.sample ? { sample: true as const } : {}),
    ...(summary.store ? { store: summary.store } : {}),
    ...(summary.waitingForUpload ? { waitingForUpload: true as const } : {}),
    ...(summary.desktop ? { desktop: summary.desktop } : {}),
    ...(summary.batch ? { batch: summary.batch } : {}),
  };
}

/** One step of `mnemo show --json`. */
export interface ShownStep {
  step: number;
  /** The step ran to its end (false for the step a crash interrupted). */
  complete: boolean;
  /** The step's first action, or null. */
  action: Action | null;
  /** The first action's result, or null (not executed). */
  result: ActionResult | null;
  thought: string | null;
  /** Absolute path of the model-ready screenshot, or null. */
  screenshot: string | null;
  actions: Action[];
  results: ActionResult[];
  /** Step errors; `kind` is one of STEP_ERROR_KINDS (src/shared/events.ts). */
  errors: Array<{ kind: string; message: string }>;
  notes: string[];
  /** `id`: the question's id (the `seq` of its ask-user event). */
  questions: Array<{ id: number; kind: string; question: string; answer: string | null }>;
  durationMs: number | null;
  /** Cost of the run up to the end of this step (USD), or null. */
  cost: number | null;
  /** What the step spent: every model call of it (records made before that was kept: its prediction's). */
  usage: UsageSummary | null;
  /** Absolute path of the model's raw reply (secrets masked), or null. */
  reply: string | null;
  /** Absolute path of the full-resolution capture (PNG), or null. */
  fullResolution: string | null;
}

/** `mnemo show --json`. */
export interface ShownSession {
  id: string;
  task: string;
  status: string;
  startedAt: string;
  endedAt: string | null;
  model: string;
  family: string;
  cost: number;
  usage: UsageSummary | null;
  reason: string | null;
  replayOf: string | null;
  /** The desktop it ran on, as session.json records it: the user's display, or a private one with its size and apps; null for a session recorded before that was kept. */
  desktop: RunDesktop | null;
  /** The batch it is a row of (`mnemo batch`); absent when none. */
  batch?: { id: string; row: number };
  /** The session folder: in the data directory, or the store cache's copy of a stored session. */
  directory: string;
  /** The shared session store it was read from (present only then). */
  store?: string;
  warnings: Array<{ file: string; line: number; message: string }>;
  steps: ShownStep[];
}

function shownStep(view: RecordedStep, directory: string): ShownStep {
  const file = (relative: string | undefined) => (relative ? join(directory, relative) : null);
  return {
    step: view.step,
    complete: view.durationMs !== null,
    action: view.actions[0] ?? null,
    result: view.results[0] ?? null,
    thought: view.thought,
    screenshot: view.screenshotMissing ? null : file(view.screenshot?.path),
    actions: view.actions,
    results: view.results,
    errors: view.errors,
    notes: view.notes,
    questions: view.questions.map(({ id, kind, question, answer }) => ({ id, kind, question, answer })),
    durationMs: view.durationMs,
    cost: view.costUsd,
    usage: view.usage,
    reply: file(view.replyFile),
    fullResolution: file(view.fullResolutionFile),
  };
}

export function shownSession(session: SessionRecord): ShownSession {
  const { meta, directory } = session;
  return {
    id: meta.id,
    task: meta.task,
    status: meta.status,
    startedAt: new Date(meta.startedAt).toISOString(),
    endedAt: meta.endedAt === null ? null : new Date(meta.endedAt).toISOString(),
    model: meta.model,
    family: meta.family,
    cost: meta.costUsd,
    usage: meta.usage ?? null,
    reason: meta.reason,
    replayOf: meta.replayOf ?? null,
    desktop: meta.desktop ?? null,
    ...(meta.batch ? { batch: meta.batch } : {}),
    directory,
    ...(session.store ? { store: session.store } : {}),
    warnings: session.warnings.map((w) => ({ file: w.file ?? 'events.jsonl', line: w.line, message: w.message })),
    steps: session.steps.map((view) => shownStep(view, directory)),
  };
}

/**
 * The shown session with each file named by `ref` (a URL on the server, an MCP resource URI) from
 * its path inside the session folder, instead of its path on this machine.
 */
export function shownSessionWithRefs(session: SessionRecord, ref: (relative: string) => string): ShownSession {
  const shown = shownSession(session);
  const toRef = (absolute: string | null) => (absolute === null ? null : ref(absolute.slice(session.directory.length + 1).split('\\').join('/')));
  return { ...shown, steps: shown.steps.map((step) => ({ ...step, screenshot: toRef(step.screenshot), reply: toRef(step.reply), fullResolution: toRef(step.fullResolution) })) };
}
