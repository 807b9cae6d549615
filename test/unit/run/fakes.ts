/**
 * Fakes for the run's seams, small but honest where the loop depends on them:
 *
 * - `FakeOperator`: observe returns a real JPEG (sharp) of the current screen with its Frame, sized
 *   to the capture options as the real capture is; scripted capture failures (`no_display`
 *   included); execute records what it was asked and returns scripted results; the fingerprint
 *   follows the screen, so "unchanged screen" means what it means on a display.
 * - `ScriptedModel`: a VisionModel answering from a script, one turn per call (a value, or a
 *   function that may stream thought deltas or wait until the run is stopped); it keeps what it was
 *   sent.
 * - `MemoryRecorder`: a RunRecorder in memory with the real one's ordering: writes happen in the
 *   background one after the other, `written()` resolves after everything queued before it,
 *   `writtenSeq` advances as events are written, a failed write sets `failure` and is not kept, and
 *   nothing is written after `close`.
 */
import sharp from 'sharp';
import { ActionSchema, type Action, type ActionInput } from '../../../src/shared/actions';
import type { ActionErrorKind, ActionResult } from '../../../src/shared/action-result';
import type { AgentEvent, ScreenshotRef } from '../../../src/shared/events';
import type { Frame, Rect } from '../../../src/shared/frame';
import type { CaptureOptions, CaptureResult } from '../../../src/main/operator/capture';
import type { Operator } from '../../../src/main/operator/desktop-operator';
import type { ScreenFingerprint } from '../../../src/main/operator/screen-diff';
import type { SafetyCheck } from '../../../src/main/model/families/openai-cua';
import type { ModelErrorKind, PredictInput, Prediction, PredictionFailure, PredictionSuccess, ThoughtListener, VisionModel } from '../../../src/main/model/types';
import type { RunRecorder } from '../../../src/main/store/run-recorder';
import { stepStem } from '../../../src/main/store/paths';
import type { AskUser, PendingQuestion } from '../../../src/main/run/ask';
import { makeScreenshot } from '../replay/session-fixture';

// ---------------------------------------------------------------------------------------------
// Operator

export interface Colour {
  r: number;
  g: number;
  b: number;
}

/** What is on the display: a flat colour with a lighter panel (session-fixture's screenshots). */
export interface Screen {
  background: Colour;
}

export const GREY_SCREEN: Screen = { background: { r: 90, g: 90, b: 90 } };

/** A screen of its own for each number: different enough to count as changed. */
export function screenNumber(n: number): Screen {
  return { background: { r: (40 + n * 37) % 256, g: (200 - n * 23 + 256) % 256, b: (60 + n * 71) % 256 } };
}

export type CaptureFailure = { ok: false; message: string; kind?: 'no_display' };

export interface ExecutedAction {
  action: Action;
  frame: Frame;
}

export interface FakeOperatorOptions {
  /** The display: where it sits on the desktop, in logical pixels (scale factor 1). */
  bounds?: Rect;
  screen?: Screen;
  windowTitle?: string;
}

const FINGERPRINT_SIZE = { width: 96, height: 60 };

/** Real capture never upscales and keeps the aspect ratio within maxWidth / maxHeight. */
function fitted(size: { width: number; height: number }, options: CaptureOptions): { width: number; height: number } {
  const scale = Math.min(1, (options.maxWidth ?? Infinity) / size.width, (options.maxHeight ?? Infinity) / size.height);
  return { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) };
}

export class FakeOperator implements Operator {
  /** What is on the display now. */
  screen: Screen;
  readonly bounds: Rect;
  windowTitle: string | undefined;
  /** Every action carried out, in order, with the frame it came with (one asked for after a stop is not). */
  readonly executed: ExecutedAction[] = [];
  /** Every capture asked for (failed ones included), with its options. */
  readonly observed: CaptureOptions[] = [];
  /** Per observe call: a failure, or the screen shown from then on; consumed in order. */
  private readonly observeScript: Array<CaptureFailure | Screen> = [];
  /** Per execute call: a result; consumed in order, then every action succeeds. */
  private readonly executeScript: ActionResult[] = [];
  /** Called when an action ran: returns the screen it leaves, if it changes the screen. */
  afterExecute: ((action: Action) => Screen | undefined) | undefined;
  private readonly images = new Map<string, Promise<Buffer>>();

