/**
 * `act {action}`: one action in Mnemo's wire format on the desktop. Its coordinates are pixels of
 * the connection's latest screenshot, or of the screen with `"space": "screen"` (given beside the
 * action or in it, as `screenshotAfter` may be); an action without coordinates (typing, keys, a
 * wait) needs no screenshot first. It runs as a run of one step: the display lock (a
 * run holding the display answers busy, naming its session), the fail-safe corner, the confirmation
 * rules (asked through elicitation; refused, saying why, where the client cannot be asked), and a
 * recorded session. The answer's structuredContent is the ActionResult; a failure is `isError`.
 */
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ActionErrorKindSchema, type ActionResult } from '../../../shared/action-result';
import {
  ClickSchema,
  DoubleClickSchema,
  DragSchema,
  HotkeySchema,
  KeyDownSchema,
  KeyUpSchema,
  MouseDownSchema,
  MouseMoveSchema,
  MouseUpSchema,
  PointSchema,
  ScrollSchema,
  TripleClickSchema,
  TypeSchema,
  WaitSchema,
  actionPoints,
  type Action,
} from '../../../shared/actions';
import type { ActionBasis } from '../../run/single-action';
import type { ToolCall } from '../connection';
import { followRun } from '../follow-run';
import { defineTool, type ToolAnswer } from '../tool';
import { takeScreenshot } from './screenshot';

const SpaceSchema = z.enum(['image', 'screen']).describe('"image" (default): pixels of the latest screenshot of this session; "screen": screen pixels of the whole desktop');
const AfterSchema = z.boolean().describe('also return a screenshot taken once the screen has settled after the action');
const flags = { space: SpaceSchema.optional(), screenshotAfter: AfterSchema.optional() };

/** The actions that touch the desktop (not the agent's own: finished, ask_user, save_fact, ...). */
const DesktopActionSchema = z.discriminatedUnion('type', [
  ClickSchema.extend(flags),
  DoubleClickSchema.extend(flags),
  TripleClickSchema.extend(flags),
  MouseMoveSchema.extend(flags),
  MouseDownSchema.extend(flags),
  MouseUpSchema.extend(flags),
  DragSchema.extend(flags),
  ScrollSchema.extend(flags),
  TypeSchema.extend(flags),
  HotkeySchema.extend(flags),
  KeyDownSchema.extend(flags),
  KeyUpSchema.extend(flags),
  WaitSchema.extend(flags),
  // Said to be an object beside the union, for clients that build a form or parse arguments by the top-level type (the MCP Inspector's CLI).
]).meta({ type: 'object' });

/** The ActionResult as one object (an output schema is an object): `ok`, then the success's or the failure's fields. */
const ActionResultShape = {
  ok: z.boolean(),
  type: z.string().optional(),
  points: z.array(PointSchema).optional().describe('screen points the action touched, first to last'),
  detail: z.string().optional(),
  durationMs: z.number().optional(),
  error: z.object({ kind: ActionErrorKindSchema, message: z.string() }).optional(),
};

type Flags = { space?: 'image' | 'screen' | undefined; screenshotAfter?: boolean | undefined };

/** What the coordinates are pixels of, and the display the action locks; or why there is none. */
function basisOf(call: ToolCall, action: Action, space: 'image' | 'screen'): { basis: ActionBasis; display: number | undefined } | string {
  const latest = call.state.latest;
  // Typing, keys and waiting have no coordinates: they need no screenshot first.
  if (space === 'screen' || (!latest && actionPoints(action).length === 0)) return { basis: { kind: 'screen' }, display: undefined };
  if (!latest) return 'no screenshot yet in this session: call screenshot first (the coordinates are pixels of the latest screenshot), or give "space": "screen" for screen pixels';
  const { image, mime, frame, display, primary } = latest;
  // The primary display is locked under the name a run that names no display takes.
  return { basis: { kind: 'image', image, mime, frame }, display: primary ? undefined : display };
}

async function act(args: { action: Action & Flags } & Flags, call: ToolCall): Promise<ToolAnswer<ActionResult>> {
  const { space: innerSpace, screenshotAfter: innerAfter, ...given } = args.action;
  const action = given as Action;
  const resolved = basisOf(call, action, args.space ?? innerSpace ?? 'image');
  if (typeof resolved === 'string') return { ok: false, message: resolved };
  const launched = await call.services.desktop.act({ action, basis: resolved.basis, display: resolved.display, interactive: call.ask !== null });
  if (!launched.ok) return { ok: false, message: launched.error.message };
  const handle = launched.value;
  const seen: { result: ActionResult | null } = { result: null };
  const { outcome } = await followRun(handle, call, (event) => {
    if (event.type === 'action-result') seen.result = event.result;
  });
  const { result } = seen;
  const recorded: ContentBlock = { type: 'text', text: `recorded as session ${handle.id}` };
  if (result === null) {
    // Nothing was done: refused, stopped, or the screen could not be recorded first.
    const why = outcome.status === 'refused' && call.ask === null ? `${outcome.reason}: this client cannot be asked (it does not support elicitation), so the action needing a confirmation was not carried out` : outcome.reason;
    return { ok: false, message: `${outcome.status}: ${why} (session ${handle.id})` };
  }
  const done = result;
  if (!done.ok) return { ok: false, message: `${done.error.kind}: ${done.error.message} (session ${handle.id})`, value: done };
  const wantsAfter = args.screenshotAfter ?? innerAfter ?? false;
  if (!wantsAfter) return { ok: true, value: done, content: [recorded] };
  const after = await takeScreenshot(call, call.state.latest?.display, true);
  if (!after.ok) return { ok: true, value: done, content: [recorded, { type: 'text', text: `no screenshot after the action: ${after.message}` }] };
  const geometry = after.value;
  const said = `the screen after the action: ${geometry.width}x${geometry.height} image of display ${geometry.display} (${geometry.screenWidth}x${geometry.screenHeight}); coordinates are its pixels from now on`;
  return { ok: true, value: done, content: [recorded, { type: 'text', text: said }, ...(after.content ?? [])] };
}

export const actTool = defineTool({
  name: 'act',
  title: 'Act on the desktop',
  description:
    "Carry out one action on the desktop in Mnemo's wire format, e.g. {\"type\":\"click\",\"x\":120,\"y\":48}, {\"type\":\"type\",\"text\":\"Hello\"}, " +
    '{"type":"hotkey","keys":["ctrl","s"]}, {"type":"scroll","direction":"down","x":400,"y":300}. Coordinates are pixels of the latest screenshot ' +
    'of this session (take one first), or of the screen with "space": "screen". Typing is exact on any keyboard layout. The fail-safe (the ' +
    'mouse in the top-left corner), the display lock (busy while a run holds the display) and the confirmation rules of the settings apply; ' +
    'each action is recorded as a session. The result is the ActionResult; screenshotAfter: true adds the new screen.',
  input: {
    action: DesktopActionSchema.describe('one action: click, double_click, triple_click, mouse_move, mouse_down, mouse_up, drag, scroll, type, hotkey, key_down, key_up, wait'),
    ...flags,
  },
  output: ActionResultShape,
  readOnly: false,
  destructive: true,
  openWorld: true,
  call: (args, call) => act(args as { action: Action & Flags } & Flags, call),
});
