/**
 * Three memory layers for one run (seed 003; the seed calls this class `MemoryManager`, a name
 * Mnemo leaves to the model behind the conversation memory, seed 004):
 *
 *   summary (budget 2000 characters): the compressed history
 *   recent  (budget 500 characters):  finished steps, one line each
 *   pending (no budget):              the step in progress
 *
 * `addPendingStep` opens a step, `finalizeStep` moves it into recent with its evaluation; when
 * recent outgrows its budget the memory model summarises it into summary, and when summary
 * outgrows its own it is summarised again. `compose()` is the text for the system prompt.
 *
 * Nothing is lost: a failed summarisation (HTTP error, timeout, an empty or unusable reply) leaves
 * the text where it was and the next `finalizeStep` (or `compress()`) tries again. Without a model
 * summarisation is the identity, as in the seed: recent moves into summary word for word and no
 * call is made. Budgets count characters, or tokens (characters / `charsPerToken`).
 */
import type { LayersView, MemoryChangeListener } from './events';
import type { TextModel } from './text-model';
import { describeModelError, parseJsonObject } from './text-replies';

export const MEMORY_SUMMARIZATION_PROMPT = `You condense the step log of an agent that operates a computer's screen into a short memory it will plan its next steps from.

Reply with JSON only:
{"summary": "what was done, what worked, what failed, and where things stand now"}

Rules:
- Keep what matters for the next steps: what was done, which steps succeeded or failed, the current state of the screen and the task.
- Drop repetition and detail that no longer matters; merge repeated attempts into one line.
- A step counts as done only when its line says "Eval: success". Any goal whose success was not confirmed (failed, or never evaluated) stays marked "in progress"; never report it as done.
- If the text already holds lines marked "in progress", keep them marked unless a later successful step completed them.`;

/** Added to a summary that lost the mark of a step whose success was not confirmed. */
export const IN_PROGRESS_MARK = 'In progress (success not confirmed)';

export type StepEvaluation = 'success' | 'failed';
export type BudgetUnit = 'chars' | 'tokens';

export interface LayerOptions {
  /** Default 500. */
  recentBudget: number;
  /** Default 2000. */
  summaryBudget: number;
  /** What the budgets count. Default `chars`. */
  budgetUnit: BudgetUnit;
  /** For `tokens`: characters per token. Default 3. */
  charsPerToken: number;
}

export const DEFAULT_LAYER_OPTIONS: LayerOptions = {
  recentBudget: 500,
  summaryBudget: 2000,
  budgetUnit: 'chars',
  charsPerToken: 3,
};

export interface MemoryManagerDeps {
  /** The memory model (may be a second, cheaper one); null or absent: no summarisation calls. */
  model?: TextModel | null | undefined;
  onChange?: MemoryChangeListener | undefined;
  /** Diagnostics, one line each. */
  log?: ((line: string) => void) | undefined;
}

/** What one compression pass did to each layer. */
export type LayerOutcome =
  /** Within budget: nothing to do. */
  | 'within-budget'
  /** The model's summary replaced the text. */
  | 'summarised'
  /** No model: the text was kept word for word (recent moved into summary). */
  | 'kept-verbatim'
  /** The call failed; the text stayed where it was, to be retried. */
  | 'failed';

export interface CompressionReport {
  recent: LayerOutcome;
  summary: LayerOutcome;
  /** The failure, when one layer failed. */
  error: string | null;
}

interface PendingStep {
  step: number;
  goal: string;
}

interface StepEntry {
  step: number;
  evaluation: StepEvaluation;
  goal: string;
  outcome: string | undefined;
}

type Summarised = { ok: true; text: string } | { ok: false; error: string };

export class LayeredMemory {
  private summaryMemory = '';
  private recentEntries: StepEntry[] = [];
  private pendingStep: PendingStep | null = null;
  private readonly options: LayerOptions;
  private readonly model: TextModel | null;
  private readonly onChange: MemoryChangeListener | undefined;
  private readonly log: (line: string) => void;
  private running: Promise<CompressionReport> | null = null;
  private compressingNow = false;
  private lastErrorText: string | null = null;
  private failures = 0;

