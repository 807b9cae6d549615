/**
 * Settings the user chooses: which model to call and how, what tokens cost, and the image the
 * model is sent. Pure zod schemas with defaults, so a settings file, the CLI and the app all read
 * the same shape. The loop and the CLI add their own parts (limits, memory, safety) later.
 */
import { z } from 'zod';
import { COMPUTER_TOOL_CHOICES, COORDINATE_SPACES, MODEL_FAMILIES } from './model-families';

/** The reply formats Mnemo reads (see src/main/model/families/). */
export { MODEL_FAMILIES };
export const ModelFamilySchema = z.enum(MODEL_FAMILIES);
export type ModelFamilyName = (typeof MODEL_FAMILIES)[number];

/**
 * Where each family's endpoint and key come from when nothing else says: the variables read for
 * the base URL and the key (the first one set wins), and the base URL used when none is given.
 * The OpenAI-compatible families have no default endpoint: it is the user's server.
 */
export interface FamilyEndpoint {
  baseUrlEnv: string;
  apiKeyEnv: readonly string[];
  defaultBaseUrl?: string;
}

const OPENAI_COMPATIBLE: FamilyEndpoint = { baseUrlEnv: 'OPENAI_BASE_URL', apiKeyEnv: ['OPENAI_API_KEY'] };

export const FAMILY_ENDPOINTS = {
  tools: OPENAI_COMPATIBLE,
  'ui-tars': OPENAI_COMPATIBLE,
  'openai-cua': OPENAI_COMPATIBLE,
  pyautogui: OPENAI_COMPATIBLE,
  // The API root as the Anthropic SDK takes it: requests go to <root>/v1/messages.
  anthropic: { baseUrlEnv: 'ANTHROPIC_BASE_URL', apiKeyEnv: ['ANTHROPIC_API_KEY'], defaultBaseUrl: 'https://api.anthropic.com' },
  // The API root as Google's SDK takes it (and its variables: GOOGLE_API_KEY wins over GEMINI_API_KEY there too).
  gemini: { baseUrlEnv: 'GOOGLE_GEMINI_BASE_URL', apiKeyEnv: ['GOOGLE_API_KEY', 'GEMINI_API_KEY'], defaultBaseUrl: 'https://generativelanguage.googleapis.com' },
} as const satisfies Record<ModelFamilyName, FamilyEndpoint>;

/** Every variable any family reads its key from (for masking secrets). */
export const API_KEY_ENV_NAMES: readonly string[] = [...new Set(Object.values(FAMILY_ENDPOINTS).flatMap((endpoint) => endpoint.apiKeyEnv))];

/** Where a family's endpoint and key come from; the OpenAI-compatible families' while the family is unknown. */
export function endpointOf(family: string | undefined): FamilyEndpoint {
  const known = ModelFamilySchema.safeParse(family);
  return known.success ? FAMILY_ENDPOINTS[known.data] : FAMILY_ENDPOINTS.tools;
}

/**
 * A family's API key from the environment: the first of its variables set to something, else one
 * set to nothing (an explicit "no key", which hides the file's), else undefined.
 */
export function apiKeyFromEnv(endpoint: FamilyEndpoint, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const values = endpoint.apiKeyEnv.map((name) => env[name]);
  return values.find((value) => value !== undefined && value.trim() !== '') ?? values.find((value) => value !== undefined);
}

/**
 * The older single tools of Claude's computer use (`model.anthropic.toolVersion`, the setting that
 * came before `model.computerTool`, which wins over it; see src/main/model/families/anthropic.ts).
 */
export const ANTHROPIC_TOOL_VERSIONS = ['computer_20250124', 'computer_20251124'] as const;

/** `--family anthropic` only: how Claude's computer-use tool is asked. */
export const AnthropicSettingsSchema = z
  .object({
    /** The older computer tool's version, where `computerTool` is `auto` and the older tool is used; default: chosen by the model name. */
    toolVersion: z.enum(ANTHROPIC_TOOL_VERSIONS).optional(),
    /** Extended thinking with this budget (tokens, at least 1024), streamed as the thought; off when absent. */
    thinking: z.object({ budgetTokens: z.number().int().min(1024) }).strict().optional(),
    /** Offer the zoom action (the toolset and computer_20251124). Default true. */
    zoom: z.boolean().optional(),
  })
  .strict();
export type AnthropicSettings = z.output<typeof AnthropicSettingsSchema>;

/**
 * Gemini computer use (`family: "gemini"`): the environment declared to the computer-use tool
 * (`browser`, the one every computer-use model takes; `desktop` for the models that know it), and
 * whether the model's thought summaries are asked for (streamed as the thought).
 */
