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
import { ActedElementSchema, ActionErrorKindSchema, OutcomeCheckSchema, type ActionResult } from '../../../shared/action-result';
import type { ElementSnapshot } from '../../../shared/elements';
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
import { elementOfRef } from './snapshot';

const SpaceSchema = z.enum(['image', 'screen']).describe('"image" (default): pixels of the latest screenshot of this session; "screen": screen pixels of the whole desktop');
const AfterSchema = z.boolean().describe('also return a screenshot taken once the screen has settled after the action');
const flags = { space: SpaceSchema.optional(), screenshotAfter: AfterSchema.optional() };
const RefSchema = z.string().describe('an element ref of the latest snapshot of this session, e.g. "s1e4"');

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
  // On an element of the latest snapshot, by its ref (the snapshot tool's), not by a number.
  z.object({ type: z.literal('click_element'), ref: RefSchema, ...flags }),
  z.object({ type: z.literal('type_into'), ref: RefSchema, text: z.string(), secret: z.boolean().optional(), ...flags }),
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
  element: ActedElementSchema.optional().describe('the element the action hit, as the accessibility tree names it'),
  check: OutcomeCheckSchema.optional().describe("what reading the element back after typing or toggling found (ok false: a mismatch)"),
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

/** An element action as the client gives it: a ref of the latest snapshot in place of a number. */
type ByRef = { type: 'click_element'; ref: string } | { type: 'type_into'; ref: string; text: string; secret?: boolean | undefined };

/** The run's action for an element ref (its number in the snapshot it is of), or why the ref is refused. */
function elementAction(call: ToolCall, given: ByRef): { action: Action; snapshot: ElementSnapshot } | string {
  const found = elementOfRef(call.state, given.ref);
  if (!found.ok) return found.message;
  const { element, snapshot } = found;
  if (given.type === 'click_element') return { action: { type: 'click_element', n: element.n }, snapshot };
  // A password field's text is a secret whatever the client said: typed as given, recorded masked.
  const secret = given.secret === true || element.role === 'password text';
  return { action: { type: 'type_into', n: element.n, text: given.text, ...(secret ? { secret: true } : {}) }, snapshot };
}

async function act(args: { action: (Action | ByRef) & Flags } & Flags, call: ToolCall): Promise<ToolAnswer<ActionResult>> {
  const { space: innerSpace, screenshotAfter: innerAfter, ...given } = args.action;
  let action = given as Action;
  let elements: ElementSnapshot | undefined;
  if ('ref' in given) {
    const byRef = elementAction(call, given as ByRef);
    if (typeof byRef === 'string') return { ok: false, message: byRef };
    ({ action, snapshot: elements } = byRef);
  }
  const resolved = basisOf(call, action, args.space ?? innerSpace ?? 'image');
  if (typeof resolved === 'string') return { ok: false, message: resolved };
  const launched = await call.services.desktop.act({ action, basis: resolved.basis, display: resolved.display, interactive: call.ask !== null, ...(elements ? { elements } : {}) });
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
    'each action is recorded as a session. The result is the ActionResult; screenshotAfter: true adds the new screen. With a ref of the latest ' +
    'snapshot, {"type":"click_element","ref":"s1e4"} clicks that element where it is now and {"type":"type_into","ref":"s1e5","text":"Ada"} replaces its ' +
    'text (read back afterwards); a ref of an older snapshot or of an element that is gone is refused. Every click names the element it hit.',
  input: {
    action: DesktopActionSchema.describe(
      'one action: click, double_click, triple_click, mouse_move, mouse_down, mouse_up, drag, scroll, type, hotkey, key_down, key_up, wait; or click_element, type_into on a ref of the latest snapshot',
    ),
    ...flags,
  },
  output: ActionResultShape,
  readOnly: false,
  destructive: true,
  openWorld: true,
  call: (args, call) => act(args as { action: (Action | ByRef) & Flags } & Flags, call),
});
