/**
 * The browser transport: `mnemo serve`'s JSON API (the commands generated from the contract,
 * src/shared/http-commands.ts, every answer checked) and its event stream (every event checked
 * with the event schema, streamed-event.ts), on the page's own origin. The token is an HttpOnly cookie set when the printed URL was opened, so every request
 * carries it without the page ever seeing it.
 */
import { otherRoutes, urlOf } from '../../../shared/http-binding';
import { createHttpCommands } from '../../../shared/http-commands';
import { gapFiller, type MnemoClient } from './client';
import { saveDownload } from './download';
import { SeqGate } from './seq-gate';
import { streamedBatchChange, streamedEvent } from './streamed-event';

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
        const streamed = streamedEvent(message.data);
        if (!streamed.ok) {
          // Refused, not passed on: the console says what was wrong; a gap it leaves is read back from the record.
          console.error(streamed.message);
          return;
        }
        const event = streamed.event;
        // `since` is about the run going on, which is the first one the stream sends.
        if (firstRun) {
          firstRun = false;
          if (since > 0 && event.seq > since) gate.skipThrough(event.runId, since);
        }
        gate.push(event);
      };
      return () => source.close();
    },
    followBatches(onChange) {
      const source = new EventSource(urlOf(otherRoutes.batchEvents, {}));
      source.onmessage = (message: MessageEvent<string>) => {
        const change = streamedBatchChange(message.data);
        if (change.ok) onChange(change.change);
        else console.error(change.message);
      };
      return () => source.close();
    },
  };
}
