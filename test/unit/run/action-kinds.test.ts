/**
 * `AgentRun.act` hands each action to its kind, from one table (src/main/agent/action-kinds.ts):
 * every action type has exactly one kind, and one step whose batch holds every kind runs each in
 * its turn, on the fakes: what the operator was made to do, what the model is told next, the
 * record's notes and the run's ending.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_KINDS, kindOf } from '../../../src/main/agent/action-kinds';
import { ACTION_TYPES, parseAction, type Action } from '../../../src/shared/actions';
import { ofType, reply } from '../../fixtures/fakes';
import { runAgent } from './agent-harness';

describe('the table of action kinds', () => {
  it('takes every action type of the schema in exactly one kind', () => {
    expect(ACTION_KINDS.map((kind) => kind.name)).toEqual(['workflow', 'save fact', 'recall', 'control', 'desktop']);
    const taken = ACTION_KINDS.flatMap((kind) => kind.types);
    expect([...taken].sort()).toEqual([...ACTION_TYPES].sort());
    expect(new Set(taken).size).toBe(taken.length);
    const kindName = (value: Record<string, unknown>) => {
      const parsed = parseAction(value);
      if (!parsed.ok) throw new Error(parsed.message);
      return kindOf(parsed.action).name;
    };
    expect(kindName({ type: 'run_workflow', name: 'invoice' })).toBe('workflow');
    expect(kindName({ type: 'save_fact', subject: 'user', keyword: 'editor', value: 'vim' })).toBe('save fact');
    expect(kindName({ type: 'query_long_term_memory', hint: 'the editor' })).toBe('recall');
    expect(kindName({ type: 'ask_user', question: 'Which one?' })).toBe('control');
    expect(kindName({ type: 'hotkey', keys: ['ctrl', 's'] })).toBe('desktop');
  });
});

describe('a step with an action of every kind', () => {
  it('runs each by its kind, in order, and ends where the control action says', async () => {
    const batch: Action[] = [
      { type: 'save_fact', subject: 'user', keyword: 'editor', description: '', value: 'vim' },
      { type: 'query_long_term_memory', hint: 'the favourite editor' },
      { type: 'click', x: 10, y: 20, button: 'left' },
      { type: 'run_workflow', name: 'invoice', params: {} },
      { type: 'ask_user', question: 'Which file?' },
      { type: 'click', x: 30, y: 40, button: 'left' },
    ] as Action[];
    const run = await runAgent({ turns: [reply(batch), reply([{ type: 'finished', summary: 'Done.' }])], answers: ['notes.txt'] });

    // The desktop kind carried out both clicks, and nothing else reached the operator.
    expect(run.operator.executed.map((done) => done.action)).toEqual([
      { type: 'click', x: 10, y: 20, button: 'left' },
      { type: 'click', x: 30, y: 40, button: 'left' },
    ]);
    // The memory kinds said what they did in the record.
    const notes = ofType(run.events, 'note').map((note) => note.message);
    expect(notes).toEqual([
      'The fact editor was not saved: no fact memory is kept for this run.',
      'long-term memory on "the favourite editor": No long-term memory is kept for this run.',
    ]);
    // The control kind asked; the step went on after the answer.
    expect(ofType(run.events, 'ask-user').map((asked) => asked.question)).toEqual(['Which file?']);
    // What the model is told with its next request: one line from each kind that answers it.
    expect(run.model.calls[1]?.input.feedback?.split('\n')).toEqual([
      'The fact editor was not saved: no fact memory is kept for this run.',
      'Long-term memory on "the favourite editor": No long-term memory is kept for this run.',
      'run_workflow is not available in this run: no saved workflows here',
      'The user answered your question "Which file?": notes.txt',
    ]);
    expect(run.end).toMatchObject({ status: 'finished', summary: 'Done.', steps: 2 });
  });
});
