/**
 * The sample session Mnemo ships (samples/first-session/): a short task on the instrumented page,
 * recorded by this test with the real `mnemo run` (the scripted model, the real display, the real
 * recorder) when MNEMO_RECORD_SAMPLE=1, and otherwise checked: it reads back cleanly with today's
 * event schema, is small, lists and opens and exports in a fresh data directory, marked as a sample.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSession } from '../../src/main/store/session-reader';
import { sampleSessionId } from '../../src/main/store/sample-session';
import { runX } from '../fixtures/desktop/display';
import { useKioskPage } from '../fixtures/desktop/kiosk-page';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply } from '../fixtures/openai-server';

const SAMPLE_DIR = fileURLToPath(new URL('../../samples/first-session/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-sample-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The model sees 640x400 images of the 1280x800 screen. */
const toImage = (p: { x: number; y: number }) => ({ x: Math.round(p.x / 2), y: Math.round(p.y / 2) });
const tool = (actions: unknown[], thought: string): ScriptedReply => ({ text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] });

describe.runIf(process.env.MNEMO_RECORD_SAMPLE === '1')('recording the sample session', () => {
  const page = useKioskPage();
  beforeAll(async () => {
    await runX(page.display, 'xdotool', ['mousemove', '640', '700']);
    await page.kiosk.focus();
  });

  it('runs the sample task for real and keeps its record in samples/first-session/', async () => {
    const memoryModel = await startMemoryModelServer();
    const model = await startScriptedServer({
      replies: [
        tool([{ type: 'click', ...toImage(centreOf(TARGET_LAYOUT.field)) }], 'The form has an empty name field at the top right. I click into it first.'),
        tool([{ type: 'type', text: 'Ada Lovelace' }], 'The field has the caret now. I type the name.'),
        tool([{ type: 'click', ...toImage(centreOf(TARGET_LAYOUT['btn-center'])) }], 'The name is in the field. I press the button in the middle to submit it.'),
        tool([{ type: 'finished', summary: 'Typed "Ada Lovelace" into the name field and pressed the button.' }], 'The page shows the click was received. The task is done.'),
      ],
    });
    const dataDir = mkdtempSync(join(scratch, 'record-'));
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ image: { maxWidth: 640, quality: 60 }, memory: { model: { baseUrl: memoryModel.url } } }));
    try {
      const run = await runMnemo(['run', 'Type "Ada Lovelace" into the name field and press the button', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive'], {
        env: { DISPLAY: page.display, OPENAI_API_KEY: '' },
      });
      expect(run.code, run.stderr).toBe(0);
      expect((await page.server.state()).field.value).toBe('Ada Lovelace');
      const id = jsonLines(run.stdout)[0]?.runId as string;
      rmSync(SAMPLE_DIR, { recursive: true, force: true });
      cpSync(join(dataDir, 'sessions', id), SAMPLE_DIR, { recursive: true });
    } finally {
      await model.close();
      await memoryModel.close();
    }
  });
});

describe('the sample session', () => {
  let SAMPLE_SESSION_ID: string;
  beforeAll(async () => {
    SAMPLE_SESSION_ID = (await sampleSessionId(SAMPLE_DIR)) ?? 'missing';
  });

  it('reads back cleanly with the event schema and is small', async () => {
    const parent = join(scratch, 'check', 'sessions');
    cpSync(SAMPLE_DIR, join(parent, SAMPLE_SESSION_ID), { recursive: true });
    const read = await readSession(join(scratch, 'check'), SAMPLE_SESSION_ID);
    if (!read.ok) throw new Error(read.message);
    expect(read.session.warnings).toEqual([]);
    expect(read.session.meta.status).toBe('finished');
    expect(read.session.steps.length).toBeGreaterThanOrEqual(3);
    expect(read.session.events.map((event) => event.seq)).toEqual(read.session.events.map((_, index) => index + 1));
    const bytes = readdirSync(SAMPLE_DIR, { recursive: true })
      .map((name) => join(SAMPLE_DIR, String(name)))
      .filter((path) => statSync(path).isFile())
      .reduce((sum, path) => sum + statSync(path).size, 0);
    expect(bytes).toBeLessThan(400_000);
  });

  it('lists, opens and exports in a fresh data directory, marked as a sample; once removed it stays away', async () => {
    const dataDir = mkdtempSync(join(scratch, 'fresh-'));
    const listed = await runMnemo(['sessions', '--json', '--data-dir', dataDir]);
    expect(listed.code, listed.stderr).toBe(0);
    const sessions = JSON.parse(listed.stdout) as Array<{ id: string; task: string; sample?: boolean }>;
    expect(sessions).toEqual([expect.objectContaining({ id: SAMPLE_SESSION_ID, sample: true })]);
    const text = await runMnemo(['sessions', '--data-dir', dataDir]);
    expect(text.stdout).toMatch(/sample/);

    const shown = await runMnemo(['show', SAMPLE_SESSION_ID, '--json', '--data-dir', dataDir]);
    expect(shown.code, shown.stderr).toBe(0);
    const session = JSON.parse(shown.stdout) as { steps: Array<{ screenshot: string | null }> };
    expect(session.steps[0]?.screenshot && existsSync(session.steps[0].screenshot)).toBe(true);

    const report = join(dataDir, 'report.html');
    const exported = await runMnemo(['export', SAMPLE_SESSION_ID, '--html', report, '--data-dir', dataDir]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(statSync(report).size).toBeGreaterThan(10_000);

    const removed = await runMnemo(['sessions', '--delete', SAMPLE_SESSION_ID, '--data-dir', dataDir]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse((await runMnemo(['sessions', '--json', '--data-dir', dataDir])).stdout)).toEqual([]);
  });
});
