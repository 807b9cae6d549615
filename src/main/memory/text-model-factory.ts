/**
 * The memory's text models: the project's `ModelClient` (the real `openai` package at any
 * OpenAI-compatible base URL, Mnemo's retries, timeout and cancellation) for every family but
 * `anthropic` and `gemini`, which speak their vendors' APIs (anthropic-text-model.ts,
 * gemini-text-model.ts).
 */
import { AnthropicClient } from '../model/anthropic-client';
import { ModelClient, outputLimit, type ChatRequest } from '../model/client';
import { GeminiClient } from '../model/gemini-client';
import { usageOf } from '../model/pricing';
import { DEFAULT_PRICES, type PriceTable } from '../../shared/settings';
import { anthropicCompletion } from './anthropic-text-model';
import { geminiCompletion } from './gemini-text-model';
import type { TextModel, TextModelDeps, TextModelSettings, TextReply, TextRequest } from './text-model';

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
