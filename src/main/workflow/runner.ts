/**
 * A workflow run: the workflow's steps done again with new values, as a stream of the same events
 * the agent loop emits (recorded as a session like any other), plus one `workflow-step` event per
 * step saying how it was done.
 *
 * Before each step that acts at a point the screen is captured (at the recording's scale) and
 * `decideStep` (decide.ts) is asked, with evidence gathered cheapest first: the recorded element
 * looked for in the accessibility tree (when the step has one and the run was given a reader of
 * the tree); the recorded patch compared in place and where the previous target moved; a search
 * of the screen for it; the text near it read (OCR); the model, under the reground policy only.
 * Each step's record says what found its target (`foundBy`). A step whose decision is
 * `stopped` ends the run before it acts (`failed`, exit 3); nothing is done at a place that none
 * of these found.
 *
 * After the last action of a recorded step the screen settles and its change is compared with the
 * recorded one (effect.ts). A step whose effect did not appear is looked at once more (a busy
 * application may draw it late); if it still has not appeared, the step is tried once more
 * (typing, which must not happen twice, is not), then treated as diverged: grounded by the model
 * under `reground`, else stopped.
 *
 * Secrets: their values are typed, never recorded or shown (the action is recorded with the mask,
 * the values are masked in every event), and never sent to the model.
 */
import { actionPoints, dragPath, type Action, type Point } from '../../shared/actions';
import { describeAction } from '../../shared/describe-action';
import { ZERO_USAGE, type AgentEvent, type ScreenshotRef, type UsageSummary } from '../../shared/events';
import type { Frame, Rect } from '../../shared/frame';
import type { Workflow, WorkflowImage, WorkflowStep } from '../../shared/workflow';
import type { WorkflowReport } from '../../shared/workflow-report';
import type { WorkflowDecisionKind, WorkflowFinder } from '../../shared/workflow-run';
import type { ModelImage, VisionModel } from '../model/types';
import type { CaptureOptions, Observation } from '../operator/capture';
import type { ElementReader } from '../operator/a11y/snapshot';
import { actRecorded, modelImageOf } from '../replay/act';
import { decodeGrey, type GreyImage } from '../replay/divergence';
import type { WorkflowPolicy } from '../replay/policy';
import { reground } from '../replay/reground';
import type { AskRequest } from '../run/ask';
import { internalError, STOPPED, type Ending } from '../run/ending';
import type { RunLifecycle } from '../run/lifecycle';
import { DEFAULT_SETTLE, type SettleOptions } from '../run/settle';
import { facesLike, locateByText, textRegion } from './anchors';
import { compareAt } from './compare';
import { decideStepFound, DEFAULT_DECISION_THRESHOLDS, type DecisionThresholds, type ElementFinding, type Grounding, type StepEvidence, type TargetEvidence } from './decide';
import { chooseElement, elementLabel, pointOnElement, recordedImageBox, sameRoleAndName } from './element-refind';
import { checkEffect } from './effect';
import type { OcrWord, ReadMode, TextReader } from './ocr';
import { fillAction, fillText, secretParamNames, secretParamValues, shownParamValues } from './params';
import { searchTemplate } from './template-match';

export interface WorkflowRunOptions {
  policy: WorkflowPolicy;
  /** Every parameter's value, secrets included (typed, never recorded). */
  values: ReadonlyMap<string, string>;
  thresholds?: Partial<DecisionThresholds>;
  settle?: SettleOptions;
  /** The display and JPEG quality; the image size follows the recording. */
  capture?: CaptureOptions;
  /** Recorded waits divided by this; 0 runs them without waiting. Default 1. */
  speed?: number;
  /**
   * Before the run's first action, how long a step whose target is not found yet is looked for
   * again (an application started for the run may show its window before its page). Default 0:
   * one more look, as at every step.
   */
  firstLookPatienceMs?: number;
}

/** What a workflow's steps need besides the run they are part of. */
export interface WorkflowStepDeps {
  /** Reads the text near a target where its patch is ambiguous or restyled. */
  reader: TextReader;
  /** The workflow's files (screens, patches), from the store. */
  files: (image: WorkflowImage) => Promise<Buffer | null>;
  /** Needed under the reground policy. */
  model?: VisionModel;
  /**
   * The display's accessibility tree: a step recorded with its element is looked for there first.
   * Absent (no bus on the display): pixels only, as before elements were recorded.
   */
  elements?: Pick<ElementReader, 'snapshot' | 'ancestry'>;
}

