/**
 * The IPC boundary without Electron: check the sender, validate the request with the contract,
 * run the handler, validate its answer. Every outcome is a Result value; nothing is thrown back to
 * the renderer. Kept free of `electron` so it can be tested with plain zod and plain objects.
 */
import { z } from 'zod';
import { commands, err, isCommandName, ok, type Handlers, type Result } from '../../shared/contract';
import { checkOnce } from '../../shared/checked-once';

export type { Handler, Handlers } from '../../shared/contract';

/** What the IPC layer knows about who asked. */
export interface Sender {
  /** The sending frame's URL, or null when the frame is gone. */
  url: string | null;
  /** False for iframes: only the top-level document may talk to us. */
  isMainFrame: boolean;
}

export type Dispatch = (command: string, sender: Sender, rawRequest: unknown) => Promise<Result<unknown>>;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createDispatcher(handlers: Handlers, isTrustedUrl: (url: string) => boolean): Dispatch {
  return async (command, sender, rawRequest) => {
    if (!isCommandName(command)) return err('unavailable', `unknown command "${command}"`);
    if (sender.url === null || !sender.isMainFrame || !isTrustedUrl(sender.url)) {
      return err('forbidden', `${command}: sender is not the Mnemo renderer`);
    }
    const spec = commands[command];
    const request = spec.request.safeParse(rawRequest);
    if (!request.success) return err('invalid_request', `${command}: ${z.prettifyError(request.error)}`);

    let answer: Result<unknown>;
    try {
      // The map type pairs each command with its handler; TypeScript cannot follow a union key.
      const handler = handlers[command] as (request: unknown) => Promise<Result<unknown>>;
      answer = await handler(request.data);
    } catch (error) {
      return err('internal', `${command}: ${describe(error)}`);
    }
    if (!answer.ok) return answer;

    const response = checkOnce(spec.response, answer.value);
    if (!response.success) return err('invalid_response', `${command}: ${z.prettifyError(response.error)}`);
    return ok(response.data);
  };
}
