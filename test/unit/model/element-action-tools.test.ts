/**
 * The element actions (`click_element`, `type_into`) in the families that call tools besides
 * `tools` (OpenAI computer use, Anthropic, Gemini): declared only with the elements aid on, and
 * read back from a reply as the shared actions.
 */
import { describe, expect, it } from 'vitest';
import { mnemoTools, parseAnthropicMessage } from '../../../src/main/model/families/anthropic';
import { geminiTools, parseGeminiReply } from '../../../src/main/model/families/gemini';
import { mnemoFunctionTools, parseOpenAiCuaResponse } from '../../../src/main/model/families/openai-cua';

const names = (tools: ReadonlyArray<{ name?: string }>) => tools.map((tool) => tool.name);

describe('the element actions of the families that call tools', () => {
  it('are declared only with the elements aid on', () => {
    expect(names(mnemoFunctionTools(false))).not.toContain('click_element');
    expect(names(mnemoFunctionTools(true, true))).toEqual(['save_fact', 'query_long_term_memory', 'run_workflow', 'click_element', 'type_into']);
    expect(names(mnemoTools(false))).not.toContain('type_into');
    expect(names(mnemoTools(false, true))).toEqual(expect.arrayContaining(['click_element', 'type_into']));
    const declared = (tools: ReturnType<typeof geminiTools>) => tools.flatMap((tool) => tool.functionDeclarations ?? []).map((declaration) => declaration.name);
    expect(declared(geminiTools(undefined, false, false))).not.toContain('click_element');
    expect(declared(geminiTools(undefined, false, true))).toEqual(expect.arrayContaining(['click_element', 'type_into']));
  });

  it('are read from a reply as the shared actions', () => {
    const openai = parseOpenAiCuaResponse({ output: [{ type: 'function_call', call_id: 'c1', name: 'click_element', arguments: '{"n": 4}' }] });
    expect(openai).toMatchObject({ ok: true, actions: [{ type: 'click_element', n: 4 }] });
    const anthropic = parseAnthropicMessage({ content: [{ type: 'tool_use', id: 't1', name: 'type_into', input: { n: 5, text: 'Ada' } }] });
    expect(anthropic).toMatchObject({ ok: true, actions: [{ type: 'type_into', n: 5, text: 'Ada' }] });
    const gemini = parseGeminiReply(JSON.stringify({ content: { role: 'model', parts: [{ functionCall: { name: 'click_element', args: { n: 2 } } }] } }));
    expect(gemini).toMatchObject({ ok: true, actions: [{ type: 'click_element', n: 2 }] });
  });
});
