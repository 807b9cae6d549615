/**
 * The memory's own model calls: plain chat completions, with function tools when the memory
 * manager must answer with a call (`append_to_short_term_memory`, `rewrite_memory`). Built on the
 * project's `ModelClient` (the real `openai` package at any OpenAI-compatible base URL, Mnemo's
 * retries, timeout and cancellation), so memory work can use a second, cheaper model with its own
 * settings. Every failure is a value.
 */
import { ModelClient, outputLimit, type ChatRequest, type ClientSettings, type ModelClientDeps } from '../model/client';
import { usageOf } from '../model/pricing';
import { type ModelError, type Usage } from '../model/types';
import { DEFAULT_PRICES, type PriceTable } from '../../shared/settings';
import { AnthropicClient } from '../model/anthropic-client';
import { GeminiClient } from '../model/gemini-client';
import { anthropicCompletion } from './anthropic-text-model';
import { geminiCompletion } from './gemini-text-model';

export interface TextMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A function the model may call; `parameters` is a JSON schema. */
export interface TextTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface TextRequest {
  system?: string | undefined;
  messages: TextMessage[];
  tools?: TextTool[] | undefined;
  /** `auto` (default with tools), `required`, or one function by name. */
  toolChoice?: 'auto' | 'required' | { name: string } | undefined;
}

export interface TextToolCall {
  id: string;
  name: string;
  /** As the model wrote it (may be malformed JSON). */
  arguments: string;
}

export type TextReply =
  | { ok: true; text: string | null; toolCalls: TextToolCall[]; usage: Usage; attempts: number }
  | { ok: false; error: ModelError; attempts: number };

export interface TextModel {
  /** The model name sent to the endpoint. */
  readonly model: string;
  complete(request: TextRequest, signal?: AbortSignal): Promise<TextReply>;
}

/**
 * The endpoint and model for memory work; a parsed `ModelSettings` fits. Its family only matters
 * for `anthropic` and `gemini`, spoken through their vendors' APIs; every other family is asked
 * through chat completions.
 */
export type TextModelSettings = ClientSettings & {
  model: string;
  family?: string | undefined;
  temperature?: number | undefined;
  maxOutputTokens?: number | undefined;
};

export interface TextModelDeps extends ModelClientDeps {
  /** A client to use instead of one built from the settings. */
  client?: ModelClient;
  /** Default: DEFAULT_PRICES. */
  prices?: PriceTable;
}

/** A TextModel over the project's ModelClient (non-streamed chat completions). */
export class ClientTextModel implements TextModel {
  readonly model: string;
  private readonly client: ModelClient;
  private readonly prices: PriceTable;

  constructor(
    private readonly settings: TextModelSettings,
    deps: TextModelDeps = {},
  ) {
    this.model = settings.model;
    this.client = deps.client ?? new ModelClient(settings, deps);
    this.prices = deps.prices ?? DEFAULT_PRICES;
  }

  async complete(request: TextRequest, signal?: AbortSignal): Promise<TextReply> {
    const result = await this.client.chat(buildTextRequest(request, this.settings), { stream: false, signal });
    if (!result.ok) return { ok: false, error: result.error, attempts: result.attempts };
    const { message, usage } = result.value;
    return {
      ok: true,
      text: message.content,
      toolCalls: (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
      usage: usageOf(usage, this.model, this.prices),
      attempts: result.attempts,
    };
  }
}

export function createTextModel(settings: TextModelSettings, deps: TextModelDeps = {}): TextModel {
  // The chat client in `deps` speaks chat completions: the vendor families build their own client.
  const { client: _chat, prices = DEFAULT_PRICES, ...clientDeps } = deps;
  if (settings.family === 'anthropic') return { model: settings.model, complete: anthropicCompletion(new AnthropicClient(settings, clientDeps), settings, prices) };
  if (settings.family === 'gemini') return { model: settings.model, complete: geminiCompletion(new GeminiClient(settings, clientDeps), settings, prices) };
  return new ClientTextModel(settings, deps);
}

/** The chat request of one memory call. */
export function buildTextRequest(request: TextRequest, settings: Pick<TextModelSettings, 'model' | 'baseUrl' | 'temperature' | 'maxOutputTokens'>): ChatRequest {
  const messages = [
    ...(request.system !== undefined && request.system.trim() !== '' ? [{ role: 'system' as const, content: request.system }] : []),
    ...request.messages.map((message) => ({ role: message.role, content: message.content })),
  ];
  const tools = request.tools ?? [];
  const choice = request.toolChoice;
  return {
    model: settings.model,
    messages,
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
          ...(choice === undefined
            ? {}
            : { tool_choice: typeof choice === 'string' ? choice : { type: 'function' as const, function: { name: choice.name } } }),
        }
      : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...outputLimit(settings.baseUrl, settings.maxOutputTokens),
  };
}


/** The message of a failed memory call, for logs and the `lastError` of a change. */
export function describeModelError(error: ModelError): string {
  return error.status !== undefined && !error.message.includes(String(error.status)) ? `${error.message} (HTTP ${error.status})` : error.message;
}

/** Parses a JSON object from a reply text, tolerating a ```json fence around it. */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i.exec(trimmed);
  const body = fenced ? (fenced[1] ?? '') : trimmed;
  try {
    const value = JSON.parse(body) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
