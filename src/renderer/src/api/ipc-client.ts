/**
 * The Electron transport: the preload's `window.mnemo`, one function per contract command, and
 * its `onEvent` for the live events of every run (`onBatchChange` for the batches'). Catching up: live events are held while the
 * record is read from `since`, then both go through one SeqGate, so nothing is missed or doubled.
 */
import { commandNames, LIVE_VIEW_SCHEME, SESSION_FILE_SCHEME, type CommandApi, type MnemoApi } from '../../../shared/contract';
import type { AgentEvent } from '../../../shared/events';
import { gapFiller, type MnemoClient } from './client';
import { SeqGate } from './seq-gate';

export function createIpcClient(api: MnemoApi): MnemoClient {
  // The bridge's functions, called through it (never detached from the object it exposes).
  const commands = Object.fromEntries(commandNames.map((name) => [name, (request: never) => api[name](request)])) as unknown as CommandApi;
  return {
    ...commands,
    transport: 'ipc',
    fileUrl: (id, path, thumbWidth) =>
      `${SESSION_FILE_SCHEME}://session/${encodeURIComponent(id)}/${path.split('/').map(encodeURIComponent).join('/')}${thumbWidth ? `?thumb=${Math.round(thumbWidth)}` : ''}`,
    workflowFileUrl: (name, file) => `${SESSION_FILE_SCHEME}://workflow/${encodeURIComponent(name)}/${file.split('/').map(encodeURIComponent).join('/')}`,
    liveUrl: (id) => `${LIVE_VIEW_SCHEME}://run/${encodeURIComponent(id)}`,
    subscribe(since, onEvent) {
      const gate = new SeqGate(onEvent, gapFiller(commands));
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
    followBatches: (onChange) => api.onBatchChange(onChange),
  };
}
