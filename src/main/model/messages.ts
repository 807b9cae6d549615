/**
 * Pieces the family request builders share: images as data URLs, chat turns that never put two
 * user messages in a row (some chat templates refuse that), and the thought streamed as it arrives.
 */
import {
  type ChatCompletionContentPart,
  type ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { type ChatReply, type ChatRequest, type ModelClient } from './client';
import { type ImageSize } from './families';
import { usageOf } from './pricing';
import { type PriceTable } from '../../shared/settings';
import { type ModelError, type ModelImage, type Prediction, type PredictionExtras, type PredictionFailure, type PredictionSuccess, type StepRecord, type ThoughtListener, type Usage } from './types';
import { type ParsedReply, type ReplyParse } from './families';

export function imageDataUrl(image: ModelImage): string {
  return `data:${image.mime};base64,${image.image.toString('base64')}`;
}

export function sizeOf(image: ModelImage): ImageSize {
  return { width: image.width, height: image.height };
}

/** What stands in for a pruned screenshot. */
export function screenshotPlaceholder(step: StepRecord): string {
  return step.screenshotPlaceholder ?? `[Screenshot removed - Step ${step.step}]`;
}

/**
 * Chat messages built turn by turn: user parts gather until an assistant (or tool) message, so
 * consecutive user content becomes one message.
 */
export class ChatTurns {
  private readonly messages: ChatCompletionMessageParam[] = [];
  private userParts: ChatCompletionContentPart[] = [];

  constructor(system?: string) {
    if (system !== undefined && system.trim() !== '') this.messages.push({ role: 'system', content: system });
  }

  text(text: string): this {
    if (text.trim() === '') return this;
    const last = this.userParts.at(-1);
    // Adjacent texts read better as one part.
    if (last?.type === 'text') last.text = `${last.text}\n\n${text}`;
    else this.userParts.push({ type: 'text', text });
    return this;
  }

  image(image: ModelImage): this {
    this.userParts.push({ type: 'image_url', image_url: { url: imageDataUrl(image) } });
    return this;
  }

  /** The step's screenshot, or its placeholder when pruned. */
  screenshot(step: StepRecord, label?: string): this {
    if (step.screenshot) {
      if (label !== undefined) this.text(label);
      return this.image(step.screenshot);
    }
    return this.text(screenshotPlaceholder(step));
  }

  assistant(message: Extract<ChatCompletionMessageParam, { role: 'assistant' }>): this {
    this.flushUser();
    this.messages.push(message);
    return this;
  }

  tool(toolCallId: string, content: string): this {
    this.flushUser();
    this.messages.push({ role: 'tool', tool_call_id: toolCallId, content });
    return this;
  }

  build(): ChatCompletionMessageParam[] {
    this.flushUser();
    return [...this.messages];
  }

  private flushUser(): void {
    if (this.userParts.length === 0) return;
    const parts = this.userParts;
    this.userParts = [];
    // Text alone goes as a string: the widest-supported form.
    const only = parts[0];
    if (parts.length === 1 && only?.type === 'text') this.messages.push({ role: 'user', content: only.text });
    else this.messages.push({ role: 'user', content: parts });
  }
}

/** Up to this many characters, what is visible is read again at every piece of the stream. */
const READ_EVERY_PIECE_UP_TO = 16_384;
/** Past it, only once the text grew by this fraction since the last read: linear time in all. */
const READ_AGAIN_AFTER_GROWTH = 0.25;

/**
 * The thought as it streams. `visible` reads, from the reply text so far, the part of the thought
 * that is safe to show (it holds back what may still turn into a section header or a JSON block);
 * what it adds is passed on. A retry (a new attempt number) starts over.
 *
 * Reading the whole text at every piece would cost time quadratic in the reply's length: a reply
 * of a few megabytes would hold the process for minutes, and with it the timeout and Stop. So
 * pieces are kept as they come and joined only when read, and a long text is read again only once
 * it grew by a quarter: each read costs its length, and the lengths read grow geometrically.
 * `flush` reads what is left when the call ends.
 */
export class ThoughtStream {
  private pieces: string[] = [];
  private size = 0;
  private readAt = 0;
  private shown = '';
  private attempt = 0;

  constructor(
    private readonly visible: (text: string) => string,
    private readonly listener: ThoughtListener | undefined,
  ) {}

  /** One more piece of the reply's text. */
  push(delta: string, attempt: number): void {
    if (!this.listener) return;
    this.restartOn(attempt);
    if (delta !== '') this.pieces.push(delta);
    this.grew(this.size + delta.length);
  }

  /**
   * For a reply whose text `visible` reads from elsewhere (Gemini's parts): the text is now
   * `size` characters long.
   */
  advance(size: number, attempt: number): void {
    if (!this.listener) return;
    this.restartOn(attempt);
    this.grew(size);
  }

  /** Reads what the last pieces added, if anything waits (the call returned). */
  flush(): void {
    if (!this.listener || this.readAt === this.size) return;
    this.read();
  }

  /** After the reply parsed: show the rest of the final thought, when what was shown begins it. */
  finish(thought: string | null, attempt: number): void {
    if (!this.listener || thought === null) return;
    if (attempt !== this.attempt) {
      this.attempt = attempt;
      this.shown = '';
    }
    this.emit(thought);
  }

  private restartOn(attempt: number): void {
    if (attempt === this.attempt) return;
    this.attempt = attempt;
    this.pieces = [];
    this.size = 0;
    this.readAt = 0;
    this.shown = '';
  }

  private grew(size: number): void {
    this.size = size;
    if (size <= READ_EVERY_PIECE_UP_TO || size >= this.readAt * (1 + READ_AGAIN_AFTER_GROWTH)) this.read();
  }

  private read(): void {
    if (this.pieces.length > 1) this.pieces = [this.pieces.join('')];
    this.readAt = this.size;
    this.emit(this.visible(this.pieces[0] ?? ''));
  }

  private emit(visible: string): void {
    // Text once shown cannot be taken back: only extensions of it go out.
    if (visible.length <= this.shown.length || !visible.startsWith(this.shown)) return;
    const delta = visible.slice(this.shown.length);
    this.shown = visible;
    this.listener?.(delta, this.attempt);
  }
}

/**
 * The thought of a reply so far that writes prose before its actions: without a leading
 * `Thought:` label (`## Thought:`, `**Thinking:**`), up to where `stop` matches, holding back what
 * may still become the label or one of `markers`.
 */
export function visibleProse(text: string, stop: RegExp, markers: readonly string[]): string {
  let rest = text.replace(/\r\n?/g, '\n').replace(/^\s+/, '');
  const label = /^(?:#+[ \t]*)?\**(?:thought|thinking)\**[ \t]*[:：]\**[ \t]*\n?/i.exec(rest);
  if (label) rest = rest.slice(label[0].length);
  else if (/^(?:#+[ \t]*)?\**thought[ \t]*$/i.test(rest) || 'thought'.startsWith(rest.replace(/^#+[ \t]*|^\*+/g, '').toLowerCase())) return '';
  const at = rest.search(stop);
  rest = at >= 0 ? rest.slice(0, at) : rest.slice(0, rest.length - partialMarkerLength(rest, markers));
  return rest.trimEnd();
}

/** The longest end of `text` that is a proper beginning of one of `markers` (it may grow into one). */
export function partialMarkerLength(text: string, markers: readonly string[]): number {
  let longest = 0;
  for (const marker of markers) {
    for (let length = Math.min(marker.length - 1, text.length); length > longest; length -= 1) {
      if (marker.startsWith(text.slice(text.length - length))) {
        longest = length;
        break;
      }
    }
  }
  return longest;
}

/** The fields every chat-completion family's successful prediction shares. */
export interface PredictionBase {
  usage: Usage;
  raw: string;
  pendingSafetyChecks: [];
  attempts: number;
}

/** A parsed reply of a family that answers in one object (not chat completions): the prediction it makes. */
export function parsedPrediction(
  parsed: { thought: string | null; actions: PredictionSuccess['actions']; refusal: string | null },
  call: { usage: Usage; raw: string; attempts: number },
  rest: Pick<PredictionSuccess, 'pendingSafetyChecks' | 'extras' | 'captures'>,
): PredictionSuccess {
  const { thought, actions, refusal } = parsed;
  const { captures, ...others } = rest;
  return { ok: true, thought, actions, refusal, ...call, ...others, ...(captures && captures.length > 0 ? { captures } : {}) };
}

/** A refusal is a reply, not an error: one `fail` action, so the loop ends the run. */
export function refusalPrediction(base: PredictionBase, refusal: string, extras: PredictionExtras): PredictionSuccess {
  return { ok: true, ...base, thought: refusal, actions: [{ type: 'fail', reason: refusal }], refusal, extras };
}

/** A reply that did not parse, with a hint when the output token limit cut it off. */
export function parseFailure(reason: string, finishReason: string | null, base: PredictionBase): PredictionFailure {
  const cut = finishReason === 'length' ? ' (the reply was cut off at the output token limit)' : '';
  const error: ModelError = { kind: 'parse', message: `${reason}${cut}`, raw: base.raw };
  return { ok: false, error, usage: base.usage, attempts: base.attempts };
}

export interface ChatCall {
  client: ModelClient;
  request: ChatRequest;
  stream: boolean;
  signal: AbortSignal | undefined;
  thoughts: ThoughtStream;
  model: string;
  prices: PriceTable;
  /** What of the assistant message is kept as the raw reply. */
  rawOf: (message: ChatReply['message']) => string;
}

export type ChatCallResult = { ok: false; failure: PredictionFailure } | { ok: true; reply: ChatReply; base: PredictionBase };

/** One streamed chat call of a chat-completion family: thought deltas to `thoughts`, usage priced. */
export async function callChat(call: ChatCall): Promise<ChatCallResult> {
  const result = await call.client.chat(call.request, {
    stream: call.stream,
    signal: call.signal,
    onText: (delta, attempt) => call.thoughts.push(delta, attempt),
  });
  call.thoughts.flush();
  if (!result.ok) return { ok: false, failure: { ok: false, error: result.error, attempts: result.attempts } };
  const usage = usageOf(result.value.usage, call.model, call.prices);
  return { ok: true, reply: result.value, base: { usage, raw: call.rawOf(result.value.message), pendingSafetyChecks: [], attempts: result.attempts } };
}

/**
 * One step of a chat-completion family: the call, a refusal as a `fail`, the reply parsed by the
 * family, the thought finished. `extras` gets the parse (null for a refusal).
 */
export async function chatPrediction<Extras extends object>(
  call: ChatCall,
  parse: (message: ChatReply['message'], raw: string) => ReplyParse<Extras>,
  extras: (finishReason: string | null, parsed: ParsedReply<Extras> | null) => PredictionExtras,
): Promise<Prediction> {
  const result = await callChat(call);
  if (!result.ok) return result.failure;
  const { message, finishReason } = result.reply;
  const { base } = result;
  if (message.refusal) {
    call.thoughts.finish(message.refusal, base.attempts);
    return refusalPrediction(base, message.refusal, extras(finishReason, null));
  }
  const parsed = parse(message, base.raw);
  if (!parsed.ok) return parseFailure(parsed.reason, finishReason, base);
  call.thoughts.finish(parsed.thought, base.attempts);
  return { ok: true, ...base, thought: parsed.thought, actions: parsed.actions, refusal: null, extras: extras(finishReason, parsed) };
}
