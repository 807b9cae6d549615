/**
 * The browser transport: `mnemo serve`'s JSON API and its event stream, on the page's own origin.
 * The token is an HttpOnly cookie set when the printed URL was opened, so every request carries
 * it without the page ever seeing it.
 */
import { IpcErrorKindSchema, type IpcErrorKind, type Result } from '../../../shared/contract';
import type { AgentEvent } from '../../../shared/events';
import type { MnemoClient } from './client';
import { SeqGate } from './seq-gate';

const STATUS_KINDS: Record<number, IpcErrorKind> = { 400: 'invalid_request', 401: 'forbidden', 403: 'forbidden', 404: 'not_found', 409: 'busy', 503: 'no_display' };

const segment = encodeURIComponent;
const sessionPath = (id: string) => `/sessions/${segment(id)}`;

/** `?name=value&…` for the fields that are set (empty strings left out), or nothing. */
function queryString(fields: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== '') query.set(name, String(value));
  return query.size > 0 ? `?${query}` : '';
}

async function call<T>(method: string, path: string, body?: unknown): Promise<Result<T>> {
  let response: Response;
  try {
    response = await fetch(`/api${path}`, {
      method,
      credentials: 'same-origin',
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
  } catch (error) {
    return { ok: false, error: { kind: 'unavailable', message: `mnemo serve cannot be reached: ${error instanceof Error ? error.message : String(error)}` } };
  }
  const text = await response.text();
  let data: unknown;
  try {
    data = text === '' ? undefined : JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (response.ok) return { ok: true, value: data as T };
  const failure = (data ?? {}) as { error?: unknown; kind?: unknown; id?: unknown };
  const named = IpcErrorKindSchema.safeParse(failure.kind);
  const kind = named.success ? named.data : (STATUS_KINDS[response.status] ?? 'internal');
  const message = typeof failure.error === 'string' ? failure.error : `HTTP ${response.status} ${response.statusText}`;
  return { ok: false, error: { kind, message, ...(typeof failure.id === 'string' ? { sessionId: failure.id } : {}) } };
}

export function createHttpClient(): MnemoClient {
  const client: MnemoClient = {
    transport: 'http',
    startRun: (request) => call('POST', '/runs', request),
    currentRun: () => call('GET', '/runs/current'),
    pause: (id) => call('POST', `/runs/${segment(id)}/pause`, {}),
    resume: (id) => call('POST', `/runs/${segment(id)}/resume`, {}),
    stop: (id) => call('POST', `/runs/${segment(id)}/stop`, {}),
    answer: (id, text, questionId) => call('POST', `/runs/${segment(id)}/answer`, { text, ...(questionId ? { questionId } : {}) }),
    startReplay: (request) => call('POST', '/replays', request),
    sessions: ({ search, status } = {}) => call('GET', `/sessions${queryString({ search, status })}`),
    sessionEvents: (id, since = 0) => call('GET', `${sessionPath(id)}/events?since=${since}`),
    deleteSession: (id) => call('DELETE', sessionPath(id)),
    async exportReport(id) {
      // The route answers as an attachment: the browser downloads it, the page stays.
      const link = document.createElement('a');
      link.href = `/api${sessionPath(id)}/report.html`;
      link.download = `mnemo-${id}.html`;
      document.body.append(link);
      link.click();
      link.remove();
      return { ok: true, value: { savedAs: link.download } };
    },
    settings: () => call('GET', '/settings'),
    saveSettings: (request) => call('PUT', '/settings', request),
    checkProvider: (request) => call('POST', '/provider/check', request),
    doctor: () => call('GET', '/doctor'),
    facts: (query = {}) => call('GET', `/facts${queryString(query)}`),
    searchFacts: ({ text, ...rest }) => call('GET', `/facts/search${queryString({ q: text, ...rest })}`),
    saveFact: (request) => call('POST', '/facts', request),
    forgetFact: (id) => call('DELETE', `/facts/${segment(id)}`),
    conversations: () => call('GET', '/memory/conversations'),
    workingMemory: (conversationId) => call('GET', `/memory/working${queryString({ conversation: conversationId })}`),
    fileUrl: (id, path, thumbWidth) =>
      `/api${sessionPath(id)}/files/${path.split('/').map(segment).join('/')}${thumbWidth ? `?thumb=${Math.round(thumbWidth)}` : ''}`,
    subscribe(since, onEvent) {
      const gate = new SeqGate(onEvent, async (runId, after) => {
        const read = await client.sessionEvents(runId, after);
        return read.ok ? read.value : [];
      });
      let firstRun = true;
      // EventSource reconnects by itself (same URL); the gate drops what it already delivered.
      const source = new EventSource(`/api/events?since=${since}`);
      source.onmessage = (message: MessageEvent<string>) => {
        let event: AgentEvent;
        try {
          event = JSON.parse(message.data) as AgentEvent;
        } catch {
          return;
        }
        // `since` is about the run going on, which is the first one the stream sends.
        if (firstRun) {
          firstRun = false;
          if (since > 0 && event.seq > since) gate.skipThrough(event.runId, since);
        }
        gate.push(event);
      };
      return () => source.close();
    },
  };
  return client;
}