/**
 * Runs workflows on a run's context (the lifecycle the launcher built, recording it as a new
 * session). The launcher's redaction already masks the secret parameters' values (the workflow
 * recipe chains them in front of the settings' policy).
 */
export class WorkflowRunner {
  constructor(private readonly deps: WorkflowStepDeps) {}

  run(workflow: Workflow, options: WorkflowRunOptions, life: RunLifecycle): AsyncIterable<AgentEvent> {
    void new WorkflowRun(workflow, options, life, this.deps, 0).execute();
    return life.events;
  }
}

/**
 * How a workflow run inside another run went: the report's counts (`steps`: how many of its steps
 * were begun, the last one where it stopped if it did) and how it ended.
 */
export interface WorkflowOutcome extends Pick<WorkflowReport, 'steps' | 'replayed' | 'refound' | 'grounded' | 'stopped' | 'modelCalls'> {
  ending: Ending;
}

/**
 * A workflow's steps done inside a run that is going on (the model's `run_workflow`): they are
 * steps `firstStep`, `firstStep + 1`, … of that run, in its record, with their decisions; the
 * run's own events (run-started, run-finished) are not emitted. Secret values are added to the
 * run's secrets.
 */
export async function runWorkflowWithin(workflow: Workflow, options: WorkflowRunOptions, life: RunLifecycle, firstStep: number, deps: WorkflowStepDeps): Promise<WorkflowOutcome> {
  return new WorkflowRun(workflow, options, life, deps, firstStep - 1).within();
}

/** A capture and its greyscale pixels; `ref` once it is in the record. */
interface Screen {
  observation: Observation;
  grey: GreyImage;
  ref: ScreenshotRef | null;
}

type Decided = { decision: WorkflowDecisionKind; points: Point[]; how: string; foundBy?: WorkflowFinder; prediction: { thought: string | null; usage: UsageSummary; attempts: number } };

type StepOutcome = { decided: Decided | null; ending?: Ending; modelCalls: number };

const at = (point: Point) => `(${Math.round(point.x)}, ${Math.round(point.y)})`;

/** The action with its target points moved to `points` (a drag's path follows its two ends). */
export function withPoints(action: Action, points: readonly Point[]): Action {
  const [first, second] = points;
  if (!first) return action;
  switch (action.type) {
    case 'click':
    case 'double_click':
    case 'triple_click':
    case 'mouse_move':
    case 'mouse_down':
    case 'mouse_up':
    case 'scroll':
      return action.x === undefined ? action : { ...action, x: first.x, y: first.y };
    case 'drag': {
      const path = dragPath(action);
      const end = second ?? first;
      const start = path[0] as Point;
      const last = path.at(-1) as Point;
      if (!action.path) return { ...action, x: first.x, y: first.y, toX: end.x, toY: end.y };
      const moved = path.map((point, i) => {
        const share = path.length > 1 ? i / (path.length - 1) : 0;
        return { x: point.x + (first.x - start.x) * (1 - share) + (end.x - last.x) * share, y: point.y + (first.y - start.y) * (1 - share) + (end.y - last.y) * share };
      });
      return { ...action, path: moved };
    }
    default:
      return action;
  }
}

class WorkflowRun {
  private readonly thresholds: DecisionThresholds;
  private readonly signal: AbortSignal;
  private readonly now: () => number;
  private readonly counts = { replayed: 0, refound: 0, grounded: 0, stopped: 0 };
  private modelCalls = 0;
  /** The latest capture: the screen after the last step, the next step's before. */
  private current: Screen | null = null;
  /** The screen when the current recorded step's first action began (its effect is measured from it). */
  private groupBefore: Screen | null = null;
  /** Whether any action was done yet (before the first, a step's target is waited for a while). */
  private acted = false;
  /** How far the last found target was from where it was recorded. */
  private offset: Point = { x: 0, y: 0 };
  private capture: CaptureOptions;
  private scaleChecked = false;
  /** The geometry of the last capture, for actions taken without a new look. */
  private frame: Frame | null = null;
  private readonly images = new Map<string, Promise<{ bytes: Buffer; grey: GreyImage } | null>>();
  /** Where the time of the current step went (step-finished carries it). */
  private timings = { observe: 0, model: 0, act: 0, settle: 0 };
  /** The values as shown and recorded (a secret parameter's masked). */
  private readonly shownValues: Map<string, string>;

