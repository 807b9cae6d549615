/**
 * What a run read off the screen, folded from its record: each field typed into, by its name,
 * with what it held after (the last read of a field typed into twice), a password by its length
 * only, the closing summary under `summary`; reads that failed or were never made add nothing.
 */
import { expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events';
import type { ActionResult } from '../../../src/shared/action-result';
import { screenValuesOf } from '../../../src/main/run/screen-values';

const bounds = { x: 10, y: 10, width: 200, height: 24 };
let seq = 0;
const typed = (name: string, role: string, check: Extract<ActionResult, { ok: true }>['check']): AgentEvent =>
  ({ seq: ++seq, at: seq, type: 'action-result', step: 1, index: 0, action: { type: 'type', text: 'x' }, result: { ok: true, type: 'type', durationMs: 1, element: { role, name, bounds }, ...(check ? { check } : {}) } }) as AgentEvent;

it('keeps each field by name with its last read, a password by length, the summary under summary', () => {
  const events: AgentEvent[] = [
    typed('Customer', 'entry', { kind: 'value', ok: true, message: 'entry "Customer" holds "Acme"', value: 'Acme' }),
    typed('Customer', 'entry', { kind: 'value', ok: false, message: '…', value: 'Acme Ltd' }),
    typed('Password', 'password text', { kind: 'length', ok: true, message: 'password text "Password" holds 8 characters, as typed', length: 8 }),
    typed('', 'entry', { kind: 'value', ok: true, message: '…', value: 'no name' }),
    typed('summary', 'entry', { kind: 'value', ok: true, message: '…', value: 'a field called summary' }),
    // A toggle's state, a read that found nothing, an action with no element: nothing read.
    typed('Agree', 'check box', { kind: 'checked', ok: true, message: 'check box "Agree" is checked' }),
    typed('Notes', 'entry', { kind: 'value', ok: false, message: 'could not be read back' }),
    typed('Plain', 'entry', undefined),
    { seq: ++seq, at: seq, type: 'run-finished', status: 'finished', reason: 'done', summary: 'Entered invoice 1001.', steps: 3, usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } } as AgentEvent,
  ];
  expect(screenValuesOf(events)).toEqual({
    Customer: 'Acme Ltd',
    Password: '(hidden, 8 characters)',
    entry: 'no name',
    'entry summary': 'a field called summary',
    summary: 'Entered invoice 1001.',
  });
});

it('is empty for a run that typed into nothing and said nothing', () => {
  expect(screenValuesOf([{ seq: 1, at: 1, type: 'run-finished', status: 'failed', reason: 'no', summary: null, steps: 0, usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } } as AgentEvent])).toEqual({});
});
