/**
 * Settings the user chooses: which model to call and how, what tokens cost, and the image the
 * model is sent. Pure zod schemas with defaults, so a settings file, the CLI and the app all read
 * the same shape. The loop and the CLI add their own parts (limits, memory, safety) later.
 */
import { z } from 'zod';

/** The three reply formats Mnemo reads (see src/main/model/families/). */
export const MODEL_FAMILIES = ['tools', 'ui-tars', 'openai-cua'] as const;
export const ModelFamilySchema = z.enum(MODEL_FAMILIES);

/**
 * One OpenAI-compatible endpoint and model: OpenAI, Azure OpenAI (`https://RESOURCE.openai.azure.com/openai/v1`),
 * OpenRouter (`https://openrouter.ai/api/v1`), Ollama (`http://localhost:11434/v1`), vLLM, LM Studio.
 */
export const ModelSettingsSchema = z.object({
  /** The API root including `/v1`, e.g. `https://api.openai.com/v1`. */
  baseUrl: z.url({ protocol: /^https?$/, message: 'the base URL must be an http(s) URL, e.g. http://localhost:11434/v1' }),
  /** Optional: local servers need none (a placeholder is sent, since the client requires one). */
  apiKey: z.string().optional(),
  /** The model name the endpoint knows, e.g. `gpt-4.1`, `computer-use-preview`, `ui-tars-1.5-7b`. */
  model: z.string().min(1),
  /**
   * How the model is asked and how its reply reads: `tools` (a `computer` function tool, or a JSON
   * object in the text), `ui-tars` (the UI-TARS text format), `openai-cua` (OpenAI computer use).
   */
  family: ModelFamilySchema,
  /** UI-TARS only: 1.0 writes 0–1000 relative coordinates, 1.5 pixels of its resized image. Default 1.5. */
  modelVersion: z.enum(['1.0', '1.5']).optional(),
  /** `tools` only: false for models without function calling; they answer with JSON in the text. */
  toolCalling: z.boolean().default(true),
  /** Per attempt, from the request to the last streamed token. */
  timeoutMs: z.number().int().positive().default(120_000),
  /** Retries after the first attempt, on 429, 5xx, network errors and timeouts. */
  maxRetries: z.number().int().min(0).max(10).default(3),
  /** Backoff: full jitter over base × 2^retry, capped (a `Retry-After` from the server wins). */
  retryBaseDelayMs: z.number().int().positive().default(500),
  retryMaxDelayMs: z.number().int().positive().default(20_000),
  /** Stream the reply, so the thought shows as it is written. */
  stream: z.boolean().default(true),
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  /** Extra HTTP headers, e.g. OpenRouter's `HTTP-Referer` and `X-Title`. */
  headers: z.record(z.string(), z.string()).optional(),
});
export type ModelSettings = z.output<typeof ModelSettingsSchema>;
export type ModelSettingsInput = z.input<typeof ModelSettingsSchema>;

/** US dollars per million tokens. */
export const ModelPriceSchema = z.object({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * Prices by model name. A name matches exactly, or as the longest key that begins the model name
 * (`gpt-4o` prices `gpt-4o-2024-08-06`), with any `provider/` prefix (OpenRouter) ignored.
 */
export const PriceTableSchema = z.record(z.string(), ModelPriceSchema);
export type PriceTable = z.infer<typeof PriceTableSchema>;

/** OpenAI list prices (standard tier); local models cost nothing and are left out. */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2 },
  'computer-use-preview': { inputPerMTok: 3, outputPerMTok: 12 },
};

/** The screenshot the model is sent. */
export const ImageSettingsSchema = z.object({
  /** Wider captures are scaled down to this width (never up). */
  maxWidth: z.number().int().positive().default(1280),
  format: z.enum(['jpeg', 'png']).default('jpeg'),
  /** JPEG quality, 1–100. */
  quality: z.number().int().min(1).max(100).default(80),
});
export type ImageSettings = z.output<typeof ImageSettingsSchema>;

export const SettingsSchema = z.object({
  model: ModelSettingsSchema,
  prices: PriceTableSchema.default(DEFAULT_PRICES),
  image: ImageSettingsSchema.prefault({}),
});
export type Settings = z.output<typeof SettingsSchema>;
export type SettingsInput = z.input<typeof SettingsSchema>;
