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
 * a small image and reports the latency and whether the model accepted the image. For the families
 * with a vendor computer tool (`anthropic`, `openai-cua`) the request carries the tool a run would
 * send (`model.computerTool`, `auto` by the model's name), so a model that refuses it says so, and
 * the message names the fix (the other tool, the flag that picks it).
 *
 * For the `anthropic` family both speak the Anthropic API: the model list at `<root>/v1/models`
 * (with the key as `x-api-key`), a small message through the SDK; a base URL that ends in `/v1`
 * is the mistake the fix names (the SDK adds `/v1` itself).
 *
 * The `gemini` family speaks Google's own API through its SDK: the probe is `models.get` of the
 * configured model (an unknown model is fatal too: no retry makes it known), and the check one
 * `generateContent` with the image and the computer-use tool, as a run sends them.
 */
import type { GenerateContentParameters } from '@google/genai';
import { loadSharp } from '../image/sharp';
import { computerToolOf } from '../../shared/computer-tool';
import type { AnthropicComputerTool, ComputerTool, OpenAiComputerTool } from '../../shared/model-families';
import type { ModelFamilyName, ModelSettings } from '../../shared/settings';
import { AnthropicClient, anthropicRootOf, type AnthropicRequest } from './anthropic-client';
import { type CallResult, ModelClient, normalizeBaseUrl, outputLimit, suggestV1 } from './client';
import { ANTHROPIC_BETA, ANTHROPIC_TOOLSET_TYPE, computerToolEntry, cuaToolEntry, geminiThoughtOf, geminiTools } from './families';
import { withToolFix } from './tool-rejection';
import { GeminiClient } from './gemini-client';
import { looksLikeHtml, summarizeHtml } from './html-page';
import { type ModelError } from './types';

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

export type ProbeSettings = Pick<ModelSettings, 'baseUrl' | 'apiKey' | 'headers'> & {
  family?: ModelFamilyName | undefined;
  /** `gemini`: the model whose metadata is asked for. */
  model?: string | undefined;
};

/** The model list of an endpoint, and how a base URL that misses it is put right. */
interface ModelList {
  base: string;
  url: string;
  headers: Record<string, string>;
  /** The API the endpoint should speak, for "a web page, not ...". */
  api: string;
  /** When the base URL is off (by `/v1`): what is wrong with it, and the base URL meant. */
  misfit: { problem: string; meant: string } | null;
}

/** Where a family's model list is, with its headers. */
function modelListOf(settings: ProbeSettings): ModelList {
  const key = settings.apiKey?.trim();
  if (settings.family === 'anthropic') {
    const { root, withoutV1 } = anthropicRootOf(settings.baseUrl);
    return {
      base: root,
      url: `${root}/v1/models`,
      headers: { 'anthropic-version': '2023-06-01', ...(key ? { 'x-api-key': key } : {}), ...settings.headers },
      api: 'the Anthropic API',
      misfit: withoutV1 !== null ? { problem: 'the base URL is the API root, without /v1', meant: withoutV1 } : null,
    };
  }
  const base = normalizeBaseUrl(settings.baseUrl);
  const withV1 = suggestV1(base);
  return {
    base,
    url: `${base}/models`,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...settings.headers },
    api: 'the OpenAI API',
    misfit: withV1 !== null ? { problem: 'the base URL has no /v1', meant: withV1 } : null,
  };
}

/** One GET of the family's model list (Gemini: models.get); see the module comment for what is fatal. */
export async function probeProvider(settings: ProbeSettings, deps: ProbeDeps = {}, signal?: AbortSignal): Promise<ProviderProbe> {
  if (settings.family === 'gemini') return probeGemini(settings, deps, signal);
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  const now = deps.now ?? Date.now;
  const { base, url, headers, api, misfit } = modelListOf(settings);
  const timeout = AbortSignal.timeout(deps.timeoutMs ?? 10_000);
  const started = now();
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers: { accept: 'application/json', ...headers },
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
    return {
      ok: false,
      fatal: true,
      message: `${base} answered with a web page, not ${api} (${summarizeHtml(response.status, contentType, body)})${misfit ? `; did you mean ${misfit.meant}?` : ''}`,
    };
  }
  if (response.status === 401 || response.status === 403) {
    return { ok: false, fatal: true, message: `${response.status} from ${url}: the provider refused the API key (${errorDetail(body) ?? 'no detail'}); check the key` };
  }
  if (response.status === 404) {
    if (misfit) return { ok: false, fatal: true, message: `404 Not Found at ${url}: ${misfit.problem} — did you mean ${misfit.meant}?` };
    return { ok: true, latencyMs, note: `${url} is not served (404); the server may not list its models` };
  }
  if (!response.ok) return { ok: true, latencyMs, note: `${url} answered HTTP ${response.status}; going on` };
  return { ok: true, latencyMs };
}

