/**
 * The `gemini` family's pure parts, without a network: every predefined function of the
 * computer-use tool (the 2.5 set and the newer models' set) read into wire-format actions with its
 * 0–999 grid point mapped onto the image, what is refused and why, safety decisions, replies that
 * end the run, and the request: the tool as the API documents it, Mnemo's functions beside it,
 * the conversation with every function call answered in order by its response and screenshot.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  fromGeminiGrid,
  parseGeminiContent,
  readGeminiReply,
  GEMINI_DESKTOP_URL,
  GEMINI_EXCLUDED_FUNCTIONS,
  geminiTools,
  parseGeminiReply,
  toGeminiGrid,
  type GeminiParse,
  type GeminiParseOptions,
  type GeminiReply,
} from '../../../src/main/model/families/gemini';
import { buildGeminiRequest } from '../../../src/main/model/families/gemini-request';
import { parseReply } from '../../../src/main/model/families';
import type { ModelImage, PredictInput, StepRecord } from '../../../src/main/model/types';

const IMAGE = { width: 1280, height: 800 };

function reply(...parts: unknown[]): string {
  return JSON.stringify({ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }] });
}
const call = (name: string, args: Record<string, unknown> = {}, id?: string) => ({ functionCall: { name, args, ...(id ? { id } : {}) } });

function ok(result: GeminiParse) {
  if (!result.ok) throw new Error(`expected a parse, got: ${result.reason}`);
  return result;
}
function actionsOf(name: string, args: Record<string, unknown> = {}, options: GeminiParseOptions = { image: IMAGE }) {
  return ok(parseGeminiReply(reply(call(name, args)), options)).actions;
}
function reasonOf(text: string, options: GeminiParseOptions = { image: IMAGE }): string {
  const result = parseGeminiReply(text, options);
  if (result.ok) throw new Error(`expected a failure, got: ${JSON.stringify(result.actions)}`);
  return result.reason;
}

describe('gemini: the grid', () => {
  it('maps 0-999 onto the image it was read on, and back', () => {
    expect(fromGeminiGrid({ x: 500, y: 500 }, IMAGE)).toEqual({ x: 640, y: 400 });
    expect(fromGeminiGrid({ x: 0, y: 999 }, { width: 1920, height: 1080 })).toEqual({ x: 0, y: 1078.92 });
    expect(fromGeminiGrid({ x: 250, y: 750 }, undefined)).toEqual({ x: 250, y: 750 });
    expect(toGeminiGrid({ x: 640, y: 400 }, IMAGE)).toEqual({ x: 500, y: 500 });
    expect(toGeminiGrid({ x: 1280, y: 800 }, IMAGE)).toEqual({ x: 999, y: 999 });
  });

  it('puts the same grid point on the same spot of a small and a large image', () => {
    for (const image of [{ width: 960, height: 600 }, { width: 1280, height: 720 }, { width: 1920, height: 1080 }]) {
      const [click] = actionsOf('click_at', { x: 640, y: 125 }, { image });
      expect(click).toMatchObject({ type: 'click', x: (640 * image.width) / 1000, y: (125 * image.height) / 1000 });
    }
  });
});

describe('gemini: the predefined functions', () => {
  it.each([
    ['click_at', { x: 500, y: 250 }, [{ type: 'click', x: 640, y: 200, button: 'left' }]],
    ['hover_at', { x: 100, y: 100 }, [{ type: 'mouse_move', x: 128, y: 80 }]],
    ['drag_and_drop', { x: 100, y: 500, destination_x: 900, destination_y: 500 }, [{ type: 'drag', x: 128, y: 400, toX: 1152, toY: 400, button: 'left' }]],
    ['wait_5_seconds', {}, [{ type: 'wait', ms: 5000 }]],
    ['go_back', {}, [{ type: 'hotkey', keys: ['alt', 'left'] }]],
    ['go_forward', {}, [{ type: 'hotkey', keys: ['alt', 'right'] }]],
    ['key_combination', { keys: 'Control+Shift+T' }, [{ type: 'hotkey', keys: ['ctrl', 'shift', 't'] }]],
    ['key_combination', { keys: 'Enter' }, [{ type: 'hotkey', keys: ['enter'] }]],
    // magnitude in grid units of the axis: 500 of 800 px = 400 px = 4 notches of 100 px.
    ['scroll_at', { x: 500, y: 500, direction: 'down', magnitude: 500 }, [{ type: 'scroll', x: 640, y: 400, direction: 'down', amount: 4 }]],
    ['scroll_at', { x: 500, y: 500, direction: 'left' }, [{ type: 'scroll', x: 640, y: 400, direction: 'left', amount: 10 }]],
    ['scroll_document', { direction: 'up' }, [{ type: 'scroll', x: 640, y: 400, direction: 'up', amount: 6 }]],
  ] as const)('%s %j', (name, args, expected) => {
    expect(actionsOf(name, args)).toEqual(expected);
  });

  it('type_text_at clicks, clears the field by default, types, and presses Enter when asked', () => {
    expect(actionsOf('type_text_at', { x: 500, y: 100, text: 'Ada', press_enter: true })).toEqual([
      { type: 'click', x: 640, y: 80, button: 'left' },
      { type: 'hotkey', keys: ['cmd', 'a'] },
      { type: 'hotkey', keys: ['delete'] },
      { type: 'type', text: 'Ada' },
      { type: 'hotkey', keys: ['enter'] },
    ]);
    expect(actionsOf('type_text_at', { x: 500, y: 100, text: 'more', clear_before_typing: false })).toEqual([
      { type: 'click', x: 640, y: 80, button: 'left' },
      { type: 'type', text: 'more' },
    ]);
  });

  it.each([
    ['click', { x: 10, y: 20 }, [{ type: 'click', x: 12.8, y: 16, button: 'left' }]],
    ['double_click', { x: 500, y: 500 }, [{ type: 'double_click', x: 640, y: 400, button: 'left' }]],
    ['triple_click', { x: 500, y: 500 }, [{ type: 'triple_click', x: 640, y: 400, button: 'left' }]],
    ['middle_click', { x: 500, y: 500 }, [{ type: 'click', x: 640, y: 400, button: 'middle' }]],
    ['right_click', { x: 500, y: 500 }, [{ type: 'click', x: 640, y: 400, button: 'right' }]],
    ['mouse_down', { x: 500, y: 500 }, [{ type: 'mouse_down', x: 640, y: 400, button: 'left' }]],
    ['mouse_up', { x: 500, y: 500 }, [{ type: 'mouse_up', x: 640, y: 400, button: 'left' }]],
    ['move', { x: 500, y: 500 }, [{ type: 'mouse_move', x: 640, y: 400 }]],
    ['type', { text: 'hello', press_enter: true }, [{ type: 'type', text: 'hello' }, { type: 'hotkey', keys: ['enter'] }]],
    ['wait', { seconds: 2 }, [{ type: 'wait', ms: 2000 }]],
    ['press_key', { key: 'Escape' }, [{ type: 'hotkey', keys: ['escape'] }]],
    ['key_down', { key: 'Shift' }, [{ type: 'key_down', keys: ['shift'] }]],
    ['key_up', { key: 'Shift' }, [{ type: 'key_up', keys: ['shift'] }]],
    ['hotkey', { keys: ['ctrl', 'c'] }, [{ type: 'hotkey', keys: ['ctrl', 'c'] }]],
    ['take_screenshot', {}, [{ type: 'screenshot' }]],
    ['scroll', { x: 500, y: 500, direction: 'up', magnitude: 250 }, [{ type: 'scroll', x: 640, y: 400, direction: 'up', amount: 2 }]],
  ] as const)('the newer set: %s %j', (name, args, expected) => {
    expect(actionsOf(name, args)).toEqual(expected);
  });

  it("reads Mnemo's own functions", () => {
    expect(actionsOf('ask_user', { question: 'Which file?' })).toEqual([{ type: 'ask_user', question: 'Which file?' }]);
    expect(actionsOf('query_long_term_memory', { hint: 'editor' })).toEqual([{ type: 'query_long_term_memory', hint: 'editor' }]);
    expect(actionsOf('save_fact', { keyword: 'editor', value: 'Vim' })).toEqual([{ type: 'save_fact', subject: 'user', keyword: 'editor', description: '', value: 'Vim' }]);
  });

  it('stays on the grid without an image (mnemo parse without --image)', () => {
    expect(actionsOf('click_at', { x: 500, y: 250 }, {})).toEqual([{ type: 'click', x: 500, y: 250, button: 'left' }]);
    expect(parseReply('gemini', reply(call('click_at', { x: 500, y: 250 })), { image: { width: 1000, height: 500 } })).toMatchObject({ ok: true, actions: [{ x: 500, y: 125 }] });
  });

  it('refuses what cannot run, naming the problem', () => {
    expect(reasonOf(reply(call('click_at', { x: 1200, y: 10 })))).toBe('click_at at (1200, 10) is off the 0-999 grid');
    expect(reasonOf(reply(call('click_at', { x: 10 })))).toBe('click_at needs numbers x and y on the 0-999 grid');
    expect(reasonOf(reply(call('scroll_at', { x: 1, y: 1, direction: 'sideways' })))).toBe('scroll_at needs a direction: up, down, left or right');
    expect(reasonOf(reply(call('type_text_at', { x: 1, y: 1 })))).toBe('type_text_at needs a text');
    expect(reasonOf(reply(call('key_combination', {})))).toBe('key_combination needs keys, e.g. "ctrl+c"');
    expect(reasonOf(reply(call('key_combination', { keys: 'ctrl+nosuchkey' })))).toMatch(/^key_combination: .*nosuchkey/);
    expect(reasonOf(reply(call('fly_to', {})))).toBe('unknown function "fly_to"');
    for (const name of GEMINI_EXCLUDED_FUNCTIONS) expect(reasonOf(reply(call(name, { url: 'https://example.com' })))).toMatch(new RegExp(`^"${name}" is not available`));
    expect(reasonOf('not json')).toMatch(/^the reply is not JSON/);
    expect(reasonOf(reply())).toBe('no function call and no text in the reply');
    expect(reasonOf(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL', finishMessage: 'bad args' }] }))).toBe('the model wrote a malformed function call: bad args');
    expect(reasonOf(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'MAX_TOKENS' }] }))).toContain('cut off at the output token limit');
  });
});

describe('gemini: replies', () => {
  it('reads several calls in order, each with where its actions start, and the thought', () => {
    const parsed = ok(
      parseGeminiReply(
        reply({ text: 'The field is at the top.', thought: true }, { text: 'I fill it in.' }, call('type_text_at', { x: 500, y: 100, text: 'x' }, 'c1'), call('click_at', { x: 500, y: 500 }, 'c2')),
        { image: IMAGE },
      ),
    );
    expect(parsed.thought).toBe('The field is at the top.\n\nI fill it in.');
    expect(parsed.actions.map((action) => action.type)).toEqual(['click', 'hotkey', 'hotkey', 'type', 'click']);
    expect(parsed.calls).toEqual([
      { name: 'type_text_at', id: 'c1', kind: 'computer', actionIndex: 0, actionCount: 4, safety: null },
      { name: 'click_at', id: 'c2', kind: 'computer', actionIndex: 4, actionCount: 1, safety: null },
    ]);
  });

  it('a reply without a function call finishes the run with its text as the summary', () => {
    const parsed = ok(parseGeminiReply(reply({ text: 'Checking…', thought: true }, { text: 'The form is submitted.' })));
    expect(parsed.actions).toEqual([{ type: 'finished', summary: 'The form is submitted.' }]);
    expect(parsed.calls).toEqual([]);
  });

  it('a safety decision that requires confirmation marks the call to be confirmed first', () => {
    const decision = { decision: 'require_confirmation', explanation: 'This clicks "Accept all cookies".' };
    const parsed = ok(parseGeminiReply(reply(call('type_text_at', { x: 10, y: 10, text: 'y', safety_decision: decision }), call('click_at', { x: 5, y: 5 })), { image: IMAGE }));
    // Only the call's first action asks; the rest of it runs once the user said yes.
    expect(parsed.actions.map((action) => action.confirm)).toEqual([true, undefined, undefined, undefined, undefined]);
    expect(parsed.calls[0]?.safety).toEqual({ id: 'type_text_at#1', code: 'require_confirmation', message: 'This clicks "Accept all cookies".' });
    expect(parsed.calls[1]?.safety).toBeNull();
    // A regular decision needs nothing.
    const regular = ok(parseGeminiReply(reply(call('click_at', { x: 5, y: 5, safety_decision: { decision: 'regular' } })), { image: IMAGE }));
    expect(regular.actions[0]?.confirm).toBeUndefined();
  });

  it('a reply the safety filters stopped, or a blocked prompt, ends the run as a refusal', () => {
    const stopped = ok(parseGeminiReply(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'SAFETY' }] })));
    expect(stopped.actions).toEqual([{ type: 'fail', reason: "the reply was stopped by the provider's safety filters (SAFETY)" }]);
    expect(stopped.refusal).toMatch(/SAFETY/);
    const blocked = ok(parseGeminiReply(JSON.stringify({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } })));
    expect(blocked.refusal).toBe('the request was blocked (PROHIBITED_CONTENT)');
  });

  it('takes the reply as a response, as recorded, as a content, as parts or as one part', () => {
    const part = call('click_at', { x: 500, y: 500 });
    for (const text of [reply(part), JSON.stringify({ content: { role: 'model', parts: [part] }, finishReason: 'STOP' }), JSON.stringify({ role: 'model', parts: [part] }), JSON.stringify([part]), JSON.stringify(part)]) {
      expect(ok(parseGeminiReply(text, { image: IMAGE })).actions).toEqual([{ type: 'click', x: 640, y: 400, button: 'left' }]);
    }
  });
});

/**
 * A part as the Python SDK prints it (`part.model_dump(mode='json')`): snake_case, every field it
 * does not use present and null.
 */