  constructor(
    private readonly workflow: Workflow,
    private readonly options: WorkflowRunOptions,
    private readonly life: RunLifecycle,
    private readonly deps: WorkflowStepDeps,
    /** Added to a workflow step's index to make its step in the run (0 for a run of its own). */
    private readonly base: number,
  ) {
    this.thresholds = { ...DEFAULT_DECISION_THRESHOLDS, ...options.thresholds };
    this.signal = life.signal;
    this.now = life.clock;
    this.shownValues = shownParamValues(options.values, secretParamNames(workflow.params));
    // Typed into a field, a secret value is masked as a typed secret is (an error that echoes it, too).
    for (const value of secretParamValues(workflow.params, options.values)) life.secrets.add(value);
    const image = workflow.image;
    this.capture = { ...options.capture, maxWidth: image.width, maxHeight: image.height, format: image.format };
  }

  async execute(): Promise<void> {
    let ending: Ending;
    let lastStep = 0;
    try {
      this.life.emit({
        type: 'run-started',
        task: fillText(this.workflow.description, this.shownValues),
        model: this.deps.model?.model ?? 'none',
        family: this.deps.model?.family ?? 'none',
        limits: { maxSteps: this.workflow.steps.length, maxCostUsd: null },
        workflow: { name: this.workflow.name, recording: this.workflow.source.recording, ...(this.deps.elements ? { elements: true } : {}) },
      });
      ending = await this.loop((step) => (lastStep = step));
    } catch (error) {
      ending = internalError(error);
    }
    await this.life.finish(ending, lastStep);
  }

  async within(): Promise<WorkflowOutcome> {
    let steps = 0;
    let ending: Ending;
    try {
      ending = await this.loop((step) => (steps = step - this.base));
    } catch (error) {
      ending = internalError(error);
    }
    return { ending, steps, ...this.counts, modelCalls: this.modelCalls };
  }

  /** A workflow step's number in the run's record. */
  private eventStep(step: WorkflowStep): number {
    return this.base + step.index;
  }

  private async loop(reached: (step: number) => void): Promise<Ending> {
    const { workflow } = this;
    if (this.options.policy === 'reground' && !this.deps.model) return { status: 'failed', reason: 'the reground policy needs a model (--base-url, --model, --family)' };
    for (const [i, step] of workflow.steps.entries()) {
      if (this.signal.aborted) return STOPPED;
      await this.life.waitIfPaused(this.base + i);
      if (this.signal.aborted) return STOPPED;
      reached(this.eventStep(step));
      const started = this.now();
      this.timings = { observe: 0, model: 0, act: 0, settle: 0 };
      this.life.emit({ type: 'step-started', step: this.eventStep(step) });
      const groupStart = i === 0 || workflow.steps[i - 1]?.recordedStep !== step.recordedStep;
      const outcome = await this.runStep(step, groupStart);
      this.modelCalls += outcome.modelCalls;
      if (outcome.decided) {
        this.counts[outcome.decided.decision]++;
        const { decision, how, foundBy } = outcome.decided;
        // A step that stopped was found by nothing (one the model grounded whose effect then did not appear included).
        this.life.emit({ type: 'workflow-step', step: this.eventStep(step), decision, how, modelCalls: outcome.modelCalls, ...(foundBy && decision !== 'stopped' ? { foundBy } : {}) });
      }
      this.life.finishStep(this.eventStep(step), this.now() - started, { ...this.timings });
      void this.life.recorder.flush();
      if (outcome.ending) return outcome.ending;
    }
    const { replayed, refound, grounded } = this.counts;
    const summary = workflow.source.summary === null ? null : fillText(workflow.source.summary, this.shownValues);
    return {
      status: 'finished',
      reason: `workflow "${workflow.name}": ${workflow.steps.length} step${workflow.steps.length === 1 ? '' : 's'} done, ${replayed} replayed, ${refound} found again, ${grounded} grounded by the model`,
      summary,
    };
  }

