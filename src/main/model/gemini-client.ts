/**
 * The Gemini API through the official `@google/genai` SDK, with the same behaviour as the
 * OpenAI-compatible client (client.ts): Mnemo's own retries (the SDK's are off: no
 * `retryOptions`) with backoff and the server's retry delay (`RetryInfo.retryDelay` of a 429
 * RESOURCE_EXHAUSTED), a timeout that covers the whole call including the stream, cancellation by
 * AbortSignal, and every failure returned as a `ModelError` with the messages the other families
 * give: an invalid key (400 API_KEY_INVALID, 401, 403) is `auth`, an unknown model (404) is
 * `not_found` naming it, 429 and 5xx are retried.
 *
 * The base URL is the API root as the SDK's `httpOptions.baseUrl` takes it
 * (`https://generativelanguage.googleapis.com`); a root ending in an API version
 * (`.../v1beta`) is split into the root and that version.
 *
 * The SDK is loaded on the first call, not with this module: it takes a good part of a second to
 * load, which every other family and command would pay at start.
 */
import type * as GenAi from '@google/genai';
import type { GenerateContentParameters, GenerateContentResponse, GoogleGenAI, Model, Part } from '@google/genai';
import { attemptWithin, describeCause, timedOutAfter } from './attempt';
import { type ClientSettings, NO_API_KEY, normalizeBaseUrl, type ModelClientDeps, replyFetch, type TokenCount } from './client';
import { type GeminiReply } from './families';
import { looksLikeHtml, summarizeHtml } from './html-page';
import { type AttemptOutcome, Retrier, type RetryResult } from './retry';
import { type ModelError } from './types';

/** The settings of every client (base URL, key, timeout, retries, headers). */
export type GeminiClientSettings = ClientSettings;

/** One reply, the streamed chunks joined: the kept reply and its token counts. */
export interface GeminiGeneration {
  reply: GeminiReply;
  /** Input (the prompt, cached part included) and output (the answer and the thinking). */
  usage: TokenCount | null;
}

export interface GenerateOptions {
  stream: boolean;
  signal?: AbortSignal | undefined;
  /** The reply's parts so far, after each streamed chunk, with the attempt number (from 1). */
  onParts?: ((parts: readonly Part[], attempt: number) => void) | undefined;
}

const DEFAULT_API_VERSION = 'v1beta';

/** The root and the API version of a base URL (`https://host/v1beta` → `https://host`, `v1beta`). */
export function splitGeminiBaseUrl(baseUrl: string): { root: string; apiVersion: string } {
  const normalized = normalizeBaseUrl(baseUrl);
  const match = /^(.*?)\/(v\d+(?:alpha|beta)?\d*)$/.exec(normalized);
  return match ? { root: match[1] as string, apiVersion: match[2] as string } : { root: normalized, apiVersion: DEFAULT_API_VERSION };
}

/** Streamed parts joined: adjacent texts of the same kind (thought or not) become one part. */
export class PartAssembly {
  readonly parts: Part[] = [];

  add(parts: readonly Part[]): void {
    for (const part of parts) {
      const last = this.parts.at(-1);
      const joinable =
        last !== undefined &&
        typeof last.text === 'string' &&
        typeof part.text === 'string' &&
        (last.thought === true) === (part.thought === true) &&
        !(last.thoughtSignature && part.thoughtSignature) &&
        Object.keys(part).every((key) => key === 'text' || key === 'thought' || key === 'thoughtSignature');
      if (joinable) {
        last.text = `${last.text}${part.text}`;
        if (part.thoughtSignature) last.thoughtSignature = part.thoughtSignature;
      } else this.parts.push({ ...part });
    }
  }
}

/** The `error` object of an SDK error message (a JSON body, or `got status: X. {json}` mid-stream). */
function errorBodyOf(message: string): { code?: number; message?: string; status?: string; details?: unknown[] } | null {
  const start = message.indexOf('{');
  if (start < 0) return null;
  try {
    const parsed = JSON.parse(message.slice(start)) as { error?: unknown };
    return typeof parsed.error === 'object' && parsed.error !== null ? (parsed.error as { code?: number; message?: string; status?: string; details?: unknown[] }) : null;
  } catch {
    return null;
  }
}

/** The wait a 429's `RetryInfo` asks for (`"33s"`, `"1.5s"`), in ms. */
export function retryDelayOf(details: unknown[] | undefined): number | undefined {
  for (const detail of details ?? []) {
    const delay = (detail as { retryDelay?: unknown } | null)?.retryDelay;
    const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay.trim()) : null;
    if (match) return Math.ceil(Number(match[1]) * 1000);
  }
  return undefined;
}

