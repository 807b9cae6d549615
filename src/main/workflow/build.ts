/**
 * A recorded session becomes a workflow (`mnemo workflow save`): one step per recorded action that
 * ran (replay's plan), typed values replaced by parameters, and per target the anchors to find it
 * again: the element's patch cut from the recorded screenshot, the words read near it, and the
 * element the accessibility tree named there when the recording knew it (the action's result
 * says which element it hit: role, name, the named elements around it, its box). The screens
 * before and after each recorded step are kept as they were recorded.
 *
 * A secret's value is never kept: not in the typed text, not in the task or a thought, not as an
 * example; the workflow is checked for it before it is handed back.
 */
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { loadSharp } from '../image/sharp';
import { actionPoints, type Action } from '../../shared/actions';
import { MASK } from '../../shared/describe-action';
import type { ActedElement } from '../../shared/action-result';
import type { ScreenshotRef } from '../../shared/events';
import { totalsOf } from '../../shared/run-totals';
import {
  WORKFLOW_FORMAT,
  WORKFLOW_VERSION,
  WorkflowSchema,
  describeWorkflowIssues,
  describeWorkflowStep,
  type ProposedParam,
  type TargetAnchor,
  type Workflow,
  type WorkflowImage,
  type WorkflowElement,
  type WorkflowStep,
} from '../../shared/workflow';
import { decodeGrey, type GreyImage } from '../replay/divergence';
import { planReplay } from '../replay/plan';
import type { SessionRecord } from '../store/session-reader';
import { patchAround, textAnchors, textRegion } from './anchors';
import type { TextReader } from './ocr';
import { applyParams, fillText, proposeParams, proposalsAsRequests, shownParamValues, type ParamRequest, type TypedText } from './params';

export interface BuildRequest {
  name: string;
  /** `--param` and `--secret`; empty: the values stay as recorded (and are proposed). */
  params: ParamRequest[];
  /** `--auto-params`: take the proposals. */
  autoParams?: boolean;
  now?: number;
}

export interface BuiltWorkflow {
  workflow: Workflow;
  /** The files the workflow refers to, by path (`screens/…`, `anchors/…`). */
  files: Map<string, Buffer>;
  /** The values typed, as parameters to take (listed when none were asked for). */
  proposed: ProposedParam[];
}

/** A failure carries the proposals when it came after them (a masked text left unnamed). */
export type BuildResult = { ok: true; built: BuiltWorkflow } | { ok: false; message: string; proposed?: ProposedParam[] };

const stem = (step: number) => `step-${String(step).padStart(4, '0')}`;

/** The points of an action kept as targets: a drag's start and end, else its one point. */
export function targetPoints(action: Action): Array<{ point: { x: number; y: number }; role: string }> {
  const points = actionPoints(action);
  const kind = action.type.replace(/_/g, ' ');
  if (points.length === 0) return [];
  if (points.length === 1) return [{ point: points[0] as { x: number; y: number }, role: kind }];
  return [
    { point: points[0] as { x: number; y: number }, role: `${kind} start` },
    { point: points.at(-1) as { x: number; y: number }, role: `${kind} end` },
  ];
}

/** The recorded usage: model calls (its predictions), and the tokens and dollars of the record's one fold (src/shared/run-totals.ts). */
function recordingCost(session: SessionRecord): Workflow['source']['recording'] {
  const { usage } = totalsOf(session.events);
  const modelCalls = session.events.filter((event) => event.type === 'prediction').length;
  return { modelCalls, tokens: usage.inputTokens + usage.outputTokens, costUsd: usage.costUsd };
}

/**
 * The element each recorded action hit, per step in the order the plan keeps its actions (those
 * that ran, by index); undefined where the result names none.
 */
function actedElements(session: SessionRecord): Map<number, Array<ActedElement | undefined>> {
  const results = new Map<number, Array<{ index: number; element: ActedElement | undefined }>>();
  for (const event of session.events) {
    if (event.type !== 'action-result' || !event.result.ok) continue;
    const list = results.get(event.step) ?? [];
    list.push({ index: event.index, element: event.result.element });
    results.set(event.step, list);
  }
  return new Map([...results].map(([step, list]) => [step, list.sort((a, b) => a.index - b.index).map((entry) => entry.element)]));
}

