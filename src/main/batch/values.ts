/**
 * The table of values a batch runs over, read from a CSV or JSON Lines file: one row per run, a
 * column per workflow parameter (or per `{{name}}` of a task). Pure: text in, rows or one line
 * naming what is wrong out.
 *
 * A secret is never written in the file: its cell names where it is kept, `${env:NAME}` (an
 * environment variable) or `${keychain:NAME}` (the OS keychain, service `mnemo-param`, account
 * NAME); in JSON Lines also `{"env": "NAME"}` or `{"keychain": "NAME"}`. What the batch journals is
 * that reference, so its records hold no secret.
 */

/** Where a secret's value is kept; it is read when its row runs. */
export type SecretSource = 'env' | 'keychain';

export type Cell = { kind: 'text'; text: string } | { kind: 'secret'; source: SecretSource; name: string };

export interface ValuesRow {
  /** 1 for the first row of values (the header of a CSV is not counted). */
  row: number;
  cells: Record<string, Cell>;
}

export interface ValuesTable {
  columns: string[];
  rows: ValuesRow[];
}

export type ValuesFormat = 'csv' | 'jsonl';

export type ValuesRead<T> = { ok: true; value: T } | { ok: false; message: string };

/** The file's format, by its name: `.csv`, or `.jsonl` / `.ndjson`. */
export function valuesFormatOf(path: string): ValuesFormat | null {
  const lower = path.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  return null;
}

const REFERENCE = /^\$\{(env|keychain):([A-Za-z0-9_.-]+)\}$/;

/** A cell as written: a reference to a secret, or text as it is. */
function cellOf(text: string): Cell {
  const reference = REFERENCE.exec(text.trim());
  if (reference) return { kind: 'secret', source: reference[1] as SecretSource, name: reference[2] as string };
  return { kind: 'text', text };
}

/** How a cell is shown (tables, the journal's readers): a secret by where it is kept, never its value. */
export function shownCell(cell: Cell): string {
  return cell.kind === 'text' ? cell.text : `\${${cell.source}:${cell.name}}`;
}

export function parseValues(text: string, format: ValuesFormat, file: string): ValuesRead<ValuesTable> {
  const parsed = format === 'csv' ? parseCsv(text, file) : parseJsonLines(text, file);
  if (!parsed.ok) return parsed;
  if (parsed.value.rows.length === 0) return { ok: false, message: `${file}: no rows of values` };
  return parsed;
}

/** CSV as RFC 4180 writes it: a header line, commas, fields in double quotes ("" a quote), CRLF or LF. */
function parseCsv(text: string, file: string): ValuesRead<ValuesTable> {
  const records = csvRecords(text.replace(/^\uFEFF/, ''));
  if (!records.ok) return { ok: false, message: `${file}: ${records.message}` };
  const lines = records.value.filter((record) => !(record.fields.length === 1 && record.fields[0] === ''));
  const header = lines[0];
  if (!header) return { ok: false, message: `${file}: empty (a header line of column names is needed)` };
  const columns = header.fields.map((name) => name.trim());
  const problem = columnNamesProblem(columns);
  if (problem) return { ok: false, message: `${file}, line ${header.line}: ${problem}` };
  const rows: ValuesRow[] = [];
  for (const record of lines.slice(1)) {
    if (record.fields.length !== columns.length) {
      return { ok: false, message: `${file}, line ${record.line}: ${record.fields.length} fields where the header has ${columns.length}` };
    }
    const cells: Record<string, Cell> = {};
    columns.forEach((column, i) => (cells[column] = cellOf(record.fields[i] ?? '')));
    rows.push({ row: rows.length + 1, cells });
  }
  return { ok: true, value: { columns, rows } };
}

interface CsvRecord {
  /** Where it starts in the file, from 1. */
  line: number;
  fields: string[];
}

function csvRecords(text: string): ValuesRead<CsvRecord[]> {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    records.push({ line: recordLine, fields });
    fields = [];
    field = '';
  };
  while (i < text.length) {
    const char = text[i] as string;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (char === '"') quoted = false;
      else {
        if (char === '\n') line++;
        field += char;
      }
      i++;
      continue;
    }
    if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      i++;
      continue;
    } else if (char === '\n') {
      endRecord();
      line++;
      recordLine = line;
    } else if (char === '"') return { ok: false, message: `line ${line}: a quote inside an unquoted field (quote the whole field and double the quote)` };
    else field += char;
    i++;
  }
  if (quoted) return { ok: false, message: `line ${recordLine}: a quoted field is not closed` };
  if (field !== '' || fields.length > 0) endRecord();
  return { ok: true, value: records };
}

