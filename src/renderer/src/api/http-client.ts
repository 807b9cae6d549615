/**
 * The browser transport: `mnemo serve`'s JSON API (the commands generated from the contract,
 * src/shared/http-commands.ts, every answer checked) and its event stream, on the page's own
 * origin. The token is an HttpOnly cookie set when the printed URL was opened, so every request
 * carries it without the page ever seeing it.
 */
import type { AgentEvent } from '../../../shared/events';
import { otherRoutes, urlOf } from '../../../shared/http-binding';
import { createHttpCommands } from '../../../shared/http-commands';
import { gapFiller, type MnemoClient } from './client';
import { saveDownload } from './download';
import { SeqGate } from './seq-gate';

export function createHttpClient(): MnemoClient {
  // A download-bound command (the report): the route answers as an attachment, so the page stays.
  const commands = createHttpCommands({ download: saveDownload });
  return {
    ...commands,
    transport: 'http',
    fileUrl: (id, path, thumbWidth) => urlOf(otherRoutes.sessionFile, { id, path }, { thumb: thumbWidth ? Math.round(thumbWidth) : undefined }),
    workflowFileUrl: (name, file) => urlOf(otherRoutes.workflowFile, { name, path: file }),
    liveUrl: (id) => urlOf(otherRoutes.runLive, { id }),
    subscribe(since, onEvent) {
      const gate = new SeqGate(onEvent, gapFiller(commands));
      let firstRun = true;
      // EventSource reconnects by itself (same URL); the gate drops what it already delivered.
      const source = new EventSource(urlOf(otherRoutes.events, {}, { since }));
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
}
