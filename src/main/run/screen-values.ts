/**
 * What a run read off the screen, from its record: each field it typed into, read back through the
 * accessibility tree after the typing (run/elements.ts), by the field's name, with what the field
 * held then; a password field or a secret by its length only, never its text; and the run's closing
 * summary (what the model said it found or did) under `summary`. A field typed into twice keeps
 * the last read. Pure: the events are the record's, already masked.
 */
import type { AgentEvent } from '../../shared/events';

/** The key of a run's closing summary; a field of that name is kept under its role as well (`entry summary`). */
export const SUMMARY_KEY = 'summary';

/** How a field read back by its length only is shown: its length, never its text. */
export function hiddenValue(length: number): string {
  return `(hidden, ${length} character${length === 1 ? '' : 's'})`;
}

export function screenValuesOf(events: readonly AgentEvent[]): Record<string, string> {
  const fields = new Map<string, string>();
  let summary: string | null = null;
  for (const event of events) {
    if (event.type === 'run-finished') summary = event.summary;
    if (event.type !== 'action-result' || !event.result.ok) continue;
    const { element, check } = event.result;
    if (!element || !check) continue;
    const read = check.kind === 'value' ? check.value : check.kind === 'length' && check.length !== undefined ? hiddenValue(check.length) : undefined;
    if (read === undefined) continue;
    // A field with no accessible name is known by its role alone.
    const name = element.name.trim() || element.role;
    fields.set(name === SUMMARY_KEY ? `${element.role} ${name}` : name, read);
  }
  return { ...Object.fromEntries(fields), ...(summary ? { [SUMMARY_KEY]: summary } : {}) };
}
