/**
 * The `ui-tars` family end to end: coordinates of UI-TARS-1.0 (0–1000) and 1.5 (pixels of the
 * smart-resized image) mapped back onto the screenshot sent; the Thought streamed as it arrives.
 */
import { describe, expect, it } from 'vitest';
import { createVisionModel, type PredictInput } from '../../../src/main/model';
import { smartResize } from '../../../src/main/model/families';
import { formatUiTarsAction, uiTarsTurn, visibleUiTarsThought } from '../../../src/main/model/ui-tars-model';
import { decodeDataUrl, imagesIn } from '../../fixtures/openai-server';
import { predictOk, screenshot, settingsFor, step, thoughtLog, scriptedServerPerTest } from './helpers';

const serve = scriptedServerPerTest();

async function input(overrides: Partial<PredictInput> = {}): Promise<PredictInput> {
  return { task: 'Open the File menu', history: [], observation: await screenshot(1280, 800), ...overrides };
}

const uiTars = (url: string, version: '1.0' | '1.5') =>
  createVisionModel(settingsFor(url, { family: 'ui-tars', model: 'ui-tars-1.5-7b', modelVersion: version }));

describe('ui-tars family', () => {
  it('1.0: maps 0–1000 relative coordinates onto the screenshot and streams the Thought only', async () => {
    const { url, requests } = await serve({
      text: "Thought: The File menu is at the top left; I will open it.\nAction: click(start_box='(500,250)')",
      chunkSize: 3,
    });
    const thoughts = thoughtLog();
    const prediction = await predictOk(uiTars(url, '1.0'), await input(), undefined, thoughts.listener);
    expect(prediction.actions).toEqual([{ type: 'click', x: 640, y: 200, button: 'left' }]);
    expect(prediction.thought).toBe('The File menu is at the top left; I will open it.');
    expect(thoughts.text()).toBe(prediction.thought);
    expect(thoughts.deltas.length).toBeGreaterThan(5);
    expect(thoughts.deltas.some((entry) => /Action|click/.test(entry.delta))).toBe(false);
    expect(prediction.raw).toBe("Thought: The File menu is at the top left; I will open it.\nAction: click(start_box='(500,250)')");
    expect(prediction.extras).toEqual({
      family: 'ui-tars',
      version: '1.0',
      modelImage: { width: 1280, height: 800 },
      reflection: null,
      actionSummary: null,
    });

    const body = requests[0]?.body;
    expect(body.tools).toBeUndefined();
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0].role).toBe('user');
    expect(body.messages[0].content[0].text).toContain('## Action Space');
    expect(body.messages[0].content[0].text).toMatch(/## User Instruction\nOpen the File menu$/);
    const images = imagesIn(body);
    expect(images).toHaveLength(1);
    expect(await decodeDataUrl(images[0] as string)).toMatchObject({ width: 1280, height: 800 });
  });

  it('1.5: reads pixels of the smart-resized image and maps them back onto the screenshot sent', async () => {
    const resized = smartResize(1280, 800);
    expect(resized).toEqual({ width: 1288, height: 812 });
    const { url, requests } = await serve({
      text: "Thought: Drag the slider.\nAction: drag(start_box='<|box_start|>(644,406)<|box_end|>', end_box='<|box_start|>(1288,0)<|box_end|>')",
    });
    const prediction = await predictOk(uiTars(url, '1.5'), await input());
    expect(prediction.actions).toHaveLength(1);
    const drag = prediction.actions[0];
    if (drag?.type !== 'drag') throw new Error('expected a drag');
    expect(drag.x).toBeCloseTo(640, 6);
    expect(drag.y).toBeCloseTo(400, 6);
    expect(drag.toX).toBeCloseTo(1280, 6);
    expect(drag.toY).toBe(0);
    expect(prediction.extras).toMatchObject({ family: 'ui-tars', version: '1.5', modelImage: resized });
    // The screenshot goes as it is: the server does the resize, as UI-TARS-1.5 was trained.
    expect(await decodeDataUrl(imagesIn(requests[0]?.body)[0] as string)).toMatchObject({ width: 1280, height: 800 });
  });

  it('1.5: refuses coordinates outside the resized image', async () => {
    const { url } = await serve({ text: "Thought: x\nAction: click(start_box='(1300,100)')" });
    const prediction = await uiTars(url, '1.5').predict(await input());
    expect(prediction.ok).toBe(false);
    if (prediction.ok) return;
    expect(prediction.error).toMatchObject({ kind: 'parse', raw: "Thought: x\nAction: click(start_box='(1300,100)')" });
    expect(prediction.error.message).toContain('outside the 1288x812 image');
  });

  it('replays history as screenshots and replies, writing the turn when no reply was kept', async () => {
    const { url, requests } = await serve({ text: "Thought: Done.\nAction: finished(content='opened')" });
    const history = [
      step({ step: 1, thought: 'Hover first.', actions: [{ type: 'mouse_move', x: 640, y: 400 }], results: 'moved' }),
      step({
        step: 2,
        thought: 'Open it.',
        actions: [{ type: 'click', x: 64, y: 16, button: 'left' }],
        results: 'clicked',
        screenshot: await screenshot(1280, 800),
        reply: "Thought: Open it.\nAction: click(start_box='(50,20)')",
      }),
    ];
    const prediction = await predictOk(uiTars(url, '1.0'), await input({ history, feedback: 'The menu may take a second.' }));
    expect(prediction.actions).toEqual([{ type: 'finished', summary: 'opened' }]);
    const messages = requests[0]?.body.messages as { role: string; content: unknown }[];
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(JSON.stringify(messages[0]?.content)).toContain('[Screenshot removed - Step 1]');
    expect(messages[1]?.content).toBe("Thought: Hover first.\nAction: hover(start_box='<|box_start|>(500,500)<|box_end|>')");
    expect(messages[3]?.content).toBe("Thought: Open it.\nAction: click(start_box='(50,20)')");
    expect(JSON.stringify(messages[4]?.content)).toContain('The menu may take a second.');
    expect(imagesIn(requests[0]?.body)).toHaveLength(2);
  });

  const malformed: { name: string; reply: string; reason: RegExp }[] = [
    { name: 'an unknown action', reply: "Thought: tap it\nAction: tap(start_box='(10,10)')", reason: /unknown action "tap"/ },
    { name: 'an empty reply', reply: '', reason: /no action in the reply/ },
    { name: 'relative coordinates beyond 1000', reply: "Thought: t\nAction: click(start_box='(1200,10)')", reason: /outside the 1000x1000 relative range/ },
    { name: 'a call left open', reply: "Thought: t\nAction: click(start_box='(10,10)'", reason: /unclosed call/ },
  ];
  for (const { name, reply, reason } of malformed) {
    it(`returns a parse failure with the raw reply for ${name}`, async () => {
      const { url } = await serve({ text: reply });
      const prediction = await uiTars(url, '1.0').predict(await input());
      if (prediction.ok) throw new Error('expected a parse failure');
      expect(prediction.error.kind).toBe('parse');
      expect(prediction.error.raw).toBe(reply);
      expect(prediction.error.message).toMatch(reason);
    });
  }
});

