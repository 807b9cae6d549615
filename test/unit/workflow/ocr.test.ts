/**
 * The OCR the workflows use, for real: tesseract.js with the English data from node_modules, on
 * a rendered screen. Small boxed captions and light text on a dark face are read; the words come
 * back in the screenshot's pixels; nothing is downloaded or written.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { englishDataPath, normalizeWord, TesseractReader } from '../../../src/main/workflow/ocr';

const reader = new TesseractReader();
afterAll(() => reader.close());

/** A 480x300 screen at the scale of a model image: a label, a field, two boxed buttons (one dark). */
async function screen(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="300">
    <rect width="480" height="300" fill="#f4f4f0"/>
    <text x="40" y="38" font-family="sans-serif" font-size="10" fill="#667">Invoice number</text>
    <rect x="40" y="44" width="220" height="22" fill="#fff" stroke="#667"/>
    <rect x="40" y="100" width="90" height="30" rx="3" fill="#dde4f4" stroke="#335" stroke-width="2"/>
    <text x="62" y="119" font-family="sans-serif" font-size="11" fill="#112">Submit</text>
    <rect x="200" y="100" width="90" height="30" rx="10" fill="#2a6a3a" stroke="#0a3" stroke-width="2"/>
    <text x="222" y="119" font-family="serif" font-weight="bold" font-size="12" fill="#fff">Cancel</text>
  </svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
}

describe('TesseractReader', () => {
  it('reads the English data shipped in node_modules', () => {
    expect(existsSync(`${englishDataPath()}/eng.traineddata.gz`)).toBe(true);
  });

  it('reads a boxed caption, light on dark too, and a label, in the screenshot pixels', async () => {
    const image = await screen();
    const submit = await reader.read(image, { x: 42, y: 102, width: 86, height: 26 }, 'caption');
    expect(submit.map((w) => normalizeWord(w.text))).toContain('submit');
    const cancel = await reader.read(image, { x: 202, y: 102, width: 86, height: 26 }, 'caption');
    expect(cancel.map((w) => normalizeWord(w.text))).toContain('cancel');
    const labels = await reader.read(image, { x: 0, y: 0, width: 300, height: 90 }, 'region');
    const number = labels.find((w) => normalizeWord(w.text) === 'number');
    expect(number, JSON.stringify(labels)).toBeDefined();
    // "number" sits at about x 80-115, y 30-38 of the screen.
    expect(number!.box.x).toBeGreaterThan(70);
    expect(number!.box.x + number!.box.width).toBeLessThan(125);
    expect(number!.box.y).toBeGreaterThan(24);
    expect(number!.box.y + number!.box.height).toBeLessThan(44);
    // Nothing cached in the working directory.
    expect(existsSync('eng.traineddata')).toBe(false);
  }, 60_000);
});
