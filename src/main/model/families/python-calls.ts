/**
 * Python call statements, read and never run: the little of Python that agents write their
 * actions in (`pyautogui.click(x=10, y=20)`, `pyautogui.hotkey('ctrl', 'c')`, `time.sleep(1)`).
 *
 * A tokenizer (names, numbers, strings with every escape Python has, brackets, comments, line
 * continuations, triple-quoted strings over several lines) and a parser of statements that are
 * each one call with positional and keyword arguments whose values are literals (numbers, strings,
 * lists, tuples, True, False, None), a bare name (a marker such as `DONE`), an import, or a string
 * alone (a docstring, which Python evaluates and drops). Anything else is a failure naming its
 * line: no expression is ever evaluated.
 *
 * `looksLikePythonStatement` tells a line of Python from a line of prose, for replies that mix
 * the two without fences.
 */
import { unreadableReply } from './common';
import type { ParseFailure } from './types';

export type PythonValue = number | string | boolean | null | PythonValue[] | { readonly tuple: PythonValue[] };

export interface PythonArgument {
  /** The keyword, or null for a positional argument. */
  readonly name: string | null;
  readonly value: PythonValue;
}

export type PythonStatement =
  | { readonly kind: 'call'; readonly callee: string; readonly args: PythonArgument[]; readonly line: number; readonly source: string }
  | { readonly kind: 'name'; readonly name: string; readonly line: number; readonly source: string }
  | { readonly kind: 'import'; readonly modules: string[]; readonly line: number; readonly source: string }
  /** A string on its own: OSWorld's agents open their code with one holding the observation and the thought. */
  | { readonly kind: 'string'; readonly value: string; readonly line: number; readonly source: string };

export type StatementsRead = { ok: true; statements: PythonStatement[] } | ParseFailure;

// ---------------------------------------------------------------------------------------------
// Tokens

type Token =
  | { kind: 'name'; text: string; line: number }
  | { kind: 'number'; value: number; line: number }
  | { kind: 'string'; value: string; line: number }
  | { kind: 'op'; text: string; line: number }
  /** The end of a statement: a newline outside brackets, a `;`, or the end of the code. */
  | { kind: 'end'; line: number };

type Tokens = { ok: true; tokens: Token[] } | ParseFailure;