  /** One step: capture, decide, act, check the effect (and try once more). */
  private async runStep(step: WorkflowStep, groupStart: boolean): Promise<StepOutcome> {
    let modelCalls = 0;
    // A recorded step's later actions that point nowhere (the typing after a click) need no look.
    let screen: Screen | null = null;
    if (step.anchors.length > 0 || groupStart) {
      // Within a recorded step the screen changed since the last capture: a fresh one.
      const got = await this.screenFor(this.eventStep(step), !groupStart);
      if ('ending' in got) return { decided: null, ending: got.ending, modelCalls };
      screen = got;
    }
    if (groupStart) this.groupBefore = screen;

    let afterEffect: string | undefined;
    for (let attempt = 1; ; attempt++) {
      const decided = await this.decide(step, screen, afterEffect);
      modelCalls += decided.modelCalls;
      if ('ending' in decided) return { decided: null, ending: decided.ending, modelCalls };
      if (decided.screen !== screen) {
        // Looked at again: the step acts on (and its effect is measured from) the newer screen.
        if (groupStart && attempt === 1) this.groupBefore = decided.screen;
        screen = decided.screen;
      }
      const { decision } = decided;
      if (decision.decision === 'stopped') return { decided: decision, ending: { status: 'failed', reason: decision.how }, modelCalls };

      const run = withPoints(fillAction(step.action, this.options.values), decision.points);
      const shown = withPoints(fillAction(step.action, this.shownValues), decision.points);
      this.life.emit({ type: 'prediction', step: this.eventStep(step), thought: this.shownThought(step, decision), actions: [shown], usage: decision.prediction.usage, attempts: decision.prediction.attempts });
      if (decision.decision !== 'replayed' && decision.points[0] && step.anchors[0]) {
        this.offset = { x: decision.points[0].x - step.anchors[0].point.x, y: decision.points[0].y - step.anchors[0].point.y };
      }
      const frame = screen?.observation.frame ?? this.frame;
      if (!frame) return { decided: decision, ending: internalError(new Error('no capture before the first action')), modelCalls };
      const acting = this.now();
      this.acted = true;
      const ending = await actRecorded(this.life, this.eventStep(step), [{ run, shown }], frame, { speed: this.options.speed ?? 1, ask: (request) => this.ask(this.eventStep(step), request) });
      this.timings.act += this.now() - acting;
      if (ending) return { decided: decision, ending, modelCalls };
      if (step.after === null) {
        // The recorded step goes on with its next action: the screen it left is not waited for.
        this.current = null;
        return { decided: decision, modelCalls };
      }

      const effect = await this.effectOf(step, attempt === 1 ? this.groupBefore : screen);
      if ('ending' in effect) return { decided: decision, ending: effect.ending, modelCalls };
      if (effect.appeared) return { decided: decision, modelCalls };
      if (decision.decision === 'grounded') {
        return {
          decided: { ...decision, decision: 'stopped', how: `${decision.how}; but the step's effect did not appear (${effect.detail})` },
          ending: { status: 'failed', reason: `step ${step.index} (${step.description}): the model's action did not have the recorded effect either (${effect.detail})` },
          modelCalls,
        };
      }
      if (attempt === 1) {
        const typing = step.action.type === 'type';
        this.note(this.eventStep(step), `step ${step.index}: its effect did not appear (${effect.detail}); ${typing ? 'looking once more (typing is not repeated)' : 'looking once more before trying once more'}`);
        // A busy application may not have begun to draw the effect when the screen first looked
        // settled: looked at once more before anything is done again (a form is not sent twice).
        const again = await this.effectOf(step, this.groupBefore);
        if ('ending' in again) return { decided: decision, ending: again.ending, modelCalls };
        if (again.appeared) return { decided: decision, modelCalls };
        // Typing is never done twice: the step is diverged.
        if (typing) afterEffect = `its effect did not appear (${again.detail})`;
        screen = this.current;
        continue;
      }
      afterEffect = `its effect did not appear, twice (${effect.detail})`;
      screen = this.current;
    }
  }

  private shownThought(step: WorkflowStep, decision: Decided): string | null {
    if (decision.decision === 'grounded') return decision.prediction.thought;
    return step.thought === null ? null : fillText(step.thought, this.shownValues);
  }

