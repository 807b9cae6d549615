/** Figures as the window shows them (money and durations come from src/shared/format.ts). */

/** `1,234` or `12.3k` tokens. */
export function formatTokens(count: number): string {
  return count >= 10_000 ? `${(count / 1000).toFixed(1)}k` : count.toLocaleString('en-US');
}

/** A date and time in the user's locale, short. */
export function formatWhen(iso: string | number): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
}
