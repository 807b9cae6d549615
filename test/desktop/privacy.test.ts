/**
 * What Mnemo keeps stays private, with the real `mnemo` against the scripted OpenAI-compatible
 * server on the real display: everything it creates in the data directory is owner-only under the
 * most permissive umask, a data directory open to other accounts is tightened at start, and an API
 * key the provider echoes (in an error body, in a streamed reply, in a tool argument) leaves no
 * piece of 8 characters or more in the data directory, on the terminal or in the --json output.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedReply } from '../fixtures/openai-server';
import { runX } from '../fixtures/desktop/display';
import { screenshotOnFailure, useKioskPage } from '../fixtures/desktop/kiosk-page';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { jsonLines, runMnemo, type CliRun } from '../fixtures/mnemo-cli';
import { filesHolding, piecesIn } from '../fixtures/secrets';

const IMAGE = { width: 960, height: 600 };
const toImage = (p: { x: number; y: number }) => ({ x: Math.round((p.x * IMAGE.width) / 1280), y: Math.round((p.y * IMAGE.height) / 800) });
const KEY = 'sk-proj-T3stK3y9xQ2mVbN7cRwZ4hLp8dYf';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-privacy-'));
const page = useKioskPage({ memoryModel: true });

afterAll(() => rmSync(scratch, { recursive: true, force: true }));
screenshotOnFailure(page, 'privacy');
beforeEach(async () => {
  await runX(page.display, 'xdotool', ['mousemove', '640', '700']);
});

/** A config file outside the data directory, so that everything in it is Mnemo's own. */
function configFile(extra: Record<string, unknown> = {}): string {
  const path = join(mkdtempSync(join(scratch, 'config-')), 'config.json');
  writeFileSync(path, JSON.stringify({ image: { maxWidth: IMAGE.width }, memory: { model: { baseUrl: page.memoryModel.url } }, ...extra }));
  return path;
}

function tool(actions: unknown[], thought: string, extra: Partial<ScriptedReply> = {}): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }], ...extra } as ScriptedReply;
}

function mnemo(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runMnemo(args, { env: { DISPLAY: page.display, OPENAI_API_KEY: '', ...env } });
}

/** Every folder and file under `root`, with its permission bits in octal. */
function modesUnder(root: string): Record<string, string> {
  const modes: Record<string, string> = {};
  const walk = (prefix: string) => {
    for (const entry of readdirSync(join(root, prefix), { withFileTypes: true })) {
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      modes[relative] = (statSync(join(root, relative)).mode & 0o777).toString(8);
      if (entry.isDirectory()) walk(relative);
    }
  };
  walk('');
  return modes;
}

