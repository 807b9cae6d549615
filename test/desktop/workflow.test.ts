/**
 * Workflows end to end on real displays (the shared 1280x800 one and a 1920x1080 Xvfb of this
 * file's own), with the real CLI: a form-filling run recorded with `mnemo run` against a scripted
 * OpenAI-compatible model, saved with `mnemo workflow save` with parameters, and run again with
 * `mnemo workflow run` and new values. The effects are checked in the page (what was submitted,
 * what was clicked) and on disk:
 *
 * - the unchanged page: the new values submitted, no model call;
 * - the form moved by 150 px: found again (`refound`), no model call;
 * - the form moved and restyled: with --policy reground, at most one model call per diverged step;
 * - the submit button removed: stopped before acting (exit 3), nothing clicked there;
 * - a secret typed, and absent from every file of the data directory and from the export;
 * - an export whose typing was changed: imported untrusted, refused with nothing reaching the page,
 *   then trusted and run, the page receiving what the step really types;
 * - a damaged workflow refused with the reason.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useMemoryModel } from '../fixtures/memory-model';
import { startScriptedServer, type ScriptedReply } from '../fixtures/openai-server';
import { filesHolding } from '../fixtures/secrets';
import { openKioskScreen, type KioskScreen } from '../fixtures/desktop/kiosk-screen';
import { failureScreenshot, runX } from '../fixtures/desktop/display';
import { type PageEventOf, type PageState } from '../fixtures/desktop/event-server';
import { centreOf, TARGET_LAYOUT, type Rect } from '../fixtures/desktop/layout';
import { runMnemoJson, type CliEvents } from '../fixtures/mnemo-cli';

type Event = { type: string; [key: string]: unknown };


const NAME = 'Ada Lovelace';
const NOTES = 'Analytical Engine, Note G';
const NEW_NAME = 'Grace Hopper';
const NEW_NOTES = 'COBOL, FLOW-MATIC & the first compiler';
/** What a changed export types in the name field instead of the name (harmless here, but not what its description said). */
const TAMPERED = 'typed by an edited export';
/** The form moved left: clear of where it was, still on the screen and off the other elements. */
const MOVE = { dx: -150, dy: 0 };

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-workflow-'));
const memoryModel = useMemoryModel();
afterAll(() => {
  if (!process.env.KEEP_SCRATCH) rmSync(scratch, { recursive: true, force: true });
});

