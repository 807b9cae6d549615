/**
 * Running a saved workflow with new values, recorded as a new session; the model is asked only
 * for the steps that differ, under the reground policy (src/main/workflow/). A workflow the user
 * has not trusted (imported, or changed since) is `untrusted`, saying how to trust it.
 */
import type { DesktopRequest } from '../../../shared/desktop';
import { untrustedReason } from '../../../shared/workflow';
import type { WorkflowPolicy } from '../../replay/policy';
import type { RunFlags } from '../../settings/settings';
import type { SessionBatchTag } from '../../store/session-meta';
import type { ElementReader } from '../../operator/a11y/snapshot';
import { TesseractReader } from '../../workflow/ocr';
import { completeParamValues, fillText, secretParamNames, shownParamValues, workflowRunRedaction } from '../../workflow/params';
import { WorkflowRunner } from '../../workflow/runner';
import type { RunHandle } from './live-run';
import type { Prepared } from './run-launcher';
import type { ServiceResult } from '../service-result';
import type { WorkflowService } from '../workflows/workflow-service';
import type { RecipeParts } from './recipe-parts';
import { modelFor, modelOfSession } from './run-models';

export interface WorkflowRunRequest {
  /** The workflow's name. */
  name: string;
  /** Every parameter's value (secrets included: typed, never recorded). */
  values: ReadonlyMap<string, string>;
  policy: WorkflowPolicy;
  /** Recorded waits divided by this; 0: none. Default 1. */
  speed?: number;
  display?: number;
  interactive?: boolean;
  /** A model to ground the steps that differ (reground); flags as for a run. */
  model?: RunFlags;
  /** A private desktop for the run (size and apps default to the settings'); absent: the user's display. */
  desktop?: DesktopRequest;
  keepDesktop?: boolean;
  /** The batch this run is a row of: recorded in its session. */
  batch?: SessionBatchTag;
}

/** On a private desktop with apps, how long a workflow run's first step waits for its target to show. */
const APP_START_PATIENCE_MS = 30_000;

export interface WorkflowRunsDeps extends RecipeParts {
  workflows: WorkflowService;
}

/**
 * What a workflow run prepares once its desktop is held: the reader of the text near targets, and
 * the display's accessibility tree when it has one (both closed when it ends).
 */
interface WorkflowPrepared extends Prepared {
  reader: TesseractReader;
  elements: ElementReader | null;
}

export class WorkflowRuns {
  constructor(private readonly deps: WorkflowRunsDeps) {}

  async start(request: WorkflowRunRequest): Promise<ServiceResult<RunHandle>> {
    const { config, launcher, desktops, workflows } = this.deps;
    const read = await workflows.show(request.name);
    if (!read.ok) return config.redacted(read);
    // A workflow is code that drives the desktop: only what the user trusts, as it is now, runs.
    if (!read.value.trusted) return { ok: false, error: { kind: 'untrusted', message: untrustedReason(request.name) } };
    const workflow = read.value.workflow;
    const complete = completeParamValues(workflow.params, request.values, (name) => `a value for "${name}"`);
    if (!complete.ok) return { ok: false, error: { kind: 'invalid', message: complete.message } };
    const chosen = modelFor(this.deps, request.model, request.policy);
    if (!chosen.ok) return chosen;
    const model = chosen.value;
    const desktop = desktops.specFor(request.desktop);
    const launched = await launcher.launch<WorkflowPrepared>({
      kind: 'workflow',
      // The task as recorded: the values in, a secret's masked.
      task: fillText(workflow.description, shownParamValues(request.values, secretParamNames(workflow.params))),
      // The secret values are masked in every event and everything written, as the settings' secrets are.
      redaction: workflowRunRedaction(workflow.params, request.values, config.redaction(request.model)),
      session: { ...modelOfSession(model), ...(request.batch ? { batch: request.batch } : {}) },
      display: request.display,
      desktop,
      keepDesktop: request.keepDesktop,
      interactive: request.interactive,
      what: 'the workflow run',
      // Each click named with the element it hit and typing read back, as an agent run's: what a batch's row read off the screen.
      elements: true,
      prepare: async ({ env }) => {
        const reader = new TesseractReader();
        // No accessibility bus on the display: the steps are found by their pixels, as before.
        // Loaded here, as doctor loads it: D-Bus only for the runs that read a tree.
        const { openElementReader } = await import('../../operator/a11y/open-reader');
        const tree = await openElementReader(env);
        const opened = tree.ok ? tree.opened : null;
        const finish = async () => {
          opened?.close();
          await reader.close().catch(() => undefined);
        };
        return { ok: true, value: { conversationId: null, reader, elements: opened?.reader ?? null, finish } };
      },
      engine: (life, prepared) =>
        new WorkflowRunner({ ...(model ? { model } : {}), reader: prepared.reader, ...(prepared.elements ? { elements: prepared.elements } : {}), files: workflows.files(workflow.name) }).run(
          workflow,
          {
            policy: request.policy,
            values: request.values,
            speed: request.speed ?? 1,
            capture: { ...(request.display !== undefined ? { display: request.display } : {}) },
            // Apps started for the run may show their window before their page: the first step waits for its target a while.
            ...(desktop && desktop.apps.length > 0 ? { firstLookPatienceMs: APP_START_PATIENCE_MS } : {}),
          },
          life,
        ),
    });
    return config.redacted(launched);
  }
}
