/**
 * Signals as supervisors send them, to the real `mnemo run` in the middle of a long streamed
 * reply (test/fixtures/long-stream-server.ts, 10 MB and more, paced so the model call is still
 * in flight): coreutils `timeout` relays a SIGTERM to the child and then to its process group,
 * and a supervisor may signal twice in a row. Each time the run stops at once (the stream is
 * closed), ends `aborted` with every event written, and exits 4.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireDisplay } from '../fixtures/desktop/display';
import { startLongStreamServer, STREAM_FAMILIES, type LongStreamServer, type StreamVendor } from '../fixtures/long-stream-server';
import { jsonLines, MNEMO_BIN } from '../fixtures/mnemo-cli';

const MB = 1024 * 1024;
let display: string;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-signals-'));
let server: LongStreamServer | undefined;

beforeAll(() => {
  display = requireDisplay();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));


interface Started {
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** Starts `command args…` as the leader of its own process group, as a supervisor's child is. */
function startInGroup(command: string, args: string[], env: NodeJS.ProcessEnv): Started {
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { pid: child.pid as number, exited };
}

function runArgs(vendor: StreamVendor, url: string, dataDir: string): string[] {
  return [MNEMO_BIN, 'run', 'Fill in the form', '--base-url', url, '--family', STREAM_FAMILIES[vendor].family, '--model', STREAM_FAMILIES[vendor].model, '--data-dir', dataDir, '--json', '--non-interactive'];
}

/** The one session of the data directory: its session.json and its recorded events. */
function recorded(dataDir: string): { session: { status: string }; events: Array<{ type: string; status?: string; seq: number }> } {
  const [id] = readdirSync(join(dataDir, 'sessions'));
  const folder = join(dataDir, 'sessions', id as string);
  return {
    session: JSON.parse(readFileSync(join(folder, 'session.json'), 'utf8')) as { status: string },
    events: jsonLines(readFileSync(join(folder, 'events.jsonl'), 'utf8')) as Array<{ type: string; status?: string; seq: number }>,
  };
}

function expectAbortedWithItsEvents(dataDir: string, stdout: string): void {
  const { session, events } = recorded(dataDir);
  expect(session.status).toBe('aborted');
  const types = events.map((event) => event.type);
  expect(types).toEqual(expect.arrayContaining(['run-started', 'step-started', 'observation']));
  expect(types.filter((type) => type === 'run-finished')).toHaveLength(1);
  expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'aborted' });
  // Every event the terminal saw is in the record, in order, none missing.
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  expect(jsonLines(stdout).map((event) => event.seq)).toEqual(events.map((event) => event.seq));
}

describe.each(['openai', 'anthropic', 'gemini'] as const)('%s: a 10 MB stream and a supervisor', (vendor) => {
  it('`timeout` relaying SIGTERM to mnemo and to its group: the stream is closed, the run aborted with its events', { timeout: 300_000 }, async () => {
    server = await startLongStreamServer({ totalBytes: 1000 * MB, endless: true, bytesPerSecond: MB });
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    // `timeout` runs mnemo in a process group of its own; a TERM sent to `timeout` it passes on to
    // mnemo, then to the whole group: two signals, as when its time runs out.
    const started = startInGroup('timeout', ['600', process.execPath, ...runArgs(vendor, server.baseUrl(vendor), dataDir)], { DISPLAY: display });
    await server.sent(MB);
    process.kill(started.pid, 'SIGTERM');
    const run = await started.exited;
    expect(run.stderr).not.toMatch(/quitting at once/);
    expectAbortedWithItsEvents(dataDir, run.stdout);
    await server.requests[0]?.closed;
    expect(server.requests[0]?.clientClosedEarly).toBe(true);
    expect(server.requests[0]?.bytesSent).toBeLessThan(1000 * MB);
  });

  it('SIGTERM to mnemo, then at once to its group: one request, exit 4, aborted with its events', { timeout: 300_000 }, async () => {
    server = await startLongStreamServer({ totalBytes: 10 * MB, endless: true, bytesPerSecond: MB });
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const started = startInGroup(process.execPath, runArgs(vendor, server.baseUrl(vendor), dataDir), { DISPLAY: display });
    await server.sent(MB);
    process.kill(started.pid, 'SIGTERM');
    process.kill(-started.pid, 'SIGTERM');
    const run = await started.exited;
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).not.toMatch(/quitting at once/);
    expectAbortedWithItsEvents(dataDir, run.stdout);
    await server.requests[0]?.closed;
    expect(server.requests[0]?.clientClosedEarly).toBe(true);
  });
});
