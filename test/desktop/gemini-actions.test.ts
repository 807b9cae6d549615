/**
 * Gemini computer use on the real display: the DeviceAgent with the real desktop operator, the
 * `gemini` model through the official SDK against the scripted Gemini server, and the
 * instrumented page in kiosk Chromium reporting what it received. The 1280x800 screen is sent as
 * 960x600 images and the scripted model answers on the 0–999 grid, so every point crosses two
 * mappings (grid → image → screen) before it lands.
 *
 * Each function that acts is run and checked where it lands (click_at, type_text_at with
 * press_enter and clear_before_typing, key_combination, scroll_at, drag_and_drop); the next
 * request is read to see every call answered in order with the new screenshot; a call with a
 * safety decision runs only after the user's yes, and is acknowledged in the next request.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventOf } from '../../src/shared/events';
import { ModelSettingsSchema } from '../../src/shared/settings';
import { createVisionModel } from '../../src/main/model';
import { GEMINI_DESKTOP_URL } from '../../src/main/model/families';
import { FileRunRecorder } from '../../src/main/store/run-recorder';
import { DeviceAgent, type AskRequest } from '../../src/main/agent/device-agent';
import { contentsOf, functionResponsesIn, startGeminiServer, type GeminiReplies, type GeminiServer } from '../fixtures/gemini-server';
import { useDeskOperator } from '../fixtures/desktop/desk-operator';
import { decodeDataUrl } from '../fixtures/openai-server';
import { adoptDisplay, xdotool } from '../fixtures/desktop/display';
import { screenshotOnFailure, useKioskPage } from '../fixtures/desktop/kiosk-page';
import { centreOf, sliderPoint, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { runContext } from '../fixtures/run-context';

// nut-js reads DISPLAY when it loads: the operator below acts on the test display.
const display = adoptDisplay();
const page = useKioskPage();
screenshotOnFailure(page, 'gemini-actions');

const SCREEN = { width: 1280, height: 800 };
const IMAGE = { width: 960, height: 600 };
/** What a Gemini model looking at the screen answers for a screen point: its 0–999 grid cell. */
const grid = (p: { x: number; y: number }) => ({ x: Math.round((p.x * 1000) / SCREEN.width), y: Math.round((p.y * 1000) / SCREEN.height) });
const MODEL = 'gemini-2.5-computer-use-preview-10-2025';

const desk = useDeskOperator('gemini-actions', { maxWidth: IMAGE.width });

beforeEach(async () => {
  await xdotool(display, ['mousemove', '640', '760']);
  await page.kiosk.focus();
  await page.server.reset();
  page.server.clear();
});

interface Run {
  events: AgentEvent[];
  end: AgentEventOf<'run-finished'>;
  server: GeminiServer;
  asked: AskRequest[];
}

async function runGemini(replies: GeminiReplies, answer: (request: AskRequest) => string | null = () => null): Promise<Run> {
  const server = desk.track(await startGeminiServer({ replies, apiKey: 'AIza-desktop' }));
  const model = createVisionModel(ModelSettingsSchema.parse({ baseUrl: server.url, model: MODEL, family: 'gemini', apiKey: 'AIza-desktop', timeoutMs: 15_000, maxRetries: 0 }));
  const recorder = await FileRunRecorder.create(desk.dataDir(), { task: 'the scripted task', model: MODEL, family: 'gemini' });
  const asked: AskRequest[] = [];
  const agent = new DeviceAgent(
    { model },
    {
      settle: { intervalMs: 50, timeoutMs: 1000, threshold: 0.003 },
      capture: { maxWidth: IMAGE.width, format: 'jpeg', quality: 70 },
      limits: { maxSteps: 8, maxCostUsd: null, maxConsecutiveErrors: 2, maxParseRetries: 1 },
    },
  );
  const events: AgentEvent[] = [];
  for await (const event of agent.run(
    'the scripted task',
    runContext({
      operator: desk.operator,
      recorder,
      askUser: async (request) => {
        asked.push(request);
        return answer(request);
      },
    }),
  )) events.push(event);
  const end = events.at(-1);
  if (end?.type !== 'run-finished') throw new Error('the run did not end with run-finished');
  return { events, end, server, asked };
}

const done = { text: 'Done.' };

