/**
 * A recorded session saved as a workflow (the real recorder, reader and files), kept owner-only,
 * listed, shown, exported as one file and imported again; bad files refused with the reason and
 * nothing changed; a secret's value nowhere.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MASK } from '../../../src/shared/describe-action';
import { summarizeWorkflow, type WorkflowExport } from '../../../src/shared/workflow';
import { readSession } from '../../../src/main/store/session-reader';
import { buildWorkflow, type BuildRequest } from '../../../src/main/workflow/build';
import { WorkflowStore } from '../../../src/main/workflow/store';
import { walkFolder } from '../../../src/main/disk/folder-walk';
import { filesHolding } from '../../fixtures/secrets';
import { NAME, POINTS, recordFormSession, StaticReader } from './recording';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});
async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mnemo-workflow-'));
  folders.push(dir);
  return dir;
}

async function built(dir: string, request: Partial<BuildRequest> = {}, password?: string, lagging?: number[]) {
  const { id } = await recordFormSession(dir, { ...(password ? { password } : {}), ...(lagging ? { lagging } : {}) });
  const read = await readSession(dir, id);
  if (!read.ok) throw new Error(read.message);
  const reader = new StaticReader();
  const result = await buildWorkflow(read.session, { name: 'invoice', params: [], now: 1_700_000_000_000, ...request }, reader);
  return { id, result, reader };
}

/** The form run saved as "invoice" with a name and a password, and its export. */
async function savedAndExported() {
  const dir = await dataDir();
  const { result } = await built(dir, { params: [{ name: 'name', value: NAME, secret: false }, { name: 'password', secret: true }] });
  if (!result.ok) throw new Error(result.message);
  await new WorkflowStore(dir).save(result.built.workflow, result.built.files, { replace: false, trusted: true });
  const exported = await new WorkflowStore(dir).export('invoice');
  if (!exported.ok) throw new Error(exported.error.message);
  return { result: result.built, exported };
}

