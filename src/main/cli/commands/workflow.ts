/**
 * `mnemo workflow`: a recorded run (or demonstration) saved with parameters and run again with new
 * values (src/main/workflow/, docs/architecture.md "Workflows"). The subcommands are declared in
 * program/workflow.ts; this module is imported when one runs.
 *
 *   save <session> --name NAME [--param NAME=VALUE …] [--secret NAME …] [--auto-params] [--json]
 *   list [--json] · show NAME [--json] · delete NAME · export NAME [-o FILE] · import FILE
 *   trust NAME [--json]
 *   run NAME --set NAME=VALUE … [--policy stop|reground] [model flags] [--display N]
 *       [--desktop private [--desktop-size WxH] [--app CMD …] [--keep-desktop]] [--json]
 *
 * Trust: a workflow saved here runs; an imported one (or one whose files were edited) is listed
 * step by step, what it types and presses marked, and does not run until `trust` (trust.ts).
 *
 * Exit codes: 0 done; 1 no such workflow or session, a damaged one, or one not trusted; 2 bad
 * arguments (a missing or unknown parameter, a bad file to import); 3 a run that stopped (a step
 * no evidence found, an action that failed) or could not start on the display; 4 stopped by the user.
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { MASK } from '../../../shared/describe-action';
import type { AgentEvent } from '../../../shared/events';
import { formatUsd } from '../../../shared/format';
import { keyboardInputOf, summarizeWorkflow, untrustedReason, visibleText, WORKFLOW_FILE_MAX, type ProposedParam, type Workflow } from '../../../shared/workflow';
import { workflowReport } from '../../../shared/workflow-report';
import { loadConfig, type RunFlags } from '../../settings/settings';
import { keychainApiKey } from '../stored-key';
import { openElementsOnDemand } from '../open-elements';
import type { WorkflowPolicy } from '../../replay/policy';
import type { ParamRequest } from '../../workflow/params';
import { desktopRequestOf, type DesktopFlags } from '../desktop-flags';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { exitCodeFor, followOnTerminal, startedOrExplain, stopOnInterrupt, terminalAsk } from '../run-controls';
import type { RunService, ServiceError, ServiceResult } from '../../service/run-service';
import type { WorkflowService } from '../../service/workflows/workflow-service';

export interface StorageOptions {
  dataDir?: string;
  config?: string;
}

export interface SaveOptions extends StorageOptions {
  name: string;
  param: string[];
  secret: string[];
  autoParams?: boolean;
  json?: boolean;
}

export interface ImportOptions extends StorageOptions {
  name?: string;
  force?: boolean;
}

export interface RunWorkflowOptions extends RunFlags, DesktopFlags {
  set: string[];
  policy: WorkflowPolicy;
  speed: number;
  nonInteractive?: boolean;
  json?: boolean;
}

/** The run service on the data directory and settings the flags name (shared with `mnemo teach`). */
export async function openService(options: StorageOptions & RunFlags): Promise<RunService> {
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  const [{ RunService }, { openDesktopOperator }] = await Promise.all([import('../../service/run-service'), import('../../service/desktops/desktop')]);
  const log = (line: string) => process.stderr.write(`mnemo: ${line}\n`);
  return new RunService({ config: config.config, flags: options, openOperator: openDesktopOperator, openElements: openElementsOnDemand, log, ...(await keychainApiKey(config.config, options, log)) });
}

/** A failure said and turned into the exit code: `invalid` is bad input here only where asked (not a damaged workflow); a name taken is. */
function failed(result: { ok: false; error: ServiceError }, invalidIsInput = false): void {
  if (result.error.kind === 'invalid' && invalidIsInput) throw new InvalidInputError(result.error.message);
  if (result.error.kind === 'conflict') throw new InvalidInputError(result.error.message);
  process.stderr.write(`mnemo: ${result.error.message}\n`);
  process.exitCode = ExitCode.errorResult;
}

function value<T>(result: ServiceResult<T>, invalidIsInput = false): T | undefined {
  if (result.ok) return result.value;
  failed(result, invalidIsInput);
  return undefined;
}

/** One store operation on the data directory's workflows: its value, or undefined once its failure is said. */
async function fromStore<T>(options: StorageOptions, operation: (workflows: WorkflowService) => Promise<ServiceResult<T>>, invalidIsInput = false): Promise<T | undefined> {
  return value(await operation((await openService(options)).workflows), invalidIsInput);
}

