/**
 * The steps a run has finished, as the model is reminded of them. Screenshots are kept by
 * reference (the recorder's id and path), never as bytes: when a request is built, the pruner
 * picks the few screenshots the model still sees and only those are read back. A 1,000-step run
 * holds no more image bytes than a 3-step one.
 */
import type { ScreenshotRef } from '../../shared/events';
import type { ImageMime, StepRecord } from '../model/types';
import type { CompletedStep } from './completed-step';

interface HistoryEntry extends Omit<StepRecord, 'screenshot' | 'screenshotPlaceholder'> {
  screenshot: ScreenshotRef | null;
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
    });
  }

  get length(): number {
    return this.entries.length;
  }

  /** The history with stand-ins for the images, for the pruner to choose from. */
  records(): StepRecord[] {
    return this.entries.map(({ screenshot, ...entry }) => ({
      ...entry,
      ...(screenshot ? { screenshot: { image: NOT_LOADED, mime: screenshot.mime as ImageMime, width: screenshot.width, height: screenshot.height } } : {}),
    }));
  }

  /** Reads back the images of the steps that kept theirs (the pruned history the model is sent). */
  async withImages(pruned: readonly StepRecord[], read: (ref: ScreenshotRef) => Promise<Buffer>): Promise<StepRecord[]> {
    const byStep = new Map(this.entries.map((entry) => [entry.step, entry.screenshot]));
    return Promise.all(
      pruned.map(async (record) => {
        const ref = byStep.get(record.step);
        if (!record.screenshot || !ref) return record;
        try {
          return { ...record, screenshot: { ...record.screenshot, image: await read(ref) } };
        } catch {
          // The file is gone (deleted under the run): the model gets the placeholder instead.
          return { ...record, screenshot: undefined, screenshotPlaceholder: `[Screenshot unavailable - Step ${record.step}]` };
        }
      }),
    );
  }
}
