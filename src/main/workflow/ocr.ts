/**
 * Reading the words on a part of a screenshot, offline: tesseract.js with the English data that
 * ships in `@tesseract.js-data/eng` (no download: the language data, the worker script and the
 * WebAssembly core are all read from node_modules).
 *
 * UI text is small and often boxed: the region is enlarged (three times, twice for a large one) and framed with its own
 * background before it is read (tesseract takes a box's border for a line and drops the text
 * inside it), and light text on a dark face is inverted. Two ways to read: `caption`, the face of
 * one element (a button's caption, one block), and `region`, an area with words scattered in it
 * (labels). The words come back in the screenshot's own pixels.
 *
 * One worker per reader, started at the first read (about a second) and kept until `close()`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { loadSharp } from '../image/sharp';
import type { Worker } from 'tesseract.js';
import type { Rect } from '../../shared/frame';

export interface OcrWord {
  text: string;
  /** 0-100, tesseract's confidence. */
  confidence: number;
  /** In pixels of the image that was read. */
  box: Rect;
}

export type ReadMode = 'caption' | 'region';

export interface TextReader {
  /** The words in `region` of an encoded image (JPEG, PNG), in that image's pixels. */
  read(image: Buffer, region: Rect, mode: ReadMode): Promise<OcrWord[]>;
  close(): Promise<void>;
}

const ENLARGE = 3;
/** A large region (a whole screen) is enlarged less: its time grows with its pixels. */
const LARGE = 250_000;
const FRAME = 12;

/** The folder holding eng.traineddata.gz (the integer LSTM model: tesseract.js's own default). */
export function englishDataPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

export class TesseractReader implements TextReader {
  private worker: Promise<Worker> | null = null;
  private psm: ReadMode | null = null;
  /** One read at a time: the page segmentation mode is the worker's state. */
  private queue: Promise<unknown> = Promise.resolve();

  private start(): Promise<Worker> {
    this.worker ??= (async () => {
      const tesseract = await import('tesseract.js');
      return tesseract.createWorker('eng', tesseract.OEM.LSTM_ONLY, {
        langPath: englishDataPath(),
        gzip: true,
        // Nothing written: the data is read from node_modules every time.
        cacheMethod: 'none',
        logger: () => undefined,
        errorHandler: () => undefined,
      });
    })();
    return this.worker;
  }

  read(image: Buffer, region: Rect, mode: ReadMode): Promise<OcrWord[]> {
    const read = this.queue.then(() => this.readNow(image, region, mode));
    this.queue = read.catch(() => undefined);
    return read;
  }

  private async readNow(image: Buffer, region: Rect, mode: ReadMode): Promise<OcrWord[]> {
    const sharp = await loadSharp();
    const source = sharp(image);
    const { width = 0, height = 0 } = await source.metadata();
    const area = clampRect(region, { width, height });
    if (area.width < 4 || area.height < 4) return [];
    const grey = await source.extract({ left: area.x, top: area.y, width: area.width, height: area.height }).greyscale().raw().toBuffer();
    let total = 0;
    for (const value of grey) total += value;
    const dark = total / grey.length < 128;
    let prepared = sharp(grey, { raw: { width: area.width, height: area.height, channels: 1 } });
    if (dark) prepared = prepared.negate();
    const enlarge = area.width * area.height > LARGE ? 2 : ENLARGE;
    const enlarged = await prepared
      .resize({ width: area.width * enlarge, height: area.height * enlarge, kernel: 'lanczos3' })
      .extend({ top: FRAME, bottom: FRAME, left: FRAME, right: FRAME, extendWith: 'copy' })
      .png()
      .toBuffer();
    const worker = await this.start();
    if (this.psm !== mode) {
      const { PSM } = await import('tesseract.js');
      // A resolution given keeps tesseract from estimating one and printing that it did (on stdout).
      await worker.setParameters({ tessedit_pageseg_mode: mode === 'caption' ? PSM.SINGLE_BLOCK : PSM.AUTO, user_defined_dpi: '300' });
      this.psm = mode;
    }
    const result = await worker.recognize(enlarged, {}, { blocks: true, text: false });
    const words: OcrWord[] = [];
    for (const block of result.data.blocks ?? []) {
      for (const paragraph of block.paragraphs) {
        for (const line of paragraph.lines) {
          for (const word of line.words) {
            const { x0, y0, x1, y1 } = word.bbox;
            words.push({
              text: word.text,
              confidence: word.confidence,
              box: { x: area.x + (x0 - FRAME) / enlarge, y: area.y + (y0 - FRAME) / enlarge, width: (x1 - x0) / enlarge, height: (y1 - y0) / enlarge },
            });
          }
        }
      }
    }
    return words;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.psm = null;
    if (worker) await (await worker.catch(() => null))?.terminate();
  }
}

export function clampRect(rect: Rect, size: { width: number; height: number }): Rect {
  const x = Math.max(0, Math.min(size.width, Math.round(rect.x)));
  const y = Math.max(0, Math.min(size.height, Math.round(rect.y)));
  return {
    x,
    y,
    width: Math.max(0, Math.min(size.width - x, Math.round(rect.width + rect.x - x))),
    height: Math.max(0, Math.min(size.height - y, Math.round(rect.height + rect.y - y))),
  };
}

/** A word as it is compared: lower case, letters and digits only (OCR drops or adds punctuation). */
export function normalizeWord(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}