  constructor(options: Partial<LayerOptions> = {}, deps: MemoryManagerDeps = {}) {
    this.options = { ...DEFAULT_LAYER_OPTIONS, ...options };
    for (const key of ['recentBudget', 'summaryBudget', 'charsPerToken'] as const) {
      const value = this.options[key];
      if (!(value > 0)) throw new RangeError(`${key} must be positive, got ${value}`);
    }
    this.model = deps.model ?? null;
    this.onChange = deps.onChange;
    this.log = deps.log ?? (() => {});
  }

  /** Records the step in progress (replacing any other pending step). */
  addPendingStep(stepId: number, goal: string): void {
    this.pendingStep = { step: stepId, goal: oneLine(goal) };
    this.report();
  }

  /**
   * Moves the step into recent with its evaluation (and, optionally, what happened), then
   * compresses what is over budget. Resolves when the compression is done; never rejects.
   */
  async finalizeStep(
    stepId: number,
    evaluation: StepEvaluation,
    options: { outcome?: string | undefined; signal?: AbortSignal | undefined } = {},
  ): Promise<CompressionReport> {
    const goal = this.pendingStep?.step === stepId ? this.pendingStep.goal : '';
    if (this.pendingStep?.step === stepId) this.pendingStep = null;
    const outcome = options.outcome !== undefined && options.outcome.trim() !== '' ? oneLine(options.outcome) : undefined;
    this.recentEntries.push({ step: stepId, evaluation, goal, outcome });
    this.report();
    return this.compress(options.signal);
  }

