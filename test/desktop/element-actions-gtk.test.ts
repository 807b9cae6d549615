/**
 * Acting on elements of a GTK3 app (issue 30's acceptance: "a GTK3 app"), end to end: the real
 * `mnemo run` on a private desktop of the test's own (its X display, session bus and
 * accessibility bus) running `zenity --forms` with two entries, a password entry and a calendar,
 * and a scripted model in the `tools` family that reads the element numbers from the list its
 * request carries, as a model would. It types into each field with `type_into` and presses OK
 * with `click_element`.
 *
 * The effect is checked where it lands: zenity prints the form's values on its stdout when OK is
 * pressed, and the app's command sends that to a file the test reads. The run's own read-backs
 * are checked too: each field's value, the password by its length only.
 *
 * zenity lays a label beside each field and ties neither to the other, so the tree names none of
 * its fields; the snapshot names each from the label beside it (label-names.ts), which is what
 * lets the model tell "Full name" from "Email" at all. In `list` and in `marks` mode, at 1280x800
 * and at 1920x1080 (the model's image 1280x720). With the aid off, plain clicks name the field they
 * hit by the same label (the element at the point, a snapshot answering for a field the tree
 * leaves unnamed) and the OK button, and plain typing is read back.
 *
 * Debian packages: at-spi2-core, dbus-daemon, zenity, openbox.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ElementSnapshot } from '../../src/shared/elements';
import { openElementReader, type OpenReader } from '../../src/main/operator/a11y/open-reader';
import { DesktopHost, type PrivateDesktop } from '../../src/main/operator/private-desktop/desktop-host';
import { FIRST_PRIVATE_DISPLAY, waitUntil } from '../fixtures/desktop/private-desktops';
import { useElementDesktops, withoutMachineBuses } from '../fixtures/elements/element-desktops';
import { useMemoryModel } from '../fixtures/memory-model';
import { snapshotWhen } from '../fixtures/elements/snapshot-when';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';
import { connectStdio } from '../fixtures/mcp-client';
import { startScriptedServer, type RecordedRequest, type ScriptedReply } from '../fixtures/openai-server';

const SLOW = { timeout: 400_000 };
const { scratch, desktops, readers } = useElementDesktops('mnemo-element-actions-gtk-');
const memoryModel = useMemoryModel();

const TITLE = 'Sign up (GTK)';

/** A private desktop running the zenity form; what zenity prints goes to `output`. */
async function startForm(size: { width: number; height: number }): Promise<{ desktop: PrivateDesktop; reader: OpenReader; output: string }> {
  const output = join(mkdtempSync(join(scratch, 'zenity-')), 'printed.txt');
  const form = [
    'zenity --forms',
    `--title='${TITLE}'`,
    "--text='Sign up'",
    "--add-entry='Full name'",
    '--add-entry=Email',
    '--add-password=Password',
    '--add-calendar=Birthday',
    "--forms-date-format='%Y-%m-%d'",
    `> '${output}'`,
  ].join(' ');
  const host = new DesktopHost({ dataDir: mkdtempSync(join(scratch, 'host-')), firstDisplay: FIRST_PRIVATE_DISPLAY, env: withoutMachineBuses() });
  const started = await host.start({ size, apps: [form] });
  if (!started.ok) throw new Error(started.message);
  desktops.push(started.desktop);
  expect(started.desktop.notes).toEqual([]);
  const opening = await openElementReader(started.desktop.env);
  if (!opening.ok) throw new Error(opening.message);
  readers.push(opening.opened);
  return { desktop: started.desktop, reader: opening.opened, output };
}

const hasForm = (snapshot: ElementSnapshot) =>
  snapshot.elements.some((element) => element.role === 'push button' && element.name === 'OK') && snapshot.elements.some((element) => element.role === 'password text');

function toolCall(actions: unknown[], thought: string): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

/** Every text the request's messages hold (the element list among them), its quotes unescaped. */
function requestText(request: RecordedRequest): string {
  return JSON.stringify(request.body?.messages ?? []).replaceAll('\\"', '"');
}

