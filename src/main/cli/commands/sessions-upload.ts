/**
 * `mnemo sessions upload [ID…]`: the sessions waiting for their upload to the shared store (a
 * store that could not be reached, a process killed mid-upload), or the sessions named, sent now
 * rather than at the next start. Each is verified in the store before its local copy goes; one
 * that fails stays here, still pending. A big session's progress is said at each quarter (on a
 * terminal, a line that moves with every file). Ctrl+C stops between files: what is not whole in
 * the store stays local.
 *
 * Exit codes: 0 every session uploaded (or none waiting), 1 some stay local (each said, with why),
 * 2 no shared store set, a store setting that does not read, or a session that is not here,
 * 4 stopped by Ctrl+C.
 */
import { formatBytes } from '../../../shared/format';
import type { RunFlags } from '../../settings/settings';
import { uploadProgressText } from '../../store/session-uploads';
import type { UploadProgress } from '../../store/session-upload';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { openService, type StorageOptions } from './workflow';

export interface SessionsUploadOptions extends StorageOptions, Pick<RunFlags, 'store'> {
  json?: boolean;
}

const NO_STORE = 'no shared session store is set: name one with --store s3://BUCKET/PREFIX or --store FOLDER (or MNEMO_STORE, or "store": {"shared": "..."} in config.json)';

export async function sessionsUploadCommand(refs: readonly string[], options: SessionsUploadOptions): Promise<void> {
  const service = await openService(options);
  const interrupted = new AbortController();
  const onInterrupt = () => interrupted.abort();
  process.once('SIGINT', onInterrupt);
  const live = liveProgressLine();
  try {
    const done = await service.records.uploadPending({ refs, signal: interrupted.signal, onProgress: live.show });
    live.clear();
    if (!done.ok) {
      if (done.error.kind === 'settings' || done.error.kind === 'invalid' || done.error.kind === 'not_found') throw new InvalidInputError(done.error.message);
      process.stderr.write(`mnemo: ${done.error.message}\n`);
      process.exitCode = ExitCode.errorResult;
      return;
    }
    if (done.value === null) throw new InvalidInputError(NO_STORE);
    const { store, outcomes } = done.value;
    // --json: one object per session, the outcome as it is (`{id, status, store, files?, bytes?, skipped?, localCopy?, directory?, message?}`).
    if (options.json) process.stdout.write(`${JSON.stringify(outcomes)}\n`);
    else if (outcomes.length === 0) process.stderr.write(`no session waits for its upload to ${store}\n`);
    const uploaded = outcomes.filter((outcome) => outcome.status === 'uploaded');
    if (!options.json && uploaded.length > 0) {
      process.stderr.write(`${uploaded.length} session${uploaded.length === 1 ? '' : 's'} uploaded to ${store} (${formatBytes(uploaded.reduce((sum, outcome) => sum + outcome.bytes, 0))})\n`);
    }
    if (interrupted.signal.aborted) process.exitCode = ExitCode.userAborted;
    else if (outcomes.some((outcome) => outcome.status === 'local')) process.exitCode = ExitCode.errorResult;
  } finally {
    live.clear();
    process.off('SIGINT', onInterrupt);
    // Each outcome was said in one line by the service's log as it came.
    await service.close();
  }
}

/** On a terminal, one line rewritten at each file; elsewhere nothing (the quarters of a big session are logged). */
function liveProgressLine(): { show: (progress: UploadProgress) => void; clear: () => void } {
  const terminal = process.stderr.isTTY === true;
  let shown = false;
  return {
    show(progress) {
      if (!terminal) return;
      // A session done is then said in a line of its own (the service's log): the moving line makes room.
      const done = progress.files === progress.totalFiles;
      process.stderr.write(done ? '\r\x1b[K' : `\r\x1b[Kuploading ${uploadProgressText(progress)}`);
      shown = !done;
    },
    clear() {
      if (shown) process.stderr.write('\r\x1b[K');
      shown = false;
    },
  };
}
