/**
 * The saved workflows (teach once, run many): `list_workflows {}` lists them with their parameters
 * (a secret's example masked), and `run_workflow {name, params, policy?}` runs one with new values
 * as `mnemo workflow run` does — the model asked only for the steps that differ, under the reground
 * policy — recorded as a session; its result is the run's report (what `--json` prints last), with
 * a progress notification per step when the client asks for progress. A workflow the user has not
 * trusted (imported, or changed since it was trusted) is listed as such and refused, saying how
 * the user trusts it.
 */
import { z } from 'zod';
import { RUN_STATUSES } from '../../../shared/events';
import { MASK } from '../../../shared/describe-action';
import { ParamNameSchema, untrustedReason, type CheckedWorkflow } from '../../../shared/workflow';
import { workflowReport } from '../../../shared/workflow-report';
import { WORKFLOW_DECISIONS } from '../../../shared/workflow-run';
import type { AgentEvent } from '../../../shared/events';
import type { ToolCall } from '../connection';
import { followRun } from '../follow-run';
import { defineTool, type ToolAnswer } from '../tool';

const ParamShape = z.object({
  name: z.string(),
  secret: z.boolean().describe('its value is never written anywhere; give it in params as any other'),
  example: z.string().describe('the value recorded (masked for a secret)'),
});

const WorkflowEntry = z.object({
  name: z.string(),
  description: z.string().describe('the recorded task, each parameter as {{name}}'),
  params: z.array(ParamShape),
  steps: z.number().int().nonnegative(),
  createdAt: z.number().describe('milliseconds since the epoch'),
  source: z.string().describe('the session it was saved from'),
  trusted: z.boolean().describe('whether it may run: only a workflow the user trusts runs (an imported or edited one waits for `mnemo workflow trust NAME`)'),
});

function entryOf({ workflow, trusted }: CheckedWorkflow): z.output<typeof WorkflowEntry> {
  return {
    name: workflow.name,
    description: workflow.description,
    params: workflow.params.map((param) => ({ name: param.name, secret: param.secret, example: param.secret ? MASK : (param.example ?? '') })),
    steps: workflow.steps.length,
    createdAt: workflow.createdAt,
    source: workflow.source.session,
    trusted,
  };
}

export const listWorkflowsTool = defineTool({
  name: 'list_workflows',
  title: 'List workflows',
  description: 'The workflows saved in Mnemo (recorded runs or demonstrations with parameters), each with its parameters and whether the user trusts it to run; run one with run_workflow.',
  input: {},
  output: { workflows: z.array(WorkflowEntry), damaged: z.array(z.object({ name: z.string(), message: z.string() })).describe('workflows that cannot be read, with why') },
  readOnly: true,
  destructive: false,
  openWorld: false,
  call: async (_args, call) => {
    const { workflows, damaged } = await call.services.service.workflows.list();
    return { ok: true, value: { workflows: workflows.map(entryOf), damaged } };
  },
});

const ReportShape = {
  sessionId: z.string().describe('the recorded session of this run (get_session shows its steps)'),
  status: z.enum(RUN_STATUSES),
  reason: z.string().describe('why the run ended (the step that stopped it, and what differed)'),
  steps: z.number().int(),
  replayed: z.number().int().describe('steps whose target agreed with the recording'),
  refound: z.number().int().describe('steps whose target was found elsewhere on the screen, without the model'),
  grounded: z.number().int().describe('steps the model grounded (policy reground)'),
  stopped: z.number().int().describe('steps stopped before acting'),
  modelCalls: z.number().int(),
  tokens: z.number().int(),
  costUsd: z.number(),
  recording: z.object({ modelCalls: z.number().int(), tokens: z.number().int(), costUsd: z.number() }).describe('what the recorded run cost'),
};
type Report = z.output<z.ZodObject<typeof ReportShape>>;

async function runWorkflow(args: { name: string; params: Record<string, string>; policy?: 'stop' | 'reground' | undefined }, call: ToolCall): Promise<ToolAnswer<Report>> {
  const { service } = call.services;
  const shown = await service.workflows.show(args.name);
  if (!shown.ok) return { ok: false, message: `${shown.error.kind}: ${shown.error.message}` };
  if (!shown.value.trusted) return { ok: false, message: `untrusted: ${untrustedReason(args.name)}` };
  const { workflow } = shown.value;
  const known = new Set(workflow.params.map((param) => param.name));
  const unknown = Object.keys(args.params).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    return { ok: false, message: `workflow ${args.name} has no parameter ${unknown.map((name) => `"${name}"`).join(', ')} (its parameters: ${[...known].join(', ') || 'none'})` };
  }
  const policy = args.policy ?? 'stop';
  const started = await service.workflowRuns.start({
    name: args.name,
    values: new Map(Object.entries(args.params)),
    policy,
    interactive: call.ask !== null,
    ...(policy === 'reground' ? { model: {} } : {}),
  });
  if (!started.ok) return { ok: false, message: `${started.error.kind}: ${started.error.message}` };
  const handle = started.value;
  const events: AgentEvent[] = [];
  const total = workflow.steps.length;
  const { outcome } = await followRun(handle, call, (event) => {
    events.push(event);
    if (event.type === 'workflow-step') call.progress?.(event.step, total, `step ${event.step}: ${event.decision}${event.how ? ` (${event.how})` : ''}`);
  });
  const report = workflowReport(events);
  const figures = report ?? { steps: 0, replayed: 0, refound: 0, grounded: 0, stopped: 0, modelCalls: 0, tokens: 0, costUsd: 0, recording: workflow.source.recording };
  const value: Report = {
    sessionId: handle.id,
    status: outcome.status,
    reason: outcome.reason,
    steps: figures.steps,
    replayed: figures.replayed,
    refound: figures.refound,
    grounded: figures.grounded,
    stopped: figures.stopped,
    modelCalls: figures.modelCalls,
    tokens: figures.tokens,
    costUsd: figures.costUsd,
    recording: figures.recording,
  };
  // A run that stopped is an answer the client must not take for success; the report goes with it.
  return outcome.status === 'finished' ? { ok: true, value } : { ok: false, message: `workflow ${args.name} ${outcome.status}: ${outcome.reason}`, value };
}

export const runWorkflowTool = defineTool({
  name: 'run_workflow',
  title: 'Run a workflow',
  description:
    'Run a saved workflow with new parameter values on the desktop, as `mnemo workflow run` does: each step is replayed where the screen agrees with the recording, ' +
    `found again where it moved, and (policy "reground") grounded by the model only where it differs; otherwise it stops before acting. Each step's decision is one of ${WORKFLOW_DECISIONS.join(', ')}. ` +
    'Recorded as a session; the result is the run report. Progress notifications per step when asked; cancelling the call stops the run. ' +
    'Only a workflow the user trusts runs: an imported or edited one is refused until the user runs `mnemo workflow trust NAME`.',
  input: {
    name: z.string().min(1).describe('the workflow (list_workflows names them)'),
    params: z.record(ParamNameSchema, z.string()).default({}).describe('a value for each parameter, by name (secrets included: they are never recorded)'),
    policy: z.enum(['stop', 'reground']).optional().describe('a step that differs stops the run (stop, the default) or is grounded by the configured model (reground)'),
  },
  output: ReportShape,
  readOnly: false,
  destructive: true,
  openWorld: true,
  call: runWorkflow,
});
