/**
 * Did a step do what it did in the recording? Its expected effect is where the recorded screen
 * changed from before the step to after it: the regions of changed cells (a field that took the
 * focus and the text, a dialog that opened, a list that grew). On the live screen the same regions
 * must change too, where they were or moved with the step's target; what they change *to* may
 * differ (other values are typed), so only the change is compared, never the pixels it made.
 *
 * Nearby regions are one (the words of a typed text, the caret after it); small ones (a blinking
 * caret alone, a clock's last digit) do not count, nor one within what the next recorded step
 * acted on (see `nextTargets`); of the rest, at least half must have changed live, or be on the
 * live screen already as the recording left them (see checkEffect). A step whose recording shows no
 * change has nothing to check.
 *
 * Pure functions of decoded greyscale pixels.
 */
import type { Point } from '../../shared/actions';
import type { Rect } from '../../shared/frame';
import type { GreyImage } from '../replay/divergence';

export interface EffectOptions {
  /** Side of a cell, in image pixels. */
  cell: number;
  /** A cell changed when its mean grey difference is above this (grey levels). */
  tolerance: number;
  /** Regions of fewer cells are noise. */
  minCells: number;
  /** Share of the recorded regions that must change live. */
  share: number;
  /** Regions this many cells apart or closer count as one (see mergeNear). */
  mergeGap: number;
}

export const DEFAULT_EFFECT_OPTIONS: EffectOptions = { cell: 8, tolerance: 6, minCells: 6, share: 0.5, mergeGap: 2 };

export interface CellGrid {
  columns: number;
  rows: number;
  changed: Uint8Array;
}

/** Which cells differ between two images of the same size (a different size: every cell). */
export function changedCells(before: GreyImage, after: GreyImage, options: EffectOptions = DEFAULT_EFFECT_OPTIONS): CellGrid {
  const columns = Math.ceil(before.width / options.cell);
  const rows = Math.ceil(before.height / options.cell);
  const changed = new Uint8Array(columns * rows);
  if (before.width !== after.width || before.height !== after.height) return { columns, rows, changed: changed.fill(1) };
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      let total = 0;
      let count = 0;
      for (let y = row * options.cell; y < Math.min(before.height, (row + 1) * options.cell); y++) {
        const line = y * before.width;
        for (let x = column * options.cell; x < Math.min(before.width, (column + 1) * options.cell); x++) {
          total += Math.abs((before.pixels[line + x] as number) - (after.pixels[line + x] as number));
          count++;
        }
      }
      if (count > 0 && total / count > options.tolerance) changed[row * columns + column] = 1;
    }
  }
  return { columns, rows, changed };
}

export interface Region {
  /** The region's cells, as indexes into the grid. */
  cells: number[];
  /** Bounding box in cells. */
  box: { column: number; row: number; columns: number; rows: number };
}

/** The connected regions (8-neighbours) of changed cells. */
export function regionsOf(grid: CellGrid): Region[] {
  const seen = new Uint8Array(grid.changed.length);
  const regions: Region[] = [];
  for (let start = 0; start < grid.changed.length; start++) {
    if (!grid.changed[start] || seen[start]) continue;
    const cells: number[] = [];
    const stack = [start];
    seen[start] = 1;
    while (stack.length > 0) {
      const at = stack.pop() as number;
      cells.push(at);
      const column = at % grid.columns;
      const row = (at - column) / grid.columns;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const c = column + dx;
          const r = row + dy;
          if (c < 0 || r < 0 || c >= grid.columns || r >= grid.rows) continue;
          const next = r * grid.columns + c;
          if (grid.changed[next] && !seen[next]) {
            seen[next] = 1;
            stack.push(next);
          }
        }
      }
    }
    const columns = cells.map((cell) => cell % grid.columns);
    const rows = cells.map((cell) => Math.floor(cell / grid.columns));
    const column = Math.min(...columns);
    const row = Math.min(...rows);
    regions.push({ cells, box: { column, row, columns: Math.max(...columns) - column + 1, rows: Math.max(...rows) - row + 1 } });
  }
  return regions;
}

/**
 * Regions whose boxes lie within `gap` cells of each other, as one: the words of one typed text,
 * a caret at its end, the lines of one log are one change, however they split into cells.
 */
export function mergeNear(regions: readonly Region[], gap: number): Region[] {
  const merged = regions.map((region) => ({ cells: [...region.cells], box: { ...region.box } }));
  const near = (a: Region['box'], b: Region['box']) =>
    a.column <= b.column + b.columns - 1 + gap + 1 && b.column <= a.column + a.columns - 1 + gap + 1 && a.row <= b.row + b.rows - 1 + gap + 1 && b.row <= a.row + a.rows - 1 + gap + 1;
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < merged.length && !changed; i++) {
      for (let j = i + 1; j < merged.length && !changed; j++) {
        const a = merged[i] as Region;
        const b = merged[j] as Region;
        if (!near(a.box, b.box)) continue;
        const column = Math.min(a.box.column, b.box.column);
        const row = Math.min(a.box.row, b.box.row);
        a.box = {
          column,
          row,
          columns: Math.max(a.box.column + a.box.columns, b.box.column + b.box.columns) - column,
          rows: Math.max(a.box.row + a.box.rows, b.box.row + b.box.rows) - row,
        };
        a.cells.push(...b.cells);
        merged.splice(j, 1);
        changed = true;
      }
    }
  }
  return merged;
}

