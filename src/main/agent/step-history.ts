/**
 * The steps a run has finished, as the model is reminded of them. Screenshots are kept by
 * reference (the recorder's id and path), never as bytes: when a request is built, the pruner
 * picks the few screenshots the model still sees and only those are read back. A 1,000-step run
 * holds no more image bytes than a 3-step one.
 */
import type { ScreenshotRef } from '../../shared/events';
import type { CapturedAfter, ImageMime, ModelImage, StepRecord } from '../model/types';
import type { CompletedStep, StepCapture } from './completed-step';

interface HistoryEntry extends Omit<StepRecord, 'screenshot' | 'screenshotPlaceholder' | 'captures'> {
  screenshot: ScreenshotRef | null;
  captures?: StepCapture[];
}

/** Stands in for an image while pruning decides which ones go out (only truthiness matters there). */
const NOT_LOADED = Buffer.alloc(0);

export class StepHistory {
  private readonly entries: HistoryEntry[] = [];

  add(step: CompletedStep): void {
    this.entries.push({
      step: step.step,
      thought: step.thought,
      actions: step.actions,
      results: step.outcome,
      screenshot: step.screenshot,
      ...(step.reply !== undefined ? { reply: step.reply } : {}),
      ...(step.reports !== undefined ? { reports: step.reports } : {}),
      ...(step.captures !== undefined && step.captures.length > 0 ? { captures: step.captures } : {}),
      ...(step.notRun !== undefined ? { notRun: step.notRun } : {}),
      ...(step.zoom !== undefined ? { zoom: step.zoom } : {}),
    });
  }

  get length(): number {
    return this.entries.length;
  }

  /** The history with stand-ins for the images, for the pruner to choose from. */
  records(): StepRecord[] {
    return this.entries.map(({ screenshot, captures, ...entry }) => ({
      ...entry,
      ...(screenshot ? { screenshot: standIn(screenshot) } : {}),
      ...(captures ? { captures: captures.map(({ screenshot: image, ...capture }) => ({ ...capture, ...(image ? { image: standIn(image) } : {}) })) } : {}),
    }));
  }

  /** Reads back the images of the steps that kept theirs (the pruned history the model is sent). */
  async withImages(pruned: readonly StepRecord[], read: (ref: ScreenshotRef) => Promise<Buffer>): Promise<StepRecord[]> {
    const byStep = new Map(this.entries.map((entry) => [entry.step, entry]));
    return Promise.all(
      pruned.map(async (record) => {
        const entry = byStep.get(record.step);
        const ref = entry?.screenshot;
        if (!record.screenshot || !ref) return { ...record, ...(record.captures ? { captures: record.captures.map((capture) => withoutImage(capture, record)) } : {}) };
        const captures = record.captures ? await Promise.all(record.captures.map((capture) => loadCapture(capture, entry?.captures, read))) : undefined;
        try {
          return { ...record, screenshot: { ...record.screenshot, image: await read(ref) }, ...(captures ? { captures } : {}) };
        } catch {
          // The file is gone (deleted under the run): the model gets the placeholder instead.
          return { ...record, screenshot: undefined, screenshotPlaceholder: `[Screenshot unavailable - Step ${record.step}]`, ...(captures ? { captures } : {}) };
        }
      }),
    );
  }
}

function standIn(ref: ScreenshotRef): ModelImage {
  return { image: NOT_LOADED, mime: ref.mime as ImageMime, width: ref.width, height: ref.height };
}

/** A capture of a step whose screenshot was pruned goes with it. */
function withoutImage(capture: CapturedAfter, record: StepRecord): CapturedAfter {
  if (!capture.image) return capture;
  const { image: _image, ...rest } = capture;
  return { ...rest, placeholder: record.screenshotPlaceholder ?? `[Screenshot removed - Step ${record.step}]` };
}

async function loadCapture(capture: CapturedAfter, kept: readonly StepCapture[] | undefined, read: (ref: ScreenshotRef) => Promise<Buffer>): Promise<CapturedAfter> {
  const ref = kept?.find((candidate) => candidate.afterAction === capture.afterAction)?.screenshot;
  if (!capture.image || !ref) return capture;
  try {
    return { ...capture, image: { ...capture.image, image: await read(ref) } };
  } catch {
    const { image: _image, ...rest } = capture;
    return { ...rest, placeholder: `[Screenshot unavailable - ${ref.id}]` };
  }
}
