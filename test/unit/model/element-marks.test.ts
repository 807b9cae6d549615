/**
 * Set-of-marks drawn where the elements are: each box's outline in its colour on the image the
 * model gets, the label above it with its number in white, the element's inside untouched; at a
 * 1280x800 screen sent whole and at a 1920x1080 screen sent as 1280x720 and whole.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { drawElementMarks, MARK_COLOURS, markLayout, withElementMarks } from '../../../src/main/model/element-marks';
import type { ModelImage } from '../../../src/main/model/types';
import { formSnapshot } from '../../fixtures/elements/form-snapshot';

async function whiteImage(width: number, height: number, mime: ModelImage['mime'] = 'image/png'): Promise<ModelImage> {
  const base = sharp({ create: { width, height, channels: 3, background: { r: 255, g: 255, b: 255 } } });
  const image = mime === 'image/png' ? await base.png().toBuffer() : await base.jpeg({ quality: 90 }).toBuffer();
  return { image, mime, width, height };
}

async function pixelsOf(image: ModelImage) {
  const { data, info } = await sharp(image.image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at(x: number, y: number) {
      const offset = (Math.round(y) * info.width + Math.round(x)) * 3;
      return { r: data[offset] ?? 0, g: data[offset + 1] ?? 0, b: data[offset + 2] ?? 0 };
    },
  };
}

function rgbOf(hex: string) {
  return { r: parseInt(hex.slice(1, 3), 16), g: parseInt(hex.slice(3, 5), 16), b: parseInt(hex.slice(5, 7), 16) };
}

const near = (a: { r: number; g: number; b: number }, b: { r: number; g: number; b: number }, tolerance: number) =>
  Math.abs(a.r - b.r) <= tolerance && Math.abs(a.g - b.g) <= tolerance && Math.abs(a.b - b.b) <= tolerance;
const isWhite = (pixel: { r: number; g: number; b: number }) => pixel.r > 235 && pixel.g > 235 && pixel.b > 235;

const CASES = [
  { name: '1280x800 screen, sent whole', screen: { width: 1280, height: 800 }, image: { width: 1280, height: 800 }, mime: 'image/png' as const },
  { name: '1920x1080 screen, sent as 1280x720', screen: { width: 1920, height: 1080 }, image: { width: 1280, height: 720 }, mime: 'image/png' as const },
  { name: '1920x1080 screen, sent whole as JPEG', screen: { width: 1920, height: 1080 }, image: { width: 1920, height: 1080 }, mime: 'image/jpeg' as const },
];

describe('set-of-marks on the screenshot', () => {
  for (const { name, screen, image, mime } of CASES) {
    it(`draws each interactive element's box and numbered label where it is (${name})`, async () => {
      const snapshot = formSnapshot(screen, image);
      const marked = await drawElementMarks(await whiteImage(image.width, image.height, mime), snapshot);
      expect({ width: marked.width, height: marked.height, mime: marked.mime }).toEqual({ ...image, mime });
      const pixels = await pixelsOf(marked);
      expect({ width: pixels.width, height: pixels.height }).toEqual(image);
      const tolerance = mime === 'image/png' ? 2 : 40;
      const layout = markLayout(snapshot, image);
      expect(layout.map((mark) => mark.n)).toEqual([2, 4, 5, 6, 7]);
      for (const mark of layout) {
        const element = snapshot.elements.find((candidate) => candidate.n === mark.n);
        const box = element?.imageBounds;
        if (!box) throw new Error(`element ${mark.n} has no image box`);
        const colour = rgbOf(mark.colour);
        const edge = mark.lineWidth / 2;
        // The outline on all four sides, at the middle of each, in the element's colour.
        expect(near(pixels.at(box.x + box.width / 2, box.y + edge), colour, tolerance), `top of ${mark.n}`).toBe(true);
        expect(near(pixels.at(box.x + box.width / 2, box.y + box.height - 1 - edge), colour, tolerance), `bottom of ${mark.n}`).toBe(true);
        expect(near(pixels.at(box.x + edge, box.y + box.height / 2), colour, tolerance), `left of ${mark.n}`).toBe(true);
        expect(near(pixels.at(box.x + box.width - 1 - edge, box.y + box.height / 2), colour, tolerance), `right of ${mark.n}`).toBe(true);
        // The inside left as it was (an element bigger than its outline and label).
        if (box.width > 60 && box.height > 28) expect(isWhite(pixels.at(box.x + box.width * 0.75, box.y + box.height * 0.75)), `inside of ${mark.n}`).toBe(true);
        // The label: above the box, its corner in the colour, its middle holding white text.
        expect(mark.label.y + mark.label.height).toBeLessThanOrEqual(box.y);
        expect(near(pixels.at(mark.label.x + 1, mark.label.y + 1), colour, tolerance), `label of ${mark.n}`).toBe(true);
        let textPixels = 0;
        for (let y = mark.label.y; y < mark.label.y + mark.label.height; y++) {
          for (let x = mark.label.x; x < mark.label.x + mark.label.width; x++) if (isWhite(pixels.at(x, y))) textPixels++;
        }
        expect(textPixels, `the number of ${mark.n} is written`).toBeGreaterThan(8);
        // Legible: the label's text is at least 12 image pixels high.
        expect(mark.fontSize).toBeGreaterThanOrEqual(12);
      }
      // Away from every element, the screenshot is untouched.
      expect(isWhite(pixels.at(image.width * 0.9, image.height * 0.1))).toBe(true);
    });
  }

  it('keeps a label inside the image when the element touches its top edge', () => {
    const snapshot = formSnapshot();
    const button = snapshot.elements.find((element) => element.role === 'push button');
    if (button) button.imageBounds = { x: 1240, y: 0, width: 40, height: 30 };
    const mark = markLayout(snapshot, { width: 1280, height: 800 }).find((candidate) => candidate.n === 6);
    expect(mark?.label.y).toBe(0);
    expect((mark?.label.x ?? 0) + (mark?.label.width ?? 0)).toBeLessThanOrEqual(1280);
  });

  it('sends the marked image in marks mode only', async () => {
    const observation = await whiteImage(1280, 800);
    const snapshot = formSnapshot();
    const listed = await withElementMarks({ task: 't', history: [], observation, elements: { mode: 'list', snapshot } });
    expect(listed.observation).toBe(observation);
    const marked = await withElementMarks({ task: 't', history: [], observation, elements: { mode: 'marks', snapshot } });
    expect(marked.observation.image.equals(observation.image)).toBe(false);
    expect(marked.elements?.mode).toBe('marks');
    const broken = await withElementMarks({ task: 't', history: [], observation: { ...observation, image: Buffer.from('not an image') }, elements: { mode: 'marks', snapshot } });
    expect(broken.elements?.mode).toBe('list');
    // A zoomed region: the boxes are not where the elements are on it, so nothing is drawn.
    const zoomed = await withElementMarks({ task: 't', history: [], observation, zoom: { x: 0, y: 0, toX: 640, toY: 400 }, elements: { mode: 'marks', snapshot } });
    expect(zoomed.observation).toBe(observation);
    expect(zoomed.elements?.mode).toBe('list');
    expect(MARK_COLOURS.length).toBeGreaterThan(4);
  });
});
