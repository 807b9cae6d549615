/**
 * The one IPC contract between the renderer and the main process.
 *
 * Every command is named `domain:verb` and declares a zod schema for its request and its response.
 * The main process validates both at the boundary; the preload generates one function per command
 * from this map; the renderer gets its types from it. Every answer is a `Result`: failures travel
 * as values, never as rejected promises (Electron flattens thrown errors into an opaque string).
 *
 * Pure TypeScript + zod: no node, DOM or electron here, so all three environments can import it.
 */
import { z } from 'zod';
import {
  AnswerSchema,
  CheckProviderSchema,
  DoctorCheckSchema,
  FactQuerySchema,
  FactSchema,
  FactSearchSchema,
  ProviderCheckResultSchema,
  RunStateSchema,
  SaveFactSchema,
  SaveSettingsSchema,
  SessionListItemSchema,
  SettingsViewSchema,
  StartedSchema,
  StartReplaySchema,
  StartRunSchema,
  WorkingMemorySchema,
} from './app-api';
import { AgentEventSchema, type AgentEvent } from './events';

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
  // The run service's own failures (src/main/service/run-service.ts, ServiceErrorKind):
  /** Settings missing or invalid. */
  'settings',
  /** A run is going on on that display (`sessionId` names it). */
  'busy',
  /** The display cannot be opened. */
  'no_display',
  /** The session record cannot be written. */
  'record',
  /** No such session or run. */
  'not_found',
  /** The memory's storage cannot be used: Redis unreachable, a wrong memory key. */
  'memory',
]);
export type IpcErrorKind = z.infer<typeof IpcErrorKindSchema>;

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

interface CommandSpec<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  request: Req;
  response: Res;
}

function command<Req extends z.ZodType, Res extends z.ZodType>(request: Req, response: Res): CommandSpec<Req, Res> {
  return { request, response };
}

const SessionRefSchema = z.object({ id: z.string().min(1) });
const RunRefSchema = z.object({ id: z.string().min(1) });

export const commands = {
  'app:version': command(NoRequestSchema, AppVersionSchema),
  'operator:displays': command(NoRequestSchema, z.array(DisplaySchema)),
  /** Starts a task with the saved settings; `busy` while a run goes on. */
  'run:start': command(StartRunSchema, StartedSchema),
  /** The run going on, or null. */
  'run:current': command(NoRequestSchema, RunStateSchema.nullable()),
  'run:pause': command(RunRefSchema, RunStateSchema),
  'run:resume': command(RunRefSchema, RunStateSchema),
  /** Stops the run; a model call in flight is cancelled; the run ends `aborted`. */
  'run:stop': command(RunRefSchema, RunStateSchema),
  /** Answers the waiting question, a confirmation ("yes"/"no") or a safety check. */
  'run:answer': command(RunRefSchema.extend(AnswerSchema.shape), RunStateSchema),
  'replay:start': command(StartReplaySchema, StartedSchema),
  'sessions:list': command(z.object({ search: z.string().optional(), status: z.string().optional() }), z.array(SessionListItemSchema)),
  /** A session's events after `since` (all with 0); live ones then come on the event channel. */
  'sessions:events': command(SessionRefSchema.extend({ since: z.number().int().nonnegative().default(0) }), z.array(AgentEventSchema)),
  'sessions:delete': command(SessionRefSchema, SessionRefSchema),
  /** Writes the HTML report where the user chooses (a save dialog); null when they cancel. */
  'sessions:export': command(SessionRefSchema, z.object({ path: z.string().nullable() })),
  'settings:get': command(NoRequestSchema, SettingsViewSchema),
  /** Saves to the same config.json the CLI reads; the API key goes to the OS keychain. */
  'settings:save': command(SaveSettingsSchema, SettingsViewSchema),
  /** "Test connection": latency, whether an image is accepted, or the exact error. */
  'provider:check': command(CheckProviderSchema, ProviderCheckResultSchema),
  /** The checks of `mnemo doctor`: display, capture, input, clipboard, data directory, provider. */
  'doctor:run': command(NoRequestSchema, z.array(DoctorCheckSchema)),
  /** The facts remembered across tasks, most specific subject first, then newest; each with its history. */
  'facts:list': command(FactQuerySchema, z.array(FactSchema)),
  /** Ranked search (BM25) over keywords, descriptions and values, best first. */
  'facts:search': command(FactSearchSchema, z.array(FactSchema)),
  /** Saves a fact (a new value of an existing one supersedes it; the old value stays in its history). */
  'facts:save': command(SaveFactSchema, FactSchema),
  /** Removes a fact and its history everywhere it is kept. */
  'facts:forget': command(z.object({ id: z.string().min(1) }), z.object({ id: z.string() })),
  /** The conversations that have a working memory. */
  'memory:conversations': command(NoRequestSchema, z.array(z.string())),
  /** A conversation's working memory; null when it has none yet. */
  'memory:working': command(z.object({ conversationId: z.string().min(1) }), WorkingMemorySchema.nullable()),
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

// ── events: main → renderer ────────────────────────────────────────────────────────────────────

/** The one channel the main process pushes agent events on. */
export const AGENT_EVENT_CHANNEL = 'agent:event';

/** The events of the run going on, as `mnemo run --json` prints them (src/shared/events.ts). */
export { AgentEventSchema };
export type AgentEventPayload = AgentEvent;

/** The scheme the app serves session files under: `mnemo-file://session/<id>/<path>[?thumb=W]`. */
export const SESSION_FILE_SCHEME = 'mnemo-file';

// ── the API the preload exposes as `window.mnemo` ──────────────────────────────────────────────

export type CommandFunction<C extends CommandName> = (request: RequestOf<C>) => Promise<Result<ResponseOf<C>>>;

export type MnemoApi = { readonly [C in CommandName]: CommandFunction<C> } & {
  /** Subscribes to agent events; returns the unsubscribe function. */
  readonly onEvent: (listener: (event: AgentEventPayload) => void) => () => void;
};
