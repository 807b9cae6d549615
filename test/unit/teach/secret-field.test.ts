/**
 * Where typing went when no click said so: the places the screen changed between the capture
 * before the typing and one after it, each read for the words next to it. The screens are real
 * JPEGs (sharp) of a form with two fields; the reader answers with the labels its region covers,
 * as OCR would.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Rect } from '../../../src/shared/frame';
import { decodeGrey } from '../../../src/main/replay/divergence';
import { anyRegionNamesASecret, changedPlaces, typedRegions } from '../../../src/main/teach/secret-field';
import type { OcrWord, TextReader } from '../../../src/main/workflow/ocr';

const SIZE = { width: 960, height: 600 };
const NAME_FIELD: Rect = { x: 500, y: 60, width: 330, height: 24 };
const PASSWORD_FIELD: Rect = { x: 500, y: 160, width: 330, height: 24 };
/** Where each field's label is drawn (above it), and what it says. */
const LABELS: Array<{ box: Rect; text: string }> = [
  { box: { x: 500, y: 40, width: 60, height: 14 }, text: 'Name' },
  { box: { x: 500, y: 140, width: 80, height: 14 }, text: 'Password' },
];

interface Drawing {
  /** The focused field: a blue ring around it. */
  focus?: Rect;
  /** Dots typed into a field: [field, how many]. */
  dots?: [Rect, number];
  /** Another screen altogether. */
  dark?: boolean;
}

const rect = (r: Rect, fill: string, extra = '') => `<rect x="${r.x}" y="${r.y}" width="${r.width}" height="${r.height}" fill="${fill}" ${extra}/>`;

async function screen(drawing: Drawing = {}): Promise<Buffer> {
  const parts = [rect({ x: 0, y: 0, ...SIZE }, drawing.dark ? '#202830' : '#f4f4f4')];
  for (const label of LABELS) parts.push(rect(label.box, '#667'));
  for (const field of [NAME_FIELD, PASSWORD_FIELD]) parts.push(rect(field, '#fff', 'stroke="#667" stroke-width="1"'));
  if (drawing.focus) parts.push(rect(drawing.focus, 'none', 'stroke="#36c" stroke-width="2"'));
  if (drawing.dots) {
    const [field, count] = drawing.dots;
    for (let i = 0; i < count; i++) parts.push(`<circle cx="${field.x + 10 + i * 10}" cy="${field.y + field.height / 2}" r="3" fill="#000"/>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE.width}" height="${SIZE.height}">${parts.join('')}</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 80 }).toBuffer();
}

const overlaps = (a: Rect, b: Rect) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (r: Rect, point: { x: number; y: number }) => point.x >= r.x && point.x < r.x + r.width && point.y >= r.y && point.y < r.y + r.height;

/** Answers with the labels the region read covers; keeps the regions. */
function labelReader(): TextReader & { regions: Rect[] } {
  const regions: Rect[] = [];
  return {
    regions,
    async read(_image: Buffer, region: Rect): Promise<OcrWord[]> {
      regions.push(region);
      return LABELS.filter((label) => overlaps(label.box, region)).map((label) => ({ text: label.text, confidence: 95, box: label.box }));
    },
    async close() {},
  };
}

describe('changedPlaces', () => {
  it('finds the dots typed into a field, and nothing else', async () => {
    const places = changedPlaces(await decodeGrey(await screen({ focus: PASSWORD_FIELD })), await decodeGrey(await screen({ focus: PASSWORD_FIELD, dots: [PASSWORD_FIELD, 8] })));
    expect(places).toHaveLength(1);
    const [place] = places as [Rect];
    expect(inside(PASSWORD_FIELD, { x: place.x + place.width / 2, y: place.y + place.height / 2 })).toBe(true);
  });

  it('a focus that moved as well: the field left and the field reached are both places', async () => {
    const places = changedPlaces(await decodeGrey(await screen({ focus: NAME_FIELD })), await decodeGrey(await screen({ focus: PASSWORD_FIELD, dots: [PASSWORD_FIELD, 3] })));
    expect(places.some((place) => overlaps(place, NAME_FIELD))).toBe(true);
    expect(places.some((place) => overlaps(place, PASSWORD_FIELD))).toBe(true);
  });

  it('none when nothing changed, when another screen came, or when the sizes differ', async () => {
    const form = await decodeGrey(await screen());
    expect(changedPlaces(form, form)).toEqual([]);
    expect(changedPlaces(form, await decodeGrey(await screen({ dark: true })))).toEqual([]);
    const smaller = await decodeGrey(await sharp(await screen()).resize(480).toBuffer());
    expect(changedPlaces(form, smaller)).toEqual([]);
  });
});

/** Did the typing from `before` to `after` go into a field whose label names a secret? */
async function typedIntoSecretPlace(before: Buffer, after: Buffer, reader: TextReader): Promise<boolean> {
  return anyRegionNamesASecret(after, await typedRegions(before, after), reader);
}

describe('the places typed into, read', () => {
  it('dots in the field labelled Password: a secret', async () => {
    const reader = labelReader();
    expect(await typedIntoSecretPlace(await screen({ focus: PASSWORD_FIELD }), await screen({ focus: PASSWORD_FIELD, dots: [PASSWORD_FIELD, 8] }), reader)).toBe(true);
    expect(reader.regions).toHaveLength(1);
  });

  it('text in the field labelled Name: not a secret', async () => {
    const reader = labelReader();
    expect(await typedIntoSecretPlace(await screen({ focus: NAME_FIELD }), await screen({ focus: NAME_FIELD, dots: [NAME_FIELD, 5] }), reader)).toBe(false);
    expect(reader.regions.length).toBeGreaterThan(0);
  });

  it('nothing changed (no place to read): not a secret, and nothing is read', async () => {
    const reader = labelReader();
    const form = await screen();
    expect(await typedIntoSecretPlace(form, form, reader)).toBe(false);
    expect(reader.regions).toEqual([]);
  });
});
