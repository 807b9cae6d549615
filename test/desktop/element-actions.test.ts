/**
 * Acting on elements (issue 30, items 3 and 4), end to end: the real `mnemo run` on a private
 * desktop of the test's own (its X display, session bus and accessibility bus, Chromium in kiosk
 * on the fill form), a scripted model in the `tools` family. With the aid on (`list`),
 * `click_element` and `type_into` fill the form by number; a read-back catches text that went to
 * another field; a ref taken away is `stale_element`, a value; the checkbox is read back. With the
 * aid off, a plain click still names the element it hit and reads the checkbox back, and plain
 * typing is read back. Through MCP (the official SDK's client), `snapshot` gives refs and `act`
 * takes them; a ref of an older snapshot, or of an element taken away, is refused. At 1280x800
 * and at 1920x1080 (the model's image 1280x720).
 *
 * The scripted model finds each element's number as the run does: a snapshot of the same tree,
 * numbered in the same reading order.
 *
 * Debian packages: at-spi2-core, dbus-daemon, chromium.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Element, ElementSnapshot } from '../../src/shared/elements';
import { findElements } from '../../src/main/operator/a11y/element-query';
import { openElementReader, type OpenReader } from '../../src/main/operator/a11y/open-reader';
import { DesktopHost, type PrivateDesktop } from '../../src/main/operator/private-desktop/desktop-host';
import { CHROMIUM_EXECUTABLE, CHROMIUM_MACHINE_FLAGS } from '../fixtures/chromium-flags';
import { FIRST_PRIVATE_DISPLAY, waitUntil } from '../fixtures/desktop/private-desktops';
import { useElementDesktops, withoutMachineBuses } from '../fixtures/elements/element-desktops';
import { useMemoryModel } from '../fixtures/memory-model';
import { snapshotWhen } from '../fixtures/elements/snapshot-when';
import { startFormServer, type FormServer } from '../fixtures/elements/form-server';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';
import { connectStdio } from '../fixtures/mcp-client';
import { startScriptedServer, type RecordedRequest, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';

const SLOW = { timeout: 400_000 };
const { scratch, desktops, readers } = useElementDesktops('mnemo-element-actions-');
const memoryModel = useMemoryModel();

async function startDesktop(size: { width: number; height: number }, url: string): Promise<{ desktop: PrivateDesktop; reader: OpenReader }> {
  const host = new DesktopHost({ dataDir: mkdtempSync(join(scratch, 'host-')), firstDisplay: FIRST_PRIVATE_DISPLAY, env: withoutMachineBuses() });
  const profile = mkdtempSync(join(scratch, 'profile-'));
  const chromium = [CHROMIUM_EXECUTABLE, ...CHROMIUM_MACHINE_FLAGS, '--kiosk', '--test-type', `--user-data-dir=${profile}`, url].join(' ');
  const started = await host.start({ size, apps: [chromium] });
  if (!started.ok) throw new Error(started.message);
  desktops.push(started.desktop);
  const opening = await openElementReader(started.desktop.env);
  if (!opening.ok) throw new Error(opening.message);
  readers.push(opening.opened);
  return { desktop: started.desktop, reader: opening.opened };
}


function one(snapshot: ElementSnapshot, role: string, name: string): Element {
  const [found] = findElements(snapshot.elements, { role, name });
  if (!found) throw new Error(`no ${role}:${name} in ${JSON.stringify(snapshot.elements.map((element) => `${element.role}:${element.name}`))}`);
  return found;
}

const hasSubmit = (snapshot: ElementSnapshot) => snapshot.elements.some((element) => element.role === 'push button' && element.name === 'Submit');

function toolCall(actions: unknown[], thought: string): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

/** Every text the request's messages hold (the feedback the model is told is among them). */
function requestText(request: RecordedRequest): string {
  return JSON.stringify(request.body?.messages ?? []);
}

function dataDir(elements: 'list' | 'marks' | 'off'): string {
  const dir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ image: { maxWidth: 1280 }, model: { elements }, memory: { model: { baseUrl: memoryModel.url } } }));
  return dir;
}

async function runOn(desktop: PrivateDesktop, model: ScriptedServer, data: string, task: string) {
  const run = await runMnemo(['run', task, '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', data, '--json', '--non-interactive'], {
    env: { ...desktop.env, OPENAI_API_KEY: '' },
  });
  return { run, events: jsonLines(run.stdout) };
}

type ResultEvent = { type: 'action-result'; step: number; index: number; action: { type: string }; result: Record<string, unknown> };
const resultsOf = (events: Array<{ type: string }>) => events.filter((event): event is ResultEvent => event.type === 'action-result');

