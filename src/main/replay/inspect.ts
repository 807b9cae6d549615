/**
 * One step of a recorded session, ready to look at: the screenshot with the actions drawn on it,
 * the thought, the actions and what each did, the cost and the memory state. Used by the app's
 * History view and the CLI. A missing or unreadable screenshot is a message, never a throw.
 */
import { readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { Action } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';
import type { AgentEvent, ScreenshotRef, UsageSummary } from '../../shared/events';
import type { SessionRecord, RecordedStep } from '../store/session-reader';
import { annotateScreenshot } from './annotate';

/** Reads a screenshot's bytes; `null` when it is gone or cannot be read. */
export type ImageReader = (ref: ScreenshotRef) => Promise<Buffer | null>;

/**
 * Reads screenshots from a session folder. A path that leads outside the folder (a tampered
 * record) reads as missing.
 */
export function screenshotReader(directory: string): ImageReader {
  const root = resolve(directory);
  return async (ref) => {
    const path = resolve(root, ref.path);
    if (!path.startsWith(root + sep)) return null;
    try {
      return await readFile(path);
    } catch {
      return null;
    }
  };
}

/**
 * What each action of a step did, by the action's position (`action-result` events carry the
 * index): control actions and actions that never ran have no result. `RecordedStep.results` lists
 * results in order only, which misaligns once an `ask_user` precedes a click.
 */
export function resultsByAction(session: Pick<SessionRecord, 'events'>, view: Pick<RecordedStep, 'step' | 'actions' | 'results'>): Array<ActionResult | null> {
  const slots: Array<ActionResult | null> = view.actions.map(() => null);
  let indexed = false;
  for (const event of session.events) {
    if (event.type !== 'action-result' || event.step !== view.step) continue;
    indexed = true;
    if (Number.isInteger(event.index) && event.index >= 0 && event.index < slots.length) slots[event.index] = event.result;
  }
  if (!indexed) {
    for (const [index, result] of view.results.entries()) if (index < slots.length) slots[index] = result;
  }
  return slots;
}

/**
 * The screenshot a step recorded, even when the reader dropped the reference because the file is
 * gone: the observation event still says there was one, so it shows as missing, not as never taken.
 */
export function recordedScreenshot(session: Pick<SessionRecord, 'events'>, view: Pick<RecordedStep, 'step' | 'screenshot'>): ScreenshotRef | null {
  if (view.screenshot) return view.screenshot;
  let ref: ScreenshotRef | null = null;
  for (const event of session.events) if (event.type === 'observation' && event.step === view.step) ref = event.screenshot;
  return ref;
}

/** The kind of image, from its first bytes (the record's `mime` is a claim, the bytes are the fact). */
export function sniffImageMime(image: Buffer): 'image/png' | 'image/jpeg' | null {
  if (image.length >= 8 && image.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (image.length >= 3 && image[0] === 0xff && image[1] === 0xd8 && image[2] === 0xff) return 'image/jpeg';
  return null;
}

export interface StepInspection {
  step: number;
  /** The step's screenshot as recorded (a reference), or null when the step has none. */
  screenshot: ScreenshotRef | null;
  /** The screenshot with the actions drawn on it (PNG), or null: see `screenshotProblem`. */
  screenshotPng: Buffer | null;
  /** Why there is no annotated screenshot: "no screenshot recorded", "screenshot missing", ... */
  screenshotProblem: string | null;
  thought: string | null;
  actions: Action[];
  /** Results in the order they came. */
  results: ActionResult[];
  /** `resultByAction[i]` is what `actions[i]` did; null for control actions and actions that never ran. */
  resultByAction: Array<ActionResult | null>;
  /** Cost of the run up to the end of this step (null if the step never finished). */
  costUsd: number | null;
  /** The model call of this step: tokens and its own cost. */
  usage: UsageSummary | null;
  durationMs: number | null;
  errors: RecordedStep['errors'];
  notes: string[];
  questions: RecordedStep['questions'];
  /** Memory events recorded during the step, as they were. */
  memory: AgentEvent[];
  /** Neighbouring step numbers, for navigation. */
  previous: number | null;
  next: number | null;
}

export type StepInspectionResult = { ok: true; view: StepInspection } | { ok: false; message: string };

export async function inspectStep(session: SessionRecord, step: number, readImage: ImageReader = screenshotReader(session.directory)): Promise<StepInspectionResult> {
  const position = session.steps.findIndex((candidate) => candidate.step === step);
  const view = session.steps[position];
  if (!view) {
    const range = session.steps.length === 0 ? 'it has no recorded steps' : `its steps are ${session.steps[0]?.step}–${session.steps.at(-1)?.step}`;
    return { ok: false, message: `session "${session.meta.id}" has no step ${step}: ${range}` };
  }
  const resultByAction = resultsByAction(session, view);
  let screenshotPng: Buffer | null = null;
  let screenshotProblem: string | null = null;
  const screenshot = recordedScreenshot(session, view);
  if (!screenshot) {
    screenshotProblem = 'no screenshot recorded';
  } else {
    const image = await readImage(screenshot).catch(() => null);
    if (!image) screenshotProblem = 'screenshot missing';
    else if (!sniffImageMime(image)) screenshotProblem = 'screenshot unreadable: not a PNG or JPEG image';
    else {
      try {
        screenshotPng = await annotateScreenshot(image, view.actions, resultByAction);
      } catch (error) {
        screenshotProblem = `screenshot unreadable: ${(error as Error).message}`;
      }
    }
  }
  return {
    ok: true,
    view: {
      step: view.step,
      screenshot,
      screenshotPng,
      screenshotProblem,
      thought: view.thought,
      actions: view.actions,
      results: view.results,
      resultByAction,
      costUsd: view.costUsd,
      usage: view.usage,
      durationMs: view.durationMs,
      errors: view.errors,
      notes: view.notes,
      questions: view.questions,
      memory: view.memory,
      previous: session.steps[position - 1]?.step ?? null,
      next: session.steps[position + 1]?.step ?? null,
    },
  };
}
