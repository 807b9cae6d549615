/**
 * The OpenAI-compatible client: the real `openai` package pointed at any base URL (OpenAI, Azure
 * OpenAI, OpenRouter, Ollama, vLLM, LM Studio), with Mnemo's own retries (the SDK's are off, see
 * retry.ts), a timeout that covers the whole call including the stream, cancellation by
 * AbortSignal, and every failure returned as a `ModelError`.
 */
import type * as OpenAiSdk from 'openai';
import type OpenAI from 'openai';
import { type ChatCompletionChunk, type ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { type Response, type ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { DEFAULT_MAX_REPLY_BYTES, type ModelSettings } from '../../shared/settings';
import { attemptCall } from './attempt';
import { limitedFetch } from './reply-limit';
import { type AttemptOutcome, Retrier, type RetryNotice, type RetryResult, type Sleep } from './retry';

/** Sent when no API key is set: local servers ignore it, and the client refuses an empty key. */
export const NO_API_KEY = 'sk-no-key';

export type ClientSettings = Pick<ModelSettings, 'baseUrl' | 'timeoutMs' | 'maxRetries'> &
  Partial<Pick<ModelSettings, 'apiKey' | 'retryBaseDelayMs' | 'retryMaxDelayMs' | 'headers' | 'maxReplyBytes'>>;

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
  /** Input tokens billed at the input price (for Anthropic: those neither written to nor read from the cache). */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens written to the prompt cache (Anthropic's `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
  /** Input tokens read from the prompt cache (Anthropic's `cache_read_input_tokens`). */
  cacheReadTokens?: number;
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

/**
 * What a vendor SDK is built with (the OpenAI and Anthropic SDKs take the same names): retries are
 * ours (backoff, Retry-After, abort), the timeout is ours too, since the SDK's stops at the response
 * headers and a stream can stall after them; without a key a placeholder, which the SDKs require.
 */
export function sdkOptions(baseURL: string, settings: ClientSettings, deps: Pick<ModelClientDeps, 'fetch'>, placeholderKey: string) {
  return {
    baseURL,
    apiKey: settings.apiKey?.trim() ? settings.apiKey.trim() : placeholderKey,
    maxRetries: 0,
    timeout: settings.timeoutMs,
    ...(settings.headers ? { defaultHeaders: settings.headers } : {}),
    fetch: replyFetch(settings, deps),
  };
}

/** The fetch a vendor SDK is given: the one passed in (or the global one), each reply limited to model.maxReplyBytes. */
export function replyFetch(settings: Pick<ClientSettings, 'maxReplyBytes'>, deps: Pick<ModelClientDeps, 'fetch'>): typeof globalThis.fetch {
  return limitedFetch(settings.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES, deps.fetch);
}

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

/**
 * The SDK, loaded once per process on first use: the vendor SDKs are a large part of what a
 * command loads, and most commands (facts, sessions, workflows) never call a model.
 */
let openAiSdk: Promise<typeof OpenAiSdk> | undefined;

export class ModelClient {
  readonly baseUrl: string;
  private sdk: Promise<{ module: typeof OpenAiSdk; client: OpenAI }> | undefined;
  private readonly retries: Retrier;
  private readonly timeoutMs: number;
  private readonly options: ConstructorParameters<typeof OpenAI>[0];

  constructor(settings: ClientSettings, deps: ModelClientDeps = {}) {
    this.baseUrl = normalizeBaseUrl(settings.baseUrl);
    this.timeoutMs = settings.timeoutMs;
    this.retries = new Retrier(settings, deps);
    this.options = sdkOptions(this.baseUrl, settings, deps, NO_API_KEY);
  }

  private loadSdk(): Promise<{ module: typeof OpenAiSdk; client: OpenAI }> {
    this.sdk ??= (openAiSdk ??= import('openai')).then((module) => ({ module, client: new module.default(this.options) }));
    return this.sdk;
  }

  /** A chat completion, streamed or not, assembled into one assistant message. */
  chat(request: ChatRequest, options: ChatOptions): Promise<CallResult<ChatReply>> {
    return this.retries.run(
      (attempt) =>
        this.attempt('/chat/completions', options.signal, (signal, openai) =>
          options.stream
            ? this.streamChat(openai, request, signal, options.onText ? (delta) => options.onText?.(delta, attempt) : undefined)
            : this.completeChat(openai, request, signal),
        ),
      options.signal,
    );
  }

  /** A Responses API call (not streamed). */
  respond(request: ResponseCreateParamsNonStreaming, signal?: AbortSignal): Promise<CallResult<Response>> {
    return this.retries.run(() => this.attempt('/responses', signal, (attemptSignal, openai) => openai.responses.create(request, { signal: attemptSignal })), signal);
  }

  private async completeChat(openai: OpenAI, request: ChatRequest, signal: AbortSignal): Promise<ChatReply> {
    const completion = await openai.chat.completions.create({ ...request, stream: false }, { signal });
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
      usage: completion.usage ? chatTokens(completion.usage) : null,
    };
  }

  private async streamChat(
    openai: OpenAI,
    request: ChatRequest,
    signal: AbortSignal,
    onText: ((delta: string) => void) | undefined,
  ): Promise<ChatReply> {
    const stream = await openai.chat.completions.create(
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
  private async attempt<T>(path: string, signal: AbortSignal | undefined, run: (signal: AbortSignal, openai: OpenAI) => Promise<T>): Promise<AttemptOutcome<T>> {
    const { module, client } = await this.loadSdk();
    const { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError } = module;
    return attemptCall(
      {
        baseUrl: this.baseUrl,
        timeoutMs: this.timeoutMs,
        now: this.retries.now,
        sdk: { abort: APIUserAbortError, timeout: APIConnectionTimeoutError, connection: APIConnectionError, api: APIError },
        notFound: (url, detail) => {
          const suggestion = suggestV1(this.baseUrl);
          return suggestion !== null ? `404 Not Found at ${url}: the base URL has no /v1 — did you mean ${suggestion}?` : `404 from ${url}: ${detail}`;
        },
      },
      path,
      signal,
      (attemptSignal) => run(attemptSignal, client),
    );
  }
}

/**
 * A chat completion's usage as priced: the prompt tokens OpenAI read from its prompt cache
 * (`prompt_tokens_details.cached_tokens`) apart, at the cached price.
 */
export function chatTokens(usage: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens?: number | undefined } | null | undefined }): TokenCount {
  const cached = Math.min(usage.prompt_tokens, usage.prompt_tokens_details?.cached_tokens ?? 0);
  return { inputTokens: usage.prompt_tokens - cached, outputTokens: usage.completion_tokens, ...(cached > 0 ? { cacheReadTokens: cached } : {}) };
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
    if (chunk.usage) this.usage = chatTokens(chunk.usage);
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
