/**
 * Set-of-marks (model.elements `marks`): the numbers of the element list drawn on the screenshot,
 * a box around each interactive element and a label with its number at the box's top-left corner,
 * so a model that reads the picture better than a list still names the right element.
 *
 * `markLayout` is pure (where each box and label goes, in image pixels); `drawElementMarks` draws
 * that layout over the image with sharp (one SVG layer composited), keeping its size and format.
 * Sizes follow the image, not the screen: the model sees the image, and a label must stay legible
 * on a 1280x800 image of a 1920x1080 screen as on a full-size one.
 */
import { loadSharp } from '../image/sharp';
import type { Rect } from '../../shared/frame';
import type { ElementSnapshot } from '../../shared/elements';
import { aidedElements, boxesFitObservation } from './element-aid';
import type { ModelImage, PredictInput } from './types';

/** Colours that stand apart from each other and from white or dark interfaces; white text reads on all. */
export const MARK_COLOURS = ['#d7191c', '#1a7f37', '#1f4fd1', '#c25400', '#8e24aa', '#00727a', '#8a5a00', '#c2185b'] as const;

export interface Mark {
  n: number;
  colour: string;
  /** The element's box on the image (clipped to it). */
  box: Rect;
  /** The label's rectangle, inside the image. */
  label: Rect;
  fontSize: number;
  lineWidth: number;
}

/** Label text height in image pixels: ~1/50 of the short side, 12 at least (legible), 22 at most (covers little). */
export function markFontSize(image: { width: number; height: number }): number {
  return Math.max(12, Math.min(22, Math.round(Math.min(image.width, image.height) / 50)));
}

/**
 * Where each mark goes. The label sits above the box's top-left corner when there is room (the
 * element's own text stays readable), else just inside it; it never leaves the image.
 */
export function markLayout(snapshot: ElementSnapshot, image: { width: number; height: number }): Mark[] {
  const fontSize = markFontSize(image);
  const lineWidth = Math.max(2, Math.round(Math.min(image.width, image.height) / 300));
  const labelHeight = Math.round(fontSize * 1.3);
  const marks: Mark[] = [];
  for (const element of aidedElements(snapshot)) {
    const box = clip(element.imageBounds, image);
    if (!box) continue;
    const labelWidth = Math.round(String(element.n).length * fontSize * 0.62 + fontSize * 0.5);
    const above = box.y - labelHeight >= 0;
    const x = Math.max(0, Math.min(box.x, image.width - labelWidth));
    const y = above ? box.y - labelHeight : Math.min(box.y, image.height - labelHeight);
    marks.push({ n: element.n, colour: MARK_COLOURS[(element.n - 1) % MARK_COLOURS.length] as string, box, label: { x, y, width: labelWidth, height: labelHeight }, fontSize, lineWidth });
  }
  return marks;
}

function clip(rect: Rect | undefined, image: { width: number; height: number }): Rect | undefined {
  if (!rect) return undefined;
  const x = Math.max(0, Math.round(rect.x));
  const y = Math.max(0, Math.round(rect.y));
  const right = Math.min(image.width, Math.round(rect.x + rect.width));
  const bottom = Math.min(image.height, Math.round(rect.y + rect.height));
  if (right - x < 1 || bottom - y < 1) return undefined;
  return { x, y, width: right - x, height: bottom - y };
}