const OPENING = '([{';
const CLOSING = ')]}';
const OPERATORS = new Set(['(', ')', '[', ']', '{', '}', ',', '=', '.', '-', '+', ':', '*']);
const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;
const NUMBER = /^(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?/;

/** `line N: problem`, the way every failure here names where it is. */
function at(line: number, problem: string): ParseFailure {
  return unreadableReply(`line ${line}: ${problem}`);
}

/**
 * The tokens of `code`, whose first line is line `firstLine` of the reply (so failures name the
 * line as the model sees it in its own reply).
 */
export function tokenizePython(code: string, firstLine = 1): Tokens {
  const tokens: Token[] = [];
  let line = firstLine;
  let depth = 0;
  let i = 0;
  const end = () => {
    const last = tokens.at(-1);
    if (last && last.kind !== 'end') tokens.push({ kind: 'end', line: last.line });
  };
  while (i < code.length) {
    const c = code[i] as string;
    if (c === '\n') {
      if (depth === 0) end();
      line += 1;
      i += 1;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f') {
      i += 1;
    } else if (c === '#') {
      while (i < code.length && code[i] !== '\n') i += 1;
    } else if (c === '\\' && code[i + 1] === '\n') {
      // A line continuation: the statement goes on.
      line += 1;
      i += 2;
    } else if (c === ';' && depth === 0) {
      end();
      i += 1;
    } else if (NAME_START.test(c)) {
      let j = i + 1;
      while (j < code.length && NAME_PART.test(code[j] as string)) j += 1;
      const name = code.slice(i, j);
      const quote = code[j];
      if ((quote === "'" || quote === '"') && /^[rRbBuUfF]{1,2}$/.test(name)) {
        const read = readString(code, j, name.toLowerCase(), line);
        if (!read.ok) return read;
        tokens.push({ kind: 'string', value: read.value, line });
        line = read.line;
        i = read.end;
      } else {
        tokens.push({ kind: 'name', text: name, line });
        i = j;
      }
    } else if (/\d/.test(c) || (c === '.' && /\d/.test(code[i + 1] ?? ''))) {
      const match = NUMBER.exec(code.slice(i));
      const text = match?.[0] ?? c;
      if (NAME_PART.test(code[i + text.length] ?? '')) return at(line, `cannot read the number "${code.slice(i, i + text.length + 1)}"`);
      tokens.push({ kind: 'number', value: Number(text.replace(/_/g, '')), line });
      i += text.length;
    } else if (c === "'" || c === '"') {
      const read = readString(code, i, '', line);
      if (!read.ok) return read;
      tokens.push({ kind: 'string', value: read.value, line });
      line = read.line;
      i = read.end;
    } else if (OPERATORS.has(c)) {
      if (OPENING.includes(c)) depth += 1;
      else if (CLOSING.includes(c)) depth = Math.max(0, depth - 1);
      tokens.push({ kind: 'op', text: c, line });
      i += 1;
    } else {
      return at(line, `unexpected character "${c}"`);
    }
  }
  end();
  return { ok: true, tokens };
}

interface StringRead {
  ok: true;
  value: string;
  /** Index just after the closing quote. */
  end: number;
  /** The line the string ends on. */
  line: number;
}

/** A string literal starting at the quote `start` (with its prefix already read). */
function readString(code: string, start: number, prefix: string, line: number): StringRead | ParseFailure {
  if (prefix.includes('f')) return at(line, 'f-strings are not read: write the text as a plain string');
  if (prefix.includes('b')) return at(line, 'bytes are not read: write the text as a plain string');
  const raw = prefix.includes('r');
  const quote = code[start] as string;
  const triple = code.slice(start, start + 3) === quote.repeat(3);
  const opener = triple ? quote.repeat(3) : quote;
  let i = start + opener.length;
  let value = '';
  let current = line;
  for (;;) {
    if (i >= code.length) return at(line, 'a string is not closed');
    const c = code[i] as string;
    if (code.startsWith(opener, i)) return { ok: true, value, end: i + opener.length, line: current };
    if (c === '\n') {
      if (!triple) return at(line, 'a string is not closed before the end of the line');
      current += 1;
      value += c;
      i += 1;
    } else if (c === '\\') {
      const next = code[i + 1];
      if (next === undefined) return at(line, 'a string is not closed');
      if (raw) {
        // A raw string keeps the backslash; it still cannot end on an escaped quote.
        value += c + next;
        if (next === '\n') current += 1;
        i += 2;
      } else {
        const escape = readEscape(code, i, current);
        if (!escape.ok) return escape;
        value += escape.text;
        if (next === '\n') current += 1;
        i = escape.end;
      }
    } else {
      value += c;
      i += 1;
    }
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\n': '',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/** One escape sequence at the backslash `start`, as Python reads it in a normal string. */
function readEscape(code: string, start: number, line: number): { ok: true; text: string; end: number } | ParseFailure {
  const c = code[start + 1] as string;
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined) return { ok: true, text: simple, end: start + 2 };
  const hex = (length: number) => {
    const digits = code.slice(start + 2, start + 2 + length);
    if (!new RegExp(`^[0-9a-fA-F]{${length}}$`).test(digits)) return at(line, `the escape \\${c}${digits} needs ${length} hexadecimal digits`);
    const point = parseInt(digits, 16);
    if (point > 0x10ffff) return at(line, `the escape \\${c}${digits} is not a character`);
    return { ok: true as const, text: String.fromCodePoint(point), end: start + 2 + length };
  };
  if (c === 'x') return hex(2);
  if (c === 'u') return hex(4);
  if (c === 'U') return hex(8);
  if (/[0-7]/.test(c)) {
    const digits = /^[0-7]{1,3}/.exec(code.slice(start + 1))?.[0] as string;
    return { ok: true, text: String.fromCodePoint(parseInt(digits, 8)), end: start + 1 + digits.length };
  }
  if (c === 'N') return at(line, 'named escapes (\\N{...}) are not read: write the character itself');
  // Python keeps an unknown escape as written, backslash included.
  return { ok: true, text: `\\${c}`, end: start + 2 };
}

// ---------------------------------------------------------------------------------------------
// Statements

class TokenReader {
  private index = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  peek(offset = 0): Token | undefined {
    return this.tokens[this.index + offset];
  }

  next(): Token | undefined {
    const token = this.tokens[this.index];
    this.index += 1;
    return token;
  }

  isOp(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token?.kind === 'op' && token.text === text;
  }

  done(): boolean {
    return this.index >= this.tokens.length;
  }
}

/** Every statement of `code` (each a call, a bare name or an import), or the first line that is none. */
export function readStatements(code: string, firstLine = 1): StatementsRead {
  const tokenized = tokenizePython(code, firstLine);
  if (!tokenized.ok) return tokenized;
  const lines = code.split('\n');
  const sourceOf = (line: number) => (lines[line - firstLine] ?? '').trim();
  const reader = new TokenReader(tokenized.tokens);
  const statements: PythonStatement[] = [];
  while (!reader.done()) {
    const first = reader.peek() as Token;
    if (first.kind === 'end') {
      reader.next();
      continue;
    }
    const statement = readStatement(reader, sourceOf(first.line));
    if (!statement.ok) return statement;
    statements.push(statement.statement);
  }
  return { ok: true, statements };
}

type StatementRead = { ok: true; statement: PythonStatement } | ParseFailure;

function readStatement(reader: TokenReader, source: string): StatementRead {
  const first = reader.peek() as Token;
  const line = first.line;
  const clipped = source.length > 80 ? `${source.slice(0, 77)}...` : source;
  const notACall = () => at(line, `not a call Mnemo can read: ${clipped}`);
  if (first.kind === 'string') return readStringStatement(reader, line, source, notACall);
  if (first.kind !== 'name') return notACall();

  if (first.text === 'import' || first.text === 'from') return readImport(reader, line, source);

  const callee = readDottedName(reader);
  if (callee === null) return notACall();
  const after = reader.peek();
  if (after === undefined || after.kind === 'end') {
    reader.next();
    return { ok: true, statement: { kind: 'name', name: callee, line, source } };
  }
  if (!reader.isOp('(')) return notACall();
  reader.next();
  const args: PythonArgument[] = [];
  for (;;) {
    if (reader.isOp(')')) {
      reader.next();
      break;
    }
    const token = reader.peek();
    if (token === undefined || token.kind === 'end') return at(line, `the call ${callee}( is not closed`);
    let name: string | null = null;
    if (token.kind === 'name' && reader.isOp('=', 1)) {
      name = token.text;
      reader.next();
      reader.next();
    } else if (args.some((arg) => arg.name !== null)) {
      return at(line, `a positional argument follows a keyword argument in ${callee}()`);
    }
    if (reader.isOp('*')) return at(line, `unpacked arguments (*) are not read in ${callee}()`);
    const value = readValue(reader, line, callee);
    if (!value.ok) return value;
    if (name !== null && args.some((arg) => arg.name === name)) return at(line, `${callee}() got the argument ${name} twice`);
    args.push({ name, value: value.value });
    if (reader.isOp(',')) {
      reader.next();
      continue;
    }
    if (reader.isOp(')')) continue;
    const after = reader.peek();
    if (after === undefined || after.kind === 'end') return at(line, `the call ${callee}( is not closed`);
    return at(line, `cannot read the arguments of ${callee}(): ${clipped}`);
  }
  const rest = reader.next();
  if (rest !== undefined && rest.kind !== 'end') return at(line, `more than one call in a statement: ${clipped}`);
  return { ok: true, statement: { kind: 'call', callee, args, line, source } };
}

/** Adjacent strings alone on their statement, joined as Python joins them; anything after them is not read. */
function readStringStatement(reader: TokenReader, line: number, source: string, notACall: () => ParseFailure): StatementRead {
  let value = '';
  for (let token = reader.peek(); token?.kind === 'string'; token = reader.peek()) {
    value += token.value;
    reader.next();
  }
  const rest = reader.next();
  if (rest !== undefined && rest.kind !== 'end') return notACall();
  return { ok: true, statement: { kind: 'string', value, line, source } };
}

function readDottedName(reader: TokenReader): string | null {
  const first = reader.next();
  if (first?.kind !== 'name') return null;
  let name = first.text;
  while (reader.isOp('.')) {
    reader.next();
    const part = reader.next();
    if (part?.kind !== 'name') return null;
    name += `.${part.text}`;
  }
  return name;
}

function readImport(reader: TokenReader, line: number, source: string): StatementRead {
  const keyword = (reader.next() as { text: string }).text;
  const modules: string[] = [];
  if (keyword === 'from') {
    const module = readDottedName(reader);
    const imported = reader.next();
    if (module === null || imported?.kind !== 'name' || imported.text !== 'import') return at(line, `cannot read the import: ${source}`);
    modules.push(module);
    // What is imported from it does not matter here: only its calls are read.
    while (!reader.done() && reader.peek()?.kind !== 'end') reader.next();
  } else {
    for (;;) {
      const module = readDottedName(reader);
      if (module === null) return at(line, `cannot read the import: ${source}`);
      modules.push(module);
      if (reader.peek()?.kind === 'name' && (reader.peek() as { text: string }).text === 'as') return at(line, `imports under another name are not read: ${source}`);
      if (!reader.isOp(',')) break;
      reader.next();
    }
    const rest = reader.next();
    if (rest !== undefined && rest.kind !== 'end') return at(line, `cannot read the import: ${source}`);
  }
  return { ok: true, statement: { kind: 'import', modules, line, source } };
}

type ValueRead = { ok: true; value: PythonValue } | ParseFailure;

const CONSTANTS: Record<string, PythonValue> = { True: true, False: false, None: null };

function readValue(reader: TokenReader, line: number, callee: string): ValueRead {
  const token = reader.next();
  if (token === undefined || token.kind === 'end') return at(line, `a value is missing in ${callee}()`);
  if (token.kind === 'number') return { ok: true, value: token.value };
  if (token.kind === 'string') {
    // Adjacent strings join, as in Python: 'a' 'b' is 'ab'.
    let value = token.value;
    for (let next = reader.peek(); next?.kind === 'string'; next = reader.peek()) {
      value += next.value;
      reader.next();
    }
    return { ok: true, value };
  }
  if (token.kind === 'name') {
    if (Object.hasOwn(CONSTANTS, token.text)) return { ok: true, value: CONSTANTS[token.text] as PythonValue };
    return at(line, `${callee}() takes literal values; "${token.text}" is a name`);
  }
  if (token.text === '-' || token.text === '+') {
    const operand = reader.next();
    if (operand?.kind !== 'number') return at(line, `cannot read a value after "${token.text}" in ${callee}()`);
    return { ok: true, value: token.text === '-' ? -operand.value : operand.value };
  }
  if (token.text === '[' || token.text === '(') {
    const close = token.text === '[' ? ']' : ')';
    const items: PythonValue[] = [];
    let trailingComma = false;
    for (;;) {
      if (reader.isOp(close)) {
        reader.next();
        break;
      }
      const item = readValue(reader, line, callee);
      if (!item.ok) return item;
      items.push(item.value);
      trailingComma = false;
      if (reader.isOp(',')) {
        reader.next();
        trailingComma = true;
        continue;
      }
      if (!reader.isOp(close)) return at(line, `cannot read a ${close === ']' ? 'list' : 'tuple'} in ${callee}()`);
    }
    if (close === ']') return { ok: true, value: items };
    // (x) is x; (x,) and (x, y) are tuples.
    if (items.length === 1 && !trailingComma) return { ok: true, value: items[0] as PythonValue };
    return { ok: true, value: { tuple: items } };
  }
  return at(line, `cannot read a value starting with "${token.text}" in ${callee}()`);
}

/** A tuple or a list, as a list; anything else, null. */
export function sequenceOf(value: PythonValue): PythonValue[] | null {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object') return value.tuple;
  return null;
}

/** A value as Python would write it, for messages. */
export function pythonRepr(value: PythonValue): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return pythonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  return `(${value.tuple.map(pythonRepr).join(', ')}${value.tuple.length === 1 ? ',' : ''})`;
}

/** A string literal Python reads back as `text`: single quotes, the escapes a model would write. */
export function pythonString(text: string): string {
  let out = "'";
  for (const character of text) {
    const code = character.codePointAt(0) as number;
    if (character === '\\') out += '\\\\';
    else if (character === "'") out += "\\'";
    else if (character === '\n') out += '\\n';
    else if (character === '\t') out += '\\t';
    else if (character === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += character;
  }
  return `${out}'`;
}

// ---------------------------------------------------------------------------------------------
// Python or prose

const NAME = '[A-Za-z_]\\w*';
const DOTTED = `${NAME}(?:\\.${NAME})*`;
/** `os.system(`, `os . system (`: a dotted name before a bracket is a call even with spaces. */
const DOTTED_CALL = new RegExp(`^${NAME}(?:\\s*\\.\\s*${NAME})+\\s*\\(`);
/** `exec(`: a lone name only when the bracket follows at once ("Note (see below)" is prose). */
const BARE_CALL = new RegExp(`^${NAME}\\(`);
const ASSIGNMENT = new RegExp(`^${NAME}(?:\\.${NAME}|\\[[^\\]]*\\])*(?:\\s*,\\s*${NAME})*\\s*(?:\\*\\*|//|>>|<<|[-+*/%@&|^])?=(?!=)`);
const IMPORT = new RegExp(`^(?:import\\s+${DOTTED}(?:\\s+as\\s+${NAME})?\\s*(?:[,;#]|$)|from\\s+(?:\\.+|\\.*${DOTTED})\\s+import\\s)`);
const DEFINITION = new RegExp(`^(?:async\\s+)?(?:def|class)\\s+${NAME}\\s*[(:]`);
/** `for f in files:`; "for each row in the table:" is prose (a target is one name, then `in`). */
const FOR_HEADER = new RegExp(`^(?:async\\s+)?for\\s+${NAME}(?:\\s*,\\s*${NAME})*\\s+in\\s+\\S.*:`);
const BLOCK_KEYWORD = /^(?:try|else|finally)\s*:|^except\b[^:]*:/;
const CONDITION_HEADER = /^(?:if|elif|while|with)\s+(.+?)\s*:(.*)$/;
const LONE_KEYWORD = /^(?:pass|break|continue)\s*(?:#.*)?$/;
const SIMPLE_KEYWORD = /^(?:return|raise|del|assert|global|nonlocal|await|yield)\s+(.+)$/;
const TRIPLE_QUOTE = /^[rRuU]?(?:'''|""")/;
const DECORATOR = new RegExp(`^@${DOTTED}\\s*(?:\\(|$)`);
const LONE_NAME = new RegExp(`^(?:not\\s+)?${DOTTED}$`);
const STATEMENT_SHAPES = [DOTTED_CALL, BARE_CALL, ASSIGNMENT, IMPORT, DEFINITION, FOR_HEADER, BLOCK_KEYWORD, LONE_KEYWORD, TRIPLE_QUOTE, DECORATOR];

/** An expression written as code: brackets, comparisons, constants, or one (dotted) name. */
function codeLike(expression: string): boolean {
  const text = expression.replace(/#.*$/, '').trim();
  return /[()[\]=<>!]/.test(text) || /\b(?:True|False|None)\b/.test(text) || LONE_NAME.test(text);
}

/**
 * Whether a line reads as a Python statement rather than as prose: a call (`os.system('x')`,
 * `exec(...)`), an assignment, an import, a block header (`for f in files:`, `if ok:`, `def f():`),
 * `pass`, `return x`, `raise E(...)`, a decorator, or the opening of a triple-quoted string.
 * Prose that mentions code inside a sentence stays prose ("I call os.system to clean up."), and so
 * does a line starting with a lower-case `if`, `while` or `with` whose condition is not written as
 * code ("if the dialog opens: press Enter").
 */
export function looksLikePythonStatement(line: string): boolean {
  const text = line.trim();
  if (STATEMENT_SHAPES.some((shape) => shape.test(text))) return true;
  const condition = CONDITION_HEADER.exec(text);
  if (condition) {
    const body = (condition[2] as string).replace(/#.*$/, '').trim();
    return codeLike(condition[1] as string) && (body === '' || looksLikePythonStatement(body));
  }
  const simple = SIMPLE_KEYWORD.exec(text);
  return simple !== null && codeLike(simple[1] as string);
}
