/**
 * Retention as the store applies it, from the `store` section of config.json (schema in
 * src/shared/config.ts):
 *
 *   "store": { "retentionDays": 30, "retentionGb": 5, "keepFullResolution": false, "minFreeMb": 200,
 *              "shared": "s3://bucket/prefix", "keepLocal": false, "s3": { "endpoint": "http://127.0.0.1:9000" } }
 *
 * Retention applies to the sessions of the data directory, never to the shared store.
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
