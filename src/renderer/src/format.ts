/** Figures as the window shows them (money and durations come from src/shared/format.ts). */

// Made once, when the window loads: `toLocaleString` makes a formatter at each call, and the rows
// of a long session opened in a fresh page paid for the first ones.
const TOKEN_COUNT = new Intl.NumberFormat('en-US');
const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'short' });

/** `1,234` or `12.3k` tokens. */
export function formatTokens(count: number): string {
  return count >= 10_000 ? `${(count / 1000).toFixed(1)}k` : TOKEN_COUNT.format(count);
}

/** A date and time in the user's locale, short. */
export function formatWhen(iso: string | number): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : WHEN.format(date);
}