describe('visibleUiTarsThought', () => {
  it('shows the Thought section only, holding back a header that is still arriving', () => {
    expect(visibleUiTarsThought('Thou')).toBe('');
    expect(visibleUiTarsThought('Thought: open the')).toBe('open the');
    expect(visibleUiTarsThought('Thought: open the menu.\nAct')).toBe('open the menu.');
    expect(visibleUiTarsThought('Thought: open the menu.\nAction: cli')).toBe('open the menu.');
    expect(visibleUiTarsThought('Thought: one line Action: click()')).toBe('one line');
  });
});

describe('formatUiTarsAction', () => {
  const identity = (point: { x: number; y: number }) => point;
  it('writes actions in UI-TARS syntax', () => {
    expect(formatUiTarsAction({ type: 'type', text: "it's\ndone" }, identity)).toBe("type(content='it\\'s\\ndone')");
    expect(formatUiTarsAction({ type: 'hotkey', keys: ['ctrl', 'c'] }, identity)).toBe("hotkey(key='ctrl c')");
    expect(formatUiTarsAction({ type: 'click', x: 1, y: 2, button: 'right' }, identity)).toBe(
      "right_single(start_box='<|box_start|>(1,2)<|box_end|>')",
    );
    expect(formatUiTarsAction({ type: 'scroll', direction: 'down', amount: 3 }, identity)).toBe("scroll(direction='down')");
    expect(formatUiTarsAction({ type: 'screenshot' }, identity)).toBeNull();
  });

  it('writes a 1.5 turn in smart-resized pixels', () => {
    const turn = uiTarsTurn(step({ step: 1, thought: 't', actions: [{ type: 'click', x: 640, y: 400, button: 'left' }] }), '1.5', {
      width: 1280,
      height: 800,
    });
    expect(turn).toBe("Thought: t\nAction: click(start_box='<|box_start|>(644,406)<|box_end|>')");
  });
});
