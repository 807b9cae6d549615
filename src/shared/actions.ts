/**
 * The action space: the one JSON wire format for actions everywhere (CLI, sessions, IPC, replay).
 *
 * Coordinates are `x`,`y` in whatever space the producer states (model-image pixels or screen
 * logical pixels); the operator maps them through a Frame. Keys are stored in canonical spelling
 * (see keys.ts), so `{"keys":["Control","Return"]}` parses to `["ctrl","enter"]`.
 */
import { z } from 'zod';
import { normalizeKey } from './keys';

const coordinate = z.number().finite();

/** A key name in any spelling models use, normalised to its canonical name. */
export const KeySchema = z.string().transform((raw, ctx) => {
  const parsed = normalizeKey(raw);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: parsed.message });
    return z.NEVER;
  }
  return parsed.key;
});

const keyList = z.array(KeySchema).min(1, 'at least one key is required');

export const MouseButtonSchema = z.enum(['left', 'right', 'middle']);
export type MouseButton = z.infer<typeof MouseButtonSchema>;

export const ScrollDirectionSchema = z.enum(['up', 'down', 'left', 'right']);
export type ScrollDirection = z.infer<typeof ScrollDirectionSchema>;

export const PointSchema = z.object({ x: coordinate, y: coordinate });
export type Point = z.infer<typeof PointSchema>;

/**
 * A point on the screen, in logical pixels. Made only where a point of the model's image is
 * mapped onto the screen or the screen is read (the pointer): a screen point is for the operator
 * and the record, never for what a model is told, and the compiler keeps it so. Mnemo once told a
 * model on a 1920x1200 screen `click at (960, 600) done` after it clicked (640, 400) in its image.
 */
declare const onScreen: unique symbol;
export type ScreenPoint = Point & { readonly [onScreen]: true };

/**
 * A point of the image a model was sent (an action as parsed, a pointer read back into the image).
 * A plain point is one; a ScreenPoint is not.
 */
export type ImagePoint = Point & { readonly [onScreen]?: never };

/** A point known to be on the screen (mapped onto it, or read from it): the brand exists for the compiler only. */
export function screenPoint(point: Point): ScreenPoint {
  return point as ScreenPoint;
}

/**
 * Screen points as read back from a record or a message: the plain point's schema (the brand has
 * no runtime form, so no transform that a JSON schema could not say), typed as what it reads.
 */
export const ScreenPointSchema = PointSchema as unknown as z.ZodType<ScreenPoint, Point>;

/** Fields any action may carry: the model's own confirmation request (UFO's CONFIRM). */
const common = {
  confirm: z.boolean().optional(),
};

const pointer = {
  ...common,
  x: coordinate,
  y: coordinate,
  button: MouseButtonSchema.default('left'),
  modifiers: z.array(KeySchema).optional(),
};

export const ClickSchema = z.object({ type: z.literal('click'), ...pointer });
export const DoubleClickSchema = z.object({ type: z.literal('double_click'), ...pointer });
export const TripleClickSchema = z.object({ type: z.literal('triple_click'), ...pointer });
export const MouseMoveSchema = z.object({
  type: z.literal('mouse_move'),
  ...common,
  x: coordinate,
  y: coordinate,
});
// Press and release may happen where the pointer already is (the end of a manual drag).
export const MouseDownSchema = z.object({
  type: z.literal('mouse_down'),
  ...common,
  x: coordinate.optional(),
  y: coordinate.optional(),
  button: MouseButtonSchema.default('left'),
});
export const MouseUpSchema = z.object({
  type: z.literal('mouse_up'),
  ...common,
  x: coordinate.optional(),
  y: coordinate.optional(),
  button: MouseButtonSchema.default('left'),
});

export const DragSchema = z
  .object({
    type: z.literal('drag'),
    ...common,
    x: coordinate.optional(),
    y: coordinate.optional(),
    toX: coordinate.optional(),
    toY: coordinate.optional(),
    path: z.array(PointSchema).min(2, 'a drag path needs at least two points').optional(),
    button: MouseButtonSchema.default('left'),
    /** Keys held while dragging, e.g. ["shift"]. */
    modifiers: z.array(KeySchema).optional(),
  })
  .refine(
    (drag) =>
      drag.path !== undefined ||
      (drag.x !== undefined && drag.y !== undefined && drag.toX !== undefined && drag.toY !== undefined),
    { message: 'a drag needs x, y, toX and toY, or a path of points' },
  );

export const ScrollSchema = z.object({
  type: z.literal('scroll'),
  ...common,
  x: coordinate.optional(),
  y: coordinate.optional(),
  direction: ScrollDirectionSchema,
  amount: z.number().int().positive().max(100).default(3),
  /** Keys held while scrolling, e.g. ["ctrl"] to zoom a page, ["shift"] to scroll sideways. */
  modifiers: z.array(KeySchema).optional(),
});