export interface EffectCheck {
  appeared: boolean;
  /** Recorded regions that count, and how many of them changed live. */
  expected: number;
  seen: number;
  /** In words, for the record: `2 of 3 regions that changed in the recording changed` */
  detail: string;
}

/** Does any cell of `region`, shifted by (dc, dr) cells and grown by one cell, change in `live`? */
function changedNear(region: Region, recordedColumns: number, live: CellGrid, dc: number, dr: number): boolean {
  for (const cell of region.cells) {
    const column = (cell % recordedColumns) + dc;
    const row = Math.floor(cell / recordedColumns) + dr;
    for (let y = row - 1; y <= row + 1; y++) {
      for (let x = column - 1; x <= column + 1; x++) {
        if (x >= 0 && y >= 0 && x < live.columns && y < live.rows && live.changed[y * live.columns + x]) return true;
      }
    }
  }
  return false;
}

/** A next target bigger than this share of the image (one in CONTROL_SHARE) is not a control. */
const CONTROL_SHARE = 16;

/** Does `region`'s box lie within `rect` (image pixels) grown by one cell (a focus ring, a shadow)? */
function within(region: Region, rect: Rect, cell: number): boolean {
  const { box } = region;
  return box.column * cell >= rect.x - cell && box.row * cell >= rect.y - cell && (box.column + box.columns) * cell <= rect.x + rect.width + cell && (box.row + box.rows) * cell <= rect.y + rect.height + cell;
}

/**
 * Compares the recorded change with the live one. `offset`: how far the step's target moved from
 * the recording (image pixels); each region counts as changed where it was or moved by that much.
 * `recorded.nextTargets`: the boxes of what the next recorded step acted on. The screen recorded
 * after a step is the one before the next, and it may already show the next step beginning on its
 * target: the pointer arriving (a hover), or, when a demonstration's captures lag on a busy
 * machine, the press. A change that lies within such a box (a control's: one no bigger than a
 * sixteenth of the image) is the next step's doing, not this one's, and is not expected live (a
 * menu this step opened, bigger than the item clicked next in it, still is).
 */
export function checkEffect(
  recorded: { before: GreyImage; after: GreyImage; nextTargets?: readonly Rect[] },
  live: { before: GreyImage; after: GreyImage },
  offset: Point = { x: 0, y: 0 },
  options: EffectOptions = DEFAULT_EFFECT_OPTIONS,
): EffectCheck {
  const expectedGrid = changedCells(recorded.before, recorded.after, options);
  // A control (a button, a field, an item), not a page or a pane the next click landed on: a
  // change anywhere in a page is no hover.
  const control = (rect: Rect) => rect.width * rect.height <= (recorded.before.width * recorded.before.height) / CONTROL_SHARE;
  const nextTargets = (recorded.nextTargets ?? []).filter(control);
  const regions = mergeNear(regionsOf(expectedGrid), options.mergeGap).filter((region) => region.cells.length >= options.minCells && !nextTargets.some((rect) => within(region, rect, options.cell)));
  if (regions.length === 0) return { appeared: true, expected: 0, seen: 0, detail: 'the recording shows no change to expect' };
  const liveGrid = changedCells(live.before, live.after, options);
  const dc = Math.round(offset.x / options.cell);
  const dr = Math.round(offset.y / options.cell);
  const changed = regions.filter((region) => changedNear(region, expectedGrid.columns, liveGrid, 0, 0) || ((dc !== 0 || dr !== 0) && changedNear(region, expectedGrid.columns, liveGrid, dc, dr)));
  // Where nothing changed live, the screen may already be as the recording left it: a recording
  // whose screen before was captured while the application was still drawing (a blank window)
  // expects the whole window to appear, which a live run that waited for it has on screen already.
  const unlike = recorded.after.width === live.after.width && recorded.after.height === live.after.height ? changedCells(recorded.after, live.after, options) : null;
  const already = unlike ? regions.filter((region) => !changed.includes(region) && asRecorded(region, unlike)).length : 0;
  const seen = changed.length + already;
  const appeared = seen >= Math.ceil(regions.length * options.share);
  const noun = regions.length === 1 ? 'region' : 'regions';
  const alreadySaid = already > 0 ? `, ${already} already as recorded` : '';
  return { appeared, expected: regions.length, seen, detail: `${changed.length} of the ${regions.length} ${noun} that changed in the recording changed${alreadySaid}` };
}

/** A region shows what the recording showed after the step: at most one of its cells in ten differs. */
function asRecorded(region: Region, unlike: CellGrid): boolean {
  const differing = region.cells.filter((cell) => unlike.changed[cell] === 1).length;
  return differing * 10 <= region.cells.length;
}
