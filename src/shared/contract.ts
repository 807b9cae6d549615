/**
 * The one contract between the window and the core, for both transports.
 *
 * Every command is named `domain:verb` and declares, in one line, a zod schema for its request,
 * one for its response, and its HTTP binding (http-binding.ts: method, path, where the fields
 * ride). Everything else is generated from this map:
 * - Electron: the preload's `window.mnemo` (one function per command) and the IPC dispatcher,
 *   which validates the request and the answer (src/main/app/dispatch.ts);
 * - `mnemo serve`: the router (src/main/server/router.ts), which validates the request and the
 *   answer the same way, and the HTTP client (http-commands.ts), which validates every answer
 *   again, since it cannot trust what comes over the network.
 * Every answer is a `Result`: failures travel as values, never as rejected promises (Electron
 * flattens thrown errors into an opaque string); over HTTP a failure is a status and
 * `{ "error", "kind" }`, a success the bare value.
 *
 * Pure TypeScript + zod: no node, DOM or electron here, so all three environments can import it.
 */
import { z } from 'zod';
import {
  AnswerSchema,
  CheckGroundingSchema,
  CheckProviderSchema,
  DoctorCheckSchema,
  FactQuerySchema,
  FactJsonSchema,
  FactSearchSchema,
  HandbackSchema,
  InputResultSchema,
  InputSchema,
  LiveRunSchema,
  GroundingCheckResultSchema,
  ProviderCheckResultSchema,
  RunStateSchema,
  FactToSaveSchema,
  SaveSettingsSchema,
  SessionListItemSchema,
  SavedSettingsSchema,
  StartedSchema,
  StartReplaySchema,
  StartRunSchema,
  SavedWorkflowSchema,
  SaveWorkflowSchema,
  StartWorkflowRunSchema,
  StartTeachSchema,
  ImportWorkflowSchema,
  WorkflowsListSchema,
  WorkingMemorySchema,
} from './app-api';
import { BatchDetailSchema, BatchQueueViewSchema, BatchSummarySchema, StartBatchSchema, type BatchChange } from './batch';
import { AgentEventListSchema, AgentEventSchema, type AgentEvent } from './events';
import { ElementSnapshotSchema } from './elements';
import { DELETE, GET, POST, PUT, type BindingCheck, type HttpBinding } from './http-binding';
import { SessionIdSchema } from './session-id';
import { ProposedParamSchema, ShownWorkflowSchema, WORKFLOW_FILE_MAX, WorkflowExportSchema, WorkflowNameSchema, WorkflowSummarySchema } from './workflow';

// ── results ────────────────────────────────────────────────────────────────────────────────────

export const IpcErrorKindSchema = z.enum([
  /** The request did not match the command's request schema. */
  'invalid_request',
  /** The sender is not our renderer (another frame, a navigated page, a destroyed frame). */
  'forbidden',
  /** No such command, or the part that serves it is not available in this build or platform. */
  'unavailable',
  /** The handler threw: a bug on the main side. */
  'internal',
  /** The handler answered something its response schema rejects: a bug on the main side. */
  'invalid_response',
  // The services' own failures (src/main/service/service-result.ts, ServiceErrorKind):
  /** Settings missing or invalid. */
  'settings',
  /** A run is going on on that display (`sessionId` names it). */
  'busy',
  /** The request does not fit the run's state: an answer when no question waits, input outside a takeover, a replay taken over. */
  'conflict',
  /** The display cannot be opened. */
  'no_display',
  /** The session record (or a workflow) cannot be written. */
  'record',
  /** No such session, run or workflow. */
  'not_found',
  /** What was given or found cannot be used: a workflow file, a damaged workflow, a missing or unknown parameter. */
  'invalid',
  /** The memory's storage cannot be used: Redis unreachable, a wrong memory key. */
  'memory',
  /** A workflow the user has not trusted (imported, or changed since) does not run; the message says how to trust it. */
  'untrusted',
]);
export type IpcErrorKind = z.infer<typeof IpcErrorKindSchema>;

