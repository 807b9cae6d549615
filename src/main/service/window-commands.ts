/**
 * The window's commands over the app backend, once for both shells: the Electron IPC handlers
 * (src/main/app/handlers.ts) and `mnemo serve`'s router (src/main/server/api.ts) add only what
 * differs between them: the version, the display list, and how a report is saved.
 */
import { err, ok, type Handlers, type Result } from '../../shared/contract';
import type { AppBackend } from './app-backend';
import type { ServiceResult } from './service-result';

/** The commands each shell serves its own way. */
export type ShellCommand = 'app:version' | 'operator:displays' | 'sessions:export';

/** A service failure as a contract result: the same kind, the message, the session holding a busy display. */
export function fromService<T>(result: ServiceResult<T>): Result<T> {
  if (result.ok) return ok(result.value);
  const failed = err<T>(result.error.kind, result.error.message);
  if (!failed.ok && result.error.sessionId) failed.error.sessionId = result.error.sessionId;
  return failed;
}

export function backendHandlers(backend: AppBackend): Omit<Handlers, ShellCommand> {
  return {
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