  /**
   * Gathers evidence until `decideStep` decides (or the run must end). Before the step leaves the
   * cheap path (a model call, or a stop), the screen is looked at once more after it settles: a
   * busy application may not have drawn the previous step yet (its focus ring still elsewhere), and
   * a capture of that is no reason to ask the model. Before the run's first action it keeps
   * looking for a while when asked to (`firstLookPatienceMs`): an application started for the run
   * (a private desktop's --app) may show its window before its page. The screen decided on comes
   * back with it.
   */
  private async decide(
    step: WorkflowStep,
    first: Screen | null,
    afterEffect: string | undefined,
  ): Promise<{ decision: Decided; screen: Screen | null; modelCalls: number } | { ending: Ending; modelCalls: number }> {
    let screen = first;
    let gathered = await this.gather(step, screen, afterEffect);
    if ('ending' in gathered) return { ending: gathered.ending, modelCalls: 0 };
    let { evidence, patches } = gathered;
    // Looks again: once, or before anything was done until the patience asked for ran out.
    const patience = this.acted ? 0 : (this.options.firstLookPatienceMs ?? 0);
    const patient = patience > 0;
    const until = this.now() + patience;
    let looks = afterEffect !== undefined ? 1 : 0;
    let modelCalls = 0;
    let prediction: Decided['prediction'] = { thought: null, usage: ZERO_USAGE, attempts: 0 };
    let words = new Map<string, Promise<OcrWord[]>>();
    for (;;) {
      const { decision, foundBy } = decideStepFound(evidence, this.thresholds);
      if (this.signal.aborted) return { ending: STOPPED, modelCalls };
      const costly = ('decision' in decision && decision.decision === 'stopped') || ('need' in decision && decision.need === 'model');
      if (costly && screen && step.anchors.length > 0 && afterEffect === undefined && (looks === 0 || (patient && this.now() < until))) {
        if (looks === 0 && patient) this.note(this.eventStep(step), `step ${step.index}: its target is not where it was recorded yet; looking again for up to ${Math.round(patience / 1000)} s before anything is done (an application started for the run may still be drawing)`);
        looks++;
        const again = await this.lookAgain(this.eventStep(step));
        if ('ending' in again) return { ending: again.ending, modelCalls };
        screen = again;
        gathered = await this.gather(step, screen, afterEffect);
        if ('ending' in gathered) return { ending: gathered.ending, modelCalls };
        ({ evidence, patches } = gathered);
        words = new Map();
        continue;
      }
      if ('decision' in decision) return { decision: { ...decision, ...(foundBy ? { foundBy } : {}), prediction }, screen, modelCalls };
      if (decision.need === 'model') {
        const grounded = await this.ground(step, screen, decision.why);
        if (grounded.called) modelCalls++;
        if ('ending' in grounded) return { ending: grounded.ending, modelCalls };
        evidence.grounding = grounded.grounding;
        prediction = grounded.prediction;
      } else if (decision.need === 'elements') {
        const found = await this.findElements(step, screen as Screen);
        for (const [i, target] of evidence.targets.entries()) target.element ??= found[i] ?? { found: false, why: 'no element recorded' };
      } else if (decision.need === 'search') {
        for (const [i, target] of evidence.targets.entries()) target.search ??= this.search(step, i, screen as Screen, patches[i] as GreyImage);
      } else {
        for (const [i, target] of evidence.targets.entries()) {
          if (target.text !== undefined) continue;
          target.text = await this.readText(step, i, target, screen as Screen, words);
        }
      }
    }
  }

  /** The cheap evidence: each target's patch compared where it was recorded and where the previous target moved to. */
  private async gather(step: WorkflowStep, screen: Screen | null, afterEffect: string | undefined): Promise<{ evidence: StepEvidence; patches: GreyImage[] } | { ending: Ending }> {
    const evidence: StepEvidence = {
      step: step.index,
      description: step.description,
      targets: [],
      policy: this.options.policy,
      ...(afterEffect !== undefined ? { afterEffect } : {}),
    };
    const patches: GreyImage[] = [];
    if (!screen) return { evidence, patches };
    for (const anchor of step.anchors) {
      const patch = await this.image(anchor.patch.image);
      if (!patch) return { ending: { status: 'failed', reason: `the workflow's file ${anchor.patch.image.file} is missing or damaged` } };
      patches.push(patch.grey);
      const offset = this.offset;
      const moved = offset.x !== 0 || offset.y !== 0;
      // The element's inside, in patch pixels: what was typed into it may differ.
      const inside = anchor.face ? { ...anchor.face, x: anchor.face.x - anchor.patch.rect.x, y: anchor.face.y - anchor.patch.rect.y } : undefined;
      evidence.targets.push({
        label: `${anchor.role} at ${at(anchor.point)}`,
        recorded: anchor.point,
        inPlace: compareAt(screen.grey, patch.grey, anchor.patch.rect.x, anchor.patch.rect.y, inside),
        shifted: moved ? { ...compareAt(screen.grey, patch.grey, anchor.patch.rect.x + offset.x, anchor.patch.rect.y + offset.y, inside), offset } : null,
        textAnchors: anchor.text.length,
        ...(anchor.element && this.deps.elements ? { hasElement: true } : {}),
      });
    }
    return { evidence, patches };
  }

