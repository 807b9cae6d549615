/**
 * The command handlers. Every collaborator is passed in; this module only maps commands to them:
 * the run service and the long-lived memory through the app backend (the same methods `mnemo
 * serve` answers with), the display list, and the save-dialog export.
 */
import { err, ok, type ResponseInputOf, type Result } from '../../shared/contract';
import type { AppBackend } from '../service/app-backend';
import type { ServiceResult } from '../service/run-service';
import type { Handlers } from './dispatch';

export interface HandlerDeps {
  appInfo: { version: string; platform: string };
  /** The operator's display list, already turned into a Result by its adapter. */
  listDisplays: () => Promise<Result<ResponseInputOf<'operator:displays'>>>;
  backend: AppBackend;
  /** Asks where to save a session's report and writes it there; null when the user cancels. */
  exportReport: (sessionId: string) => Promise<Result<{ path: string | null }>>;
}

/** A service failure as an IPC result: the same kind, the message, the session holding a busy display. */
function fromService<T>(result: ServiceResult<T>): Result<T> {
  if (result.ok) return ok(result.value);
  const failed = err<T>(result.error.kind, result.error.message);
  if (!failed.ok && result.error.sessionId) failed.error.sessionId = result.error.sessionId;
  return failed;
}

export function createHandlers(deps: HandlerDeps): Handlers {
  const { backend } = deps;
  return {
    'app:version': async () => ok(deps.appInfo),
    'operator:displays': () => deps.listDisplays(),
    'run:start': async (request) => fromService(await backend.startRun(request)),
    'run:current': async () => ok(backend.currentRun()),
    'run:pause': async ({ id }) => fromService(backend.control(id, 'pause')),
    'run:resume': async ({ id }) => fromService(backend.control(id, 'resume')),
    'run:stop': async ({ id }) => fromService(backend.control(id, 'stop')),
    'run:answer': async ({ id, text, questionId }) => fromService(backend.answer(id, text, questionId)),
    'replay:start': async (request) => fromService(await backend.startReplay(request)),
    'sessions:list': async (filter) => ok(await backend.sessions(filter)),
    'sessions:events': async ({ id, since }) => fromService(await backend.events(id, since)),
    'sessions:delete': async ({ id }) => fromService(await backend.service.deleteSession(id)),
    'sessions:export': ({ id }) => deps.exportReport(id),
    'settings:get': async () => ok(backend.settings()),
    'settings:save': async (request) => fromService(await backend.saveSettings(request)),
    'provider:check': async ({ model, apiKey }) => fromService(await backend.checkProvider(model ?? {}, apiKey)),
    'doctor:run': async () => ok(await backend.doctor()),
    'facts:list': async (query) => fromService(await backend.facts(query)),
    'facts:search': async (request) => fromService(await backend.searchFacts(request)),
    'facts:save': async (request) => fromService(await backend.saveFact(request)),
    'facts:forget': async ({ id }) => fromService(await backend.forgetFact(id)),
    'memory:conversations': async () => fromService(await backend.conversations()),
    'memory:working': async ({ conversationId }) => fromService(await backend.workingMemory(conversationId)),
  };
}
