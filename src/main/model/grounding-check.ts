/**
 * The grounding check (`mnemo check-model --grounding`, "Check grounding" in Settings): the model
 * is shown N synthetic screenshots of the run's image size, each with one labelled button at a
 * random place, and asked in its family's own protocol (its own `predict`, the request a run would
 * send) to click it. The points it answers are read as it wrote them, and the space that explains
 * them is found (grounding.ts). A reply refused by the configured space (a point off its grid) is
 * still read: that is exactly the answer the check is for.
 */
import { loadSharp } from '../image/sharp';
import { actionPoints, type Point } from '../../shared/actions';
import type { Size } from '../../shared/frame';
import { takesCoordinates } from '../../shared/model-families';
import { parseReply, type CoordinateSpace, type ImageSize, type ModelCoordinates, type ModelFamily } from './families';
import { groundingTask, placeTargets, scoreGrounding, targetSvg, type GroundingReport, type GroundingTarget } from './grounding';
import { coordinateFrameOf } from './speak';
import type { ModelErrorKind, ModelImage, VisionModel } from './types';

export interface GroundingCheckOptions {
  /** How many targets (screenshots, model calls). */
  targets: number;
  /** The image a run sends, and the screen it shows. */
  image: ImageSize;
  screen: Size;
  /** The placement's random source (tests pass a seeded one). */
  random?: () => number;
  /** Said with the result, e.g. that no display answered and the screen is assumed. */
  note?: string;
  signal?: AbortSignal;
}

/** What to change when the model answers in another space than the one configured. */
export interface GroundingFix {
  flag: string;
  config: string;
}

export type GroundingCheckOutcome =
  | {
      ok: true;
      report: GroundingReport;
      /** The configured space's mean distance to the targets' centres (screen pixels). */
      configuredMeanErrorPx: number | null;
      image: ImageSize;
      screen: Size;
      /** Null when the spaces agree, or when the family's protocol fixes its space (no setting to change). */
      fix: GroundingFix | null;
      note?: string;
    }
  | { ok: false; message: string; status?: number };

/** Failures of the provider, not of a reply: the check stops and says them as check-model does. */
const PROVIDER_FAILURES = new Set<ModelErrorKind>(['auth', 'not_found', 'http', 'network', 'timeout', 'aborted']);

export interface GroundingCheckDeps {
  model: VisionModel;
  /** The resize bounds of the model's settings (for scoring `smart-resize`). */
  smartResize?: ModelCoordinates['smartResize'];
  /** SVG → PNG (default: sharp). */
  render?: (svg: string) => Promise<Buffer>;
}

const renderPng = async (svg: string) => (await loadSharp())(Buffer.from(svg)).png().toBuffer();

/** The first point of a reply, as the model wrote it (in whatever space); null when it holds none. */
export function answerPoint(family: ModelFamily, raw: string | undefined): Point | null {
  if (raw === undefined || raw.trim() === '') return null;
  const parsed = parseReply(family, raw, { raw: true });
  if (!parsed.ok) return null;
  for (const action of parsed.actions) {
    const [point] = actionPoints(action);
    if (point) return point;
  }
  return null;
}

export async function runGroundingCheck(deps: GroundingCheckDeps, options: GroundingCheckOptions): Promise<GroundingCheckOutcome> {
  const { model } = deps;
  const render = deps.render ?? renderPng;
  const configured = coordinateFrameOf(model, options.image).space;
  const targets: GroundingTarget[] = placeTargets(options.image, options.targets, options.random);
  const answers: Array<Point | null> = [];
  for (const target of targets) {
    const observation: ModelImage = { image: await render(targetSvg(options.image, target)), mime: 'image/png', ...options.image };
    const prediction = await model.predict({ task: groundingTask(target), history: [], observation }, options.signal);
    if (!prediction.ok && PROVIDER_FAILURES.has(prediction.error.kind)) {
      return { ok: false, message: prediction.error.message, ...(prediction.error.status !== undefined ? { status: prediction.error.status } : {}) };
    }
    answers.push(answerPoint(model.family, prediction.ok ? prediction.raw : prediction.error.raw));
  }
  const geometry = { image: options.image, screen: options.screen, ...(deps.smartResize ? { smartResize: deps.smartResize } : {}) };
  const { report, scores } = scoreGrounding(targets, answers, configured, geometry);
  return {
    ok: true,
    report,
    configuredMeanErrorPx: scores[configured].meanErrorPx === null ? null : Math.round((scores[configured].meanErrorPx as number) * 10) / 10,
    image: options.image,
    screen: options.screen,
    fix: report.detected !== configured && takesCoordinates(model.family) ? fixFor(report.detected) : null,
    ...(options.note ? { note: options.note } : {}),
  };
}

export function fixFor(space: CoordinateSpace): GroundingFix {
  return { flag: `--coordinates ${space}`, config: `"model": { "coordinates": "${space}" }` };
}