/** The HTTP status `mnemo serve` answers each kind of failure with. */
export const HTTP_STATUS_OF: Readonly<Record<IpcErrorKind, number>> = {
  invalid_request: 400,
  forbidden: 403,
  unavailable: 503,
  internal: 500,
  invalid_response: 500,
  settings: 400,
  busy: 409,
  conflict: 409,
  no_display: 503,
  record: 500,
  not_found: 404,
  invalid: 400,
  memory: 503,
  untrusted: 403,
};

export const IpcErrorSchema = z.object({ kind: IpcErrorKindSchema, message: z.string(), sessionId: z.string().nullable().optional() });
export type IpcError = z.infer<typeof IpcErrorSchema>;

export type Result<T> = { ok: true; value: T } | { ok: false; error: IpcError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function err<T = never>(kind: IpcErrorKind, message: string): Result<T> {
  return { ok: false, error: { kind, message } };
}

/** The schema of `Result<T>` for a given value schema (for tests and for checking replies). */
export function resultSchema<T extends z.ZodType>(value: T) {
  return z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), value }),
    z.object({ ok: z.literal(false), error: IpcErrorSchema }),
  ]);
}

// ── payloads ───────────────────────────────────────────────────────────────────────────────────

/** A command that takes no request: `z.void()` lets the generated function be called with no argument. */
const NoRequestSchema = z.void();
// (zod 4 numbers reject NaN and ±Infinity already, so no `.finite()` below.)

export const AppVersionSchema = z.object({
  version: z.string(),
  /** `process.platform` of the main process ('linux', 'darwin', 'win32', ...). */
  platform: z.string(),
});

export const DisplaySchema = z.object({
  id: z.union([z.string(), z.number()]),
  /** Logical pixels in the global desktop coordinate space. */
  bounds: z.object({ x: z.number(), y: z.number(), width: z.number().positive(), height: z.number().positive() }),
  /** Physical pixels per logical pixel. */
  scaleFactor: z.number().positive(),
  primary: z.boolean(),
});
export type Display = z.infer<typeof DisplaySchema>;

// ── the contract ───────────────────────────────────────────────────────────────────────────────

interface CommandSpec<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType, Http extends HttpBinding = HttpBinding> {
  request: Req;
  response: Res;
  /** How the command travels over HTTP (`mnemo serve`). */
  http: Http;
}

/** The fields of a request (none for a command that takes no request). */
type FieldsOf<Req extends z.ZodType> = z.input<Req> extends object ? Extract<keyof z.input<Req>, string> : never;

/** One command; the compiler checks that its binding names only fields its request has. */
function command<Req extends z.ZodType, Res extends z.ZodType, const Http extends HttpBinding>(
  request: Req,
  response: Res,
  http: Http & BindingCheck<Http, FieldsOf<Req>>,
): CommandSpec<Req, Res, Http> {
  return { request, response, http };
}

const SessionRefSchema = z.object({ id: SessionIdSchema });
const RunRefSchema = z.object({ id: z.string().min(1) });
const WorkflowRefSchema = z.object({ name: WorkflowNameSchema });
/** A batch by its id (`b-20261206-201500-1a2b3c`) or a unique prefix of it. */
const BatchRefSchema = z.object({ id: z.string().regex(/^b-[\w-]+$/, 'a batch id starts with b-') });