/** models.get of the configured model through the SDK. */
async function probeGemini(settings: ProbeSettings, deps: ProbeDeps, signal?: AbortSignal): Promise<ProviderProbe> {
  const client = new GeminiClient({ ...settings, timeoutMs: deps.timeoutMs ?? 10_000, maxRetries: 0 }, deps.fetch ? { fetch: deps.fetch } : {});
  const now = deps.now ?? Date.now;
  const started = now();
  const model = settings.model ?? '';
  const got = await client.getModel(model, signal, deps.timeoutMs ?? 10_000);
  if (got.ok) return { ok: true, latencyMs: now() - started };
  const { error } = got;
  if (error.kind === 'aborted') return { ok: false, fatal: false, message: 'stopped' };
  if (error.kind === 'timeout') return { ok: true, latencyMs: now() - started, note: `${client.urlOf(model, '')} did not answer within the check's time; going on` };
  if (error.kind === 'auth') return { ok: false, fatal: true, message: `${error.message.replace(/ \(check the API key\)$/, '')}: the provider refused the API key; check the key` };
  if (error.kind === 'not_found') return { ok: false, fatal: true, message: `the model "${model}" is not known at ${client.baseUrl}: ${error.message}` };
  const fatal = error.kind === 'network' && /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|CERT_|SELF_SIGNED|UNABLE_TO_VERIFY/.test(error.message);
  if (fatal || /web page instead of the API/.test(error.message)) return { ok: false, fatal: true, message: error.message };
  return { ok: true, latencyMs: now() - started, note: `${error.message}; going on` };
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

/** `tool`: the vendor computer tool the check sent (the one a run would send), for the families that have one. */
export type ModelCheck =
  | { ok: true; latencyMs: number; imageAccepted: boolean; reply: string; note?: string; tool?: ComputerTool }
  | { ok: false; message: string; status?: number; tool?: ComputerTool };

/** A 32×32 grey PNG: enough to see whether the endpoint takes images at all. */
async function tinyImage(): Promise<string> {
  const sharp = await loadSharp();
  const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 128, g: 128, b: 128 } } }).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

const CHECK_PROMPT = 'This is a connection test. Reply with the single word OK.';

/** One question to the model, with the image or without it: its reply text, or the error. */
type Ask = (withImage: boolean) => Promise<CallResult<string>>;

/**
 * One small chat completion with an image; when the endpoint refuses the image (a 400 that says
 * so), once more without it, so "reachable but text-only" is told apart from "unreachable".
 */
export async function checkModel(settings: ModelSettings, deps: { client?: ModelClient; now?: () => number } = {}, signal?: AbortSignal): Promise<ModelCheck> {
  const image = await tinyImage();
  const tool = computerToolOf(settings);
  const chat = () => deps.client ?? new ModelClient({ ...settings, maxRetries: 0 });
  const ask =
    settings.family === 'anthropic'
      ? askAnthropic(settings, tool as AnthropicComputerTool, image, signal)
      : settings.family === 'gemini'
        ? askGemini(settings, image, signal)
        : settings.family === 'openai-cua'
          ? askResponses(settings, tool as OpenAiComputerTool, chat(), image, signal)
          : askChat(settings, chat(), image, signal);
  const said = tool !== null ? { tool } : {};
  const now = deps.now ?? Date.now;
  const started = now();
  const first = await ask(true);
  const latencyMs = now() - started;
  if (first.ok) return { ok: true, latencyMs, imageAccepted: true, reply: first.value.trim(), ...said };
  const error = tool !== null ? withToolFix(settings.family, tool, first.error) : first.error;
  if (refusedImage(error)) {
    const second = await ask(false);
    if (second.ok) return { ok: true, latencyMs: now() - started, imageAccepted: false, reply: second.value.trim(), note: `the model refused the image: ${error.message}`, ...said };
  }
  return { ok: false, message: error.message, ...(error.status !== undefined ? { status: error.status } : {}), ...said };
}