/** The number the request's element list gives `role "name"`, read as a model would read it. */
function numberIn(request: RecordedRequest, role: string, name: string): number {
  const text = requestText(request);
  const found = new RegExp(`(\\d+)\\. ${role} "${name}"`).exec(text);
  if (!found) throw new Error(`no ${role} "${name}" in the list of the request: ${text.slice(0, 600)}`);
  return Number(found[1]);
}

function dataDir(elements: 'list' | 'marks'): string {
  const dir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ image: { maxWidth: 1280 }, model: { elements }, memory: { model: { baseUrl: memoryModel.url } } }));
  return dir;
}

type ResultEvent = { type: 'action-result'; step: number; index: number; action: { type: string }; result: Record<string, unknown> };
const resultsOf = (events: Array<{ type: string }>) => events.filter((event): event is ResultEvent => event.type === 'action-result');

describe.each([
  { width: 1280, height: 800, image: { width: 1280, height: 800 } },
  { width: 1920, height: 1080, image: { width: 1280, height: 720 } },
])('element actions on a GTK3 app (zenity --forms) at $width x $height', ({ width, height, image }) => {
  it.each(['list', 'marks'] as const)('%s: type_into fills each field and click_element presses OK; zenity prints what was typed; the fields are read back, the password by length', async (mode) => {
    const { desktop, reader, output } = await startForm({ width, height });
    const ready = await snapshotWhen(reader, hasForm, 'the zenity form in the tree');
    expect(ready.window).toMatchObject({ app: 'zenity', name: TITLE });

    const given: Record<string, number> = {};
    const steps: Array<(request: RecordedRequest) => ScriptedReply> = [
      (request) => {
        given.name = numberIn(request, 'text', 'Full name');
        given.email = numberIn(request, 'text', 'Email');
        given.password = numberIn(request, 'password text', 'Password');
        given.birthday = numberIn(request, 'calendar', 'Birthday');
        return toolCall(
          [
            { type: 'type_into', n: given.name, text: 'Ada Lovelace' },
            { type: 'type_into', n: given.email, text: 'ada@example.org' },
            { type: 'type_into', n: given.password, text: 'pw-secret-1' },
          ],
          'I fill in the form.',
        );
      },
      (request) => {
        given.ok = numberIn(request, 'push button', 'OK');
        return toolCall([{ type: 'click_element', n: given.ok }], 'I press OK.');
      },
      () => toolCall([{ type: 'finished', summary: 'Signed up.' }], 'Done.'),
    ];
    let index = 0;
    const model = await startScriptedServer({ replies: async (request) => (steps[index++] ?? (() => toolCall([{ type: 'finished' }], 'Done.')))(request) });
    try {
      const run = await runMnemo(['run', 'Sign up as Ada Lovelace', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir(mode), '--json', '--non-interactive'], {
        env: { ...desktop.env, OPENAI_API_KEY: '' },
      });
      expect(run.code, run.stderr).toBe(0);
      const events = jsonLines(run.stdout);
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished' });

      // Where it lands: zenity printed the form's values when OK was pressed (the calendar left at its day).
      await waitUntil(() => existsSync(output) && readFileSync(output, 'utf8').includes('\n'), 'zenity to print the form', 60_000);
      expect(readFileSync(output, 'utf8')).toMatch(/^Ada Lovelace\|ada@example\.org\|pw-secret-1\|\d{4}-\d{2}-\d{2}\n$/);

      // The model was told the fields by the labels beside them, in the mode's words.
      const first = requestText(model.requests[0] as RecordedRequest);
      expect(first).toMatch(mode === 'marks' ? /Interactive elements of "Sign up \(GTK\)" \(zenity\), numbered on the screenshot/ : /Interactive elements of "Sign up \(GTK\)" \(zenity\), from/);
      expect(new Set(Object.values(given)).size).toBe(5);

      const results = resultsOf(events);
      const ofStep = (step: number) => results.filter((event) => event.step === step).map((event) => event.result);
      const [name, email, secret] = ofStep(1);
      expect(name).toMatchObject({ ok: true, type: 'type_into', element: { role: 'text', name: 'Full name', n: given.name }, check: { kind: 'value', ok: true, message: 'text "Full name" holds "Ada Lovelace"' } });
      expect(email).toMatchObject({ ok: true, type: 'type_into', element: { role: 'text', name: 'Email', n: given.email }, check: { kind: 'value', ok: true } });
      expect(secret).toMatchObject({ ok: true, type: 'type_into', element: { role: 'password text', name: 'Password', n: given.password }, check: { kind: 'length', ok: true, message: expect.stringMatching(/11 characters/) } });
      const [ok] = ofStep(2);
      expect(ok).toMatchObject({ ok: true, type: 'click_element', detail: 'clicked push button "OK"', element: { role: 'push button', name: 'OK', n: given.ok } });

      // Each element's box was where the tree has it on this screen, inside the dialog.
      const dialog = ready.window.bounds;
      for (const acted of [name, email, secret, ok]) {
        const bounds = (acted?.element as { bounds: { x: number; y: number; width: number; height: number } }).bounds;
        expect(bounds.x).toBeGreaterThanOrEqual(dialog.x);
        expect(bounds.y).toBeGreaterThanOrEqual(dialog.y);
        expect(bounds.x + bounds.width).toBeLessThanOrEqual(dialog.x + dialog.width);
        expect(bounds.y + bounds.height).toBeLessThanOrEqual(dialog.y + dialog.height);
      }
      // The step's snapshot was on the model's image, scaled (1920 wide to 1280).
      const observed = events.find((event) => event.type === 'observation') as { frame: { image: { width: number; height: number }; bounds: { width: number } } } | undefined;
      expect(observed?.frame.image).toMatchObject(image);
      expect(observed?.frame.bounds.width).toBe(width);

      // The password never reached the run's record or output.
      expect(run.stdout).not.toContain('pw-secret-1');
    } finally {
      await model.close();
    }
  }, SLOW.timeout);

  it('off: plain clicks name the field they hit by its label and the OK button; plain typing is read back; zenity prints what was typed', SLOW, async () => {
    const { desktop, reader, output } = await startForm({ width, height });
    const ready = await snapshotWhen(reader, hasForm, 'the zenity form in the tree');
    const centreOf = (role: string, name: string) => {
      const found = ready.elements.find((element) => element.role === role && element.name === name);
      if (!found) throw new Error(`no ${role} "${name}" in ${JSON.stringify(ready.elements.map((element) => `${element.role}:${element.name}`))}`);
      // The model's image pixels, as a model would point.
      return { x: Math.round(((found.bounds.x + found.bounds.width / 2) * image.width) / width), y: Math.round(((found.bounds.y + found.bounds.height / 2) * image.height) / height) };
    };
    const model = await startScriptedServer({
      replies: [
        toolCall([{ type: 'click', ...centreOf('text', 'Full name') }, { type: 'type', text: 'Grace Hopper' }], 'I write the name.'),
        toolCall([{ type: 'click', ...centreOf('password text', 'Password') }, { type: 'type', text: 'pw-off-2' }], 'I write the password.'),
        toolCall([{ type: 'click', ...centreOf('push button', 'OK') }], 'I press OK.'),
        toolCall([{ type: 'finished', summary: 'Signed up.' }], 'Done.'),
      ],
    });
    try {
      const data = mkdtempSync(join(scratch, 'data-'));
      writeFileSync(join(data, 'config.json'), JSON.stringify({ image: { maxWidth: 1280 }, model: { elements: 'off' }, memory: { model: { baseUrl: memoryModel.url } } }));
      const run = await runMnemo(['run', 'Sign up as Grace Hopper', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', data, '--json', '--non-interactive'], {
        env: { ...desktop.env, OPENAI_API_KEY: '' },
      });
      expect(run.code, run.stderr).toBe(0);
      const events = jsonLines(run.stdout);
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished' });

      await waitUntil(() => existsSync(output) && readFileSync(output, 'utf8').includes('\n'), 'zenity to print the form', 60_000);
      expect(readFileSync(output, 'utf8')).toMatch(/^Grace Hopper\|\|pw-off-2\|\d{4}-\d{2}-\d{2}\n$/);

      const results = resultsOf(events);
      const ofStep = (step: number) => results.filter((event) => event.step === step).map((event) => event.result);
      const [nameClick, nameTyped] = ofStep(1);
      expect(nameClick).toMatchObject({ ok: true, type: 'click', detail: 'clicked text "Full name"', element: { role: 'text', name: 'Full name' } });
      expect(nameClick).not.toHaveProperty('element.n');
      expect(nameTyped).toMatchObject({ ok: true, type: 'type', element: { role: 'text', name: 'Full name' }, check: { kind: 'value', ok: true, message: 'text "Full name" holds "Grace Hopper"' } });
      const [secretClick, secretTyped] = ofStep(2);
      expect(secretClick).toMatchObject({ ok: true, detail: 'clicked password text "Password"', element: { role: 'password text', name: 'Password' } });
      expect(secretTyped).toMatchObject({ ok: true, type: 'type', element: { role: 'password text', name: 'Password' }, check: { kind: 'length', ok: true, message: expect.stringMatching(/8 characters/) } });
      const [ok] = ofStep(3);
      expect(ok).toMatchObject({ ok: true, type: 'click', detail: 'clicked push button "OK"', element: { role: 'push button', name: 'OK' } });
      // Without the aid the model is offered no element actions, and the password is nowhere in the output.
      expect(JSON.stringify(model.requests[0]?.body?.tools ?? [])).not.toContain('click_element');
      expect(run.stdout).not.toContain('pw-off-2');
    } finally {
      await model.close();
    }
  });
});