/** `--param NAME=VALUE` and `--secret NAME` as requests: a secret named by --param keeps its value (to be found), never an example. */
export function paramRequests(params: readonly string[], secrets: readonly string[]): ParamRequest[] {
  const requests: ParamRequest[] = params.map((param) => {
    const equals = param.indexOf('=');
    if (equals <= 0) throw new InvalidInputError(`--param must be NAME=VALUE, got "${param}"`);
    const name = param.slice(0, equals);
    return { name, value: param.slice(equals + 1), secret: secrets.includes(name) };
  });
  for (const name of secrets) if (!requests.some((request) => request.name === name)) requests.push({ name, secret: true });
  return requests;
}

function describeProposals(proposed: readonly ProposedParam[]): string {
  return proposed.map((p) => `  ${p.name}${p.secret ? ' (secret)' : ''} = ${p.secret ? MASK : JSON.stringify(p.value)}  (step${p.steps.length > 1 ? 's' : ''} ${p.steps.join(', ')})`).join('\n');
}

/** The marker a step that types text or presses keys carries, so none of them hides among the clicks. */
const KEYBOARD_MARKERS = { text: 'TYPES', keys: 'KEYS' } as const;
const NO_MARKER = ' '.repeat(5);

/** Whether it runs, in one line: an untrusted workflow says why not and how to trust it. */
function trustLine(name: string, trusted: boolean): string {
  return trusted ? 'trusted: it runs (saved on this machine, or trusted after its steps were shown)' : `NOT TRUSTED: ${untrustedReason(name)}`;
}

