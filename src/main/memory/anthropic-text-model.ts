/**
 * The memory's model calls for the `anthropic` family: the same `TextModel` over the Anthropic
 * Messages API (the SDK client, Mnemo's retries and timeout), so a run with Claude keeps its memory
 * with Claude too. System messages join the system prompt; turns of one role in a row join into one.
 */
import { type BetaMessageParam, type BetaToolChoice } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { type AnthropicClient, anthropicTokens } from '../model/anthropic-client';
import { ANTHROPIC_DEFAULT_MAX_TOKENS } from '../model/families/anthropic-request';
import { usageOf } from '../model/pricing';
import { type PriceTable } from '../../shared/settings';
import { type TextModel, type TextModelSettings, type TextReply, type TextRequest } from './text-model';

/** The memory's calls through the Anthropic client (non-streamed Messages calls), as `TextModel.complete`. */
export function anthropicCompletion(client: AnthropicClient, settings: TextModelSettings, prices: PriceTable): TextModel['complete'] {
  return (request, signal) => completeWith(client, settings, prices, request, signal);
}

async function completeWith(client: AnthropicClient, settings: TextModelSettings, prices: PriceTable, request: TextRequest, signal: AbortSignal | undefined): Promise<TextReply> {
  const system = [request.system ?? '', ...request.messages.filter((message) => message.role === 'system').map((message) => message.content)].filter((part) => part.trim() !== '').join('\n\n');
  const tools = request.tools ?? [];
  const result = await client.message(
    {
      model: settings.model,
      max_tokens: settings.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: alternating(request),
      ...(system !== '' ? { system } : {}),
      ...(tools.length > 0
        ? {
            tools: tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: { ...tool.parameters, type: 'object' as const } })),
            ...(request.toolChoice !== undefined ? { tool_choice: toolChoiceOf(request.toolChoice) } : {}),
          }
        : {}),
      ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    },
    { stream: false, signal },
  );
  if (!result.ok) return { ok: false, error: result.error, attempts: result.attempts };
  const { content, usage } = result.value;
  const texts = content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  return {
    ok: true,
    text: texts.length > 0 ? texts.join('\n') : null,
    toolCalls: content.flatMap((block) => (block.type === 'tool_use' ? [{ id: block.id, name: block.name, arguments: JSON.stringify(block.input) }] : [])),
    usage: usageOf(anthropicTokens(usage), settings.model, prices),
    attempts: result.attempts,
  };
}

/** The conversation as the API takes it: user first, roles alternating. */
function alternating(request: TextRequest): BetaMessageParam[] {
  const turns: BetaMessageParam[] = [];
  for (const message of request.messages) {
    if (message.role === 'system' || message.content.trim() === '') continue;
    const last = turns.at(-1);
    if (last?.role === message.role) last.content = `${last.content as string}\n\n${message.content}`;
    else turns.push({ role: message.role, content: message.content });
  }
  if (turns[0]?.role !== 'user') turns.unshift({ role: 'user', content: '(The conversation so far follows.)' });
  return turns;
}

function toolChoiceOf(choice: NonNullable<TextRequest['toolChoice']>): BetaToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.name };
}
