/**
 * The memory's model calls when the memory model is a Gemini model (`family: "gemini"`, the main
 * model's family unless `memory.model` names another): the same `TextModel` over the Gemini API
 * through the official SDK (model/gemini-client.ts), so summaries, fact detection and the working
 * memory work with a Gemini key alone. Messages become contents (`assistant` → `model`), the
 * functions become declarations, and the tool choice the function-calling mode.
 */
import type { Content, FunctionCallingConfig, GenerateContentParameters } from '@google/genai';
import { type PriceTable } from '../../shared/settings';
import { type GeminiClient } from '../model/gemini-client';
import { usageOf } from '../model/pricing';
import type { TextModel, TextModelSettings, TextRequest } from './text-model';

function callingConfig(request: TextRequest): FunctionCallingConfig | undefined {
  const choice = request.toolChoice;
  if (choice === undefined || choice === 'auto') return undefined;
  return { mode: 'ANY' as FunctionCallingConfig['mode'], ...(typeof choice === 'object' ? { allowedFunctionNames: [choice.name] } : {}) };
}

/** The generateContent request of one memory call. */
export function buildGeminiTextRequest(request: TextRequest, settings: Pick<TextModelSettings, 'model' | 'temperature' | 'maxOutputTokens'>): GenerateContentParameters {
  const contents: Content[] = [];
  for (const message of request.messages) {
    const role = message.role === 'assistant' ? 'model' : 'user';
    const last = contents.at(-1);
    // Roles alternate: a message of the same role as the one before joins its turn.
    if (last?.role === role) last.parts = [...(last.parts ?? []), { text: message.content }];
    else contents.push({ role, parts: [{ text: message.content }] });
  }
  const tools = request.tools ?? [];
  const calling = tools.length > 0 ? callingConfig(request) : undefined;
  const system = request.system?.trim() ? request.system : undefined;
  return {
    model: settings.model,
    contents,
    config: {
      ...(system !== undefined ? { systemInstruction: system } : {}),
      ...(tools.length > 0 ? { tools: [{ functionDeclarations: tools.map((tool) => ({ name: tool.name, description: tool.description, parametersJsonSchema: tool.parameters })) }] } : {}),
      ...(calling ? { toolConfig: { functionCallingConfig: calling } } : {}),
      ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
      ...(settings.maxOutputTokens !== undefined ? { maxOutputTokens: settings.maxOutputTokens } : {}),
    },
  };
}

/** The memory's calls through the Gemini client (non-streamed generateContent calls), as `TextModel.complete`. */
export function geminiCompletion(client: GeminiClient, settings: TextModelSettings, prices: PriceTable): TextModel['complete'] {
  return async (request, signal) => {
    const result = await client.generate(buildGeminiTextRequest(request, settings), { stream: false, signal });
    if (!result.ok) return { ok: false, error: result.error, attempts: result.attempts };
    const parts = result.value.reply.content.parts ?? [];
    const texts = parts.flatMap((part) => (typeof part.text === 'string' && part.thought !== true ? [part.text] : []));
    const calls = parts.flatMap((part) => (part.functionCall ? [part.functionCall] : []));
    return {
      ok: true,
      text: texts.length > 0 ? texts.join('') : null,
      toolCalls: calls.map((call, index) => ({ id: call.id ?? `call_${index}`, name: call.name ?? '', arguments: JSON.stringify(call.args ?? {}) })),
      usage: usageOf(result.value.usage, settings.model, prices),
      attempts: result.attempts,
    };
  };
}