describe('each function that acts, on the real display', () => {
  it('click_at: the grid point lands on the button', async () => {
    const button = grid(centreOf(TARGET_LAYOUT['btn-center']));
    const run = await runGemini([{ thought: 'The button is in the middle.', calls: [{ name: 'click_at', args: button }] }, { text: 'The button is clicked.' }]);
    expect(run.end).toMatchObject({ status: 'finished', summary: 'The button is clicked.', steps: 2 });
    const click = await page.server.waitForType('click', (e) => e.target === 'btn-center');
    const target = centreOf(TARGET_LAYOUT['btn-center']);
    expect(Math.abs(click.clientX - target.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(click.clientY - target.y)).toBeLessThanOrEqual(2);
  });

  it('type_text_at clears the field and presses Enter when asked, and keeps the text with clear_before_typing false', async () => {
    await page.server.setValue('field', 'old text');
    await page.server.setValue('area', 'Note: ');
    const run = await runGemini([
      { calls: [{ name: 'type_text_at', args: { ...grid(centreOf(TARGET_LAYOUT.field)), text: 'Ada Lovelace', press_enter: true } }] },
      { calls: [{ name: 'type_text_at', args: { ...grid(centreOf(TARGET_LAYOUT.area)), text: 'kept', clear_before_typing: false } }] },
      done,
    ]);
    expect(run.end).toMatchObject({ status: 'finished', steps: 3 });
    const state = await page.server.state();
    expect(state.field.value).toBe('Ada Lovelace');
    expect(state.area.value).toBe('Note: kept');
    await page.server.waitForType('keydown', (e) => e.target === 'field' && e.key === 'Enter');
  });

  it('key_combination, and every call of a reply answered in order with the new screenshot', async () => {
    await page.server.setValue('field', 'hello');
    const run = await runGemini([
      {
        thought: 'Empty the field.',
        calls: [
          { name: 'click_at', args: grid(centreOf(TARGET_LAYOUT.field)), id: 'a' },
          { name: 'key_combination', args: { keys: 'Control+a' }, id: 'b' },
          { name: 'key_combination', args: { keys: 'BackSpace' }, id: 'c' },
        ],
      },
      done,
    ]);
    expect(run.end).toMatchObject({ status: 'finished' });
    expect((await page.server.state()).field.value).toBe('');
    await page.server.waitForType('keydown', (e) => e.target === 'field' && e.key === 'a' && e.ctrlKey);

    const second = run.server.requests[1]!;
    const contents = contentsOf(second);
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(contents[1]?.parts?.[0]).toMatchObject({ text: 'Empty the field.', thought: true, thoughtSignature: 'sig-0' });
    const responses = functionResponsesIn(contents[2]);
    expect(responses.map(({ name, id, response }) => ({ name, id, response }))).toEqual([
      { name: 'click_at', id: 'a', response: { url: GEMINI_DESKTOP_URL } },
      { name: 'key_combination', id: 'b', response: { url: GEMINI_DESKTOP_URL } },
      { name: 'key_combination', id: 'c', response: { url: GEMINI_DESKTOP_URL } },
    ]);
    // The screenshot taken after the step, the one step 2 was given: the image the model sees next.
    const observations = run.events.filter((e): e is AgentEventOf<'observation'> => e.type === 'observation');
    expect(observations).toHaveLength(2);
    for (const response of responses) {
      expect(response.images).toHaveLength(1);
      expect(await decodeDataUrl(response.images[0]!)).toMatchObject({ width: IMAGE.width, height: IMAGE.height });
      expect(response.images[0]).toBe(responses[0]?.images[0]);
    }
  });

  it('scroll_at scrolls the box under the point, by the magnitude asked', async () => {
    const at = grid(centreOf(TARGET_LAYOUT.scroller));
    const run = await runGemini([{ calls: [{ name: 'scroll_at', args: { ...at, direction: 'down', magnitude: 300 } }] }, done]);
    expect(run.end).toMatchObject({ status: 'finished' });
    // The grid point on the 960x600 image; 300 of 1000 of its 600 pixels is 180: 2 notches of 100.
    const scroll = { type: 'scroll', x: (at.x * IMAGE.width) / 1000, y: (at.y * IMAGE.height) / 1000, direction: 'down', amount: 2 };
    expect(run.events.find((e): e is AgentEventOf<'prediction'> => e.type === 'prediction')?.actions).toEqual([scroll]);
    const scrolled = await page.server.waitForType('scroll', (e) => e.target === 'scroller' && e.scrollTop > 0);
    expect(scrolled.scrollTop).toBeGreaterThan(0);
  });

  it('drag_and_drop moves the slider from 50 to 80', async () => {
    expect((await page.server.state()).slider.value).toBe(50);
    const run = await runGemini([{ calls: [{ name: 'drag_and_drop', args: { ...grid(sliderPoint(50)), destination_x: grid(sliderPoint(80)).x, destination_y: grid(sliderPoint(80)).y } }] }, done]);
    expect(run.end).toMatchObject({ status: 'finished' });
    await page.server.waitForType('change', (e) => e.target === 'slider' && e.value === '80');
  });
});

describe('a safety decision that requires confirmation', () => {
  const decision = { decision: 'require_confirmation', explanation: 'The button may send the form to a third party.' };
  const flagged = () => ({ calls: [{ name: 'click_at', args: { ...grid(centreOf(TARGET_LAYOUT['btn-center'])), safety_decision: decision }, id: 'flagged' }] });

  it('is put to the user; after a yes the click runs and the next request acknowledges it', async () => {
    const run = await runGemini([flagged(), done], () => 'yes');
    expect(run.asked).toHaveLength(1);
    expect(run.asked[0]).toMatchObject({ kind: 'safety_check', question: expect.stringContaining('The button may send the form to a third party.'), action: { type: 'click' } });
    expect(run.end).toMatchObject({ status: 'finished' });
    await page.server.waitForType('click', (e) => e.target === 'btn-center');
    expect(functionResponsesIn(contentsOf(run.server.requests[1]!)[2])).toEqual([{ name: 'click_at', id: 'flagged', response: { url: GEMINI_DESKTOP_URL, safety_acknowledgement: 'true' }, images: [expect.stringMatching(/^data:image\/jpeg;base64,/)] }]);
  });

  it('after a no, nothing runs and the run ends refused', async () => {
    const run = await runGemini([flagged(), done], () => 'no');
    expect(run.end).toMatchObject({ status: 'refused', reason: expect.stringContaining('did not acknowledge the safety check') });
    expect(run.server.requests).toHaveLength(1);
    await page.server.settle(300);
    expect(page.server.events().filter((e) => e.type === 'mousedown' || e.type === 'click')).toEqual([]);
  });
});
