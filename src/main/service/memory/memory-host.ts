/**
 * The long-lived memory of a run service: the backends (fact store, working memory, conversations,
 * the Redis connection they share) opened once per storage settings and shared by every run and by
 * the Memory view; the memory of each run opened on them; and the blackboard summaries after a
 * run, in the background.
 *
 * Every store is given the process's store writer (the redaction policy of the current settings),
 * and a run's blackboard and conversation its own (the policy with the run's flags).
 */
import type { StoreWriter } from '../../disk/store-writer';
import type { SummaryOptions, SummaryReport } from '../../memory/blackboard-summaries';
import type { RunFlags, RunSettings, MemoryStoreSettings } from '../../settings/settings';
import { openMemoryBackends, type BackendsOpen, type MemoryBackends } from './memory-backends';
import { MemoryService } from './memory-service';
import { summarizeSharedBlackboard, openRunMemory, type OpenedMemory } from './memory-setup';
import type { ServiceConfig } from '../service-config';
import type { ServiceResult } from '../service-result';

export interface MemoryHostDeps {
  config: ServiceConfig;
  /** The memory key from the OS keychain (the app: safeStorage), when none is set otherwise. */
  memoryKey?: () => Promise<string | null>;
  now?: () => number;
  log: (message: string) => void;
}

/** Finished tasks summarised after each run at most (the newest; `mnemo memory compact` does the rest). */
const SUMMARIES_AFTER_RUN = 5;

export class MemoryHost {
  /** Opened once per storage settings (one Redis connection for every run). */
  private readonly backends = new Map<string, Promise<BackendsOpen>>();
  /** The blackboard summaries after the last run, going on in the background. */
  private summaries: { stop: AbortController; done: Promise<void> } | null = null;

  constructor(private readonly deps: MemoryHostDeps) {}

  /** The storage these settings name, opened on first use; a failure is not kept (Redis may be back next time). */
  async open(settings: MemoryStoreSettings): Promise<ServiceResult<MemoryBackends>> {
    await this.deps.config.dataDirReady();
    const key = JSON.stringify(settings);
    let opening = this.backends.get(key);
    if (!opening) {
      opening = openMemoryBackends(settings, { writer: this.deps.config.storeWriter, ...(this.deps.memoryKey ? { keychainKey: this.deps.memoryKey } : {}) });
      this.backends.set(key, opening);
      void opening.then((opened) => {
        if (opened.ok) for (const warning of opened.backends.warnings) this.deps.log(`warning: ${warning}`);
        else this.backends.delete(key);
      });
    }
    const opened = await opening;
    return opened.ok ? { ok: true, value: opened.backends } : { ok: false, error: { kind: 'memory', message: opened.message } };
  }

  /**
   * Facts and working memory for people and front ends, over the storage the runs use. Closed by
   * `close()`. A failure says what is wrong as it is (the CLI tells the user their own settings);
   * a front end that shows it to others masks it (`config.redacted`).
   */
  async memoryService(overrides: Pick<RunFlags, 'redisUrl' | 'memoryKeyFile'> = {}): Promise<ServiceResult<MemoryService>> {
    const settings = this.deps.config.memoryStoreSettings(overrides);
    if (!settings.ok) return settings;
    const backends = await this.open(settings.value);
    return backends.ok ? { ok: true, value: new MemoryService(backends.value, this.deps.now) } : backends;
  }

  /**
   * The memory of one run: the last run's summaries stopped first (what it wrote is whole), then
   * the blackboard and the conversation (new, or continued by id) opened, written through `writer`.
   */
  async openForRun(run: RunSettings, conversationId: string | undefined, writer: StoreWriter): Promise<ServiceResult<OpenedMemory>> {
    await this.stopSummaries();
    const backends = await this.open(run.memoryStore);
    if (!backends.ok) return backends;
    const memory = await openRunMemory(run, run.prices, backends.value, conversationId, writer);
    if (!memory.ok) return { ok: false, error: { kind: 'settings', message: memory.message } };
    for (const warning of memory.memory.warnings) this.deps.log(`warning: ${warning}`);
    return { ok: true, value: memory.memory };
  }

  /** After a run: its memory saved (the failures it did not hear about logged). */
  async saveAfterRun(memory: OpenedMemory): Promise<void> {
    for (const failure of await memory.save()) this.deps.log(`warning: ${failure}`);
  }

  /**
   * Folds the tasks that just ended into the blackboard's one-line summaries, off the critical
   * path: after the run has ended and released its desktop, while nobody waits for a step. The
   * next run stops it first; what it wrote by then is whole, and the rest is done next time.
   */
  summarizeAfterRun(memory: OpenedMemory): void {
    const stop = new AbortController();
    const done = memory
      .summarize({ limit: SUMMARIES_AFTER_RUN, signal: stop.signal })
      .then((report) => {
        if (report.writeError) this.deps.log(`warning: ${report.writeError}`);
        else if (report.failed.length > 0 && !stop.signal.aborted) this.deps.log(`warning: the blackboard was not compacted: ${report.failed[0]?.error}`);
      })
      .catch((error: unknown) => this.deps.log(`warning: the blackboard was not compacted: ${(error as Error).message}`))
      .finally(() => {
        if (this.summaries?.done === done) this.summaries = null;
      });
    this.summaries = { stop, done };
  }

  /** Whether the summaries after the last run is still going on (close() waits for it). */
  get summarizing(): boolean {
    return this.summaries !== null;
  }

  async stopSummaries(): Promise<void> {
    const summaries = this.summaries;
    if (!summaries) return;
    summaries.stop.abort();
    await summaries.done;
  }

  /**
   * `mnemo memory compact`: every finished task of the shared blackboard that has no summary yet
   * gets one (newest first, at most `limit`), with progress; stops at `signal`.
   */
  async summarize(options: SummaryOptions = {}): Promise<ServiceResult<SummaryReport>> {
    const run = this.deps.config.runSettings();
    if (!run.ok) return run;
    const settings = run.value;
    await this.stopSummaries();
    const backends = await this.open(settings.memoryStore);
    if (!backends.ok) return this.deps.config.redacted(backends);
    const summarized = await summarizeSharedBlackboard(settings, settings.prices, backends.value, this.deps.config.storeWriter, options);
    if (!summarized.ok) return this.deps.config.redacted({ ok: false, error: { kind: 'memory', message: summarized.message } });
    for (const warning of summarized.warnings) this.deps.log(`warning: ${warning}`);
    return { ok: true, value: summarized.report };
  }

  /** Waits for the summaries after the last run (a few model calls at most), then closes the storage. */
  async close(): Promise<void> {
    await this.summaries?.done;
    const backends = [...this.backends.values()];
    this.backends.clear();
    for (const opening of backends) {
      const opened = await opening;
      if (opened.ok) await opened.backends.close();
    }
  }
}