function isKeyProblem(details: unknown[] | undefined, message: string): boolean {
  const reasons = (details ?? []).map((detail) => (detail as { reason?: unknown } | null)?.reason);
  return reasons.some((reason) => typeof reason === 'string' && /API_KEY/.test(reason)) || /api key/i.test(message);
}

/** The SDK, loaded once per process, on first use. */
let sdkModule: Promise<typeof GenAi> | undefined;

export class GeminiClient {
  /** The API root (without the version). */
  readonly baseUrl: string;
  readonly apiVersion: string;
  private sdkClient: Promise<GoogleGenAI> | undefined;
  private readonly apiKey: string;
  private readonly headers: Record<string, string> | undefined;
  private readonly retries: Retrier;
  private readonly timeoutMs: number;
  private readonly fetch: typeof globalThis.fetch;

  constructor(settings: GeminiClientSettings, deps: ModelClientDeps = {}) {
    const { root, apiVersion } = splitGeminiBaseUrl(settings.baseUrl);
    this.baseUrl = root;
    this.apiVersion = apiVersion;
    this.timeoutMs = settings.timeoutMs;
    this.fetch = replyFetch(settings, deps);
    this.retries = new Retrier(settings, deps);
    // Given always, so the SDK never reads the environment itself; a local server ignores it.
    this.apiKey = settings.apiKey?.trim() ? settings.apiKey.trim() : NO_API_KEY;
    this.headers = settings.headers;
  }

  private sdk(): Promise<GoogleGenAI> {
    this.sdkClient ??= (sdkModule ??= import('@google/genai')).then(
      ({ GoogleGenAI }) =>
        new GoogleGenAI({
          apiKey: this.apiKey,
          // No retryOptions: the SDK does not retry, Mnemo does (retry.ts). No timeout: ours covers the stream too.
          httpOptions: { baseUrl: this.baseUrl, apiVersion: this.apiVersion, ...(this.headers ? { headers: this.headers } : {}), fetch: this.fetch },
        }),
    );
    return this.sdkClient;
  }

  /** The endpoint of a model's method, for messages. */
  urlOf(model: string, method: string): string {
    return `${this.baseUrl}/${this.apiVersion}/models/${model}${method}`;
  }

  /** One generateContent call (streamed or not), retried as the policy says, joined into one reply. */
  async generate(request: GenerateContentParameters, options: GenerateOptions): Promise<RetryResult<GeminiGeneration>> {
    const url = this.urlOf(request.model, options.stream ? ':streamGenerateContent' : ':generateContent');
    const sdk = await this.sdk();
    return this.retries.run(
      (attempt) =>
        this.attempt(url, options.signal, (signal) =>
          options.stream ? this.streamed(sdk, request, signal, options.onParts ? (parts) => options.onParts?.(parts, attempt) : undefined) : this.whole(sdk, request, signal),
        ),
      options.signal,
    );
  }

  /** models.get, once (the provider check): the model's metadata or the failure. */
  async getModel(model: string, signal?: AbortSignal, timeoutMs = this.timeoutMs): Promise<AttemptOutcome<Model>> {
    const sdk = await this.sdk();
    return attemptWithin(timeoutMs, signal, (attemptSignal) => sdk.models.get({ model, config: { abortSignal: attemptSignal } }), {
      timedOut: () => timedOutAfter(timeoutMs, this.urlOf(model, '')),
      failed: (error) => this.classify(error, this.urlOf(model, '')),
    });
  }

  private attempt<T>(url: string, signal: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<AttemptOutcome<T>> {
    return attemptWithin(this.timeoutMs, signal, run, { timedOut: () => timedOutAfter(this.timeoutMs, url), failed: (error) => this.classify(error, url) });
  }

  private async whole(sdk: GoogleGenAI, request: GenerateContentParameters, signal: AbortSignal): Promise<GeminiGeneration> {
    const response = await sdk.models.generateContent({ ...request, config: { ...request.config, abortSignal: signal } });
    const assembly = new PartAssembly();
    assembly.add(response.candidates?.[0]?.content?.parts ?? []);
    return generationOf([response], assembly);
  }

  private async streamed(sdk: GoogleGenAI, request: GenerateContentParameters, signal: AbortSignal, onParts: ((parts: readonly Part[]) => void) | undefined): Promise<GeminiGeneration> {
    const stream = await sdk.models.generateContentStream({ ...request, config: { ...request.config, abortSignal: signal } });
    const assembly = new PartAssembly();
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      const parts = chunk.candidates?.[0]?.content?.parts ?? [];
      if (parts.length === 0) continue;
      assembly.add(parts);
      onParts?.(assembly.parts);
    }
    return generationOf(chunks, assembly);
  }