/** JSON Lines: one object per line, its keys the columns; strings, numbers and booleans as text. */
function parseJsonLines(text: string, file: string): ValuesRead<ValuesTable> {
  const rows: ValuesRow[] = [];
  const columns: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const source = (lines[i] as string).trim();
    if (source === '') continue;
    const where = `${file}, line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      return { ok: false, message: `${where}: not JSON (${(error as Error).message})` };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: `${where}: a row must be a JSON object of column: value` };
    const cells: Record<string, Cell> = {};
    for (const [column, raw] of Object.entries(value)) {
      const cell = jsonCell(raw);
      if (!cell) return { ok: false, message: `${where}, "${column}": a value must be a string, a number, a boolean, or {"env": "NAME"} / {"keychain": "NAME"} for a secret` };
      cells[column] = cell;
    }
    const keys = Object.keys(cells);
    if (rows.length === 0) {
      const problem = columnNamesProblem(keys);
      if (problem) return { ok: false, message: `${where}: ${problem}` };
      columns.push(...keys);
    } else {
      const missing = columns.filter((column) => !(column in cells));
      const extra = keys.filter((key) => !columns.includes(key));
      if (missing.length > 0 || extra.length > 0) {
        return { ok: false, message: `${where}: its keys differ from the first row's (${[...missing.map((m) => `missing "${m}"`), ...extra.map((e) => `extra "${e}"`)].join(', ')})` };
      }
    }
    rows.push({ row: rows.length + 1, cells });
  }
  return { ok: true, value: { columns, rows } };
}

function jsonCell(raw: unknown): Cell | null {
  if (typeof raw === 'string') return cellOf(raw);
  if (typeof raw === 'number' || typeof raw === 'boolean') return { kind: 'text', text: String(raw) };
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const entries = Object.entries(raw);
    const [source, name] = entries[0] ?? [];
    if (entries.length === 1 && (source === 'env' || source === 'keychain') && typeof name === 'string' && /^[A-Za-z0-9_.-]+$/.test(name)) return { kind: 'secret', source, name };
  }
  return null;
}

function columnNamesProblem(columns: readonly string[]): string | null {
  if (columns.length === 0 || columns.some((column) => column === '')) return 'a column without a name';
  const twice = columns.find((column, i) => columns.indexOf(column) !== i);
  return twice === undefined ? null : `the column "${twice}" appears twice`;
}

/** What a row's columns must be: a workflow's parameters, or the `{{name}}`s of a task. */
export interface ExpectedColumn {
  name: string;
  /** Its value must be named in the file (env or keychain), never written there. */
  secret: boolean;
}

/**
 * The columns against what the batch runs, refused by name: the missing and the unknown ones;
 * a secret written in clear; a secret where the run could not keep it out of its record (`secretsAllowed`
 * false: a task, which the model is told and the session records).
 */
export function checkColumns(table: ValuesTable, expected: readonly ExpectedColumn[], what: string, file: string, secretsAllowed: boolean): ValuesRead<ValuesTable> {
  const names = expected.map((column) => column.name);
  const missing = names.filter((name) => !table.columns.includes(name));
  const unknown = table.columns.filter((column) => !names.includes(column));
  if (missing.length > 0 || unknown.length > 0) {
    const parts = [missing.length > 0 && `missing ${quoteList(missing)}`, unknown.length > 0 && `unknown ${quoteList(unknown)}`].filter(Boolean);
    return { ok: false, message: `${file}: the columns do not match ${what}: ${parts.join('; ')} (expected: ${names.length > 0 ? quoteList(names) : 'none'})` };
  }
  for (const row of table.rows) {
    for (const column of expected) {
      const cell = row.cells[column.name] as Cell;
      if (column.secret && cell.kind === 'text') {
        return { ok: false, message: `${file}, row ${row.row}, column "${column.name}": a secret is never written in the file; name where it is kept: \${env:NAME} or \${keychain:NAME}` };
      }
      if (!secretsAllowed && cell.kind === 'secret') {
        return { ok: false, message: `${file}, row ${row.row}, column "${column.name}": a task cannot take a secret (the model is told the task and the session records it); save a workflow with a secret parameter instead` };
      }
    }
  }
  return { ok: true, value: table };
}

function quoteList(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(', ');
}

/** The `{{name}}`s of a task, each once, in order. */
export function taskPlaceholders(task: string): string[] {
  const names: string[] = [];
  for (const match of task.matchAll(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g)) if (!names.includes(match[1] as string)) names.push(match[1] as string);
  return names;
}

/** The task with a row's values in place of its `{{name}}`s. */
export function fillTask(task: string, values: ReadonlyMap<string, string>): string {
  return task.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (whole, name: string) => values.get(name) ?? whole);
}