describe('a recorded run saved as a workflow', () => {
  it("measures no change from or up to a demonstration's screenshot that predates the previous action: that step's screen after is its screen before", async () => {
    const { result } = await built(await dataDir(), { params: [{ name: 'password', secret: true }] }, undefined, [2]);
    if (!result.ok) throw new Error(result.message);
    const afters = result.built.workflow.steps.map((step) => [step.recordedStep, step.before?.file ?? null, step.after?.file ?? null]);
    expect(afters).toEqual([
      [1, 'screens/step-0001.jpg', null],
      // Up to step 2's lagging screen: none measured.
      [1, 'screens/step-0001.jpg', 'screens/step-0001.jpg'],
      [2, 'screens/step-0002.jpg', null],
      // From it: none either.
      [2, 'screens/step-0002.jpg', 'screens/step-0002.jpg'],
      // Step 3's screen came after step 2 ended, but step 3 is the last recorded action: the next screenshot (step 4's) is its after.
      [3, 'screens/step-0003.jpg', 'screens/step-0004.jpg'],
    ]);
  });

  it('has one step per action that ran, typed values as parameters, anchors for each target', async () => {
    const { result, id } = await built(await dataDir(), { params: [{ name: 'name', value: NAME, secret: false }, { name: 'password', secret: true }] });
    if (!result.ok) throw new Error(result.message);
    const { workflow, files } = result.built;
    expect(workflow).toMatchObject({ name: 'invoice', description: 'Fill in the form for {{name}} and send it', source: { session: id, recording: { modelCalls: 4, tokens: 4200, costUsd: 0.04 }, summary: 'Sent for {{name}}.' } });
    expect(summarizeWorkflow(workflow, true)).toEqual({
      name: 'invoice',
      params: [
        { name: 'name', secret: false, example: NAME },
        { name: 'password', secret: true, example: MASK },
      ],
      steps: [
        { index: 1, description: 'click at (310, 49) (near "Name")', action: { type: 'click', ...POINTS.field, button: 'left' } },
        { index: 2, description: 'type "{{name}}\\n"', action: { type: 'type', text: '{{name}}\n' } },
        { index: 3, description: 'click at (310, 100)', action: { type: 'click', ...POINTS.area, button: 'left' } },
        // The text a secret step types is its template: shown whole, the value coming only when it runs.
        { index: 4, description: 'type "{{password}}" (a secret parameter)', action: { type: 'type', text: '{{password}}', secret: true } },
        { index: 5, description: 'click at (250, 161) (near "Send")', action: { type: 'click', ...POINTS.button, button: 'left' } },
      ],
      trusted: true,
    });
    const [click, type] = workflow.steps;
    expect(click!.thought).toBe('I click the name field and type {{name}}.');
    // A recorded step's actions share its screen before; the last of them has the screen after.
    expect(click).toMatchObject({ recordedStep: 1, before: { file: 'screens/step-0001.jpg' }, after: null });
    expect(type).toMatchObject({ recordedStep: 1, before: { file: 'screens/step-0001.jpg' }, after: { file: 'screens/step-0002.jpg' }, anchors: [] });
    expect(click!.anchors).toEqual([
      {
        point: POINTS.field,
        role: 'click',
        patch: { rect: { x: 198, y: 37, width: 224, height: 24 }, image: { file: 'anchors/step-0001-1.png', width: 224, height: 24, mime: 'image/png' } },
        face: { x: 201, y: 41, width: 218, height: 16 },
        text: [{ text: 'Name', dx: -95, dy: -18, confidence: 92, inside: false }],
      },
    ]);
    expect(workflow.steps[4]!.anchors[0]!.text).toEqual([{ text: 'Send', dx: 0, dy: 0, confidence: 95, inside: true }]);
    expect([...files.keys()].sort()).toEqual([
      'anchors/step-0001-1.png',
      'anchors/step-0003-1.png',
      'anchors/step-0005-1.png',
      'screens/step-0001.jpg',
      'screens/step-0002.jpg',
      'screens/step-0003.jpg',
      'screens/step-0004.jpg',
    ]);
  });

  it('proposes the typed values without --param, and takes them with --auto-params', async () => {
    // Nothing masked: saved with the values as recorded, and the values proposed.
    const plain = await built(await dataDir(), {}, 'open sesame');
    if (!plain.result.ok) throw new Error(plain.result.message);
    expect(plain.result.built.workflow.params).toEqual([]);
    expect(plain.result.built.workflow.steps[1]!.action).toEqual({ type: 'type', text: `${NAME}\n` });
    expect(plain.result.built.proposed.map((p) => [p.name, p.value])).toEqual([
      ['name', NAME],
      ['text', 'open sesame'],
    ]);
    // A masked password must be named: without parameters the save is refused, with the proposals.
    const masked = await built(await dataDir());
    expect(masked.result).toMatchObject({ ok: false, proposed: [{ name: 'name' }, { name: 'secret', secret: true }] });
    const auto = await built(await dataDir(), { autoParams: true });
    if (!auto.result.ok) throw new Error(auto.result.message);
    expect(auto.result.built.proposed).toEqual([
      { name: 'name', value: NAME, secret: false, steps: [2] },
      { name: 'secret', value: MASK, secret: true, steps: [4] },
    ]);
    expect(summarizeWorkflow(auto.result.built.workflow, true).params).toEqual([
      { name: 'name', secret: false, example: NAME },
      { name: 'secret', secret: true, example: MASK },
    ]);
  });

  it('refuses a masked secret left unnamed, and a value typed nowhere', async () => {
    const unnamed = await built(await dataDir(), { params: [{ name: 'name', value: NAME, secret: false }] });
    expect(unnamed.result).toMatchObject({
      ok: false,
      message: 'step 4 types a secret the recording masks (********): name it with --secret NAME (or take the proposals with --auto-params), and give its value when the workflow runs',
    });
    const nowhere = await built(await dataDir(), { params: [{ name: 'city', value: 'Paris', secret: false }, { name: 'password', secret: true }] });
    expect(nowhere.result).toMatchObject({ ok: false, message: '--param city: no text typed in the recording contains "Paris"' });
  });
});