export const TypeSchema = z.object({
  type: z.literal('type'),
  ...common,
  text: z.string(),
  /** The text is a secret (a password): typed as given, recorded masked. */
  secret: z.boolean().optional(),
});

export const HotkeySchema = z.object({ type: z.literal('hotkey'), ...common, keys: keyList });
export const KeyDownSchema = z.object({ type: z.literal('key_down'), ...common, keys: keyList });
export const KeyUpSchema = z.object({ type: z.literal('key_up'), ...common, keys: keyList });

export const WaitSchema = z.object({
  type: z.literal('wait'),
  ...common,
  ms: z.number().int().nonnegative().max(600_000).default(1000),
});
export const ScreenshotSchema = z.object({ type: z.literal('screenshot'), ...common });
/**
 * Look closer: the next screenshot is this region of the screen (corners x, y to toX, toY) at the
 * best resolution the image limits allow, taken from the full-resolution screen. Nothing happens
 * on the desktop; points given while looking at the region are pixels of the region's image.
 */
export const ZoomSchema = z
  .object({ type: z.literal('zoom'), ...common, x: coordinate, y: coordinate, toX: coordinate, toY: coordinate })
  .refine((zoom) => zoom.toX > zoom.x && zoom.toY > zoom.y, { message: 'a zoom region needs toX greater than x and toY greater than y' });

export const FinishedSchema = z.object({
  type: z.literal('finished'),
  ...common,
  summary: z.string().default(''),
});
export const AskUserSchema = z.object({ type: z.literal('ask_user'), ...common, question: z.string() });
export const FailSchema = z.object({ type: z.literal('fail'), ...common, reason: z.string() });
/** Ask the long-term memory of the conversation (answered by the memory manager, seed 004). */
export const QueryLongTermMemorySchema = z.object({
  type: z.literal('query_long_term_memory'),
  ...common,
  hint: z.string().min(1, 'say what to recall'),
});

/**
 * Save a lasting fact on purpose (seed 001): about the `user` (default), the `machine`, or another
 * subject the settings name; one `value`, or several `values` for a concept that holds many.
 */
export const SaveFactSchema = z
  .object({
    type: z.literal('save_fact'),
    ...common,
    subject: z.string().regex(/^[a-z][a-z0-9_-]{0,40}$/, 'a subject name such as "user" or "machine"').default('user'),
    keyword: z.string().trim().min(1, 'name the fact with a keyword such as "preferred-editor"'),
    description: z.string().default(''),
    value: z.string().optional(),
    values: z.array(z.string()).min(1).optional(),
  })
  .refine((fact) => (fact.value !== undefined && fact.value.trim() !== '') || (fact.values?.some((value) => value.trim() !== '') ?? false), {
    message: 'a fact needs a value (or values)',
  });

/**
 * Run a saved workflow inside the run (`mnemo workflow`): its steps done again with these
 * parameter values, recorded in the run's session; the report goes back to the model.
 */
export const RunWorkflowSchema = z.object({
  type: z.literal('run_workflow'),
  ...common,
  name: z.string().trim().min(1, 'name the workflow to run'),
  params: z.record(z.string(), z.string()).default({}),
});

/**
 * The elements aid (model.elements `list` or `marks`): act on element `n` of the step's element
 * list, where the accessibility tree says it is now. A ref the tree no longer has fails as a
 * value (`stale_element`), never a click somewhere else.
 */
const elementNumber = z.number().int().positive();
export const ClickElementSchema = z.object({ type: z.literal('click_element'), ...common, n: elementNumber });
/** Focus element `n` and type into it, replacing what it held; its value is read back afterwards. */
export const TypeIntoSchema = z.object({
  type: z.literal('type_into'),
  ...common,
  n: elementNumber,
  text: z.string(),
  /** The text is a secret (a password): typed as given, recorded masked, checked by length only. */
  secret: z.boolean().optional(),
});

export const ActionSchema = z.discriminatedUnion('type', [
  ClickSchema,
  DoubleClickSchema,
  TripleClickSchema,
  MouseMoveSchema,
  MouseDownSchema,
  MouseUpSchema,
  DragSchema,
  ScrollSchema,
  TypeSchema,
  HotkeySchema,
  KeyDownSchema,
  KeyUpSchema,
  WaitSchema,
  ScreenshotSchema,
  ZoomSchema,
  FinishedSchema,
  AskUserSchema,
  FailSchema,
  QueryLongTermMemorySchema,
  SaveFactSchema,
  RunWorkflowSchema,
  ClickElementSchema,
  TypeIntoSchema,
]);

