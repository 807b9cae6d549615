/**
 * `npm pack --json` as tools read it: the `prepare` script runs (it builds what the package
 * ships), and stdout still holds nothing but npm's JSON. Packed from a copy of the clone, so the
 * build it makes there cannot disturb the one the other tests run.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-pack-json-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** What the clone holds besides its build and its installed packages (the copy links to those). */
const NOT_COPIED = new Set(['node_modules', '.git', 'dist', 'out', 'release', 'coverage', '.mnemo-test', 'test-results']);

function npm(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('npm', args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

it('npm pack --json --dry-run prints only JSON on stdout; the prepare script speaks on stderr', async () => {
  const clone = join(scratch, 'clone');
  cpSync(root, clone, { recursive: true, filter: (source) => source === root || !NOT_COPIED.has(basename(source)) });
  symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'));

  const packed = await npm(['pack', '--json', '--dry-run'], clone);

  expect(packed.code, packed.stderr).toBe(0);
  // The script ran, and said so where a person sees it.
  expect(packed.stderr).toContain('built the mnemo command');
  const listing = JSON.parse(packed.stdout) as Array<{ name: string; files: Array<{ path: string }> }>;
  expect(listing).toHaveLength(1);
  expect(listing[0]?.name).toBe('mnemo');
  expect(listing[0]?.files.map((file) => file.path)).toContain('dist/cli/mnemo.js');
});
