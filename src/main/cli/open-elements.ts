/**
 * The accessibility tree, for the runs a command starts (`mnemo workflow run`, a batch's rows, a
 * worker's jobs), as `mnemo run` reads it: each click named with the element it hit, typing read
 * back. D-Bus is loaded only when a run opens a tree, not for `mnemo batch list`.
 */
import type { ElementsOpen } from '../service/runs/run-launcher';

export async function openElementsOnDemand(env: NodeJS.ProcessEnv): Promise<ElementsOpen> {
  const { openRunElements } = await import('../service/runs/run-elements');
  return openRunElements(env);
}