function pythonPart(fields: Record<string, unknown>): Record<string, unknown> {
  const unused = ['video_metadata', 'thought', 'inline_data', 'file_data', 'thought_signature', 'code_execution_result', 'executable_code', 'function_call', 'function_response', 'text'];
  return { ...Object.fromEntries(unused.map((key) => [key, null])), ...fields };
}
/** A whole response as the Python SDK prints it. */
function pythonResponse(parts: unknown[], finishReason = 'STOP'): string {
  return JSON.stringify({
    candidates: [{ content: { parts, role: 'model' }, finish_reason: finishReason, finish_message: null, index: 0, safety_ratings: null, citation_metadata: null }],
    prompt_feedback: null,
    usage_metadata: { prompt_token_count: 1834, candidates_token_count: 41, total_token_count: 1875 },
    model_version: 'gemini-2.5-computer-use-preview-10-2025',
  });
}

describe('gemini: replies in the Python SDK\'s snake_case', () => {
  it('a function_call part is the call, not a final answer', () => {
    const text = pythonResponse([
      pythonPart({ text: 'I will click the search box at the top of the page.' }),
      pythonPart({ function_call: { id: null, name: 'click_at', args: { x: 500, y: 250 } }, thought_signature: 'c2lnbmF0dXJl' }),
    ]);
    const parsed = ok(parseGeminiReply(text, { image: IMAGE }));
    expect(parsed.actions).toEqual([{ type: 'click', x: 640, y: 200, button: 'left' }]);
    expect(parsed.thought).toBe('I will click the search box at the top of the page.');
    expect(parsed.calls).toEqual([{ name: 'click_at', id: null, kind: 'computer', actionIndex: 0, actionCount: 1, safety: null }]);
    expect(parsed.finishReason).toBe('STOP');
  });

  it('in every shape a reply is taken in', () => {
    const part = { function_call: { name: 'click_at', args: { x: 500, y: 500 } } };
    const shapes = [
      pythonResponse([pythonPart(part)]),
      JSON.stringify({ content: { role: 'model', parts: [part] }, finish_reason: 'STOP' }),
      JSON.stringify({ role: 'model', parts: [part] }),
      JSON.stringify([part]),
      JSON.stringify(part),
    ];
    for (const text of shapes) expect(ok(parseGeminiReply(text, { image: IMAGE })).actions).toEqual([{ type: 'click', x: 640, y: 400, button: 'left' }]);
    expect(parseReply('gemini', shapes[0] as string, { image: IMAGE })).toMatchObject({ ok: true, actions: [{ type: 'click', x: 640, y: 400 }] });
  });

  it('parseGeminiContent and readGeminiReply read snake_case too, inner fields included', () => {
    const content = { role: 'model', parts: [{ function_call: { name: 'drag_and_drop', args: { x: 100, y: 500, destination_x: 900, destination_y: 500 } } }] };
    expect(ok(parseGeminiContent({ content, finish_reason: 'STOP' } as unknown as GeminiReply, { image: IMAGE })).actions).toEqual([
      { type: 'drag', x: 128, y: 400, toX: 1152, toY: 400, button: 'left' },
    ]);
    const read = readGeminiReply({
      candidates: [{ content: { role: 'model', parts: [{ inline_data: { mime_type: 'image/png', data: 'iVBORw0K' } }, { text: 'Done.', thought_signature: 'c2ln' }] }, finish_reason: 'STOP', finish_message: 'ok' }],
      usage_metadata: { prompt_token_count: 10 },
    });
    expect(read).toMatchObject({
      content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBORw0K' } }, { text: 'Done.', thoughtSignature: 'c2ln' }] },
      finishReason: 'STOP',
      finishMessage: 'ok',
      usageMetadata: { promptTokenCount: 10 },
    });
  });

  it("keeps the call's arguments as written: a safety_decision asks the user first", () => {
    const decision = { decision: 'require_confirmation', explanation: 'This buys the ticket.' };
    const parsed = ok(parseGeminiReply(pythonResponse([pythonPart({ function_call: { id: 'fc_1', name: 'click_at', args: { x: 10, y: 10, safety_decision: decision } } })]), { image: IMAGE }));
    expect(parsed.actions[0]?.confirm).toBe(true);
    expect(parsed.calls[0]?.safety).toEqual({ id: 'fc_1', code: 'require_confirmation', message: 'This buys the ticket.' });
  });

  it('a text-only reply still finishes, and a prompt_feedback block_reason is a refusal', () => {
    expect(ok(parseGeminiReply(pythonResponse([pythonPart({ text: 'The flight is booked.' })]))).actions).toEqual([{ type: 'finished', summary: 'The flight is booked.' }]);
    expect(ok(parseGeminiReply(JSON.stringify({ candidates: null, prompt_feedback: { block_reason: 'SAFETY' } }))).refusal).toBe('the request was blocked (SAFETY)');
    expect(ok(parseGeminiReply(pythonResponse([], 'SAFETY'))).refusal).toMatch(/safety filters \(SAFETY\)/);
  });
});

