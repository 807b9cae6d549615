/**
 * `mnemo mcp` on the real display, driven by the official MCP SDK's client over stdio and over
 * Streamable HTTP: screenshots that decode to the size they state within every client's limits,
 * `act` clicking and typing into the instrumented page in kiosk Chromium (the effect read from the
 * page), the fail-safe corner as an error, the confirmation rules asked through elicitation (or
 * refused, saying why, without it), `run_task` against the scripted OpenAI-compatible model with
 * a progress notification per step, the display busy while it runs (naming its session), and the
 * client's cancellation ending the run `aborted`; `run_task` on a private desktop leaving the
 * page alone; a run saved as a workflow listed and re-run with a new value, without the model.
 * Every act and run is a recorded session.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitRequest, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { runX, screenshot as screenshotOf } from '../fixtures/desktop/display';
import { screenshotOnFailure, useKioskPage } from '../fixtures/desktop/kiosk-page';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { TEST_DESKTOP_SETTINGS, xvfbUnder } from '../fixtures/desktop/private-desktops';
import { waitFor } from '../fixtures/fakes';
import { connectStdio, expectImageAsStated, startHttpMcp, textOf, type HttpMcp, type ScreenshotGeometry, type StdioMcp } from '../fixtures/mcp-client';
import { runMnemo } from '../fixtures/mnemo-cli';
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';

const page = useKioskPage({ memoryModel: true });
screenshotOnFailure(page, 'mcp');

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-mcp-desktop-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The scripted model's replies for the test running now, taken in order. */
let script: ScriptedReply[] = [];
let model: ScriptedServer;
beforeAll(async () => {
  model = await startScriptedServer({ replies: () => script.shift() ?? { status: 500, body: 'the test scripted no more replies' } });
});
afterAll(async () => model?.close());

function dataDir(config: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ memory: { model: { baseUrl: page.memoryModel.url } }, desktop: TEST_DESKTOP_SETTINGS, ...config }));
  return dir;
}

const modelFlags = () => ['--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools'];
const env = () => ({ DISPLAY: page.display, OPENAI_API_KEY: '' });

function toolCall(actions: unknown[], thought: string): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

