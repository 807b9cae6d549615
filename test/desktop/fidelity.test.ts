/**
 * Action fidelity: every action kind of the action space, executed by Mnemo's operator with real
 * nut-js input on a real X display, checked where it lands — the instrumented page in kiosk
 * Chromium reports what it received, the xterm runs what was typed.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { imageFrame } from '../../src/main/operator/geometry';
import { launchXterm, type Xterm } from '../fixtures/desktop/xterm';
import { failureScreenshot, runX } from '../fixtures/desktop/display';
import { centreOf, sliderPoint, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { openOperatorOnPage, type OperatorOnPage } from '../fixtures/desktop/operator-page';

let page: OperatorOnPage;

const PAD_POINTS = [
  { x: 150, y: 90 },
  { x: 349, y: 211 },
  { x: 560, y: 340 },
];

beforeAll(async () => {
  page = await openOperatorOnPage();
});

afterAll(async () => {
  await page?.close();
});

beforeEach(({ task, onTestFailed }) => {
  onTestFailed(async () => {
    await failureScreenshot(page.display, `fidelity-${task.name}`);
  });
});

describe('on the instrumented page', () => {
  beforeEach(async () => {
    await page.reset();
  });

  it('click reaches the right element at the right position', async () => {
    for (const id of ['btn-tl', 'btn-tr', 'btn-bl', 'btn-br', 'btn-center'] as const) {
      const point = centreOf(TARGET_LAYOUT[id]);
      await page.actOk({ type: 'click', ...point });
      const click = await page.server.waitForType('click', (e) => e.target === id);
      expect(click).toMatchObject({ button: 0, detail: 1, clientX: point.x, clientY: point.y });
    }
    for (const point of PAD_POINTS) {
      await page.actOk({ type: 'click', ...point });
      await page.server.waitForType('click', (e) => e.target === 'pad' && e.clientX === point.x && e.clientY === point.y);
    }
  });

  it('click with the right and middle buttons', async () => {
    const [first, second] = PAD_POINTS as [{ x: number; y: number }, { x: number; y: number }];
    await page.actOk({ type: 'click', ...first, button: 'right' });
    const right = await page.server.waitForType('mousedown', (e) => e.target === 'pad' && e.button === 2);
    expect(right).toMatchObject({ clientX: first.x, clientY: first.y });
    await page.server.waitForType('contextmenu', (e) => e.clientX === first.x && e.clientY === first.y);
    await page.actOk({ type: 'click', ...second, button: 'middle' });
    const middle = await page.server.waitForType('auxclick', (e) => e.button === 1);
    expect(middle).toMatchObject({ target: 'pad', clientX: second.x, clientY: second.y });
    expect(page.server.events().filter((e) => e.type === 'click')).toEqual([]);
  });

  it('click with modifiers holds them during the click only', async () => {
    await page.actOk({ type: 'click', x: 300, y: 150, modifiers: ['shift'] });
    expect(await page.server.waitForType('click', (e) => e.clientX === 300)).toMatchObject({ shiftKey: true, ctrlKey: false, altKey: false });
    await page.actOk({ type: 'click', x: 310, y: 150, modifiers: ['ctrl', 'alt'] });
    expect(await page.server.waitForType('click', (e) => e.clientX === 310)).toMatchObject({ shiftKey: false, ctrlKey: true, altKey: true });
    await page.actOk({ type: 'click', x: 320, y: 150 });
    expect(await page.server.waitForType('click', (e) => e.clientX === 320)).toMatchObject({ shiftKey: false, ctrlKey: false, altKey: false });
  });

  it('double_click and triple_click', async () => {
    for (const point of PAD_POINTS) {
      await page.actOk({ type: 'double_click', ...point });
      await page.server.waitForType('dblclick', (e) => e.target === 'pad' && e.clientX === point.x && e.clientY === point.y && e.detail === 2);
    }
    await page.actOk({ type: 'triple_click', x: 400, y: 300 });
    await page.server.waitForType('mousedown', (e) => e.target === 'pad' && e.detail === 3 && e.clientX === 400 && e.clientY === 300);
    // In a field, a triple click selects the whole line.
    await page.server.setValue('field', 'three words here');
    const since = page.server.mark();
    await page.actOk({ type: 'triple_click', x: 760, y: 86 });
    await page.server.waitForType('selection', (e) => e.target === 'field' && e.selectionStart === 0 && e.selectionEnd === 16, { since });
  });

  it('mouse_move arrives at each position', async () => {
    for (const point of PAD_POINTS) {
      await page.actOk({ type: 'mouse_move', ...point });
      await page.server.waitForType('mousemove', (e) => e.target === 'pad' && e.clientX === point.x && e.clientY === point.y);
    }
  });

  it('mouse_down and mouse_up press and release where asked', async () => {
    await page.actOk({ type: 'mouse_down', x: 200, y: 100 });
    await page.server.waitForType('mousedown', (e) => e.clientX === 200 && e.clientY === 100 && e.button === 0);
    await page.actOk({ type: 'mouse_up', x: 260, y: 180 });
    await page.server.waitForType('mouseup', (e) => e.clientX === 260 && e.clientY === 180 && e.button === 0);
    await page.actOk({ type: 'mouse_down', x: 220, y: 120, button: 'right' });
    await page.server.waitForType('mousedown', (e) => e.clientX === 220 && e.button === 2);
    await page.actOk({ type: 'mouse_up', button: 'right' });
    await page.server.waitForType('mouseup', (e) => e.clientX === 220 && e.button === 2);
  });

  it('drag moves the slider, with end points and with a path', async () => {
    expect((await page.server.state()).slider.value).toBe(50);
    const from = sliderPoint(50);
    const to = sliderPoint(80);
    await page.actOk({ type: 'drag', x: from.x, y: from.y, toX: to.x, toY: to.y });
    await page.server.waitForType('change', (e) => e.target === 'slider' && e.value === '80');
    // Through a detour: past the end, back to 20.
    const path = [sliderPoint(80), { x: sliderPoint(95).x, y: 440 }, sliderPoint(60), sliderPoint(20)];
    await page.actOk({ type: 'drag', path });
    await page.server.waitForType('change', (e) => e.target === 'slider' && e.value === '20');
    const inputs = page.server.events().filter((e) => e.type === 'input' && e.target === 'slider');
    // The target saw the motion in between, not a jump.
    expect(inputs.length).toBeGreaterThan(4);
  });

  it('scroll moves the page in each direction', async () => {
    const inScroller = centreOf(TARGET_LAYOUT.scroller);
    await page.actOk({ type: 'scroll', ...inScroller, direction: 'down', amount: 3 });
    await page.server.waitForType('scroll', (e) => e.scrollTop === 360 && e.scrollLeft === 0);
    await page.actOk({ type: 'scroll', ...inScroller, direction: 'up', amount: 1 });
    await page.server.waitForType('scroll', (e) => e.scrollTop === 240 && e.scrollLeft === 0);
    await page.actOk({ type: 'scroll', ...inScroller, direction: 'right', amount: 2 });
    await page.server.waitForType('scroll', (e) => e.scrollTop === 240 && e.scrollLeft === 240);
    await page.actOk({ type: 'scroll', ...inScroller, direction: 'left', amount: 1 });
    await page.server.waitForType('scroll', (e) => e.scrollTop === 240 && e.scrollLeft === 120);
  });

  const typingCases: Array<[string, string, 'field' | 'area']> = [
    ['lower and upper case, digits', 'Hello World 0123456789 abcXYZ', 'field'],
    ['every shifted symbol', '! @ # $ % ^ & * _ + { } | : " < > ? ~ ( )', 'field'],
    ['every unshifted symbol', "` - = [ ] \\ ; ' , . /", 'field'],
    ['accents', 'Crème brûlée, naïve façade, Ångström, Ærø, ñandú', 'field'],
    ['CJK', '漢字かなカナ한국어 中文输入', 'field'],
    ['emoji', 'ok 🎉👍🏽 🇫🇷 done', 'field'],
    ['newlines', 'line one\nline two\n\nline four: ünïcödé ✓', 'area'],
  ];
  for (const [name, text, target] of typingCases) {
    it(`type: ${name}`, async () => {
      await page.actOk({ type: 'click', ...centreOf(TARGET_LAYOUT[target]) });
      await page.server.waitForType('focusin', (e) => e.target === target);
      await page.actOk({ type: 'type', text });
      await expect.poll(async () => (await page.server.state())[target].value, { timeout: 30_000 }).toBe(text);
    });
  }

  it('type restores the clipboard it borrowed', async () => {
    await runX(page.display, 'sh', ['-c', 'printf "the user\'s clipboard" | xsel --clipboard --input']);
    await page.actOk({ type: 'click', ...centreOf(TARGET_LAYOUT.field) });
    await page.server.waitForType('focusin', (e) => e.target === 'field');
    await page.actOk({ type: 'type', text: 'café ☕' });
    await expect.poll(async () => (await page.server.state()).field.value, { timeout: 30_000 }).toBe('café ☕');
    expect(await runX(page.display, 'xsel', ['--clipboard', '--output'])).toBe("the user's clipboard");
  });

  it('type loses nothing when the browser stalls past the old settle delay, and still restores the clipboard', async () => {
    await runX(page.display, 'sh', ['-c', 'printf "before the stall" | xsel --clipboard --input']);
    await page.actOk({ type: 'click', ...centreOf(TARGET_LAYOUT.field) });
    await page.server.waitForType('focusin', (e) => e.target === 'field');
    const text = 'ab漢字cd中文';
    // The browser process stops (its X events queue up) for four times the 150 ms the paste used
    // to wait before restoring the clipboard: a deliberate stall, as a busy machine makes one.
    process.kill(page.kiosk.pid, 'SIGSTOP');
    let typed;
    try {
      typed = page.act({ type: 'type', text });
      await new Promise((resolve) => setTimeout(resolve, 600));
    } finally {
      process.kill(page.kiosk.pid, 'SIGCONT');
    }
    expect(await typed).toMatchObject({ ok: true });
    await expect.poll(async () => (await page.server.state()).field.value, { timeout: 30_000 }).toBe(text);
    expect(await runX(page.display, 'xsel', ['--clipboard', '--output'])).toBe('before the stall');
  });

  it('hotkey ctrl+a (and cmd+a) selects all', async () => {
    for (const keys of [['ctrl', 'a'], ['cmd', 'A'], ['Control', 'a']]) {
      await page.server.setValue('field', 'select me entirely');
      // Focus without input: repeated clicks here would add up to a triple click, which selects too.
      const before = await page.server.focus('field');
      expect(before.field.selectionEnd! - before.field.selectionStart!).toBe(0);
      const since = page.server.mark();
      await page.actOk({ type: 'hotkey', keys });
      await page.server.waitForType('selection', (e) => e.target === 'field' && e.selectionStart === 0 && e.selectionEnd === 18, { since });
      await page.server.reset();
      page.server.clear();
    }
  });

  it('hotkey with a shifted symbol and named keys', async () => {
    await page.actOk({ type: 'click', ...centreOf(TARGET_LAYOUT.field) });
    await page.server.waitForType('focusin', (e) => e.target === 'field');
    await page.actOk({ type: 'type', text: 'abc' });
    await page.actOk({ type: 'hotkey', keys: ['shift', '1'] });
    await page.actOk({ type: 'hotkey', keys: ['left'] });
    await page.actOk({ type: 'hotkey', keys: ['backspace'] });
    await page.actOk({ type: 'hotkey', keys: ['home'] });
    await page.actOk({ type: 'hotkey', keys: ['delete'] });
    await expect.poll(async () => (await page.server.state()).field.value, { timeout: 30_000 }).toBe('b!');
  });

  it('key_down / key_up hold a modifier across a click', async () => {
    await page.actOk({ type: 'key_down', keys: ['shift'] });
    await page.actOk({ type: 'click', x: 250, y: 250 });
    expect(await page.server.waitForType('click', (e) => e.clientX === 250)).toMatchObject({ shiftKey: true });
    await page.actOk({ type: 'key_up', keys: ['shift'] });
    await page.actOk({ type: 'click', x: 260, y: 250 });
    expect(await page.server.waitForType('click', (e) => e.clientX === 260)).toMatchObject({ shiftKey: false });
  });

  it('wait waits, screenshot and control actions touch nothing', async () => {
    const started = Date.now();
    await page.actOk({ type: 'wait', ms: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    for (const action of [{ type: 'screenshot' }, { type: 'finished', summary: 'x' }, { type: 'ask_user', question: 'y' }, { type: 'fail', reason: 'z' }] as const) {
      await page.actOk(action);
    }
    await page.server.settle(150);
    expect(page.server.events().filter((e) => /^(mouse|click|key|input)/.test(e.type))).toEqual([]);
  });

  it('model-image coordinates land on the same spot at any image size', async () => {
    for (const size of [
      { width: 640, height: 400 },
      { width: 1000, height: 625 },
      { width: 1920, height: 1200 },
    ]) {
      const frame = imageFrame(page.screen.bounds, size);
      const target = centreOf(TARGET_LAYOUT['btn-center']);
      const image = { x: (target.x * size.width) / page.screen.bounds.width, y: (target.y * size.height) / page.screen.bounds.height };
      await page.actOk({ type: 'click', ...image }, frame);
      const click = await page.server.waitForType('click', (e) => e.target === 'btn-center');
      expect(Math.abs(click.clientX - target.x)).toBeLessThanOrEqual(Math.ceil(page.screen.bounds.width / size.width));
      page.server.clear();
    }
  });

  it('a point outside the image is refused and nothing is clicked', async () => {
    const frame = imageFrame(page.screen.bounds, { width: 640, height: 400 });
    for (const point of [
      { x: 641, y: 10 },
      { x: -1, y: 10 },
      { x: 10, y: 4000 },
    ]) {
      const result = await page.act({ type: 'click', ...point }, frame);
      expect(result).toMatchObject({ ok: false, error: { kind: 'out_of_bounds' } });
    }
    const dragOut = await page.act({ type: 'drag', x: 10, y: 10, toX: 700, toY: 10 }, frame);
    expect(dragOut).toMatchObject({ ok: false, error: { kind: 'out_of_bounds' } });
    await page.server.settle(200);
    expect(page.server.events().filter((e) => e.type === 'mousedown' || e.type === 'click')).toEqual([]);
  });

  it('fail-safe: the mouse in the top-left corner refuses every action until reset', async () => {
    await page.actOk({ type: 'mouse_move', x: 1, y: 1 });
    const refused = await page.act({ type: 'click', x: 300, y: 200 });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'user_abort' } });
    // Still refused after the mouse leaves the corner: the latch holds until reset.
    await runX(page.display, 'xdotool', ['mousemove', '600', '600']);
    expect(await page.act({ type: 'type', text: 'x' })).toMatchObject({ ok: false, error: { kind: 'user_abort' } });
    await page.server.settle(200);
    expect(page.server.events().filter((e) => e.type === 'click' || e.type === 'input')).toEqual([]);
    page.operator.resetFailSafe();
    await page.actOk({ type: 'click', x: 300, y: 200 });
    await page.server.waitForType('click', (e) => e.clientX === 300 && e.clientY === 200);
  });
});

describe('in an xterm', () => {
  let xterm: Xterm;
  const file = join(tmpdir(), `mnemo-fidelity-${randomUUID()}`);

  beforeAll(async () => {
    xterm = await launchXterm({ display: page.display });
  });
  afterAll(async () => {
    await xterm?.close();
    rmSync(file, { force: true });
  });

  it('types and runs a shell command with symbols exactly', async () => {
    await runX(page.display, 'xdotool', ['mousemove', '640', '600']);
    page.operator.resetFailSafe();
    await xterm.focus();
    const before = xterm.prompts();
    const payload = `a!b@c#d$e%f^g&h*i(j)k_l+m{n}o|p:q"r<s>t?u~v\`w`;
    await page.actOk({ type: 'type', text: `printf '%s' '${payload}' > ${file}\n` });
    expect(await xterm.waitForPrompt(before)).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(payload);
  });
});
