/**
 * Retention as the store applies it, from the `store` section of config.json (schema in
 * src/shared/config.ts):
 *
 *   "store": { "retentionDays": 30, "retentionGb": 5, "keepFullResolution": false, "minFreeMb": 200 }
 */
import type { StoreSettings } from '../../shared/config';

export type { StoreSettings } from '../../shared/config';

export const DEFAULT_STORE_SETTINGS: StoreSettings = { retentionDays: null, retentionGb: null, keepFullResolution: false, minFreeMb: 200 };

/** A GB here is 10^9 bytes. */
export const BYTES_PER_GB = 1e9;

/** What retention removes; null means no limit of that kind. */
export interface RetentionPolicy {
  maxAgeDays: number | null;
  maxBytes: number | null;
}

export function retentionOf(settings: StoreSettings): RetentionPolicy {
  return { maxAgeDays: settings.retentionDays, maxBytes: settings.retentionGb === null ? null : settings.retentionGb * BYTES_PER_GB };
}
