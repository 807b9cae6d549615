/**
 * Auto-detection (the seed's `nodeSaveToMemoryAutoDetectFacts`): after a task, the memory model
 * reads what happened and answers with the facts worth keeping, as a JSON array of
 * `{subject, keyword, description, value}` (or `values` for several). Code fences and prose around
 * the array are tolerated; a reply that does not parse is asked for once more, then reported.
 */
import { findJsonInText } from '../../../shared/json';
import type { TextMessage, TextModel } from '../text-model';
import { describeModelError } from '../text-replies';
import { FactType, SUBJECT_NAME_PATTERN, type Fact, type MemorySubject } from './model';

export interface DetectedFact {
  subject: string;
  fact: Fact;
}

export type Detection =
  | { ok: true; facts: DetectedFact[]; skipped: string[]; attempts: number }
  | { ok: false; error: string; attempts: number; reply: string | null };

export function factExtractionPrompt(subjects: readonly MemorySubject[]): string {
  const list = subjects.map((subject) => `- "${subject.name}": ${subject.promptDescription}`).join('\n');
  return `You pick out lasting facts from the record of a task an assistant carried out on a user's computer, so later tasks can use them.

Keep only what stays true beyond this task and would help later: preferences, names, accounts, places, how this machine is set up, the tools installed. Leave out the steps taken, what was on the screen, and anything passing.

Each fact is about one of these subjects:
${list}

Answer with a JSON array and nothing else. Each element is an object:
{"subject": one of the subject names above, "keyword": a short lower-case identifier with dashes such as "preferred-editor", "description": what the keyword means, "value": the fact as a short text}
Use "values": [texts] instead of "value" when the concept holds several things at once (the languages someone knows). Answer [] when there is nothing worth keeping.`;
}

/** The first JSON array in a reply: fenced or not, prose around it or not. */
export function findJsonArray(text: string): unknown[] | null {
  return findJsonInText(text, '[', (value) => (Array.isArray(value) ? value : undefined))?.value ?? null;
}

/** The facts of a reply; elements that are not facts are skipped, each with the reason. */
export function parseDetectedFacts(text: string, now: number): { ok: true; facts: DetectedFact[]; skipped: string[] } | { ok: false; error: string } {
  const array = findJsonArray(text);
  if (array === null) return { ok: false, error: 'the reply holds no JSON array of facts' };
  const facts: DetectedFact[] = [];
  const skipped: string[] = [];
  array.forEach((element, index) => {
    const item = element as Record<string, unknown> | null;
    const subject = typeof item?.subject === 'string' ? item.subject.trim().toLowerCase() : '';
    const keyword = typeof item?.keyword === 'string' ? item.keyword.trim() : '';
    const description = typeof item?.description === 'string' ? item.description.trim() : '';
    const values = Array.isArray(item?.values) ? item.values.filter((value): value is string => typeof value === 'string') : typeof item?.value === 'string' ? [item.value] : [];
    const problem =
      item === null || typeof item !== 'object' ? 'not an object' : !SUBJECT_NAME_PATTERN.test(subject) ? 'no subject' : keyword === '' ? 'no keyword' : values.every((value) => value.trim() === '') ? 'no value' : null;
    if (problem) {
      skipped.push(`element ${index + 1}: ${problem}`);
      return;
    }
    const multiple = Array.isArray(item?.values);
    const concept = { keyword, description: description || keyword, factType: multiple ? FactType.MULTIPLE : FactType.SINGLE };
    facts.push({ subject, fact: multiple ? { concept, values, timestamp: now } : { concept, value: values[0] as string, timestamp: now } });
  });
  return { ok: true, facts, skipped };
}

/** Asks the model for the facts of `transcript`; one retry after a reply that does not parse. */
export async function detectFacts(
  model: TextModel,
  transcript: string,
  subjects: readonly MemorySubject[],
  options: { now: () => number; signal?: AbortSignal | undefined },
): Promise<Detection> {
  const system = factExtractionPrompt(subjects);
  const messages: TextMessage[] = [{ role: 'user', content: `The record of the task:\n\n${transcript}` }];
  let lastReply: string | null = null;
  let lastError = '';
  for (let attempt = 1; attempt <= 2; attempt += 1) {
    const reply = await model.complete({ system, messages }, options.signal);
    if (!reply.ok) return { ok: false, error: `the memory model failed: ${describeModelError(reply.error)}`, attempts: attempt, reply: null };
    lastReply = reply.text ?? '';
    const parsed = parseDetectedFacts(lastReply, options.now());
    if (parsed.ok) return { ok: true, facts: parsed.facts, skipped: parsed.skipped, attempts: attempt };
    lastError = parsed.error;
    messages.push({ role: 'assistant', content: lastReply }, { role: 'user', content: 'That was not a JSON array of fact objects. Answer with the JSON array only.' });
  }
  return { ok: false, error: `the memory model's reply could not be read twice: ${lastError}`, attempts: 2, reply: lastReply };
}
