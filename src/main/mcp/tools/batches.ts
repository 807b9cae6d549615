/**
 * Batches for another agent, so it can hand Mnemo a table of work: `run_batch` makes a batch (a
 * saved workflow, or a task with `{{name}}`s, over rows given inline or a values file) and runs it
 * in the background on private desktops, answering the batch id at once, as `mnemo batch run`
 * would start it; `get_batch` answers its progress and each row's outcome with its session ids
 * (get_session shows one). Both go through the service's batches, the same as the CLI and the
 * window; the batch survives the call (and, journalled, the process: `mnemo batch resume`).
 */
import { z } from 'zod';
import { BatchDetailSchema } from '../../../shared/batch';
import { WORKFLOW_POLICIES } from '../../replay/policy';
import type { ToolCall } from '../connection';
import { defineTool, type ToolAnswer } from '../tool';

const SecretCell = z.union([
  z.object({ env: z.string().min(1) }).strict().describe('read from this environment variable of the Mnemo process when the row runs'),
  z.object({ keychain: z.string().min(1) }).strict().describe('read from the OS keychain (service mnemo-param, this account) when the row runs'),
]);
const CellInput = z.union([z.string(), z.number(), z.boolean(), SecretCell]);

const RunBatchInput = {
  workflow: z.string().min(1).optional().describe('the saved workflow each row runs (list_workflows shows them); give this or task'),
  task: z.string().trim().min(1).optional().describe('a task each row runs instead of a workflow, its {{name}}s filled from the row; give this or workflow'),
  rows: z
    .array(z.record(z.string(), CellInput))
    .min(1)
    .optional()
    .describe('the rows inline: one object of column → value each (a column is a workflow parameter or a {{name}} of the task); a secret as {"env": "NAME"} or {"keychain": "NAME"}, never its value. Give this or valuesFile'),
  valuesFile: z.string().min(1).optional().describe('the rows as a file on the machine Mnemo runs on: a .csv with a header line, or a .jsonl of one object per line'),
  concurrency: z.number().int().positive().max(64).optional().describe('rows at once, each on a private desktop of its own (default: what this machine can hold; the answer says how it chose)'),
  retries: z.number().int().nonnegative().max(20).default(0).describe('run a failed row again up to this many times before it is reported failed'),
  desktopSize: z.string().regex(/^\d+x\d+$/, 'WIDTHxHEIGHT').optional().describe("each private desktop's size, e.g. 1280x800"),
  apps: z.array(z.string().min(1)).optional().describe('programs to start on each private desktop before its row runs'),
  policy: z.enum(WORKFLOW_POLICIES).default('stop').describe('a workflow step found by no evidence: stop, or reground with the model'),
};
type RunBatchArgs = z.output<z.ZodObject<typeof RunBatchInput>>;

const RunBatchOutput = {
  batchId: z.string().describe('get_batch follows it'),
  rows: z.number().int().positive(),
  concurrency: z.number().int().positive(),
  concurrencyReason: z.string().describe('how the number of rows at once was chosen'),
  status: z.string().describe('running, while a process runs it'),
};

async function runBatch(args: RunBatchArgs, call: ToolCall): Promise<ToolAnswer<z.output<z.ZodObject<typeof RunBatchOutput>>>> {
  if ((args.workflow === undefined) === (args.task === undefined)) return { ok: false, message: 'give a workflow or a task, not both and not neither' };
  if ((args.rows === undefined) === (args.valuesFile === undefined)) return { ok: false, message: 'give the rows inline (rows) or a values file (valuesFile), not both and not neither' };
  const batches = call.services.service.batches;
  const table = args.rows ? batches.inlineValues(args.rows) : await batches.readValuesFile(args.valuesFile as string, `valuesFile ${args.valuesFile}`);
  if (!table.ok) return { ok: false, message: table.error.message };
  const started = await batches.start({
    source: args.workflow !== undefined ? { kind: 'workflow', name: args.workflow, policy: args.policy, speed: 1 } : { kind: 'task', task: args.task as string },
    table: table.value,
    valuesFile: args.valuesFile ?? '(inline rows)',
    ...(args.concurrency !== undefined ? { concurrency: args.concurrency } : {}),
    retries: args.retries,
    desktop: { ...(args.desktopSize ? { size: args.desktopSize } : {}), ...(args.apps ? { apps: args.apps } : {}) },
  });
  if (!started.ok) return { ok: false, message: `${started.error.kind}: ${started.error.message}` };
  const batch = started.value;
  return { ok: true, value: { batchId: batch.id, rows: batch.total, concurrency: batch.concurrency, concurrencyReason: batch.concurrencyReason, status: batch.status } };
}

export const runBatchTool = defineTool({
  name: 'run_batch',
  title: 'Run a batch',
  description:
    'Run a saved workflow (or a task with {{name}}s) once per row of a table of values, each row on a private desktop of its own, N at once, as `mnemo batch run` does. ' +
    'Answers the batch id at once and runs in the background; follow it with get_batch. Every run is a session tagged with the batch and its row.',
  input: RunBatchInput,
  output: RunBatchOutput,
  readOnly: false,
  destructive: true,
  openWorld: true,
  call: runBatch,
});

export const getBatchTool = defineTool({
  name: 'get_batch',
  title: 'Get a batch',
  description:
    "A batch's progress (done, failed, running, the ETA, the cost so far) and each row's outcome: its values (a secret as its reference), status, attempts, session ids (get_session shows one), why it failed, and what its run read off the screen (screenValues: each field it typed into with what the field held after, a password by its length only; the run's closing summary under summary).",
  input: { batchId: z.string().min(1).describe('the id run_batch answered (or a unique prefix of it)') },
  output: BatchDetailSchema.shape,
  readOnly: true,
  destructive: false,
  openWorld: false,
  call: async ({ batchId }, call) => {
    const read = await call.services.service.batches.get(batchId);
    return read.ok ? { ok: true, value: read.value } : { ok: false, message: read.error.message };
  },
});
