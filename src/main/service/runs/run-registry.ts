/**
 * The runs and replays going on in this process, by id. Several at once: each holds its own
 * desktop (a display, locked across processes by display-lock.ts) with its own operator, so runs
 * on different desktops go side by side and one front end can list them all, follow the newest,
 * or find the one on a desktop.
 *
 * A run is listed from the moment it is launched until it has ended and let its desktop go (see
 * run-launcher.ts); listeners hear of each run as it starts (a window following "the current run",
 * the event stream of `mnemo serve`).
 */
import type { LiveRunItem } from '../../../shared/app-api';
import type { RunHandle } from './live-run';

/** One line of the list of runs going on (what `GET /api/runs` lists): id, kind, task, status, desktop. */
export type LiveRunSummary = LiveRunItem;

export class RunRegistry {
  /** In the order they started. */
  private readonly runs = new Map<string, RunHandle>();
  private readonly listeners = new Set<(run: RunHandle) => void>();

  /** Lists a run until `remove`, and tells the listeners it started. */
  add(run: RunHandle): void {
    this.runs.set(run.id, run);
    for (const listener of this.listeners) listener(run);
  }

  remove(id: string): void {
    this.runs.delete(id);
  }

  get(id: string): RunHandle | undefined {
    return this.runs.get(id);
  }

  /** Every run going on, oldest first. */
  active(): RunHandle[] {
    return [...this.runs.values()];
  }

  /** The newest run going on. */
  current(): RunHandle | undefined {
    return this.active().at(-1);
  }

  /** The run going on on a desktop (`:1`, `:99 display 1`, a private `:201`), if any. */
  onDesktop(display: string): RunHandle | undefined {
    return this.active().find((run) => run.desktop.display === display);
  }

  list(): LiveRunSummary[] {
    return this.active().map((run) => ({ id: run.id, kind: run.kind, task: run.task, status: run.status, desktop: run.desktop }));
  }

  /** Told of every run started from now on; returns the unsubscribe. */
  onRunStarted(listener: (run: RunHandle) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops every run and waits until each is recorded as ended and has let its desktop go. */
  async stopAll(): Promise<void> {
    const runs = this.active();
    for (const run of runs) run.stop();
    await Promise.all(runs.map((run) => run.done));
  }
}