/** An action after parsing: defaults filled, keys canonical. */
export type Action = z.output<typeof ActionSchema>;
/** An action as a producer may write it (defaults optional, keys in any spelling). */
export type ActionInput = z.input<typeof ActionSchema>;
export type ActionType = Action['type'];
export type ActionOf<T extends ActionType> = Extract<Action, { type: T }>;

export const ACTION_TYPES = ActionSchema.options.map((option) => option.shape.type.value) as ActionType[];

/** Actions that end or pause the run rather than touch the desktop. */
export const CONTROL_ACTION_TYPES = ['finished', 'ask_user', 'fail'] as const satisfies readonly ActionType[];

export function isControlAction(action: Action): action is ActionOf<'finished' | 'ask_user' | 'fail'> {
  return (CONTROL_ACTION_TYPES as readonly string[]).includes(action.type);
}

export const MEMORY_ACTION_TYPES = ['query_long_term_memory', 'save_fact'] as const satisfies readonly ActionType[];

/** Actions answered by the agent's memory, not carried out on the desktop. */
export function isMemoryAction(action: Action): action is ActionOf<'query_long_term_memory' | 'save_fact'> {
  return (MEMORY_ACTION_TYPES as readonly string[]).includes(action.type);
}

/** Actions on an element of the step's list (the elements aid): declared to the models only when it is on. */
export const ELEMENT_ACTION_TYPES = ['click_element', 'type_into'] as const satisfies readonly ActionType[];

export function isElementAction(action: Action): action is ActionOf<'click_element' | 'type_into'> {
  return (ELEMENT_ACTION_TYPES as readonly string[]).includes(action.type);
}

export type ActionParse = { ok: true; action: Action } | { ok: false; message: string };

/** Parse an action from untrusted JSON, with a message that names the problem. */
export function parseAction(value: unknown): ActionParse {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'an action must be a JSON object with a "type" field' };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return { ok: false, message: 'the action has no "type" field' };
  if (!(ACTION_TYPES as string[]).includes(type)) {
    return { ok: false, message: `unknown action type "${type}" (expected one of: ${ACTION_TYPES.join(', ')})` };
  }
  const result = ActionSchema.safeParse(value);
  if (result.success) return { ok: true, action: result.data };
  return { ok: false, message: `invalid ${type} action: ${describeIssues(result.error.issues)}` };
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      const message =
        issue.code === 'invalid_type' && /received undefined/.test(issue.message)
          ? 'missing required field'
          : issue.message;
      return path ? `${path}: ${message}` : message;
    })
    .join('; ');
}

/** Points an action targets, in its own coordinate space (for mapping, drawing and validation). */
export function actionPoints(action: Action): Point[] {
  switch (action.type) {
    case 'click':
    case 'double_click':
    case 'triple_click':
    case 'mouse_move':
      return [{ x: action.x, y: action.y }];
    case 'mouse_down':
    case 'mouse_up':
    case 'scroll':
      return action.x !== undefined && action.y !== undefined ? [{ x: action.x, y: action.y }] : [];
    case 'drag':
      return dragPath(action);
    case 'zoom':
      return [
        { x: action.x, y: action.y },
        { x: action.toX, y: action.toY },
      ];
    default:
      return [];
  }
}

/** The points a drag passes through, first to last. */
export function dragPath(action: ActionOf<'drag'>): Point[] {
  if (action.path) return action.path;
  return [
    { x: action.x as number, y: action.y as number },
    { x: action.toX as number, y: action.toY as number },
  ];
}

/** The action with every coordinate mapped, each axis by its own function (another image size, screen to image pixels). */
export function mapActionCoordinates(action: Action, x: (value: number) => number, y: (value: number) => number): Action {
  switch (action.type) {
    case 'click':
    case 'double_click':
    case 'triple_click':
    case 'mouse_move':
      return { ...action, x: x(action.x), y: y(action.y) };
    case 'mouse_down':
    case 'mouse_up':
    case 'scroll':
      return {
        ...action,
        ...(action.x !== undefined ? { x: x(action.x) } : {}),
        ...(action.y !== undefined ? { y: y(action.y) } : {}),
      };
    case 'drag':
      return {
        ...action,
        ...(action.x !== undefined ? { x: x(action.x) } : {}),
        ...(action.y !== undefined ? { y: y(action.y) } : {}),
        ...(action.toX !== undefined ? { toX: x(action.toX) } : {}),
        ...(action.toY !== undefined ? { toY: y(action.toY) } : {}),
        ...(action.path !== undefined ? { path: action.path.map((point) => ({ x: x(point.x), y: y(point.y) })) } : {}),
      };
    case 'zoom':
      return { ...action, x: x(action.x), y: y(action.y), toX: x(action.toX), toY: y(action.toY) };
    default:
      return action;
  }
}
