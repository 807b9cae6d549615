/**
 * kill -9 during a real `mnemo run`: the real CLI on the real display against the scripted
 * OpenAI-compatible server, killed with SIGKILL while it waits on the model in step 4. The session
 * then reads back complete up to step 3, and the next start marks it interrupted.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { requireDisplay, runX } from '../fixtures/desktop/display';
import { launchKiosk } from '../fixtures/desktop/chromium';
import { startEventServer } from '../fixtures/desktop/event-server';
import { runMnemo, startMnemo, type CliRun } from '../fixtures/mnemo-cli';
import { readSessionMeta } from '../../src/main/store/session-reader';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-store-crash-'));
let display: string;

/** The memory model's own server: its summaries never take a scripted agent reply. */
let memoryModel: ScriptedServer;

beforeAll(async () => {
  display = requireDisplay();
  memoryModel = await startMemoryModelServer();
});
afterAll(async () => {
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

function mnemo(args: string[]): Promise<CliRun> {
  return runMnemo(args, { env: { DISPLAY: display, OPENAI_API_KEY: '' } });
}

const move = (x: number, y: number): ScriptedReply => ({
  text: `Move to ${x},${y}.`,
  toolCalls: [{ name: 'computer', arguments: { thought: `Move to ${x},${y}.`, actions: [{ type: 'mouse_move', x, y }] } }],
});
const POINTS = [
  { x: 200, y: 150 },
  { x: 400, y: 250 },
  { x: 600, y: 350 },
  { x: 800, y: 450 },
];

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a run killed with SIGKILL', () => {
  it('reads back complete up to the last finished step and is marked interrupted at the next start', async () => {
    await runX(display, 'xdotool', ['mousemove', '640', '700']);
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ image: { maxWidth: 960 }, store: { keepFullResolution: true }, memory: { model: { baseUrl: memoryModel.url } } }));
    const [p1, p2, p3, p4] = POINTS.map((p) => move(p.x, p.y));
    const finished: ScriptedReply = { toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'finished', summary: 'ok' }] } }] };
    // The 4th reply keeps the model "thinking" for a minute; the 5th answers the next run.
    const model = await startScriptedServer({ replies: [p1!, p2!, p3!, { ...p4!, delayMs: 60_000 }, finished] });
    const modelArgs = ['--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive'];
    try {
      const started = startMnemo(['run', 'Move the mouse four times', ...modelArgs], { env: { DISPLAY: display, OPENAI_API_KEY: '' } });
      const { child } = started;
      const exited = started.result.then((run) => run.signal);

      // Step 4 is waiting on the model: steps 1-3 are finished and flushed.
      await waitFor(() => model.requests.length === 4, 45_000, `the 4th model request (stderr: ${started.output().stderr})`);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      const live = started.output().stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { type: string; runId: string; step?: number });
      const id = live[0]!.runId;
      expect(live.filter((e) => e.type === 'step-finished').map((e) => e.step)).toEqual([1, 2, 3]);
      const directory = join(dataDir, 'sessions', id);
      // On disk as the killed process left it: session.json as written at the start, still
      // "running" (it is not rewritten per step); its events read at step 3.
      expect(JSON.parse(readFileSync(join(directory, 'session.json'), 'utf8'))).toMatchObject({ id, status: 'running', steps: 0, writer: { pid: child.pid } });
      const progress = await readSessionMeta(directory);
      expect(progress.ok && progress.meta).toMatchObject({ id, status: 'running', steps: 3 });

      // The next start marks it, before its own run.
      const next = await mnemo(['run', 'Finish at once', ...modelArgs]);
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toContain(`session ${id} was interrupted`);
      expect(JSON.parse(readFileSync(join(directory, 'session.json'), 'utf8'))).toMatchObject({
        status: 'interrupted',
        steps: 3,
        reason: expect.stringMatching(new RegExp(`pid ${child.pid} .*3 steps completed`)),
      });

      const show = await mnemo(['show', id, '--json', '--data-dir', dataDir]);
      expect(show.code, show.stderr).toBe(0);
      expect(show.stderr).toBe('');
      const shown = JSON.parse(show.stdout) as {
        status: string;
        task: string;
        steps: Array<{ step: number; complete: boolean; action: unknown; result: { ok: boolean } | null; thought: string | null; screenshot: string | null; reply: string | null; fullResolution: string | null }>;
      };
      expect(shown).toMatchObject({ status: 'interrupted', task: 'Move the mouse four times' });
      const complete = shown.steps.filter((s) => s.complete);
      expect(complete.map((s) => s.step)).toEqual([1, 2, 3]);
      for (const [i, step] of complete.entries()) {
        const point = POINTS[i]!;
        expect(step).toMatchObject({ action: { type: 'mouse_move', ...point }, result: { ok: true }, thought: `Move to ${point.x},${point.y}.` });
        expect(await sharp(step.screenshot!).metadata()).toMatchObject({ format: 'jpeg', width: 960, height: 600 });
        expect(await sharp(step.fullResolution!).metadata()).toMatchObject({ format: 'png', width: 1280, height: 800 });
        // The raw reply: the assistant message as it came, tool call and all.
        const reply = JSON.parse(readFileSync(step.reply!, 'utf8')) as { tool_calls: Array<{ function: { arguments: string } }> };
        expect(JSON.parse(reply.tool_calls[0]!.function.arguments)).toEqual({ thought: `Move to ${point.x},${point.y}.`, actions: [{ type: 'mouse_move', ...point }] });
      }
      // The step in progress (its start was on disk before the model was asked) shows as not finished.
      expect(shown.steps.filter((s) => !s.complete).map((s) => [s.step, s.action, s.result])).toEqual([[4, null, null]]);

      const sessions = await mnemo(['sessions', '--json', '--data-dir', dataDir]);
      expect(sessions.code, sessions.stderr).toBe(0);
      const list = JSON.parse(sessions.stdout) as Array<{ id: string; status: string; steps: number }>;
      expect(list.map((s) => [s.status, s.steps])).toEqual([
        ['finished', 1],
        ['interrupted', 3],
      ]);
      expect(list[1]!.id).toBe(id);
      expect(existsSync(join(directory, 'events.jsonl'))).toBe(true);
    } finally {
      await model.close();
    }
  }, 90_000);
});

