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

export const fmt = (ms: number): string => ms.toFixed(1);
