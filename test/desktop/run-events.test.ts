/**
 * `mnemo run --json` on the real display, as a script reads it: the model asks a question,
 * answered on the terminal; the user-answer line names its question (the ask-user line's seq),
 * each step-finished line carries the run's cost so far (as before) and the step's own usage
 * beside it, and session.json stays as the run's start wrote it until the run ends, while
 * `mnemo sessions` shows the running session's steps and cost from its events.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMemoryModelServer, startScriptedServer, type RecordedRequest, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { requireDisplay, runX } from '../fixtures/desktop/display';
import { jsonLines, runMnemo, startMnemo } from '../fixtures/mnemo-cli';

let display: string;
let memoryModel: ScriptedServer;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-run-events-'));

beforeAll(async () => {
  display = requireDisplay();
  memoryModel = await startMemoryModelServer();
  await runX(display, 'xdotool', ['mousemove', '640', '700']);
});
afterAll(async () => {
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const toolCall = (actions: unknown[], thought: string): ScriptedReply => ({ text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] });

type Line = { type: string; seq: number; step?: number; [key: string]: unknown };
type Usage = { inputTokens: number; outputTokens: number; costUsd: number };

describe('mnemo run --json', () => {
  it('a question answered on the terminal: the answer names it; steps carry their usage; session.json is left alone until the end', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ image: { maxWidth: 640 }, memory: { model: { baseUrl: memoryModel.url } } }));
    const sessionFile = () => {
      const [id] = readdirSync(join(dataDir, 'sessions')).filter((name) => name !== 'index.jsonl');
      const path = join(dataDir, 'sessions', id as string, 'session.json');
      return { ino: statSync(path).ino, mtimeMs: statSync(path).mtimeMs, text: readFileSync(path, 'utf8') };
    };
    let atStart: ReturnType<typeof sessionFile> | null = null;
    let midRun: { file: ReturnType<typeof sessionFile>; listed: unknown } | null = null;
    const script: ScriptedReply[] = [
      toolCall([{ type: 'ask_user', question: 'Which colour?' }], 'I need to know the colour.'),
      toolCall([{ type: 'mouse_move', x: 100, y: 80 }], 'Teal: I go to the swatch.'),
      toolCall([{ type: 'mouse_move', x: 120, y: 90 }], 'A little further.'),
      toolCall([{ type: 'finished', summary: 'Picked teal.' }], 'Done.'),
    ];
    const model = await startScriptedServer({
      replies: async (request: RecordedRequest) => {
        if (request.index === 3) {
          // Steps 1-3 are finished and on disk: look before the last reply goes out.
          const listed = await runMnemo(['sessions', '--json', '--data-dir', dataDir]);
          midRun = { file: sessionFile(), listed: JSON.parse(listed.stdout) };
        }
        return script[request.index];
      },
    });
    try {
      const started = startMnemo(['run', 'pick a colour', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json'], {
        env: { DISPLAY: display, OPENAI_API_KEY: '' },
        input: 'teal\n',
        onEvent: (event) => {
          if (event.type === 'run-started') atStart = sessionFile();
        },
      });
      const run = await started.result;
      expect(run.code, run.stderr).toBe(0);
      const lines = jsonLines<Line>(run.stdout);

      const asked = lines.find((line) => line.type === 'ask-user');
      expect(lines.filter((line) => line.type === 'user-answer')).toEqual([expect.objectContaining({ step: 1, answer: 'teal', questionId: asked?.seq })]);

      const finished = lines.filter((line) => line.type === 'step-finished') as Array<Line & { costUsd: number; usage: Usage }>;
      expect(finished.map((line) => line.step)).toEqual([1, 2, 3, 4]);
      let cost = 0;
      for (const line of finished) {
        expect(line.usage).toEqual({ inputTokens: 1200, outputTokens: 40, costUsd: expect.any(Number) });
        cost += line.usage.costUsd;
        expect(line.costUsd).toBe(cost);
      }
      const end = lines.at(-1) as Line & { usage: Usage };
      expect(end).toMatchObject({ type: 'run-finished', status: 'finished', steps: 4, usage: { inputTokens: 4800, outputTokens: 160, costUsd: cost } });

      // session.json: as the start wrote it until the end; the listing followed the events.
      expect(atStart).not.toBeNull();
      expect(midRun).not.toBeNull();
      const seen = midRun as unknown as { file: ReturnType<typeof sessionFile>; listed: unknown };
      expect(seen.file).toEqual(atStart);
      expect(seen.listed).toEqual([expect.objectContaining({ id: end.runId, status: 'running', steps: 3, cost: finished[2]?.costUsd })]);
      const final = sessionFile();
      expect(final.text).not.toBe((atStart as unknown as { text: string }).text);
      expect(JSON.parse(final.text)).toMatchObject({ status: 'finished', steps: 4, costUsd: cost, usage: end.usage });
    } finally {
      await model.close();
    }
  });
});