describe('MCP on a GTK3 app (zenity --forms)', () => {
  it('snapshot names the fields by their labels (nameFrom "label", within the tool\'s declared output); act by ref types into them and presses OK', SLOW, async () => {
    const { desktop, reader, output } = await startForm({ width: 1280, height: 800 });
    await snapshotWhen(reader, hasForm, 'the zenity form in the tree');
    const mcp = await connectStdio(['--data-dir', mkdtempSync(join(scratch, 'mcp-'))], { env: { ...desktop.env, OPENAI_API_KEY: '' } });
    type SnapshotAnswer = { snapshot: number; elements: Array<{ ref: string; role: string; name: string; nameFrom?: string }> };
    const callTool = async (name: string, args: Record<string, unknown>) =>
      (await mcp.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ type: string; text?: string }> };
    try {
      // The SDK's client checks the answer against the tool's output schema.
      const answer = await callTool('snapshot', {});
      expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
      const taken = answer.structuredContent as unknown as SnapshotAnswer;
      const refOf = (role: string, name: string) => {
        const found = taken.elements.find((element) => element.role === role && element.name === name);
        if (!found) throw new Error(`no ${role}:${name} in ${JSON.stringify(taken.elements)}`);
        return found;
      };
      expect(refOf('text', 'Full name')).toMatchObject({ nameFrom: 'label' });
      expect(refOf('push button', 'OK')).not.toHaveProperty('nameFrom');

      const typed = await callTool('act', { action: { type: 'type_into', ref: refOf('text', 'Full name').ref, text: 'Mary Somerville' } });
      expect(typed.structuredContent).toMatchObject({ ok: true, type: 'type_into', element: { role: 'text', name: 'Full name' }, check: { kind: 'value', ok: true, message: 'text "Full name" holds "Mary Somerville"' } });
      const secret = await callTool('act', { action: { type: 'type_into', ref: refOf('password text', 'Password').ref, text: 'pw-mcp-3' } });
      expect(secret.structuredContent).toMatchObject({ ok: true, element: { role: 'password text', name: 'Password' }, check: { kind: 'length', ok: true } });
      const pressed = await callTool('act', { action: { type: 'click_element', ref: refOf('push button', 'OK').ref } });
      expect(pressed.structuredContent).toMatchObject({ ok: true, type: 'click_element', detail: 'clicked push button "OK"' });

      await waitUntil(() => existsSync(output) && readFileSync(output, 'utf8').includes('\n'), 'zenity to print the form', 60_000);
      expect(readFileSync(output, 'utf8')).toMatch(/^Mary Somerville\|\|pw-mcp-3\|\d{4}-\d{2}-\d{2}\n$/);
    } finally {
      await mcp.close();
    }
  });
});