  /** A thrown SDK or network error as a ModelError, with whether to retry it. */
  private classify(error: unknown, url: string): AttemptOutcome<never> {
    // The SDK's ApiError, known by its name as the SDK itself knows it (its class loads with the SDK).
    if (error instanceof Error && error.name === 'ApiError' && typeof (error as { status?: unknown }).status === 'number') return this.classifyStatus(error as Error & { status: number }, url);
    if (error instanceof SyntaxError) return { ok: false, error: { kind: 'parse', message: `the server sent malformed JSON: ${error.message}` }, retryable: false };
    const message = error instanceof Error ? describeCause(error) : String(error);
    if (/^(exception parsing stream chunk|Incomplete JSON segment)/.test(message)) {
      return { ok: false, error: { kind: 'network', message: `the stream from ${url} broke off mid-reply: ${message.slice(0, 200)}` }, retryable: true };
    }
    // fetch's own failure to connect (refused, unknown host) is a TypeError "fetch failed" whose
    // cause says why; a connection dropped mid-stream is another TypeError ("terminated").
    const cause = (error as { cause?: unknown }).cause;
    if (error instanceof TypeError && error.message === 'fetch failed' && cause instanceof Error) {
      return { ok: false, error: { kind: 'network', message: `cannot reach ${url}: ${describeCause(cause)}` }, retryable: true };
    }
    return { ok: false, error: { kind: 'network', message: `the connection to ${url} failed: ${message}` }, retryable: true };
  }

  private classifyStatus(error: Error & { status: number }, url: string): AttemptOutcome<never> {
    const status = error.status;
    const body = errorBodyOf(error.message);
    const midStream = error.message.startsWith('got status:');
    const rawDetail = body?.message ?? error.message;
    const detail = looksLikeHtml('', rawDetail) ? `a web page instead of the API (${summarizeHtml(status, 'text/html', rawDetail)})` : rawDetail.slice(0, 500);
    const withStatus = (kind: ModelError['kind'], message: string): ModelError => ({ kind, message, status });
    if (midStream) {
      const retryable = status === 429 || status >= 500;
      return { ok: false, error: withStatus('http', `the server reported an error mid-stream: ${status} ${body?.status ?? ''} ${detail}`.replace(/\s+/g, ' ')), retryable };
    }
    if (status === 401 || status === 403 || (status === 400 && isKeyProblem(body?.details, rawDetail))) {
      return { ok: false, error: withStatus('auth', `${status} from ${url}: ${detail} (check the API key)`), retryable: false };
    }
    if (status === 404) {
      // Google's own 404 says NOT_FOUND; any other is a server that is not the Gemini API there.
      const hint = body?.status !== 'NOT_FOUND' ? ` (is ${this.baseUrl} the API root, e.g. https://generativelanguage.googleapis.com?)` : '';
      return { ok: false, error: withStatus('not_found', `404 from ${url}: ${detail}${hint}`), retryable: false };
    }
    const retryable = status === 408 || status === 429 || status >= 500;
    const label = status === 429 ? 'rate limited' : `HTTP ${status}`;
    const retryAfterMs = status === 429 ? retryDelayOf(body?.details) : undefined;
    return { ok: false, error: withStatus('http', `${label} from ${url}: ${detail}`), retryable, ...(retryable && retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
}

/** The chunks of one reply (one for a whole reply) as the reply Mnemo keeps. */
function generationOf(chunks: readonly GenerateContentResponse[], assembly: PartAssembly): GeminiGeneration {
  let finishReason: string | null = null;
  let finishMessage: string | undefined;
  let blockReason: string | undefined;
  let usageMetadata: GenerateContentResponse['usageMetadata'];
  let modelVersion: string | undefined;
  for (const chunk of chunks) {
    const candidate = chunk.candidates?.[0];
    if (candidate?.finishReason) finishReason = candidate.finishReason;
    if (candidate?.finishMessage) finishMessage = candidate.finishMessage;
    if (chunk.promptFeedback?.blockReason) blockReason = chunk.promptFeedback.blockReason;
    if (chunk.usageMetadata) usageMetadata = chunk.usageMetadata;
    if (chunk.modelVersion) modelVersion = chunk.modelVersion;
  }
  const reply: GeminiReply = {
    content: { role: 'model', parts: assembly.parts },
    finishReason,
    ...(finishMessage !== undefined ? { finishMessage } : {}),
    ...(blockReason !== undefined ? { blockReason } : {}),
    ...(usageMetadata !== undefined ? { usageMetadata } : {}),
    ...(modelVersion !== undefined ? { modelVersion } : {}),
  };
  const usage = usageMetadata
    ? {
        inputTokens: (usageMetadata.promptTokenCount ?? 0) + (usageMetadata.toolUsePromptTokenCount ?? 0),
        outputTokens: (usageMetadata.candidatesTokenCount ?? 0) + (usageMetadata.thoughtsTokenCount ?? 0),
      }
    : null;
  return { reply, usage };
}
