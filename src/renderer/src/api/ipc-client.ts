/**
 * The Electron transport: the preload's `window.mnemo`, one function per contract command, and
 * its `onEvent` for the live events of every run. Catching up: live events are held while the
 * record is read from `since`, then both go through one SeqGate, so nothing is missed or doubled.
 */
import { SESSION_FILE_SCHEME, type MnemoApi } from '../../../shared/contract';
import type { AgentEvent } from '../../../shared/events';
import type { MnemoClient } from './client';
import { SeqGate } from './seq-gate';

export function createIpcClient(api: MnemoApi): MnemoClient {
  const client: MnemoClient = {
    transport: 'ipc',
    startRun: (request) => api['run:start'](request),
    currentRun: () => api['run:current'](),
    pause: (id) => api['run:pause']({ id }),
    resume: (id) => api['run:resume']({ id }),
    stop: (id) => api['run:stop']({ id }),
    answer: (id, text, questionId) => api['run:answer']({ id, text, ...(questionId ? { questionId } : {}) }),
    startReplay: (request) => api['replay:start'](request),
    sessions: (filter = {}) => api['sessions:list'](filter),
    sessionEvents: (id, since = 0) => api['sessions:events']({ id, since }),
    deleteSession: (id) => api['sessions:delete']({ id }),
    async exportReport(id) {
      const saved = await api['sessions:export']({ id });
      return saved.ok ? { ok: true, value: { savedAs: saved.value.path } } : saved;
    },
    settings: () => api['settings:get'](),
    saveSettings: (request) => api['settings:save'](request),
    checkProvider: (request) => api['provider:check'](request),
    doctor: () => api['doctor:run'](),
    facts: (query = {}) => api['facts:list'](query),
    searchFacts: (request) => api['facts:search'](request),
    saveFact: (request) => api['facts:save'](request),
    forgetFact: (id) => api['facts:forget']({ id }),
    conversations: () => api['memory:conversations'](),
    workingMemory: (conversationId) => api['memory:working']({ conversationId }),
    fileUrl: (id, path, thumbWidth) =>
      `${SESSION_FILE_SCHEME}://session/${encodeURIComponent(id)}/${path.split('/').map(encodeURIComponent).join('/')}${thumbWidth ? `?thumb=${Math.round(thumbWidth)}` : ''}`,
    subscribe(since, onEvent) {
      const gate = new SeqGate(onEvent, async (runId, after) => {
        const read = await client.sessionEvents(runId, after);
        return read.ok ? read.value : [];
      });
      let held: AgentEvent[] | null = [];
      const stop = api.onEvent((event) => (held ? held.push(event) : gate.push(event)));
      void (async () => {
        const current = await api['run:current']();
        if (current.ok && current.value) {
          const id = current.value.id;
          gate.skipThrough(id, since);
          const read = await api['sessions:events']({ id, since });
          if (read.ok) for (const event of read.value) gate.push(event);
        }
        const live = held ?? [];
        held = null;
        for (const event of live) gate.push(event);
      })();
      return stop;
    },
  };
  return client;
}
