/**
 * The `openai-cua` family end to end over the Responses API: the computer_use_preview tool with
 * the display size, computer_call items, the chained second request with previous_response_id and
 * a computer_call_output carrying the new screenshot and the acknowledged safety checks.
 */
import { describe, expect, it } from 'vitest';
import { createVisionModel, type PredictInput } from '../../../src/main/model';
import { computerUsePreviewTool, memoryFunctionTools } from '../../../src/main/model/families';
import { decodeDataUrl, imagesIn } from '../../fixtures/openai-server';
import { predictOk, screenshot, settingsFor, step, thoughtLog, scriptedServerPerTest } from './helpers';

const serve = scriptedServerPerTest();

const cua = (url: string) =>
  createVisionModel(settingsFor(url, { family: 'openai-cua', model: 'computer-use-preview' }), { platform: 'linux' });

async function input(overrides: Partial<PredictInput> = {}): Promise<PredictInput> {
  return { task: 'Delete the old backups', history: [], observation: await screenshot(1280, 800), ...overrides };
}

const safetyCheck = { id: 'cu_sc_1', code: 'irrelevant_domain', message: 'The page is not part of the task.' };

describe('openai-cua family', () => {
  it('chains two calls: computer_call with a safety check, then previous_response_id and computer_call_output', async () => {
    const { url, requests } = await serve(
      {
        id: 'resp_first',
        responseOutput: [
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'The Backups folder is on the left.' }] },
          {
            type: 'computer_call',
            id: 'cu_1',
            call_id: 'call_A',
            action: { type: 'click', button: 'left', x: 120, y: 340 },
            pending_safety_checks: [safetyCheck],
            status: 'completed',
          },
        ],
      },
      {
        id: 'resp_second',
        responseOutput: [
          {
            type: 'computer_call',
            id: 'cu_2',
            call_id: 'call_B',
            action: { type: 'keypress', keys: ['CTRL', 'A'] },
            pending_safety_checks: [],
            status: 'completed',
          },
        ],
      },
    );
    const model = cua(url);
    const thoughts = thoughtLog();
    const first = await predictOk(model, await input({ system: 'Blackboard: nothing yet.' }), undefined, thoughts.listener);
    expect(first.thought).toBe('The Backups folder is on the left.');
    expect(thoughts.text()).toBe('The Backups folder is on the left.');
    expect(first.actions).toEqual([{ type: 'click', x: 120, y: 340, button: 'left', confirm: true }]);
    expect(first.pendingSafetyChecks).toEqual([safetyCheck]);
    expect(first.extras).toEqual({
      family: 'openai-cua',
      responseId: 'resp_first',
      calls: [{ callId: 'call_A', actionIndex: 0, pendingSafetyChecks: [safetyCheck] }],
    });
    expect(first.usage).toEqual({ inputTokens: 1500, outputTokens: 60, costUsd: (1500 * 3 + 60 * 12) / 1e6, priced: true, reported: true });

    const firstBody = requests[0]?.body;
    expect(requests[0]?.path).toBe('/v1/responses');
    expect(firstBody.model).toBe('computer-use-preview');
    expect(firstBody.tools).toEqual([computerUsePreviewTool({ width: 1280, height: 800 }, 'linux'), ...memoryFunctionTools()]);
    expect(firstBody.truncation).toBe('auto');
    expect(firstBody.previous_response_id).toBeUndefined();
    expect(firstBody.instructions).toContain('Blackboard: nothing yet.');
    expect(firstBody.input[0].role).toBe('user');
    expect(firstBody.input[0].content[0]).toEqual({ type: 'input_text', text: 'Task: Delete the old backups' });
    expect(imagesIn(firstBody)).toHaveLength(1);

    // The user accepted the check; the click ran; a new screenshot.
    const after = await screenshot(1280, 800, 'image/png');
    const history = [step({ step: 1, thought: first.thought, actions: first.actions, results: 'clicked', reply: first.raw })];
    const second = await predictOk(model, await input({ history, observation: after, acknowledgedSafetyChecks: [safetyCheck] }));
    expect(second.actions).toEqual([{ type: 'hotkey', keys: ['ctrl', 'a'] }]);
    expect(second.pendingSafetyChecks).toEqual([]);

    const secondBody = requests[1]?.body;
    expect(secondBody.previous_response_id).toBe('resp_first');
    expect(secondBody.tools).toEqual([computerUsePreviewTool({ width: 1280, height: 800 }, 'linux'), ...memoryFunctionTools()]);
    expect(secondBody.input).toHaveLength(1);
    const output = secondBody.input[0];
    expect(output).toMatchObject({
      type: 'computer_call_output',
      call_id: 'call_A',
      output: { type: 'computer_screenshot' },
      acknowledged_safety_checks: [safetyCheck],
    });
    expect(imagesIn(secondBody)).toEqual([output.output.image_url]);
    expect(await decodeDataUrl(output.output.image_url)).toMatchObject({ mime: 'image/png', width: 1280, height: 800 });
  });

  it('answers a computer call without safety checks without acknowledging any', async () => {
    const { url, requests } = await serve({ responseOutput: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'All backups are deleted.' }] }] });
    const reply = JSON.stringify({
      id: 'resp_prev',
      output: [{ type: 'computer_call', call_id: 'call_Z', action: { type: 'screenshot' }, pending_safety_checks: [] }],
    });
    const history = [step({ step: 1, actions: [{ type: 'screenshot' }], results: 'looked', reply })];
    const prediction = await predictOk(cua(url), await input({ history }));
    expect(prediction.actions).toEqual([{ type: 'finished', summary: 'All backups are deleted.' }]);
    const body = requests[0]?.body;
    expect(body.previous_response_id).toBe('resp_prev');
    expect(body.input[0].call_id).toBe('call_Z');
    expect(body.input[0].acknowledged_safety_checks).toBeUndefined();
  });

  it('continues after a question with the user answer and a new screenshot', async () => {
    const { url, requests } = await serve({ responseOutput: [{ type: 'computer_call', call_id: 'c1', action: { type: 'wait' }, pending_safety_checks: [] }] });
    const reply = JSON.stringify({ id: 'resp_q', output: [{ type: 'message', content: [{ type: 'output_text', text: 'Which folder?' }] }] });
    const history = [step({ step: 1, actions: [{ type: 'finished', summary: 'Which folder?' }], results: '', reply })];
    await predictOk(cua(url), await input({ history, feedback: 'The user answered: the D: drive.' }));
    const body = requests[0]?.body;
    expect(body.previous_response_id).toBe('resp_q');
    expect(body.input[0].content[0]).toEqual({ type: 'input_text', text: 'The user answered: the D: drive.' });
    expect(imagesIn(body)).toHaveLength(1);
  });

  it('ends the run on a refusal', async () => {
    const { url } = await serve({
      responseOutput: [{ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot delete system files.' }] }],
    });
    const prediction = await predictOk(cua(url), await input());
    expect(prediction.refusal).toBe('I cannot delete system files.');
    expect(prediction.actions).toEqual([{ type: 'fail', reason: 'I cannot delete system files.' }]);
  });

  it('starts a new response with the history as text when no reply was kept', async () => {
    const { url, requests } = await serve({ responseOutput: [{ type: 'computer_call', call_id: 'c1', action: { type: 'wait' }, pending_safety_checks: [] }] });
    const history = [step({ step: 1, thought: 'Open it.', actions: [{ type: 'double_click', x: 5, y: 6, button: 'left' }], results: 'double-clicked' })];
    await predictOk(cua(url), await input({ history }));
    const body = requests[0]?.body;
    expect(body.previous_response_id).toBeUndefined();
    expect(body.input[0].content[0].text).toContain('Step 1: Open it.');
    expect(body.input[0].content[0].text).toContain('Result: double-clicked');
  });

  it('returns a parse failure for an unknown action or a point off the display', async () => {
    const { url } = await serve(
      { responseOutput: [{ type: 'computer_call', call_id: 'c1', action: { type: 'teleport' }, pending_safety_checks: [] }] },
      { responseOutput: [{ type: 'computer_call', call_id: 'c2', action: { type: 'click', x: 2000, y: 10 }, pending_safety_checks: [] }] },
      { responseOutput: [] },
    );
    const model = cua(url);
    const unknown = await model.predict(await input());
    const outside = await model.predict(await input());
    const empty = await model.predict(await input());
    expect(unknown).toMatchObject({ ok: false, error: { kind: 'parse', message: 'unknown action "teleport"' } });
    expect(outside).toMatchObject({ ok: false, error: { kind: 'parse', message: 'coordinates (2000, 10) outside the 1280x800 image' } });
    expect(empty).toMatchObject({ ok: false, error: { kind: 'parse', message: 'no action in the reply' } });
    if (!unknown.ok) expect(JSON.parse(unknown.error.raw as string).output[0].action.type).toBe('teleport');
  });
});