describe.each([
  { width: 1280, height: 800, image: { width: 1280, height: 800 } },
  { width: 1920, height: 1080, image: { width: 1280, height: 720 } },
])('element actions on Chromium at $width x $height', ({ width, height, image }) => {
  let form: FormServer;
  let desktop: PrivateDesktop;
  let reader: OpenReader;

  beforeAll(async () => {
    form = await startFormServer();
    ({ desktop, reader } = await startDesktop({ width, height }, form.fillUrl));
    await waitUntil(() => form.fillReady(), 'the fill form to be laid out', 90_000);
    await snapshotWhen(reader, hasSubmit, 'the fill form in the tree');
  }, 240_000);

  afterAll(async () => {
    await form?.close();
  });

  it('list: click_element and type_into fill the form and submit it; the checkbox and the fields are read back, a password by length; text that went elsewhere is caught and told; a removed element is stale_element', SLOW, async () => {
    const numberOf = async (role: string, name: string) => one(await snapshotWhen(reader, () => true, 'a snapshot'), role, name).n;
    const steps: Array<(request: RecordedRequest) => Promise<ScriptedReply>> = [
      async () =>
        toolCall(
          [
            { type: 'type_into', n: await numberOf('entry', 'Full name'), text: 'Ada Lovelace' },
            { type: 'type_into', n: await numberOf('entry', 'Email'), text: 'ada@example.org' },
            { type: 'type_into', n: await numberOf('password text', 'Password'), text: 'pw-secret-1' },
            { type: 'click_element', n: await numberOf('check box', 'Subscribe') },
          ],
          'I fill in the form.',
        ),
      async () => toolCall([{ type: 'type_into', n: await numberOf('entry', 'Nickname'), text: 'zed' }], 'I add a nickname.'),
      async () => toolCall([{ type: 'click_element', n: await numberOf('push button', 'Submit') }], 'I submit.'),
      async () => toolCall([{ type: 'click_element', n: await numberOf('push button', 'Remove Submit') }, { type: 'click_element', n: await numberOf('push button', 'Submit') }], 'I remove the button, then try it.'),
      async () => toolCall([{ type: 'finished', summary: 'Filled.' }], 'Done.'),
    ];
    let index = 0;
    const model = await startScriptedServer({ replies: async (request) => (steps[index++] ?? (async () => toolCall([{ type: 'finished' }], 'Done.')))(request) });
    try {
      const { run, events } = await runOn(desktop, model, dataDir('list'), 'Fill in the form');
      expect(run.code, run.stderr).toBe(0);
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished' });

      // What the page itself received.
      await waitUntil(() => form.submitted().length > 0, 'the form to be submitted', 30_000);
      const [sent] = form.submitted();
      expect(sent).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.org', secret: 'pw-secret-1', subscribe: true });
      expect(sent?.nickname).not.toBe('zed');

      const results = resultsOf(events);
      const ofStep = (step: number) => results.filter((event) => event.step === step).map((event) => event.result);
      const [name, email, secret, subscribe] = ofStep(1);
      expect(name).toMatchObject({ ok: true, type: 'type_into', element: { role: 'entry', name: 'Full name' }, check: { kind: 'value', ok: true } });
      expect(email).toMatchObject({ ok: true, element: { role: 'entry', name: 'Email' }, check: { kind: 'value', ok: true } });
      expect(secret).toMatchObject({ ok: true, element: { role: 'password text', name: 'Password' }, check: { kind: 'length', ok: true, message: expect.stringMatching(/11 characters/) } });
      expect(subscribe).toMatchObject({ ok: true, type: 'click_element', detail: 'clicked check box "Subscribe"', element: { role: 'check box', name: 'Subscribe' }, check: { kind: 'checked', ok: true } });
      // The element's box is where the tree says it is, on this screen.
      const scale = image.width / width;
      expect((name?.element as { bounds: { x: number } }).bounds.x * scale).toBeGreaterThan(0);

      // The text that went to another field: caught, in the step's record and told to the model.
      const [nickname] = ofStep(2);
      expect(nickname).toMatchObject({ ok: true, element: { role: 'entry', name: 'Nickname' }, check: { kind: 'value', ok: false, message: expect.stringMatching(/entry "Nickname" holds .* after typing "zed"/) } });
      expect(events).toContainEqual(expect.objectContaining({ type: 'note', step: 2, message: expect.stringMatching(/^read back after type_into: /) }));
      expect(requestText(model.requests[2] as RecordedRequest)).toMatch(/Read back after your action 1 \(type_into\)/);

      const [submit] = ofStep(3);
      expect(submit).toMatchObject({ ok: true, detail: 'clicked push button "Submit"', element: { role: 'push button', name: 'Submit' } });

      // The Submit button taken away within the step: its ref is stale, a value, and nothing else is clicked.
      const [removed, stale] = ofStep(4);
      expect(removed).toMatchObject({ ok: true, element: { role: 'push button', name: 'Remove Submit' } });
      expect(stale).toMatchObject({ ok: false, error: { kind: 'stale_element', message: expect.stringMatching(/^element \d+ \(push button "Submit"\) is stale: .*; look again/) } });
      expect(form.submitted()).toHaveLength(1);

      // The password never reached the record or the output.
      expect(run.stdout).not.toContain('pw-secret-1');
      // The model was told of the element actions only with the aid on.
      expect(JSON.stringify(model.requests[0]?.body?.tools ?? [])).toContain('click_element');
    } finally {
      await model.close();
    }
  });

  it('off: a plain click names the element it hit and reads the checkbox back; plain typing is read back', SLOW, async () => {
    const snapshot = await snapshotWhen(reader, () => true, 'a snapshot');
    const toImage = (element: Element) => ({ x: Math.round(((element.bounds.x + element.bounds.width / 2) * image.width) / width), y: Math.round(((element.bounds.y + element.bounds.height / 2) * image.height) / height) });
    const box = one(snapshot, 'check box', 'Subscribe');
    const notes = one(snapshot, 'entry', 'Notes');
    const wasChecked = box.states.includes('checked');
    const model = await startScriptedServer({
      replies: [
        toolCall([{ type: 'click', ...toImage(box) }], 'I toggle the box.'),
        toolCall([{ type: 'click', ...toImage(notes) }, { type: 'type', text: ' and more' }], 'I add a note.'),
        toolCall([{ type: 'finished', summary: 'Done.' }], 'Done.'),
      ],
    });
    try {
      const { run, events } = await runOn(desktop, model, dataDir('off'), 'Toggle the box');
      expect(run.code, run.stderr).toBe(0);
      const results = resultsOf(events).map((event) => event.result);
      expect(results[0]).toMatchObject({ ok: true, type: 'click', detail: 'clicked check box "Subscribe"', element: { role: 'check box', name: 'Subscribe' }, check: { kind: 'checked', ok: true, message: `check box "Subscribe" is ${wasChecked ? 'not checked' : 'checked'}` } });
      expect(results[0]).not.toHaveProperty('element.n');
      expect(results[1]).toMatchObject({ ok: true, element: { role: 'entry', name: 'Notes' } });
      expect(results[2]).toMatchObject({ ok: true, type: 'type', element: { role: 'entry', name: 'Notes' }, check: { kind: 'value', ok: true } });
      // Without the aid the model is offered no element actions.
      expect(JSON.stringify(model.requests[0]?.body?.tools ?? [])).not.toContain('click_element');
    } finally {
      await model.close();
    }
  });

  it('marks: the model names elements by the numbers of the list its request carries; they act on the element the list names', SLOW, async () => {
    // The numbers the model is given, read as a model would: from the list in its request.
    const numberIn = (request: RecordedRequest, role: string, name: string): number => {
      const text = requestText(request).replaceAll('\\"', '"');
      const found = new RegExp(`(\\d+)\\. ${role} "${name}"`).exec(text);
      if (!found) throw new Error(`no ${role} "${name}" in the list of the request: ${text.slice(0, 400)}`);
      return Number(found[1]);
    };
    const given: number[] = [];
    const steps: Array<(request: RecordedRequest) => ScriptedReply> = [
      (request) => {
        given.push(numberIn(request, 'entry', 'Notes'), numberIn(request, 'check box', 'Subscribe'));
        return toolCall([{ type: 'type_into', n: given[0] as number, text: 'marked notes' }, { type: 'click_element', n: given[1] as number }], 'I write a note and toggle the box.');
      },
      () => toolCall([{ type: 'finished', summary: 'Done.' }], 'Done.'),
    ];
    let index = 0;
    const model = await startScriptedServer({ replies: async (request) => (steps[index++] ?? (() => toolCall([{ type: 'finished' }], 'Done.')))(request) });
    try {
      const { run, events } = await runOn(desktop, model, dataDir('marks'), 'Write a note and toggle the box');
      expect(run.code, run.stderr).toBe(0);
      expect(requestText(model.requests[0] as RecordedRequest)).toMatch(/Interactive elements of/);
      const results = resultsOf(events).map((event) => event.result);
      expect(results[0]).toMatchObject({ ok: true, type: 'type_into', element: { role: 'entry', name: 'Notes', n: given[0] }, check: { kind: 'value', ok: true } });
      expect(results[1]).toMatchObject({ ok: true, type: 'click_element', element: { role: 'check box', name: 'Subscribe', n: given[1] }, check: { kind: 'checked', ok: true } });
      // What the page holds now: the note typed into its own field.
      const now = await snapshotWhen(reader, (snapshot) => one(snapshot, 'entry', 'Notes').value === 'marked notes', 'the note in its field');
      expect(one(now, 'entry', 'Notes').value).toBe('marked notes');
    } finally {
      await model.close();
    }
  });

  it('MCP: snapshot gives refs, act takes them (the field read back, the box toggled); a ref of an older snapshot or of an element taken away is refused', SLOW, async () => {
    const mcp = await connectStdio(['--data-dir', mkdtempSync(join(scratch, 'mcp-'))], { env: { ...desktop.env, OPENAI_API_KEY: '' } });
    type SnapshotAnswer = { snapshot: number; elements: Array<{ ref: string; role: string; name: string; value?: string; states: string[] }> };
    const callTool = async (name: string, args: Record<string, unknown>) =>
      (await mcp.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ type: string; text?: string }> };
    const snapshotNow = async () => {
      const answer = await callTool('snapshot', {});
      expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
      return answer.structuredContent as unknown as SnapshotAnswer;
    };
    const refOf = (taken: SnapshotAnswer, role: string, name: string) => {
      const found = taken.elements.find((element) => element.role === role && element.name === name);
      if (!found) throw new Error(`no ${role}:${name} in snapshot ${taken.snapshot}`);
      return found.ref;
    };
    try {
      const tools = await mcp.client.listTools();
      expect(tools.tools.find((tool) => tool.name === 'snapshot')?.annotations?.readOnlyHint).toBe(true);

      let first = await snapshotNow();
      expect(first.elements[0]?.ref).toMatch(new RegExp(`^s${first.snapshot}e\\d+$`));
      expect(first.elements.find((element) => element.role === 'password text')).not.toHaveProperty('value');
      // The Submit button there (the tests before may have taken it away: the Remove button puts it back).
      if (!first.elements.some((element) => element.role === 'push button' && element.name === 'Submit')) {
        const back = await callTool('act', { action: { type: 'click_element', ref: refOf(first, 'push button', 'Remove Submit') }, screenshotAfter: true });
        expect(back.isError, JSON.stringify(back.content)).toBeFalsy();
        first = await snapshotNow();
      }

      const typed = await callTool('act', { action: { type: 'type_into', ref: refOf(first, 'entry', 'Email'), text: 'grace@example.org' } });
      expect(typed.isError, JSON.stringify(typed.content)).toBeFalsy();
      expect(typed.structuredContent).toMatchObject({ ok: true, type: 'type_into', element: { role: 'entry', name: 'Email' }, check: { kind: 'value', ok: true, message: 'entry "Email" holds "grace@example.org"' } });
      const toggled = await callTool('act', { action: { type: 'click_element', ref: refOf(first, 'check box', 'Subscribe') } });
      expect(toggled.structuredContent).toMatchObject({ ok: true, element: { role: 'check box', name: 'Subscribe' }, check: { kind: 'checked', ok: true } });

      // Refs are tied to their snapshot: one of an older snapshot is refused, nothing done.
      const second = await snapshotNow();
      expect(second.snapshot).toBe(first.snapshot + 1);
      expect(second.elements.find((element) => element.role === 'entry' && element.name === 'Email')?.value).toBe('grace@example.org');
      const old = await callTool('act', { action: { type: 'click_element', ref: refOf(first, 'push button', 'Submit') } });
      expect(old.isError).toBe(true);
      expect(old.content[0]?.text).toMatch(/is stale: it is of snapshot \d+, and the latest is snapshot \d+/);

      // An element taken away: its ref of the latest snapshot is refused as stale_element, and Submit is not clicked.
      const submissions = form.submitted().length;
      const removed = await callTool('act', { action: { type: 'click_element', ref: refOf(second, 'push button', 'Remove Submit') }, screenshotAfter: true });
      expect(removed.isError, JSON.stringify(removed.content)).toBeFalsy();
      const gone = await callTool('act', { action: { type: 'click_element', ref: refOf(second, 'push button', 'Submit') } });
      expect(gone.isError).toBe(true);
      expect(gone.content[0]?.text).toMatch(/^stale_element: element \d+ \(push button "Submit"\) is stale: /);
      expect(form.submitted()).toHaveLength(submissions);
    } finally {
      await mcp.close();
    }
  });
});
