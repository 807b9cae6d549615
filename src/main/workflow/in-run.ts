/**
 * Saved workflows inside a model-driven run (procedural memory):
 *
 * - the offer: the workflows whose name and description match the task (found by the service,
 *   service/workflows/workflow-offer.ts) become a few lines of the model's instructions: name, parameters,
 *   what it does;
 * - the `run_workflow {name, params}` action: the workflow's steps done inside the run, as steps of
 *   its record with their decisions (runner.ts), the run's model grounding a step that differs
 *   (the reground policy); what came of it, in words, goes back to the model. An unknown workflow
 *   or missing or unknown parameters are said to the model without a step being done.
 *
 * Only workflows the user trusts (trust.ts) are offered or run: an untrusted one asked for by name
 * is refused, the model told that only the user can trust it.
 */
import type { ActionOf } from '../../shared/actions';
import type { CheckedWorkflow, Workflow, WorkflowImage } from '../../shared/workflow';
import type { VisionModel } from '../model/types';
import type { CaptureOptions } from '../operator/capture';
import type { WorkflowStepDeps } from './runner';
import type { RunLifecycle } from '../run/lifecycle';
import type { InRunResult, RunWorkflows } from '../run/run-workflows';
import type { TextReader } from './ocr';
import { completeParamValues } from './params';
import { runWorkflowWithin } from './runner';

/** Where the saved workflows are read (the workflow service), each with whether the user trusts it. */
export interface WorkflowCatalog {
  list(): Promise<{ workflows: Array<Pick<CheckedWorkflow, 'workflow' | 'trusted'>> }>;
  files(name: string): (image: WorkflowImage) => Promise<Buffer | null>;
}

export interface InRunWorkflowsDeps {
  catalog: WorkflowCatalog;
  /** The run's model: it grounds a workflow step that differs. */
  model: VisionModel;
  /** The reader of the text near targets, made when a workflow first runs. */
  reader: () => TextReader;
  /** The run's display's accessibility tree, when the run has one: steps recorded with their element are looked for there first. */
  elements?: WorkflowStepDeps['elements'];
}

/** The lines of the instructions offering `workflows` (null: none). A secret's example is never shown. */
export function workflowOffer(workflows: readonly Workflow[]): string | null {
  if (workflows.length === 0) return null;
  const lines = workflows.map((workflow) => {
    const params = workflow.params.map((param) => `${param.name} (${param.secret ? 'a secret' : `e.g. ${JSON.stringify(param.example)}`})`);
    return `- "${workflow.name}": ${workflow.description} (${workflow.steps.length} recorded steps; parameters: ${params.length > 0 ? params.join(', ') : 'none'})`;
  });
  return [
    'Saved workflows that may do this task: run_workflow with its name and a value for each parameter does its recorded steps on the screen for you, without a model call where the screen agrees, and its report comes back. Prefer one to doing its steps yourself.',
    ...lines,
  ].join('\n');
}

export class InRunWorkflows implements RunWorkflows {
  private reader: TextReader | null = null;

  constructor(
    private readonly deps: InRunWorkflowsDeps,
    /** The prompt lines offering the workflows that match the task (service/workflows/workflow-offer.ts); null when none does. */
    readonly offer: string | null,
  ) {}

  /** Runs the action's workflow as steps `firstStep`, … of the run. */
  async run(action: ActionOf<'run_workflow'>, life: RunLifecycle, firstStep: number, capture: CaptureOptions): Promise<InRunResult> {
    const { workflows } = await this.deps.catalog.list().catch(() => ({ workflows: [] as Array<Pick<CheckedWorkflow, 'workflow' | 'trusted'>> }));
    const found = workflows.find((candidate) => candidate.workflow.name === action.name);
    if (!found) {
      const known = workflows.filter((candidate) => candidate.trusted).map((candidate) => `"${candidate.workflow.name}"`).join(', ');
      return { steps: 0, report: `run_workflow failed: there is no workflow named "${action.name}" (${known === '' ? 'none is saved' : `saved: ${known}`}); nothing was done` };
    }
    if (!found.trusted) {
      return { steps: 0, report: `run_workflow "${action.name}" refused: the user has not trusted this workflow (it was imported, or its file changed); only the user can, with mnemo workflow trust ${action.name}; nothing was done` };
    }
    const workflow = found.workflow;
    const values = new Map(Object.entries(action.params));
    const complete = completeParamValues(workflow.params, values, (name) => `a value for "${name}" in params`);
    if (!complete.ok) return { steps: 0, report: `run_workflow "${workflow.name}" failed: ${complete.message}; nothing was done` };
    this.reader ??= this.deps.reader();
    // The tree the run reads already (the launcher's), unless one was given.
    const tree = this.deps.elements ?? life.elements?.workflowTree;
    const outcome = await runWorkflowWithin(workflow, { policy: 'reground', values, capture: { ...(capture.display !== undefined ? { display: capture.display } : {}) } }, life, firstStep, {
      reader: this.reader,
      files: this.deps.catalog.files(workflow.name),
      model: this.deps.model,
      ...(tree ? { elements: tree } : {}),
    });
    const counts = `${outcome.replayed} replayed, ${outcome.refound} found again, ${outcome.grounded} grounded by you`;
    const { ending } = outcome;
    const report =
      ending.status === 'finished'
        ? `run_workflow "${workflow.name}" finished: its ${workflow.steps.length} steps done (${counts}). Check the screen before going on.`
        : `run_workflow "${workflow.name}" ${ending.status === 'aborted' ? 'was stopped' : 'stopped'} at its step ${outcome.steps} of ${workflow.steps.length} (${counts}): ${life.secrets.text(ending.reason)}. The steps before it were done; go on from the screen as it is.`;
    // Only the user stopping ends the run; a workflow that stopped is the model's to handle.
    return { steps: outcome.steps, report, ...(ending.status === 'aborted' ? { ending } : {}) };
  }

  async close(): Promise<void> {
    await this.reader?.close().catch(() => undefined);
  }
}
