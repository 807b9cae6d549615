/**
 * `run_task {task, maxSteps?, desktop?}`: a whole task, run by Mnemo with its configured model and
 * memory, as `mnemo run` runs it, and recorded as a session. A progress notification goes out after
 * each step when the client sent a progress token; the model's questions and the confirmation rules
 * are asked through elicitation (without it, a question goes unanswered and a confirmation is a
 * refusal); the client's cancellation stops the run (it ends `aborted`).
 */
import { z } from 'zod';
import { describeAction } from '../../../shared/describe-action';
import { DesktopRequestSchema, type DesktopRequest } from '../../../shared/desktop';
import { RUN_STATUSES } from '../../../shared/events';
import type { ToolCall } from '../connection';
import { followRun } from '../follow-run';
import { defineTool, type ToolAnswer } from '../tool';

/** The same desktop request as `POST /api/runs` takes. */
const DesktopSchema = DesktopRequestSchema.describe('where the run works (default: the user display); a private display is started for the run and stopped after it');

const RunResultShape = {
  sessionId: z.string().describe('the recorded session (get_session shows its steps)'),
  status: z.enum(RUN_STATUSES),
  summary: z.string().nullable().describe("the model's summary when it finished, else why the run ended"),
  steps: z.number().int(),
  costUsd: z.number(),
};
type RunResult = z.output<z.ZodObject<typeof RunResultShape>>;

async function runTask(args: { task: string; maxSteps?: number | undefined; desktop?: DesktopRequest | undefined }, call: ToolCall): Promise<ToolAnswer<RunResult>> {
  const started = await call.services.service.agentRuns.start({
    task: args.task,
    ...(args.maxSteps !== undefined ? { overrides: { maxSteps: args.maxSteps } } : {}),
    ...(args.desktop?.private ? { desktop: args.desktop } : {}),
    interactive: call.ask !== null,
  });
  if (!started.ok) return { ok: false, message: `${started.error.kind}: ${started.error.message}` };
  const handle = started.value;
  let total: number | undefined;
  const actions: string[] = [];
  const { outcome, finished } = await followRun(handle, call, (event) => {
    if (event.type === 'run-started') total = event.limits.maxSteps;
    if (event.type === 'step-started') actions.length = 0;
    if (event.type === 'action') actions.push(describeAction(event.action));
    if (event.type === 'step-finished') call.progress?.(event.step, total, `step ${event.step}${actions.length > 0 ? `: ${actions.join('; ')}` : ''}`);
  });
  return {
    ok: true,
    value: { sessionId: handle.id, status: outcome.status, summary: finished?.summary ?? outcome.reason, steps: outcome.steps, costUsd: outcome.usage.costUsd },
  };
}

export const runTaskTool = defineTool({
  name: 'run_task',
  title: 'Run a task',
  description:
    'Have Mnemo carry out a whole task on the desktop with its configured vision model and memory, step by step, as `mnemo run` does; ' +
    'the run is recorded as a session. Sends a progress notification after each step when asked; cancelling the call stops the run. ' +
    "The model's questions and the confirmation rules are asked through elicitation where the client supports it.",
  input: {
    task: z.string().trim().min(1, 'the task is empty').describe('the task, in plain language'),
    maxSteps: z.number().int().positive().max(1000).optional().describe('stop after this many steps (default: the settings, 50)'),
    desktop: DesktopSchema.optional(),
  },
  output: RunResultShape,
  readOnly: false,
  destructive: true,
  openWorld: true,
  call: runTask,
});
