/** The values file of a batch: CSV and JSON Lines read, secrets named never written, columns checked by name. */
import { describe, expect, it } from 'vitest';
import { checkColumns, fillTask, parseValues, shownCell, taskPlaceholders, valuesFormatOf } from '../../../src/main/batch/values';

const table = (text: string, format: 'csv' | 'jsonl' = 'csv') => {
  const parsed = parseValues(text, format, 'rows');
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
};

describe('parseValues', () => {
  it('reads CSV as RFC 4180 writes it: quotes, doubled quotes, commas and newlines in a field, CRLF, a BOM', () => {
    const read = table('\uFEFFnumber,customer\r\n1,"Acme, Inc"\r\n2,"The ""Best"" Co"\r\n3,"two\nlines"\r\n\r\n');
    expect(read.columns).toEqual(['number', 'customer']);
    expect(read.rows.map((row) => [row.row, shownCell(row.cells.number!), shownCell(row.cells.customer!)])).toEqual([
      [1, '1', 'Acme, Inc'],
      [2, '2', 'The "Best" Co'],
      [3, '3', 'two\nlines'],
    ]);
  });

  it('names the line of a row with the wrong number of fields, a quote left open, a column twice', () => {
    expect(parseValues('a,b\n1,2\n3\n', 'csv', 'rows.csv')).toEqual({ ok: false, message: 'rows.csv, line 3: 1 fields where the header has 2' });
    expect(parseValues('a,b\n1,"2\n', 'csv', 'rows.csv')).toMatchObject({ ok: false, message: 'rows.csv: line 2: a quoted field is not closed' });
    expect(parseValues('a,a\n1,2\n', 'csv', 'rows.csv')).toMatchObject({ ok: false, message: 'rows.csv, line 1: the column "a" appears twice' });
    expect(parseValues('a,b\n', 'csv', 'rows.csv')).toMatchObject({ ok: false, message: 'rows.csv: no rows of values' });
  });

  it('reads JSON Lines: numbers and booleans as text, secrets as references, keys that differ refused', () => {
    const read = table('{"number": 1001, "paid": true, "password": {"env": "PORTAL_PASSWORD"}}\n\n{"number": "1002", "paid": false, "password": "${keychain:portal}"}\n', 'jsonl');
    expect(read.rows.map((row) => row.cells)).toEqual([
      { number: { kind: 'text', text: '1001' }, paid: { kind: 'text', text: 'true' }, password: { kind: 'secret', source: 'env', name: 'PORTAL_PASSWORD' } },
      { number: { kind: 'text', text: '1002' }, paid: { kind: 'text', text: 'false' }, password: { kind: 'secret', source: 'keychain', name: 'portal' } },
    ]);
    expect(parseValues('{"a": 1}\n{"b": 2}\n', 'jsonl', 'rows.jsonl')).toEqual({ ok: false, message: 'rows.jsonl, line 2: its keys differ from the first row\'s (missing "a", extra "b")' });
    expect(parseValues('{"a": [1]}\n', 'jsonl', 'rows.jsonl')).toMatchObject({ ok: false, message: expect.stringContaining('rows.jsonl, line 1, "a": a value must be') });
    expect(valuesFormatOf('x.CSV')).toBe('csv');
    expect(valuesFormatOf('x.ndjson')).toBe('jsonl');
    expect(valuesFormatOf('x.txt')).toBeNull();
  });
});

describe('checkColumns', () => {
  const params = [
    { name: 'number', secret: false },
    { name: 'password', secret: true },
  ];

  it('names the missing and the unknown columns', () => {
    expect(checkColumns(table('number,pass\n1,x\n'), params, 'workflow "invoice"\'s parameters', 'rows.csv', true)).toEqual({
      ok: false,
      message: 'rows.csv: the columns do not match workflow "invoice"\'s parameters: missing "password"; unknown "pass" (expected: "number", "password")',
    });
  });

  it('refuses a secret written in clear, and a secret in a task', () => {
    expect(checkColumns(table('number,password\n1,hunter2\n'), params, 'w', 'rows.csv', true)).toMatchObject({ ok: false, message: expect.stringContaining('rows.csv, row 1, column "password": a secret is never written in the file') });
    expect(checkColumns(table('number,password\n1,${env:P}\n'), params, 'w', 'rows.csv', true).ok).toBe(true);
    expect(checkColumns(table('number\n${env:P}\n'), [{ name: 'number', secret: false }], 't', 'rows.csv', false)).toMatchObject({ ok: false, message: expect.stringContaining('a task cannot take a secret') });
  });

  it("takes a task's {{name}}s as its columns and fills them in", () => {
    const task = 'Enter invoice {{number}} for {{ customer }}, then {{number}} again';
    expect(taskPlaceholders(task)).toEqual(['number', 'customer']);
    expect(fillTask(task, new Map([['number', '7'], ['customer', 'Acme']]))).toBe('Enter invoice 7 for Acme, then 7 again');
  });
});
