/**
 * `mnemo run` end to end on the real display: the real CLI process, the real openai client
 * against a scripted OpenAI-compatible server, real nut-js input, and the effects checked on the
 * target (the instrumented page's fields and clicks, a file the xterm's shell wrote).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { computerToolDefinition, zoomToolDefinition } from '../../src/main/model/families';
import { smartResize } from '../../src/main/model/families/ui-tars';
import { startScriptedServer, startMemoryModelServer, imagesIn, decodeDataUrl, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { startEventServer, type EventServer } from '../fixtures/desktop/event-server';
import { launchKiosk, type Kiosk } from '../fixtures/desktop/chromium';
import { launchXterm, type Xterm } from '../fixtures/desktop/xterm';
import { failureScreenshot, requireDisplay, runX } from '../fixtures/desktop/display';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';

/** The agent sends 960x600 images of the 1280x800 screen: model pixels ≠ screen pixels. */
const IMAGE = { width: 960, height: 600 };
const toImage = (p: { x: number; y: number }) => ({ x: Math.round((p.x * IMAGE.width) / 1280), y: Math.round((p.y * IMAGE.height) / 800) });

let display: string;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-run-'));

interface RunOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  events: Array<{ type: string; [key: string]: unknown }>;
}

async function mnemoRun(args: string[], options: { input?: string } = {}): Promise<RunOutcome> {
  const run = await runMnemo(['run', ...args], { env: { DISPLAY: display, OPENAI_API_KEY: '' }, ...options });
  return { ...run, events: jsonLines(run.stdout) };
}

/** The memory model's own server: its summaries never take an agent's scripted reply. */
let memoryModel: ScriptedServer;

function dataDirWithConfig(): string {
  const dir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ image: { maxWidth: IMAGE.width }, memory: { model: { baseUrl: memoryModel.url } } }));
  return dir;
}

function toolCall(actions: unknown[], thought: string): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

