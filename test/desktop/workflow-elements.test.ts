/**
 * Workflows remember elements, on real apps: each size on a private desktop of its own (its own X
 * display, session bus and accessibility bus, started before Chromium, as a run's private desktop
 * is), with the restyle form in kiosk Chromium, and the real CLI.
 *
 * - `mnemo teach` while xdotool clicks and types as a user would: each click keeps the element it
 *   hit (role, name, the named elements around it, its box); text typed into the password field
 *   reached with Tab is masked, by its role alone (its label, "Phrase", names no secret).
 * - `mnemo workflow save` keeps those elements beside the image anchors.
 * - The form restyled (every element moved and recoloured): `mnemo workflow run` under the reground
 *   policy fills it with new values, and the scripted model receives no request: every click was
 *   found by its element.
 * - Without a tree to read, the same run goes by its pixels alone, as before elements: the
 *   recoloured form stops it at its first click (exit 3), which its element found.
 * - The Submit button gone (a Send button elsewhere): that step falls back as before elements,
 *   the model grounding it (one request), the other steps still found by their elements.
 *
 * Debian packages: at-spi2-core, dbus-daemon, chromium, xdotool.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASK } from '../../src/shared/describe-action';
import type { Rect } from '../../src/shared/frame';
import type { Workflow } from '../../src/shared/workflow';
import { namesASecret } from '../../src/main/run/masking';
import { readSession } from '../../src/main/store/session-reader';
import { DesktopHost, type PrivateDesktop } from '../../src/main/operator/private-desktop/desktop-host';
import { openElementReader } from '../../src/main/operator/a11y/open-reader';
import { CHROMIUM_EXECUTABLE, CHROMIUM_MACHINE_FLAGS } from '../fixtures/chromium-flags';
import { FIRST_PRIVATE_DISPLAY, waitUntil } from '../fixtures/desktop/private-desktops';
import { withoutMachineBuses } from '../fixtures/elements/element-desktops';
import { startRestyleFormServer, type FormVariant, type RestyleFormEvent, type RestyleFormServer } from '../fixtures/elements/restyle-form-server';
import { useMemoryModel } from '../fixtures/memory-model';
import { runMnemoJson, startMnemo, type StartedMnemo } from '../fixtures/mnemo-cli';
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';

type Event = { type: string; [key: string]: unknown };

/** Chromium and the CLI on a busy machine: minutes, not seconds (nothing here is timed). */
const SLOW = { timeout: 360_000 };
const DEADLINE_MS = 90_000;
const NAME = 'Ada Lovelace';
const PHRASE = 'hunter2!';
const NEW_NAME = 'Grace Hopper';
const NEW_PHRASE = 'swordfish';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-workflow-elements-'));
const memoryModel = useMemoryModel();
afterAll(() => {
  if (!process.env.KEEP_SCRATCH) rmSync(scratch, { recursive: true, force: true });
});

const filesUnder = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
const centre = (rect: Rect) => ({ x: Math.round(rect.x + rect.width / 2), y: Math.round(rect.y + rect.height / 2) });


function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(file, [...args], { env, timeout: 20_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${file} ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout))),
  );
}

const toolCall = (actions: unknown[], thought: string): ScriptedReply => ({ text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] });

