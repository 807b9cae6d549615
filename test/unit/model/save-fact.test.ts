/**
 * The `save_fact` action in every model family: the parsers accept it (and the UI-TARS and
 * computer-use forms of `query_long_term_memory`), and the prompts and tools describe it.
 */
import { describe, expect, it } from 'vitest';
import { computerToolDefinition, memoryFunctionTools, parseOpenAiCuaResponse, parseToolsReply, parseUiTarsReply } from '../../../src/main/model/families';
import { formatUiTarsAction, uiTarsPrompt } from '../../../src/main/model/ui-tars-model';
import { toolsSystemPrompt } from '../../../src/main/model/tools-model';
import { parseAction } from '../../../src/shared/actions';

const editor = { type: 'save_fact', subject: 'user', keyword: 'preferred-editor', description: "The user's preferred text editor", value: 'Vim' };

describe('save_fact', () => {
  it('parses in the shared action format, subject user by default, and needs a keyword and a value', () => {
    expect(parseAction({ type: 'save_fact', keyword: 'k', value: 'v' })).toEqual({ ok: true, action: { type: 'save_fact', subject: 'user', keyword: 'k', description: '', value: 'v' } });
    expect(parseAction({ type: 'save_fact', keyword: 'langs', values: ['Kotlin', 'Java'] })).toMatchObject({ ok: true, action: { values: ['Kotlin', 'Java'] } });
    expect(parseAction({ type: 'save_fact', keyword: 'k' })).toEqual({ ok: false, message: 'invalid save_fact action: a fact needs a value (or values)' });
    expect(parseAction({ type: 'save_fact', value: 'v' })).toMatchObject({ ok: false });
    expect(parseAction({ type: 'save_fact', keyword: 'k', value: 'v', subject: 'The User' })).toMatchObject({ ok: false });
  });

  it('tools family: in the computer tool and the prompt; parsed from a tool call or JSON text', () => {
    expect(JSON.stringify(computerToolDefinition({ width: 100, height: 100 }))).toContain('"save_fact"');
    expect(toolsSystemPrompt({ width: 100, height: 100 }, true)).toContain('save_fact {subject?');
    const reply = JSON.stringify({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'computer', arguments: JSON.stringify({ actions: [editor] }) } }] });
    expect(parseToolsReply(reply)).toMatchObject({ ok: true, actions: [editor] });
    expect(parseToolsReply('I will remember that.\n```json\n{"actions": [{"type": "save_fact", "keyword": "preferred-editor", "value": "Vim"}]}\n```')).toMatchObject({
      ok: true,
      actions: [{ type: 'save_fact', subject: 'user', keyword: 'preferred-editor', value: 'Vim' }],
    });
  });

  it('ui-tars family: described in the prompt, parsed with named arguments, written back the same way', () => {
    expect(uiTarsPrompt('task')).toContain("save_fact(subject='user', keyword='xxx'");
    const parsed = parseUiTarsReply("Thought: The user said they use Vim.\nAction: save_fact(subject='user', keyword='preferred-editor', description='The user\\'s preferred text editor', value='Vim')", { version: '1.5' });
    expect(parsed).toMatchObject({ ok: true, actions: [editor] });
    expect(parseUiTarsReply("Action: save_fact(keyword='languages', values='Kotlin; Java')", { version: '1.5' })).toMatchObject({
      ok: true,
      actions: [{ type: 'save_fact', subject: 'user', keyword: 'languages', values: ['Kotlin', 'Java'] }],
    });
    expect(parseUiTarsReply("Action: save_fact(keyword='x')", { version: '1.5' })).toEqual({ ok: false, reason: 'save_fact without a value' });
    expect(parseUiTarsReply("Action: query_long_term_memory(hint='the editor')", { version: '1.5' })).toMatchObject({ ok: true, actions: [{ type: 'query_long_term_memory', hint: 'the editor' }] });
    const written = formatUiTarsAction(editor as never, (point) => point);
    expect(parseUiTarsReply(`Action: ${written}`, { version: '1.5' })).toMatchObject({ ok: true, actions: [editor] });
  });

  it('openai-cua family: function tools beside the computer tool; a function_call becomes the action', () => {
    expect(memoryFunctionTools().map((tool) => tool.name)).toEqual(['save_fact', 'query_long_term_memory']);
    const parsed = parseOpenAiCuaResponse({
      id: 'resp_1',
      output: [{ type: 'function_call', call_id: 'call_9', name: 'save_fact', arguments: JSON.stringify({ keyword: 'preferred-editor', description: "The user's preferred text editor", value: 'Vim' }) }],
    });
    expect(parsed).toMatchObject({ ok: true, actions: [editor], calls: [{ kind: 'function', callId: 'call_9' }] });
    expect(parseOpenAiCuaResponse({ output: [{ type: 'function_call', call_id: 'c', name: 'rm_rf', arguments: '{}' }] })).toEqual({ ok: false, reason: 'unknown function "rm_rf"' });
  });
});

describe('openai-cua chaining after a memory function', () => {
  it('answers the function call with a function_call_output (the step result) and sends the screen again', async () => {
    const { buildOpenAiCuaRequest } = await import('../../../src/main/model/openai-cua-model');
    const reply = JSON.stringify({ id: 'resp_7', output: [{ type: 'function_call', call_id: 'call_3', name: 'save_fact', arguments: '{"keyword":"k","value":"v"}' }] });
    const observation = { image: Buffer.from([0xff, 0xd8, 0xff]), mime: 'image/jpeg' as const, width: 100, height: 80 };
    const request = buildOpenAiCuaRequest(
      { task: 't', history: [{ step: 1, thought: null, actions: [], results: 'Saved the fact k about the user (added).', reply }], observation },
      { model: 'computer-use-preview' },
      'linux',
    );
    expect(request.previous_response_id).toBe('resp_7');
    expect(request.input).toEqual([
      { type: 'function_call_output', call_id: 'call_3', output: 'Saved the fact k about the user (added).' },
      { role: 'user', content: [{ type: 'input_text', text: 'Current screen:' }, { type: 'input_image', image_url: expect.stringMatching(/^data:image\/jpeg;base64,/), detail: 'auto' }] },
    ]);
  });
});
