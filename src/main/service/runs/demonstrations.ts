/**
 * Demonstrations for the window (`teach:start`, `teach:stop`): the seam where the input recorder
 * (`service.teaching.start`, src/main/teach/ over operator/x11's RECORD client) meets the window and
 * `mnemo serve`, which only ever see this interface. `Demonstrations` keeps the handles of the
 * demonstrations going on between the two commands.
 *
 * A demonstration is a session like any other (its steps `"actor": "user"`), so History, the
 * inspector and "Save as workflow" take it unchanged.
 */
import type { StartTeach } from '../../../shared/app-api';
import type { RunHandle } from './live-run';
import type { ServiceResult } from '../service-result';

export interface TeachHost {
  /** Starts recording what the user does by hand on the display; the id names the demonstration until it stops. */
  startTeach(request: StartTeach): Promise<ServiceResult<{ id: string }>>;
  /** Stops the demonstration `id` and saves it; the session recorded. `not_found` for an id that is not recording. */
  stopTeach(id: string): Promise<ServiceResult<{ sessionId: string }>>;
}

/** The demonstrations started from the window, by id (the session's), until each is stopped and saved. */
export class Demonstrations implements TeachHost {
  private readonly going = new Map<string, RunHandle>();

  constructor(private readonly start: (request: StartTeach) => Promise<ServiceResult<RunHandle>>) {}

  async startTeach(request: StartTeach): Promise<ServiceResult<{ id: string }>> {
    const started = await this.start(request);
    if (!started.ok) return started;
    const handle = started.value;
    this.going.set(handle.id, handle);
    // Stopped on the display (ctrl+alt+shift+s) or ended by a failure: no longer going on.
    void handle.done.finally(() => this.going.delete(handle.id));
    // Answer once the recorder listens (its first note), so that the user's first click after
    // Start is not lost; a demonstration that ends before that says why.
    for await (const event of handle.events()) {
      if (event.type === 'note' && event.step === 0) break;
      if (event.type === 'run-finished') return { ok: false, error: { kind: 'no_display', message: `the demonstration could not start: ${event.reason}` } };
    }
    return { ok: true, value: { id: handle.id } };
  }

  async stopTeach(id: string): Promise<ServiceResult<{ sessionId: string }>> {
    const handle = this.going.get(id);
    if (!handle) return { ok: false, error: { kind: 'not_found', message: `no demonstration ${id} is being recorded` } };
    handle.stop();
    const outcome = await handle.done;
    if (outcome.status === 'failed') return { ok: false, error: { kind: 'record', message: `the demonstration could not be saved: ${outcome.reason}`, sessionId: handle.id } };
    return { ok: true, value: { sessionId: handle.id } };
  }
}
