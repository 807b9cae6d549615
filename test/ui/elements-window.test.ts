/**
 * The elements in the window (issue 30, item 8), the built window (out/renderer) in Debian's
 * Chromium against a stand-in for `mnemo serve` on 127.0.0.1 that serves a run going on (its
 * events over SSE, a live frame of the elements form, `GET /api/runs/:id/elements` the form's
 * snapshot) and the settings (a save checked with the contract's own schema):
 * - the step inspector names the element each action hit and the read-back, a mismatch apart;
 * - "Outline elements" on the live view draws each element's box where the display has it, at a
 *   1280x800 and a 1920x1080 display;
 * - Settings has the elements aid with its cost in tokens, and saves it as model.elements.
 * Each view's picture goes to docs/screenshots/.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, send } from '../../src/main/http/http-io';
import { ensureRendererBuilt, rendererFile } from '../../src/main/server/renderer-files';
import { SaveSettingsSchema } from '../../src/shared/app-api';
import type { ElementSnapshot } from '../../src/shared/elements';
import { AgentEventSchema, type AgentEvent } from '../../src/shared/events';
import { CHROMIUM_EXECUTABLE, HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { formSnapshot } from '../fixtures/elements/form-snapshot';
import { fakeRunEvents } from '../fixtures/ui/fake-run';

const SCREENSHOTS = resolve(import.meta.dirname, '../../docs/screenshots');
const RUN_ID = 'elements-run';

/** A run of two steps going on: a click on Submit read back fine, a click on the box whose read-back did not match. */
function runEvents(): AgentEvent[] {
  const events = fakeRunEvents(2, { runId: RUN_ID }).map((event) => {
    if (event.type !== 'action-result') return event;
    const result = event.result as Record<string, unknown>;
    // The fake run's screen is 640x400 (the form at half size), its screenshot the same.
    if (event.step === 1) return { ...event, result: { ...result, element: { role: 'push button', name: 'Submit', n: 6, bounds: { x: 260, y: 150, width: 70, height: 22 } } } };
    return {
      ...event,
      result: {
        ...result,
        element: { role: 'check box', name: 'I agree', n: 5, bounds: { x: 30, y: 111, width: 9, height: 9 } },
        check: { kind: 'checked', ok: false, message: 'expected checked, found unchecked' },
      },
    };
  });
  return events.map((event) => AgentEventSchema.parse(event));
}

const record = runEvents();
const runState = { id: RUN_ID, kind: 'run', task: 'Fake task', paused: false, conversationId: null, pendingQuestion: null, status: 'running', desktop: { private: true, size: '1280x800', apps: [], display: ':201' } };
const baseConfig = { model: { baseUrl: 'http://127.0.0.1:1/v1', model: 'fake', family: 'tools' } };

/** What the stand-in serves and was sent: the display's size (live frame and snapshot), the settings saved. */
const state: { display: { width: number; height: number }; frame: Buffer | null; screenshot: Buffer | null; snapshot: ElementSnapshot; config: Record<string, unknown>; saves: unknown[] } = {
  display: { width: 1280, height: 800 },
  frame: null,
  screenshot: null,
  snapshot: formSnapshot(),
  config: baseConfig,
  saves: [],
};

/** A live frame of the form: each interactive element a grey box where the snapshot has it, on white. */
async function formFrame(snapshot: ElementSnapshot, size: { width: number; height: number }): Promise<Buffer> {
  const boxes = snapshot.elements.map(
    (element) => `<rect x="${element.bounds.x}" y="${element.bounds.y}" width="${element.bounds.width}" height="${element.bounds.height}" fill="${element.interactive ? '#d0d0d0' : '#eeeeee'}" stroke="#888"/>`,
  );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}"><rect width="100%" height="100%" fill="#fff"/>${boxes.join('')}</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
}

let server: Server;
let origin: string;
let browser: Browser;
const streams = new Set<ServerResponse>();
const pages: Page[] = [];

