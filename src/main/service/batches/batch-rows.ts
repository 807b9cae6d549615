/**
 * A batch's row, launched by the same recipe as any run: a workflow row through `workflowRuns`,
 * a task row through `agentRuns`, each on a private desktop of its own, never interactive, its
 * session tagged with the batch and the row. The run's end becomes the attempt's result.
 * The secrets a row names are read here, when its rows are about to run (the environment, or the
 * OS keychain: service `mnemo-param`, account the name), and kept only in memory.
 */
import type { DesktopRequest } from '../../../shared/desktop';
import type { AttemptResult, RowLauncher, StartedAttempt } from '../../batch/scheduler';
import type { BatchDefinition } from '../../batch/records';
import { fillTask, type Cell } from '../../batch/values';
import type { OsKeychain } from '../../settings/keychain/keychain';
import type { RunFlags } from '../../settings/settings';
import type { RunHandle } from '../runs/live-run';
import type { AgentRuns } from '../runs/agent-runs';
import type { WorkflowRuns } from '../runs/workflow-runs';
import type { ServiceResult } from '../service-result';
import { screenValuesOf } from '../../run/screen-values';

/** Where a secret a values file names by `${keychain:NAME}` is kept. */
export function paramKeychainEntry(name: string) {
  return { service: 'mnemo-param', account: name, label: `Mnemo parameter ${name}` };
}

/** Every row's values, the secrets read; or the first secret that cannot be found, named. */
export async function resolveRowValues(
  definition: BatchDefinition,
  rows: readonly number[],
  sources: { env: NodeJS.ProcessEnv; keychain: () => OsKeychain },
): Promise<{ ok: true; values: Map<number, Map<string, string>> } | { ok: false; message: string }> {
  const values = new Map<number, Map<string, string>>();
  const known = new Map<string, string>();
  for (const { row, cells } of definition.rows) {
    if (!rows.includes(row)) continue;
    const rowValues = new Map<string, string>();
    for (const [column, cell] of Object.entries(cells)) {
      const value = await cellValue(cell, known, sources);
      if (!value.ok) return { ok: false, message: `row ${row}, column "${column}": ${value.message}` };
      rowValues.set(column, value.value);
    }
    values.set(row, rowValues);
  }
  return { ok: true, values };
}

async function cellValue(cell: Cell, known: Map<string, string>, sources: { env: NodeJS.ProcessEnv; keychain: () => OsKeychain }): Promise<{ ok: true; value: string } | { ok: false; message: string }> {
  if (cell.kind === 'text') return { ok: true, value: cell.text };
  const key = `${cell.source}:${cell.name}`;
  const seen = known.get(key);
  if (seen !== undefined) return { ok: true, value: seen };
  if (cell.source === 'env') {
    const value = sources.env[cell.name];
    if (value === undefined || value === '') return { ok: false, message: `the environment variable ${cell.name} is not set (the file names it for a secret)` };
    known.set(key, value);
    return { ok: true, value };
  }
  const keychain = sources.keychain();
  const read = await keychain.read(paramKeychainEntry(cell.name), { interactive: false });
  if (!read.ok) return { ok: false, message: `${keychain.name}: ${read.problem.message}; ${read.problem.fix}` };
  if (read.secret === null) {
    return { ok: false, message: `${keychain.name} keeps no secret for "${cell.name}" (service mnemo-param, account ${cell.name}; on Linux: secret-tool store --label "Mnemo parameter ${cell.name}" application mnemo-param data-dir ${cell.name})` };
  }
  known.set(key, read.secret);
  return { ok: true, value: read.secret };
}

/** What the run read off the screen (run/screen-values.ts), from its record; nothing when the record cannot be read. */
async function readOffTheScreen(handle: RunHandle): Promise<Record<string, string>> {
  const events = await handle.eventsSoFar().catch(() => []);
  return screenValuesOf(events);
}

export interface BatchRowsDeps {
  workflowRuns: Pick<WorkflowRuns, 'start'>;
  agentRuns: Pick<AgentRuns, 'start'>;
  now?: () => number;
}

export interface BatchRowsOptions {
  definition: BatchDefinition;
  /** Each row's values, secrets included. */
  values: ReadonlyMap<number, ReadonlyMap<string, string>>;
  /** Model flags for the runs (a task's, or a workflow's reground). */
  model?: RunFlags;
}

export class BatchRows implements RowLauncher {
  constructor(
    private readonly deps: BatchRowsDeps,
    private readonly options: BatchRowsOptions,
  ) {}

  async start(row: number, _attempt: number): Promise<StartedAttempt | { ok: false; result: AttemptResult }> {
    const now = this.deps.now ?? Date.now;
    const startedAt = now();
    const started = await this.launch(row);
    if (!started.ok) {
      return { ok: false, result: { status: 'failed', session: null, runStatus: null, reason: `could not start: ${started.error.message}`, steps: 0, costUsd: 0, durationMs: now() - startedAt } };
    }
    const handle = started.value;
    let stopped = false;
    const done = handle.done.then(async (outcome): Promise<AttemptResult> => {
      const durationMs = now() - startedAt;
      const screenValues = await readOffTheScreen(handle);
      return {
        status: outcome.status === 'finished' ? 'succeeded' : stopped ? 'interrupted' : 'failed',
        session: handle.id,
        runStatus: outcome.status,
        reason: outcome.reason,
        steps: outcome.steps,
        costUsd: outcome.usage.costUsd,
        durationMs,
        ...(Object.keys(screenValues).length > 0 ? { screenValues } : {}),
      };
    });
    return {
      ok: true,
      session: handle.id,
      display: handle.desktop.display,
      done,
      stop: () => {
        stopped = true;
        handle.stop();
      },
    };
  }

  private launch(row: number): Promise<ServiceResult<RunHandle>> {
    const { definition, values: allValues, model } = this.options;
    const values = allValues.get(row) ?? new Map<string, string>();
    const desktop: DesktopRequest = { private: true, ...(definition.desktop.size ? { size: definition.desktop.size } : {}), ...(definition.desktop.apps ? { apps: definition.desktop.apps } : {}) };
    const batch = { id: definition.id, row };
    const source = definition.source;
    if (source.kind === 'workflow') {
      return this.deps.workflowRuns.start({
        name: source.name,
        values,
        policy: source.policy,
        speed: source.speed,
        interactive: false,
        desktop,
        batch,
        ...(source.policy === 'reground' ? { model: model ?? {} } : {}),
      });
    }
    return this.deps.agentRuns.start({ task: fillTask(source.task, values), interactive: false, desktop, batch, ...(model ? { overrides: model } : {}) });
  }
}