export const commands = {
  'app:version': command(NoRequestSchema, AppVersionSchema, GET('/version')),
  'operator:displays': command(NoRequestSchema, z.array(DisplaySchema), GET('/displays')),
  /** Starts a task with the saved settings; `busy` while a run goes on. */
  'run:start': command(StartRunSchema, StartedSchema, POST('/runs')),
  /** The run going on, or null. */
  'run:current': command(NoRequestSchema, RunStateSchema.nullable(), GET('/runs/current')),
  'run:pause': command(RunRefSchema, RunStateSchema, POST('/runs/:id/pause')),
  'run:resume': command(RunRefSchema, RunStateSchema, POST('/runs/:id/resume')),
  /** Stops the run; a model call in flight is cancelled; the run ends `aborted`. */
  'run:stop': command(RunRefSchema, RunStateSchema, POST('/runs/:id/stop')),
  /** Answers the waiting question, a confirmation ("yes"/"no") or a safety check; `conflict` when none waits. */
  'run:answer': command(RunRefSchema.extend(AnswerSchema.shape), RunStateSchema, POST('/runs/:id/answer')),
  /** The runs going on, oldest first (several at once on private desktops): `[{id, task, status, desktop, kind}]`. */
  'runs:list': command(NoRequestSchema, z.array(LiveRunSchema), GET('/runs')),
  /** The user takes the run: the agent stops after the action in progress; its status says `taken over`. */
  'run:takeover': command(RunRefSchema, RunStateSchema, POST('/runs/:id/takeover')),
  /** One action of the user's, in the wire format, in pixels of the run's display; `conflict` (409) with the reason outside a takeover. */
  'run:input': command(RunRefSchema.extend(InputSchema.shape), InputResultSchema, POST('/runs/:id/input')),
  /** The agent goes on, told that the user took over, what they did (in its image's pixels) and the note. */
  'run:handback': command(RunRefSchema.extend(HandbackSchema.shape), RunStateSchema, POST('/runs/:id/handback')),
  /**
   * The elements of the run's display now (the active window's snapshot, bounds in the display's
   * pixels), for the live view's outlines; `unavailable` without an accessibility bus, `not_found`
   * with no window to read.
   */
  'run:elements': command(RunRefSchema, ElementSnapshotSchema, GET('/runs/:id/elements')),
  'replay:start': command(StartReplaySchema, StartedSchema, POST('/replays')),
  'sessions:list': command(z.object({ search: z.string().optional(), status: z.string().optional() }), z.array(SessionListItemSchema), GET('/sessions')),
  /** A session's events after `since` (all with 0); live ones then come on the event channel. */
  'sessions:events': command(SessionRefSchema.extend({ since: z.number().int().nonnegative().default(0) }), AgentEventListSchema, GET('/sessions/:id/events')),
  'sessions:delete': command(SessionRefSchema, SessionRefSchema, DELETE('/sessions/:id')),
  /**
   * Saves the HTML report: in the app where the user chooses (a save dialog; null when they
   * cancel), in a browser as a download, whose name is the path.
   */
  'sessions:export': command(SessionRefSchema, z.object({ path: z.string().nullable() }), GET('/sessions/:id/report.html', { download: 'mnemo-:id.html' })),
  'settings:get': command(NoRequestSchema, SavedSettingsSchema, GET('/settings')),
  /** Saves to the same config.json the CLI reads; the API key goes to the OS keychain (config.json, 0600, where none can keep it). */
  'settings:save': command(SaveSettingsSchema, SavedSettingsSchema, PUT('/settings')),
  /** "Test connection": latency, whether an image is accepted, or the exact error. */
  'provider:check': command(CheckProviderSchema, ProviderCheckResultSchema, POST('/provider/check')),
  /** "Check grounding": the model shown synthetic targets; the coordinate space of its answers, and the fix. */
  'provider:grounding': command(CheckGroundingSchema, GroundingCheckResultSchema, POST('/provider/grounding')),
  /** The checks of `mnemo doctor`: display, capture, input, clipboard, data directory, provider. */
  'doctor:run': command(NoRequestSchema, z.array(DoctorCheckSchema), GET('/doctor')),
  /** The facts remembered across tasks, most specific subject first, then newest; each with its history. */
  'facts:list': command(FactQuerySchema, z.array(FactJsonSchema), GET('/facts')),
  /** Ranked search (BM25) over keywords, descriptions and values, best first. */
  'facts:search': command(FactSearchSchema, z.array(FactJsonSchema), GET('/facts/search', { query: { q: 'text' } })),
  /** Saves a fact (a new value of an existing one supersedes it; the old value stays in its history). */
  'facts:save': command(FactToSaveSchema, FactJsonSchema, POST('/facts')),
  /** Removes a fact and its history everywhere it is kept. */
  'facts:forget': command(z.object({ id: z.string().min(1) }), z.object({ id: z.string() }), DELETE('/facts/:id')),
  /** The conversations that have a working memory. */
  'memory:conversations': command(NoRequestSchema, z.array(z.string()), GET('/memory/conversations')),
  /** A conversation's working memory; null when it has none yet. */
  'memory:working': command(z.object({ conversationId: z.string().min(1) }), WorkingMemorySchema.nullable(), GET('/memory/working', { query: { conversation: 'conversationId' } })),
  /** The saved workflows (`mnemo workflow list --json`), and the damaged ones apart with why. */
  'workflows:list': command(NoRequestSchema, WorkflowsListSchema, GET('/workflows')),
  /**
   * One workflow whole: its parameters (a secret's without example), its steps (each description
   * derived from its action) and their anchors (images under `otherRoutes.workflowFile`); whether
   * it is trusted, and the digest `workflows:trust` names.
   */
  'workflows:show': command(WorkflowRefSchema, ShownWorkflowSchema, GET('/workflows/:name')),
  /**
   * The user trusts the workflow they were shown to run ("Trust this workflow"); with `digest`
   * (from `workflows:show`) one that changed since is a `conflict` and stays untrusted.
   */
  'workflows:trust': command(WorkflowRefSchema.extend({ digest: z.string().min(1).optional() }), ShownWorkflowSchema, POST('/workflows/:name/trust')),
  /** The values typed in a session, proposed as parameters (secrets masked), for "Save as workflow" to confirm; nothing is saved. */
  'workflows:propose': command(SessionRefSchema, z.array(ProposedParamSchema), GET('/sessions/:id/workflow-params')),
  /** Saves a session as a workflow (`mnemo workflow save`); one of the same name is replaced. */
  'workflows:save': command(SaveWorkflowSchema, SavedWorkflowSchema, POST('/workflows')),
  'workflows:delete': command(WorkflowRefSchema, WorkflowRefSchema, DELETE('/workflows/:name')),
  /** One self-contained file: the workflow, its anchors and screens as base64 (`mnemo workflow export`). */
  'workflows:export': command(WorkflowRefSchema, WorkflowExportSchema, GET('/workflows/:name/export')),
  /** A file made by export, checked whole: a bad one is refused (`invalid`) with the reason and changes nothing. */
  'workflows:import': command(ImportWorkflowSchema, z.object({ workflow: WorkflowSummarySchema, replaced: z.boolean() }), POST('/workflows/import', { maxBody: WORKFLOW_FILE_MAX })),
  /** Runs a workflow with new values (a live run of kind `workflow`); a missing or unknown parameter is `invalid`, naming it; an untrusted workflow `untrusted`. */
  'workflows:run': command(StartWorkflowRunSchema, StartedSchema, POST('/workflows/:name/run')),
  /** Starts recording what the user does by hand (`mnemo teach`); `unavailable` where no recorder is plugged in. */
  'teach:start': command(StartTeachSchema, z.object({ id: z.string().min(1) }), POST('/teach')),
  /** Stops the demonstration and saves it: the session whose steps are the user's (`"actor": "user"`). */
  'teach:stop': command(RunRefSchema, z.object({ sessionId: SessionIdSchema }), POST('/teach/:id/stop')),
  /** The batches of the data directory, newest first, each with its progress (`mnemo batch list --json`); their changes come on the batch channel. */
  'batches:list': command(NoRequestSchema, z.array(BatchSummarySchema), GET('/batches')),
  /** Starts a batch (a workflow or a task over CSV rows) running in the background, as `mnemo batch run` would; columns that do not fit are `invalid`, naming them. */
  'batches:start': command(StartBatchSchema, BatchSummarySchema, POST('/batches')),
  /** One batch whole: its progress and its rows (values, a secret by its reference; status; session). */
  'batches:get': command(BatchRefSchema, BatchDetailSchema, GET('/batches/:id')),
  /** "Retry failed rows" (`failedOnly: false`: every row): they run again in the background (`mnemo batch retry`); none to retry, or a batch still running, is a `conflict`. */
  'batches:retry': command(BatchRefSchema.extend({ failedOnly: z.boolean().default(true) }), BatchSummarySchema, POST('/batches/:id/retry')),
  /** Cancels a batch wherever it runs (`mnemo batch cancel`): no new row starts, the runs going on stop; `resume` runs the rest. */
  'batches:cancel': command(BatchRefSchema, BatchSummarySchema, POST('/batches/:id/cancel')),
  /** The queue, its schedules and its workers; no queue set: `queue: null` and the local schedules. */
  'batches:queue': command(NoRequestSchema, BatchQueueViewSchema, GET('/queue')),
} satisfies Record<`${string}:${string}`, CommandSpec>;

