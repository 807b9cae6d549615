/**
 * The elements of a run's display now, for the window's live view (`run:elements`: the toggle
 * that outlines them). Read through the display's own accessibility bus: the user's display
 * through the environment Mnemo runs in, a private desktop through its DISPLAY and cookie, whose
 * root window names its bus (the desktop's session variables are left out, so the user's bus is
 * never asked about a private desktop).
 *
 * A reader is opened per call and closed after: the toggle asks about once a second at most, and
 * a run's own reader (the agent's) is not shared with a window that may look at any time.
 */
import { join } from 'node:path';
import type { RunDesktop } from '../../../shared/desktop';
import type { ElementSnapshot } from '../../../shared/elements';
import type { ServiceResult } from '../service-result';
import type { ElementsOpen } from './run-launcher';
import type { ReaderOpening } from '../../operator/a11y/open-reader';
import { openElementReader } from '../../operator/a11y/open-reader';
import { desktopEnvironment } from '../../operator/private-desktop/desktop-host';
import { desktopsDir } from '../../operator/private-desktop/records';

/** The live view asks often: a short budget keeps a large window from holding the request. */
export const LIVE_SNAPSHOT_BUDGET_MS = 1_000;

export interface RunElementsDeps {
  dataDir: string;
  /** The environment of the user's display (process.env). */
  env: NodeJS.ProcessEnv;
  /** Opens a reader for an environment (openElementReader; a test gives its own). */
  openReader: (env: NodeJS.ProcessEnv) => Promise<ReaderOpening>;
}

/** The environment that names a run's display and its buses. */
export function runDesktopEnvironment(desktop: RunDesktop, deps: Pick<RunElementsDeps, 'dataDir' | 'env'>): NodeJS.ProcessEnv {
  if (!desktop.private) return deps.env;
  const number = desktop.display.replace(/^:/, '').split('.')[0] ?? '';
  return desktopEnvironment(deps.env, desktop.display, join(desktopsDir(deps.dataDir), `display-${number}.xauth`));
}

/** The snapshot of the active window on a run's display, or why there is none (as a value). */
export async function runDesktopSnapshot(desktop: RunDesktop, deps: RunElementsDeps): Promise<ServiceResult<ElementSnapshot>> {
  const opening = await deps.openReader(runDesktopEnvironment(desktop, deps));
  if (!opening.ok) return { ok: false, error: { kind: 'unavailable', message: `${opening.message}; ${opening.fix}` } };
  try {
    const taken = await opening.opened.reader.snapshot({ budgetMs: LIVE_SNAPSHOT_BUDGET_MS });
    if (taken.ok) return { ok: true, value: taken.snapshot };
    return { ok: false, error: { kind: taken.kind === 'no_window' ? 'not_found' : 'unavailable', message: taken.message } };
  } finally {
    opening.opened.close();
  }
}

/**
 * The accessibility tree of a run's display, as the launcher opens it for the runs that read it
 * (`LaunchPlan.elements`). The front ends that run on a real desktop pass this to the service;
 * tests and runs without a bus pass none, and their runs see pixels only.
 */
export async function openRunElements(env: NodeJS.ProcessEnv): Promise<ElementsOpen> {
  const opening = await openElementReader(env);
  if (!opening.ok) return { ok: false, message: opening.message };
  const { reader, close } = opening.opened;
  return { ok: true, source: reader, close };
}
