/**
 * The Workflows view's forms before anything is sent: the proposals confirmed into a save request
 * (a masked secret takes the next masked text, a value marked secret keeps its value to find), the
 * names checked (the workflow's, taken unless replacing, each parameter's, none twice), a value
 * per parameter to run, a file to import read as JSON, and the hash that opens one workflow.
 */
import { describe, expect, it } from 'vitest';
import { MASK } from '../../../src/shared/describe-action';
import { SaveWorkflowSchema, StartWorkflowRunSchema } from '../../../src/shared/app-api';
import { choicesOf, exportFileName, importFileOf, runRequestOf, saveRequestOf } from '../../../src/renderer/src/views/workflows/workflow-forms';
import { workflowOfHash, workflowsHash } from '../../../src/renderer/src/views/workflows/workflows-hash';

const PROPOSED = [
  { name: 'name', value: 'Ada Lovelace', secret: false, steps: [2] },
  { name: 'secret', value: MASK, secret: true, steps: [4] },
  { name: 'notes', value: 'Note G', secret: false, steps: [6] },
];

describe('Save as workflow', () => {
  it('takes every proposal as proposed; a masked one can only be a secret', () => {
    const choices = choicesOf(PROPOSED);
    expect(choices.map((c) => [c.name, c.use, c.secret, c.masked])).toEqual([
      ['name', true, false, false],
      ['secret', true, true, true],
      ['notes', true, false, false],
    ]);
  });

  it('sends the confirmed ones: values to find, a secret marked by the user keeps its value, a masked one none', () => {
    const choices = choicesOf(PROPOSED);
    choices[0] = { ...choices[0]!, name: ' person ' };
    choices[1] = { ...choices[1]!, name: 'password' };
    choices[2] = { ...choices[2]!, secret: true };
    const request = saveRequestOf('20250101-120000-abcdef', ' form ', choices, ['other'], false);
    expect(request).toEqual({
      ok: true,
      value: {
        session: '20250101-120000-abcdef',
        name: 'form',
        params: [
          { name: 'person', value: 'Ada Lovelace', secret: false },
          { name: 'password', secret: true },
          { name: 'notes', value: 'Note G', secret: true },
        ],
        autoParams: false,
      },
    });
    // What the contract takes, as it is.
    expect(SaveWorkflowSchema.parse(request.ok ? request.value : null)).toEqual(request.ok ? request.value : null);
  });

  it('leaves out what is unticked', () => {
    const choices = choicesOf(PROPOSED).map((choice, i) => ({ ...choice, use: i === 2 }));
    expect(saveRequestOf('s', 'form', choices, [], false)).toMatchObject({ ok: true, value: { params: [{ name: 'notes', value: 'Note G', secret: false }] } });
  });

  it('refuses a bad workflow name, a name taken unless replacing, a bad parameter name and one used twice, naming each', () => {
    const choices = choicesOf(PROPOSED);
    expect(saveRequestOf('s', 'my form', choices, [], false)).toEqual({ ok: false, problem: { key: 'workflowName', values: { name: 'my form' } } });
    expect(saveRequestOf('s', '', choices, [], false)).toMatchObject({ ok: false, problem: { key: 'workflowName' } });
    expect(saveRequestOf('s', 'form', choices, ['form'], false)).toEqual({ ok: false, problem: { key: 'nameTaken', values: { name: 'form' } } });
    expect(saveRequestOf('s', 'form', choices, ['form'], true)).toMatchObject({ ok: true, value: { name: 'form' } });
    const badParam = choices.map((choice, i) => (i === 0 ? { ...choice, name: '2nd-name' } : choice));
    expect(saveRequestOf('s', 'form', badParam, [], false)).toEqual({ ok: false, problem: { key: 'paramName', values: { name: '2nd-name' } } });
    const twice = choices.map((choice, i) => (i === 2 ? { ...choice, name: 'name' } : choice));
    expect(saveRequestOf('s', 'form', twice, [], false)).toEqual({ ok: false, problem: { key: 'paramTwice', values: { name: 'name' } } });
    // An unticked proposal's name is not checked: it is not sent.
    const unticked = badParam.map((choice, i) => (i === 0 ? { ...choice, use: false } : choice));
    expect(saveRequestOf('s', 'form', unticked, [], false).ok).toBe(true);
  });
});

describe('Run workflow', () => {
  const params = [{ name: 'name' }, { name: 'password' }];

  it('sends a value per parameter and the policy, and nothing else typed', () => {
    const request = runRequestOf('form', params, { name: 'Grace Hopper', password: 'Hj4$Wn8%', stale: 'x' }, 'reground');
    expect(request).toEqual({ ok: true, value: { name: 'form', values: { name: 'Grace Hopper', password: 'Hj4$Wn8%' }, policy: 'reground' } });
    expect(StartWorkflowRunSchema.safeParse(request.ok ? request.value : null).success).toBe(true);
  });

  it('names the first parameter left empty', () => {
    expect(runRequestOf('form', params, { name: 'Grace Hopper' }, 'stop')).toEqual({ ok: false, problem: { key: 'noValue', values: { name: 'password' } } });
    expect(runRequestOf('form', params, { name: '', password: 'x' }, 'stop')).toEqual({ ok: false, problem: { key: 'noValue', values: { name: 'name' } } });
    expect(runRequestOf('plain', [], {}, 'stop')).toEqual({ ok: true, value: { name: 'plain', values: {}, policy: 'stop' } });
  });
});

describe('Import and Export', () => {
  it('reads a file as the object import takes, or says why not', () => {
    expect(importFileOf('{"format":"mnemo-workflow-export"}')).toEqual({ ok: true, value: { format: 'mnemo-workflow-export' } });
    expect(importFileOf('{"format":')).toMatchObject({ ok: false, problem: { key: 'notJson', values: { reason: expect.any(String) } } });
    expect(importFileOf('[1, 2]')).toEqual({ ok: false, problem: { key: 'notAnExport' } });
    expect(importFileOf('null')).toEqual({ ok: false, problem: { key: 'notAnExport' } });
  });

  it('names the exported file after the workflow', () => {
    expect(exportFileName('invoice_2.v-1')).toBe('invoice_2.v-1.mnemo-workflow.json');
  });
});

describe('the Workflows view in the hash', () => {
  it('opens one workflow by name, and reads it back', () => {
    expect(workflowsHash()).toBe('/workflows');
    expect(workflowsHash('invoice_2.v-1')).toBe('/workflows/invoice_2.v-1');
    expect(workflowOfHash(`#${workflowsHash('invoice_2.v-1')}`)).toBe('invoice_2.v-1');
    expect(workflowOfHash('#/workflows')).toBeNull();
    expect(workflowOfHash('#/history')).toBeNull();
    expect(workflowOfHash('#/workflows/%E0%A4%A')).toBeNull();
  });
});
