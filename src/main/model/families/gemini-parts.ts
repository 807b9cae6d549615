/**
 * Gemini replies as they are found: in the REST API's and the JS SDK's camelCase (`functionCall`,
 * `inlineData`, `finishReason`), or in the Python SDK's snake_case (`function_call`, `inline_data`,
 * `mime_type`, `finish_reason`), as its objects print and as Python agents record them. Both read
 * as camelCase here. What a function call carries (`args`) and what a function response answers
 * (`response`) are data of the model's and the caller's own, which keep their keys as written:
 * the computer-use functions' arguments are snake_case in both spellings (`safety_decision`,
 * `destination_x`, `clear_before_typing`).
 *
 * A part in which none of a part's fields is found (a misspelled `functionCal`, a string) makes
 * the reply unreadable: read without it, a reply whose call went unseen would end the run as
 * finished.
 */
import { isRecord } from './common';

/** Keys whose values are free-form data, left as written. */
const FREE_FORM = new Set(['args', 'response']);

/** `function_call` → `functionCall`; a key already in camelCase, or starting with `_`, is kept. */
function camelKey(key: string): string {
  return key.replace(/(?<=[A-Za-z0-9])_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/** A reply, a content, parts or one part with its keys in camelCase; a key written both ways keeps its camelCase value. */
export function camelCaseGemini(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCaseGemini);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const camel = camelKey(key);
    if (camel !== key && Object.hasOwn(value, camel)) continue;
    out[camel] = FREE_FORM.has(camel) ? item : camelCaseGemini(item);
  }
  return out;
}

/** The fields of a Part (the API reference's union, and the metadata beside it). */
const PART_FIELDS = [
  'text',
  'thought',
  'thoughtSignature',
  'functionCall',
  'functionResponse',
  'inlineData',
  'fileData',
  'executableCode',
  'codeExecutionResult',
  'videoMetadata',
  'mediaResolution',
  'partMetadata',
];

/**
 * Why a reply's parts (in camelCase) cannot be read, or null when they can. Fields set to null, as
 * the Python SDK prints the ones a part does not use, count as absent; a part with nothing set
 * carries nothing and is no problem.
 */
export function partsProblem(parts: unknown): string | null {
  if (parts === undefined || parts === null) return null;
  if (!Array.isArray(parts)) return 'the reply\'s "parts" is not a list of parts';
  for (const [index, part] of parts.entries()) {
    const where = `part ${index + 1} of the reply`;
    if (!isRecord(part)) return `${where} is not an object`;
    const set = Object.keys(part).filter((key) => part[key] !== null && part[key] !== undefined);
    if (set.length > 0 && !set.some((key) => PART_FIELDS.includes(key))) {
      return `${where} cannot be read: it has ${set.map((key) => `"${key}"`).join(', ')}, none of text, functionCall (function_call), inlineData (inline_data) or the other fields of a part`;
    }
    if (part.text !== undefined && part.text !== null && typeof part.text !== 'string') return `${where} has a text that is not a string`;
    const call = part.functionCall;
    if (call === undefined || call === null) continue;
    if (!isRecord(call) || typeof call.name !== 'string' || call.name === '') return `${where} has a function call without a name`;
    if (call.args !== undefined && call.args !== null && !isRecord(call.args)) return `${where}: the arguments of ${call.name} are not an object`;
  }
  return null;
}
