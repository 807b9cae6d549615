/**
 * Where the common providers' APIs live (OpenAI-compatible ones, and the vendor APIs of the
 * `anthropic` and `gemini` families); choosing one fills the base URL and, where it decides it,
 * the family.
 */
import { FAMILY_ENDPOINTS, type ModelFamilyName } from '../../../shared/settings';

export interface ProviderPreset {
  id: 'openai' | 'anthropic' | 'azure' | 'openrouter' | 'gemini' | 'ollama' | 'vllm' | 'lmstudio' | 'custom';
  baseUrl: string;
  family?: ModelFamilyName;
  /** The environment variables the key may come from instead of the form. */
  apiKeyEnv?: readonly string[];
}

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  { id: 'openai', baseUrl: 'https://api.openai.com/v1', family: 'tools', apiKeyEnv: FAMILY_ENDPOINTS.tools.apiKeyEnv },
  // Claude's computer-use tool through the Anthropic SDK: the API root, without /v1.
  { id: 'anthropic', baseUrl: FAMILY_ENDPOINTS.anthropic.defaultBaseUrl, family: 'anthropic', apiKeyEnv: FAMILY_ENDPOINTS.anthropic.apiKeyEnv },
  // RESOURCE is the Azure resource's name; the v1 API takes deployment names as models.
  { id: 'azure', baseUrl: 'https://RESOURCE.openai.azure.com/openai/v1', family: 'tools' },
  { id: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1', family: 'tools' },
  // Gemini computer use through Google's own API, not an OpenAI-compatible one.
  { id: 'gemini', baseUrl: FAMILY_ENDPOINTS.gemini.defaultBaseUrl, family: 'gemini', apiKeyEnv: FAMILY_ENDPOINTS.gemini.apiKeyEnv },
  { id: 'ollama', baseUrl: 'http://localhost:11434/v1' },
  { id: 'vllm', baseUrl: 'http://localhost:8000/v1' },
  { id: 'lmstudio', baseUrl: 'http://localhost:1234/v1' },
  { id: 'custom', baseUrl: '' },
];

/** The preset a base URL belongs to (custom when none fits). */
export function presetOf(baseUrl: string): ProviderPreset['id'] {
  const url = baseUrl.trim().replace(/\/+$/, '');
  if (/\.openai\.azure\.com\//.test(url)) return 'azure';
  return PROVIDER_PRESETS.find((preset) => preset.id !== 'custom' && preset.baseUrl === url)?.id ?? 'custom';
}
