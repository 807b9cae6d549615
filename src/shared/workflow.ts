/**
 * A workflow: a recorded run turned into steps with parameters and anchors, to be run again with
 * new values (src/main/workflow/). One zod schema, from which the types are inferred; the store
 * validates every file it reads with it, `mnemo workflow import` every file it is given.
 *
 * - A step is one recorded action. Typed text holds `{{name}}` where a parameter's value was.
 * - A step that acts at a point keeps, per point, the evidence to find its target again: the patch
 *   of the recorded screenshot around it (the element under the point, found by its extent) and
 *   the words read near it (OCR), each with its offset from the point; and, where the recording
 *   read the accessibility tree, the element itself (role, name, path, bounds: optional, so
 *   workflows saved before still load).
 * - The screen as recorded before the step and after it (its expected effect) are kept by
 *   reference (`screens/…`), like the patches (`anchors/…`): files beside workflow.json, or
 *   inlined as base64 in an exported file.
 * - A parameter has a name, an example and `secret`; a secret's example is never kept.
 * - A step's `description` is never taken from a file: every parse derives it from the step's
 *   action and anchors (`describeWorkflowStep`), so what a person reads is what will run. Files
 *   keep the derived text, for older versions that require the field.
 *
 * Pure TypeScript + zod: the window shows workflows with the same types.
 */
import { RecordingCostSchema } from './workflow-run';
import { z } from 'zod';
import { ActionSchema, dragPath, type Action } from './actions';
import { describeAction, MASK } from './describe-action';

export const WORKFLOW_FORMAT = 'mnemo-workflow';
export const WORKFLOW_EXPORT_FORMAT = 'mnemo-workflow-export';

/**
 * The largest workflow file Mnemo imports (it holds its screenshots): one cap for
 * `mnemo workflow import` (checked before a byte is read) and `POST /api/workflows/import` (its body).
 */
export const WORKFLOW_FILE_MAX = 64 * 1024 * 1024;
export const WORKFLOW_VERSION = 1;

/** Also the workflow's folder name: letters, digits, `_`, `.`, `-`; no path, no spaces. */
export const WorkflowNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a workflow name is 1-64 letters, digits, "_", "." or "-", starting with a letter or digit');

/** Also the environment variable's suffix (`MNEMO_PARAM_<NAME>`). */
export const ParamNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a parameter name is a letter or "_" then letters, digits or "_" (at most 64)');

export const WorkflowParamSchema = z
  .object({
    name: ParamNameSchema,
    secret: z.boolean(),
    /** The recorded value; never kept for a secret. */
    example: z.string().optional(),
  })
  .strict()
  .refine((param) => !(param.secret && param.example !== undefined), { message: 'a secret parameter keeps no example' });
export type WorkflowParam = z.infer<typeof WorkflowParamSchema>;

/** A file of the workflow, relative to its folder: `anchors/…` or `screens/…`, nothing that leaves it. */
export const WorkflowFileSchema = z.string().regex(/^(anchors|screens)\/[A-Za-z0-9_.-]+\.(png|jpg)$/, 'a workflow file is anchors/<name>.png|jpg or screens/<name>.png|jpg');

const RectSchema = z.object({ x: z.number().int().nonnegative(), y: z.number().int().nonnegative(), width: z.number().int().positive(), height: z.number().int().positive() });

export const WorkflowImageSchema = z.object({
  file: WorkflowFileSchema,
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  mime: z.enum(['image/jpeg', 'image/png']),
});
export type WorkflowImage = z.infer<typeof WorkflowImageSchema>;

/** A word read near a target: its centre is at (target.x + dx, target.y + dy), in recorded image pixels. */
export const TextAnchorSchema = z.object({
  text: z.string().min(1),
  dx: z.number(),
  dy: z.number(),
  confidence: z.number().min(0).max(100),
  /** On the element itself (a button's caption), not beside it (a field's label). */
  inside: z.boolean(),
});
export type TextAnchor = z.infer<typeof TextAnchorSchema>;

const ScreenRectSchema = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

/**
 * The element the accessibility tree named under a target when it was recorded: found again by
 * its role and name (and the named elements around it: `path`, outermost first, `role:name`
 * each), its box only telling look-alikes apart. Absent where the display had no tree, and in
 * workflows saved before elements were recorded.
 */