/** The marks as one SVG the size of the image. */
export function marksSvg(marks: readonly Mark[], image: { width: number; height: number }): string {
  const shapes = marks.map((mark) => {
    const { box, label, lineWidth, fontSize, colour } = mark;
    // The stroke is drawn inside the box, so a box at the image's edge keeps its whole outline.
    const inset = lineWidth / 2;
    const outline = `<rect x="${box.x + inset}" y="${box.y + inset}" width="${Math.max(0, box.width - lineWidth)}" height="${Math.max(0, box.height - lineWidth)}" fill="none" stroke="${colour}" stroke-width="${lineWidth}"/>`;
    const tag = `<rect x="${label.x}" y="${label.y}" width="${label.width}" height="${label.height}" fill="${colour}"/>`;
    const text = `<text x="${label.x + label.width / 2}" y="${label.y + label.height / 2}" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif" font-weight="bold" font-size="${fontSize}" fill="#ffffff" text-anchor="middle" dominant-baseline="central">${mark.n}</text>`;
    return `${outline}${tag}${text}`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${image.width}" height="${image.height}">${shapes.join('')}</svg>`;
}

/**
 * The screenshot with the snapshot's marks drawn on it: same size and format; the image itself when
 * there is nothing to mark. The marks' layer is rasterised once and blended here, over the marks'
 * own pixels only: sharp's composite blends the whole image in floating point, several times
 * slower for a layer that is almost all transparent.
 */
export async function drawElementMarks(image: ModelImage, snapshot: ElementSnapshot): Promise<ModelImage> {
  const size = { width: image.width, height: image.height };
  const marks = markLayout(snapshot, size);
  if (marks.length === 0) return image;
  const sharp = await loadSharp();
  const [base, layer] = await Promise.all([
    sharp(image.image).removeAlpha().raw().toBuffer({ resolveWithObject: true }),
    sharp(Buffer.from(marksSvg(marks, size))).ensureAlpha().raw().toBuffer({ resolveWithObject: true }),
  ]);
  if (base.info.width !== layer.info.width || base.info.height !== layer.info.height) throw new Error(`the screenshot is ${base.info.width}x${base.info.height}, not ${image.width}x${image.height} as it says`);
  // Boxes and labels may overlap (a label inside its box, neighbours): each pixel is blended once.
  const blended = new Uint8Array(base.info.width * base.info.height);
  for (const mark of marks) {
    blendOver(base.data, layer.data, blended, base.info.width, mark.box);
    blendOver(base.data, layer.data, blended, base.info.width, mark.label);
  }
  const drawn = sharp(base.data, { raw: { width: base.info.width, height: base.info.height, channels: 3 } });
  // Full chroma: a thin coloured outline keeps its colour (4:2:0 would blur it into the page).
  const encoded = image.mime === 'image/png' ? drawn.png() : drawn.jpeg({ quality: 85, chromaSubsampling: '4:4:4' });
  return { ...image, image: await encoded.toBuffer() };
}

/** Blends the RGBA layer over the RGB image inside one rectangle, skipping the pixels `blended` says are done. */
function blendOver(rgb: Buffer, rgba: Buffer, blended: Uint8Array, width: number, rect: Rect): void {
  const right = rect.x + rect.width;
  const bottom = rect.y + rect.height;
  for (let y = rect.y; y < bottom; y++) {
    for (let x = rect.x; x < right; x++) {
      const pixel = y * width + x;
      if (blended[pixel] === 1) continue;
      blended[pixel] = 1;
      const alpha = rgba[pixel * 4 + 3] ?? 0;
      if (alpha === 0) continue;
      for (let channel = 0; channel < 3; channel++) {
        const at = pixel * 3 + channel;
        rgb[at] = Math.round(((rgba[pixel * 4 + channel] ?? 0) * alpha + (rgb[at] ?? 0) * (255 - alpha)) / 255);
      }
    }
  }
}

/**
 * The input as a family sends it: with `marks`, the observation with the marks drawn. A drawing
 * that fails (an image sharp cannot read) leaves the screenshot as it was and the aid as a
 * `list`, so the prompt never speaks of numbers the image does not show.
 */
export async function withElementMarks(input: PredictInput): Promise<PredictInput> {
  const aid = input.elements;
  if (aid?.mode !== 'marks') return input;
  if (!boxesFitObservation(input)) return { ...input, elements: { ...aid, mode: 'list' } };
  try {
    const marked = await drawElementMarks(input.observation, aid.snapshot);
    if (marked === input.observation) return { ...input, elements: { ...aid, mode: 'list' } };
    return { ...input, observation: marked };
  } catch {
    return { ...input, elements: { ...aid, mode: 'list' } };
  }
}
