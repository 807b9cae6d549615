/**
 * One client's connection to the MCP server (the stdio session, or one HTTP session): the
 * services every tool works through, what the connection remembers between calls (the latest
 * screenshot, whose pixels `act` takes), and for each call what the client offers: progress
 * notifications when it sent a progress token, questions through elicitation when it declared
 * that capability, and its cancellation as an AbortSignal.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ElicitRequestFormParams, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ElementSnapshot } from '../../shared/elements';
import type { AskRequest } from '../run/ask';
import type { DirectDesktop, Screenshot } from '../service/desktops/direct-desktop';
import type { RunService } from '../service/run-service';
import type { SessionFiles } from '../service/sessions/session-files';

/** What the SDK hands a tool's handler with each call (the client's signal, its progress token, ...). */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What the tools work through: nothing past the services. */
export interface McpServices {
  service: RunService;
  desktop: DirectDesktop;
  files: SessionFiles;
}

/**
 * What one connection remembers between calls: its latest screenshot (act's coordinates are its
 * pixels) and its latest elements snapshot, numbered (act's element refs are of it).
 */
export class ConnectionState {
  latest: Screenshot | null = null;
  elements: { id: number; snapshot: ElementSnapshot } | null = null;
}

/** Asks the client's user; resolves to the answer, or null when none came. */
export type ClientAsk = (request: AskRequest) => Promise<string | null>;

/** One tool call's context. */
export interface ToolCall {
  services: McpServices;
  state: ConnectionState;
  /** Aborted when the client cancels the call (or the connection closes). */
  signal: AbortSignal;
  /** Sends a progress notification; null when the client did not ask for progress. */
  progress: ((done: number, total: number | undefined, message: string) => void) | null;
  /** Null when the client cannot be asked (it has no elicitation). */
  ask: ClientAsk | null;
}

/** A person may take a while to answer. */
const ANSWER_TIMEOUT_MS = 10 * 60_000;

/** The form a question is put in: a text answer, or a yes/no for a confirmation or a safety check. */
function formOf(request: AskRequest): ElicitRequestFormParams {
  if (request.kind === 'question') {
    return { mode: 'form', message: request.question, requestedSchema: { type: 'object', properties: { answer: { type: 'string', title: 'Answer' } }, required: ['answer'] } };
  }
  return {
    mode: 'form',
    message: request.question,
    requestedSchema: { type: 'object', properties: { allow: { type: 'boolean', title: 'Allow', description: 'Let Mnemo carry out this action', default: false } }, required: ['allow'] },
  };
}

/** The answer a run understands: the text, `yes` or `no`; null when nobody answered. */
function answerOf(request: AskRequest, result: { action: string; content?: Record<string, unknown> }): string | null {
  if (request.kind === 'question') return result.action === 'accept' && typeof result.content?.answer === 'string' ? result.content.answer : null;
  if (result.action === 'cancel') return null;
  return result.action === 'accept' && result.content?.allow === true ? 'yes' : 'no';
}

/** Builds each call's context for the tools of one server (one connection). */
export function callContext(server: McpServer, services: McpServices, state: ConnectionState): (extra: ToolExtra) => ToolCall {
  return (extra) => {
    const token = extra._meta?.progressToken;
    const canAsk = server.server.getClientCapabilities()?.elicitation !== undefined;
    return {
      services,
      state,
      signal: extra.signal,
      progress:
        token === undefined
          ? null
          : (done, total, message) => {
              void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done, ...(total !== undefined ? { total } : {}), message } }).catch(() => undefined);
            },
      ask: canAsk
        ? async (request) => {
            try {
              const result = await server.server.elicitInput(formOf(request), { relatedRequestId: extra.requestId, signal: extra.signal, timeout: ANSWER_TIMEOUT_MS });
              return answerOf(request, result);
            } catch {
              // Declined by the transport, timed out, cancelled: no answer.
              return null;
            }
          }
        : null,
    };
  };
}
