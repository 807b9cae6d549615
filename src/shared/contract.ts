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
]);
export type IpcErrorKind = z.infer<typeof IpcErrorKindSchema>;

export const IpcErrorSchema = z.object({ kind: IpcErrorKindSchema, message: z.string() });
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

export const commands = {
  'app:version': command(NoRequestSchema, AppVersionSchema),
  'operator:displays': command(NoRequestSchema, z.array(DisplaySchema)),
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

/**
 * Placeholder until `events.ts` declares the AgentEvent union: every event is an object with a
 * `type`. Replace with the union's schema when it lands; the channel name stays.
 */
export const AgentEventSchema = z.looseObject({ type: z.string() });
export type AgentEventPayload = z.infer<typeof AgentEventSchema>;

// ── the API the preload exposes as `window.mnemo` ──────────────────────────────────────────────

export type CommandFunction<C extends CommandName> = (request: RequestOf<C>) => Promise<Result<ResponseOf<C>>>;

export type MnemoApi = { readonly [C in CommandName]: CommandFunction<C> } & {
  /** Subscribes to agent events; returns the unsubscribe function. */
  readonly onEvent: (listener: (event: AgentEventPayload) => void) => () => void;
};
