import { describe, expect, it } from 'vitest';
import type { Frame } from '../../../src/shared/frame';
import { fitImageSize, imageFrame, imageToScreen, screenFrame, screenToImage, unionRect } from '../../../src/main/operator/geometry';

const SCREENS = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
  { width: 2560, height: 1440 },
  { width: 1366, height: 768 },
  { width: 3840, height: 2160 },
];
const SCALES = [1, 1.25, 1.5, 2];
const IMAGE_LIMITS = [{ maxWidth: 1280 }, { maxWidth: 1024 }, { maxWidth: 640 }, { maxPixels: 1_000_000 }, { maxWidth: 1920, maxHeight: 1080 }];
const ORIGINS = [
  { x: 0, y: 0 },
  { x: 1920, y: 0 },
  { x: -1280, y: 200 },
];

/** A display of `physical` pixels at `scale`: logical bounds are physical / scale. */
function frameFor(physical: { width: number; height: number }, scale: number, limits: object, origin: { x: number; y: number }): Frame {
  const logical = { width: Math.round(physical.width / scale), height: Math.round(physical.height / scale) };
  const image = fitImageSize(physical, limits);
  return {
    displayId: 'd',
    bounds: { ...origin, ...logical },
    scaleFactor: scale,
    captured: physical,
    image: { ...image, format: 'jpeg' },
  };
}

describe('imageToScreen / screenToImage over screens × scale factors × image sizes', () => {
  for (const screen of SCREENS)
    for (const scale of SCALES)
      for (const limits of IMAGE_LIMITS)
        for (const origin of ORIGINS) {
          const frame = frameFor(screen, scale, limits, origin);
          it(`${screen.width}x${screen.height}@${scale} → ${frame.image.width}x${frame.image.height} at (${origin.x},${origin.y})`, () => {
            const { width: W, height: H } = frame.image;
            const probes = [
              { x: 0, y: 0 },
              { x: W - 1, y: H - 1 },
              { x: W / 2, y: H / 2 },
              { x: W * 0.1234, y: H * 0.8765 },
              { x: W - 0.001, y: H - 0.001 },
              { x: W, y: H },
            ];
            const lx = frame.bounds.width / W;
            const ly = frame.bounds.height / H;
            for (const p of probes) {
              const mapped = imageToScreen(p, frame);
              expect(mapped.ok).toBe(true);
              if (!mapped.ok) continue;
              const { x, y } = mapped.point;
              // Integer logical pixels inside the display.
              expect(Number.isInteger(x) && Number.isInteger(y)).toBe(true);
              expect(x).toBeGreaterThanOrEqual(frame.bounds.x);
              expect(y).toBeGreaterThanOrEqual(frame.bounds.y);
              expect(x).toBeLessThan(frame.bounds.x + frame.bounds.width);
              expect(y).toBeLessThan(frame.bounds.y + frame.bounds.height);
              // The logical pixel hit lies within the area the nearest image pixel was sampled from
              // (integer coordinates name pixel centres).
              const ix = Math.min(W - 1, Math.floor(p.x + 0.5));
              const iy = Math.min(H - 1, Math.floor(p.y + 0.5));
              expect(x - frame.bounds.x).toBeGreaterThanOrEqual(Math.floor(ix * lx));
              expect(x - frame.bounds.x).toBeLessThanOrEqual(Math.ceil((ix + 1) * lx));
              expect(y - frame.bounds.y).toBeGreaterThanOrEqual(Math.floor(iy * ly));
              expect(y - frame.bounds.y).toBeLessThanOrEqual(Math.ceil((iy + 1) * ly));
              // And maps back to within one image pixel (or one logical px when upscaled).
              const back = screenToImage(mapped.point, frame);
              expect(Math.abs(back.x - p.x)).toBeLessThanOrEqual(Math.max(1, 1 / lx));
              expect(Math.abs(back.y - p.y)).toBeLessThanOrEqual(Math.max(1, 1 / ly));
            }
          });
        }
});

describe('points outside the image are error values', () => {
  const frame = imageFrame({ x: 0, y: 0, width: 1280, height: 800 }, { width: 1000, height: 625 });
  for (const p of [
    { x: -1, y: 10 },
    { x: 10, y: -0.5 },
    { x: 1000.5, y: 10 },
    { x: 10, y: 626 },
    { x: 5000, y: 5000 },
    { x: Number.NaN, y: 1 },
    { x: Number.POSITIVE_INFINITY, y: 1 },
  ]) {
    it(`(${p.x}, ${p.y})`, () => {
      const mapped = imageToScreen(p, frame);
      expect(mapped.ok).toBe(false);
      if (!mapped.ok) expect(mapped.message).toMatch(/outside the 1000x625 image|not finite/);
    });
  }
});

describe('the far edge belongs to the image', () => {
  it('maps to the last pixel', () => {
    const frame = imageFrame({ x: 0, y: 0, width: 1280, height: 800 }, { width: 1000, height: 625 });
    expect(imageToScreen({ x: 1000, y: 625 }, frame)).toEqual({ ok: true, point: { x: 1279, y: 799 } });
  });
});

describe('screen frames map screen coordinates to themselves', () => {
  it('identity over the whole screen', () => {
    const frame = screenFrame({ x: 0, y: 0, width: 1280, height: 800 });
    for (const p of [
      { x: 0, y: 0 },
      { x: 1279, y: 799 },
      { x: 640, y: 400 },
      { x: 17, y: 333 },
    ]) {
      expect(imageToScreen(p, frame)).toEqual({ ok: true, point: p });
    }
  });
});

describe('fitImageSize', () => {
  it('keeps the aspect ratio and never upscales', () => {
    expect(fitImageSize({ width: 2560, height: 1600 }, { maxWidth: 1280 })).toEqual({ width: 1280, height: 800 });
    expect(fitImageSize({ width: 1280, height: 800 }, { maxWidth: 1920 })).toEqual({ width: 1280, height: 800 });
    expect(fitImageSize({ width: 1920, height: 1080 }, { maxWidth: 1280, maxHeight: 600 })).toEqual({ width: 1066, height: 600 });
  });
  it('respects a pixel budget exactly', () => {
    for (const source of SCREENS) {
      for (const maxPixels of [1_000_000, 786_432, 500_000, 12_345]) {
        const size = fitImageSize(source, { maxPixels });
        expect(size.width * size.height).toBeLessThanOrEqual(maxPixels);
        expect(Math.abs(size.width / size.height - source.width / source.height)).toBeLessThan(0.02);
      }
    }
  });
});

describe('unionRect', () => {
  it('covers every display', () => {
    expect(
      unionRect([
        { x: 0, y: 0, width: 1920, height: 1080 },
        { x: 1920, y: -200, width: 1280, height: 1024 },
      ]),
    ).toEqual({ x: 0, y: -200, width: 3200, height: 1280 });
  });
});