  constructor(options: FakeOperatorOptions = {}) {
    this.bounds = options.bounds ?? { x: 0, y: 0, width: 640, height: 400 };
    this.screen = options.screen ?? GREY_SCREEN;
    this.windowTitle = options.windowTitle;
  }

  /** The next captures: each entry a failure, or a screen that appears before that capture. */
  scriptObservations(...entries: Array<CaptureFailure | Screen>): this {
    this.observeScript.push(...entries);
    return this;
  }

  scriptResults(...results: ActionResult[]): this {
    this.executeScript.push(...results);
    return this;
  }

  async observe(options: CaptureOptions = {}): Promise<CaptureResult> {
    this.observed.push(options);
    const next = this.observeScript.shift();
    if (next && 'ok' in next) return next;
    if (next) this.screen = next;
    const size = fitted(this.bounds, options);
    const format = options.format ?? 'jpeg';
    const image = await this.render(this.screen, size, format);
    const frame: Frame = {
      displayId: 'fake-0',
      bounds: { ...this.bounds },
      scaleFactor: 1,
      captured: { width: this.bounds.width, height: this.bounds.height },
      image: { ...size, format },
    };
    return { ok: true, observation: { image, frame, source: 'nut-js', capturedAt: Date.now() } };
  }

  async execute(action: Action, frame: Frame, signal?: AbortSignal): Promise<ActionResult> {
    if (signal?.aborted) return { ok: false, type: action.type, error: { kind: 'aborted', message: 'the action was cancelled before it started' } };
    this.executed.push({ action, frame });
    const scripted = this.executeScript.shift();
    if (scripted) return scripted;
    const changed = this.afterExecute?.(action);
    if (changed) this.screen = changed;
    return { ok: true, type: action.type, durationMs: 1 };
  }

  async fingerprint(): Promise<ScreenFingerprint> {
    const { r, g, b } = this.screen.background;
    const grey = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
    return { ...FINGERPRINT_SIZE, pixels: new Uint8Array(FINGERPRINT_SIZE.width * FINGERPRINT_SIZE.height).fill(grey) };
  }

  async activeWindowTitle(): Promise<string | undefined> {
    return this.windowTitle;
  }

  /** The image a capture of `screen` gives at `size` (the bytes the model and the record get). */
  render(screen: Screen, size: { width: number; height: number }, format: 'jpeg' | 'png' = 'jpeg'): Promise<Buffer> {
    const key = `${JSON.stringify(screen.background)} ${size.width}x${size.height} ${format}`;
    let image = this.images.get(key);
    if (!image) {
      image = format === 'png' ? sharp({ create: { ...size, channels: 3, background: screen.background } }).png().toBuffer() : makeScreenshot(screen.background, size);
      this.images.set(key, image);
    }
    return image;
  }

  /** The executed actions' types, for short expectations. */
  get executedTypes(): string[] {
    return this.executed.map((entry) => entry.action.type);
  }
}

export function actionFailed(kind: ActionErrorKind, message: string, type?: Action['type']): ActionResult {
  return type === undefined ? { ok: false, error: { kind, message } } : { ok: false, type, error: { kind, message } };
}

// ---------------------------------------------------------------------------------------------
// Model

/** An action as the model would write it, parsed (defaults filled, keys canonical). */
export function act(input: ActionInput): Action {
  return ActionSchema.parse(input);
}

export interface ModelCall {
  /** From 0. */
  index: number;
  input: PredictInput;
  signal: AbortSignal | undefined;
  onThought: ThoughtListener | undefined;
}

export type ModelTurn = Prediction | ((call: ModelCall) => Prediction | Promise<Prediction>);

export interface ReplyOptions {
  thought?: string | null;
  costUsd?: number;
  refusal?: string | null;
  safetyChecks?: SafetyCheck[];
  /** The raw reply; default: the thought and actions as the tools family's JSON. */
  raw?: string;
}

