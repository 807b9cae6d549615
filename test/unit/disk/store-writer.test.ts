/**
 * The store writer applies the redaction policy to every text it writes, and what it writes still
 * reads back: JSON written whole or as lines stays valid JSON when a secret holds quotes,
 * backslashes or non-ASCII characters, and only the secret is masked.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MASK } from '../../../src/shared/describe-action';
import { SecretMask } from '../../../src/shared/secret-mask';
import { openPrivate } from '../../../src/main/disk/files';
import { StoreWriter } from '../../../src/main/disk/store-writer';
import { piecesIn } from '../../fixtures/secrets';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-store-writer-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SECRETS = ['sk-plain-0123456789abcdef', 'pa"ss\\wo"rd-with-quotes', 'clé-secrète-ünïcødé-42'];
const writer = new StoreWriter(new SecretMask(SECRETS));

describe('StoreWriter', () => {
  it('masks every secret in whole files, appends and JSON lines, which still parse', async () => {
    const value = { task: `use ${SECRETS[0]} then ${SECRETS[1]}`, nested: [{ note: `and ${SECRETS[2]}!` }], steps: 3 };
    const whole = join(scratch, 'whole.json');
    await writer.writeJson(whole, value);
    const lines = join(scratch, 'lines.jsonl');
    await writer.append(lines, `${JSON.stringify(value)}\n`);
    await writer.appendShared(lines, `${JSON.stringify({ escaped: JSON.stringify(value) })}\n`);
    const handle = await openPrivate(join(scratch, 'events.jsonl'), 'a');
    const size = await writer.appendWhole(handle, 0, `${JSON.stringify(value)}\n`);
    await handle.close();

    for (const file of [whole, lines, join(scratch, 'events.jsonl')]) {
      const text = readFileSync(file, 'utf8');
      for (const secret of SECRETS) expect(piecesIn(text, secret), `${file}: ${secret}`).toEqual([]);
      for (const line of file === whole ? [text] : text.trim().split('\n')) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
      expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    }
    expect(JSON.parse(readFileSync(whole, 'utf8'))).toEqual({ task: `use ${MASK} then ${MASK}`, nested: [{ note: `and ${MASK}!` }], steps: 3 });
    expect(size).toBe(statSync(join(scratch, 'events.jsonl')).size);
  });

  it('redacts before sealing, and leaves values it has nothing to mask in as they are', async () => {
    const sealed = join(scratch, 'sealed.txt');
    await writer.writeText(sealed, `key ${SECRETS[0]}`, { seal: (plain) => Buffer.from(plain).toString('base64') });
    expect(Buffer.from(readFileSync(sealed, 'utf8'), 'base64').toString()).toBe(`key ${MASK}`);
    const untouched = { a: 'nothing secret', b: [1, 2] };
    expect(writer.value(untouched)).toBe(untouched);
    expect(StoreWriter.asIs.text(`key ${SECRETS[0]}`)).toBe(`key ${SECRETS[0]}`);
  });
});