export const WorkflowElementSchema = z.object({
  role: z.string().min(1),
  name: z.string(),
  path: z.array(z.string()),
  /** Its box on the recorded screen, in screen pixels. */
  bounds: ScreenRectSchema,
});
export type WorkflowElement = z.infer<typeof WorkflowElementSchema>;

export const TargetAnchorSchema = z.object({
  /** The point acted on, in pixels of the recorded image. */
  point: z.object({ x: z.number(), y: z.number() }),
  /** `click`, `drag start`, `drag end`: what the point is, for messages. */
  role: z.string(),
  /** The patch: `rect` in the recorded image, its pixels in `image`. */
  patch: z.object({ rect: RectSchema, image: WorkflowImageSchema }),
  /** The element's face (the region of the point's colour), null when the point was on no bounded element. */
  face: RectSchema.nullable(),
  /** Words on the element and beside it (typed text left out: it changes from run to run). */
  text: z.array(TextAnchorSchema),
  /** The element under the point, as the accessibility tree named it (looked for first when run). */
  element: WorkflowElementSchema.optional(),
});
export type TargetAnchor = z.infer<typeof TargetAnchorSchema>;

const StoredStepSchema = z.object({
  index: z.number().int().positive(),
  /** The recorded run's step this action came from (several actions may share one). */
  recordedStep: z.number().int().nonnegative(),
  /** Ignored when read (an edited file could say anything here): derived from `action` and `anchors`. */
  description: z.string().optional(),
  action: ActionSchema,
  thought: z.string().nullable(),
  /** The screen as recorded before the step: the recorded step's screenshot. */
  before: WorkflowImageSchema.nullable(),
  /**
   * The screen as recorded after it (the next recorded screenshot), on the last action of a
   * recorded step; its own `before` where a demonstration's lagging captures recorded no screen
   * between it and the next step (no change to expect).
   */
  after: WorkflowImageSchema.nullable(),
  /** One per point the action targets (a drag: where it starts and where it ends). */
  anchors: z.array(TargetAnchorSchema),
});

/** A step as read: its description derived from what it does, whatever the file said. */
export const WorkflowStepSchema = StoredStepSchema.transform((step) => ({ ...step, description: describeWorkflowStep(step) }));
export type WorkflowStep = z.output<typeof WorkflowStepSchema>;

/**
 * Whether a character would not show as itself in a terminal or a page: controls (an escape
 * sequence can rewrite the line above), lone surrogates, and the invisible and direction-changing
 * ones (text shown backwards, or not at all).
 */
function unseen(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (char.length === 1 && code >= 0xd800 && code <= 0xdfff) ||
    [0xad, 0x61c, 0x180e, 0xfeff].includes(code) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x206f) ||
    (code >= 0xfff9 && code <= 0xfffb)
  );
}

/** `text` with every character that would not show as itself written as `\uXXXX`. */
export function visibleText(text: string): string {
  return Array.from(text, (char) => (unseen(char) ? `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}` : char)).join('');
}

/** Typed text in full, quoted, escaped (`\n` for Enter) and with nothing hidden: never cut, never masked. */
export function quotedTypedText(text: string): string {
  return visibleText(JSON.stringify(text));
}

const at = (point: { x?: number | undefined; y?: number | undefined }): string => (point.x !== undefined && point.y !== undefined ? ` at (${point.x}, ${point.y})` : '');

/** What a step does, in full: the text typed whole, the keys, the button and keys held, every point. */
function describeStepAction(action: Action): string {
  switch (action.type) {
    case 'type':
      // A workflow's text is a template ({{name}} where a value goes), never a secret's value: shown even when marked secret.
      return `type ${quotedTypedText(action.text)}${action.secret === true ? ' (a secret parameter)' : ''}`;
    case 'click':
    case 'double_click':
    case 'triple_click':
      return `${action.type.replace('_', ' ')}${at(action)}${action.button !== 'left' ? ` with the ${action.button} button` : ''}${action.modifiers?.length ? ` holding ${action.modifiers.join('+')}` : ''}`;
    case 'drag': {
      const path = dragPath(action);
      const [first, last] = [path[0], path.at(-1)];
      const via = path.length > 2 ? ` through ${path.slice(1, -1).map((point) => `(${point.x}, ${point.y})`).join(', ')}` : '';
      return `drag from (${first?.x}, ${first?.y}) to (${last?.x}, ${last?.y})${via}${action.button !== 'left' ? ` with the ${action.button} button` : ''}`;
    }
    case 'scroll':
      return `scroll ${action.direction} ${action.amount}${at(action)}`;
    case 'mouse_down':
    case 'mouse_up':
      return `${action.type.replace('_', ' ')} (${action.button})${at(action)}`;
    default:
      return describeAction(action);
  }
}

