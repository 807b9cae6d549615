/**
 * Adapter from the operator's display list to the `operator:displays` command.
 *
 * The operator module is imported on first use, not at startup: it loads platform tools
 * (screenshot-desktop, and through the operator nut-js's native code), and a failure there must
 * become an 'unavailable' answer, not a window that never opens.
 */
import { err, ok, type ResponseInputOf, type Result } from '../../shared/contract';
import type { Size } from '../../shared/frame';

type OperatorDisplays = typeof import('../operator/displays');

export interface DisplayListerDeps {
  /** The primary display's size in logical px: the operator's fallback where the platform lists no bounds. */
  primarySize: () => Promise<Size>;
  /** Loads the operator module; tests and other compositions may pass their own. */
  load?: () => Promise<Pick<OperatorDisplays, 'listDisplays'>>;
}

export function createDisplayLister(deps: DisplayListerDeps): () => Promise<Result<ResponseInputOf<'operator:displays'>>> {
  const load = deps.load ?? (() => import('../operator/displays'));
  return async () => {
    let operator: Pick<OperatorDisplays, 'listDisplays'>;
    try {
      operator = await load();
    } catch (error) {
      return err('unavailable', `the display list cannot be loaded: ${error instanceof Error ? error.message : String(error)}`);
    }
    const displays = await operator.listDisplays(deps.primarySize);
    // Only the contract's fields cross the boundary (the response schema strips the rest).
    return ok(displays.map(({ id, bounds, scaleFactor, primary }) => ({ id, bounds, scaleFactor, primary })));
  };
}
