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

/** Ctrl+C (or SIGTERM) stops cleanly through `stop`; a second one quits at once. Returns the undo. */
export function stopOnInterrupt(stop: { abort(): void } | { stop(): void }): () => void {
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts > 1) process.exit(ExitCode.userAborted);
    process.stderr.write('\nstopping (Ctrl+C again to quit at once)...\n');
    if ('abort' in stop) stop.abort();
    else stop.stop();
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  return () => {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
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