/** As a workflow keeps it: role, name, path, box (the snapshot's number means nothing later). */
function workflowElement(element: ActedElement): WorkflowElement {
  return { role: element.role, name: element.name, path: element.path ?? [], bounds: element.bounds };
}

export async function buildWorkflow(session: SessionRecord, request: BuildRequest, reader: TextReader): Promise<BuildResult> {
  const plan = planReplay(session);
  const acting = plan.filter((step) => step.actions.length > 0);
  if (acting.length === 0) return { ok: false, message: `session ${session.meta.id} has no recorded action to make a workflow of` };
  const first = acting.find((step) => step.frame !== null)?.frame;
  if (!first) return { ok: false, message: `session ${session.meta.id} has no recorded screenshot geometry (frame)` };
  const image = first.image;
  const odd = acting.find((step) => step.frame && (step.frame.image.width !== image.width || step.frame.image.height !== image.height));
  if (odd) return { ok: false, message: `session ${session.meta.id} was recorded at two image sizes (step ${odd.step}): a workflow needs one` };

  const files = new Map<string, Buffer>();
  const decoded = new Map<string, { bytes: Buffer; grey: GreyImage }>();
  const screenOf = async (ref: ScreenshotRef | null): Promise<{ image: WorkflowImage; bytes: Buffer; grey: GreyImage } | null> => {
    if (!ref) return null;
    const file = `screens/${ref.id}${extname(ref.path) || (ref.mime === 'image/png' ? '.png' : '.jpg')}`;
    let entry = decoded.get(file);
    if (!entry) {
      const bytes = await readFile(join(session.directory, ref.path)).catch(() => null);
      if (!bytes) return null;
      entry = { bytes, grey: await decodeGrey(bytes) };
      decoded.set(file, entry);
      files.set(file, bytes);
    }
    return { image: { file, width: ref.width, height: ref.height, mime: ref.mime }, bytes: entry.bytes, grey: entry.grey };
  };
  /** The screen recorded next after a step: the step that follows it with a screenshot. */
  const nextStep = (step: number) => session.steps.find((view) => view.step > step && view.screenshot !== null);
  // A demonstration's screenshot that predates the previous action (its captures lagged) shows
  // neither what that action did nor the screen its own step began on: no change is measured from
  // it or up to it. Such a step's screen after is its screen before: no change to expect (the run
  // still waits for the screen to settle after it).
  const lagging = new Set(session.events.flatMap((event) => (event.type === 'observation' && event.predatesPreviousAction ? [event.step] : [])));

  const elements = actedElements(session);
  const typedTexts = acting.flatMap((step) => step.actions).flatMap(({ action }) => (action.type === 'type' && action.text !== MASK ? [action.text] : []));
  const steps: WorkflowStep[] = [];
  for (const planned of acting) {
    const before = await screenOf(planned.screenshot);
    const next = nextStep(planned.step);
    const after = next && (lagging.has(planned.step) || lagging.has(next.step)) ? before : await screenOf(next?.screenshot ?? null);
    for (const [i, { action }] of planned.actions.entries()) {
      const index = steps.length + 1;
      const anchors: TargetAnchor[] = [];
      // One element per action: a drag's two ends are not one element, so it keeps none.
      const targets = targetPoints(action);
      const hit = targets.length === 1 ? elements.get(planned.step)?.[i] : undefined;
      if (before) {
        for (const [j, target] of targets.entries()) {
          const { patch: rect, face } = patchAround(before.grey, target.point);
          const file = `anchors/${stem(index)}-${j + 1}.png`;
          files.set(file, await (await loadSharp())(before.bytes).extract({ left: rect.x, top: rect.y, width: rect.width, height: rect.height }).png().toBuffer());
          const words = {
            caption: face ? await reader.read(before.bytes, face, 'caption') : [],
            labels: await reader.read(before.bytes, textRegion(rect, before.grey), 'region'),
          };
          anchors.push({
            point: { x: target.point.x, y: target.point.y },
            role: target.role,
            patch: { rect, image: { file, width: rect.width, height: rect.height, mime: 'image/png' } },
            face,
            text: textAnchors(words, target.point, face, typedTexts),
            ...(hit ? { element: workflowElement(hit) } : {}),
          });
        }
      }
      steps.push({
        index,
        recordedStep: planned.step,
        description: '',
        action,
        thought: planned.thought,
        before: before?.image ?? null,
        after: i === planned.actions.length - 1 ? (after?.image ?? null) : null,
        anchors,
      });
    }
  }

  // Parameters: the values typed, and the words near where each went (the last click before it).
  const typed: TypedText[] = [];
  let near: string[] = [];
  for (const step of steps) {
    if (step.anchors.length > 0) near = step.anchors[0]?.text.map((word) => word.text) ?? [];
    if (step.action.type === 'type') typed.push({ step: step.index, text: step.action.text, near });
  }
  const proposed = proposeParams(typed);
  const requests = request.params.length > 0 ? request.params : request.autoParams ? proposalsAsRequests(proposed) : [];
  const applied = applyParams(typed, requests);
  if (!applied.ok) return { ...applied, proposed };
  const unnamed = typed.find((typing) => typing.text === MASK && !applied.texts.has(typing.step));
  if (unnamed) {
    return {
      ok: false,
      message: `step ${unnamed.step} types a secret the recording masks (${MASK}): name it with --secret NAME (or take the proposals with --auto-params), and give its value when the workflow runs`,
      proposed,
    };
  }

  // Values become placeholders wherever they were written: the task, the thoughts.
  const named = requests.filter((r): r is ParamRequest & { value: string } => r.value !== undefined).sort((a, b) => b.value.length - a.value.length);
  const placeholders = (text: string) => named.reduce((result, r) => result.split(r.value).join(`{{${r.name}}}`), text);
  for (const step of steps) {
    const text = applied.texts.get(step.index);
    if (text !== undefined && step.action.type === 'type') step.action = { ...step.action, text, secret: requests.some((r) => r.secret && text.includes(`{{${r.name}}}`)) || undefined };
    if (step.action.type === 'type' && step.action.secret === undefined) delete (step.action as { secret?: boolean }).secret;
    step.thought = step.thought === null ? null : placeholders(step.thought);
    step.description = describeWorkflowStep(step);
  }

  const ending = session.events.findLast((event) => event.type === 'run-finished');
  const workflow = {
    format: WORKFLOW_FORMAT,
    version: WORKFLOW_VERSION,
    name: request.name,
    description: placeholders(session.meta.task),
    createdAt: request.now ?? Date.now(),
    source: {
      session: session.meta.id,
      model: session.meta.model,
      family: session.meta.family,
      recording: recordingCost(session),
      summary: ending?.type === 'run-finished' && ending.status === 'finished' && ending.summary ? placeholders(ending.summary) : null,
    },
    image: { width: image.width, height: image.height, format: image.format },
    screen: { width: first.bounds.width, height: first.bounds.height },
    params: applied.params,
    steps,
  } satisfies Workflow;
  const checked = WorkflowSchema.safeParse(workflow);
  if (!checked.success) return { ok: false, message: `the workflow would not be valid: ${describeWorkflowIssues(checked.error.issues)}` };
  const secrets = requests.filter((r) => r.secret && r.value !== undefined).map((r) => r.value as string);
  const serialized = JSON.stringify(checked.data);
  if (secrets.some((secret) => serialized.includes(secret))) return { ok: false, message: 'internal error: a secret value is still in the workflow; nothing was saved' };
  return { ok: true, built: { workflow: checked.data, files, proposed } };
}

/** A step's typed text as shown and recorded: values filled in, secrets masked. */
export function shownText(text: string, values: ReadonlyMap<string, string>, secrets: ReadonlySet<string>): string {
  return fillText(text, shownParamValues(values, secrets));
}