/**
 * A step's description, derived each time it is read: what its action does, in full, and the words
 * read near its target. Never read from a file, so an edited file cannot show one thing and do another.
 */
export function describeWorkflowStep(step: { action: Action; anchors: readonly TargetAnchor[] }): string {
  const near = step.anchors[0]?.text.slice(0, 2).map((word) => word.text) ?? [];
  const element = step.anchors[0]?.element;
  const on = element ? ` on ${element.role} ${JSON.stringify(element.name)}` : '';
  return visibleText(`${describeStepAction(step.action)}${on}${near.length > 0 ? ` (near ${JSON.stringify(near.join(' '))})` : ''}`);
}

/** What a step sends from the keyboard, for the front ends to mark: text typed, keys pressed (or held while clicking), or nothing. */
export function keyboardInputOf(action: Action): 'text' | 'keys' | null {
  if (action.type === 'type') return 'text';
  if (action.type === 'hotkey' || action.type === 'key_down' || action.type === 'key_up') return 'keys';
  return 'modifiers' in action && (action.modifiers?.length ?? 0) > 0 ? 'keys' : null;
}


const PLACEHOLDER = /\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g;

/** The parameter names a text refers to (`{{name}}`). */
export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1] as string);
}

export const WorkflowSchema = z
  .object({
    format: z.literal(WORKFLOW_FORMAT),
    version: z.literal(WORKFLOW_VERSION),
    name: WorkflowNameSchema,
    /** The recorded task with parameter values as `{{name}}`. */
    description: z.string(),
    createdAt: z.number(),
    source: z.object({
      session: z.string(),
      model: z.string(),
      family: z.string(),
      /** What the recording cost: its model calls, tokens and dollars. */
      recording: RecordingCostSchema,
      /** The recorded run's summary when it finished. */
      summary: z.string().nullable(),
    }),
    /** The recorded image: the size anchors and coordinates are in, and the screen it showed. */
    image: z.object({ width: z.number().int().positive(), height: z.number().int().positive(), format: z.enum(['jpeg', 'png']) }),
    screen: z.object({ width: z.number().positive(), height: z.number().positive() }),
    params: z.array(WorkflowParamSchema),
    steps: z.array(WorkflowStepSchema),
  })
  .superRefine((workflow, ctx) => {
    const names = new Set<string>();
    for (const [i, param] of workflow.params.entries()) {
      if (names.has(param.name)) ctx.addIssue({ code: 'custom', path: ['params', i, 'name'], message: `the parameter "${param.name}" is declared twice` });
      names.add(param.name);
    }
    for (const [i, step] of workflow.steps.entries()) {
      if (step.index !== i + 1) ctx.addIssue({ code: 'custom', path: ['steps', i, 'index'], message: `steps are numbered 1, 2, 3…: step ${i + 1} says ${step.index}` });
      if (step.action.type !== 'type') continue;
      for (const name of placeholdersIn(step.action.text)) {
        if (!names.has(name)) ctx.addIssue({ code: 'custom', path: ['steps', i, 'action', 'text'], message: `step ${step.index} uses {{${name}}}, which is not a declared parameter` });
      }
    }
  });
export type Workflow = z.infer<typeof WorkflowSchema>;

/** Every image a workflow refers to (screens and patches), each file once. */
export function workflowImages(workflow: Workflow): WorkflowImage[] {
  const images = new Map<string, WorkflowImage>();
  for (const step of workflow.steps) {
    for (const image of [step.before, step.after, ...step.anchors.map((anchor) => anchor.patch.image)]) {
      if (image && !images.has(image.file)) images.set(image.file, image);
    }
  }
  return [...images.values()];
}

/** Every file a workflow refers to, each once. */
export function workflowFiles(workflow: Workflow): string[] {
  return workflowImages(workflow).map((image) => image.file);
}

/** One self-contained file: the workflow and its files as base64. */
export const WorkflowExportSchema = z
  .object({
    format: z.literal(WORKFLOW_EXPORT_FORMAT),
    version: z.literal(WORKFLOW_VERSION),
    workflow: WorkflowSchema,
    files: z.record(WorkflowFileSchema, z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'a file is base64')),
  })
  .superRefine((exported, ctx) => {
    for (const file of workflowFiles(exported.workflow)) {
      if (!(file in exported.files)) ctx.addIssue({ code: 'custom', path: ['files'], message: `the workflow refers to ${file}, which the file does not hold` });
    }
  });
