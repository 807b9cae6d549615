/**
 * SecretMask: the settings' secrets out of every text, whole or by any piece of 8 characters or
 * more, also inside JSON; short placeholders left alone; a streamed text holds back what may be
 * the start of a secret.
 */
import { describe, expect, it } from 'vitest';
import { MASK } from '../../../src/shared/describe-action';
import { SecretMask } from '../../../src/shared/secret-mask';
import { piecesIn } from '../../fixtures/secrets';

const KEY = 'sk-proj-Qm7vX2bL9tRcW4nZ8yHa1KdE';

describe('SecretMask', () => {
  const mask = new SecretMask([KEY]);

  it('masks the whole key, and a provider echoing part of it', () => {
    expect(mask.text(`Incorrect API key provided: ${KEY}. You can find your API key at ...`)).toBe(`Incorrect API key provided: ${MASK}. You can find your API key at ...`);
    const echoed = mask.text(`Incorrect API key provided: ${KEY.slice(0, 12)}****************${KEY.slice(-6)}.`);
    expect(piecesIn(echoed, KEY)).toEqual([]);
    expect(echoed).toContain(KEY.slice(-6)); // 6 characters: shorter than a piece worth masking
    expect(mask.text(`two keys ${KEY}${KEY} and a piece ${KEY.slice(10, 19)}!`)).toBe(`two keys ${MASK} and a piece ${MASK}!`);
  });

  it('masks it inside JSON, escaped once or twice', () => {
    const quoted = new SecretMask(['pa"ss\\word-123']);
    const once = JSON.stringify({ text: 'pa"ss\\word-123' });
    const twice = JSON.stringify({ arguments: once });
    expect(quoted.text(once)).not.toContain('word-123');
    expect(quoted.text(twice)).not.toContain('word-123');
    expect(() => JSON.parse(quoted.text(twice))).not.toThrow();
  });

  it('leaves short secrets (placeholders) and ordinary text alone', () => {
    const short = new SecretMask(['ollama', 'none', '']);
    expect(short.empty).toBe(true);
    expect(short.text('ollama serves none of it')).toBe('ollama serves none of it');
    expect(mask.text('the quick brown fox jumps over the lazy dog')).toBe('the quick brown fox jumps over the lazy dog');
  });

  it('masks every string of a value, sharing what did not change', () => {
    const unchanged = { a: 1, b: ['x', { c: 'plain text here' }] };
    expect(mask.deep(unchanged)).toBe(unchanged);
    const value = { type: 'action', action: { type: 'type', text: KEY }, list: [`echo ${KEY}`, 3], kept: unchanged };
    const masked = mask.deep(value);
    expect(masked).toEqual({ type: 'action', action: { type: 'type', text: MASK }, list: [`echo ${MASK}`, 3], kept: unchanged });
    expect(masked.kept).toBe(unchanged);
    expect(value.action.text).toBe(KEY);
  });

  it('holds back a tail that may be the start of the key, and a masked run that reaches the end', () => {
    expect(mask.heldTail('the key is sk-pr')).toBe(5);
    expect(mask.heldTail(`the key is ${KEY.slice(0, 14)}`)).toBe(14);
    expect(mask.heldTail('nothing here!')).toBe(0);
    expect(SecretMask.none.heldTail('sk-pr')).toBe(0);
  });

  it('takes one pass over a long text', () => {
    const long = `${'lorem ipsum '.repeat(200_000)}${KEY}`;
    expect(mask.text(long).endsWith(MASK)).toBe(true);
  });
});