beforeAll(async () => {
  const built = await ensureRendererBuilt();
  if (!built.ok) throw new Error(built.message);
  state.frame = await formFrame(state.snapshot, state.display);
  // The steps' screenshots: the form at the fake run's 640x400.
  state.screenshot = await formFrame(formSnapshot({ width: 640, height: 400 }), { width: 640, height: 400 });
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (path === '/api/events') {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      streams.add(response);
      response.on('close', () => streams.delete(response));
      for (const event of record) response.write(`data: ${JSON.stringify(event)}\n\n`);
      return;
    }
    if (path === '/api/runs/current') return send(response, { status: 200, json: runState });
    if (path === '/api/runs') return send(response, { status: 200, json: [runState] });
    if (path === `/api/runs/${RUN_ID}/live`) return send(response, { status: 200, body: state.frame ?? Buffer.alloc(0), contentType: 'image/jpeg' });
    if (path === `/api/runs/${RUN_ID}/elements`) return send(response, { status: 200, json: state.snapshot });
    if (path === '/api/settings' && request.method === 'PUT') {
      void readJson(request).then((body) => {
        const save = SaveSettingsSchema.safeParse(body.ok ? body.value : undefined);
        if (!save.success) return send(response, { status: 400, json: { error: save.error.message, kind: 'invalid_request' } });
        state.saves.push(save.data);
        state.config = save.data.config as Record<string, unknown>;
        return send(response, { status: 200, json: settingsView() });
      });
      return;
    }
    if (path === '/api/settings') return send(response, { status: 200, json: settingsView() });
    if (path.startsWith(`/api/sessions/${RUN_ID}/files/screenshots/`)) return send(response, { status: 200, body: state.screenshot ?? Buffer.alloc(0), contentType: 'image/jpeg' });
    if (path === `/api/sessions/${RUN_ID}/events`) {
      const since = Number(url.searchParams.get('since') ?? '0');
      return send(response, { status: 200, json: record.filter((event) => event.seq > since) });
    }
    if (path.startsWith('/api/')) return send(response, { status: 404, json: { error: 'not in this stand-in', kind: 'not_found' } });
    void rendererFile(built.dir, path).then((reply) => send(response, reply));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: HEADLESS_CHROMIUM_ARGS });
});

afterAll(async () => {
  for (const page of pages) await page.close().catch(() => undefined);
  await browser?.close();
  for (const stream of streams) stream.end();
  await new Promise((closed) => (server ? server.close(closed) : closed(undefined)));
});

function settingsView() {
  return { config: state.config, hasApiKey: false, dataDir: '/tmp/fake', configPath: '/tmp/fake/config.json' };
}

async function openWindow(viewport: { width: number; height: number }): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport });
  pages.push(page);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    // The stand-in serves no session files (screenshots, replies): their 404s are not what this is about.
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) problems.push(message.text());
  });
  await page.goto(origin);
  return { page, problems };
}

