/**
 * `mnemo workflow export` and `import` at their edges, the real CLI in a child process on a
 * workflow saved from a recorded run: under `umask 000` the export and the imported workflow are
 * owner-only (files 0600, folders 0700); an export that cannot be written is one line naming the
 * file and why; an import is held to the one cap serve's import takes too, checked before a byte
 * is read (a device, a pipe, a file larger than the cap), stdin cut off at the cap; a file nested
 * too deep is refused by the same guard as serve's bodies.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSession } from '../../../src/main/store/session-reader';
import { buildWorkflow } from '../../../src/main/workflow/build';
import { WorkflowStore } from '../../../src/main/workflow/store';
import { MNEMO_BIN, runMnemo, type CliRun } from '../../fixtures/mnemo-cli';
import { NAME, recordFormSession, StaticReader } from './recording';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-workflow-cli-'));
const dataDir = join(scratch, 'data');
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
let umask: number;

beforeAll(async () => {
  // The children inherit it: without Mnemo's own modes every file would be 0666, every folder 0777.
  umask = process.umask(0);
  const { id } = await recordFormSession(dataDir);
  const read = await readSession(dataDir, id);
  if (!read.ok) throw new Error(read.message);
  const built = await buildWorkflow(read.session, { name: 'invoice', params: [{ name: 'name', value: NAME, secret: false }, { name: 'password', secret: true }], now: 1_700_000_000_000 }, new StaticReader());
  if (!built.ok) throw new Error(built.message);
  const saved = await new WorkflowStore(dataDir).save(built.built.workflow, built.built.files, { replace: false, trusted: true });
  if (!saved.ok) throw new Error(saved.error.message);
});
afterAll(() => {
  process.umask(umask);
  rmSync(scratch, { recursive: true, force: true });
});

const workflow = (args: string[], input?: string) => runMnemo(['workflow', ...args, '--data-dir', dataDir], input === undefined ? {} : { input });

/** `mnemo workflow import -` fed by a shell pipe from `head -c <bytes> /dev/zero` (a stream with no end in sight). */
function importFromZeros(bytes: number): Promise<CliRun> {
  const child = spawn('sh', ['-c', `head -c ${bytes} /dev/zero | "${process.execPath}" "${MNEMO_BIN}" workflow import - --data-dir "${dataDir}"`]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

describe.skipIf(process.platform === 'win32')('mnemo workflow export and import', { timeout: 120_000 }, () => {
  it('exports 0600 under umask 000, and imports (from stdin too) into 0700 folders of 0600 files', async () => {
    const out = join(mkdtempSync(join(scratch, 'out-')), 'invoice.json');
    const exported = await workflow(['export', 'invoice', '-o', out]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(mode(out)).toBe('600');

    const imported = await workflow(['import', '-', '--name', 'invoice-copy'], readFileSync(out, 'utf8'));
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/^imported workflow invoice-copy \(5 steps\), not trusted: it does not run until you have checked every step above and run mnemo workflow trust invoice-copy\n$/);
    const folder = join(dataDir, 'workflows', 'invoice-copy');
    const modes = new Set<string>();
    const visit = (path: string) => {
      modes.add(`folder ${mode(path)}`);
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        if (entry.isDirectory()) visit(join(path, entry.name));
        else modes.add(`file ${mode(join(path, entry.name))}`);
      }
    };
    visit(folder);
    expect([...modes].sort()).toEqual(['file 600', 'folder 700']);
  });

  it('says an export it cannot write in one line naming the file and the cause, no stack trace', async () => {
    const missing = join(scratch, 'missing', 'dir');
    const run = await workflow(['export', 'invoice', '-o', join(missing, 'x.json')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`mnemo: cannot write ${join(missing, 'x.json')}: the folder ${missing} does not exist (ENOENT)\n`);
  });

  it('refuses a device or a pipe before reading a byte of it', async () => {
    const zero = await workflow(['import', '/dev/zero']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toBe('mnemo: cannot import /dev/zero: it is not a regular file (a device)\n');
    // Opening a pipe nobody writes to would wait for ever; reading it, too.
    const pipe = join(scratch, 'a-pipe');
    expect(spawnSync('mkfifo', [pipe]).status).toBe(0);
    const piped = await workflow(['import', pipe]);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe(`mnemo: cannot import ${pipe}: it is not a regular file (a pipe)\n`);
  });

  it('refuses a file larger than the 64 MB serve takes before reading it, and stdin where it passes them', async () => {
    const big = join(scratch, 'big.json');
    writeFileSync(big, '');
    // 80 MB that take no disk: the size alone refuses it.
    truncateSync(big, 80 * 1024 * 1024);
    const run = await workflow(['import', big]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`mnemo: cannot import ${big}: it is 80 MB, more than the 64 MB allowed\n`);

    const streamed = await importFromZeros(70 * 1024 * 1024);
    expect(streamed.code).toBe(2);
    expect(streamed.stderr).toBe('mnemo: cannot import stdin: it is larger than the 64 MB allowed\n');
  });

  it('refuses a file nested 100,000 deep with the reason serve gives', async () => {
    const deep = join(scratch, 'deep.json');
    writeFileSync(deep, `{"format":"mnemo-workflow-export","workflow":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const run = await workflow(['import', deep]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('mnemo: not a workflow file: it is not JSON Mnemo takes (it nests deeper than 64 levels)\n');
  });
});
