/**
 * The OpenAI-compatible client: the real `openai` package pointed at any base URL (OpenAI, Azure
 * OpenAI, OpenRouter, Ollama, vLLM, LM Studio), with Mnemo's own retries (the SDK's are off, see
 * retry.ts), a timeout that covers the whole call including the stream, cancellation by
 * AbortSignal, and every failure returned as a `ModelError`.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { type ChatCompletionChunk, type ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { type Response, type ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { type ModelSettings } from '../../shared/settings';
import {
  abortedError,
  type AttemptOutcome,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  realSleep,
  type RetryNotice,
  type RetryPolicy,
  type RetryResult,
  type Sleep,
  withRetries,
} from './retry';
import { type ModelError } from './types';
import { looksLikeHtml, summarizeHtml } from './html-page';

/** Sent when no API key is set: local servers ignore it, and the client refuses an empty key. */
export const NO_API_KEY = 'sk-no-key';

export type ClientSettings = Pick<ModelSettings, 'baseUrl' | 'timeoutMs' | 'maxRetries'> &
  Partial<Pick<ModelSettings, 'apiKey' | 'retryBaseDelayMs' | 'retryMaxDelayMs' | 'headers'>>;

export interface ModelClientDeps {
  /** The fetch the SDK uses (default: the global one). */
  fetch?: typeof globalThis.fetch;
  sleep?: Sleep;
  random?: () => number;
  now?: () => number;
  /** Told before each retry's wait (for logs). */
  onRetry?: (notice: RetryNotice) => void;
}

export interface TokenCount {
  inputTokens: number;
  outputTokens: number;
}

export interface AssistantToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** The assistant message as the API writes it (what `parseToolsMessage` reads). */
export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  refusal?: string | null;
  tool_calls?: AssistantToolCall[];
}

export interface ChatReply {
  message: AssistantMessage;
  finishReason: string | null;
  usage: TokenCount | null;
}

/** A chat request without the streaming fields, which the client sets. */
export type ChatRequest = Omit<ChatCompletionCreateParamsBase, 'stream' | 'stream_options'>;

export interface ChatOptions {
  stream: boolean;
  signal?: AbortSignal | undefined;
  /** Each piece of assistant text as it streams, with the attempt number (from 1). */
  onText?: ((delta: string, attempt: number) => void) | undefined;
}

export type CallResult<T> = RetryResult<T>;

/** The base URL without trailing slashes. */
export function normalizeBaseUrl(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/, '');
}

/** The base URL with `/v1` appended, when its path does not already end in it; else null. */
export function suggestV1(baseUrl: string): string | null {
  const normalized = normalizeBaseUrl(baseUrl);
  let path: string;
  try {
    path = new URL(normalized).pathname;
  } catch {
    return null;
  }
  return /\/v1$/.test(path.replace(/\/+$/, '')) ? null : `${normalized}/v1`;
}

export class ModelClient {
  readonly baseUrl: string;
  private readonly openai: OpenAI;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly onRetry: ((notice: RetryNotice) => void) | undefined;

