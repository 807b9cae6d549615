/**
 * The Anthropic client: the official `@anthropic-ai/sdk` pointed at the API root (default
 * https://api.anthropic.com; the SDK sends `<root>/v1/messages`), with Mnemo's own retries, timeout
 * and cancellation (attempt.ts, retry.ts; the SDK's retries are off), and every failure a
 * `ModelError` worded as the OpenAI-compatible families word theirs. Used by the `anthropic`
 * vision model, the memory's text model, the provider check and `mnemo check-model`.
 */
import type * as AnthropicSdk from '@anthropic-ai/sdk';
import type Anthropic from '@anthropic-ai/sdk';
import { type BetaMessage, type BetaUsage } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { attemptCall, type AttemptContext } from './attempt';
import { type AnthropicRequest } from './families/anthropic-request';
import { type ClientSettings, type ModelClientDeps, normalizeBaseUrl, sdkOptions, type TokenCount } from './client';
import { Retrier, type RetryResult } from './retry';

/** Sent when no key is set (a local server or proxy): the SDK would otherwise go looking for credentials on disk. */
export const NO_ANTHROPIC_KEY = 'sk-ant-no-key';

export type { AnthropicRequest };

/** Which kind of block a streamed piece of text belongs to, and the block's index in the reply. */
export interface StreamedText {
  kind: 'thinking' | 'text';
  delta: string;
  block: number;
  /** The HTTP attempt, from 1: a retry restarts the stream. */
  attempt: number;
}

export interface AnthropicCallOptions {
  stream: boolean;
  signal?: AbortSignal | undefined;
  onText?: ((piece: StreamedText) => void) | undefined;
}

/**
 * The API root without trailing slashes, and, when its path ends in `/v1` (the form the
 * OpenAI-compatible families take), the root without it: the SDK adds `/v1` itself.
 */
export function anthropicRootOf(baseUrl: string): { root: string; withoutV1: string | null } {
  const root = normalizeBaseUrl(baseUrl);
  return { root, withoutV1: /\/v1$/.test(root) ? root.replace(/\/v1$/, '') : null };
}

/** The SDK, loaded once per process on first use (as client.ts loads OpenAI's). */
let anthropicSdk: Promise<typeof AnthropicSdk> | undefined;

export class AnthropicClient {
  readonly baseUrl: string;
  private sdk: Promise<{ module: typeof AnthropicSdk; client: Anthropic }> | undefined;
  private readonly retries: Retrier;
  private readonly timeoutMs: number;
  private readonly options: ConstructorParameters<typeof Anthropic>[0];

  constructor(settings: ClientSettings, deps: ModelClientDeps = {}) {
    this.baseUrl = anthropicRootOf(settings.baseUrl).root;
    this.timeoutMs = settings.timeoutMs;
    this.retries = new Retrier(settings, deps);
    // Without a key the SDK would go looking for credentials on disk: a placeholder instead.
    this.options = sdkOptions(this.baseUrl, settings, deps, NO_ANTHROPIC_KEY);
  }

  private loadSdk(): Promise<{ module: typeof AnthropicSdk; client: Anthropic }> {
    this.sdk ??= (anthropicSdk ??= import('@anthropic-ai/sdk')).then((module) => ({ module, client: new module.default(this.options) }));
    return this.sdk;
  }

  /** One Messages call, streamed or not, assembled into the whole message. */
  message(request: AnthropicRequest, options: AnthropicCallOptions): Promise<RetryResult<BetaMessage>> {
    return this.retries.run(
      (attempt) =>
        this.attempt('/v1/messages', request.model, options.signal, (signal, sdk) =>
          options.stream ? this.streamMessage(sdk, request, signal, attempt, options.onText) : sdk.beta.messages.create({ ...request, stream: false }, { signal }),
        ),
      options.signal,
    );
  }

  /** The first page of the model list: the cheapest request that proves the key and the root. */
  listModels(signal?: AbortSignal): Promise<RetryResult<string[]>> {
    return this.retries.run(
      () =>
        this.attempt('/v1/models', '', signal, async (attemptSignal, sdk) => {
          const page = await sdk.models.list({ limit: 20 }, { signal: attemptSignal });
          return page.data.map((model) => model.id);
        }),
      signal,
    );
  }

  private async streamMessage(sdk: Anthropic, request: AnthropicRequest, signal: AbortSignal, attempt: number, onText: AnthropicCallOptions['onText']): Promise<BetaMessage> {
    const stream = sdk.beta.messages.stream(request, { signal });
    for await (const event of stream) {
      if (event.type !== 'content_block_delta' || !onText) continue;
      if (event.delta.type === 'text_delta') onText({ kind: 'text', delta: event.delta.text, block: event.index, attempt });
      else if (event.delta.type === 'thinking_delta') onText({ kind: 'thinking', delta: event.delta.thinking, block: event.index, attempt });
    }
    return stream.finalMessage();
  }

  private async attempt<T>(path: string, model: string, signal: AbortSignal | undefined, run: (signal: AbortSignal, sdk: Anthropic) => Promise<T>) {
    const { module, client } = await this.loadSdk();
    const { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError } = module;
    const context: AttemptContext = {
      baseUrl: this.baseUrl,
      timeoutMs: this.timeoutMs,
      now: this.retries.now,
      sdk: { abort: APIUserAbortError, timeout: APIConnectionTimeoutError, connection: APIConnectionError, api: APIError },
      // The API's own words ("model: claude-x"), not the SDK's JSON of the whole body.
      detailOf: (error) => {
        const api = error as AnthropicSdk.APIError;
        return typeof api.apiMessage === 'string' && api.apiMessage !== '' ? api.apiMessage : undefined;
      },
      notFound: (url, detail) => {
        const { withoutV1 } = anthropicRootOf(this.baseUrl);
        if (withoutV1 !== null) return `404 Not Found at ${url}: the base URL is the API root, without /v1 — did you mean ${withoutV1}?`;
        return model !== '' ? `404 from ${url}: the model "${model}" was not found (${detail}); check --model` : `404 from ${url}: ${detail}`;
      },
    };
    return attemptCall(context, path, signal, (attemptSignal) => run(attemptSignal, client));
  }
}

/** The message as recorded and replayed: what the API sent, without the SDK's extras. */
export function messageJson(message: BetaMessage): string {
  const { id, type, role, model, content, stop_reason, stop_sequence, usage } = message;
  return JSON.stringify({ id, type, role, model, content, stop_reason, stop_sequence, usage });
}

/** The tokens of a reply as Mnemo prices them: input, output, and the cache's writes and reads apart. */
export function anthropicTokens(usage: Pick<BetaUsage, 'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'>): TokenCount {
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
    cacheReadTokens: usage.cache_read_input_tokens ?? 0,
  };
}