type Structured<T> = CallToolResult & { structuredContent: T };
const call = async <T,>(client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Structured<T>;

const screen = (point: { x: number; y: number }) => page.kiosk.toScreen(point);

async function resetPage(): Promise<void> {
  await runX(page.display, 'xdotool', ['mousemove', '640', '780']);
  await page.kiosk.focus();
  await page.server.reset();
  page.server.clear();
}

describe('over stdio', () => {
  let mcp: StdioMcp;
  let data: string;
  beforeAll(async () => {
    data = dataDir();
    mcp = await connectStdio(['--data-dir', data, ...modelFlags()], { env: env() });
  }, 120_000);
  afterAll(async () => mcp?.close());
  beforeEach(async () => {
    script = [];
    await resetPage();
  });

  it('lists the tools with their schemas and annotations', async () => {
    const { tools } = await mcp.client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(byName)).toEqual(['screenshot', 'act', 'run_task', 'list_sessions', 'get_session', 'search_facts', 'save_fact', 'list_workflows', 'run_workflow', 'run_batch', 'get_batch', 'snapshot']);
    expect(byName.screenshot?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.act?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.run_task?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.save_fact?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(Object.keys(byName.screenshot?.outputSchema?.properties ?? {})).toEqual(['width', 'height', 'screenWidth', 'screenHeight', 'display']);
    expect(byName.run_task?.inputSchema.required).toEqual(['task']);
    expect(Object.keys(byName.run_task?.outputSchema?.properties ?? {})).toEqual(['sessionId', 'status', 'summary', 'steps', 'costUsd']);
    expect(byName.act?.inputSchema.required).toEqual(['action']);
  });

  it('screenshot: an image that decodes to the size it states, within every client limit', async () => {
    const shot = await call<ScreenshotGeometry>(mcp.client, 'screenshot');
    expect(shot.isError).toBeFalsy();
    expect(shot.structuredContent).toEqual({ width: 1280, height: 800, screenWidth: 1280, screenHeight: 800, display: 0 });
    const bytes = await expectImageAsStated(shot, shot.structuredContent);
    // It is the screen: pixel by pixel what ImageMagick reads from the root window, but for JPEG's loss.
    const ours = await sharp(bytes).removeAlpha().raw().toBuffer();
    const root = await sharp(await screenshotOf(page.display)).removeAlpha().raw().toBuffer();
    expect(ours.length).toBe(root.length);
    let difference = 0;
    for (let i = 0; i < ours.length; i++) difference += Math.abs((ours[i] as number) - (root[i] as number));
    expect(difference / ours.length).toBeLessThan(4);
  });

  it('act: clicks into the field and types exactly (symbols included), each action a recorded session', async () => {
    const shot = await call<ScreenshotGeometry>(mcp.client, 'screenshot');
    const field = screen(centreOf(TARGET_LAYOUT.field));
    const clicked = await call<Record<string, unknown>>(mcp.client, 'act', { action: { type: 'click', x: field.x, y: field.y } });
    expect(clicked.isError, textOf(clicked)).toBeFalsy();
    expect(clicked.structuredContent).toMatchObject({ ok: true, type: 'click', points: [field] });
    expect(shot.structuredContent.width).toBe(1280);
    const text = 'Ada #1: a@b.c (100% & more)!';
    const typed = await call<Record<string, unknown>>(mcp.client, 'act', { action: { type: 'type', text } });
    expect(typed.structuredContent).toMatchObject({ ok: true, type: 'type' });
    await expect.poll(async () => (await page.server.state()).field.value).toBe(text);

    const listed = await call<{ sessions: Array<{ id: string; task: string; status: string; steps: number }> }>(mcp.client, 'list_sessions', { limit: 2 });
    expect(listed.structuredContent.sessions.map(({ task, status, steps }) => ({ task, status, steps }))).toEqual([
      { task: `act: type ${JSON.stringify(text)}`, status: 'finished', steps: 1 },
      { task: `act: click at (${field.x}, ${field.y})`, status: 'finished', steps: 1 },
    ]);
    const clickSession = listed.structuredContent.sessions[1]?.id as string;
    const shown = await call<{ model: string; steps: Array<{ actions: unknown[]; results: unknown[]; screenshot: string }> }>(mcp.client, 'get_session', { id: clickSession });
    expect(shown.structuredContent.model).toBe('none');
    expect(shown.structuredContent.steps[0]?.actions).toEqual([{ type: 'click', x: field.x, y: field.y, button: 'left' }]);
    expect(shown.structuredContent.steps[0]?.results).toEqual([expect.objectContaining({ ok: true, points: [field] })]);
    // The screenshot the coordinates were pixels of, as a link the server serves: no bytes inline.
    const link = shown.structuredContent.steps[0]?.screenshot as string;
    expect(link).toBe(`mnemo://sessions/${clickSession}/files/screenshots/step-0001.jpg`);
    expect(shown.content.filter((block) => block.type === 'image')).toEqual([]);
    expect(shown.content).toContainEqual(expect.objectContaining({ type: 'resource_link', uri: link, mimeType: 'image/jpeg' }));
    const read = await mcp.client.readResource({ uri: link });
    const recorded = await sharp(Buffer.from((read.contents[0] as { blob: string }).blob, 'base64')).metadata();
    expect([recorded.width, recorded.height]).toEqual([shot.structuredContent.width, shot.structuredContent.height]);
  });

  it('act: "space": "screen" takes screen pixels, and screenshotAfter returns the new screen', async () => {
    const area = screen(centreOf(TARGET_LAYOUT.area));
    const acted = await call<Record<string, unknown>>(mcp.client, 'act', { action: { type: 'click', x: area.x, y: area.y, space: 'screen' }, screenshotAfter: true });
    expect(acted.isError, textOf(acted)).toBeFalsy();
    await page.server.waitForType('click', (event) => event.target === 'area');
    expect(textOf(acted)).toMatch(/the screen after the action: 1280x800 image of display 0 \(1280x800\)/);
    await expectImageAsStated(acted, { width: 1280, height: 800 });
  });

  it('act: the mouse in the fail-safe corner makes the action an error, and nothing reaches the page', async () => {
    await call(mcp.client, 'screenshot');
    const target = screen(centreOf(TARGET_LAYOUT['btn-center']));
    await runX(page.display, 'xdotool', ['mousemove', '0', '0']);
    const since = page.server.mark();
    const refused = await call<{ ok: boolean; error: { kind: string; message: string } }>(mcp.client, 'act', { action: { type: 'click', x: target.x, y: target.y } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ ok: false, error: { kind: 'user_abort' } });
    expect(textOf(refused)).toMatch(/^user_abort: fail-safe: the mouse is in the top-left corner/);
    await page.server.settle(300);
    expect(page.server.events().filter((event) => event.index >= since && event.type === 'click')).toEqual([]);
    // Out of the corner, the next action goes through.
    await runX(page.display, 'xdotool', ['mousemove', '640', '780']);
    const clicked = await call(mcp.client, 'act', { action: { type: 'click', x: target.x, y: target.y } });
    expect(clicked.isError, textOf(clicked)).toBeFalsy();
    await page.server.waitForType('click', (event) => event.target === 'btn-center');
  });

  it('act: an action that is not in the wire format is an error naming the problem', async () => {
    const result = await call(mcp.client, 'act', { action: { type: 'click', x: 10 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/action\.y/);
  });

  it('run_task: the scripted model fills the field, a progress notification per step, the result as a record', async () => {
    const field = centreOf(TARGET_LAYOUT.field);
    script = [
      toolCall([{ type: 'click', ...screen(field) }], 'I click the name field.'),
      toolCall([{ type: 'type', text: 'Grace Hopper' }], 'I type the name.'),
      toolCall([{ type: 'finished', summary: 'The name is in the field.' }], 'Done.'),
    ];
    const progress: Progress[] = [];
    const result = (await mcp.client.callTool({ name: 'run_task', arguments: { task: 'Type Grace Hopper into the name field', maxSteps: 5 } }, undefined, { onprogress: (update) => progress.push(update), timeout: 300_000 })) as Structured<{
      sessionId: string;
      status: string;
      summary: string;
      steps: number;
      costUsd: number;
    }>;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'finished', summary: 'The name is in the field.', steps: 3 });
    expect(result.structuredContent.costUsd).toBeGreaterThan(0);
    expect((await page.server.state()).field.value).toBe('Grace Hopper');
    expect(progress.map(({ progress: done, total }) => [done, total])).toEqual([
      [1, 5],
      [2, 5],
      [3, 5],
    ]);
    expect(progress[0]?.message).toMatch(/^step 1: click at/);
    expect(progress[1]?.message).toBe('step 2: type "Grace Hopper"');
    const shown = await call<{ status: string; steps: unknown[] }>(mcp.client, 'get_session', { id: result.structuredContent.sessionId });
    expect(shown.structuredContent).toMatchObject({ status: 'finished' });
    expect(shown.structuredContent.steps).toHaveLength(3);
  });

  it('list_workflows and run_workflow: a run saved as a workflow re-runs with a new value, no model call, its report the result', async () => {
    const field = centreOf(TARGET_LAYOUT.field);
    script = [
      toolCall([{ type: 'click', ...screen(field) }], 'I click the name field.'),
      toolCall([{ type: 'type', text: 'Grace Hopper' }], 'I type the name.'),
      toolCall([{ type: 'finished', summary: 'The name is in the field.' }], 'Done.'),
    ];
    const recorded = await call<{ sessionId: string; status: string }>(mcp.client, 'run_task', { task: 'Type Grace Hopper into the name field' });
    expect(recorded.structuredContent.status).toBe('finished');
    const saved = await runMnemo(['workflow', 'save', recorded.structuredContent.sessionId, '--name', 'name-field', '--param', 'NAME=Grace Hopper', '--data-dir', data], { env: env() });
    expect(saved.code, saved.stderr).toBe(0);

    const listed = await call<{ workflows: Array<{ name: string; params: unknown[]; steps: number }> }>(mcp.client, 'list_workflows');
    expect(listed.structuredContent.workflows).toEqual([expect.objectContaining({ name: 'name-field', description: 'Type {{NAME}} into the name field', params: [{ name: 'NAME', secret: false, example: 'Grace Hopper' }], steps: 2 })]);

    await resetPage();
    const requestsBefore = model.requests.length;
    const progress: Progress[] = [];
    const ran = (await mcp.client.callTool({ name: 'run_workflow', arguments: { name: 'name-field', params: { NAME: 'Ada Lovelace' } } }, undefined, { onprogress: (update) => progress.push(update), timeout: 300_000 })) as Structured<{
      sessionId: string;
      status: string;
      modelCalls: number;
      replayed: number;
      steps: number;
    }>;
    expect(ran.isError, textOf(ran)).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ status: 'finished', modelCalls: 0 });
    expect(ran.structuredContent.steps).toBeGreaterThanOrEqual(2);
    expect(model.requests.length).toBe(requestsBefore);
    await expect.poll(async () => (await page.server.state()).field.value, { timeout: 30_000 }).toBe('Ada Lovelace');
    expect(progress.length).toBe(ran.structuredContent.steps);
    expect(progress[0]?.message).toMatch(/^step 1: (replayed|refound)/);
    const shown = await call<{ status: string }>(mcp.client, 'get_session', { id: ran.structuredContent.sessionId });
    expect(shown.structuredContent.status).toBe('finished');

    // A parameter the workflow does not have, or a workflow that does not exist: an error naming it, nothing typed.
    await resetPage();
    const unknown = await call(mcp.client, 'run_workflow', { name: 'name-field', params: { NAME: 'x', CITY: 'Paris' } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/no parameter "CITY" \(its parameters: NAME\)/);
    const missing = await call(mcp.client, 'run_workflow', { name: 'nope', params: {} });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/nope/);
    expect((await page.server.state()).field.value).toBe('');
  });

  it('run_task: while it holds the display act answers busy, naming its session; the client cancelling stops it (aborted)', async () => {
    script = [
      toolCall([{ type: 'click', ...screen(centreOf(TARGET_LAYOUT.area)) }], 'I click the notes.'),
      // The model takes its time with step 2: long enough for the test to act, then cancel.
      { ...toolCall([{ type: 'type', text: 'never typed' }], 'Typing.'), delayMs: 120_000 },
    ];
    const stop = new AbortController();
    const progress: Progress[] = [];
    const running = mcp.client.callTool({ name: 'run_task', arguments: { task: 'Write notes' } }, undefined, { onprogress: (update) => progress.push(update), signal: stop.signal, timeout: 300_000 });
    const failed = running.then(
      () => null,
      (error: unknown) => error as Error,
    );
    await waitFor(() => progress.length >= 1, 'the first step to finish', 60_000);

    const listed = await call<{ sessions: Array<{ id: string; status: string }> }>(mcp.client, 'list_sessions', { limit: 1 });
    const session = listed.structuredContent.sessions[0] as { id: string; status: string };
    expect(session.status).toBe('running');
    // Display 0 named, as the primary display: the one the run holds without naming it.
    await call(mcp.client, 'screenshot', { display: 0 });
    const busy = await call(mcp.client, 'act', { action: { type: 'click', x: 10, y: 10 } });
    expect(busy.isError).toBe(true);
    expect(textOf(busy)).toMatch(new RegExp(`^busy: .*session ${session.id} is running on it`));

    stop.abort();
    expect(await failed).toBeInstanceOf(Error);
    await expect.poll(async () => (await call<{ status: string }>(mcp.client, 'get_session', { id: session.id })).structuredContent.status, { timeout: 60_000 }).toBe('aborted');
    expect((await page.server.state()).area.value).toBe('');
  });
});

