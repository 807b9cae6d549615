/**
 * Is the configured provider usable at all? Found out before step 1, with one small request, so a
 * wrong key, a base URL without `/v1`, a web page where an API should be or a server that is not
 * running ends the run at once with one clear line, instead of three failed "steps".
 *
 * `probeProvider` (before every run) lists the models: cheap, and it consumes no completion.
 * Only failures that retrying cannot fix are fatal: 401/403, a 404 where the base URL lacks `/v1`,
 * an HTML page instead of JSON, a refused connection or an unknown host. Anything else (a 5xx, a
 * timeout, a server without a model list) lets the run go on: the run's own retries handle it.
 *
 * `checkModel` (`mnemo check-model`, the app's "Test connection") sends one tiny chat request with
 * a small image and reports the latency and whether the model accepted the image.
 */
import sharp from 'sharp';
import type { ModelSettings } from '../../shared/settings';
import { ModelClient, normalizeBaseUrl, outputLimit, suggestV1 } from './client';
import { looksLikeHtml, summarizeHtml } from './html-page';

export type ProviderProbe = { ok: true; latencyMs: number; note?: string } | { ok: false; fatal: boolean; message: string };

export interface ProbeDeps {
  fetch?: typeof globalThis.fetch;
  now?: () => number;
  /** Default 10 s: a list of models comes back at once from any working server. */
  timeoutMs?: number;
}

function describeNetworkError(error: unknown): { message: string; code: string | undefined } {
  const cause = (error as { cause?: unknown }).cause;
  const code = (cause as { code?: unknown } | undefined)?.code;
  const text = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
  return { message: text, code: typeof code === 'string' ? code : undefined };
}

const FATAL_NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);

/** One GET of `<baseUrl>/models`; see the module comment for what is fatal. */
export async function probeProvider(settings: Pick<ModelSettings, 'baseUrl' | 'apiKey' | 'headers'>, deps: ProbeDeps = {}, signal?: AbortSignal): Promise<ProviderProbe> {
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  const now = deps.now ?? Date.now;
  const base = normalizeBaseUrl(settings.baseUrl);
  const url = `${base}/models`;
  const timeout = AbortSignal.timeout(deps.timeoutMs ?? 10_000);
  const started = now();
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers: { accept: 'application/json', ...(settings.apiKey?.trim() ? { authorization: `Bearer ${settings.apiKey.trim()}` } : {}), ...settings.headers },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    if (signal?.aborted) return { ok: false, fatal: false, message: 'stopped' };
    if (timeout.aborted) return { ok: true, latencyMs: now() - started, note: `${url} did not answer within the check's time; going on` };
    const { message, code } = describeNetworkError(error);
    const fatal = code !== undefined && FATAL_NETWORK_CODES.has(code);
    const what = code === 'ECONNREFUSED' ? 'connection refused: is the server running?' : code === 'ENOTFOUND' ? 'unknown host' : message;
    return { ok: false, fatal, message: `cannot reach ${base}: ${what}${code && !what.includes(code) ? ` (${code})` : ''}` };
  }
  const latencyMs = now() - started;
  const contentType = response.headers.get('content-type') ?? '';
  const body = await response.text().catch(() => '');
  if (looksLikeHtml(contentType, body)) {
    const hint = suggestV1(base);
    return {
      ok: false,
      fatal: true,
      message: `${base} answered with a web page, not the OpenAI API (${summarizeHtml(response.status, contentType, body)})${hint ? `; did you mean ${hint}?` : ''}`,
    };
  }
  if (response.status === 401 || response.status === 403) {
    return { ok: false, fatal: true, message: `${response.status} from ${url}: the provider refused the API key (${errorDetail(body) ?? 'no detail'}); check the key` };
  }
  if (response.status === 404) {
    const hint = suggestV1(base);
    if (hint) return { ok: false, fatal: true, message: `404 Not Found at ${url}: the base URL has no /v1 — did you mean ${hint}?` };
    return { ok: true, latencyMs, note: `${url} is not served (404); the server may not list its models` };
  }
  if (!response.ok) return { ok: true, latencyMs, note: `${url} answered HTTP ${response.status}; going on` };
  return { ok: true, latencyMs };
}

/** The `error.message` of an OpenAI-style error body, when there is one. */
function errorDetail(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    return typeof message === 'string' ? message.slice(0, 300) : undefined;
  } catch {
    return body.trim() === '' ? undefined : body.trim().slice(0, 200);
  }
}

export type ModelCheck =
  | { ok: true; latencyMs: number; imageAccepted: boolean; reply: string; note?: string }
  | { ok: false; message: string; status?: number };

/** A 32×32 grey PNG: enough to see whether the endpoint takes images at all. */
async function tinyImage(): Promise<string> {
  const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 128, g: 128, b: 128 } } }).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

/**
 * One small chat completion with an image; when the endpoint refuses the image (a 400 that says
 * so), once more without it, so "reachable but text-only" is told apart from "unreachable".
 */
export async function checkModel(settings: ModelSettings, deps: { client?: ModelClient; now?: () => number } = {}, signal?: AbortSignal): Promise<ModelCheck> {
  const client = deps.client ?? new ModelClient({ ...settings, maxRetries: 0 });
  const now = deps.now ?? Date.now;
  const image = await tinyImage();
  const ask = (withImage: boolean) =>
    client.chat(
      {
        model: settings.model,
        messages: [
          {
            role: 'user',
            content: withImage
              ? [
                  { type: 'text', text: 'This is a connection test. Reply with the single word OK.' },
                  { type: 'image_url', image_url: { url: image } },
                ]
              : 'This is a connection test. Reply with the single word OK.',
          },
        ],
        ...outputLimit(settings.baseUrl, 16),
      },
      { stream: false, signal },
    );
  const started = now();
  const first = await ask(true);
  const latencyMs = now() - started;
  if (first.ok) return { ok: true, latencyMs, imageAccepted: true, reply: (first.value.message.content ?? '').trim() };
  const { error } = first;
  if (error.status === 400 && /image|vision|multimodal|content type|image_url/i.test(error.message)) {
    const second = await ask(false);
    if (second.ok) return { ok: true, latencyMs: now() - started, imageAccepted: false, reply: (second.value.message.content ?? '').trim(), note: `the model refused the image: ${error.message}` };
  }
  return { ok: false, message: error.message, ...(error.status !== undefined ? { status: error.status } : {}) };
}
