/**
 * The run service: the root every front end (the CLI, the Electron main process, `mnemo serve`)
 * holds. It composes the parts, opens them before anything is served and closes them at the end;
 * it does nothing itself, so a front end calls the part that does the job:
 *
 * | part | file | job |
 * | --- | --- | --- |
 * | `config` | service-config.ts | the settings, read once and owned here (`use`); the redaction policy; the data directory made private |
 * | `runs` | runs/run-registry.ts | the runs going on in this process, several at once (one per desktop) |
 * | `records` | sessions/session-queries.ts | the recorded sessions: list, one, events, memory snapshot, delete, housekeeping |
 * | `memoryHost` | memory/memory-host.ts | the long-lived memory: backends opened once per settings, a run's memory, `mnemo memory compact` |
 * | `desktops` | desktops/run-desktops.ts | where a run works: the user's display, or a private desktop started for it |
 * | `launcher` | runs/run-launcher.ts | one launch for every kind of run: desktop, lock, operator, the run's context, live handle |
 * | `workflows` | workflows/workflow-service.ts | the saved workflows: save a session as one, list, show, trust, delete, export, import |
 * | `checks` | checks/provider-checks.ts | the provider and grounding checks (`check-model`, the settings form) |
 * | `agentRuns`, `replays`, `workflowRuns`, `teaching` | runs/*.ts | one recipe per way of starting a run: a task, a replay, a workflow run, a demonstration |
 * | `demonstrations` | runs/demonstrations.ts | the window's teach:start and teach:stop, over `teaching` |
| `batches` | batches/batch-service.ts | the batches of the data directory: make, read, run rows (here or in the background), retry, cancel, follow |
 *
 * Failures are values (`ServiceResult`), each with a kind the adapters map to their own terms (an
 * exit code, an HTTP status, a message in the window), their messages masked by the redaction policy.
 *
 * The folders say what each part is for: runs/ (starting and following runs), desktops/ (where they
 * work), sessions/ (what they recorded), memory/ (what they remember), workflows/ (what they were
 * taught), checks/ (the provider, grounding and doctor checks), front-ends/ (the window's commands
 * over the service, for the app and `mnemo serve`).
 */
import { Batches } from './batches/batch-service';
import { Demonstrations, type TeachHost } from './runs/demonstrations';
import type { ModelSettings, PriceTable } from '../../shared/settings';
import { createVisionModel } from '../model';
import type { VisionModel } from '../model/types';
import type { CaptureOptions } from '../operator/capture';
import type { ProviderProbe } from '../model/provider-check';
import type { LoadedConfig, RunFlags } from '../settings/settings';
import { ProviderChecks } from './checks/provider-checks';
import { MemoryHost } from './memory/memory-host';
import { RunDesktops } from './desktops/run-desktops';
import { RunLauncher, type ElementsOpen, type OperatorOpen } from './runs/run-launcher';
import { RunRegistry } from './runs/run-registry';
import { AgentRuns } from './runs/agent-runs';
import type { RecipeParts } from './runs/recipe-parts';
import { Replays } from './runs/replays';
import { Teaching } from './runs/teaching';
import { WorkflowRuns } from './runs/workflow-runs';
import { ServiceConfig } from './service-config';
import { SessionQueries } from './sessions/session-queries';
import { WorkflowService } from './workflows/workflow-service';

export type { RunHandle, RunOutcome } from './runs/live-run';
export type { OperatorOpen } from './runs/run-launcher';
export type { LiveRunSummary } from './runs/run-registry';
export type { ServiceError, ServiceErrorKind, ServiceResult } from './service-result';
export type { StartRequest } from './runs/agent-runs';
export type { ReplayRequest } from './runs/replays';
export type { WorkflowRunRequest } from './runs/workflow-runs';
export type { TeachRequest } from './runs/teaching';

export interface RunServiceDeps {
  config: LoadedConfig;
  env?: NodeJS.ProcessEnv;
  /** Flags given on the command line (they win over the environment and the file). */
  flags?: RunFlags;
  /** Opens the operator for a display (checking the display first): the user's, or with `env` a private desktop's. */
  openOperator: (capture: CaptureOptions, env?: NodeJS.ProcessEnv) => Promise<OperatorOpen>;
  /** Opens a display's accessibility tree for the runs that read it (openRunElements); absent: pixels only. */
  openElements?: (env: NodeJS.ProcessEnv) => Promise<ElementsOpen>;
  createModel?: (settings: ModelSettings, prices: PriceTable) => VisionModel;
  /** The provider check before a run (default: one GET of the model list). */
  probe?: (settings: ModelSettings, signal: AbortSignal) => Promise<ProviderProbe>;
  /** Warnings and notices (retention, interrupted sessions, memory problems); the redaction policy is applied. */
  log?: (message: string) => void;
  /** The API key kept outside config.json (the app's keychain), when neither flags nor environment give one. */
  storedApiKey?: () => string | undefined;
  now?: () => number;
  /** Free bytes on the disk holding a folder (default: statfs), for the warning before a run. */
  freeBytes?: (path: string) => Promise<number | null>;
  /** The memory key from the OS keychain (the app: safeStorage), when none is set otherwise. */
  memoryKey?: () => Promise<string | null>;
  /** Records demonstrations for the window (`teach:start`, `teach:stop`); default: `teaching` below. */
  demonstrations?: TeachHost;
}

