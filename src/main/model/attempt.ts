/**
 * One HTTP attempt of a model call, whichever vendor SDK makes it: under Mnemo's timeout (which
 * covers a stream to its last token, where the SDKs' stop at the response headers) and the
 * caller's signal, and every failure classified into a `ModelError` with whether to retry it, so
 * each family fails with the same behaviour and the same words (see retry.ts for the retrying).
 */
import { abortedError, parseRetryAfter, type AttemptOutcome } from './retry';
import { looksLikeHtml, summarizeHtml } from './html-page';
import { replyCutMessage, replyCutOf } from './reply-limit';
import { type ModelError } from './types';

type ErrorClass = abstract new (...args: never[]) => Error;

/** The error classes of a vendor SDK (the OpenAI and Anthropic SDKs share this shape). */
export interface SdkErrorClasses {
  abort: ErrorClass;
  timeout: ErrorClass;
  connection: ErrorClass;
  /** Has `status` (undefined for an error event inside a stream), `headers` and `message`. */
  api: ErrorClass;
}

export interface AttemptContext {
  /** The base URL, for messages. */
  baseUrl: string;
  timeoutMs: number;
  now: () => number;
  sdk: SdkErrorClasses;
  /** The message of a 404 (a base URL that is off by `/v1`, or an unknown model). */
  notFound: (url: string, detail: string) => string;
  /** The error's own words (default: its message without the leading status). */
  detailOf?: (error: Error) => string | undefined;
}

/** One attempt under the timeout and the caller's signal; never throws. `path` names the endpoint in messages. */
export function attemptCall<T>(context: AttemptContext, path: string, signal: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<AttemptOutcome<T>> {
  return attemptWithin(context.timeoutMs, signal, run, {
    timedOut: () => timedOutAfter(context.timeoutMs, context.baseUrl),
    failed: (error) => classifyCallError(error, `${context.baseUrl}${path}`, context),
  });
}

/**
 * One attempt under a timeout and the caller's signal, never throwing, for a client whose errors
 * are classified its own way. `run` gets a signal that aborts at either; a stop or the timeout wins
 * over whatever the aborted call threw or returned, and so does a reply cut at its size limit
 * (reply-limit.ts); anything else it throws is `failed`'s.
 */
export async function attemptWithin<T>(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
  outcomes: { timedOut: () => AttemptOutcome<never>; failed: (error: unknown) => AttemptOutcome<never> },
): Promise<AttemptOutcome<T>> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const stop = (): void => controller.abort();
  if (signal?.aborted) controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const value = await run(controller.signal);
    if (signal?.aborted) return { ok: false, error: abortedError(), retryable: false };
    if (timedOut) return outcomes.timedOut();
    return { ok: true, value };
  } catch (error) {
    if (signal?.aborted) return { ok: false, error: abortedError(), retryable: false };
    if (timedOut) return outcomes.timedOut();
    const cutAt = replyCutOf(error);
    if (cutAt !== null) return { ok: false, error: { kind: 'http', message: replyCutMessage(cutAt) }, retryable: false };
    return outcomes.failed(error);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
}

/** The timeout as a (retryable) failure; `where` (a base URL, an endpoint) says whose. */
export function timedOutAfter(timeoutMs: number, where: string): AttemptOutcome<never> {
  return {
    ok: false,
    error: { kind: 'timeout', message: `the model did not answer within ${formatMs(timeoutMs)} (${where})` },
    retryable: true,
  };
}

interface ApiErrorShape {
  status?: number | undefined;
  headers?: { get(name: string): string | null } | undefined;
  message: string;
}

/** A thrown SDK or network error as a ModelError, with whether to retry it. */
export function classifyCallError(error: unknown, url: string, context: AttemptContext): AttemptOutcome<never> {
  const { sdk } = context;
  if (error instanceof sdk.abort) return { ok: false, error: abortedError(), retryable: false };
  if (error instanceof sdk.timeout) return timedOutAfter(context.timeoutMs, context.baseUrl);
  if (error instanceof sdk.connection) {
    const cause = error.cause instanceof Error ? describeCause(error.cause) : error.message;
    return { ok: false, error: { kind: 'network', message: `cannot reach ${url}: ${cause}` }, retryable: true };
  }
  if (error instanceof sdk.api) {
    const api = error as Error & ApiErrorShape;
    const status = api.status;
    const contentType = api.headers?.get('content-type') ?? '';
    const rawDetail = context.detailOf?.(api) ?? api.message.replace(/^\d{3}\s+/, '');
    // A proxy's or a web server's error page: said in one line, never printed whole.
    const detail = looksLikeHtml(contentType, rawDetail) ? `a web page instead of the API (${summarizeHtml(status ?? 0, contentType, rawDetail)})` : rawDetail;
    if (status === undefined) {
      // An error event inside a stream (OpenRouter, and Anthropic's `overloaded_error`, report so).
      return { ok: false, error: { kind: 'http', message: `the server reported an error mid-stream: ${detail}` }, retryable: true };
    }
    const retryAfterMs = parseRetryAfter((name) => api.headers?.get(name), context.now());
    const withStatus = (kind: ModelError['kind'], message: string): ModelError => ({ kind, message, status });
    if (status === 401 || status === 403) {
      return { ok: false, error: withStatus('auth', `${status} from ${url}: ${detail} (check the API key)`), retryable: false };
    }
    if (status === 404) return { ok: false, error: withStatus('not_found', context.notFound(url, detail)), retryable: false };
    const retryable = status === 408 || status === 429 || status >= 500;
    // 529: Anthropic's "overloaded", retried like a 503.
    const label = status === 429 ? 'rate limited' : status === 529 ? 'overloaded (HTTP 529)' : `HTTP ${status}`;
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

export function describeCause(error: Error): string {
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

export function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