  /** The screen once more, after it settles, recorded as the step's observation. */
  private async lookAgain(step: number): Promise<Screen | { ending: Ending }> {
    const settling = this.now();
    await this.life.settle(this.options.capture?.display, this.options.settle ?? DEFAULT_SETTLE);
    this.timings.settle += this.now() - settling;
    if (this.signal.aborted) return { ending: STOPPED };
    return this.screenFor(step, true, 'again');
  }

  /**
   * Each target's recorded element in the tree now (one snapshot of the active window, taken with
   * the screen's frame): its place on the screen's image, or why it is not found.
   */
  private async findElements(step: WorkflowStep, screen: Screen): Promise<Array<ElementFinding | undefined>> {
    const tree = this.deps.elements;
    if (!tree) return step.anchors.map(() => undefined);
    const frame = screen.observation.frame;
    const taken = await tree.snapshot({ frame });
    if (!taken.ok) return step.anchors.map((anchor) => (anchor.element ? { found: false, why: `the accessibility tree was not read (${taken.message})` } : undefined));
    const { elements } = taken.snapshot;
    const scale = this.recordedScale;
    const findings: Array<ElementFinding | undefined> = [];
    for (const anchor of step.anchors) {
      const recorded = anchor.element;
      if (!recorded) {
        findings.push(undefined);
        continue;
      }
      const candidates = sameRoleAndName(elements, recorded);
      // The paths are asked only to tell look-alikes apart (a call per parent).
      const paths = new Map<string, string[]>();
      if (candidates.length > 1) for (const candidate of candidates) paths.set(candidate.ref, await tree.ancestry(candidate.ref));
      const chosen = chooseElement(recorded, candidates, paths);
      if (!chosen.ok) {
        findings.push({ found: false, why: chosen.why });
        continue;
      }
      const box = chosen.element.imageBounds;
      if (!box) {
        findings.push({ found: false, why: `the element ${elementLabel(recorded)} is off the screen` });
        continue;
      }
      const point = pointOnElement(anchor.point, recordedImageBox(recorded.bounds, scale), box);
      findings.push({ found: true, point, how: `${chosen.how} at ${at(point)}` });
    }
    return findings;
  }

  private search(step: WorkflowStep, i: number, screen: Screen, patch: GreyImage): TargetEvidence['search'] {
    const anchor = step.anchors[i];
    if (!anchor) return [];
    const dx = anchor.point.x - anchor.patch.rect.x;
    const dy = anchor.point.y - anchor.patch.rect.y;
    return searchTemplate(screen.grey, patch).map((match) => ({ point: { x: match.x + dx, y: match.y + dy }, score: match.score }));
  }

