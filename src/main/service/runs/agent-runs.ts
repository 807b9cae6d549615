/**
 * Starting a task: the DeviceAgent with its model, its memory (opened for the run, saved after it,
 * the blackboard summarised in the background once the desktop is free) and the saved workflows it
 * is offered, launched like every run.
 */
import type { DesktopRequest } from '../../../shared/desktop';
import { DeviceAgent } from '../../agent/device-agent';
import type { AgentOptions } from '../../agent/settings';
import { StoreWriter } from '../../disk/store-writer';
import { probeProvider, type ProviderProbe } from '../../model/provider-check';
import type { ModelSettings } from '../../../shared/settings';
import type { RunFlags } from '../../settings/settings';
import type { SessionBatchTag } from '../../store/session-meta';
import { TesseractReader } from '../../workflow/ocr';
import { InRunWorkflows } from '../../workflow/in-run';
import type { RunHandle } from './live-run';
import type { MemoryHost } from '../memory/memory-host';
import type { OpenedMemory } from '../memory/memory-setup';
import type { Prepared } from './run-launcher';
import type { ServiceResult } from '../service-result';
import type { SessionQueries } from '../sessions/session-queries';
import type { WorkflowService } from '../workflows/workflow-service';
import { offerFor } from '../workflows/workflow-offer';
import type { RecipeParts } from './recipe-parts';

export interface StartRequest {
  task: string;
  /** Flags for this run only (model, limits, display). */
  overrides?: RunFlags;
  /** Continue this conversation (its memory carries over); default: a new one. */
  conversationId?: string;
  display?: number;
  /** False: questions are not asked, they go unanswered (a non-interactive run). Default true. */
  interactive?: boolean;
  /** Settle and other loop options for this run (tests, benchmarks). */
  agent?: Partial<AgentOptions>;
  /** Skip the provider check (benchmarks against a local scripted server). */
  skipProviderCheck?: boolean;
  /** A private desktop for the run (size and apps default to the settings'); absent: the user's display. */
  desktop?: DesktopRequest;
  /** Leave the private desktop running after the run (its DISPLAY is said in the log). */
  keepDesktop?: boolean;
  /** The batch this run is a row of: recorded in its session. */
  batch?: SessionBatchTag;
}

export interface AgentRunsDeps extends RecipeParts {
  records: SessionQueries;
  memoryHost: MemoryHost;
  workflows: WorkflowService;
  /** The provider check before a run (default: one GET of the model list). */
  probe?: (settings: ModelSettings, signal: AbortSignal) => Promise<ProviderProbe>;
}

/** What a run prepares once its desktop is held: its memory and the workflows its model may run. */
interface AgentPrepared extends Prepared {
  memory: OpenedMemory;
  workflows: InRunWorkflows;
}

export class AgentRuns {
  constructor(private readonly deps: AgentRunsDeps) {}

  /** Starts a task. The handle's events begin with run-started. */
  async start(request: StartRequest): Promise<ServiceResult<RunHandle>> {
    if (request.task.trim() === '') return { ok: false, error: { kind: 'settings', message: 'the task is empty' } };
    const { config, launcher, desktops, records, memoryHost, workflows: catalog } = this.deps;
    const settings = config.runSettings(request.overrides);
    if (!settings.ok) return settings;
    const run = settings.value;
    const redaction = config.redaction(request.overrides);
    const probe = this.deps.probe ?? ((model, signal) => probeProvider(model, {}, signal));
    const model = this.deps.createModel(run.model, run.prices);
    const display = request.display ?? request.overrides?.display;
    const launched = await launcher.launch<AgentPrepared>({
      kind: 'run',
      task: request.task,
      redaction,
      session: { model: run.model.model, family: run.model.family, ...(request.batch ? { batch: request.batch } : {}) },
      display,
      desktop: desktops.specFor(request.desktop),
      keepDesktop: request.keepDesktop,
      takeover: true,
      interactive: request.interactive,
      what: 'the session',
      // Every click named with the element it hit, typing read back; the aid (model.elements) adds the step's list.
      elements: true,
      prepare: async () => {
        await records.housekeeping();
        const memory = await memoryHost.openForRun(run, request.conversationId, new StoreWriter(redaction));
        if (!memory.ok) return memory;
        const workflows = new InRunWorkflows({ catalog, model, reader: () => new TesseractReader() }, await offerFor(catalog, request.task));
        return {
          ok: true,
          value: {
            memory: memory.value,
            workflows,
            conversationId: memory.value.conversationId,
            finish: async () => {
              await workflows.close();
              await memoryHost.saveAfterRun(memory.value);
            },
            afterRelease: () => memoryHost.summarizeAfterRun(memory.value),
          },
        };
      },
      confirmationRules: run.confirmationRules,
      engine: (life, prepared) => {
        const agent = new DeviceAgent(
          {
            model,
            memory: prepared.memory.deps,
            workflows: prepared.workflows,
            ...(request.skipProviderCheck ? {} : { preflight: (signal: AbortSignal) => probe(run.model, signal) }),
          },
          {
            ...request.agent,
            memory: { layers: run.memory.layers, pruning: run.memory.pruning, budgets: run.memory.budgets },
            limits: { maxSteps: run.maxSteps, maxCostUsd: run.maxCostUsd, maxConsecutiveErrors: run.maxConsecutiveErrors, maxParseRetries: 3, ...request.agent?.limits },
            keepScreenshots: run.keepScreenshots,
            ...(run.model.elements ? { elements: run.model.elements } : {}),
            capture: {
              maxWidth: run.image.maxWidth,
              format: run.image.format,
              quality: run.image.quality,
              keepFullResolution: run.store.keepFullResolution,
              ...(display !== undefined ? { display } : {}),
            },
          },
        );
        // The model gets the task as the user wrote it; the record and the handle show it redacted.
        return agent.run(request.task, life, { conversationId: prepared.conversationId ?? undefined });
      },
    });
    return config.redacted(launched);
  }
}
