/**
 * Sessions recorded before the event schema was tightened still read, with their steps, costs,
 * answers and errors. `test/fixtures/sessions-v1/` holds two real sessions made by `mnemo run`
 * (the scripted OpenAI server, Xvfb) with the code of that time: one finished after a reply that
 * did not parse, an HTTP error and a question answered on the terminal; one killed with SIGKILL
 * while its third step waited for the model. Their session.json was then rewritten at every step,
 * their step-finished events carried only the run's cost so far, and their answers no question id.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { totalsOf } from '../../../src/shared/run-totals';
import { readSession } from '../../../src/main/store/session-reader';
import { SessionStore } from '../../../src/main/store/session-store';
import { currentWriter } from '../../../src/main/store/writer-identity';
import { emptySession, withEvents } from '../../../src/renderer/src/store/session-fold';
import { deadPid, mnemo, repoRoot } from './helpers';

const FINISHED = '20261201-210201-7dfb1d';
const KILLED = '20261201-210218-421165';
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-sessions-v1-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A data directory holding a copy of the fixture; the killed run's writer is made a dead process of this host. */
function dataDir(): string {
  const dir = mkdtempSync(join(scratch, 'data-'));
  cpSync(join(repoRoot, 'test/fixtures/sessions-v1'), dir, { recursive: true });
  // Recorded on another machine: a writer of another host is never judged dead. Only its identity changes.
  const file = join(dir, 'sessions', KILLED, 'session.json');
  const meta = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...meta, writer: { ...currentWriter(), pid: deadPid() } }));
  return dir;
}

const PRICED = { inputTokens: 1200, outputTokens: 40, costUsd: 0.00272 };

describe('sessions recorded in the format before', () => {
  it('a finished run reads with its steps, costs, errors and answer', async () => {
    const read = await readSession(dataDir(), FINISHED);
    if (!read.ok) throw new Error(read.message);
    const { meta, steps, events, warnings } = read.session;
    expect(warnings).toEqual([]);
    expect(meta).toMatchObject({ status: 'finished', steps: 5, costUsd: 0.0104, usage: { inputTokens: 4600, outputTokens: 150, costUsd: 0.0104 } });
    expect(steps.map((step) => step.step)).toEqual([1, 2, 3, 4, 5]);
    expect(steps.map((step) => step.costUsd)).toEqual([0.00224, 0.00224, 0.00496, 0.00768, 0.0104]);
    // The step's own usage was its prediction's then: none for the reply that did not parse, nor for the HTTP error.
    expect(steps.map((step) => step.usage)).toEqual([null, null, PRICED, PRICED, PRICED]);
    expect(steps.map((step) => step.errors)).toEqual([
      [{ kind: 'parse', message: "the computer tool's arguments are not JSON: Unexpected end of JSON input" }],
      [{ kind: 'http', message: expect.stringMatching(/^HTTP 400 from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: the request was not valid$/) }],
      [],
      [],
      [],
    ]);
    const asked = events.find((event) => event.type === 'ask-user');
    expect(asked?.seq).toBe(29);
    expect(steps[2]?.questions).toEqual([{ id: 29, kind: 'question', question: 'Which colour?', answer: 'teal', answered: true }]);
    // The one fold: what the record's events add up to is what session.json and the window say.
    expect(totalsOf(events)).toMatchObject({ steps: 5, usage: meta.usage });
    const window = withEvents(emptySession(FINISHED), events);
    expect(window.run.totals.usage).toEqual(meta.usage);
    expect(window.steps.map((step) => step.questions.map((q) => q.answer))).toEqual([[], [], ['teal'], [], []]);
  });

  it('a run killed mid-step lists as interrupted with its finished steps and their cost, from its events', async () => {
    const dir = dataDir();
    const listing = await new SessionStore(dir).list();
    expect(listing.interrupted).toEqual([KILLED]);
    expect(listing.sessions).toEqual([
      expect.objectContaining({ id: KILLED, status: 'interrupted', steps: 2, costUsd: 0.00544, task: 'move twice then hang' }),
      expect.objectContaining({ id: FINISHED, status: 'finished', steps: 5, costUsd: 0.0104, task: 'pick a colour' }),
    ]);
    const read = await readSession(dir, KILLED);
    if (!read.ok) throw new Error(read.message);
    expect(read.session.meta).toMatchObject({ status: 'interrupted', steps: 2, costUsd: 0.00544, usage: { inputTokens: 2400, outputTokens: 80, costUsd: 0.00544 } });
    expect(read.session.steps.map((step) => [step.step, step.durationMs !== null, step.costUsd])).toEqual([
      [1, true, 0.00272],
      [2, true, 0.00544],
      [3, false, null],
    ]);
  });

  it('mnemo sessions and mnemo show print them as before, the answer with its question’s id', async () => {
    const dir = dataDir();
    const listed = await mnemo(['sessions', '--json', '--data-dir', dir]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      { id: KILLED, task: 'move twice then hang', status: 'interrupted', startedAt: '2026-12-01T21:02:18.506Z', steps: 2, cost: 0.00544 },
      { id: FINISHED, task: 'pick a colour', status: 'finished', startedAt: '2026-12-01T21:02:01.823Z', steps: 5, cost: 0.0104 },
    ]);
    const show = await mnemo(['show', FINISHED, '--json', '--data-dir', dir]);
    expect(show.code, show.stderr).toBe(0);
    const shown = JSON.parse(show.stdout) as { cost: number; usage: unknown; steps: Array<{ cost: number; usage: unknown; errors: Array<{ kind: string }>; questions: unknown[] }> };
    expect(shown).toMatchObject({ status: 'finished', cost: 0.0104, usage: { inputTokens: 4600, outputTokens: 150, costUsd: 0.0104 } });
    expect(shown.steps.map((step) => step.cost)).toEqual([0.00224, 0.00224, 0.00496, 0.00768, 0.0104]);
    expect(shown.steps.map((step) => step.errors.map((error) => error.kind))).toEqual([['parse'], ['http'], [], [], []]);
    expect(shown.steps[2]?.questions).toEqual([{ id: 29, kind: 'question', question: 'Which colour?', answer: 'teal' }]);
    const text = await mnemo(['show', FINISHED, '--data-dir', dir]);
    expect(text.stdout).toContain('  ! parse: ');
    expect(text.stdout).toContain('  ? Which colour? → teal');
  });
});
