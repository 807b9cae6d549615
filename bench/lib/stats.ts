/** Small statistics helpers for benchmarks: medians over repeated, noisy measurements. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Runs `fn` `warmup` times unmeasured, then `runs` times, and returns the durations in ms. */
export async function timeRuns(runs: number, fn: () => Promise<unknown>, warmup = 2): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times;
}

/**
 * Like timeRuns for several functions, taking turns run by run, so that a machine getting busier
 * or quieter during the measurement weighs on each alike. Returns one list of durations per function.
 */
export async function timeRunsInTurn(runs: number, fns: ReadonlyArray<() => Promise<unknown>>, warmup = 2): Promise<number[][]> {
  for (let i = 0; i < warmup; i++) for (const fn of fns) await fn();
  const times = fns.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (const [index, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      times[index]?.push(performance.now() - start);
    }
  }
  return times;
}

export const fmt = (ms: number): string => ms.toFixed(1);

/** A difference in ms with its sign: "+3.2", "-0.4". */
export const fmtSigned = (ms: number): string => `${ms >= 0 ? '+' : ''}${fmt(ms)}`;
