import { describe, expect, it } from 'vitest';
import { COORDINATE_SPACES, gridOf, imageToModel, modelToImage, onGrid, type CoordinateFrame } from '../../../src/main/model/families/coordinates';

const image = { width: 1280, height: 800 };

describe('coordinate spaces', () => {
  it('each space has its grid for the image sent', () => {
    expect(gridOf({ space: 'image', image })).toEqual(image);
    // 1280x800 rounded to multiples of 28 (Python's round: 45.71 -> 46, 28.57 -> 29).
    expect(gridOf({ space: 'smart-resize', image })).toEqual({ width: 1288, height: 812 });
    expect(gridOf({ space: 'relative-1000', image })).toEqual({ width: 1000, height: 1000 });
    expect(gridOf({ space: 'relative-1', image })).toEqual({ width: 1, height: 1 });
  });

  it('maps a model point onto the image, and the image point back to what the model writes', () => {
    const cases: Array<[CoordinateFrame['space'], { x: number; y: number }, { x: number; y: number }]> = [
      ['image', { x: 640, y: 400 }, { x: 640, y: 400 }],
      ['relative-1000', { x: 500, y: 250 }, { x: 640, y: 200 }],
      ['relative-1', { x: 0.5, y: 0.25 }, { x: 640, y: 200 }],
    ];
    for (const [space, model, expected] of cases) {
      const frame = { space, image };
      expect(modelToImage(model, frame)).toEqual(expected);
      expect(imageToModel(expected, frame)).toEqual(model);
    }
  });

  it('rounds as the model writes: whole numbers on pixel grids, three decimals on 0-1', () => {
    expect(imageToModel({ x: 333.3, y: 100.6 }, { space: 'image', image })).toEqual({ x: 333, y: 101 });
    expect(imageToModel({ x: 427, y: 267 }, { space: 'relative-1', image })).toEqual({ x: 0.334, y: 0.334 });
    const resized = { space: 'smart-resize' as const, image };
    expect(imageToModel(modelToImage({ x: 644, y: 406 }, resized), resized)).toEqual({ x: 644, y: 406 });
  });

  it('a custom smart resize bound changes the grid', () => {
    const frame: CoordinateFrame = { space: 'smart-resize', image: { width: 3840, height: 2160 }, smartResize: { factor: 32, maxPixels: 1280 * 32 * 32 } };
    const grid = gridOf(frame);
    expect(grid.width % 32).toBe(0);
    expect(grid.width * grid.height).toBeLessThanOrEqual(1280 * 32 * 32);
  });

  it('knows a point off the grid', () => {
    expect(onGrid({ x: 1000, y: 1000 }, { space: 'relative-1000', image })).toBe(true);
    expect(onGrid({ x: 1001, y: 0 }, { space: 'relative-1000', image })).toBe(false);
    expect(onGrid({ x: 1.2, y: 0 }, { space: 'relative-1', image })).toBe(false);
    expect(COORDINATE_SPACES).toEqual(['image', 'smart-resize', 'relative-1000', 'relative-1']);
  });
});
