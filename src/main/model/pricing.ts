/**
 * Token usage and its cost, from the price table in settings (US dollars per million tokens).
 */
import { type ModelPrice, type PriceTable } from '../../shared/settings';
import { type TokenCount } from './client';
import { type Usage } from './types';

/**
 * The price of a model: its exact name, else the longest table key that begins the name followed
 * by a dated or tagged suffix (`gpt-4o` prices `gpt-4o-2024-08-06` and `gpt-4o:latest`, but not
 * `gpt-4o-mini-tts`), with any `provider/` prefix (OpenRouter) tried without it. Undefined when the
 * table does not know the model.
 */
export function findPrice(model: string, prices: PriceTable): ModelPrice | undefined {
  const names = [model];
  const slash = model.lastIndexOf('/');
  if (slash >= 0) names.push(model.slice(slash + 1));
  for (const name of names) {
    const exact = prices[name];
    if (exact) return exact;
  }
  let best: { key: string; price: ModelPrice } | undefined;
  for (const name of names) {
    for (const [key, price] of Object.entries(prices)) {
      if (name.startsWith(key) && /^(?:-\d|[:@])/.test(name.slice(key.length)) && (!best || key.length > best.key.length)) {
        best = { key, price };
      }
    }
  }
  return best?.price;
}

/**
 * Usage of one call (null tokens: the server reported none) priced from the table. Tokens written
 * to or read from a prompt cache count as input tokens too, each at its own price (the input price
 * when the table has none for it).
 */
export function usageOf(tokens: TokenCount | null, model: string, prices: PriceTable): Usage {
  const cacheWriteTokens = tokens?.cacheWriteTokens ?? 0;
  const cacheReadTokens = tokens?.cacheReadTokens ?? 0;
  const inputTokens = (tokens?.inputTokens ?? 0) + cacheWriteTokens + cacheReadTokens;
  const outputTokens = tokens?.outputTokens ?? 0;
  const price = findPrice(model, prices);
  const costUsd = price
    ? ((tokens?.inputTokens ?? 0) * price.inputPerMTok +
        cacheWriteTokens * (price.cacheWritePerMTok ?? price.inputPerMTok) +
        cacheReadTokens * (price.cacheReadPerMTok ?? price.inputPerMTok) +
        outputTokens * price.outputPerMTok) /
      1_000_000
    : 0;
  const cache = cacheWriteTokens > 0 || cacheReadTokens > 0 ? { cacheWriteTokens, cacheReadTokens } : {};
  return { inputTokens, outputTokens, costUsd, priced: price !== undefined, reported: tokens !== null, ...cache };
}