describe('the workflow store', () => {
  it('keeps workflows owner-only, lists, reads, replaces and deletes them', async () => {
    const dir = await dataDir();
    const { result } = await built(dir, { params: [{ name: 'name', value: NAME, secret: false }, { name: 'password', secret: true }] });
    if (!result.ok) throw new Error(result.message);
    const store = new WorkflowStore(dir);
    expect(await store.save(result.built.workflow, result.built.files, { replace: false, trusted: true })).toEqual({ ok: true, value: { replaced: false } });
    expect(await store.save(result.built.workflow, result.built.files, { replace: false, trusted: true })).toEqual({ ok: false, error: { kind: 'exists', message: 'a workflow named "invoice" exists already' } });
    expect(await store.save(result.built.workflow, result.built.files, { replace: true, trusted: true })).toEqual({ ok: true, value: { replaced: true } });
    for await (const item of walkFolder(dir)) {
      if (!item.path.startsWith(join(dir, 'workflows')) && !item.path.startsWith(join(dir, 'workflow-trust'))) continue;
      if (item.kind === 'unreadable') continue;
      expect(((await stat(item.path)).mode & 0o777).toString(8), item.path).toBe(item.kind === 'folder' ? '700' : '600');
    }
    expect(await readdir(join(dir, 'workflows'))).toEqual(['invoice']);
    const listed = await store.list();
    expect(listed.workflows.map((w) => [w.workflow.name, w.trusted])).toEqual([['invoice', true]]);
    expect(await store.read('invoice')).toEqual({ ok: true, value: result.built.workflow });
    expect(await store.read('nothing')).toEqual({ ok: false, error: { kind: 'not_found', message: 'no workflow "nothing"' } });
    expect(await store.read('../x')).toMatchObject({ ok: false, error: { kind: 'invalid' } });
    expect(await store.delete('invoice')).toEqual({ ok: true, value: { name: 'invoice' } });
    expect(await store.delete('invoice')).toEqual({ ok: false, error: { kind: 'not_found', message: 'no workflow "invoice"' } });
    expect(await readdir(join(dir, 'workflows'))).toEqual([]);
  });

  it('reads a damaged workflow as an error naming the problem', async () => {
    const dir = await dataDir();
    const { result } = await built(dir, { params: [{ name: 'name', value: NAME, secret: false }, { name: 'password', secret: true }] });
    if (!result.ok) throw new Error(result.message);
    const store = new WorkflowStore(dir);
    await store.save(result.built.workflow, result.built.files, { replace: false, trusted: true });
    const file = join(dir, 'workflows', 'invoice', 'workflow.json');
    await writeFile(file, (await readFile(file, 'utf8')).replace('"{{name}}\\n"', '"{{nobody}}\\n"'));
    expect(await store.read('invoice')).toEqual({ ok: false, error: { kind: 'invalid', message: 'workflow "invoice" is damaged: steps.1.action.text: step 2 uses {{nobody}}, which is not a declared parameter' } });
    await writeFile(file, '{"format": "mnemo-workflow", ');
    expect(await store.read('invoice')).toMatchObject({ ok: false, error: { kind: 'invalid', message: expect.stringMatching(/^workflow "invoice" is damaged: workflow.json is not JSON/) } });
    expect(await store.list()).toMatchObject({ workflows: [], damaged: [{ name: 'invoice', message: expect.stringMatching(/is not JSON/) }] });
  });

  it('exports one self-contained file and imports it elsewhere as it was', async () => {
    const { result, exported } = await savedAndExported();
    const text = JSON.stringify(exported.value);
    const other = await dataDir();
    const store = new WorkflowStore(other);
    expect(await store.import(text, { replace: false })).toMatchObject({ ok: true, value: { workflow: { name: 'invoice' }, replaced: false } });
    expect(await store.read('invoice')).toEqual({ ok: true, value: result.workflow });
    for (const [file, bytes] of result.files) expect(await readFile(join(other, 'workflows', 'invoice', file))).toEqual(bytes);
    expect(await store.import(text, { replace: false })).toEqual({ ok: false, error: { kind: 'exists', message: 'a workflow named "invoice" exists already' } });
    expect(await store.import(text, { replace: false, rename: 'invoice-2' })).toMatchObject({ ok: true, value: { workflow: { name: 'invoice-2' } } });
  });

  it('refuses a bad file with the reason and changes nothing', async () => {
    const { exported } = await savedAndExported();
    const good: WorkflowExport = exported.value;
    const other = await dataDir();
    const store = new WorkflowStore(other);
    const patch = 'anchors/step-0001-1.png';
    const screen = 'screens/step-0002.jpg';
    const withoutPatch = { ...good, files: Object.fromEntries(Object.entries(good.files).filter(([file]) => file !== patch)) };
    const cases: Array<[string, string]> = [
      ['{"format": "mnemo-workflow-export", "version"', 'not a workflow file: it is not JSON'],
      [JSON.stringify({ ...good, format: 'something-else' }), 'not a workflow file: "format" must be "mnemo-workflow-export" (made by mnemo workflow export)'],
      [JSON.stringify(withoutPatch), `not a valid workflow file: files: the workflow refers to ${patch}, which the file does not hold`],
      [JSON.stringify({ ...good, files: { ...good.files, [screen]: good.files[patch] } }), `not a valid workflow file: ${screen} is 224x24, the workflow says 480x300`],
      [JSON.stringify({ ...good, files: { ...good.files, [patch]: Buffer.from('not an image').toString('base64') } }), `not a valid workflow file: ${patch} is not an image`],
      [JSON.stringify({ ...good, workflow: { ...good.workflow, name: '../../etc' } }), 'not a valid workflow file: workflow.name: a workflow name is 1-64 letters'],
      [JSON.stringify({ ...good, workflow: { ...good.workflow, params: [] } }), 'not a valid workflow file: workflow.steps.1.action.text: step 2 uses {{name}}, which is not a declared parameter'],
      [JSON.stringify({ ...good, workflow: { ...good.workflow, params: [{ name: 'name', secret: false, example: NAME }, { name: 'password', secret: true, example: 'hunter2' }] } }), 'not a valid workflow file: workflow.params.1: a secret parameter keeps no example'],
    ];
    for (const [text, reason] of cases) {
      const imported = await store.import(text, { replace: false });
      expect(imported, reason).toMatchObject({ ok: false, error: { kind: 'invalid' } });
      expect((imported as { error: { message: string } }).error.message).toContain(reason);
      expect(await readdir(other)).toEqual([]);
    }
  });

  it('never writes the value of a secret given with --param and --secret', async () => {
    const password = 'hunter2-swordfish';
    const dir = await dataDir();
    const { id, result } = await built(dir, { params: [{ name: 'name', value: NAME, secret: false }, { name: 'password', value: password, secret: true }] }, password);
    if (!result.ok) throw new Error(result.message);
    expect(summarizeWorkflow(result.built.workflow, true).steps[3]).toMatchObject({ action: { type: 'type', text: '{{password}}', secret: true } });
    const store = new WorkflowStore(dir);
    await store.save(result.built.workflow, result.built.files, { replace: false, trusted: true });
    const exported = await store.export('invoice');
    expect(JSON.stringify(exported)).not.toContain(password);
    expect(filesHolding(join(dir, 'workflows'), password)).toEqual([]);
    // The recording itself typed it in clear (the model did not call it a password): only it holds it.
    expect(filesHolding(join(dir, 'sessions', id), password)).not.toEqual([]);
  });
});
