/**
 * Adapter from the operator's display list to the `operator:displays` command.
 *
 * The operator module is imported on first use, not at startup: it loads platform tools
 * (screenshot-desktop, and through the operator libnut), and a failure there must
 * become an 'unavailable' answer, not a window that never opens.
 */
import { err, ok, type ResponseInputOf, type Result } from '../../shared/contract';
import type { Size } from '../../shared/frame';
import type * as operatorDisplays from '../operator/displays';

type OperatorDisplays = Pick<typeof operatorDisplays, 'listDisplays'>;

export interface DisplayListerDeps {
  /** The primary display's size in logical px: the operator's fallback where the platform lists no bounds. */
  primarySize: () => Promise<Size>;
  /** Loads the operator module; tests and other compositions may pass their own. */
  load?: () => Promise<OperatorDisplays>;
}

export function createDisplayLister(deps: DisplayListerDeps): () => Promise<Result<ResponseInputOf<'operator:displays'>>> {
  const load = deps.load ?? (() => import('../operator/displays'));
  return async () => {
    let operator: OperatorDisplays;
    try {
      operator = await load();
    } catch (error) {
      return err('unavailable', `the display list cannot be loaded: ${error instanceof Error ? error.message : String(error)}`);
    }
    // The operator's extra fields (index, name) are dropped by the contract's response schema.
    return ok(await operator.listDisplays(deps.primarySize));
  };
}