describe.each([
  { width: 1280, height: 800, image: { width: 1280, height: 800 } },
  { width: 1920, height: 1080, image: { width: 1280, height: 720 } },
])('a form taught with its elements at $width x $height', ({ width, height, image }) => {
  let form: RestyleFormServer;
  let desktop: PrivateDesktop;
  let dataDir: string;
  let sessionId: string;

  /** `mnemo` on the desktop: its display and its buses, no API key from this machine. */
  const env = () => ({ ...desktop.env, OPENAI_API_KEY: '' });
  const xdotool = (...args: string[]) => run('xdotool', args, desktop.env);
  const submitted = () => form.events().filter((e): e is Extract<RestyleFormEvent, { type: 'submit' }> => e.type === 'submit');
  const toImage = (p: { x: number; y: number }) => ({ x: Math.round((p.x * image.width) / width), y: Math.round((p.y * image.height) / height) });

  /** The page in `variant`, its fields empty, the pointer parked; its layout once it reported it (kiosk: page pixels are screen pixels). */
  async function show(variant: FormVariant): Promise<Record<'user' | 'phrase' | 'submit', Rect>> {
    await xdotool('mousemove', String(width - 40), String(height - 40));
    form.show(variant);
    await waitUntil(() => form.layout() !== undefined, `the page laid out as ${variant}`, DEADLINE_MS);
    form.clear();
    return (form.layout() as Extract<RestyleFormEvent, { type: 'layout' }>).rects;
  }

  beforeAll(async () => {
    form = await startRestyleFormServer();
    const profile = mkdtempSync(join(scratch, 'profile-'));
    // No --force-renderer-accessibility here: the private desktop adds it.
    const chromium = [CHROMIUM_EXECUTABLE, ...CHROMIUM_MACHINE_FLAGS, '--kiosk', '--test-type', `--user-data-dir=${profile}`, form.url].join(' ');
    const host = new DesktopHost({ dataDir: mkdtempSync(join(scratch, 'desktops-')), firstDisplay: FIRST_PRIVATE_DISPLAY, env: withoutMachineBuses() });
    const started = await host.start({ size: { width, height }, apps: [chromium] });
    if (!started.ok) throw new Error(started.message);
    desktop = started.desktop;
    dataDir = mkdtempSync(join(scratch, 'data-'));
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ image: { maxWidth: image.width }, memory: { model: { baseUrl: memoryModel.url } } }));
    // The page in the tree (the renderer builds it after the window shows).
    const opening = await openElementReader(desktop.env);
    if (!opening.ok) throw new Error(opening.message);
    try {
      await waitUntil(
        async () => {
          const taken = await opening.opened.reader.snapshot();
          return taken.ok && taken.snapshot.elements.some((element) => element.role === 'push button' && element.name === 'Submit');
        },
        'the form in the accessibility tree',
        DEADLINE_MS,
      );
    } finally {
      opening.opened.close();
    }
  }, 240_000);

  afterAll(async () => {
    await desktop?.stop();
    await form?.close();
  });

  it('teach keeps the element of each click, and masks what went into the password field reached with Tab, by its role', SLOW, async () => {
    const rects = await show('plain');
    // Its label names no secret: the pixels' words alone would keep the text.
    expect(namesASecret('Phrase')).toBe(false);
    const events: Event[] = [];
    const teaching: StartedMnemo = startMnemo(['teach', 'Sign up', '--data-dir', dataDir, '--json'], { env: env(), onEvent: (event) => events.push(event as Event) });
    const actions = () => events.filter((e) => e.type === 'action').map((e) => e.action as { type: string; text?: string });
    const recorded = (count: number) => waitUntil(() => actions().length >= count, `${count} recorded actions (have ${JSON.stringify(actions())})`, DEADLINE_MS);
    let ended = false;
    void teaching.result.then(() => (ended = true));
    await waitUntil(() => ended || events.some((e) => e.type === 'note' && e.step === 0), 'the recording to start', DEADLINE_MS);
    expect(ended, teaching.output().stderr).toBe(false);

    const user = centre(rects.user);
    await xdotool('mousemove', String(user.x), String(user.y), 'click', '1');
    await waitUntil(() => form.events().some((e) => e.type === 'focus' && e.id === 'user'), 'the name field to take the focus', DEADLINE_MS);
    await recorded(1);
    await xdotool('type', '--delay', '20', NAME);
    await xdotool('key', 'Tab');
    await waitUntil(() => form.events().some((e) => e.type === 'focus' && e.id === 'phrase'), 'Tab to move the focus to the phrase', DEADLINE_MS);
    await xdotool('type', '--delay', '20', PHRASE);
    const submit = centre(rects.submit);
    await xdotool('mousemove', String(submit.x), String(submit.y), 'click', '1');
    await waitUntil(() => submitted().length === 1, 'the submit', DEADLINE_MS);
    await recorded(5);
    teaching.child.kill('SIGINT');
    const result = await teaching.result;
    expect(result.code, result.stderr).toBe(0);
    expect(submitted()).toEqual([{ type: 'submit', user: NAME, phrase: PHRASE, button: 'Submit' }]);

    expect(actions()).toEqual([
      expect.objectContaining({ type: 'click' }),
      { type: 'type', text: NAME },
      expect.objectContaining({ type: 'hotkey' }),
      { type: 'type', text: MASK },
      expect.objectContaining({ type: 'click' }),
    ]);
    expect(filesUnder(dataDir).filter((file) => readFileSync(file).includes(PHRASE))).toEqual([]);

    sessionId = String(events[0]?.runId);
    const read = await readSession(dataDir, sessionId);
    if (!read.ok) throw new Error(read.message);
    const hit = read.session.events.flatMap((e) => (e.type === 'action-result' && e.result.ok && e.result.element ? [e.result.element] : []));
    expect(hit.map((element) => [element.role, element.name])).toEqual([
      ['entry', 'User name'],
      ['push button', 'Submit'],
    ]);
    // Its box is where the page says it is; the named elements around it include the page.
    expect(Math.abs((hit[1]?.bounds.x ?? 0) - rects.submit.x)).toBeLessThanOrEqual(1);
    expect(Math.abs((hit[1]?.bounds.y ?? 0) - rects.submit.y)).toBeLessThanOrEqual(1);
    expect(hit[1]?.path).toEqual(expect.arrayContaining(['document web:Sign-up form']));
  });

  it('saved, and run on the restyled form (every element moved and recoloured): no model call, every click found by its element', SLOW, async () => {
    const saved = await runMnemoJson(['workflow', 'save', sessionId, '--name', 'signup', '--param', `name=${NAME}`, '--secret', 'phrase', '--data-dir', dataDir, '--json'], { env: env() });
    expect(saved.code, saved.stderr).toBe(0);
    const workflow = JSON.parse(readFileSync(join(dataDir, 'workflows', 'signup', 'workflow.json'), 'utf8')) as Workflow;
    expect(workflow.steps.map((step) => step.anchors[0]?.element?.role ?? null)).toEqual(['entry', null, null, null, 'push button']);
    expect(workflow.steps[0]?.anchors[0]?.element).toMatchObject({ name: 'User name', path: expect.arrayContaining(['document web:Sign-up form']) });

    const before = await show('plain');
    const rects = await show('restyled');
    for (const id of ['user', 'phrase', 'submit'] as const) expect(rects[id].x - before[id].x).toBe(440);
    const model: ScriptedServer = await startScriptedServer({ replies: [] });
    try {
      const ran = await runMnemoJson(
        ['workflow', 'run', 'signup', '--set', `name=${NEW_NAME}`, '--set', `phrase=${NEW_PHRASE}`, '--policy', 'reground', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive'],
        { env: env() },
      );
      const steps = ran.events.filter((e) => e.type === 'workflow-step');
      console.log(`[restyled ${width}x${height}] ${steps.map((e) => `${e.step} ${e.decision}/${e.foundBy ?? '-'}: ${e.how}`).join(' | ')}`);
      expect(ran.code, ran.stderr).toBe(0);
      expect(submitted()).toEqual([{ type: 'submit', user: NEW_NAME, phrase: NEW_PHRASE, button: 'Submit' }]);
      expect(model.requests.length).toBe(0);
      const clicks = steps.filter((e) => e.step === 1 || e.step === 5);
      expect(clicks.map((e) => [e.decision, e.foundBy])).toEqual([
        ['refound', 'element'],
        ['refound', 'element'],
      ]);
      expect(ran.events.at(-1)).toMatchObject({ type: 'workflow-report', status: 'finished', steps: 5, modelCalls: 0, grounded: 0, foundBy: { element: 2, template: 0, ocr: 0, model: 0 } });
    } finally {
      await model.close();
    }
  });

  it('without the tree (no accessibility bus to be found) the same run goes by its pixels alone, as before elements: restyled, it stops at the first click', SLOW, async () => {
    await show('restyled');
    // An accessibility bus address that does not answer: the run has no tree, and says nothing of one.
    const ran = await runMnemoJson(['workflow', 'run', 'signup', '--set', `name=${NEW_NAME}`, '--set', `phrase=${NEW_PHRASE}`, '--data-dir', dataDir, '--json', '--non-interactive'], {
      env: { ...env(), AT_SPI_BUS_ADDRESS: `unix:path=${join(scratch, 'no-such-bus')}` },
    });
    const steps = ran.events.filter((e) => e.type === 'workflow-step');
    console.log(`[no tree ${width}x${height}] exit ${ran.code}: ${steps.map((e) => `${e.step} ${e.decision}/${e.foundBy ?? '-'}: ${e.how}`).join(' | ')}`);
    // The recolour leaves the field's patch unlike (and no word near it was recorded): nothing of the pixels finds it.
    expect(ran.code).toBe(3);
    expect(steps.map((e) => [e.step, e.decision, e.foundBy])).toEqual([[1, 'stopped', undefined]]);
    expect(submitted()).toEqual([]);
    expect(ran.events.find((e) => e.type === 'run-started')?.workflow).not.toHaveProperty('elements');
    expect(ran.events.at(-1)).not.toHaveProperty('foundBy');
  });

  it('the Submit button gone: that step falls back as before (the model grounds it, one call), the others found by their elements', SLOW, async () => {
    const rects = await show('renamed');
    const send = toImage(centre(rects.submit));
    const model: ScriptedServer = await startScriptedServer({ replies: [toolCall([{ type: 'click', ...send }], 'The button that sends the form is Send.')] });
    try {
      const ran = await runMnemoJson(
        ['workflow', 'run', 'signup', '--set', `name=${NEW_NAME}`, '--set', `phrase=${NEW_PHRASE}`, '--policy', 'reground', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive'],
        { env: env() },
      );
      const steps = ran.events.filter((e) => e.type === 'workflow-step');
      console.log(`[renamed ${width}x${height}] ${steps.map((e) => `${e.step} ${e.decision}/${e.foundBy ?? '-'}: ${e.how}`).join(' | ')}`);
      expect(ran.code, ran.stderr).toBe(0);
      expect(submitted()).toEqual([{ type: 'submit', user: NEW_NAME, phrase: NEW_PHRASE, button: 'Send' }]);
      expect(model.requests.length).toBe(1);
      const byStep = new Map(steps.map((e) => [e.step, e]));
      expect(byStep.get(1)).toMatchObject({ decision: 'refound', foundBy: 'element' });
      expect(byStep.get(5)).toMatchObject({ decision: 'grounded', foundBy: 'model', modelCalls: 1, how: expect.stringContaining('the element push button "Submit" is not in the accessibility tree') });
      expect(ran.events.at(-1)).toMatchObject({ type: 'workflow-report', status: 'finished', modelCalls: 1, grounded: 1, foundBy: { element: 1, model: 1 } });
    } finally {
      await model.close();
    }
  });
});