/** A reply that parsed. */
export function reply(actions: ActionInput[], options: ReplyOptions = {}): PredictionSuccess {
  const parsed = actions.map(act);
  const thought = options.thought === undefined ? null : options.thought;
  return {
    ok: true,
    thought,
    actions: parsed,
    usage: { inputTokens: 1000, outputTokens: 20, costUsd: options.costUsd ?? 0.001, priced: true, reported: true },
    raw: options.raw ?? JSON.stringify({ role: 'assistant', content: thought, tool_calls: [{ function: { name: 'computer', arguments: JSON.stringify({ thought, actions }) } }] }),
    refusal: options.refusal ?? null,
    pendingSafetyChecks: options.safetyChecks ?? [],
    attempts: 1,
    extras: { family: 'tools', toolCallIds: [], finishReason: 'tool_calls' },
  };
}

/** A reply that failed (an HTTP error, a reply that does not parse, ...). */
export function failure(kind: ModelErrorKind, message: string, raw?: string): PredictionFailure {
  return { ok: false, error: { kind, message, ...(raw !== undefined ? { raw } : {}) }, attempts: 1 };
}

/** Streams `deltas` (all at once, attempt 1), then, when `before` resolves, answers `prediction`. */
export function streamed(deltas: string[], prediction: Prediction, before?: () => Promise<void>): ModelTurn {
  return async ({ onThought }) => {
    for (const delta of deltas) onThought?.(delta, 1);
    await before?.();
    return prediction;
  };
}

/** A model call that hangs until the run is stopped, then reports the stop as the client does. */
export const untilStopped: ModelTurn = ({ signal }) =>
  new Promise((resolve) => {
    const stopped = () => resolve(failure('aborted', 'the request was aborted'));
    if (signal?.aborted) stopped();
    else signal?.addEventListener('abort', stopped, { once: true });
  });

export class ScriptedModel implements VisionModel {
  readonly family = 'tools' as const;
  readonly model = 'scripted-model';
  /** What the model was sent, call by call. */
  readonly calls: ModelCall[] = [];
  private readonly turns: ModelTurn[];

  /** `then`: the turn for every call after the script (default: none, which is a test bug). */
  constructor(
    turns: ModelTurn[],
    private readonly then?: ModelTurn,
  ) {
    this.turns = [...turns];
  }

  async predict(input: PredictInput, signal?: AbortSignal, onThought?: ThoughtListener): Promise<Prediction> {
    const call: ModelCall = { index: this.calls.length, input, signal, onThought };
    this.calls.push(call);
    const turn = this.turns.shift() ?? this.then;
    if (turn === undefined) throw new Error(`scripted model: no turn scripted for call ${call.index + 1}`);
    return typeof turn === 'function' ? turn(call) : turn;
  }
}

// ---------------------------------------------------------------------------------------------
// Recorder

export type RecorderWrite =
  | { kind: 'event'; event: AgentEvent }
  | { kind: 'screenshot'; step: number; path: string }
  | { kind: 'reply'; step: number };

export interface MemoryRecorderOptions {
  sessionId?: string;
  /** The first write this matches fails, and so does every write after it (a full disk). */
  failFrom?: (write: RecorderWrite) => boolean;
}

