/**
 * A demonstration recorded as a session, with the X server's part played by a scripted input
 * recording (device events as RECORD delivers them) and a fake display (a 1280x800 screen
 * captured at 640x400): the session on disk has the user's steps, each with a screenshot from
 * before it and its action in pixels of that screenshot; text typed into a field labelled as a
 * password is masked and appears in no file; the stop chord and the signal both end it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MASK } from '../../../src/shared/describe-action';
import type { AgentEvent } from '../../../src/shared/events';
import { KeyboardLayout, type LayoutSource } from '../../../src/main/operator/keyboard/layout';
import type { EventSink, InputRecording } from '../../../src/main/operator/x11/input-recorder';
import type { DeviceEvent } from '../../../src/main/operator/x11/record';
import { FileRunRecorder } from '../../../src/main/store/run-recorder';
import { readSession } from '../../../src/main/store/session-reader';
import { Demonstration } from '../../../src/main/teach/demonstration';
import type { OcrWord, TextReader } from '../../../src/main/workflow/ocr';
import { FakeOperator } from '../../fixtures/fakes';
import { runContext } from '../../fixtures/run-context';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-teach-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const US = JSON.parse(readFileSync(new URL('../../fixtures/keymaps/us.json', import.meta.url), 'utf8')) as { minKeycode: number; modifiers: number[][]; rows: number[][] };
const LAYOUT: LayoutSource = { mapping: { minKeycode: US.minKeycode, rows: US.rows }, modifiers: US.modifiers, state: { group: 0, mods: 0 } };
const keyboard = KeyboardLayout.fromCore(LAYOUT);
const [CTRL, ALT, SHIFT, ENTER] = [37, 64, 50, 36];

/** Device events as RECORD delivers them, with server times from `time` on. */
class Script {
  readonly events: DeviceEvent[] = [];
  constructor(private time: number) {}
  private add(kind: DeviceEvent['kind'], press: boolean, detail: number, x = 0, y = 0): this {
    this.events.push({ kind, press, detail, time: (this.time += 30), x, y });
    return this;
  }
  click(x: number, y: number): this {
    return this.add('button', true, 1, x, y).add('button', false, 1, x, y).pause(1000);
  }
  pause(ms: number): this {
    this.time += ms;
    return this;
  }
  key(keycode: number, ...modifiers: number[]): this {
    for (const modifier of modifiers) this.add('key', true, modifier);
    this.add('key', true, keycode).add('key', false, keycode);
    for (const modifier of modifiers.reverse()) this.add('key', false, modifier);
    return this;
  }
  type(text: string): this {
    for (const char of text) {
      const [stroke] = keyboard.strokesFor(char)!;
      this.key(stroke!.keycode, ...stroke!.modifiers);
    }
    return this;
  }
}

function scriptedRecording(script: Script): InputRecording & { stopped: boolean } {
  let sink: EventSink | null = null;
  return {
    layout: LAYOUT,
    screen: { width: 1280, height: 800 },
    failure: null,
    stopped: false,
    begin(to) {
      sink = to;
      for (const event of script.events) to.push(event);
    },
    async stop() {
      this.stopped = true;
      sink?.close();
    },
  };
}

/** Reads "Name" next to the first field and "Password" next to the second (by the order of reads). */
function labels(...words: string[]): TextReader & { reads: number } {
  return {
    reads: 0,
    async read(): Promise<OcrWord[]> {
      const text = words[this.reads++] ?? '';
      return [{ text, confidence: 95, box: { x: 0, y: 0, width: 10, height: 10 } }];
    },
    async close() {},
  };
}

async function record(script: Script, reader: TextReader, signal = new AbortController().signal) {
  const dataDir = mkdtempSync(join(scratch, 'data-'));
  const recorder = await FileRunRecorder.create(dataDir, { task: 'sign in as Ada', model: 'none', family: 'demonstration' });
  const recording = scriptedRecording(script);
  const operator = new FakeOperator({ bounds: { x: 0, y: 0, width: 1280, height: 800 } });
  const events: AgentEvent[] = [];
  for await (const event of new Demonstration({ recording, reader }).record({ task: 'sign in as Ada', capture: { maxWidth: 640 } }, runContext({ operator, recorder }, signal))) {
    events.push(event);
  }
  const read = await readSession(dataDir, recorder.sessionId);
  if (!read.ok) throw new Error(read.message);
  return { events, session: read.session, dataDir, recording };
}

describe('Demonstration', () => {
  it('records the user’s steps, each with the screen before it and its action in pixels of that screen', async () => {
    const script = new Script(5000).click(800, 172).type('Ada').click(800, 260).type('hunter2!').key(ENTER).key(39, CTRL, ALT, SHIFT);
    const { session, events } = await record(script, labels('Name', 'Password'));
    expect(session.meta).toMatchObject({ status: 'finished', task: 'sign in as Ada', model: 'none', family: 'demonstration', steps: 5 });
    const actions = events.filter((event) => event.type === 'action');
    expect(actions.map((event) => event.type === 'action' && event.action)).toEqual([
      { type: 'click', x: 400, y: 86, button: 'left' },
      { type: 'type', text: 'Ada' },
      { type: 'click', x: 400, y: 130, button: 'left' },
      { type: 'type', text: MASK },
      { type: 'hotkey', keys: ['enter'] },
    ]);
    expect(actions.every((event) => event.actor === 'user')).toBe(true);
    for (const step of session.steps) {
      expect(step.screenshot, `step ${step.step}`).not.toBeNull();
      expect(step.screenshotMissing).toBeFalsy();
      expect(step.frame?.image).toMatchObject({ width: 640, height: 400 });
    }
    const results = events.filter((event) => event.type === 'action-result');
    expect(results.every((event) => event.type === 'action-result' && event.result.ok)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', reason: expect.stringContaining('ctrl+alt+shift+s') });
  });

  it('the password typed is in no file of the session', async () => {
    const script = new Script(5000).click(800, 260).type('hunter2!').key(ENTER).key(39, CTRL, ALT, SHIFT);
    const { dataDir } = await record(script, labels('Password'));
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
    const holding = files(dataDir).filter((file) => readFileSync(file).includes('hunter2'));
    expect(holding).toEqual([]);
    expect(files(dataDir).some((file) => readFileSync(file, 'utf8').includes(MASK))).toBe(true);
  });

  it('stopping it (Ctrl+C, the app) ends it as recorded, with what was done so far', async () => {
    const stop = new AbortController();
    const script = new Script(5000).click(100, 100).type('partial');
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const recorder = await FileRunRecorder.create(dataDir, { task: 't', model: 'none', family: 'demonstration' });
    const recording = scriptedRecording(script);
    const events: AgentEvent[] = [];
    const demo = new Demonstration({ recording, reader: null });
    const life = runContext({ operator: new FakeOperator({ bounds: { x: 0, y: 0, width: 1280, height: 800 } }), recorder }, stop.signal);
    for await (const event of demo.record({ task: 't', capture: {} }, life)) {
      events.push(event);
      if (event.type === 'note' && event.step === 0) stop.abort();
    }
    expect(recording.stopped).toBe(true);
    expect(events.filter((e) => e.type === 'action').map((e) => e.type === 'action' && e.action.type)).toEqual(['click', 'type']);
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 2 });
  });
});
