/**
 * The accessibility tree of a run's display, as the launcher opens it for the runs that read it
 * (`LaunchPlan.elements`): the display's bus found and connected (operator/a11y/open-reader.ts).
 * The front ends that run on a real desktop pass it to the service; tests and runs without a bus
 * pass none, and their runs see pixels only.
 */
import { openElementReader } from '../../operator/a11y/open-reader';
import type { ElementsOpen } from './run-launcher';

export async function openRunElements(env: NodeJS.ProcessEnv): Promise<ElementsOpen> {
  const opening = await openElementReader(env);
  if (!opening.ok) return { ok: false, message: opening.message };
  const { reader, close } = opening.opened;
  return { ok: true, source: reader, close };
}
