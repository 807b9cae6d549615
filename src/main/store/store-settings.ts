/**
 * The `store` section of config.json: how long sessions are kept and what is recorded.
 *
 *   "store": { "retentionDays": 30, "retentionGb": 5, "keepFullResolution": false }
 *
 * Read on its own (not through the run settings) because `mnemo sessions --prune` needs it without
 * any model settings. A GB here is 10^9 bytes.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';

export const StoreSettingsSchema = z
  .object({
    /** Delete sessions that started more than this many days ago; null or absent: keep them. */
    retentionDays: z.number().positive().nullable().default(null),
    /** Delete the oldest sessions while all of them together take more than this; null: no limit. */
    retentionGb: z.number().positive().nullable().default(null),
    /** Also save each capture at full resolution (PNG) next to the model-ready image. */
    keepFullResolution: z.boolean().default(false),
  })
  .strict();
export type StoreSettings = z.output<typeof StoreSettingsSchema>;

export const DEFAULT_STORE_SETTINGS: StoreSettings = { retentionDays: null, retentionGb: null, keepFullResolution: false };

export const BYTES_PER_GB = 1e9;

/** What retention removes; null means no limit of that kind. */
export interface RetentionPolicy {
  maxAgeDays: number | null;
  maxBytes: number | null;
}

export function retentionOf(settings: StoreSettings): RetentionPolicy {
  return { maxAgeDays: settings.retentionDays, maxBytes: settings.retentionGb === null ? null : settings.retentionGb * BYTES_PER_GB };
}

export type StoreSettingsRead = { ok: true; settings: StoreSettings } | { ok: false; message: string };

/** Reads the `store` section; a file that is absent (and not asked for by name) gives the defaults. */
export async function readStoreSettings(configPath: string, required = false): Promise<StoreSettingsRead> {
  let text: string;
  try {
    text = await readFile(configPath, 'utf8');
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, settings: DEFAULT_STORE_SETTINGS };
    return { ok: false, message: `cannot read the config file ${configPath}: ${(error as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `the config file ${configPath} is not valid JSON: ${(error as Error).message}` };
  }
  const section = typeof json === 'object' && json !== null ? (json as { store?: unknown }).store : undefined;
  const parsed = StoreSettingsSchema.safeParse(section ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `store.${issue.path.map(String).join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : '')}: ${issue.message}`);
    return { ok: false, message: `the config file ${configPath}: ${issues.join('; ')}` };
  }
  return { ok: true, settings: parsed.data };
}
