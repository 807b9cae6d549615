/**
 * The window's commands over the app backend, once for both shells: the Electron IPC handlers
 * (src/main/app/handlers.ts) and `mnemo serve`'s router (src/main/server/api.ts) add only what
 * differs between them: the version, the display list, and how a report is saved.
 */
import { err, ok, type Handlers, type Result } from '../../../shared/contract';
import { shownWorkflow, type CheckedWorkflow, type ShownWorkflow } from '../../../shared/workflow';
import type { AppBackend } from './app-backend';
import type { ServiceResult } from '../service-result';

/** The commands each shell serves its own way. */
export type ShellCommand = 'app:version' | 'operator:displays' | 'sessions:export';

/** A service failure as a contract result: the same kind, the message, the session holding a busy display. */
export function fromService<T>(result: ServiceResult<T>): Result<T> {
  if (result.ok) return ok(result.value);
  const failed = err<T>(result.error.kind, result.error.message);
  if (!failed.ok && result.error.sessionId) failed.error.sessionId = result.error.sessionId;
  return failed;
}

/** A workflow as the window shows it: whole, with whether it is trusted and the digest a trust names. */
function shown(result: ServiceResult<CheckedWorkflow>): ServiceResult<ShownWorkflow> {
  return result.ok ? { ok: true, value: shownWorkflow(result.value) } : result;
}

export function backendHandlers(backend: AppBackend): Omit<Handlers, ShellCommand> {
  return {
    'run:start': async (request) => fromService(await backend.startRun(request)),
    'run:current': async () => ok(backend.currentRun()),
    'run:pause': async ({ id }) => fromService(backend.control(id, 'pause')),
    'run:resume': async ({ id }) => fromService(backend.control(id, 'resume')),
    'run:stop': async ({ id }) => fromService(backend.control(id, 'stop')),
    'run:answer': async ({ id, text, questionId }) => fromService(backend.answer(id, text, questionId)),
    'runs:list': async () => ok(backend.liveRuns()),
    'run:takeover': async ({ id }) => fromService(backend.takeOver(id)),
    'run:input': async ({ id, action }) => fromService(await backend.input(id, action)),
    'run:handback': async ({ id, note }) => fromService(backend.handBack(id, note)),
    'run:elements': async ({ id }) => fromService(await backend.elements(id)),
    'replay:start': async (request) => fromService(await backend.startReplay(request)),
    'sessions:list': async (filter) => ok(await backend.sessions(filter)),
    'sessions:events': async ({ id, since }) => fromService(await backend.events(id, since)),
    'sessions:delete': async ({ id }) => fromService(await backend.service.records.delete(id)),
    'settings:get': async () => ok(backend.settings()),
    'settings:save': async (request) => fromService(await backend.saveSettings(request)),
    'provider:check': async ({ model, apiKey }) => fromService(await backend.checkProvider(model ?? {}, apiKey)),
    'provider:grounding': async ({ model, apiKey, targets }) => fromService(await backend.checkGrounding(model ?? {}, apiKey, targets)),
    'doctor:run': async () => ok(await backend.doctor()),
    'facts:list': async (query) => fromService(await backend.facts(query)),
    'facts:search': async (request) => fromService(await backend.searchFacts(request)),
    'facts:save': async (request) => fromService(await backend.saveFact(request)),
    'facts:forget': async ({ id }) => fromService(await backend.forgetFact(id)),
    'memory:conversations': async () => fromService(await backend.conversations()),
    'memory:working': async ({ conversationId }) => fromService(await backend.workingMemory(conversationId)),
    'workflows:list': async () => ok(await backend.service.workflows.listings()),
    'workflows:show': async ({ name }) => fromService(shown(await backend.service.workflows.show(name))),
    'workflows:trust': async ({ name, digest }) => fromService(shown(await backend.service.workflows.trust(name, digest))),
    'workflows:propose': async ({ id }) => fromService(await backend.service.workflows.propose(id)),
    'workflows:save': async (request) => fromService(await backend.saveWorkflow(request)),
    'workflows:delete': async ({ name }) => fromService(await backend.service.workflows.delete(name)),
    'workflows:export': async ({ name }) => fromService(await backend.service.workflows.export(name)),
    'workflows:import': async (request) => fromService(await backend.importWorkflow(request)),
    'workflows:run': async (request) => fromService(await backend.startWorkflow(request)),
    'teach:start': async (request) => fromService(await backend.startTeach(request)),
    'teach:stop': async ({ id }) => fromService(await backend.stopTeach(id)),
    'batches:start': async ({ workflow, task, csv, concurrency, retries }) => {
      if ((workflow === undefined) === (task === undefined)) return err('invalid', 'choose a workflow or write a task, not both and not neither');
      const table = backend.service.batches.valuesText(csv, 'csv', '(the values)');
      if (!table.ok) return fromService(table);
      const source = workflow !== undefined ? { kind: 'workflow' as const, name: workflow, policy: 'stop' as const, speed: 1 } : { kind: 'task' as const, task: task as string };
      return fromService(await backend.service.batches.start({ source, table: table.value, valuesFile: '(the values)', ...(concurrency !== undefined ? { concurrency } : {}), retries, desktop: {} }));
    },
    'batches:list': async () => ok((await backend.service.batches.list()).batches),
    'batches:get': async ({ id }) => fromService(await backend.service.batches.get(id)),
    'batches:retry': async ({ id, failedOnly }) => fromService(await backend.service.batches.retry(id, failedOnly)),
    'batches:cancel': async ({ id }) => {
      const cancelled = await backend.service.batches.cancel(id);
      return fromService(cancelled.ok ? { ok: true, value: cancelled.value.batch } : cancelled);
    },
    'batches:queue': async () => ok(await backend.service.batches.queueView()),
  };
}