/** A workflow as it will run: every step derived from its action, what it types or presses marked. */
function printWorkflow(workflow: Workflow, trusted: boolean): void {
  const summary = summarizeWorkflow(workflow, trusted);
  const marked = workflow.steps.some((step) => keyboardInputOf(step.action) !== null);
  const lines = [
    `workflow ${workflow.name}: ${visibleText(workflow.description)}`,
    `from session ${visibleText(workflow.source.session)} (${workflow.source.recording.modelCalls} model calls, ${workflow.source.recording.tokens} tokens, ${formatUsd(workflow.source.recording.costUsd)})`,
    trustLine(workflow.name, trusted),
    summary.params.length > 0 ? 'parameters:' : 'parameters: none',
    ...summary.params.map((param) => `  ${param.name}${param.secret ? ' (secret)' : ''}: ${param.secret ? MASK : visibleText(JSON.stringify(param.example))}`),
    marked ? `steps (${KEYBOARD_MARKERS.text}: text it types, {{name}} where a parameter's value goes, \\n an Enter; ${KEYBOARD_MARKERS.keys}: keys it presses):` : 'steps:',
    ...workflow.steps.map((step, i) => {
      const input = keyboardInputOf(step.action);
      const enter = step.action.type === 'type' && step.action.text.includes('\n') ? '  [presses Enter]' : '';
      return `  ${input ? KEYBOARD_MARKERS[input].padEnd(NO_MARKER.length) : NO_MARKER} ${String(step.index).padStart(3)}. ${summary.steps[i]?.description ?? ''}${enter}`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** A line of stdin (typed unseen on a terminal): a secret's value, or null when stdin has none. */
function promptSecret(name: string): Promise<string | null> {
  process.stderr.write(`Value of the secret parameter "${name}" (not shown, never recorded): `);
  return new Promise((resolve) => {
    const terminal = process.stdin.isTTY === true;
    // On a terminal readline echoes what is typed to its output: here, nowhere.
    const unseen = new Writable({ write: (_chunk, _encoding, done) => done() });
    const lines = createInterface({ input: process.stdin, ...(terminal ? { output: unseen, terminal: true } : { terminal: false }) });
    let answered = false;
    const finish = (line: string | null) => {
      if (answered) return;
      answered = true;
      lines.close();
      process.stderr.write('\n');
      resolve(line);
    };
    lines.once('line', (line) => finish(line));
    lines.once('close', () => finish(null));
  });
}

export async function workflowSaveCommand(session: string, options: SaveOptions): Promise<void> {
  const requests = paramRequests(options.param, options.secret);
  const { workflows } = await openService(options);
  const saved = await workflows.save({ session, name: options.name, params: requests, ...(options.autoParams ? { autoParams: true } : {}) });
  if (!saved.ok) {
    if (saved.proposed && saved.proposed.length > 0) process.stderr.write(`the values typed, as parameters (--auto-params takes them):\n${describeProposals(saved.proposed)}\n`);
    failed(saved, saved.error.kind === 'invalid');
    return;
  }
  const { workflow, proposed, replaced } = saved.value;
  const unasked = requests.length === 0 && !options.autoParams;
  if (options.json) process.stdout.write(`${JSON.stringify({ ...summarizeWorkflow(workflow, true), ...(unasked && proposed.length > 0 ? { proposed: proposed.map(({ name, value: example, secret, steps }) => ({ name, secret, example: secret ? MASK : example, steps })) } : {}) })}\n`);
  else printWorkflow(workflow, true);
  process.stderr.write(`${replaced ? 'replaced' : 'saved'} workflow ${workflow.name} (${workflow.steps.length} steps) in ${workflows.store.root}\n`);
  if (unasked && proposed.length > 0) {
    process.stderr.write(`the values typed were kept as recorded; as parameters (save again with --auto-params, or --param NAME=VALUE):\n${describeProposals(proposed)}\n`);
  }
}

export async function workflowListCommand(options: StorageOptions & { json?: boolean }): Promise<void> {
  const { workflows, damaged } = await (await openService(options)).workflows.listings();
  for (const bad of damaged) process.stderr.write(`mnemo: warning: ${bad.message}\n`);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(workflows)}\n`);
    return;
  }
  if (workflows.length === 0) process.stderr.write('no workflows yet: mnemo workflow save <session> --name NAME makes one\n');
  for (const item of workflows) {
    process.stdout.write(`${item.name}\t${item.steps} steps\t${item.params.join(', ') || '-'}\t${item.trusted ? 'trusted' : 'NOT TRUSTED'}\t${visibleText(item.description)}\n`);
  }
  if (workflows.some((item) => !item.trusted)) process.stderr.write('a workflow NOT TRUSTED does not run: check its steps with mnemo workflow show NAME, then mnemo workflow trust NAME\n');
}

export async function workflowShowCommand(name: string, options: StorageOptions & { json?: boolean }): Promise<void> {
  const shown = await fromStore(options, (workflows) => workflows.show(name));
  if (!shown) return;
  if (options.json) process.stdout.write(`${JSON.stringify(summarizeWorkflow(shown.workflow, shown.trusted))}\n`);
  else printWorkflow(shown.workflow, shown.trusted);
}

/** The user trusts the workflow to run, as it is now: its steps are printed as they are trusted. */
export async function workflowTrustCommand(name: string, options: StorageOptions & { json?: boolean }): Promise<void> {
  const trusted = await fromStore(options, (workflows) => workflows.trust(name));
  if (!trusted) return;
  if (options.json) process.stdout.write(`${JSON.stringify(summarizeWorkflow(trusted.workflow, true))}\n`);
  else printWorkflow(trusted.workflow, true);
  process.stderr.write(`trusted workflow ${name} as listed (${trusted.workflow.steps.length} steps): it runs now; a change to its files makes it untrusted again\n`);
}

export async function workflowDeleteCommand(name: string, options: StorageOptions): Promise<void> {
  if (await fromStore(options, (workflows) => workflows.delete(name))) process.stderr.write(`deleted workflow ${name}\n`);
}

export async function workflowExportCommand(name: string, options: StorageOptions & { output?: string }): Promise<void> {
  const exported = await fromStore(options, (workflows) => workflows.export(name));
  if (!exported) return;
  const text = `${JSON.stringify(exported)}\n`;
  if (options.output === undefined) {
    process.stdout.write(text);
    return;
  }
  // Owner-only whatever the umask (it holds screenshots); a failure is one line naming the file.
  const { writeUserFile } = await import('../../disk/user-file');
  const written = await writeUserFile(options.output, text);
  if (!written.ok) {
    process.stderr.write(`mnemo: ${written.message}\n`);
    process.exitCode = ExitCode.errorResult;
    return;
  }
  process.stderr.write(`exported workflow ${name} to ${options.output} (it holds screenshots of the recorded run)\n`);
}

/**
 * The file to import, within the one cap serve's import takes too: a path that is not a regular
 * file (`/dev/zero`, a pipe) or is larger is refused before a byte is read; stdin (`-`) is cut
 * off where it passes the cap.
 */
async function importedText(file: string): Promise<string> {
  const { readFileWithin, readStreamWithin } = await import('../../disk/bounded-read');
  const read = file === '-' ? await readStreamWithin(process.stdin, WORKFLOW_FILE_MAX) : await readFileWithin(file, WORKFLOW_FILE_MAX);
  if (!read.ok) {
    if (file === '-') process.stdin.destroy();
    throw new InvalidInputError(`cannot import ${file === '-' ? 'stdin' : file}: ${read.message}`);
  }
  return read.bytes.toString('utf8');
}

export async function workflowImportCommand(file: string, options: ImportOptions): Promise<void> {
  const text = await importedText(file);
  const imported = await fromStore(options, (workflows) => workflows.import(text, { replace: options.force === true, ...(options.name !== undefined ? { rename: options.name } : {}) }), true);
  if (!imported) return;
  // Every step as it will run, before the user is asked to trust it.
  printWorkflow(imported.workflow, false);
  process.stderr.write(
    `${imported.replaced ? 'replaced' : 'imported'} workflow ${imported.workflow.name} (${imported.workflow.steps.length} steps), not trusted: it does not run until you have checked every step above and run mnemo workflow trust ${imported.workflow.name}\n`,
  );
}

export async function workflowRunCommand(name: string, options: RunWorkflowOptions): Promise<void> {
  const desktop = desktopRequestOf(options);
  if (!desktop.ok) throw new InvalidInputError(desktop.message);
  const service = await openService(options);
  const read = await service.workflows.show(name);
  if (!read.ok) return failed(read);
  if (!read.value.trusted) return failed({ ok: false, error: { kind: 'untrusted', message: untrustedReason(name) } });
  const { resolveParamValues } = await import('../../workflow/params');
  const resolved = resolveParamValues(read.value.workflow.params, options.set, process.env);
  if (!resolved.ok) throw new InvalidInputError(resolved.message);
  for (const secret of resolved.missingSecrets) {
    const typed = options.nonInteractive ? null : await promptSecret(secret);
    if (typed === null || typed === '') {
      throw new InvalidInputError(`missing secret parameter "${secret}": give --set ${secret}=VALUE, MNEMO_PARAM_${secret}, or type it when asked`);
    }
    resolved.values.set(secret, typed);
  }
  const started = await service.workflowRuns.start({
    name,
    values: resolved.values,
    policy: options.policy,
    speed: options.speed,
    interactive: !options.nonInteractive,
    ...(options.display !== undefined ? { display: options.display } : {}),
    ...(desktop.request?.private ? { desktop: desktop.request, keepDesktop: options.keepDesktop === true } : {}),
    ...(options.policy === 'reground' ? { model: {} } : {}),
  });
  const handle = startedOrExplain(started);
  if (!handle) return;
  const restoreSignals = stopOnInterrupt(handle);
  const events: AgentEvent[] = [];
  let outcome;
  try {
    outcome = await followOnTerminal(handle, { json: options.json === true, ask: options.nonInteractive ? null : terminalAsk(), seen: (event) => events.push(event) });
  } finally {
    restoreSignals();
  }
  const report = workflowReport(events);
  if (options.json) {
    if (report) process.stdout.write(`${JSON.stringify(report)}\n`);
    if (outcome.status !== 'finished') process.stderr.write(`mnemo workflow run: ${outcome.status}: ${outcome.reason}\n`);
  } else if (report) {
    const { recording } = report;
    process.stderr.write(
      `workflow ${name}: ${report.status}, ${report.steps} steps: ${report.replayed} replayed, ${report.refound} found again, ${report.grounded} grounded, ${report.stopped} stopped; ` +
        `${report.modelCalls} model calls, ${report.tokens} tokens, ${formatUsd(report.costUsd)} (the recording: ${recording.modelCalls} calls, ${recording.tokens} tokens, ${formatUsd(recording.costUsd)})\n` +
        (report.foundBy ? `targets found by: ${Object.entries(report.foundBy).map(([finder, count]) => `${finder} ${count}`).join(', ')}\n` : '') +
        `session ${handle.id} in ${handle.directory}\n`,
    );
  }
  process.exitCode = exitCodeFor(outcome.status);
  await service.close();
  process.stdin.destroy();
}