describe('owner-only at rest', () => {
  let umask: number;
  beforeEach(() => {
    umask = process.umask(0);
  });
  afterEach(() => {
    process.umask(umask);
  });

  it('under umask 000, every folder Mnemo creates is 0700 and every file 0600, an export elsewhere included', async () => {
    const dataDir = join(mkdtempSync(join(scratch, 'umask-')), 'data');
    const model = await startScriptedServer({ replies: [tool([{ type: 'mouse_move', x: 300, y: 300 }], 'Move.'), tool([{ type: 'finished', summary: 'ok' }], 'Done.')] });
    try {
      const config = configFile({ store: { keepFullResolution: true } });
      const run = await mnemo(['run', 'Move the mouse', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--config', config, '--json', '--non-interactive']);
      expect(run.code, run.stderr).toBe(0);
      const id = String(jsonLines(run.stdout)[0]?.runId);
      const inside = await mnemo(['export', id, '--data-dir', dataDir, '--html', join(dataDir, 'report.html')]);
      expect(inside.code, inside.stderr).toBe(0);
      expect(inside.stderr).not.toMatch(/holds the screenshots/);

      const modes = modesUnder(dataDir);
      expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
      // The session (events, screenshots at both sizes, replies, the reserved ending), the index,
      // the blackboard, the conversation, the display lock's folder, the export made there.
      for (const part of ['sessions/index.jsonl', `sessions/${id}/events.jsonl`, `sessions/${id}/session.json`, `sessions/${id}/ending.json`, `sessions/${id}/screenshots/step-0001.full.png`, `sessions/${id}/replies/step-0001.txt`, 'blackboard/blackboard.jsonl', 'locks', 'report.html']) {
        expect(modes, part).toHaveProperty([part]);
      }
      expect(Object.keys(modes).some((path) => path.startsWith('memory/conversations/conv-'))).toBe(true);
      const wider = Object.entries(modes).filter(([path, mode]) => mode !== (statSync(join(dataDir, path)).isDirectory() ? '700' : '600'));
      expect(wider).toEqual([]);

      // A report written where the user chose: owner-only as well, whatever the umask, and a reminder of what it holds.
      const elsewhere = join(mkdtempSync(join(scratch, 'export-')), 'report.html');
      const exported = await mnemo(['export', id, '--data-dir', dataDir, '--html', elsewhere]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stderr).toMatch(/the report holds the screenshots of the session .*share it with care/);
      expect((statSync(elsewhere).mode & 0o777).toString(8)).toBe('600');
    } finally {
      await model.close();
    }
  });

  it('a data directory open to other accounts is tightened at start, with one line saying so', async () => {
    const dataDir = join(mkdtempSync(join(scratch, 'wide-')), 'data');
    mkdirSync(join(dataDir, 'blackboard'), { recursive: true });
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'blackboard'), 0o755);
    writeFileSync(join(dataDir, 'blackboard', 'blackboard.jsonl'), '', { mode: 0o644 });
    const model = await startScriptedServer({ replies: [tool([{ type: 'finished', summary: 'ok' }], 'Done.')] });
    try {
      const run = await mnemo(['run', 'Nothing to do', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--config', configFile(), '--json', '--non-interactive']);
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stderr.split('\n').filter((line) => line.includes('could be read by other accounts'));
      expect(lines).toEqual([`mnemo: the data directory ${dataDir} could be read by other accounts (mode 755); it is now owner-only (folders 700, files 600)`]);
      const modes = modesUnder(dataDir);
      expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
      expect(modes).toMatchObject({ blackboard: '700', 'blackboard/blackboard.jsonl': '600' });
      // Private now: the next run has nothing to say.
      model.push(tool([{ type: 'finished', summary: 'ok' }], 'Done.'));
      const again = await mnemo(['run', 'Nothing to do', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--config', configFile(), '--json', '--non-interactive']);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).not.toMatch(/other accounts/);
    } finally {
      await model.close();
    }
  });
});

describe('the API key is never written', () => {
  const field = toImage(centreOf(TARGET_LAYOUT.field));

  function expectNoKey(where: string, text: string): void {
    expect(piecesIn(text, KEY), where).toEqual([]);
  }

  it('echoed by the provider in an error body, a streamed reply and a tool argument: no trace in the data directory or the output', async () => {
    await page.kiosk.focus();
    await page.server.reset();
    page.server.clear();
    const dataDir = join(mkdtempSync(join(scratch, 'key-')), 'data');
    const config = configFile();
    const env = { OPENAI_API_KEY: KEY };
    const args = ['--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--config', config, '--non-interactive'];
    const echoed = `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`;

    // 1. The provider rejects the key and echoes it in the error body: terminal view, then --json.
    const rejecting = await startScriptedServer({
      replies: () => ({ status: 401, body: { error: { message: echoed, type: 'invalid_request_error', code: 'invalid_api_key' } } }),
    });
    const outputs: CliRun[] = [];
    try {
      const terminal = await mnemo(['run', 'Open the mail', '--base-url', rejecting.url, ...args], env);
      expect(terminal.code).toBe(3);
      expect(terminal.stderr).toMatch(/failed: the model endpoint refused the request: .*Incorrect API key provided: \*{8}/);
      const json = await mnemo(['run', 'Open the mail', '--base-url', rejecting.url, ...args, '--json'], env);
      expect(json.code).toBe(3);
      expect(jsonLines(json.stdout).at(-1)).toMatchObject({ type: 'run-finished', status: 'failed', reason: expect.stringContaining('Incorrect API key provided: ********') });
      // The provider did receive the key: it is the user's to send there.
      expect(rejecting.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
      outputs.push(terminal, json);
    } finally {
      await rejecting.close();
    }

    // 2. A model that repeats the key: in its streamed thought, in the text it types, in its summary,
    //    and the task itself names it.
    const echoing = await startScriptedServer({
      replies: [
        tool([{ type: 'click', ...field }, { type: 'type', text: KEY }], `I was given the key ${KEY}; I type it into the field.`, { chunkSize: 3 }),
        tool([{ type: 'finished', summary: `Typed ${KEY} into the field.` }], `Done with ${KEY}.`),
      ],
    });
    try {
      const run = await mnemo(['run', `Type the key ${KEY} into the field`, '--base-url', echoing.url, ...args, '--json'], env);
      expect(run.code, run.stderr).toBe(0);
      const events = jsonLines(run.stdout);
      expect(events.some((e) => e.type === 'thought-delta')).toBe(true);
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', summary: 'Typed ******** into the field.' });
      // The action itself was carried out as the model asked: only the record is masked.
      await page.server.settle(300, 10_000);
      expect((await page.server.state()).field.value).toBe(KEY);
      outputs.push(run);
      const id = String(events[0]?.runId);
      for (const command of [['show', id, '--json'], ['show', id], ['sessions', '--json'], ['memory', 'show', id, '--json'], ['export', id, '--json', join(dataDir, 'raw.json'), '--html', join(dataDir, 'report.html')]]) {
        const shown = await mnemo([...command, '--data-dir', dataDir], env);
        expect(shown.code, `${command.join(' ')}: ${shown.stderr}`).toBe(0);
        outputs.push(shown);
      }
    } finally {
      await echoing.close();
    }

    for (const [index, output] of outputs.entries()) {
      expectNoKey(`stdout of command ${index}`, output.stdout);
      expectNoKey(`stderr of command ${index}`, output.stderr);
    }
    // Sessions, replies, screenshots, index, blackboard, conversation, the exports made there.
    expect(readdirSync(join(dataDir, 'sessions')).length).toBeGreaterThanOrEqual(3);
    expect(filesHolding(dataDir, KEY)).toEqual([]);
  });
});
