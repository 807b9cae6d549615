/**
 * One server-sent event of `mnemo serve`'s stream, checked with the event schema before the
 * window sees it: the network is not trusted, as the commands' answers are not
 * (src/shared/http-commands.ts). A malformed event is a value that says what is wrong; the
 * window's SeqGate then reads the missing `seq` back from the record, which is checked too.
 */
import { z } from 'zod';
import { BatchChangeSchema, type BatchChange } from '../../../shared/batch';
import { AgentEventSchema, type AgentEvent } from '../../../shared/events';
import { quickParse } from '../../../shared/quick-check';

export type StreamedEvent = { ok: true; event: AgentEvent } | { ok: false; message: string };

/** Names a refused event by what it claims to be, so the message points at the right one. */
function claimed(value: unknown): string {
  const fields = value !== null && typeof value === 'object' ? (value as { type?: unknown; seq?: unknown }) : {};
  const parts = [typeof fields.type === 'string' ? `"${fields.type}"` : undefined, typeof fields.seq === 'number' ? `seq ${fields.seq}` : undefined];
  const named = parts.filter(Boolean).join(', ');
  return named === '' ? '' : ` (${named})`;
}

/** The event a message's data carries, or why it is refused. */
export function streamedEvent(data: string): StreamedEvent {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { ok: false, message: `mnemo: refused a server-sent event that is not JSON: ${JSON.stringify(data.slice(0, 120))}` };
  }
  const parsed = quickParse(AgentEventSchema, value);
  if (!parsed.success) return { ok: false, message: `mnemo: refused a server-sent event${claimed(value)} that does not match the event schema:\n${z.prettifyError(parsed.error)}` };
  return { ok: true, event: parsed.data };
}

/** A batch change the stream sent (`GET /api/batches/events`), or why it is refused. */
export function streamedBatchChange(data: string): { ok: true; change: BatchChange } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { ok: false, message: `mnemo: refused a batch change that is not JSON: ${JSON.stringify(data.slice(0, 120))}` };
  }
  const parsed = BatchChangeSchema.safeParse(value);
  return parsed.success ? { ok: true, change: parsed.data } : { ok: false, message: `mnemo: refused a batch change that does not match its schema:\n${z.prettifyError(parsed.error)}` };
}