  /**
   * Where the words on and near the target place it. Among look-alikes: read around each of them.
   * Restyled (no look-alike): on and around the faces of about the recorded size (tesseract misses
   * boxed text on a whole screen, and reading one takes seconds); a target on no face: the whole
   * screen.
   */
  private async readText(step: WorkflowStep, i: number, target: TargetEvidence, screen: Screen, cache: Map<string, Promise<OcrWord[]>>): Promise<TargetEvidence['text']> {
    const anchor = step.anchors[i];
    if (!anchor || anchor.text.length === 0) return null;
    const size = { width: screen.grey.width, height: screen.grey.height };
    const rect = anchor.patch.rect;
    const alike = (target.search ?? []).filter((candidate) => candidate.score >= this.thresholds.matchNcc).slice(0, 4);
    const reads: Array<{ region: Rect; mode: ReadMode }> = [];
    if (alike.length > 0) {
      for (const candidate of alike) {
        const dx = candidate.point.x - anchor.point.x;
        const dy = candidate.point.y - anchor.point.y;
        reads.push({ region: textRegion({ ...rect, x: Math.max(0, rect.x + dx), y: Math.max(0, rect.y + dy) }, size), mode: 'region' });
        if (anchor.face) reads.push({ region: { ...anchor.face, x: anchor.face.x + dx, y: anchor.face.y + dy }, mode: 'caption' });
      }
    } else if (anchor.face) {
      // Restyled: where faces of about its size are, its caption on them, its labels beside them.
      for (const face of facesLike(screen.grey, anchor.face, undefined, 6)) {
        if (anchor.text.some((word) => word.inside)) reads.push({ region: face, mode: 'caption' });
        if (anchor.text.some((word) => !word.inside)) reads.push({ region: textRegion(face, size), mode: 'region' });
      }
    } else {
      reads.push({ region: { x: 0, y: 0, ...size }, mode: 'region' });
    }
    const words: OcrWord[] = [];
    for (const { region, mode } of reads) {
      const key = `${mode}:${region.x},${region.y},${region.width},${region.height}`;
      let read = cache.get(key);
      if (!read) {
        read = this.deps.reader.read(screen.observation.image, region, mode).catch(() => []);
        cache.set(key, read);
      }
      // Regions around look-alikes may overlap: a word read twice is one word.
      for (const word of await read) if (!words.some((w) => w.text === word.text && Math.abs(w.box.x - word.box.x) < 3 && Math.abs(w.box.y - word.box.y) < 3)) words.push(word);
    }
    return locateByText(anchor.text, words);
  }

  /** The model finds this step's target on the live screen (one call). */
  private async ground(
    step: WorkflowStep,
    screen: Screen | null,
    why: string,
  ): Promise<({ grounding: Grounding; prediction: Decided['prediction'] } | { ending: Ending }) & { called: boolean }> {
    const none = { thought: null, usage: ZERO_USAGE, attempts: 0 };
    const model = this.deps.model;
    const targets = actionPoints(step.action).length;
    if (!model || !screen) return { grounding: { ok: false, reason: 'no model to ask' }, prediction: none, called: false };
    if (step.anchors.length === 0 || targets === 0) return { grounding: { ok: false, reason: 'the step has no target on the screen for the model to find' }, prediction: none, called: false };
    const before = step.before ? await this.image(step.before) : null;
    const recorded: ModelImage | null = before && step.before ? { image: before.bytes, mime: step.before.mime, width: step.before.width, height: step.before.height } : null;
    const asked = this.now();
    const result = await reground(
      model,
      {
        task: fillText(this.workflow.description, this.shownValues),
        step: step.index,
        thought: step.thought === null ? null : fillText(step.thought, this.shownValues),
        actions: [fillAction(step.action, this.shownValues)],
        recorded,
        live: modelImageOf(screen.observation),
        difference: why,
      },
      this.signal,
      (delta, attempt) => this.life.thought(this.eventStep(step), delta, attempt),
    );
    this.timings.model += this.now() - asked;
    if (!result.ok) {
      if (result.usage) this.life.spend(result.usage);
      if (result.aborted) return { ending: { status: 'aborted', reason: 'stopped by the user during a model call' }, called: true };
      this.life.emit({ type: 'model-error', step: this.eventStep(step), kind: 'reground', message: result.reason, consecutive: 1, limit: 1 });
      return { grounding: { ok: false, reason: result.reason }, prediction: none, called: true };
    }
    const usage = { inputTokens: result.prediction.usage.inputTokens, outputTokens: result.prediction.usage.outputTokens, costUsd: result.prediction.usage.costUsd };
    this.life.spend(usage);
    const prediction = { thought: result.prediction.thought, usage, attempts: result.prediction.attempts };
    // The model's place for our action: its action of the same kind, else its first that points somewhere.
    const answer = result.actions.find((action) => action.type === step.action.type && actionPoints(action).length > 0) ?? result.actions.find((action) => actionPoints(action).length > 0);
    if (!answer) return { grounding: { ok: false, reason: `the model answered ${result.actions.map((action) => describeAction(action)).join(', then ')}, with no place to act` }, prediction, called: true };
    const points = actionPoints(answer);
    const found = step.anchors.length > 1 ? [points[0] as Point, points.at(-1) as Point] : [points[0] as Point];
    return { grounding: { ok: true, points: found, detail: describeAction(answer) }, prediction, called: true };
  }

