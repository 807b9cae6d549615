/**
 * What `mnemo run` and `mnemo replay` share around a run: questions on the terminal, Ctrl+C as a
 * clean stop, and the exit code a run's status maps to.
 */
import { createInterface } from 'node:readline';
import type { AgentEvent, RunStatus } from '../../shared/events';
import type { AskRequest } from '../run/ask';
import type { RunHandle, RunOutcome, ServiceError, ServiceResult } from '../service/run-service';
import { ExitCode, InvalidInputError } from './exit-codes';
import { TerminalView } from './terminal-view';

/** 0 finished; 4 stopped by the user (Ctrl+C, the fail-safe, a refusal); 3 failed, stuck, limit. */
export function exitCodeFor(status: RunStatus): number {
  if (status === 'finished') return ExitCode.ok;
  if (status === 'aborted' || status === 'refused') return ExitCode.userAborted;
  return ExitCode.runFailed;
}

/**
 * Asks on the terminal (the question on stderr, a line of stdin for the answer); null once stdin
 * closes or the run stops. Lines typed ahead are kept for the next question.
 */
export function terminalAsk(hintFor: (request: AskRequest) => string = (request) => (request.kind === 'question' ? 'your answer' : 'yes/no')) {
  const lines = createInterface({ input: process.stdin, terminal: false });
  const pending: string[] = [];
  const waiting: Array<(line: string | null) => void> = [];
  let closed = false;
  lines.on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else pending.push(line);
  });
  lines.on('close', () => {
    closed = true;
    for (const waiter of waiting.splice(0)) waiter(null);
  });
  return (request: AskRequest, signal: AbortSignal): Promise<string | null> => {
    process.stderr.write(`\n${request.question}\n${hintFor(request)}> `);
    const queued = pending.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const onAbort = () => resolve(null);
      signal.addEventListener('abort', onAbort, { once: true });
      waiting.push((line) => {
        signal.removeEventListener('abort', onAbort);
        resolve(line);
      });
    });
  };
}

/**
 * A signal that repeats within this long of the first is the same request: supervisors
 * (coreutils `timeout`, process managers) signal the child, then its whole process group.
 */
export const SAME_REQUEST_MS = 1500;

/** What a stop signal acts on: a run (stop, and quit at once) or a plain controller. */
export type Interruptible = { stop(): void; quit?: () => Promise<void> } | { abort(): void };

export interface InterruptOptions {
  now?: () => number;
  /** Ends the process (default: process.exit). */
  exit?: (code: number) => void;
  /** Says what happens, on stderr by default. */
  say?: (line: string) => void;
}

/**
 * Ctrl+C or SIGTERM stops the run cleanly: it ends `aborted`, with every event written. A second
 * signal within SAME_REQUEST_MS of the first is the same request. A later Ctrl+C (a person at
 * the terminal who does not want to wait) quits at once, still recording the run `aborted` with
 * what happened; a later SIGTERM changes nothing, the stop is under way. Returns the undo.
 */
export function stopOnInterrupt(target: Interruptible, options: InterruptOptions = {}): () => void {
  const now = options.now ?? Date.now;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  let firstAt: number | null = null;
  let quitting = false;
  const onSignal = (signal: NodeJS.Signals) => {
    const at = now();
    if (firstAt === null) {
      firstAt = at;
      say('\nstopping (Ctrl+C again to quit at once)...');
      if ('abort' in target) target.abort();
      else target.stop();
      return;
    }
    if (at - firstAt < SAME_REQUEST_MS || signal !== 'SIGINT') return;
    // A third Ctrl+C while quitting: the record could not be closed (a hung disk); leave now.
    if (quitting || !('quit' in target) || !target.quit) return exit(ExitCode.userAborted);
    quitting = true;
    say('quitting at once: the run is recorded as aborted...');
    void target.quit().finally(() => exit(ExitCode.userAborted));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/**
 * The handle of a started run, or undefined once the reason the service could not start it has
 * been said: bad settings throw as invalid input (exit 2), the rest set the exit code.
 */
export function startedOrExplain(result: ServiceResult<RunHandle>): RunHandle | undefined {
  if (result.ok) return result.value;
  // A provider's answer that held the API key comes masked: the service applies the redaction policy to what it answers.
  const failure = startFailure(result.error);
  if (failure.code === ExitCode.invalidInput) throw new InvalidInputError(failure.message);
  process.stderr.write(`mnemo: ${failure.message}\n`);
  process.exitCode = failure.code;
  return undefined;
}

/** The exit code and message for a run the service could not start. */
export function startFailure(error: ServiceError): { code: number; message: string } {
  switch (error.kind) {
    case 'settings':
    case 'invalid':
      return { code: ExitCode.invalidInput, message: error.message };
    case 'not_found':
    case 'conflict':
    case 'record':
    case 'untrusted':
      return { code: ExitCode.errorResult, message: error.message };
    case 'busy':
    case 'no_display':
    case 'memory':
    case 'unavailable':
      return { code: ExitCode.runFailed, message: error.message };
  }
}

/**
 * Follows a run on the terminal: events as JSON lines on stdout or the live view on stderr, and
 * each question asked on the terminal (unless `ask` is null) and answered through the handle.
 */
export async function followOnTerminal(
  handle: RunHandle,
  options: {
    json: boolean;
    ask: ((request: AskRequest, signal: AbortSignal) => Promise<string | null>) | null;
    show?: (event: AgentEvent) => boolean;
    /** Sees every event (a workflow run folds its report from them). */
    seen?: (event: AgentEvent) => void;
  },
): Promise<RunOutcome> {
  const view = options.json ? undefined : new TerminalView();
  const questions = new AbortController();
  for await (const event of handle.events()) {
    options.seen?.(event);
    if (options.json) process.stdout.write(`${JSON.stringify(event)}\n`);
    else view?.show(event, options.show?.(event) ?? true);
    if (event.type === 'ask-user' && options.ask) {
      const request: AskRequest = { kind: event.kind, question: event.question, ...(event.action ? { action: event.action } : {}) };
      void options.ask(request, questions.signal).then((answer) => handle.answer(event.seq, answer));
    }
  }
  questions.abort();
  return handle.done;
}
