/**
 * Screenshot pruning (seed 003): what the model is sent keeps the last N screenshots (default 3,
 * the current one included); each older one becomes `[Screenshot removed - Step k]`. Only the
 * model's input changes: the history given is never modified, and a pruned copy is returned.
 *
 * A token hard limit backs it up: text counts as characters / 3, an image as 800 tokens, and when
 * the estimate passes 90% of the model's context window the oldest images go first (then, if that
 * is still not enough, the oldest steps). A history window (`maxHistorySteps`) keeps the text of a
 * long run bounded too: older steps live on in the memory layers' summary.
 *
 * Cache-friendly mode drops images (and windowed steps) in chunks, so the start of the prompt stays
 * the same for several steps in a row and a provider's prompt cache keeps matching.
 */
import type { StepRecord } from '../model/types';
import type { MemoryChange, MemoryChangeListener } from './events';

export interface PruningOptions {
  /** Screenshots in the model's input, the current one included. Default 3. */
  screenshotKeepCount: number;
  /** The model's context window, in tokens. Default 128 000. */
  maxContextTokens: number;
  /** The hard limit, as a share of the context window. Default 0.9. */
  tokenThresholdRatio: number;
  /** Default 800. */
  tokensPerImage: number;
  /** Text is estimated as characters / this. Default 3. */
  charsPerToken: number;
  /** Drop screenshots (and windowed steps) in chunks rather than one per step. Default false. */
  cacheFriendly: boolean;
  /** The chunk size in cache-friendly mode. Default: `screenshotKeepCount`. */
  removalChunk: number | null;
  /** Steps of history in the model's input (the most recent ones); null for all. Default 20. */
  maxHistorySteps: number | null;
}

export const DEFAULT_PRUNING_OPTIONS: PruningOptions = {
  screenshotKeepCount: 3,
  maxContextTokens: 128_000,
  tokenThresholdRatio: 0.9,
  tokensPerImage: 800,
  charsPerToken: 3,
  cacheFriendly: false,
  removalChunk: null,
  maxHistorySteps: 20,
};

export interface PruneInput {
  /** The run's history, oldest first. Not modified. */
  history: readonly StepRecord[];
  /** Other text the request carries (system prompt, memory, task, feedback), for the estimate. */
  extraText?: string | readonly string[] | undefined;
  /** The current screenshot goes with the request: it counts as one of the N and as an image. Default true. */
  currentImage?: boolean | undefined;
}

/** What a prune did (the fields of its `pruning` change, steps ascending) and the history to send. */
export type PruneResult = Omit<Extract<MemoryChange, { kind: 'pruning' }>, 'kind'> & {
  /** The history to send: a copy, with placeholders for removed screenshots. */
  history: StepRecord[];
};

export function screenshotRemovedPlaceholder(step: number): string {
  return `[Screenshot removed - Step ${step}]`;
}

export function tokenLimitPlaceholder(step: number): string {
  return `[Screenshot removed - token limit - Step ${step}]`;
}

/** Text tokens as the seed estimates them: characters / charsPerToken, rounded up. */
export function estimateTextTokens(text: string, charsPerToken: number = DEFAULT_PRUNING_OPTIONS.charsPerToken): number {
  return Math.ceil(text.length / charsPerToken);
}

/**
 * The text a step contributes to a request: its thought and actions (or its raw reply, which some
 * families replay instead, when that is longer), its results and its placeholder.
 */
export function stepText(step: StepRecord): string {
  const turn = [step.thought ?? '', step.actions.length > 0 ? JSON.stringify(step.actions) : ''].filter((part) => part !== '').join('\n');
  const parts = [step.reply !== undefined && step.reply.length > turn.length ? step.reply : turn, step.results];
  if (!step.screenshot && step.screenshotPlaceholder) parts.push(step.screenshotPlaceholder);
  return parts.filter((part) => part !== '').join('\n');
}

/** A step's estimated tokens: its text plus its screenshot, if it still has one. */
export function estimateStepTokens(step: StepRecord, options: Pick<PruningOptions, 'charsPerToken' | 'tokensPerImage'> = DEFAULT_PRUNING_OPTIONS): number {
  return estimateTextTokens(stepText(step), options.charsPerToken) + (step.screenshot ? options.tokensPerImage : 0);
}