  /** Waits for the screen to settle, captures it, and compares the change with the recorded one. */
  private async effectOf(step: WorkflowStep, before: Screen | null): Promise<{ appeared: boolean; detail: string } | { ending: Ending }> {
    const settling = this.now();
    await this.life.settle(this.options.capture?.display, this.options.settle ?? DEFAULT_SETTLE);
    this.timings.settle += this.now() - settling;
    if (this.signal.aborted) return { ending: STOPPED };
    const captured = await this.observe();
    if ('ending' in captured) return captured;
    this.current = captured;
    const recordedBefore = step.before ? await this.image(step.before) : null;
    const recordedAfter = step.after ? await this.image(step.after) : null;
    if (!recordedBefore || !recordedAfter || !before) return { appeared: true, detail: 'nothing recorded to compare with' };
    return checkEffect({ before: recordedBefore.grey, after: recordedAfter.grey, nextTargets: this.nextTargets(step) }, { before: before.grey, after: captured.grey }, this.offset);
  }

  /** Recorded image pixels per recorded screen pixel. */
  private get recordedScale(): { x: number; y: number } {
    return { x: this.workflow.image.width / this.workflow.screen.width, y: this.workflow.image.height / this.workflow.screen.height };
  }

  /** The boxes, on the recorded image, of what the step after `step` acted on: its elements', else the faces under its points. */
  private nextTargets(step: WorkflowStep): Rect[] {
    const next = this.workflow.steps[this.workflow.steps.indexOf(step) + 1];
    return (next?.anchors ?? []).flatMap((anchor) => (anchor.element ? [recordedImageBox(anchor.element.bounds, this.recordedScale)] : anchor.face ? [anchor.face] : []));
  }

  /**
   * The screen for a step: the capture left by the previous step when there is one (unless a
   * fresh one is wanted), else a new capture; recorded as the step's observation (`part`: a
   * second look at the step, kept beside the first).
   */
  private async screenFor(step: number, fresh: boolean, part?: string): Promise<Screen | { ending: Ending }> {
    let screen = !fresh ? this.current : null;
    if (!screen) {
      const captured = await this.observe();
      if ('ending' in captured) return captured;
      screen = captured;
    }
    const { observation } = screen;
    const image = modelImageOf(observation);
    screen.ref = this.life.recorder.saveScreenshot(step, observation.image, image.mime, image, { part });
    this.life.emit({ type: 'observation', step, screenshot: screen.ref, frame: observation.frame });
    this.current = screen;
    return screen;
  }

  /** A capture at the recording's scale (image pixels per screen pixel), whatever the screen's size. */
  private async observe(): Promise<Screen | { ending: Ending }> {
    const started = this.now();
    try {
      return await this.captureAtScale();
    } finally {
      this.timings.observe += this.now() - started;
    }
  }

  private async captureAtScale(): Promise<Screen | { ending: Ending }> {
    let captured = await this.life.operator.observe(this.capture);
    if (captured.ok && !this.scaleChecked) {
      this.scaleChecked = true;
      const { bounds } = captured.observation.frame;
      const { screen, image } = this.workflow;
      if (bounds.width !== screen.width || bounds.height !== screen.height) {
        const scale = image.width / screen.width;
        this.capture = { ...this.capture, maxWidth: Math.round(bounds.width * scale), maxHeight: Math.round(bounds.height * scale) };
        captured = await this.life.operator.observe(this.capture);
      }
    }
    if (!captured.ok) return { ending: { status: 'failed', reason: `could not capture the screen: ${captured.message}` } };
    this.frame = captured.observation.frame;
    return { observation: captured.observation, grey: await decodeGrey(captured.observation.image), ref: null };
  }

  private image(image: WorkflowImage): Promise<{ bytes: Buffer; grey: GreyImage } | null> {
    let loaded = this.images.get(image.file);
    if (!loaded) {
      loaded = this.deps.files(image).then(async (bytes) => (bytes ? { bytes, grey: await decodeGrey(bytes) } : null)).catch(() => null);
      this.images.set(image.file, loaded);
    }
    return loaded;
  }

  private ask(step: number, request: AskRequest): Promise<string | null> {
    return this.life.ask(step, request);
  }

  private note(step: number, message: string): void {
    this.life.emit({ type: 'note', step, message });
  }
}