export const GeminiOptionsSchema = z
  .object({
    environment: z.enum(['browser', 'desktop']).optional(),
    includeThoughts: z.boolean().optional(),
  })
  .strict();
export type GeminiOptions = z.output<typeof GeminiOptionsSchema>;

/**
 * The bounds of the Qwen-VL smart resize a model answers in (`coordinates: "smart-resize"`): each
 * side a multiple of `factor`, the area kept within [minPixels, maxPixels]. Any left out are
 * UI-TARS-1.5's: factor 28, 100×28×28 and 16384×28×28 pixels.
 */
export const SmartResizeSettingsSchema = z
  .object({
    factor: z.number().int().positive().optional(),
    minPixels: z.number().int().positive().optional(),
    maxPixels: z.number().int().positive().optional(),
  })
  .strict()
  .refine((bounds) => bounds.minPixels === undefined || bounds.maxPixels === undefined || bounds.minPixels <= bounds.maxPixels, {
    message: 'minPixels must not exceed maxPixels',
  });
export type SmartResizeSettings = z.output<typeof SmartResizeSettingsSchema>;

/** How the accessibility tree aids the model (model.elements). */
export const ELEMENTS_AID_MODES = ['off', 'list', 'marks'] as const;
export type ElementsAidMode = (typeof ELEMENTS_AID_MODES)[number];

/** model.maxReplyBytes by default: 8 MiB, far above any real reply (a step's reply is kilobytes). */
export const DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024;

/**
 * One OpenAI-compatible endpoint and model: OpenAI, Azure OpenAI (`https://RESOURCE.openai.azure.com/openai/v1`),
 * OpenRouter (`https://openrouter.ai/api/v1`), Ollama (`http://localhost:11434/v1`), vLLM, LM Studio.
 */
export const ModelSettingsSchema = z.object({
  /**
   * The API root: including `/v1` for the OpenAI-compatible families, e.g. `https://api.openai.com/v1`;
   * the root the vendor's SDK takes for `anthropic` (`https://api.anthropic.com`) and `gemini`
   * (`https://generativelanguage.googleapis.com`).
   */
  baseUrl: z.url({ protocol: /^https?$/, message: 'the base URL must be an http(s) URL, e.g. http://localhost:11434/v1' }),
  /** Optional: local servers need none (a placeholder is sent, since the client requires one). */
  apiKey: z.string().optional(),
  /** The model name the endpoint knows, e.g. `gpt-4.1`, `computer-use-preview`, `ui-tars-1.5-7b`. */
  model: z.string().min(1),
  /**
   * How the model is asked and how its reply reads: `tools` (a `computer` function tool, or a JSON
   * object in the text), `ui-tars` (the UI-TARS text format), `openai-cua` (OpenAI computer use),
   * `anthropic` (Claude's computer-use tool, through the Anthropic API), `gemini` (Gemini computer
   * use, through Google's own API), `pyautogui` (Python pyautogui calls, OSWorld's action space).
   */
  family: ModelFamilySchema,
  /** UI-TARS only: 1.0 writes 0–1000 relative coordinates, 1.5 pixels of its resized image. Default 1.5. */
  modelVersion: z.enum(['1.0', '1.5']).optional(),
  /**
   * `tools`, `ui-tars` and `pyautogui`: the space the model writes points in (see
   * shared/model-families.ts). Default: the family's own (image; UI-TARS 1.0 relative-1000, 1.5
   * smart-resize).
   */
  coordinates: z.enum(COORDINATE_SPACES).optional(),
  /** The bounds of the model's smart resize, for `coordinates: "smart-resize"`. */
  smartResize: SmartResizeSettingsSchema.optional(),
  /** `tools` only: false for models without function calling; they answer with JSON in the text. */
  toolCalling: z.boolean().default(true),
  /** Per attempt, from the request to the last streamed token. */
  timeoutMs: z.number().int().positive().default(120_000),
  /**
   * The most bytes one reply may take, streamed or not: past it the reply is cut and the step's
   * model call fails saying so (a runaway or hostile stream cannot fill the memory). Default
   * DEFAULT_MAX_REPLY_BYTES.
   */
  maxReplyBytes: z.number().int().min(1024).optional(),
  /**
   * The elements aid (docs/elements.md): `off` (the default) sends the screenshot only; `list` adds a
   * numbered list of the active window's interactive elements to each step's prompt, read from the
   * accessibility tree; `marks` also draws those numbers on the screenshot. With `list` or `marks`
   * the families that call tools get `click_element(n)` and `type_into(n, text)`.
   */
  elements: z.enum(ELEMENTS_AID_MODES).optional(),
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
  /**
   * `anthropic` and `openai-cua`: the vendor's computer tool the model is asked with (Claude:
   * computer_toolset_20260801, computer_20251124, computer_20250124; OpenAI: computer,
   * computer_use_preview). `auto` (the default) picks from the model's name: docs/models.md.
   */
  computerTool: z.enum(COMPUTER_TOOL_CHOICES).optional(),
  /** `anthropic` only: the older computer tool's version, extended thinking, zoom. */
  anthropic: AnthropicSettingsSchema.optional(),
  /** `gemini` only. */
  gemini: GeminiOptionsSchema.optional(),
});
export type ModelSettings = z.output<typeof ModelSettingsSchema>;
export type ModelSettingsInput = z.input<typeof ModelSettingsSchema>;