beforeAll(async () => {
  display = requireDisplay();
  memoryModel = await startMemoryModelServer();
});
afterAll(async () => {
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('filling and submitting the form in Chromium', () => {
  let pageServer: EventServer;
  let kiosk: Kiosk;

  beforeAll(async () => {
    pageServer = await startEventServer();
    kiosk = await launchKiosk(pageServer, { display });
  });
  afterAll(async () => {
    await kiosk?.close();
    await pageServer?.close();
  });
  beforeEach(async ({ task, onTestFailed }) => {
    onTestFailed(async () => {
      await failureScreenshot(display, `run-${task.name}`);
    });
    await runX(display, 'xdotool', ['mousemove', '640', '700']);
    await kiosk.focus();
    await pageServer.reset();
    pageServer.clear();
  });

  const field = centreOf(TARGET_LAYOUT.field);
  const area = centreOf(TARGET_LAYOUT.area);
  const submit = centreOf(TARGET_LAYOUT['btn-center']);
  const NAME = 'Ada Lovelace';
  const NOTES = 'Analytical Engine\nNote G: Bernoulli numbers!';

  async function expectFormFilledAndSubmitted(): Promise<void> {
    const state = await pageServer.state();
    expect(state.field.value).toBe(NAME);
    expect(state.area.value).toBe(NOTES);
    await pageServer.waitForType('click', (e) => e.target === 'btn-center');
  }

  it('with the tools family', async () => {
    const model = await startScriptedServer({
      replies: [
        toolCall([{ type: 'click', ...toImage(field) }, { type: 'type', text: NAME }], 'I click the name field and type the name.'),
        toolCall([{ type: 'click', ...toImage(area) }], 'Now the notes box.'),
        toolCall([{ type: 'type', text: NOTES }], 'I type the notes.'),
        toolCall([{ type: 'click', ...toImage(submit) }], 'I submit the form.'),
        toolCall([{ type: 'finished', summary: 'The form is filled and submitted.' }], 'Done.'),
      ],
    });
    try {
      const dataDir = dataDirWithConfig();
      const run = await mnemoRun([
        'Fill in the form with Ada Lovelace and submit it',
        ...['--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive'],
      ]);
      expect(run.code, run.stderr).toBe(0);
      await expectFormFilledAndSubmitted();

      const finished = run.events.at(-1);
      expect(finished).toMatchObject({ type: 'run-finished', status: 'finished', steps: 5, summary: 'The form is filled and submitted.' });
      expect(run.events.filter((e) => e.type === 'thought-delta').length).toBeGreaterThan(0);

      // What the model received: the tool schema, the image size, at most 3 images a request.
      expect(model.requests).toHaveLength(5);
      for (const request of model.requests) {
        // The screen (1280x800) is larger than the image: zoom is declared beside the computer tool.
        expect(request.body.tools).toEqual([computerToolDefinition(IMAGE), zoomToolDefinition(IMAGE)]);
        const images = imagesIn(request.body);
        expect(images.length).toBeGreaterThanOrEqual(1);
        expect(images.length).toBeLessThanOrEqual(3);
        for (const image of images) expect(await decodeDataUrl(image)).toMatchObject(IMAGE);
      }
      expect(imagesIn(model.requests[4]!.body)).toHaveLength(3);

      // The session on disk: every event, every screenshot.
      const [session] = readdirSync(join(dataDir, 'sessions'));
      const sessionDir = join(dataDir, 'sessions', session!);
      const recorded = readFileSync(join(sessionDir, 'events.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
      // Everything streamed, thought deltas included, in order: seq 1, 2, 3... on both.
      expect(recorded.map((e) => e.type)).toEqual(run.events.map((e) => e.type));
      expect(run.events.map((e) => e.seq)).toEqual(run.events.map((_, index) => index + 1));
      expect(recorded.map((e) => e.seq)).toEqual(run.events.map((e) => e.seq));
      expect(readdirSync(join(sessionDir, 'screenshots'))).toHaveLength(5);
      expect(JSON.parse(readFileSync(join(sessionDir, 'session.json'), 'utf8'))).toMatchObject({ status: 'finished', steps: 5 });
    } finally {
      await model.close();
    }
  });

  for (const version of ['1.0', '1.5'] as const) {
    it(`with ui-tars ${version} coordinates`, async () => {
      // 1.0: 0-1000 relative; 1.5: pixels of the smart-resized image the model saw.
      const resized = smartResize(IMAGE.width, IMAGE.height);
      const point = (p: { x: number; y: number }) =>
        version === '1.0'
          ? `(${Math.round((p.x / 1280) * 1000)},${Math.round((p.y / 800) * 1000)})`
          : `(${Math.round((p.x / 1280) * resized.width)},${Math.round((p.y / 800) * resized.height)})`;
      const escapedNotes = NOTES.replace(/\n/g, '\\n');
      const model = await startScriptedServer({
        replies: [
          { text: `Thought: I click the name field.\nAction: click(start_box='${point(field)}')` },
          { text: `Thought: I type the name.\nAction: type(content='${NAME}')` },
          { text: `Thought: Now the notes.\nAction: click(start_box='<|box_start|>${point(area)}<|box_end|>')` },
          { text: `Thought: I type the notes.\nAction: type(content='${escapedNotes}')` },
          { text: `Thought: Submit.\nAction: click(start_box='${point(submit)}')` },
          { text: `Thought: The form is sent.\nAction: finished(content='submitted')` },
        ],
      });
      try {
        const run = await mnemoRun([
          'Fill in the form and submit it',
          ...['--base-url', model.url, '--model', `ui-tars-${version}`, '--family', 'ui-tars', '--model-version', version],
          ...['--data-dir', dataDirWithConfig(), '--json', '--non-interactive'],
        ]);
        expect(run.code, run.stderr).toBe(0);
        await expectFormFilledAndSubmitted();
        expect(run.events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 6 });
      } finally {
        await model.close();
      }
    });
  }
});

describe('in an xterm with openai-cua', () => {
  let xterm: Xterm;
  const file = join(tmpdir(), `mnemo-cua-${randomUUID()}`);

  beforeAll(async () => {
    xterm = await launchXterm({ display });
  });
  afterAll(async () => {
    await xterm?.close();
    rmSync(file, { force: true });
  });

  it('types and runs a shell command that writes a file', async () => {
    await runX(display, 'xdotool', ['mousemove', '640', '700']);
    const command = `echo "written by mnemo: ok!" > ${file}\n`;
    const call = (id: string, action: unknown) => ({ type: 'computer_call', id: `cu_${id}`, call_id: `call_${id}`, action, pending_safety_checks: [], status: 'completed' });
    const reasoning = (text: string) => ({ type: 'reasoning', id: `rs_${text.length}`, summary: [{ type: 'summary_text', text }] });
    const model = await startScriptedServer({
      replies: [
        { responseOutput: [reasoning('Focus the terminal.'), call('1', { type: 'click', x: 300, y: 150, button: 'left' })] },
        { responseOutput: [reasoning('Type the command.'), call('2', { type: 'type', text: command })] },
        { responseOutput: [{ type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'The file is written.' }] }] },
      ],
    });
    try {
      const before = xterm.prompts();
      const run = await mnemoRun([
        'Write a file from the terminal',
        ...['--base-url', model.url, '--model', 'computer-use-preview', '--family', 'openai-cua', '--data-dir', dataDirWithConfig(), '--json', '--non-interactive'],
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(await xterm.waitForPrompt(before)).toBe(0);
      expect(existsSync(file)).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe('written by mnemo: ok!\n');
      // Responses API chaining: the second and third requests continue the first response and
      // answer the last computer call with the new screenshot.
      expect(model.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses', '/v1/responses']);
      expect(model.requests[0]!.body.tools[0]).toMatchObject({ type: 'computer_use_preview', display_width: IMAGE.width, display_height: IMAGE.height });
      expect(model.requests[1]!.body.previous_response_id).toBe('resp_0');
      expect(model.requests[1]!.body.input).toEqual([expect.objectContaining({ type: 'computer_call_output', call_id: 'call_1' })]);
      expect(imagesIn(model.requests[2]!.body)).toHaveLength(1);
    } finally {
      await model.close();
    }
  });
});

describe('how a run ends: exit codes and messages', () => {
  const finished = toolCall([{ type: 'finished', summary: 'ok' }], 'Done.');
  const modelArgs = (url: string) => ['--base-url', url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDirWithConfig()];

  beforeEach(async () => {
    await runX(display, 'xdotool', ['mousemove', '640', '700']);
  });

  it('exit 2 for bad arguments, with the problem named', async () => {
    const missing = await mnemoRun(['a task', '--family', 'tools', '--data-dir', dataDirWithConfig()]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--base-url/);
    const badFamily = await mnemoRun(['a task', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--family', 'gpt']);
    expect(badFamily.code).toBe(2);
    expect(badFamily.stderr).toMatch(/family/);
    const badSteps = await mnemoRun(['a task', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--family', 'tools', '--max-steps', '0']);
    expect(badSteps.code).toBe(2);
    expect(badSteps.stderr).toMatch(/--max-steps/);
  });

  it('a question answered on the terminal, then finished: exit 0', async () => {
    const model = await startScriptedServer({ replies: [toolCall([{ type: 'ask_user', question: 'Which colour?' }], 'I need to know.'), finished] });
    try {
      const run = await mnemoRun(['pick a colour', ...modelArgs(model.url), '--json'], { input: 'teal\n' });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/Which colour\?/);
      expect(JSON.stringify(model.requests[1]!.body)).toMatch(/teal/);
    } finally {
      await model.close();
    }
  });

  it('--non-interactive: a question fails the run with the question in the message, exit 3', async () => {
    const model = await startScriptedServer({ replies: [toolCall([{ type: 'ask_user', question: 'Which colour?' }], 'I need to know.')] });
    try {
      const run = await mnemoRun(['pick a colour', ...modelArgs(model.url), '--non-interactive']);
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/failed.*Which colour\?/);
    } finally {
      await model.close();
    }
  });

  it('the step limit: exit 3', async () => {
    const model = await startScriptedServer({ replies: () => toolCall([{ type: 'wait', ms: 10 }], 'Waiting.') });
    try {
      const run = await mnemoRun(['wait forever', ...modelArgs(model.url), '--max-steps', '2', '--json']);
      expect(run.code).toBe(3);
      expect(run.events.at(-1)).toMatchObject({ type: 'run-finished', status: 'limit', steps: 2 });
    } finally {
      await model.close();
    }
  });

  it('Ctrl+C during a model call stops cleanly: exit 4, the session marked aborted', async () => {
    const model = await startScriptedServer({ replies: [{ ...finished, delayMs: 20_000 }] });
    const dataDir = dataDirWithConfig();
    try {
      let interrupted = false;
      const run = await runMnemo(['run', 'slow', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json'], {
        env: { DISPLAY: display },
        onEvent: (event, child) => {
          // One Ctrl+C: a second one quits at once, by design.
          if (!interrupted && event.type === 'observation') {
            interrupted = true;
            child.kill('SIGINT');
          }
        },
      });
      expect(run.code, run.stderr).toBe(4);
      expect(jsonLines(run.stdout).at(-1)).toMatchObject({ type: 'run-finished', status: 'aborted' });
      const [session] = readdirSync(join(dataDir, 'sessions'));
      expect(JSON.parse(readFileSync(join(dataDir, 'sessions', session!, 'session.json'), 'utf8'))).toMatchObject({ status: 'aborted' });
    } finally {
      await model.close();
    }
  });

  it('the fail-safe corner aborts the run: exit 4', async () => {
    const model = await startScriptedServer({ replies: [toolCall([{ type: 'mouse_move', x: 0, y: 0 }], 'Corner.'), toolCall([{ type: 'click', x: 500, y: 300 }], 'Click.'), finished] });
    try {
      const run = await mnemoRun(['go to the corner', ...modelArgs(model.url), '--json']);
      expect(run.code).toBe(4);
      expect(run.events.at(-1)).toMatchObject({ type: 'run-finished', status: 'aborted', reason: expect.stringMatching(/fail-safe/) });
    } finally {
      await model.close();
    }
  });
});

describe('memory across a run', () => {
  it('mnemo memory show prints the layers, pruned steps, blackboard and conversation at the end of the run', async () => {
    await runX(display, 'xdotool', ['mousemove', '640', '700']);
    const thought = (n: number) => `Step ${n}: I wait for the installer to finish copying files; the progress bar is still moving, so nothing to click yet.`;
    const replies: ScriptedReply[] = [];
    for (let n = 1; n <= 7; n++) replies.push(toolCall([{ type: 'wait', ms: 10 }], thought(n)));
    replies.push(toolCall([{ type: 'finished', summary: 'The installer finished.' }], 'It is done.'));
    const model = await startScriptedServer({ replies });
    const dataDir = dataDirWithConfig();
    try {
      const task = 'Wait for the installer to finish';
      const run = await mnemoRun([task, '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive']);
      expect(run.code, `${run.stderr}\n${JSON.stringify(run.events.at(-1))}`).toBe(0);
      const finished = run.events.at(-1) as unknown as { runId: string };
      expect(run.events.some((e) => e.type === 'memory')).toBe(true);

      const show = await runMnemo(['memory', 'show', finished.runId, '--data-dir', dataDir, '--json']);
      expect(show.code, show.stderr).toBe(0);
      const snapshot = JSON.parse(show.stdout);
      expect(Object.keys(snapshot).sort()).toEqual(['blackboard', 'blackboardEarlier', 'conversation', 'facts', 'layers', 'prompt', 'prunedSteps', 'workingMemory']);
      // After the run the conversation's working memory was rewritten by the memory model.
      expect(snapshot.workingMemory).toMatchObject({ conversationId: expect.stringMatching(/^conv-/), status: 'success' });
      expect(Object.keys(snapshot.layers).sort()).toEqual(['pending', 'recent', 'summary']);
      // Seven long step records overflow the 500-character recent layer: the memory model summarised.
      expect(snapshot.layers.summary).toContain('the agent worked through the task as planned');
      expect(snapshot.layers.recent.length).toBeLessThanOrEqual(500);
      // At step 8 the model saw 3 screenshots: the current one and steps 6-7; steps 1-5 had placeholders.
      expect(snapshot.prunedSteps).toEqual([1, 2, 3, 4, 5]);
      expect(JSON.stringify(model.requests[7]!.body)).toContain('[Screenshot removed - Step 5]');
      expect(imagesIn(model.requests[7]!.body)).toHaveLength(3);
      expect(snapshot.blackboard.requests.map((r: { request: string }) => r.request)).toContain(task);
      // One trajectory per step, then the task's end (what compaction later folds it from), each with the task's id.
      expect(snapshot.blackboard.trajectories.map((item: { kind?: string; task_id?: string }) => item.kind ?? 'step')).toEqual([...Array(8).fill('step'), 'task-end']);
      expect(new Set(snapshot.blackboard.trajectories.map((item: { task_id?: string }) => item.task_id)).size).toBe(1);
      expect(snapshot.conversation.context[0]).toMatchObject({ role: 'user', content: task });
      // The blackboard is persisted in the data directory for the next run.
      expect(existsSync(join(dataDir, 'blackboard'))).toBe(true);
    } finally {
      await model.close();
    }
  });
});
