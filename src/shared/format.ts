/** Money, durations and sizes, for every place that shows them: the terminal, the report, the app. */

/** `$0.0042`, `$123.45` for large sums, `—` when there is no figure. */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (value > 0 && value < 0.0001) return `$${value.toPrecision(2)}`;
  return `$${value.toFixed(value >= 100 ? 2 : 4)}`;
}

/** A limit as the user set it: cents, or every digit they gave when cents would round it (`$0.015`). */
export function formatUsdLimit(amount: number): string {
  const cents = amount.toFixed(2);
  return `$${Number(cents) === amount ? cents : String(amount)}`;
}

/** `850 ms`, `2.4 s`, `3 min 05 s`, `1 h 02 min`; `—` when there is no figure. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} min`;
}

/** `45 kB`, `3.2 MB`, `1.25 GB` (powers of ten): a size on disk or in the shared store. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${Math.round(bytes / 1e3)} kB`;
}
