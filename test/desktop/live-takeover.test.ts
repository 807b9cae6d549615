/**
 * The live view and the takeover through `mnemo serve`'s HTTP API, on real private desktops:
 * - `GET /api/runs/<id>/live` read by a real HTTP client: multipart JPEG frames that change with
 *   the screen (an xterm the agent types into), none while it is still, never more than
 *   --live-fps a second, and the end of the stream with the run;
 * - `POST /api/runs/<id>/takeover`, `/input`, `/handback`: the agent stops (its model call
 *   cancelled), the status says `taken over`, the user's click lands in the target app (the
 *   instrumented page in Chromium), the record has the user's step (`actor: "user"`), and the
 *   agent's next request says what the user did, in its image's pixels, with the note; input
 *   outside a takeover is a 409 with its reason;
 * - several runs at once: a private run and one on the user's display side by side, a second run
 *   on the user's display refused with 409, `GET /api/runs` listing them.
 */
import { get, request as httpRequest, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kioskCommand } from '../fixtures/desktop/chromium';
import { startEventServer, type EventServer } from '../fixtures/desktop/event-server';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { TEST_DESKTOP_SETTINGS, waitUntil, xvfbUnder } from '../fixtures/desktop/private-desktops';
import { startUserDisplay, type UserDisplay } from '../fixtures/desktop/user-display';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { userText } from '../fixtures/openai-server/request-text';
import { dataDirWith, serveApp, type ServedApp } from '../fixtures/ui/app-harness';

const SLOW = { timeout: 300_000 };
const IMAGE_WIDTH = 960;
const LIVE_FPS = 4;

let user: UserDisplay;
let memoryModel: ScriptedServer;
let app: ServedApp;
let model: ScriptedServer;
/** The scripted model's replies, per test: set before a run starts (`n` counts that test's requests from 0). */
let reply: (n: number) => Promise<ScriptedReply>;
let counted = 0;
function script(replies: (n: number) => Promise<ScriptedReply>): void {
  counted = 0;
  reply = replies;
}
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-live-'));