/** Lets a write wait its turn in the background, as a write to disk would. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class MemoryRecorder implements RunRecorder {
  readonly sessionId: string;
  readonly directory = '(in memory)';
  /** The events written, in write order. */
  readonly events: AgentEvent[] = [];
  /** Screenshots written, by path. */
  readonly screenshots = new Map<string, Buffer>();
  /** Replies written, by step. */
  readonly replies = new Map<number, string>();
  closed = false;
  private queue: Promise<void> = Promise.resolve();
  private broken = false;
  private firstFailure: string | null = null;
  private lastWrittenSeq = 0;
  private readonly unwritten = new Map<string, Buffer>();

  constructor(private readonly options: MemoryRecorderOptions = {}) {
    this.sessionId = options.sessionId ?? 'memory-session';
  }

  get failure(): string | null {
    return this.firstFailure;
  }

  get writtenSeq(): number {
    return this.lastWrittenSeq;
  }

  saveScreenshot(step: number, image: Buffer, mime: ScreenshotRef['mime'], size: { width: number; height: number }): ScreenshotRef {
    const id = stepStem(step);
    const path = `screenshots/${id}.${mime === 'image/png' ? 'png' : 'jpg'}`;
    this.unwritten.set(path, image);
    void this.enqueue({ kind: 'screenshot', step, path }, () => {
      this.screenshots.set(path, Buffer.from(image));
    }).finally(() => this.unwritten.delete(path));
    return { id, path, width: size.width, height: size.height, mime };
  }

  async readScreenshot(ref: ScreenshotRef): Promise<Buffer> {
    const image = this.unwritten.get(ref.path) ?? this.screenshots.get(ref.path);
    if (!image) throw new Error(`ENOENT: no screenshot ${ref.path} in the record`);
    return image;
  }

  /** A screenshot file gone from under the run (deleted by hand, lost). */
  loseScreenshot(path: string): void {
    this.screenshots.delete(path);
  }

  saveReply(step: number, raw: string): Promise<void> {
    return this.enqueue({ kind: 'reply', step }, () => {
      this.replies.set(step, raw);
    });
  }

  record(event: AgentEvent): Promise<void> {
    return this.enqueue({ kind: 'event', event }, () => {
      this.events.push(structuredClone(event));
      this.lastWrittenSeq = Math.max(this.lastWrittenSeq, event.seq);
    });
  }

  written(): Promise<void> {
    return this.queue;
  }

  flush(): Promise<void> {
    return this.queue;
  }

  async close(): Promise<void> {
    await this.queue;
    this.closed = true;
  }

  private enqueue(write: RecorderWrite, apply: () => void): Promise<void> {
    this.queue = this.queue.then(async () => {
      await nextTurn();
      if (this.closed) {
        // The real recorder's files are closed by then: the write fails.
        this.firstFailure ??= `could not write ${describeWrite(write)} in ${this.directory}: EBADF: the recorder is closed`;
        return;
      }
      if (!this.broken && this.options.failFrom?.(write)) this.broken = true;
      if (this.broken) {
        this.firstFailure ??= `could not write ${describeWrite(write)} in ${this.directory}: ENOSPC: no space left on device`;
        return;
      }
      apply();
    });
    return this.queue;
  }
}

function describeWrite(write: RecorderWrite): string {
  if (write.kind === 'event') return `events.jsonl (${write.event.type})`;
  if (write.kind === 'screenshot') return `screenshot ${write.path}`;
  return `reply of step ${write.step}`;
}

// ---------------------------------------------------------------------------------------------
// Streams and waiting

/** Every event of a run, in the order streamed; `onEvent` sees each as it comes. */
export async function collect(events: AsyncIterable<AgentEvent>, onEvent?: (event: AgentEvent) => void): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) {
    all.push(event);
    onEvent?.(event);
  }
  return all;
}

/** Polls `condition` until it holds; fails with `what` after a generous deadline. */
export async function waitFor(condition: () => boolean, what: string, deadlineMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > deadlineMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A promise the test opens: `await gate.opened` in a scripted turn, `gate.open()` in the test. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

export function ofType<T extends AgentEvent['type']>(events: readonly AgentEvent[], type: T): Array<Extract<AgentEvent, { type: T }>> {
  return events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);
}

export function runFinished(events: readonly AgentEvent[]): Extract<AgentEvent, { type: 'run-finished' }> {
  const end = ofType(events, 'run-finished');
  if (end.length !== 1) throw new Error(`expected one run-finished event, got ${end.length}`);
  return end[0] as Extract<AgentEvent, { type: 'run-finished' }>;
}

/** The seq numbers 1..n. */
export function oneToN(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

/** Everything a value holds, as text, without image bytes (to search it for a secret). */
export function textOf(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => (Buffer.isBuffer(inner) || (inner as { type?: unknown })?.type === 'Buffer' ? '[bytes]' : inner));
}

/**
 * An AskUser that keeps every question it was asked in `questions` and answers from `answers`
 * (in order, then null), or with `answers` when it is a function.
 */
export function recordingAsker(
  questions: PendingQuestion[],
  answers: Array<string | null> | ((question: PendingQuestion, signal: AbortSignal) => Promise<string | null> | string | null),
): AskUser {
  return async (question, signal) => {
    questions.push(question);
    return typeof answers === 'function' ? answers(question, signal) : (answers.shift() ?? null);
  };
}
