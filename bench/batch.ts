/**
 * npm run bench:batch — what a batch gains over running its rows one by one, on this machine: a
 * task of two steps (a click, then done) against the scripted OpenAI-compatible server (each reply
 * after BENCH_MODEL_MS, default 400 ms, standing for a model's time), each run on a bare private
 * desktop (Xvfb, the window manager), all through the real CLI.
 *
 *   single run     `mnemo run --desktop private`, one row's work as a user starts it by hand:
 *                  its time (median of BENCH_SINGLE_RUNS, default 3) gives the rows per minute of
 *                  running them one after another;
 *   batch at N     `mnemo batch run --task … --concurrency N` over BENCH_ROWS rows (default 8),
 *                  N = 1, 2, 4: rows per minute, and that over the single runs' rate;
 *   on a queue     the same rows with `--queue` (a redis-server of the bench's own), run by one
 *                  `mnemo worker --concurrency 2` (its own data directory): the queue's overhead
 *                  per job, against the local batch at concurrency 2 of the same run.
 *
 * Measured in the same run, one after the other; the last lines are the figures.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply } from '../test/fixtures/openai-server';
import { jsonLines, runMnemo, startMnemo } from '../test/fixtures/mnemo-cli';
import { startRedis } from '../test/fixtures/redis-server';
import { median } from './lib/stats';

const ROWS = Number(process.env.BENCH_ROWS ?? 8);
const SINGLE_RUNS = Number(process.env.BENCH_SINGLE_RUNS ?? 3);
const MODEL_MS = Number(process.env.BENCH_MODEL_MS ?? 400);
const FIRST_DISPLAY = Number(process.env.BENCH_FIRST_DISPLAY ?? 200);
const CONCURRENCIES = [1, 2, 4];
const log = (line: string) => process.stdout.write(`${line}\n`);

const toolCall = (actions: unknown[], thought: string): ScriptedReply => ({ text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }], delayMs: MODEL_MS });
const model = await startScriptedServer({
  // The first step of a run clicks; once the history holds a step, the run is done.
  replies: (request) => {
    const messages = (request.body as { messages?: Array<{ role: string }> }).messages ?? [];
    return messages.some((message) => message.role === 'assistant') ? toolCall([{ type: 'finished', summary: 'Entered.' }], 'Done.') : toolCall([{ type: 'click', x: 100, y: 100 }], 'I click.');
  },
});
const memoryModel = await startMemoryModelServer();
const root = await mkdtemp(join(tmpdir(), 'mnemo-bench-batch-'));
const dataDir = join(root, 'data');
const env = { OPENAI_API_KEY: '' };
const modelFlags = ['--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools'];

try {
  await runMnemo(['doctor', '--data-dir', dataDir], { env }); // the data directory made, the CLI built
  await writeFile(join(dataDir, 'config.json'), JSON.stringify({ memory: { model: { baseUrl: memoryModel.url } }, desktop: { firstDisplay: FIRST_DISPLAY } }));

  const singles: number[] = [];
  for (let i = 0; i < SINGLE_RUNS + 1; i++) {
    const start = performance.now();
    const run = await runMnemo(['run', `Enter invoice ${1000 + i} for Acme`, '--desktop', 'private', ...modelFlags, '--data-dir', dataDir, '--json', '--non-interactive'], { env });
    const ms = performance.now() - start;
    if (run.code !== 0) throw new Error(`mnemo run failed (${run.code}): ${run.stderr}`);
    if (i > 0) singles.push(ms); // the first warms the caches
  }
  const single = median(singles);
  const singleRate = 60_000 / single;
  log(`single run: ${(single / 1000).toFixed(2)} s (median of ${SINGLE_RUNS}): ${singleRate.toFixed(1)} rows/min one after another`);

  const values = join(root, 'rows.csv');
  await writeFile(values, `number,customer\n${Array.from({ length: ROWS }, (_, i) => `${2000 + i},Customer ${i + 1}`).join('\n')}\n`);
  const figures: string[] = [];
  const localMs = new Map<number, number>();
  for (const concurrency of CONCURRENCIES) {
    const start = performance.now();
    const run = await runMnemo(['batch', 'run', '--task', 'Enter invoice {{number}} for {{customer}}', '--values', values, '--concurrency', String(concurrency), ...modelFlags, '--data-dir', dataDir, '--json'], { env });
    const ms = performance.now() - start;
    const rows = jsonLines<{ status: string }>(run.stdout);
    if (run.code !== 0 || rows.length !== ROWS || rows.some((row) => row.status !== 'succeeded')) throw new Error(`mnemo batch run failed (${run.code}): ${run.stderr}`);
    localMs.set(concurrency, ms);
    const rate = (ROWS * 60_000) / ms;
    figures.push(`batch at concurrency ${concurrency}: ${ROWS} rows in ${(ms / 1000).toFixed(1)} s, ${rate.toFixed(1)} rows/min, ${(rate / singleRate).toFixed(2)}x the single runs' rate`);
  }

  // The same rows through a queue and one worker of 2 at once, against the local batch at 2.
  const redis = await startRedis();
  const workerData = join(root, 'worker');
  await runMnemo(['doctor', '--data-dir', workerData], { env });
  await writeFile(join(workerData, 'config.json'), JSON.stringify({ memory: { model: { baseUrl: memoryModel.url } }, desktop: { firstDisplay: FIRST_DISPLAY + 20 } }));
  const worker = startMnemo(['worker', '--queue', redis.url, '--concurrency', '2', '--data-dir', workerData], { env });
  try {
    for (;;) {
      if (/takes rows of/.test(worker.output().stderr)) break;
      if (worker.child.exitCode !== null) throw new Error(`mnemo worker ended: ${worker.output().stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const start = performance.now();
    const run = await runMnemo(['batch', 'run', '--task', 'Enter invoice {{number}} for {{customer}}', '--values', values, '--queue', redis.url, ...modelFlags, '--data-dir', dataDir, '--json'], { env });
    const ms = performance.now() - start;
    const rows = jsonLines<{ status: string }>(run.stdout);
    if (run.code !== 0 || rows.length !== ROWS || rows.some((row) => row.status !== 'succeeded')) throw new Error(`mnemo batch run --queue failed (${run.code}): ${run.stderr}`);
    const local = localMs.get(2) as number;
    figures.push(`queue, one worker at concurrency 2: ${ROWS} rows in ${(ms / 1000).toFixed(1)} s, ${(ms / local).toFixed(2)}x the local batch at 2; overhead per job ${((ms - local) / ROWS).toFixed(0)} ms`);
  } finally {
    worker.child.kill('SIGTERM');
    await worker.result;
    await redis.stop();
  }
  for (const line of figures) log(line);
} finally {
  await model.close();
  await memoryModel.close();
  await rm(root, { recursive: true, force: true });
}
