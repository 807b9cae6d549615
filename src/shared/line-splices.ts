/**
 * The edits from one list of lines to the next, as splices: what a prompt section's text became
 * since the last step, sent instead of the whole text. A section changes by a line or two a step
 * (a new entry in, an old one out), anywhere in it, so this is a longest-common-subsequence diff
 * rather than the grow-at-the-end delta lists use. Long texts (where the table would be large)
 * are one splice replacing everything.
 */

/** Remove `remove` lines at `at` (an index into the previous lines), then insert `insert` there. */
export interface LineSplice {
  at: number;
  remove: number;
  insert: string[];
}

const MAX_CELLS = 1_000_000;

/** The splices that turn `previous` into `next` (empty when they are equal). */
export function lineSplices(previous: readonly string[], next: readonly string[]): LineSplice[] {
  // The common start and end need no table.
  let start = 0;
  while (start < previous.length && start < next.length && previous[start] === next[start]) start++;
  let endPrev = previous.length;
  let endNext = next.length;
  while (endPrev > start && endNext > start && previous[endPrev - 1] === next[endNext - 1]) {
    endPrev--;
    endNext--;
  }
  const a = previous.slice(start, endPrev);
  const b = next.slice(start, endNext);
  if (a.length === 0 && b.length === 0) return [];
  if (a.length === 0 || b.length === 0 || (a.length + 1) * (b.length + 1) > MAX_CELLS) return [{ at: start, remove: a.length, insert: [...b] }];

  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? (lcs[(i + 1) * width + j + 1] as number) + 1 : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
    }
  }
  const splices: LineSplice[] = [];
  let current: LineSplice | null = null;
  let i = 0;
  let j = 0;
  const open = (): LineSplice => {
    current ??= { at: start + i, remove: 0, insert: [] };
    return current;
  };
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      if (current) splices.push(current);
      current = null;
      i++;
      j++;
    } else if (j < b.length && (i === a.length || (lcs[i * width + j + 1] as number) >= (lcs[(i + 1) * width + j] as number))) {
      open().insert.push(b[j] as string);
      j++;
    } else {
      open().remove++;
      i++;
    }
  }
  if (current) splices.push(current);
  return splices;
}

/** The lines after the splices (as `lineSplices` made them: in order, indices into `lines`). */
export function applyLineSplices(lines: readonly string[], splices: readonly LineSplice[]): string[] {
  const out: string[] = [];
  let index = 0;
  for (const splice of splices) {
    out.push(...lines.slice(index, splice.at), ...splice.insert);
    index = splice.at + splice.remove;
  }
  out.push(...lines.slice(index));
  return out;
}