export class RunService {
  /** The settings, the redaction policy, the data directory's privacy. */
  readonly config: ServiceConfig;
  /** The runs going on in this process. */
  readonly runs = new RunRegistry();
  /** The recorded sessions. */
  readonly records: SessionQueries;
  /** The long-lived memory. */
  readonly memoryHost: MemoryHost;
  /** Where runs work: the user's display or private desktops. */
  readonly desktops: RunDesktops;
  readonly launcher: RunLauncher;
  /** The saved workflows. */
  readonly workflows: WorkflowService;
  /** The provider and grounding checks. */
  readonly checks: ProviderChecks;
  /** Starting a task. */
  readonly agentRuns: AgentRuns;
  /** Replaying a recorded session. */
  readonly replays: Replays;
  /** Running a saved workflow with new values. */
  readonly workflowRuns: WorkflowRuns;
  /** Recording a demonstration. */
  readonly teaching: Teaching;
  /** Demonstrations for the window: the input recorder, when one is plugged in. */
  readonly demonstrations: TeachHost;
  /** Batches: a workflow or a task over a table of values. */
  readonly batches: Batches;
  /** Opens a display's accessibility tree (the front end's `openElements`); absent: this process reads no tree. */
  readonly openElements: ((env: NodeJS.ProcessEnv) => Promise<ElementsOpen>) | undefined;

  constructor(deps: RunServiceDeps) {
    const now = deps.now ? { now: deps.now } : {};
    const log = (message: string) => deps.log?.(this.config.redact(message));
    this.config = new ServiceConfig({ config: deps.config, ...(deps.env ? { env: deps.env } : {}), ...(deps.flags ? { flags: deps.flags } : {}), ...(deps.storedApiKey ? { storedApiKey: deps.storedApiKey } : {}), log });
    this.records = new SessionQueries({ config: this.config, runs: this.runs, ...now, log });
    this.memoryHost = new MemoryHost({ config: this.config, ...(deps.memoryKey ? { memoryKey: deps.memoryKey } : {}), ...now, log });
    this.desktops = new RunDesktops({ config: this.config, log });
    this.launcher = new RunLauncher({
      config: this.config,
      runs: this.runs,
      desktops: this.desktops,
      openOperator: deps.openOperator,
      ...(deps.openElements ? { openElements: deps.openElements } : {}),
      ...(deps.freeBytes ? { freeBytes: deps.freeBytes } : {}),
      ...now,
      log,
      // Shared session store: each session is uploaded once its run has ended (and what an earlier
      // process left pending, when no run's start has tried it yet: a replay, a workflow run).
      recorded: (sessionId) => {
        this.records.uploadAfterRun(sessionId);
        void this.records.retryUploads();
      },
    });
    this.workflows = new WorkflowService({ config: this.config, session: (ref) => this.records.recorded(ref), ...now });
    const createModel = deps.createModel ?? ((model: ModelSettings, prices: PriceTable) => createVisionModel(model, { prices }));
    const parts: RecipeParts = { config: this.config, launcher: this.launcher, desktops: this.desktops, createModel };
    this.checks = new ProviderChecks({ ...parts, openOperator: deps.openOperator });
    this.agentRuns = new AgentRuns({ ...parts, records: this.records, memoryHost: this.memoryHost, workflows: this.workflows, ...(deps.probe ? { probe: deps.probe } : {}) });
    this.replays = new Replays({ ...parts, records: this.records });
    this.workflowRuns = new WorkflowRuns({ ...parts, workflows: this.workflows });
    this.teaching = new Teaching(parts);
    this.demonstrations = deps.demonstrations ?? new Demonstrations((request) => this.teaching.start(request));
    this.batches = new Batches({
      workflowRuns: this.workflowRuns,
      agentRuns: this.agentRuns,
      workflows: this.workflows,
      dataDir: () => this.config.dataDir,
      dataDirReady: () => this.config.dataDirReady(),
      defaultApps: () => this.config.desktopSettings().apps,
      env: this.config.env,
      ...(this.config.loaded.file.queue?.backoffMs !== undefined ? { queueBackoffMs: this.config.loaded.file.queue.backoffMs } : {}),
      queueUrl: () => this.config.loaded.file.queue?.url,
      ...now,
      log,
    });
    this.openElements = deps.openElements;
  }

  /**
   * Makes the data directory private before a front end serves anything from it (`mnemo serve`,
   * the app, at start): one open to other accounts is tightened and said in one line. Every part
   * also waits for this before it reads or writes there. Then the private desktops a Mnemo killed
   * hard left running are stopped (each launch looks too, once per service).
   */
  async open(): Promise<void> {
    await this.config.dataDirReady();
    await this.desktops.reapLeftovers();
    // Shared session store: what an earlier process could not upload, tried again (in the background).
    await this.records.retryUploads();
  }

  /** Stops every run of this process and waits until they are recorded as ended; then closes the memory. */
  async close(): Promise<void> {
    // A batch running in the background stops taking rows and journals what its runs left.
    await this.batches.close();
    await this.runs.stopAll();
    await this.memoryHost.close();
    // Shared session store: the uploads of the runs that ended finish (or stay pending) before the process goes.
    await this.records.uploadsSettled();
    this.config.closeSharedStore();
  }
}
