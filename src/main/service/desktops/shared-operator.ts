/**
 * One operator kept open for many short calls: the MCP server takes a screenshot or does one
 * action at a time, and starting an operator host for each (a child process loading libnut and
 * libvips) would cost more than the call itself. The host starts at the first use; one that could
 * not start (no display yet) is tried again at the next; `close()` ends it.
 *
 * Runs get it too (`openForRun`, the run service's `openOperator`): each run or action starts with
 * the fail-safe let go, as a fresh host would, and leaves the host running when it ends. A run on a
 * private desktop gets an operator of its own on that desktop instead (the shared one acts on the
 * user's display), closed with the run.
 */
import type { CaptureOptions } from '../../operator/capture';
import type { IsolatedOperator, IsolatedOperatorLoad } from '../../operator/isolated-operator';
import { openDesktopOperator } from './desktop';
import type { OperatorOpen } from '../runs/run-launcher';
import type { ServiceResult } from '../service-result';

export class SharedOperator {
  private started: Promise<IsolatedOperatorLoad> | undefined;
  private closed = false;

  constructor(private readonly start: () => Promise<IsolatedOperatorLoad>) {}

  /** The operator, started now if it is not yet; `no_display` when it cannot be. */
  async get(): Promise<ServiceResult<IsolatedOperator>> {
    if (this.closed) return { ok: false, error: { kind: 'no_display', message: 'the operator is closed' } };
    this.started ??= this.start();
    const loaded = await this.started;
    if (loaded.ok) return { ok: true, value: loaded.operator };
    // Not cached: the display may be there at the next call.
    this.started = undefined;
    return { ok: false, error: { kind: 'no_display', message: loaded.message } };
  }

  /**
   * For the run service: the shared operator, the fail-safe reset, nothing closed at the run's end;
   * for a private desktop (`env`: its DISPLAY and XAUTHORITY), an operator of its own there.
   */
  readonly openForRun = async (capture: CaptureOptions = {}, env?: NodeJS.ProcessEnv): Promise<OperatorOpen> => {
    if (env) return openDesktopOperator(capture, env);
    const operator = await this.get();
    if (!operator.ok) return { ok: false, message: operator.error.message };
    await operator.value.resetFailSafe();
    return { ok: true, operator: operator.value };
  };

  async close(): Promise<void> {
    this.closed = true;
    const loaded = await this.started;
    if (loaded?.ok) await loaded.operator.close();
  }
}