function toolCall(actions: unknown[], thought: string): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function api(method: string, path: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(`/api${path}`, app.origin);
    const outgoing = httpRequest(url, { method, headers: { authorization: `Bearer ${app.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) }));
    });
    outgoing.on('error', reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

interface Frame {
  jpeg: Buffer;
  at: number;
}

/** A real HTTP client on the live view: the JPEG of each part as it arrives, split at the boundary. */
function readLive(id: string): Promise<{ frames: Frame[]; contentType: string; ended: Promise<void>; close(): void }> {
  return new Promise((resolve, reject) => {
    const outgoing = get(new URL(`/api/runs/${id}/live`, app.origin), { headers: { authorization: `Bearer ${app.token}` } }, (response: IncomingMessage) => {
      const contentType = String(response.headers['content-type']);
      const boundary = Buffer.from(`--${/boundary=([^;]+)/.exec(contentType)?.[1]}`);
      const frames: Frame[] = [];
      let buffer = Buffer.alloc(0);
      response.on('data', (chunk: Buffer) => {
        buffer = Buffer.concat([buffer, chunk]);
        for (;;) {
          const start = buffer.indexOf(boundary);
          if (start < 0) break;
          const next = buffer.indexOf(boundary, start + boundary.length);
          if (next < 0) break;
          const part = buffer.subarray(start + boundary.length, next);
          const body = part.subarray(part.indexOf('\r\n\r\n') + 4, part.length - 2);
          frames.push({ jpeg: Buffer.from(body), at: Date.now() });
          buffer = buffer.subarray(next);
        }
      });
      const ended = new Promise<void>((done) => response.once('end', () => done()));
      resolve({ frames, contentType, ended, close: () => outgoing.destroy() });
    });
    outgoing.on('error', reject);
  });
}

/** Mean absolute difference of two JPEGs' pixels (0 to 255). */
async function difference(a: Buffer, b: Buffer): Promise<number> {
  const [x, y] = await Promise.all([a, b].map((jpeg) => sharp(jpeg).greyscale().raw().toBuffer()));
  if (!x || !y || x.length !== y.length) return 255;
  let total = 0;
  for (let i = 0; i < x.length; i++) total += Math.abs((x[i] as number) - (y[i] as number));
  return total / x.length;
}

async function runEvents(id: string): Promise<Array<{ type: string; step?: number; actor?: string; [key: string]: unknown }>> {
  return (await api('GET', `/sessions/${id}/events?since=0`)).body;
}

beforeAll(async () => {
  user = await startUserDisplay();
  memoryModel = await startMemoryModelServer();
  model = await startScriptedServer({ replies: () => reply(counted++) });
  const dataDir = dataDirWith({ model: { baseUrl: model.url, model: 'gpt-4.1', family: 'tools' }, image: { maxWidth: IMAGE_WIDTH }, memory: { model: { baseUrl: memoryModel.url } }, desktop: TEST_DESKTOP_SETTINGS }, scratch);
  app = await serveApp(dataDir, user.display, { extra: ['--live-fps', String(LIVE_FPS)] });
}, 300_000);

afterAll(async () => {
  await app?.close();
  await model?.close();
  await memoryModel?.close();
  await user?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the live view', () => {
  it('streams frames that change with the screen, none while it is still, at most --live-fps, and ends with the run', SLOW, async () => {
    let typeNow!: () => void;
    const mayType = new Promise<void>((resolve) => (typeNow = resolve));
    let finishNow!: () => void;
    const mayFinish = new Promise<void>((resolve) => (finishNow = resolve));
    const first = model.requests.length;
    script(async (n) => {
      if (n === 0) {
        await mayType;
        return toolCall([{ type: 'type', text: 'for i in 1 2 3 4 5 6; do echo line $i; sleep 0.3; done\n' }], 'I print a few lines.');
      }
      await mayFinish;
      return toolCall([{ type: 'finished', summary: 'Printed.' }], 'Done.');
    });
    const started = await api('POST', '/runs', { task: 'Print a few lines in the terminal', desktop: { private: true, size: '1024x640', apps: ['xterm -geometry 70x16+20+20'] } });
    expect([200, 201]).toContain(started.status);
    const { id } = started.body as { id: string };
    expect((await api('GET', '/runs')).body).toContainEqual({ id, task: 'Print a few lines in the terminal', kind: 'run', status: 'running', desktop: expect.objectContaining({ private: true, size: '1024x640' }) });

    const live = await readLive(id);
    expect(live.contentType).toMatch(/^multipart\/x-mixed-replace; boundary=/);
    await waitUntil(() => live.frames.length >= 1 && model.requests.length > first, 'the first frame and the first model request');
    // The model thinks, the screen is still: 2 s at 4 frames a second are 8 chances to send one, and none goes.
    const stillFrom = live.frames.length;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(live.frames.length).toBe(stillFrom);
    const [firstFrame] = live.frames;
    expect((await sharp(firstFrame?.jpeg).metadata()).width).toBe(1024);

    // The agent types: the lines appear over ~2 s, and frames follow, each different from the one before.
    const typingFrom = Date.now();
    typeNow();
    await waitUntil(() => live.frames.length >= stillFrom + 4, 'frames of the lines being printed', 60_000);
    const busy = live.frames.slice(stillFrom - 1);
    for (let i = 1; i < busy.length; i++) expect(await difference((busy[i - 1] as Frame).jpeg, (busy[i] as Frame).jpeg)).toBeGreaterThan(0);
    // Never faster than --live-fps: over the busy time, at most one frame per 1/4 s (and the first at once).
    const elapsed = ((busy.at(-1) as Frame).at - typingFrom) / 1000;
    expect(busy.length - 1).toBeLessThanOrEqual(Math.ceil(elapsed * LIVE_FPS) + 1);

    finishNow();
    await live.ended;
    // Once the run has let its desktop go, it is no longer listed, and has no live view.
    await waitUntil(async () => (await api('GET', '/runs')).body.every((run: { id: string }) => run.id !== id), 'the run to leave the list', 60_000);
    expect((await api('GET', `/runs/${id}/live`)).status).toBe(404);
  });
});

describe('taking over and handing back through the API', () => {
  let page: EventServer;
  beforeAll(async () => {
    page = await startEventServer();
  });
  afterAll(async () => {
    await page?.close();
  });

  // The model's image is 960 wide: at 1280x800 and at 1920x1080 its pixels are not the screen's.
  for (const size of [
    { width: 1280, height: 800 },
    { width: 1920, height: 1080 },
  ]) {
    it(`at ${size.width}x${size.height}: stops the agent, carries the user's click out in the app, records the user's step, and tells the model with the note`, SLOW, async () => {
      const first = model.requests.length;
      let handedBack = false;
      script(async (n) => {
        // The model thinks for ever on its first request: the takeover cancels it.
        if (n === 0) return { ...toolCall([{ type: 'wait', ms: 100 }], 'Thinking.'), delayMs: 600_000 };
        expect(handedBack).toBe(true);
        return toolCall([{ type: 'finished', summary: 'The user pressed it.' }], 'The user did it; done.');
      });
      const profile = mkdtempSync(join(scratch, 'profile-'));
      const pageRun = `takeover-${size.width}`;
      const started = await api('POST', '/runs', { task: 'Press the button', desktop: { private: true, size: `${size.width}x${size.height}`, apps: [kioskCommand(page, pageRun, profile, size)] } });
      const { id } = started.body as { id: string };
      await page.waitForType('ready', (event) => event.run === pageRun, { timeoutMs: 120_000 });
      await waitUntil(() => model.requests.length > first, 'the agent to ask the model');

      // Outside a takeover, input is refused, with the reason.
      const early = await api('POST', `/runs/${id}/input`, { action: { type: 'click', x: 10, y: 10 } });
      expect(early.status).toBe(409);
      expect(early.body.error).toMatch(/not taken over/);
      const bad = await api('POST', `/runs/${id}/input`, { action: { type: 'click', x: 'left' } });
      expect(bad.status).toBe(400);

      const taken = await api('POST', `/runs/${id}/takeover`);
      expect(taken.status).toBe(200);
      expect(taken.body).toMatchObject({ id, status: 'taken over' });
      expect((await api('GET', '/runs')).body).toContainEqual(expect.objectContaining({ id, status: 'taken over' }));
      await waitUntil(async () => (await runEvents(id)).some((event) => event.type === 'taken-over'), 'the agent to stop for the user');

      const button = centreOf(TARGET_LAYOUT['btn-center']);
      const clicked = await api('POST', `/runs/${id}/input`, { action: { type: 'click', ...button } });
      expect(clicked.status, JSON.stringify(clicked.body)).toBe(200);
      expect(clicked.body).toMatchObject({ step: 2, result: { ok: true, type: 'click' } });
      await page.waitForType('click', (event) => event.run === pageRun && event.target === 'btn-center', { timeoutMs: 30_000 });

      handedBack = true;
      const back = await api('POST', `/runs/${id}/handback`, { note: 'I pressed the button myself' });
      expect(back.body).toMatchObject({ id, status: 'running' });
      await waitUntil(async () => (await api('GET', '/runs')).body.every((run: { id: string }) => run.id !== id), 'the run to end', 120_000);

      // The agent's next request: what the user did, in its image's pixels (960 wide), and the note.
      const told = userText(model.requests.at(-1) as (typeof model.requests)[number]);
      const scale = IMAGE_WIDTH / size.width;
      const inImage = { x: Math.round((button.x + 0.5) * scale - 0.5), y: Math.round((button.y + 0.5) * scale - 0.5) };
      expect(told).toContain(`The user took over the desktop and did, in pixels of the current screenshot (${IMAGE_WIDTH}x${Math.round(size.height * scale)}), origin at its top-left corner: 1. click at (${inImage.x}, ${inImage.y})`);
      expect(told).toContain('Their note: "I pressed the button myself".');

      // The record: the user's step, marked as theirs.
      const events = await runEvents(id);
      expect(events.filter((event) => event.actor === 'user').map((event) => event.type)).toEqual(['step-started', 'observation', 'action', 'action-result', 'step-finished']);
      expect(events.find((event) => event.type === 'handed-back')).toMatchObject({ note: 'I pressed the button myself' });
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished' });
      expect(xvfbUnder(app.dataDir)).toEqual([]);
    });
  }
});

describe('several runs at once', () => {
  it('a private run and one on the user\'s display side by side; a second on the user\'s display is refused', SLOW, async () => {
    let release!: () => void;
    const go = new Promise<void>((resolve) => (release = resolve));
    script(async () => {
      await go;
      return toolCall([{ type: 'finished', summary: 'ok' }], 'Done.');
    });
    const onUsers = await api('POST', '/runs', { task: 'On the user display' });
    expect([200, 201]).toContain(onUsers.status);
    const busy = await api('POST', '/runs', { task: 'Also on the user display' });
    expect(busy.status).toBe(409);
    const onPrivate = await api('POST', '/runs', { task: 'On a private desktop', desktop: { private: true } });
    expect([200, 201]).toContain(onPrivate.status);
    const listed = (await api('GET', '/runs')).body as Array<{ id: string; task: string; status: string; desktop: { private: boolean } }>;
    expect(listed).toEqual(
      expect.arrayContaining([
        { id: onUsers.body.id, task: 'On the user display', kind: 'run', status: expect.any(String), desktop: { private: false, display: user.display } },
        { id: onPrivate.body.id, task: 'On a private desktop', kind: 'run', status: expect.any(String), desktop: expect.objectContaining({ private: true, size: '1280x800', apps: [] }) },
      ]),
    );
    release();
    await waitUntil(async () => (await api('GET', '/runs')).body.length === 0, 'both runs to end', 120_000);
    for (const id of [onUsers.body.id, onPrivate.body.id]) expect((await runEvents(id)).at(-1)).toMatchObject({ type: 'run-finished', status: 'finished' });
  });
});
