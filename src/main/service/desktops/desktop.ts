/**
 * The operator a run gets on this machine's desktop: the isolated operator, whose X connection
 * lives in a child process, so a display that cannot be opened or goes away is a value, never a
 * crash of the process that records the run. A private desktop's operator gets that desktop's
 * environment (its DISPLAY and XAUTHORITY) and nothing of the user's display.
 */
import type { CaptureOptions } from '../../operator/capture';
import type { OperatorOpen } from '../run-service';

export async function openDesktopOperator(capture: CaptureOptions, env: NodeJS.ProcessEnv = process.env): Promise<OperatorOpen> {
  // Loaded on demand: the operator host costs a few hundred ms that other commands need not pay.
  const { createIsolatedOperator } = await import('../../operator/isolated-operator');
  const loaded = await createIsolatedOperator({ capture }, env);
  if (!loaded.ok) return loaded;
  const { operator } = loaded;
  return { ok: true, operator, close: () => operator.close() };
}
