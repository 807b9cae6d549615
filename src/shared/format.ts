/** Money, for every place that shows it: the terminal, the report, the app. */

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
