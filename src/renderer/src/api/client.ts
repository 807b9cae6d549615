/**
 * The one API the views use, whichever shell the window runs in: Electron (over the preload's
 * IPC, ipc-client.ts) or a browser against `mnemo serve` (HTTP and server-sent events,
 * http-client.ts). The commands are the contract's, by name (`client['run:pause']({ id })`),
 * generated for both transports from src/shared/contract.ts; every one answers a `Result`.
 * Events arrive in `seq` order per session, each once.
 */
import type { BatchChange } from '../../../shared/batch';
import type { CommandApi } from '../../../shared/contract';
import type { AgentEvent } from '../../../shared/events';

export type MnemoClient = CommandApi & {
  /** Which transport answers: shown nowhere important, useful in tests and logs. */
  readonly transport: 'ipc' | 'http';
  /** Where a session file (a screenshot, a raw reply) loads from; `thumbWidth` asks for a small JPEG. */
  fileUrl(sessionId: string, path: string, thumbWidth?: number): string;
  /** Where an image a workflow refers to loads from (`anchors/…`, `screens/…`): its patches and recorded screens. */
  workflowFileUrl(name: string, file: string): string;
  /** Where a live run's display streams from (multipart JPEG, for an `<img>`). */
  liveUrl(runId: string): string;
  /**
   * Follows the run going on from `since` (0: its first event) and every run started after it
   * from its first event. Events come in `seq` order per run, without gaps or repeats.
   * Returns the function that stops following.
   */
  subscribe(since: number, onEvent: (event: AgentEvent) => void): () => void;
  /**
   * Follows every batch's changes (a row started or ended, a retry, a cancel), each checked with
   * its schema; read the batches first (`batches:list`, `batches:get`). Returns the function that
   * stops following.
   */
  followBatches(onChange: (change: BatchChange) => void): () => void;
};

/** Reads a run's recorded events after a `seq`, for a SeqGate filling a gap. */
export function gapFiller(commands: CommandApi): (runId: string, after: number) => Promise<AgentEvent[]> {
  return async (runId, after) => {
    const read = await commands['sessions:events']({ id: runId, since: after });
    return read.ok ? read.value : [];
  };
}
