/**
 * A session recorded before the settings' secrets were masked at the source still prints and
 * exports without them: `mnemo show`, `sessions`, `memory show` and `export` mask the key of the
 * config file and of the environment in what they write.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionBuilder } from '../../fixtures/session-builder';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { piecesIn } from '../../fixtures/secrets';

const KEY = 'sk-old-session-Zr8Q1wXe5TnM3kP0';
const ENV_KEY = 'sk-from-the-env-J7hG2fD4sA9lK6';
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-masked-output-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('printing and exporting a session that holds the key', { timeout: 60_000 }, () => {
  it('masks it in every output and exported file', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ model: { apiKey: KEY } }));
    const task = `Log in with ${KEY} and ${ENV_KEY}`;
    const session = await SessionBuilder.create(dataDir, { task, model: 'gpt-4.1', family: 'tools' });
    await session.record({ type: 'run-started', task, model: 'gpt-4.1', family: 'tools', limits: { maxSteps: 5, maxCostUsd: null } });
    await session.record({ type: 'step-started', step: 1 });
    await session.record({ type: 'model-error', step: 1, kind: 'auth', message: `Incorrect API key provided: ${KEY}`, consecutive: 1, limit: 1 });
    await session.record({ type: 'memory', step: 1, change: { kind: 'blackboard', snapshot: { questions: [], requests: [{ request: task }], trajectories: [], screenshots: [] } } });
    await session.record({ type: 'step-finished', step: 1, durationMs: 5, costUsd: 0 });
    await session.record({ type: 'run-finished', status: 'failed', reason: `the model endpoint refused the request: ${KEY}`, summary: null, steps: 1, usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } });
    await session.recorder.close();
    // Recorded as it was: the key is on disk (what an older version left).
    expect(readFileSync(join(session.recorder.directory, 'events.jsonl'), 'utf8')).toContain(KEY);

    const out = join(scratch, 'out');
    const env = { OPENAI_API_KEY: ENV_KEY };
    const outputs = await Promise.all(
      [
        ['show', session.id, '--json'],
        ['show', session.id],
        ['sessions', '--json'],
        ['sessions'],
        ['memory', 'show', session.id, '--json'],
        ['export', session.id, '--html', `${out}.html`, '--json', `${out}.json`],
      ].map((args) => runMnemo([...args, '--data-dir', dataDir], { env })),
    );
    for (const run of outputs) {
      expect(run.code, run.stderr).toBe(0);
      for (const key of [KEY, ENV_KEY]) expect(piecesIn(run.stdout + run.stderr, key)).toEqual([]);
    }
    expect(JSON.parse(outputs[0]!.stdout)).toMatchObject({ task: 'Log in with ******** and ********', reason: 'the model endpoint refused the request: ********' });
    for (const file of [`${out}.html`, `${out}.json`]) for (const key of [KEY, ENV_KEY]) expect(piecesIn(readFileSync(file, 'latin1'), key)).toEqual([]);
  });
});