  /**
   * Summarises recent if it is over budget, then summary if it is. Also the retry after a failure.
   * Calls are serialised: a call made while one runs waits for it, then checks again.
   */
  async compress(signal?: AbortSignal): Promise<CompressionReport> {
    while (this.running) await this.running;
    const run = this.compressOnce(signal).finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  /** The three layers as text for the system prompt (empty layers left out). */
  compose(): string {
    const parts: string[] = [];
    const { summary, recent, pending } = this.layers;
    if (summary) parts.push(`[Summarized history]\n${summary}`);
    if (recent) parts.push(`[Recent steps]\n${recent}`);
    if (pending) parts.push(`[Current step]\n${pending}`);
    return parts.join('\n\n');
  }

  get layers(): LayersView {
    return {
      pending: this.pendingStep ? `Step ${this.pendingStep.step} | Goal: ${this.pendingStep.goal}` : '',
      recent: this.recentEntries.map(entryText).join('\n'),
      summary: this.summaryMemory,
    };
  }

  get compressing(): boolean {
    return this.compressingNow;
  }

  /** The last summarisation failure, until a summarisation succeeds. */
  get lastError(): string | null {
    return this.lastErrorText;
  }

  /** Failed summarisation calls so far. */
  get failedCompressions(): number {
    return this.failures;
  }

  /** The size of a text in the budgets' unit. */
  measure(text: string): number {
    return this.options.budgetUnit === 'chars' ? text.length : Math.ceil(text.length / this.options.charsPerToken);
  }

  clear(): void {
    this.summaryMemory = '';
    this.recentEntries = [];
    this.pendingStep = null;
    this.lastErrorText = null;
    this.report();
  }

  private async compressOnce(signal: AbortSignal | undefined): Promise<CompressionReport> {
    const report: CompressionReport = { recent: 'within-budget', summary: 'within-budget', error: null };
    if (this.measure(this.layers.recent) > this.options.recentBudget) {
      report.recent = await this.compressRecent(signal);
      if (report.recent === 'failed') report.error = this.lastErrorText;
    }
    // Also when recent failed: a summary left over budget by an earlier failure is retried here.
    if (this.measure(this.summaryMemory) > this.options.summaryBudget) {
      report.summary = await this.compressSummary(signal);
      if (report.summary === 'failed') report.error = this.lastErrorText;
    }
    return report;
  }

  private async compressRecent(signal: AbortSignal | undefined): Promise<LayerOutcome> {
    // The entries summarised now; steps finalised meanwhile stay in recent.
    const batch = [...this.recentEntries];
    const text = batch.map(entryText).join('\n');
    this.log(`Compressing recent memory (${text.length} chars)`);
    const result = await this.summarize(text, signal);
    if (!result.ok) {
      this.fail(`Memory compression failed: ${result.error}`);
      return 'failed';
    }
    // A clear() during the call emptied the layers: the summary of what was cleared is dropped too.
    if (batch.some((entry, index) => this.recentEntries[index] !== entry)) {
      this.report();
      return 'within-budget';
    }
    const piece = this.model ? keepUnconfirmed(result.text, batch) : result.text;
    this.summaryMemory = this.summaryMemory ? `${this.summaryMemory}\n${piece}` : piece;
    this.recentEntries = this.recentEntries.slice(batch.length);
    this.succeed();
    return this.model ? 'summarised' : 'kept-verbatim';
  }

  private async compressSummary(signal: AbortSignal | undefined): Promise<LayerOutcome> {
    if (!this.model) return 'kept-verbatim';
    const before = this.summaryMemory;
    this.log(`Compressing summary memory (${before.length} chars)`);
    const result = await this.summarize(before, signal);
    if (!result.ok) {
      this.fail(`Summary compression failed: ${result.error}`);
      return 'failed';
    }
    const marks = before.split('\n').filter((line) => /in progress/i.test(line));
    const next = marks.length > 0 && !/in progress/i.test(result.text) ? `${result.text}\n${marks.join('\n')}` : result.text;
    // Recent compressions may have appended to the summary during the call: keep what came after.
    const appended = this.summaryMemory.startsWith(before) ? this.summaryMemory.slice(before.length) : '';
    this.summaryMemory = `${next}${appended}`;
    this.succeed();
    return 'summarised';
  }

  /** The model's summary of a text; the text itself without a model (no-op compression). */
  private async summarize(text: string, signal: AbortSignal | undefined): Promise<Summarised> {
    if (!this.model) return { ok: true, text };
    this.compressingNow = true;
    this.report();
    try {
      const reply = await this.model.complete({ system: MEMORY_SUMMARIZATION_PROMPT, messages: [{ role: 'user', content: text }] }, signal);
      if (!reply.ok) return { ok: false, error: describeModelError(reply.error) };
      const content = reply.text?.trim() ?? '';
      if (content === '') return { ok: false, error: 'Memory model returned no text content' };
      const parsed = parseJsonObject(content);
      if (parsed === null) return { ok: true, text: content };
      const summary = parsed['summary'];
      if (typeof summary === 'string' && summary.trim() !== '') return { ok: true, text: summary.trim() };
      return { ok: false, error: 'Memory model returned JSON without a "summary" text' };
    } finally {
      this.compressingNow = false;
    }
  }

  private fail(message: string): void {
    this.failures += 1;
    this.lastErrorText = message;
    this.log(message);
    this.report();
  }

  private succeed(): void {
    this.lastErrorText = null;
    this.report();
  }

  private report(): void {
    this.onChange?.({ kind: 'layers', ...this.layers, compressing: this.compressingNow, lastError: this.lastErrorText });
  }
}

function entryText(entry: StepEntry): string {
  const goal = entry.goal === '' ? '' : ` | Goal: ${entry.goal}`;
  const outcome = entry.outcome === undefined ? '' : ` | Result: ${entry.outcome}`;
  return `Step ${entry.step} | Eval: ${entry.evaluation}${goal}${outcome}`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * The summary of a batch, with the steps whose success was not confirmed (failed, and not done by
 * a later step of the batch with the same goal) marked in progress when the model dropped that.
 */
function keepUnconfirmed(summary: string, batch: readonly StepEntry[]): string {
  const unconfirmed = batch.filter(
    (entry, index) => entry.evaluation !== 'success' && !batch.slice(index + 1).some((later) => later.evaluation === 'success' && later.goal === entry.goal),
  );
  if (unconfirmed.length === 0 || /in progress/i.test(summary)) return summary;
  const steps = unconfirmed.map((entry) => `Step ${entry.step}${entry.goal ? `: ${entry.goal}` : ''}`).join('; ');
  return `${summary}\n${IN_PROGRESS_MARK}: ${steps}`;
}
