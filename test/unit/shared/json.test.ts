/**
 * Finding JSON in a model's reply, as the fact extraction (arrays) and the tool-calling family's
 * text replies (objects) both do: fenced blocks first, then balanced values in the prose.
 */
import { describe, expect, it } from 'vitest';
import { findJsonInText } from '../../../src/shared/json';

const anArray = (value: unknown) => (Array.isArray(value) ? value : undefined);
const anAction = (value: unknown) => (typeof value === 'object' && value !== null && 'type' in value ? value : undefined);

describe('findJsonInText', () => {
  it('takes a fenced block before anything in the prose, and gives the fence as the span', () => {
    const text = 'First [1] then\n```json\n[2]\n```\nafter';
    const found = findJsonInText(text, '[', anArray);
    expect(found?.value).toEqual([2]);
    expect(text.slice(found!.start, found!.end)).toBe('```json\n[2]\n```');
  });

  it('reads fences marked json or jsonc in any case, or not marked', () => {
    for (const mark of ['', 'json', 'JSON', 'Json', 'jsonc', 'JSONC']) {
      expect(findJsonInText(`\`\`\`${mark}\n{"type":"wait"}\n\`\`\``, '{', anAction)?.value, mark).toEqual({ type: 'wait' });
    }
  });

  it('skips a fence the caller does not accept and goes on to the prose', () => {
    expect(findJsonInText('```json\n{"a": 1}\n```\nand [3]', '[', anArray)?.value).toEqual([3]);
    expect(findJsonInText('```json\n{"a": 1}\n```\n{"type": "click"}', '{', anAction)?.value).toEqual({ type: 'click' });
  });

  it('finds a balanced value in prose, brackets inside strings not counted, and gives its span', () => {
    const text = 'The facts are [{"a": "x]"}] and that is it.';
    const found = findJsonInText(text, '[', anArray);
    expect(found?.value).toEqual([{ a: 'x]' }]);
    expect(text.slice(found!.start, found!.end)).toBe('[{"a": "x]"}]');
    expect(findJsonInText('say {"text": "a \\" }"} {"type": "type", "text": "}"}', '{', anAction)?.value).toEqual({ type: 'type', text: '}' });
  });

  it('looks past openers that start no valid value', () => {
    expect(findJsonInText('a [ stray bracket, then [1, 2]', '[', anArray)?.value).toEqual([1, 2]);
    expect(findJsonInText('{ not json } {"type": "wait"}', '{', anAction)?.value).toEqual({ type: 'wait' });
    expect(findJsonInText('[1, 2}', '[', anArray)).toBeNull();
  });

  it('answers null when nothing is accepted', () => {
    expect(findJsonInText('no array here', '[', anArray)).toBeNull();
    expect(findJsonInText('{"a": 1}', '{', anAction)).toBeNull();
  });
});