/** `mnemo` on a screen's display, its events read (no API key from this machine's environment). */
function mnemoOn(screen: Screen, args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliEvents> {
  return runMnemoJson(args, { env: { DISPLAY: screen.display, OPENAI_API_KEY: '', ...options.env }, ...(options.input !== undefined ? { input: options.input } : {}) });
}

function toolCall(actions: unknown[], thought: string): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

/** Session folders (the sessions folder holds other files too, e.g. an index). */
function sessionIds(dataDir: string): string[] {
  return readdirSync(join(dataDir, 'sessions'))
    .filter((name) => /^\d{8}-\d{6}-[0-9a-f]{6}$/.test(name))
    .sort();
}

/** A display with the instrumented page in kiosk Chromium: the shared one, or a big one of this file's own. */
interface Screen extends KioskScreen {
  label: string;
  /** The model's image: 960 wide at any screen size. */
  image: { width: number; height: number };
}

async function openScreen(label: string, size: string | null): Promise<Screen> {
  const screen = await openKioskScreen(size);
  return { ...screen, label, image: { width: 960, height: Math.round((960 * screen.size.height) / screen.size.width) } };
}

describe.each([
  { label: '1280x800', size: null },
  { label: '1920x1080', size: '1920x1080' },
])('a form run saved as a workflow and run again with new values, at $label', ({ label, size }) => {
  let screen: Screen;
  let dataDir: string;
  let recordedId: string;

  const toImage = (p: { x: number; y: number }) => ({ x: Math.round((p.x * screen.image.width) / screen.size.width), y: Math.round((p.y * screen.image.height) / screen.size.height) });
  const mnemo = (args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}) => mnemoOn(screen, args, options);
  /** The page as every run starts from: the form in place (or moved, restyled, without its button), empty, the pointer parked. */
  const preparePage = async (form: { move?: { dx: number; dy: number }; restyle?: boolean; noButton?: boolean } = {}): Promise<PageState> => {
    await runX(screen.display, 'xdotool', ['mousemove', '900', String(screen.size.height - 60)]);
    await screen.kiosk.focus();
    await screen.server.shift(form.move?.dx ?? 0, form.move?.dy ?? 0);
    await screen.server.restyle(form.restyle ?? false);
    await screen.server.hide('btn-center', form.noButton ?? false);
    const state = await screen.server.reset();
    screen.server.clear();
    return state;
  };
  const clicked = () => screen.server.events().flatMap((e) => (e.type === 'click' ? [(e as PageEventOf<'click'>).target] : []));
  const submitted = () => screen.server.events().filter((e): e is PageEventOf<'submit'> => e.type === 'submit');
  const runWorkflow = (extra: string[] = [], env: NodeJS.ProcessEnv = {}) =>
    mnemo(['workflow', 'run', 'form', '--set', `name=${NEW_NAME}`, '--set', `notes=${NEW_NOTES}`, '--data-dir', dataDir, '--json', ...extra], { env });
  const steps = (outcome: CliEvents) => outcome.events.filter((e) => e.type === 'workflow-step');
  const report = (outcome: CliEvents) => outcome.events.at(-1) as Event;

  beforeAll(async () => {
    screen = await openScreen(label, size);
    dataDir = mkdtempSync(join(scratch, 'data-'));
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ image: { maxWidth: 960 }, memory: { model: { baseUrl: memoryModel.url } } }));
    await preparePage();
    const model = await startScriptedServer({
      replies: [
        toolCall([{ type: 'click', ...toImage(centreOf(TARGET_LAYOUT.field)) }, { type: 'type', text: NAME }], 'I click the name field and type the name.'),
        toolCall([{ type: 'click', ...toImage(centreOf(TARGET_LAYOUT.area)) }], 'Now the notes box.'),
        toolCall([{ type: 'type', text: NOTES }], 'I type the notes.'),
        toolCall([{ type: 'click', ...toImage(centreOf(TARGET_LAYOUT['btn-center'])) }], 'I submit the form.'),
        toolCall([{ type: 'finished', summary: 'The form is filled and submitted.' }], 'Done.'),
      ],
    });
    try {
      const run = await mnemo(['run', `Fill in the form with ${NAME} and submit it`, '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive']);
      if (run.code !== 0) throw new Error(`the recording failed (exit ${run.code}): ${run.stderr}`);
    } finally {
      await model.close();
    }
    expect(submitted().map((e) => [e.field, e.area])).toEqual([[NAME, NOTES]]);
    [recordedId] = sessionIds(dataDir) as [string];
  }, 180_000);
  afterAll(async () => {
    await screen?.close();
  });
  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(async () => {
      await failureScreenshot(screen.display, `workflow-${label}-${task.name}`);
    });
  });

  it('saves the run with parameters: --json lists them and the steps', async () => {
    const saved = await mnemo(['workflow', 'save', recordedId, '--name', 'form', '--param', `name=${NAME}`, '--param', `notes=${NOTES}`, '--data-dir', dataDir, '--json']);
    expect(saved.code, saved.stderr).toBe(0);
    const json = JSON.parse(saved.stdout) as { name: string; params: unknown[]; steps: Array<{ index: number; description: string; action: { type: string; text?: string } }>; trusted: boolean };
    expect(json.name).toBe('form');
    expect(json.trusted).toBe(true);
    expect(json.params).toEqual([
      { name: 'name', secret: false, example: NAME },
      { name: 'notes', secret: false, example: NOTES },
    ]);
    expect(json.steps.map((step) => step.action.type)).toEqual(['click', 'type', 'click', 'type', 'click']);
    expect(json.steps.map((step) => step.index)).toEqual([1, 2, 3, 4, 5]);
    expect(json.steps[1]!.action).toEqual({ type: 'type', text: '{{name}}' });
    expect(json.steps[3]!.action).toEqual({ type: 'type', text: '{{notes}}' });
    const shown = await mnemo(['workflow', 'show', 'form', '--data-dir', dataDir, '--json']);
    expect(JSON.parse(shown.stdout)).toEqual(json);
    const listed = await mnemo(['workflow', 'list', '--data-dir', dataDir, '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'form', params: ['name', 'notes'], steps: 5, source: recordedId, trusted: true }]);
  }, 300_000);

  it('on the unchanged page: the new values submitted, with no model call', async () => {
    await preparePage();
    const run = await runWorkflow();
    expect(run.code, run.stderr).toBe(0);
    expect(submitted().map((e) => [e.field, e.area])).toEqual([[NEW_NAME, NEW_NOTES]]);
    expect(clicked()).toEqual(['field', 'area', 'btn-center']);
    expect(steps(run).map((e) => e.decision)).toEqual(['replayed', 'replayed', 'replayed', 'replayed', 'replayed']);
    expect(report(run)).toMatchObject({ type: 'workflow-report', status: 'finished', steps: 5, replayed: 5, modelCalls: 0, tokens: 0, costUsd: 0, recording: { modelCalls: 5 } });
    // The run is a session like any other, recorded beside the one it came from.
    const sessions = JSON.parse((await mnemo(['sessions', '--data-dir', dataDir, '--json'])).stdout) as Array<{ id: string; status: string }>;
    expect(sessions.find((s) => s.id === run.events[0]!.runId)).toMatchObject({ status: 'finished' });
  }, 120_000);

  it('on the page moved by 150 px: every target found again, no model call', async () => {
    const moved = await preparePage({ move: MOVE });
    expect(moved.rects.field.x).toBe(TARGET_LAYOUT.field.x + MOVE.dx);
    const run = await runWorkflow();
    expect(run.code, run.stderr).toBe(0);
    expect(submitted().map((e) => [e.field, e.area])).toEqual([[NEW_NAME, NEW_NOTES]]);
    expect(clicked()).toEqual(['field', 'area', 'btn-center']);
    const decisions = steps(run).map((e) => e.decision);
    expect(decisions.filter((_, i) => i % 2 === 0)).toEqual(['refound', 'refound', 'refound']);
    expect(report(run)).toMatchObject({ status: 'finished', refound: 3, grounded: 0, modelCalls: 0, tokens: 0 });
    console.log(`[workflow ${label}] moved: ${steps(run).map((e) => `${e.step} ${e.decision}: ${e.how}`).join(' | ')}`);
  }, 120_000);

  it('on the page moved and restyled: the model grounds at most the steps that differ, once each', async () => {
    const state = await preparePage({ move: MOVE, restyle: true });
    const at = (rect: Rect) => toImage(centreOf(rect));
    const targets = { field: at(state.rects.field), area: at(state.rects.area), button: at(state.rects['btn-center']) };
    const recorded = { field: toImage(centreOf(TARGET_LAYOUT.field)), area: toImage(centreOf(TARGET_LAYOUT.area)), button: toImage(centreOf(TARGET_LAYOUT['btn-center'])) };
    // The model answers where the element it is asked about is now (from the recorded point it is told).
    const model = await startScriptedServer({
      replies: (request) => {
        const text = JSON.stringify(request.body.messages);
        const which = (['field', 'area', 'button'] as const).find((name) => text.includes(`you did click at (${recorded[name].x}, ${recorded[name].y})`)) ?? 'button';
        return toolCall([{ type: 'click', ...targets[which] }], `The ${which} is now at another place, with another look.`);
      },
    });
    try {
      const run = await runWorkflow(['--policy', 'reground', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools']);
      expect(run.code, run.stderr).toBe(0);
      expect(submitted().map((e) => [e.field, e.area])).toEqual([[NEW_NAME, NEW_NOTES]]);
      expect(clicked()).toEqual(['field', 'area', 'btn-center']);
      const decided = steps(run);
      console.log(`[workflow ${label}] restyled: ${decided.map((e) => `${e.step} ${e.decision}: ${e.how}`).join(' | ')}`);
      const diverged = decided.filter((e) => e.decision !== 'replayed');
      for (const step of decided) expect(step.modelCalls).toBeLessThanOrEqual(step.decision === 'grounded' ? 1 : 0);
      const calls = decided.reduce((sum, e) => sum + (e.modelCalls as number), 0);
      expect(calls).toBeLessThanOrEqual(diverged.length);
      expect(calls).toBe(model.requests.length);
      expect(decided.filter((e) => e.decision === 'grounded').length).toBeGreaterThan(0);
      expect(report(run)).toMatchObject({ status: 'finished', modelCalls: calls, grounded: decided.filter((e) => e.decision === 'grounded').length });
    } finally {
      await model.close();
    }
  }, 300_000);

  it('with the submit button removed: stopped before acting, exit 3, nothing clicked there', async () => {
    await preparePage({ noButton: true });
    const run = await runWorkflow();
    expect(run.code, run.stderr).toBe(3);
    expect(steps(run).map((e) => e.decision)).toEqual(['replayed', 'replayed', 'replayed', 'replayed', 'stopped']);
    expect(run.stderr).toMatch(/step 5 \(click at \(\d+, \d+\)[^)]*\)?\) diverged: /);
    expect(report(run)).toMatchObject({ type: 'workflow-report', status: 'failed', stopped: 1, modelCalls: 0 });
    await screen.server.settle(300);
    // The field and the notes were filled; no click came after them, no submit.
    expect(clicked()).toEqual(['field', 'area']);
    expect(submitted()).toEqual([]);
    const state = await screen.server.state();
    expect([state.field.value, state.area.value]).toEqual([NEW_NAME, NEW_NOTES]);
  }, 120_000);

  it.runIf(size === null)('an export whose typing was changed: imported untrusted and refused (nothing reaches the page), then trusted and run as it really is', async () => {
    const exportFile = join(scratch, `form-${label}.json`);
    expect((await mnemo(['workflow', 'export', 'form', '-o', exportFile, '--data-dir', dataDir])).code).toBe(0);
    const file = JSON.parse(readFileSync(exportFile, 'utf8')) as { workflow: { steps: Array<{ description: string; action: unknown }> } };
    expect(file.workflow.steps[1]!.description).toBe('type "{{name}}"');
    file.workflow.steps[1]!.action = { type: 'type', text: TAMPERED };
    writeFileSync(exportFile, JSON.stringify(file));
    const imported = await mnemo(['workflow', 'import', exportFile, '--name', 'form-shared', '--data-dir', dataDir]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(`TYPES   2. type "${TAMPERED}"`);

    await preparePage();
    const refused = await mnemo(['workflow', 'run', 'form-shared', '--set', `name=${NEW_NAME}`, '--set', `notes=${NEW_NOTES}`, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('mnemo workflow trust form-shared');
    await screen.server.settle(300);
    expect(screen.server.events().filter((e) => e.type === 'click' || e.type === 'keydown')).toEqual([]);

    expect((await mnemo(['workflow', 'trust', 'form-shared', '--data-dir', dataDir])).code).toBe(0);
    const run = await mnemo(['workflow', 'run', 'form-shared', '--set', `name=${NEW_NAME}`, '--set', `notes=${NEW_NOTES}`, '--data-dir', dataDir, '--json']);
    expect(run.code, run.stderr).toBe(0);
    // What the page received: the text the step really types, not the parameter its old description named.
    expect(submitted().map((e) => [e.field, e.area])).toEqual([[TAMPERED, NEW_NOTES]]);
  }, 180_000);

  it('refuses a missing or an unknown parameter (exit 2, naming it)', async () => {
    const missing = await mnemo(['workflow', 'run', 'form', '--set', `name=${NEW_NAME}`, '--data-dir', dataDir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing parameter "notes"/);
    const unknown = await mnemo(['workflow', 'run', 'form', '--set', `name=${NEW_NAME}`, '--set', 'notes=x', '--set', 'city=Paris', '--data-dir', dataDir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown parameter "city"/);
  }, 180_000);

  it('is offered to a run whose task matches it, and run by the model with run_workflow: the form filled with its params, one call for it and one to finish', async () => {
    await preparePage();
    const params = { name: 'Katherine Johnson', notes: 'Orbital mechanics, Friendship 7' };
    const model = await startScriptedServer({
      replies: [
        toolCall([{ type: 'run_workflow', name: 'form', params }], 'A saved workflow fills in this form.'),
        toolCall([{ type: 'finished', summary: 'The workflow filled in and submitted the form.' }], 'The form is submitted.'),
      ],
    });
    try {
      const run = await mnemo(['run', `Fill in the form with ${params.name} and submit it`, '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive']);
      expect(run.code, run.stderr).toBe(0);
      // The page: the model's values typed and submitted by the workflow's steps.
      expect(submitted().map((e) => [e.field, e.area])).toEqual([[params.name, params.notes]]);
      expect(clicked()).toEqual(['field', 'area', 'btn-center']);
      // Two model calls: the one that ran it, the one that finished; the first offered it.
      expect(model.requests).toHaveLength(2);
      const [first, second] = model.requests.map((request) => JSON.stringify(request.body));
      expect(first).toContain('Saved workflows that may do this task');
      expect(first).toContain('\\"form\\": Fill in the form with {{name}} and submit it');
      expect(second).toContain('run_workflow \\"form\\" finished: its 5 steps done (5 replayed');
      // The run's record: step 1 the model's, steps 2-6 the workflow's with their decisions, step 7 the model's again.
      expect(run.events.filter((e) => e.type === 'workflow-step').map((e) => [e.step, e.decision])).toEqual([
        [2, 'replayed'],
        [3, 'replayed'],
        [4, 'replayed'],
        [5, 'replayed'],
        [6, 'replayed'],
      ]);
      expect(run.events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 7 });
    } finally {
      await model.close();
    }
  }, 180_000);

  it('answers the model a run_workflow it cannot run, naming what is missing, and does nothing', async () => {
    await preparePage();
    const model = await startScriptedServer({
      replies: [
        toolCall([{ type: 'run_workflow', name: 'form', params: { name: 'Mary Jackson' } }], 'A saved workflow fills in this form.'),
        toolCall([{ type: 'finished', summary: 'Could not.' }], 'It needs the notes.'),
      ],
    });
    try {
      const run = await mnemo(['run', 'Fill in the form with Mary Jackson', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive']);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.stringify(model.requests[1]?.body)).toContain('run_workflow \\"form\\" failed: missing parameter \\"notes\\"');
      expect(run.events.filter((e) => e.type === 'workflow-step')).toEqual([]);
      await screen.server.settle(300);
      expect(clicked()).toEqual([]);
    } finally {
      await model.close();
    }
  }, 180_000);
});

describe('a secret parameter, and damaged workflows', () => {
  const SECRET = 'hunter2-swordfish';
  let screen: Screen;
  let dataDir: string;
  const mnemo = (args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}) => mnemoOn(screen, args, options);

  beforeAll(async () => {
    screen = await openScreen('1280x800', null);
    dataDir = mkdtempSync(join(scratch, 'data-'));
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ image: { maxWidth: 960 }, memory: { model: { baseUrl: memoryModel.url } } }));
    await screen.server.reset();
    const field = { x: Math.round((centreOf(TARGET_LAYOUT.field).x * 960) / 1280), y: Math.round((centreOf(TARGET_LAYOUT.field).y * 600) / 800) };
    const model = await startScriptedServer({
      replies: [
        toolCall([{ type: 'click', ...field }, { type: 'type', text: 'old-password-1', secret: true }], 'I type the password.'),
        toolCall([{ type: 'finished', summary: 'Typed.' }], 'Done.'),
      ],
    });
    try {
      const run = await mnemo(['run', 'Type the password', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive']);
      if (run.code !== 0) throw new Error(`the recording failed (exit ${run.code}): ${run.stderr}`);
    } finally {
      await model.close();
    }
  }, 180_000);
  afterAll(async () => {
    await screen?.close();
  });

  it('is typed from MNEMO_PARAM_<NAME> and found in no file of the data directory, nor in the export', async () => {
    const [recordedId] = sessionIds(dataDir) as [string];
    const saved = await mnemo(['workflow', 'save', recordedId, '--name', 'login', '--secret', 'password', '--data-dir', dataDir, '--json']);
    expect(saved.code, saved.stderr).toBe(0);
    expect(JSON.parse(saved.stdout)).toMatchObject({ params: [{ name: 'password', secret: true, example: '********' }] });
    await screen.server.reset();
    screen.server.clear();
    const run = await mnemo(['workflow', 'run', 'login', '--data-dir', dataDir, '--json'], { env: { MNEMO_PARAM_password: SECRET } });
    expect(run.code, run.stderr).toBe(0);
    expect((await screen.server.state()).field.value).toBe(SECRET);
    expect(run.stdout).not.toContain(SECRET);
    const exportFile = join(scratch, 'login.json');
    const exported = await mnemo(['workflow', 'export', 'login', '-o', exportFile, '--data-dir', dataDir]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(exportFile, 'utf8')).not.toContain(SECRET);
    expect(readdirSync(dataDir, { recursive: true }).length).toBeGreaterThan(10);
    expect(filesHolding(dataDir, SECRET)).toEqual([]);
  }, 300_000);

  it('is asked for on the terminal when neither --set nor the environment gives it', async () => {
    await screen.server.reset();
    screen.server.clear();
    const run = await mnemo(['workflow', 'run', 'login', '--data-dir', dataDir, '--json'], { input: `${SECRET}-2\n` });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/password/);
    expect((await screen.server.state()).field.value).toBe(`${SECRET}-2`);
    const none = await mnemo(['workflow', 'run', 'login', '--data-dir', dataDir]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/missing secret parameter "password"/);
  }, 120_000);

  it('refuses a damaged workflow and a bad file to import, with the reason, changing nothing', async () => {
    const file = join(dataDir, 'workflows', 'login', 'workflow.json');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, good.replace('"version": 1', '"version": 7'));
    const shown = await mnemo(['workflow', 'show', 'login', '--data-dir', dataDir]);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toMatch(/workflow "login" is damaged: version: /);
    screen.server.clear();
    const run = await mnemo(['workflow', 'run', 'login', '--data-dir', dataDir], { env: { MNEMO_PARAM_password: SECRET } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/workflow "login" is damaged/);
    expect(screen.server.events().filter((e) => e.type === 'click' || e.type === 'keydown')).toEqual([]);
    writeFileSync(file, good);

    const bad = join(scratch, 'bad.json');
    writeFileSync(bad, JSON.stringify({ format: 'mnemo-workflow-export', version: 1, workflow: { name: 'x' }, files: {} }));
    const before = readdirSync(join(dataDir, 'workflows')).sort();
    const imported = await mnemo(['workflow', 'import', bad, '--data-dir', dataDir]);
    expect(imported.code).toBe(2);
    expect(imported.stderr).toMatch(/not a valid workflow file: workflow\./);
    expect(readdirSync(join(dataDir, 'workflows')).sort()).toEqual(before);
  }, 120_000);
});