export type WorkflowExport = z.infer<typeof WorkflowExportSchema>;

/** The first problem of a value that is not a valid workflow (export), in words. */
export function describeWorkflowIssues(issues: readonly z.core.$ZodIssue[]): string {
  const [issue] = issues;
  if (!issue) return 'it does not match the workflow format';
  const path = issue.path.map(String).join('.');
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return `${path ? `${path}: ` : ''}${issue.message}${more}`;
}

/**
 * A workflow as read, and whether the user trusts these very steps: it was saved on this machine,
 * or confirmed once after its steps were shown, and nothing that decides what runs changed since
 * (`digest`, src/main/workflow/trust.ts). An untrusted workflow is shown, never run.
 */
export interface CheckedWorkflow {
  workflow: Workflow;
  trusted: boolean;
  /** What the trust is given to: `sha256:…` of the steps, parameters, anchors and files. */
  digest: string;
}

/** Why a workflow does not run, and how to make it run: one line for every front end. */
export function untrustedReason(name: string): string {
  return `workflow "${name}" is not trusted (it was imported, or its file changed since it was trusted), so it does not run: check its steps with mnemo workflow show ${name}, then trust it with mnemo workflow trust ${name}`;
}

/** `workflows:show` and `workflows:trust`: the workflow whole, whether it is trusted, and the digest a trust must name. */
export const ShownWorkflowSchema = z.intersection(WorkflowSchema, z.object({ trusted: z.boolean(), digest: z.string() }));
export type ShownWorkflow = z.output<typeof ShownWorkflowSchema>;

export function shownWorkflow(checked: CheckedWorkflow): ShownWorkflow {
  return { ...checked.workflow, trusted: checked.trusted, digest: checked.digest };
}

/** What `mnemo workflow save|show --json` print, and the window lists: a secret's example masked. */
export const WorkflowSummarySchema = z.object({
  name: z.string(),
  params: z.array(z.object({ name: z.string(), secret: z.boolean(), example: z.string() })),
  steps: z.array(z.object({ index: z.number().int().positive(), description: z.string(), action: ActionSchema })),
  /** It may run: saved on this machine, or trusted by the user after its steps were shown, and unchanged since. */
  trusted: z.boolean(),
});
export type WorkflowSummary = z.infer<typeof WorkflowSummarySchema>;

export function summarizeWorkflow(workflow: Workflow, trusted: boolean): WorkflowSummary {
  return {
    name: workflow.name,
    params: workflow.params.map((param) => ({ name: param.name, secret: param.secret, example: param.secret ? MASK : (param.example ?? '') })),
    // Derived again here: a Workflow built in memory holds whatever its maker put in `description`.
    steps: workflow.steps.map((step) => ({ index: step.index, description: describeWorkflowStep(step), action: step.action })),
    trusted,
  };
}

/** A line of `mnemo workflow list`. */
export const WorkflowListingSchema = z.object({
  name: z.string(),
  description: z.string(),
  /** The parameters' names. */
  params: z.array(z.string()),
  /** How many steps. */
  steps: z.number().int().nonnegative(),
  createdAt: z.number(),
  /** The session it was saved from. */
  source: z.string(),
  /** It may run (see `CheckedWorkflow`). */
  trusted: z.boolean(),
});
export type WorkflowListing = z.infer<typeof WorkflowListingSchema>;

/** A value typed in a recording, proposed as a parameter (what `save` lists without --param, and the window offers to confirm). */
export const ProposedParamSchema = z.object({
  name: z.string(),
  /** The value typed (the mask for a secret the recording masked). */
  value: z.string(),
  secret: z.boolean(),
  /** The workflow steps that type it. */
  steps: z.array(z.number().int().positive()),
});
export type ProposedParam = z.infer<typeof ProposedParamSchema>;

export function listingOf({ workflow, trusted }: Pick<CheckedWorkflow, 'workflow' | 'trusted'>): WorkflowListing {
  return {
    name: workflow.name,
    description: workflow.description,
    params: workflow.params.map((param) => param.name),
    steps: workflow.steps.length,
    createdAt: workflow.createdAt,
    source: workflow.source.session,
    trusted,
  };
}