export type Commands = typeof commands;
export type CommandName = keyof Commands;

/** Command names in declaration order (what the preload iterates). */
export const commandNames = Object.keys(commands) as CommandName[];

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(commands, name);
}

/** What a caller passes (before zod defaults and transforms). */
export type RequestOf<C extends CommandName> = z.input<Commands[C]['request']>;
/** What a handler receives (after parsing). */
export type ParsedRequestOf<C extends CommandName> = z.output<Commands[C]['request']>;
/** What a handler may answer (before parsing). */
export type ResponseInputOf<C extends CommandName> = z.input<Commands[C]['response']>;
/** What the caller receives (after parsing). */
export type ResponseOf<C extends CommandName> = z.output<Commands[C]['response']>;

/** What serves a command on either transport: the parsed request in, a Result value out. */
export type Handler<C extends CommandName> = (request: ParsedRequestOf<C>) => Promise<Result<ResponseInputOf<C>>>;

/** One handler per command: adding a command to the contract without a handler is a type error. */
export type Handlers = { [C in CommandName]: Handler<C> };

/** The commands that answer over HTTP with a file to save rather than JSON. */
export type DownloadCommand = { [C in CommandName]: Commands[C]['http'] extends { download: string } ? C : never }[CommandName];

// ── events: main → renderer ────────────────────────────────────────────────────────────────────