describe('gemini: a reply whose parts cannot be read is a parse failure, never finished', () => {
  it.each<[string, unknown, string]>([
    ['a misspelled function call beside text', [{ text: 'Clicking the button.' }, { functionCal: { name: 'click_at', args: { x: 1, y: 2 } } }], 'part 2 of the reply cannot be read: it has "functionCal", none of text, functionCall (function_call), inlineData (inline_data) or the other fields of a part'],
    ['a part that is a string', ['click_at(500, 500)'], 'part 1 of the reply is not an object'],
    ['a function call that is not an object', [{ text: 'Clicking.', functionCall: 'click_at' }], 'part 1 of the reply has a function call without a name'],
    ['a function call without a name', [{ function_call: { args: { x: 1, y: 2 } } }], 'part 1 of the reply has a function call without a name'],
    ['arguments that are not an object', [{ function_call: { name: 'click_at', args: '500, 500' } }], 'part 1 of the reply: the arguments of click_at are not an object'],
    ['a text that is not a string', [{ text: ['Done.'] }], 'part 1 of the reply has a text that is not a string'],
  ])('%s', (_case, parts, reason) => {
    expect(reasonOf(JSON.stringify({ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }] }))).toBe(reason);
  });

  it('parts that are not a list', () => {
    expect(reasonOf(JSON.stringify({ candidates: [{ content: { role: 'model', parts: { text: 'Done.' } }, finish_reason: 'STOP' }] }))).toBe('the reply\'s "parts" is not a list of parts');
  });

  it('a part with nothing set carries nothing and is no problem', () => {
    expect(ok(parseGeminiReply(pythonResponse([pythonPart({}), pythonPart({ function_call: { name: 'wait_5_seconds', args: {} } })]))).actions).toEqual([{ type: 'wait', ms: 5000 }]);
  });
});

