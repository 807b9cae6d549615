/** Parameters: values become placeholders when saved, placeholders values when run. */
import { describe, expect, it } from 'vitest';
import { MASK } from '../../../src/shared/describe-action';
import { applyParams, fillText, proposeParams, proposalsAsRequests, resolveParamValues, type TypedText } from '../../../src/main/workflow/params';

const typed: TypedText[] = [
  { step: 2, text: 'Ada Lovelace\n', near: ['#name'] },
  { step: 4, text: 'Dear Ada, see you in London.', near: [] },
  { step: 6, text: MASK, near: ['Password'] },
  { step: 8, text: 'London', near: ['City'] },
];

describe('applyParams', () => {
  it('replaces a value whole or inside a longer text, the longer value first', () => {
    const applied = applyParams(typed, [
      { name: 'first', value: 'Ada', secret: false },
      { name: 'name', value: 'Ada Lovelace', secret: false },
      { name: 'city', value: 'London', secret: false },
      { name: 'password', secret: true },
    ]);
    expect(applied).toEqual({
      ok: true,
      texts: new Map([
        [2, '{{name}}\n'],
        [4, 'Dear {{first}}, see you in {{city}}.'],
        [6, '{{password}}'],
        [8, '{{city}}'],
      ]),
      params: [
        { name: 'first', secret: false, example: 'Ada' },
        { name: 'name', secret: false, example: 'Ada Lovelace' },
        { name: 'city', secret: false, example: 'London' },
        { name: 'password', secret: true },
      ],
    });
  });

  it('keeps no example of a secret given with its value', () => {
    const applied = applyParams(typed, [{ name: 'city', value: 'London', secret: true }]);
    expect(applied).toMatchObject({ ok: true, params: [{ name: 'city', secret: true }] });
    expect(JSON.stringify(applied.ok && applied.params)).not.toContain('London');
  });

  it('refuses what it cannot do, naming it', () => {
    expect(applyParams(typed, [{ name: 'zip', value: '75001', secret: false }])).toEqual({ ok: false, message: '--param zip: no text typed in the recording contains "75001"' });
    expect(applyParams(typed, [{ name: 'pin', value: '1234', secret: true }])).toEqual({ ok: false, message: '--param pin: no text typed in the recording contains its value' });
    expect(applyParams(typed, [{ name: '1st', value: 'Ada', secret: false }])).toMatchObject({ ok: false, message: expect.stringMatching(/^parameter "1st": /) });
    expect(applyParams(typed, [{ name: 'a', value: 'Ada', secret: false }, { name: 'a', value: 'London', secret: false }])).toEqual({ ok: false, message: 'parameter "a" is given twice' });
    expect(applyParams(typed, [{ name: 'p1', secret: true }, { name: 'p2', secret: true }])).toMatchObject({ ok: false, message: expect.stringMatching(/^--secret p2 has no value and the recording has no masked text left for it/) });
  });
});

describe('proposeParams', () => {
  it('proposes each value typed once, named after the words near the field, secrets masked', () => {
    const proposed = proposeParams([...typed, { step: 9, text: 'Ada Lovelace', near: ['#name'] }, { step: 10, text: 'x', near: [] }]);
    expect(proposed).toEqual([
      { name: 'name', value: 'Ada Lovelace', secret: false, steps: [2, 9] },
      { name: 'text', value: 'Dear Ada, see you in London.', secret: false, steps: [4] },
      { name: 'password', value: MASK, secret: true, steps: [6] },
      { name: 'city', value: 'London', secret: false, steps: [8] },
      { name: 'text_2', value: 'x', secret: false, steps: [10] },
    ]);
    // Taken as they are (--auto-params), the longer value is replaced before the shorter one inside it.
    expect(applyParams(typed, proposalsAsRequests(proposeParams(typed)))).toMatchObject({ ok: true, texts: new Map([[2, '{{name}}\n'], [4, '{{text}}'], [6, '{{password}}'], [8, '{{city}}']]) });
  });
});

describe('running with values', () => {
  const params = [
    { name: 'name', secret: false, example: 'Ada' },
    { name: 'password', secret: true },
  ];

  it('fills placeholders, leaving unknown ones', () => {
    expect(fillText('{{name}} / {{other}}', new Map([['name', 'Grace']]))).toBe('Grace / {{other}}');
  });

  it('takes --set, then MNEMO_PARAM_<NAME>; a secret left out is for the prompt', () => {
    expect(resolveParamValues(params, ['name=Grace Hopper=1'], {})).toEqual({ ok: true, values: new Map([['name', 'Grace Hopper=1']]), missingSecrets: ['password'] });
    expect(resolveParamValues(params, [], { MNEMO_PARAM_NAME: 'Grace', MNEMO_PARAM_password: 'pw' })).toEqual({ ok: true, values: new Map([['name', 'Grace'], ['password', 'pw']]), missingSecrets: [] });
  });

  it('refuses an unknown or a missing parameter, naming it', () => {
    expect(resolveParamValues(params, ['city=Paris'], {})).toEqual({ ok: false, message: 'unknown parameter "city" (this workflow\'s parameters: name, password)' });
    expect(resolveParamValues(params, [], {})).toEqual({ ok: false, message: 'missing parameter "name": give --set name=VALUE' });
    expect(resolveParamValues(params, ['name'], {})).toMatchObject({ ok: false, message: '--set must be NAME=VALUE, got "name"' });
  });
});
