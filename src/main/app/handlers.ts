/**
 * The IPC command handlers: the window's commands over the app backend (the same ones `mnemo
 * serve` answers with, service/front-ends/window-commands.ts), plus what only the app does its own way:
 * its version, the display list from Electron's screen, and the save-dialog export.
 */
import { ok, type Handlers, type ResponseInputOf, type Result } from '../../shared/contract';
import type { AppBackend } from '../service/front-ends/app-backend';
import { backendHandlers } from '../service/front-ends/window-commands';

export interface HandlerDeps {
  appInfo: { version: string; platform: string };
  /** The operator's display list, already turned into a Result by its adapter. */
  listDisplays: () => Promise<Result<ResponseInputOf<'operator:displays'>>>;
  backend: AppBackend;
  /** Asks where to save a session's report and writes it there; null when the user cancels. */
  exportReport: (sessionId: string) => Promise<Result<{ path: string | null }>>;
}

export function createHandlers(deps: HandlerDeps): Handlers {
  return {
    ...backendHandlers(deps.backend),
    'app:version': async () => ok(deps.appInfo),
    'operator:displays': () => deps.listDisplays(),
    'sessions:export': ({ id }) => deps.exportReport(id),
  };
}
