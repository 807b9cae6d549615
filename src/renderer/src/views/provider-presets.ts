/** Where the common providers' OpenAI-compatible APIs live; choosing one fills the base URL. */
import type { MODEL_FAMILIES } from '../../../shared/settings';

export interface ProviderPreset {
  id: 'openai' | 'azure' | 'openrouter' | 'ollama' | 'vllm' | 'lmstudio' | 'custom';
  baseUrl: string;
  family?: (typeof MODEL_FAMILIES)[number];
}

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  { id: 'openai', baseUrl: 'https://api.openai.com/v1', family: 'tools' },
  // RESOURCE is the Azure resource's name; the v1 API takes deployment names as models.
  { id: 'azure', baseUrl: 'https://RESOURCE.openai.azure.com/openai/v1', family: 'tools' },
  { id: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1', family: 'tools' },
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