describe('the elements in the window', () => {
  it('the step inspector names the element each action hit, and a read-back that did not match', async () => {
    const { page, problems } = await openWindow({ width: 1280, height: 800 });
    const steps = page.getByRole('list', { name: 'Steps' }).getByRole('listitem');
    await expect.poll(() => steps.count(), { timeout: 30_000 }).toBe(2);

    await steps.nth(0).getByRole('button').click();
    const first = page.getByRole('complementary', { name: 'Step 1' });
    await first.waitFor();
    await expect.poll(() => first.getByRole('note', { name: 'Acted element' }).innerText()).toBe('on push button “Submit” #6');
    expect(await first.getByRole('note', { name: 'Read-back' }).count()).toBe(0);
    // Its box on the step's screenshot, mapped through the step's frame (the same pixels here).
    const box = first.getByRole('img', { name: 'Acted elements on the screenshot' }).locator('rect');
    expect(await box.count()).toBe(1);
    expect(await box.evaluate((rect) => ['x', 'y', 'width', 'height'].map((name) => Number(rect.getAttribute(name))))).toEqual([260, 150, 70, 22]);

    await steps.nth(1).getByRole('button').click();
    const second = page.getByRole('complementary', { name: 'Step 2' });
    await second.waitFor();
    await expect.poll(() => second.getByRole('note', { name: 'Acted element' }).innerText()).toBe('on check box “I agree” #5');
    const readBack = second.getByRole('note', { name: 'Read-back' });
    expect(await readBack.innerText()).toBe('✗ read-back mismatch: expected checked, found unchecked');
    expect(await readBack.getAttribute('class')).toContain('read-back-mismatch');
    await second.screenshot({ path: join(SCREENSHOTS, 'inspector-elements.png') });
    expect(problems).toEqual([]);
  });

  for (const display of [
    { width: 1280, height: 800 },
    { width: 1920, height: 1080 },
  ]) {
    it(`outlines the elements on the live view where the display has them (${display.width}x${display.height} display)`, async () => {
      state.display = display;
      state.snapshot = formSnapshot(display);
      state.frame = await formFrame(state.snapshot, display);
      const { page, problems } = await openWindow({ width: 1280, height: 800 });
      const live = page.getByRole('img', { name: 'Live desktop' });
      await live.waitFor({ timeout: 30_000 });
      await expect.poll(() => live.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth)).toBe(display.width);
      expect(await page.getByRole('img', { name: 'Element outlines' }).count()).toBe(0);

      await page.getByRole('checkbox', { name: 'Outline elements' }).check();
      const outlines = page.getByRole('img', { name: 'Element outlines' });
      await outlines.waitFor({ timeout: 30_000 });
      expect(await outlines.locator('g.outline').count()).toBe(state.snapshot.elements.length);
      expect(await outlines.locator('g.outline.interactive').count()).toBe(5);

      // Each interactive box over the same place of the shown image as the element on the display.
      const shown = await live.boundingBox();
      if (!shown) throw new Error('the live view is not shown');
      const scale = shown.width / display.width;
      for (const element of state.snapshot.elements.filter((candidate) => candidate.interactive)) {
        const box = await outlines.locator(`g.outline[data-n="${element.n}"] rect`).boundingBox();
        if (!box) throw new Error(`no outline for element ${element.n}`);
        // The stroke straddles the edge: a couple of CSS pixels either way.
        expect(Math.abs(box.x - (shown.x + element.bounds.x * scale)), `left of ${element.n}`).toBeLessThanOrEqual(3);
        expect(Math.abs(box.y - (shown.y + element.bounds.y * scale)), `top of ${element.n}`).toBeLessThanOrEqual(3);
        expect(Math.abs(box.width - element.bounds.width * scale), `width of ${element.n}`).toBeLessThanOrEqual(4);
        expect(Math.abs(box.height - element.bounds.height * scale), `height of ${element.n}`).toBeLessThanOrEqual(4);
      }
      expect(await outlines.locator('g.outline[data-n="6"] title').textContent()).toBe('6. push button "Submit"');
      await page.locator('.live-desktop').screenshot({ path: join(SCREENSHOTS, `live-elements-${display.width}x${display.height}.png`) });

      await page.getByRole('checkbox', { name: 'Outline elements' }).uncheck();
      await expect.poll(() => page.getByRole('img', { name: 'Element outlines' }).count()).toBe(0);
      expect(problems).toEqual([]);
    });
  }

  it('Settings has the elements aid with what it costs in tokens, and saves it as model.elements', async () => {
    const { page, problems } = await openWindow({ width: 1280, height: 900 });
    await page.getByRole('link', { name: 'Settings' }).click();
    const aid = page.getByRole('combobox', { name: 'Elements aid' });
    await aid.waitFor({ timeout: 30_000 });
    expect(await aid.inputValue()).toBe('off');
    // The line the select is described by (aria-describedby): what the chosen mode costs.
    const cost = async () => {
      const id = (await aid.getAttribute('aria-describedby')) ?? '';
      return page.locator(`[id="${id}"]`).innerText();
    };
    expect(await cost()).toMatch(/no tokens added/);
    await aid.selectOption('list');
    await expect.poll(cost).toMatch(/about 20 tokens an element/);
    await aid.selectOption('marks');
    await expect.poll(cost).toMatch(/numbers drawn on the screenshot/);
    await page.locator('fieldset').first().screenshot({ path: join(SCREENSHOTS, 'settings-elements-aid.png') });

    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => state.saves.length).toBe(1);
    expect(state.saves[0]).toMatchObject({ config: { model: { ...baseConfig.model, elements: 'marks' } } });
    expect(problems).toEqual([]);
  });
});