describe('run_task on a private desktop', () => {
  let mcp: StdioMcp;
  let data: string;
  beforeAll(async () => {
    data = dataDir();
    mcp = await connectStdio(['--data-dir', data, ...modelFlags()], { env: env() });
  }, 120_000);
  afterAll(async () => mcp?.close());

  it('runs on a display of its own with its app, records that desktop, and nothing reaches the page on the user display', async () => {
    await resetPage();
    script = [
      toolCall([{ type: 'click', x: 200, y: 150 }, { type: 'type', text: 'echo private' }], 'I type into the terminal.'),
      toolCall([{ type: 'finished', summary: 'Typed.' }], 'Done.'),
    ];
    const result = await call<{ sessionId: string; status: string }>(mcp.client, 'run_task', { task: 'Type into the terminal', desktop: { private: true, size: '1024x640', apps: ['xterm'] } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent.status).toBe('finished');
    const meta = JSON.parse(readFileSync(join(data, 'sessions', result.structuredContent.sessionId, 'session.json'), 'utf8')) as { desktop?: unknown };
    expect(meta.desktop).toEqual({ private: true, size: '1024x640', apps: ['xterm'], display: expect.stringMatching(/^:\d+$/) });
    expect(xvfbUnder(data)).toEqual([]);
    await page.server.settle(300);
    expect(page.server.events().filter((event) => ['mousedown', 'click', 'keydown', 'input'].includes(event.type))).toEqual([]);
    expect((await page.server.state()).field.value).toBe('');
  });

  it('a desktop size out of range is refused with the reason, and nothing starts', async () => {
    const refused = await mcp.client.callTool({ name: 'run_task', arguments: { task: 'Anything', desktop: { private: true, size: '10x10' } } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused as CallToolResult)).toMatch(/the desktop size 10x10 is out of range/);
    expect(xvfbUnder(data)).toEqual([]);
  });
});

describe('over Streamable HTTP, with confirmation rules', () => {
  let mcp: HttpMcp;
  beforeAll(async () => {
    mcp = await startHttpMcp(['--data-dir', dataDir({ agent: { confirmationRules: [{ types: ['click'], reason: 'clicks need a yes' }] } }), ...modelFlags()], { env: env() });
  }, 120_000);
  afterAll(async () => mcp?.stop());
  beforeEach(resetPage);

  /** A client whose user answers every elicitation with `allow`, and the questions it was asked. */
  async function askingClient(allow: boolean): Promise<{ client: Client; asked: ElicitRequest['params'][] }> {
    const client = await mcp.connect({ capabilities: { elicitation: {} } });
    const asked: ElicitRequest['params'][] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { allow } };
    });
    return { client, asked };
  }

  it('act: typing needs no screenshot first; the text lands in the focused field', async () => {
    const client = await mcp.connect();
    await page.server.focus('field');
    const typed = await call<Record<string, unknown>>(client, 'act', { action: { type: 'type', text: 'no screenshot: {needed}' } });
    expect(typed.isError, textOf(typed)).toBeFalsy();
    expect(typed.structuredContent).toMatchObject({ ok: true, type: 'type' });
    await expect.poll(async () => (await page.server.state()).field.value).toBe('no screenshot: {needed}');
  });

  it('asks through elicitation; a yes lets the click land', async () => {
    const { client, asked } = await askingClient(true);
    const shot = await call<ScreenshotGeometry>(client, 'screenshot');
    await expectImageAsStated(shot, shot.structuredContent);
    const button = screen(centreOf(TARGET_LAYOUT['btn-center']));
    const clicked = await call(client, 'act', { action: { type: 'click', x: button.x, y: button.y } });
    expect(clicked.isError, textOf(clicked)).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toBe(`clicks need a yes. Allow click {"type":"click","x":${button.x},"y":${button.y},"button":"left"}?`);
    await page.server.waitForType('click', (event) => event.target === 'btn-center');
  });

  it('a no refuses the action; a client that cannot be asked is refused, saying why; nothing reaches the page', async () => {
    const since = page.server.mark();
    const button = screen(centreOf(TARGET_LAYOUT['btn-center']));
    const { client: declining } = await askingClient(false);
    await call(declining, 'screenshot');
    const declined = await call(declining, 'act', { action: { type: 'click', x: button.x, y: button.y } });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toMatch(/^refused: the user refused the action \(clicks need a yes\)/);

    const mute = await mcp.connect();
    await call(mute, 'screenshot');
    const refused = await call(mute, 'act', { action: { type: 'click', x: button.x, y: button.y } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('this client cannot be asked (it does not support elicitation), so the action needing a confirmation was not carried out');
    // Typing needs no yes here.
    const typed = await call(mute, 'act', { action: { type: 'type', text: 'ok' } });
    expect(typed.isError, textOf(typed)).toBeFalsy();
    await page.server.settle(300);
    expect(page.server.events().filter((event) => event.index >= since && event.type === 'click')).toEqual([]);
  });
});