describe('raw replies in the record', () => {
  it('are saved per step with a typed secret masked, however the reply escapes it', async () => {
    await runX(display, 'xdotool', ['mousemove', '640', '700']);
    // The non-ASCII letter is pasted, and a paste that no application fetches fails the action:
    // a focused text field takes it.
    const pageServer = await startEventServer();
    const kiosk = await launchKiosk(pageServer, { display }).catch(async (error: unknown) => {
      await pageServer.close();
      throw error;
    });
    await kiosk.focus();
    await pageServer.focus('field');
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    // A quote, a backslash and a non-ASCII letter: escaped once in the reply's JSON, twice inside
    // the tool-call arguments, and as \u00f1 when the server escapes non-ASCII (as Python does).
    const secret = 'Zq"9\\\u00f1Xk';
    const asciiArguments = JSON.stringify({ thought: 'I type the password.', actions: [{ type: 'type', text: secret, secret: true }] }).replace(/\u00f1/g, '\\u00f1');
    const model = await startScriptedServer({
      replies: [
        { text: 'I type the password.', toolCalls: [{ name: 'computer', arguments: asciiArguments }] },
        { text: 'Again, the plain way.', toolCalls: [{ name: 'computer', arguments: { thought: 'The password again.', actions: [{ type: 'type', text: secret, secret: true }] } }] },
        { toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'finished', summary: 'ok' }] } }] },
      ],
    });
    try {
      const run = await mnemo(['run', 'Log in', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive']);
      expect(run.code, run.stderr).toBe(0);
      const [id] = readdirSync(join(dataDir, 'sessions')).filter((name) => !name.endsWith('.jsonl'));
      const directory = join(dataDir, 'sessions', id!);
      const replies = readdirSync(join(directory, 'replies')).sort();
      expect(replies).toEqual(['step-0001.txt', 'step-0002.txt', 'step-0003.txt']);
      // Step 1's arguments came with the secret \u-escaped: the record holds the mask there.
      const first = readFileSync(join(directory, 'replies', 'step-0001.txt'), 'utf8');
      expect(first).toContain('********');
      for (const file of [...replies.map((name) => join('replies', name)), 'events.jsonl', 'session.json']) {
        const text = readFileSync(join(directory, file), 'utf8');
        expect(text.includes('Zq') || text.includes('Xk'), file).toBe(false);
      }
      expect((await pageServer.state()).field.value).toBe(secret + secret);
    } finally {
      await model.close();
      await kiosk.close();
      await pageServer.close();
    }
  });
});
