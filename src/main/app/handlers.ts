/**
 * The command handlers. Every collaborator is passed in; this module only maps commands to them.
 */
import { ok, type ResponseInputOf, type Result } from '../../shared/contract';
import type { Handlers } from './dispatch';

export interface HandlerDeps {
  appInfo: { version: string; platform: string };
  /** The operator's display list, already turned into a Result by its adapter. */
  listDisplays: () => Promise<Result<ResponseInputOf<'operator:displays'>>>;
}

export function createHandlers(deps: HandlerDeps): Handlers {
  return {
    'app:version': async () => ok(deps.appInfo),
    'operator:displays': () => deps.listDisplays(),
  };
}