function refusedImage(error: ModelError): boolean {
  return error.status === 400 && /image|vision|multimodal|content type|image_url|inline_?data|mime/i.test(error.message);
}

function askChat(settings: ModelSettings, client: ModelClient, image: string, signal: AbortSignal | undefined): Ask {
  return async (withImage) => {
    const result = await client.chat(
      {
        model: settings.model,
        messages: [
          {
            role: 'user',
            content: withImage
              ? [
                  { type: 'text', text: CHECK_PROMPT },
                  { type: 'image_url', image_url: { url: image } },
                ]
              : CHECK_PROMPT,
          },
        ],
        ...outputLimit(settings.baseUrl, 16),
      },
      { stream: false, signal },
    );
    return result.ok ? { ...result, value: result.value.message.content ?? '' } : result;
  };
}

/**
 * The question through a vendor SDK's client: `send` gets the image as base64 PNG data, or null for
 * the question without it; `textOf` reads the reply's text.
 */
function askThrough<T>(image: string, send: (png: string | null) => Promise<CallResult<T>>, textOf: (reply: T) => string): Ask {
  const data = image.slice(image.indexOf(',') + 1);
  return async (withImage) => {
    const result = await send(withImage ? data : null);
    return result.ok ? { ...result, value: textOf(result.value) } : result;
  };
}

/** The same question as one Messages call through the Anthropic SDK, with the computer tool a run sends (the answer may be a call). */
function askAnthropic(settings: ModelSettings, tool: AnthropicComputerTool, image: string, signal: AbortSignal | undefined): Ask {
  const client = new AnthropicClient({ ...settings, maxRetries: 0 });
  const request = (png: string | null): AnthropicRequest => ({
    model: settings.model,
    max_tokens: 64,
    tools: [computerToolEntry(tool, { width: 32, height: 32 }, settings.anthropic?.zoom ?? true)],
    ...(tool === ANTHROPIC_TOOLSET_TYPE ? {} : { betas: [ANTHROPIC_BETA[tool]] }),
    messages: [{ role: 'user', content: [{ type: 'text', text: CHECK_PROMPT }, ...(png !== null ? [{ type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: png } }] : [])] }],
  });
  return askThrough(
    image,
    (png) => client.message(request(png), { stream: false, signal }),
    (message) => message.content.flatMap((block) => (block.type === 'text' ? [block.text] : block.type === 'tool_use' ? [`(a call of ${block.name})`] : [])).join(''),
  );
}

/** The same question as one Responses call, with the computer tool a run sends (the answer may be a computer call). */
function askResponses(settings: ModelSettings, tool: OpenAiComputerTool, client: ModelClient, image: string, signal: AbortSignal | undefined): Ask {
  return async (withImage) => {
    const result = await client.respond(
      {
        model: settings.model,
        tools: [cuaToolEntry(tool, { width: 32, height: 32 }, 'linux')],
        truncation: 'auto',
        input: [{ role: 'user', content: [{ type: 'input_text', text: CHECK_PROMPT }, ...(withImage ? [{ type: 'input_image' as const, image_url: image, detail: 'auto' as const }] : [])] }],
        max_output_tokens: 64,
      },
      signal,
    );
    if (!result.ok) return result;
    const words = result.value.output.flatMap((item) => (item.type === 'message' ? item.content.flatMap((part) => (part.type === 'output_text' ? [part.text] : [])) : item.type === 'computer_call' ? ['(a computer call)'] : []));
    return { ...result, value: words.join('') };
  };
}

/** The same question through the Gemini SDK, with the computer-use tool a run declares (the answer may be a call). */
function askGemini(settings: ModelSettings, image: string, signal: AbortSignal | undefined): Ask {
  const client = new GeminiClient({ ...settings, maxRetries: 0 });
  const request = (png: string | null): GenerateContentParameters => ({
    model: settings.model,
    contents: [{ role: 'user', parts: [{ text: CHECK_PROMPT }, ...(png !== null ? [{ inlineData: { mimeType: 'image/png', data: png } }] : [])] }],
    config: { tools: geminiTools(settings.gemini?.environment), maxOutputTokens: 64 },
  });
  return askThrough(image, (png) => client.generate(request(png), { stream: false, signal }), ({ reply }) => {
    const parts = reply.content.parts ?? [];
    const call = parts.find((part) => part.functionCall)?.functionCall;
    return geminiThoughtOf(parts.filter((part) => part.thought !== true)) ?? (call ? `(a call of ${call.name ?? 'a function'})` : '');
  });
}