// ---------------------------------------------------------------------------------------------
// The request

async function image(width: number, height: number, colour: number): Promise<ModelImage> {
  const png = await sharp({ create: { width, height, channels: 3, background: { r: colour, g: colour, b: colour } } }).png().toBuffer();
  return { image: png, mime: 'image/png', width, height };
}
const base64 = (shot: ModelImage) => shot.image.toString('base64');

describe('gemini: the request', () => {
  it('declares the computer-use tool for the browser with the browser-only functions excluded, and Mnemo\'s functions beside it', () => {
    expect(geminiTools()).toEqual([
      { computerUse: { environment: 'ENVIRONMENT_BROWSER', excludedPredefinedFunctions: ['open_web_browser', 'search', 'navigate'] } },
      { functionDeclarations: expect.arrayContaining([expect.objectContaining({ name: 'ask_user' }), expect.objectContaining({ name: 'save_fact' }), expect.objectContaining({ name: 'query_long_term_memory' })]) },
    ]);
    expect(geminiTools('desktop')[0]).toEqual({ computerUse: { environment: 'ENVIRONMENT_DESKTOP' } });
  });

  it('starts with the task and the screenshot, the memory in the system instruction', async () => {
    const now = await image(64, 40, 10);
    const request = buildGeminiRequest({ task: 'Fill in the form', system: 'Facts: the user is Ada.', history: [], observation: now }, { model: 'gemini-2.5-computer-use-preview-10-2025' });
    expect(request.model).toBe('gemini-2.5-computer-use-preview-10-2025');
    expect(request.contents).toEqual([{ role: 'user', parts: [{ text: 'Task: Fill in the form' }, { inlineData: { mimeType: 'image/png', data: base64(now) } }] }]);
    expect(request.config?.systemInstruction).toContain('Facts: the user is Ada.');
    expect(request.config?.systemInstruction).toContain(GEMINI_DESKTOP_URL);
    expect(request.config?.thinkingConfig).toEqual({ includeThoughts: true });
    expect(buildGeminiRequest({ task: 't', history: [], observation: now }, { model: 'm', gemini: { includeThoughts: false } }).config?.thinkingConfig).toBeUndefined();
  });

  it('answers every call of every step in order, with the url and the screenshot that followed it; Mnemo functions with the result', async () => {
    const [first, second, now] = await Promise.all([image(64, 40, 10), image(64, 40, 20), image(64, 40, 30)]);
    const replyOne = { content: { role: 'model', parts: [{ text: 'Fill it.', thought: true, thoughtSignature: 'sig-A' }, call('type_text_at', { x: 10, y: 10, text: 'a' }, 'c1'), call('click_at', { x: 20, y: 20 }, 'c2')] }, finishReason: 'STOP' };
    const replyTwo = { content: { role: 'model', parts: [call('query_long_term_memory', { hint: 'name' }), call('key_combination', { keys: 'ctrl+s' })] }, finishReason: 'STOP' };
    const history: StepRecord[] = [
      { step: 1, thought: 'Fill it.', actions: [], results: 'clicked; typed', screenshot: first, reply: JSON.stringify(replyOne) },
      { step: 2, thought: null, actions: [], results: 'asked the long-term memory about "name"; pressed ctrl+s', screenshot: second, reply: JSON.stringify(replyTwo) },
    ];
    const input: PredictInput = { task: 'Fill in the form', history, observation: now, feedback: 'Long-term memory on "name": Ada' };
    const { contents } = buildGeminiRequest(input, { model: 'm' });
    expect(contents).toEqual([
      { role: 'user', parts: [{ text: 'Task: Fill in the form' }, { inlineData: { mimeType: 'image/png', data: base64(first) } }] },
      // The model's own turn unchanged: thought signature included.
      { role: 'model', parts: replyOne.content.parts },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'type_text_at', id: 'c1', response: { url: GEMINI_DESKTOP_URL }, parts: [{ inlineData: { mimeType: 'image/png', data: base64(second) } }] } },
          { functionResponse: { name: 'click_at', id: 'c2', response: { url: GEMINI_DESKTOP_URL }, parts: [{ inlineData: { mimeType: 'image/png', data: base64(second) } }] } },
        ],
      },
      { role: 'model', parts: replyTwo.content.parts },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'query_long_term_memory', response: { result: 'asked the long-term memory about "name"; pressed ctrl+s' } } },
          { functionResponse: { name: 'key_combination', response: { url: GEMINI_DESKTOP_URL }, parts: [{ inlineData: { mimeType: 'image/png', data: base64(now) } }] } },
          { text: 'Long-term memory on "name": Ada' },
        ],
      },
    ]);
  });

  it('a pruned screenshot becomes its placeholder; a step the reply of which did not parse is answered with the reason', async () => {
    const now = await image(64, 40, 30);
    const bad = { content: { role: 'model', parts: [call('click_at', { x: 5000, y: 1 })] }, finishReason: 'STOP' };
    const good = { content: { role: 'model', parts: [call('click_at', { x: 1, y: 1 })] }, finishReason: 'STOP' };
    const history: StepRecord[] = [
      { step: 4, thought: null, actions: [], results: 'reply not understood', screenshotPlaceholder: '[Screenshot removed - Step 4]', reply: JSON.stringify(bad) },
      { step: 5, thought: null, actions: [], results: 'clicked', screenshotPlaceholder: '[Screenshot removed - Step 5]', reply: JSON.stringify(good) },
    ];
    const { contents } = buildGeminiRequest({ task: 't', history, observation: now }, { model: 'm' });
    expect(contents?.[0]).toEqual({ role: 'user', parts: [{ text: 'Task: t' }, { text: '(Steps 1 to 3 are summarised in the instructions.)' }, { text: '[Screenshot removed - Step 4]' }] });
    expect(contents?.[2]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'click_at', response: { error: 'not run: click_at at (5000, 1) is off the 0-999 grid' } } }] });
    expect(contents?.[4]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'click_at', response: { url: GEMINI_DESKTOP_URL }, parts: [{ inlineData: { mimeType: 'image/png', data: base64(now) } }] } }] });
    // The response to a step whose next screenshot was pruned says so instead of carrying it.
    const pruned = buildGeminiRequest({ task: 't', history: [{ ...history[1]!, step: 1 }, { ...history[1]!, step: 2, screenshotPlaceholder: '[Screenshot removed - Step 2]' }], observation: now }, { model: 'm' });
    expect(pruned.contents[2]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'click_at', response: { url: GEMINI_DESKTOP_URL, screenshot: '[Screenshot removed - Step 2]' } } }] });
    const older = { step: 5, thought: null, actions: [], results: 'x', screenshotPlaceholder: '[Screenshot removed - Step 5]', reply: JSON.stringify(good) };
    const withNewer = buildGeminiRequest({ task: 't', history: [{ ...older, step: 4 }, { ...older, step: 5, screenshot: now }], observation: now }, { model: 'm' });
    expect((withNewer.contents?.[2]?.parts?.[0]?.functionResponse?.response as Record<string, unknown>) ?? {}).toEqual({ url: GEMINI_DESKTOP_URL });
  });

  it('acknowledges a safety decision the user accepted, and only then', async () => {
    const now = await image(64, 40, 30);
    const decision = { decision: 'require_confirmation', explanation: 'Accept cookies?' };
    const flagged = { content: { role: 'model', parts: [call('click_at', { x: 10, y: 10, safety_decision: decision }, 'c9')] }, finishReason: 'STOP' };
    const history: StepRecord[] = [{ step: 1, thought: null, actions: [], results: 'clicked', screenshot: now, reply: JSON.stringify(flagged) }];
    const accepted = buildGeminiRequest({ task: 't', history, observation: now, acknowledgedSafetyChecks: [{ id: 'c9', code: 'require_confirmation', message: 'Accept cookies?' }] }, { model: 'm' });
    expect(accepted.contents?.[2]?.parts?.[0]?.functionResponse?.response).toEqual({ url: GEMINI_DESKTOP_URL, safety_acknowledgement: 'true' });
    const notAccepted = buildGeminiRequest({ task: 't', history, observation: now }, { model: 'm' });
    expect(notAccepted.contents?.[2]?.parts?.[0]?.functionResponse?.response).toEqual({ url: GEMINI_DESKTOP_URL });
    // An older step's accepted call stays acknowledged (the run went on past it).
    const later = buildGeminiRequest({ task: 't', history: [...history, { step: 2, thought: null, actions: [], results: 'x', screenshot: now, reply: JSON.stringify({ content: { role: 'model', parts: [call('wait_5_seconds')] } }) }], observation: now }, { model: 'm' });
    expect(later.contents?.[2]?.parts?.[0]?.functionResponse?.response).toEqual({ url: GEMINI_DESKTOP_URL, safety_acknowledgement: 'true' });
  });
});