/** US dollars per million tokens. */
export const ModelPriceSchema = z.object({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  /** Tokens written to the provider's prompt cache (Anthropic: 1.25 × input for the 5-minute cache); default: the input price. */
  cacheWritePerMTok: z.number().nonnegative().optional(),
  /** Tokens read from the prompt cache (Anthropic: 0.1 × input); default: the input price. */
  cacheReadPerMTok: z.number().nonnegative().optional(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * Prices by model name. A name matches exactly, or as the longest key that begins the model name
 * (`gpt-4o` prices `gpt-4o-2024-08-06`), with any `provider/` prefix (OpenRouter) ignored.
 */
export const PriceTableSchema = z.record(z.string(), ModelPriceSchema);
export type PriceTable = z.infer<typeof PriceTableSchema>;

/** Anthropic's list price of a Claude model: 5-minute cache writes at 1.25 × input, cache reads at 0.1 × input. */
function claude(inputPerMTok: number, outputPerMTok: number) {
  return { inputPerMTok, outputPerMTok, cacheWritePerMTok: inputPerMTok * 1.25, cacheReadPerMTok: inputPerMTok * 0.1 };
}

/**
 * Google's list prices of the models with the computer-use tool and of the general ones the memory
 * may use (standard tier, prompts up to 200k tokens; thinking tokens are billed as output): input
 * and output, in USD per million tokens.
 */
const GEMINI_PRICES: Record<string, readonly [input: number, output: number]> = {
  'gemini-2.5-computer-use-preview-10-2025': [1.25, 10],
  'gemini-3-flash-preview': [0.5, 3],
  'gemini-3-pro-preview': [2, 12],
  'gemini-3.1-pro-preview': [2, 12],
  'gemini-2.5-flash': [0.3, 2.5],
  'gemini-2.5-pro': [1.25, 10],
};

/**
 * OpenAI list prices (standard tier; cached input at OpenAI's cached price, cache writes cost
 * nothing extra), Anthropic's (platform.claude.com/docs/en/about-claude/pricing), Google's (above)
 * and Z.ai's for the GLM-V models of the table of known models (docs/models.md); local models cost
 * nothing and are left out. Dated Claude names (`claude-sonnet-4-5-20250929`) match their key.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10, cacheReadPerMTok: 1.25 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6, cacheReadPerMTok: 0.075 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6, cacheReadPerMTok: 0.1 },
  'gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10, cacheReadPerMTok: 0.125 },
  'gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2, cacheReadPerMTok: 0.025 },
  'computer-use-preview': { inputPerMTok: 3, outputPerMTok: 12 },
  'claude-opus-5': claude(5, 25),
  'claude-opus-4-8': claude(5, 25),
  'claude-opus-4-7': claude(5, 25),
  'claude-opus-4-6': claude(5, 25),
  'claude-opus-4-5': claude(5, 25),
  'claude-opus-4-1': claude(15, 75),
  'claude-opus-4': claude(15, 75),
  'claude-sonnet-5': claude(3, 15),
  'claude-sonnet-4-6': claude(3, 15),
  'claude-sonnet-4-5': claude(3, 15),
  'claude-sonnet-4': claude(3, 15),
  'claude-3-7-sonnet': claude(3, 15),
  'claude-haiku-4-5': claude(1, 5),
  ...Object.fromEntries(Object.entries(GEMINI_PRICES).map(([model, [inputPerMTok, outputPerMTok]]) => [model, { inputPerMTok, outputPerMTok }])),
  // Z.ai's API (z.ai): cached input at its cached price.
  'glm-4.5v': { inputPerMTok: 0.6, outputPerMTok: 1.8, cacheReadPerMTok: 0.11 },
  'glm-4.6v': { inputPerMTok: 0.3, outputPerMTok: 0.9, cacheReadPerMTok: 0.05 },
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