/** The one channel the main process pushes agent events on. */
export const AGENT_EVENT_CHANNEL = 'agent:event';

/** The events of the run going on, as `mnemo run --json` prints them (src/shared/events.ts). */
export { AgentEventSchema };
export type AgentEventPayload = AgentEvent;

/** The channel the main process pushes batch changes on (a row started or ended, a retry, a cancel). */
export const BATCH_CHANGE_CHANNEL = 'batch:change';
export type BatchChangePayload = BatchChange;

/** The scheme the app serves session files under: `mnemo-file://session/<id>/<path>[?thumb=W]`, and a workflow's images under `mnemo-file://workflow/<name>/<path>`. */
export const SESSION_FILE_SCHEME = 'mnemo-file';

/** The scheme the app serves a run's live view under: `mnemo-live://run/<id>` (multipart JPEG, as `GET /api/runs/<id>/live`). */
export const LIVE_VIEW_SCHEME = 'mnemo-live';

// ── the API the preload exposes as `window.mnemo` ──────────────────────────────────────────────

export type CommandFunction<C extends CommandName> = (request: RequestOf<C>) => Promise<Result<ResponseOf<C>>>;

/** One function per command: the preload's bridge, the HTTP client, and the window's client all have this shape. */
export type CommandApi = { readonly [C in CommandName]: CommandFunction<C> };

export type MnemoApi = CommandApi & {
  /** Subscribes to agent events; returns the unsubscribe function. */
  readonly onEvent: (listener: (event: AgentEventPayload) => void) => () => void;
  /** Subscribes to batch changes; returns the unsubscribe function. */
  readonly onBatchChange: (listener: (change: BatchChangePayload) => void) => () => void;
};