  constructor(settings: ClientSettings, deps: ModelClientDeps = {}) {
    this.baseUrl = normalizeBaseUrl(settings.baseUrl);
    this.timeoutMs = settings.timeoutMs;
    this.policy = {
      ...DEFAULT_RETRY_POLICY,
      maxRetries: settings.maxRetries,
      ...(settings.retryBaseDelayMs !== undefined ? { baseDelayMs: settings.retryBaseDelayMs } : {}),
      ...(settings.retryMaxDelayMs !== undefined ? { maxDelayMs: settings.retryMaxDelayMs } : {}),
    };
    this.sleep = deps.sleep ?? realSleep;
    this.random = deps.random ?? Math.random;
    this.now = deps.now ?? Date.now;
    this.onRetry = deps.onRetry;
    const apiKey = settings.apiKey?.trim() ? settings.apiKey.trim() : NO_API_KEY;
    this.openai = new OpenAI({
      baseURL: this.baseUrl,
      apiKey,
      // Retries are ours (backoff, Retry-After, abort); the timeout is ours too, since the SDK's
      // stops at the response headers and a stream can stall after them.
      maxRetries: 0,
      timeout: settings.timeoutMs,
      ...(settings.headers ? { defaultHeaders: settings.headers } : {}),
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
  }

  /** A chat completion, streamed or not, assembled into one assistant message. */
  chat(request: ChatRequest, options: ChatOptions): Promise<CallResult<ChatReply>> {
    return withRetries(
      (attempt) =>
        this.attempt('/chat/completions', options.signal, (signal) =>
          options.stream
            ? this.streamChat(request, signal, options.onText ? (delta) => options.onText?.(delta, attempt) : undefined)
            : this.completeChat(request, signal),
        ),
      this.policy,
      { sleep: this.sleep, random: this.random },
      options.signal,
      this.onRetry,
    );
  }

  /** A Responses API call (not streamed). */
  respond(request: ResponseCreateParamsNonStreaming, signal?: AbortSignal): Promise<CallResult<Response>> {
    return withRetries(
      () => this.attempt('/responses', signal, (attemptSignal) => this.openai.responses.create(request, { signal: attemptSignal })),
      this.policy,
      { sleep: this.sleep, random: this.random },
      signal,
      this.onRetry,
    );
  }

  private async completeChat(request: ChatRequest, signal: AbortSignal): Promise<ChatReply> {
    const completion = await this.openai.chat.completions.create({ ...request, stream: false }, { signal });
    const choice = completion.choices[0];
    const message = choice?.message;
    const toolCalls = (message?.tool_calls ?? [])
      .filter((call) => call.type === 'function')
      .map((call) => ({ id: call.id, type: 'function' as const, function: { ...call.function } }));
    return {
      message: {
        role: 'assistant',
        content: message?.content ?? null,
        ...(message?.refusal ? { refusal: message.refusal } : {}),
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
      finishReason: choice?.finish_reason ?? null,
      usage: completion.usage
        ? { inputTokens: completion.usage.prompt_tokens, outputTokens: completion.usage.completion_tokens }
        : null,
    };
  }

  private async streamChat(
    request: ChatRequest,
    signal: AbortSignal,
    onText: ((delta: string) => void) | undefined,
  ): Promise<ChatReply> {
    const stream = await this.openai.chat.completions.create(
      { ...request, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    const assembly = new ChunkAssembly();
    // An abort ends this loop quietly (the SDK's choice); the caller checks the signal after.
    for await (const chunk of stream) {
      const text = assembly.add(chunk);
      if (text !== '') onText?.(text);
    }
    return assembly.reply();
  }

  /** One attempt under the timeout and the caller's signal; never throws. */
  private async attempt<T>(path: string, signal: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<AttemptOutcome<T>> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const stop = (): void => controller.abort();
    if (signal?.aborted) controller.abort();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const value = await run(controller.signal);
      if (signal?.aborted) return { ok: false, error: abortedError(), retryable: false };
      if (timedOut) return this.timeoutOutcome();
      return { ok: true, value };
    } catch (error) {
      if (signal?.aborted) return { ok: false, error: abortedError(), retryable: false };
      if (timedOut) return this.timeoutOutcome();
      return this.classify(error, path);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    }
  }

  private timeoutOutcome(): AttemptOutcome<never> {
    return {
      ok: false,
      error: { kind: 'timeout', message: `the model did not answer within ${formatMs(this.timeoutMs)} (${this.baseUrl})` },
      retryable: true,
    };
  }

  /** A thrown SDK or network error as a ModelError, with whether to retry it. */
  private classify(error: unknown, path: string): AttemptOutcome<never> {
    const url = `${this.baseUrl}${path}`;
    if (error instanceof APIUserAbortError) return { ok: false, error: abortedError(), retryable: false };
    if (error instanceof APIConnectionTimeoutError) return this.timeoutOutcome();
    if (error instanceof APIConnectionError) {
      const cause = error.cause instanceof Error ? describeCause(error.cause) : error.message;
      return { ok: false, error: { kind: 'network', message: `cannot reach ${url}: ${cause}` }, retryable: true };
    }
    if (error instanceof APIError) {
      const status = error.status as number | undefined;
      const contentType = error.headers?.get('content-type') ?? '';
      const rawDetail = error.message.replace(/^\d{3}\s+/, '');
      // A proxy's or a web server's error page: said in one line, never printed whole.
      const detail = looksLikeHtml(contentType, rawDetail) ? `a web page instead of the API (${summarizeHtml(status ?? 0, contentType, rawDetail)})` : rawDetail;
      if (status === undefined) {
        // An error event inside a stream (OpenRouter and others report upstream failures so).
        return { ok: false, error: { kind: 'http', message: `the server reported an error mid-stream: ${detail}` }, retryable: true };
      }
      const retryAfterMs = parseRetryAfter((name) => error.headers?.get(name), this.now());
      const withStatus = (kind: ModelError['kind'], message: string): ModelError => ({ kind, message, status });
      if (status === 401 || status === 403) {
        return {
          ok: false,
          error: withStatus('auth', `${status} from ${url}: ${detail} (check the API key)`),
          retryable: false,
        };
      }
      if (status === 404) {
        const suggestion = suggestV1(this.baseUrl);
        const message =
          suggestion !== null
            ? `404 Not Found at ${url}: the base URL has no /v1 — did you mean ${suggestion}?`
            : `404 from ${url}: ${detail}`;
        return { ok: false, error: withStatus('not_found', message), retryable: false };
      }
      const retryable = status === 408 || status === 429 || status >= 500;
      const label = status === 429 ? 'rate limited' : `HTTP ${status}`;
      return {
        ok: false,
        error: withStatus('http', `${label} from ${url}: ${detail}`),
        retryable,
        ...(retryable && retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
    }
    if (error instanceof SyntaxError) {
      return { ok: false, error: { kind: 'parse', message: `the server sent malformed JSON: ${error.message}` }, retryable: false };
    }
    // A connection dropped mid-stream surfaces from undici as a bare TypeError ("terminated").
    const message = error instanceof Error ? describeCause(error) : String(error);
    return { ok: false, error: { kind: 'network', message: `the connection to ${url} failed: ${message}` }, retryable: true };
  }
}

function describeCause(error: Error): string {
  const parts = [error.message];
  let cause: unknown = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 3; depth += 1) {
    parts.push(cause.message);
    cause = cause.cause;
  }
  const code = (error as { code?: unknown }).code ?? ((error.cause as { code?: unknown } | undefined)?.code);
  const text = [...new Set(parts.filter((part) => part !== ''))].join(': ');
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Streamed chunks joined into one message, as OpenAI's own accumulator does. */
class ChunkAssembly {
  private content = '';
  private refusal = '';
  private sawContent = false;
  private readonly calls: { id: string; name: string; arguments: string }[] = [];
  private finishReason: string | null = null;
  private usage: TokenCount | null = null;

  /** Add one chunk; returns its assistant text. */
  add(chunk: ChatCompletionChunk): string {
    if (chunk.usage) {
      this.usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
    }
    const choice = chunk.choices?.[0];
    if (!choice) return '';
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (!delta) return '';
    if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
    for (const call of delta.tool_calls ?? []) {
      const index = typeof call.index === 'number' ? call.index : Math.max(0, this.calls.length - (call.id ? 0 : 1));
      const slot = (this.calls[index] ??= { id: '', name: '', arguments: '' });
      if (call.id) slot.id = call.id;
      // The name comes whole in the first delta of a call; some servers repeat it.
      if (call.function?.name && slot.name === '') slot.name = call.function.name;
      if (call.function?.arguments) slot.arguments += call.function.arguments;
    }
    if (typeof delta.content === 'string') {
      this.sawContent = true;
      this.content += delta.content;
      return delta.content;
    }
    return '';
  }

  reply(): ChatReply {
    const calls = this.calls.filter((call) => call !== undefined);
    return {
      message: {
        role: 'assistant',
        content: this.sawContent ? this.content : null,
        ...(this.refusal !== '' ? { refusal: this.refusal } : {}),
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((call, index) => ({
                id: call.id || `call_${index}`,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      },
      finishReason: this.finishReason,
      usage: this.usage,
    };
  }
}

/** The output token limit under the name the endpoint knows: OpenAI's newer models refuse `max_tokens`, other servers may not know `max_completion_tokens`. */
export function outputLimit(baseUrl: string, tokens: number | undefined): Partial<ChatRequest> {
  if (tokens === undefined) return {};
  let host = '';
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    host = '';
  }
  const official = host === 'api.openai.com' || host.endsWith('.openai.azure.com');
  return official ? { max_completion_tokens: tokens } : { max_tokens: tokens };
}