/** The pruned copy of a history (pure; see the module comment). */
export function pruneScreenshots(input: PruneInput, overrides: Partial<PruningOptions> = {}): PruneResult {
  const options = resolveOptions(overrides);
  const currentImage = input.currentImage ?? true;
  const chunk = options.cacheFriendly ? Math.max(1, options.removalChunk ?? options.screenshotKeepCount) : 1;
  const prunedSteps: number[] = [];
  const droppedSteps: number[] = [];

  // 1. The history window.
  let history = [...input.history];
  if (options.maxHistorySteps !== null && history.length > options.maxHistorySteps) {
    let drop = history.length - options.maxHistorySteps;
    drop -= drop % chunk;
    droppedSteps.push(...history.slice(0, drop).map((step) => step.step));
    history = history.slice(drop);
  }

  // 2. The last N screenshots (the current one counts as one of them).
  const withImage = history.flatMap((step, index) => (step.screenshot ? [index] : []));
  const keepInHistory = Math.max(0, options.screenshotKeepCount - (currentImage ? 1 : 0));
  let remove = Math.max(0, withImage.length - keepInHistory);
  remove -= remove % chunk;
  for (const index of withImage.slice(0, remove)) {
    const step = history[index] as StepRecord;
    history[index] = { ...step, screenshot: undefined, screenshotPlaceholder: screenshotRemovedPlaceholder(step.step) };
    prunedSteps.push(step.step);
  }

  // 3. The token hard limit: the oldest images first, then the oldest steps.
  const thresholdTokens = Math.floor(options.maxContextTokens * options.tokenThresholdRatio);
  const extra = typeof input.extraText === 'string' ? [input.extraText] : (input.extraText ?? []);
  const fixedTokens = extra.reduce((sum, text) => sum + estimateTextTokens(text, options.charsPerToken), 0) + (currentImage ? options.tokensPerImage : 0);
  let estimatedTokens = fixedTokens + history.reduce((sum, step) => sum + estimateStepTokens(step, options), 0);
  let hardLimitApplied = false;
  for (let index = 0; index < history.length && estimatedTokens > thresholdTokens; index++) {
    const step = history[index] as StepRecord;
    if (!step.screenshot) continue;
    const replaced: StepRecord = { ...step, screenshot: undefined, screenshotPlaceholder: tokenLimitPlaceholder(step.step) };
    estimatedTokens += estimateStepTokens(replaced, options) - estimateStepTokens(step, options);
    history[index] = replaced;
    prunedSteps.push(step.step);
    hardLimitApplied = true;
  }
  while (history.length > 0 && estimatedTokens > thresholdTokens) {
    const step = history.shift() as StepRecord;
    estimatedTokens -= estimateStepTokens(step, options);
    droppedSteps.push(step.step);
    // Its screenshot was already replaced above; it is now left out as a whole.
    const at = prunedSteps.indexOf(step.step);
    if (at >= 0) prunedSteps.splice(at, 1);
    hardLimitApplied = true;
  }

  const imagesKept = history.filter((step) => step.screenshot).length + (currentImage ? 1 : 0);
  return {
    history,
    prunedSteps: [...prunedSteps].sort((a, b) => a - b),
    droppedSteps: [...droppedSteps].sort((a, b) => a - b),
    imagesKept,
    estimatedTokens,
    thresholdTokens,
    hardLimitApplied,
  };
}

/** The hard limit alone, on a history already pruned (no window, no keep count). */
export function applyTokenHardLimit(input: PruneInput, overrides: Partial<PruningOptions> = {}): PruneResult {
  return pruneScreenshots(input, { ...overrides, screenshotKeepCount: Number.MAX_SAFE_INTEGER, maxHistorySteps: null, cacheFriendly: false });
}

/** Pruning with its options, reporting every result to `onChange` (kind `pruning`). */
export class ScreenshotPruner {
  readonly options: PruningOptions;
  private readonly onChange: MemoryChangeListener | undefined;
  private last: PruneResult | null = null;

  constructor(options: Partial<PruningOptions> = {}, deps: { onChange?: MemoryChangeListener | undefined } = {}) {
    this.options = resolveOptions(options);
    this.onChange = deps.onChange;
  }

  prune(input: PruneInput): PruneResult {
    const result = pruneScreenshots(input, this.options);
    this.last = result;
    this.onChange?.({
      kind: 'pruning',
      prunedSteps: result.prunedSteps,
      droppedSteps: result.droppedSteps,
      imagesKept: result.imagesKept,
      estimatedTokens: result.estimatedTokens,
      thresholdTokens: result.thresholdTokens,
      hardLimitApplied: result.hardLimitApplied,
    });
    return result;
  }

  /** The last result, or null before the first `prune`. */
  get lastResult(): PruneResult | null {
    return this.last;
  }
}

function resolveOptions(overrides: Partial<PruningOptions>): PruningOptions {
  const options = { ...DEFAULT_PRUNING_OPTIONS, ...overrides };
  const positive = ['maxContextTokens', 'tokenThresholdRatio', 'charsPerToken'] as const;
  for (const key of positive) {
    if (!(options[key] > 0)) throw new RangeError(`${key} must be positive, got ${options[key]}`);
  }
  if (!(options.tokensPerImage >= 0)) throw new RangeError(`tokensPerImage must not be negative, got ${options.tokensPerImage}`);
  if (!Number.isInteger(options.screenshotKeepCount) || options.screenshotKeepCount < 0) {
    throw new RangeError(`screenshotKeepCount must be a whole number ≥ 0, got ${options.screenshotKeepCount}`);
  }
  if (options.removalChunk !== null && (!Number.isInteger(options.removalChunk) || options.removalChunk < 1)) {
    throw new RangeError(`removalChunk must be a whole number ≥ 1, got ${options.removalChunk}`);
  }
  if (options.maxHistorySteps !== null && (!Number.isInteger(options.maxHistorySteps) || options.maxHistorySteps < 0)) {
    throw new RangeError(`maxHistorySteps must be a whole number ≥ 0, got ${options.maxHistorySteps}`);
  }
  return options;
}
