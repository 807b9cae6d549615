/**
 * Models: the VisionModel seam, the OpenAI-compatible client, and one module per family. Build a
 * model with `createVisionModel(settings, deps)` where the object graph is composed (app, CLI).
 */
import { DEFAULT_PRICES, type ModelSettings, type PriceTable } from '../../shared/settings';
import { AnthropicClient } from './anthropic-client';
import { AnthropicModel } from './anthropic-model';
import { ModelClient, type ModelClientDeps } from './client';
import { GeminiClient } from './gemini-client';
import { GeminiModel } from './gemini-model';
import { cuaEnvironmentFor, OpenAiCuaModel } from './openai-cua-model';
import { PyautoguiModel } from './pyautogui-model';
import { ToolsModel } from './tools-model';
import { type VisionModel } from './types';
import { UiTarsModel } from './ui-tars-model';
import { type CuaEnvironment } from './families';

export * from './types';
export { ModelClient, NO_API_KEY, suggestV1, normalizeBaseUrl, type ModelClientDeps } from './client';
export { withRetries, backoffDelay, parseRetryAfter, realSleep, DEFAULT_RETRY_POLICY, type Sleep, type RetryPolicy, type RetryNotice } from './retry';
export { findPrice, usageOf } from './pricing';
export { ToolsModel, buildToolsRequest, toolsSystemPrompt } from './tools-model';
export { UiTarsModel, buildUiTarsRequest, uiTarsPrompt, DEFAULT_UI_TARS_VERSION } from './ui-tars-model';
export { PyautoguiModel, buildPyautoguiRequest, pyautoguiSystemPrompt } from './pyautogui-model';
export { OpenAiCuaModel, buildOpenAiCuaRequest, cuaEnvironmentFor } from './openai-cua-model';
export { AnthropicModel } from './anthropic-model';
export { AnthropicClient, NO_ANTHROPIC_KEY, anthropicRootOf, messageJson } from './anthropic-client';
export { buildAnthropicRequest, buildAnthropicMessages, ANTHROPIC_SYSTEM_PROMPT, ANTHROPIC_DEFAULT_MAX_TOKENS } from './families/anthropic-request';
export { GeminiModel } from './gemini-model';
export { GeminiClient, splitGeminiBaseUrl, type GeminiGeneration } from './gemini-client';

export interface VisionModelDeps extends ModelClientDeps {
  /** Default: DEFAULT_PRICES. */
  prices?: PriceTable;
  /** OpenAI computer use: the environment declared to the model. Default: from `platform`. */
  environment?: CuaEnvironment;
  /** Default: process.platform. */
  platform?: string;
  /** A client to use instead of one built from the settings. */
  client?: ModelClient;
  /** `anthropic`: a client to use instead of one built from the settings. */
  anthropicClient?: AnthropicClient;
  /** `gemini`: a client to use instead of one built from the settings. */
  geminiClient?: GeminiClient;
}

/** The model the settings describe (parse them with `ModelSettingsSchema` first, for the defaults). */
export function createVisionModel(settings: ModelSettings, deps: VisionModelDeps = {}): VisionModel {
  const prices = deps.prices ?? DEFAULT_PRICES;
  // The families with a vendor SDK of their own build only their own client.
  if (settings.family === 'anthropic') return new AnthropicModel(settings, { client: deps.anthropicClient ?? new AnthropicClient(settings, deps), prices });
  if (settings.family === 'gemini') return new GeminiModel(settings, { client: deps.geminiClient ?? new GeminiClient(settings, deps), prices });
  const client = deps.client ?? new ModelClient(settings, deps);
  switch (settings.family) {
    case 'tools':
      return new ToolsModel(settings, { client, prices });
    case 'ui-tars':
      return new UiTarsModel(settings, { client, prices });
    case 'pyautogui':
      return new PyautoguiModel(settings, { client, prices });
    case 'openai-cua':
      return new OpenAiCuaModel(settings, {
        client,
        prices,
        environment: deps.environment ?? cuaEnvironmentFor(deps.platform ?? process.platform),
      });
  }
}
