/**
 * Which vendor computer tool a model is asked with when the setting is `auto` (`model.computerTool`,
 * `--computer-tool`): a pure function of the family, the model's name and where it is served, so
 * the run, `check-model`, `parse` and the Settings form all say the same.
 *
 * Facts (docs/models.md, "tool"):
 * - Claude's computer use is generally available as the client toolset `computer_toolset_20260801`
 *   (2026-08-19). On the Claude API and Google Cloud the Claude 5.5 models answer the older
 *   `computer_20251124` with HTTP 400; Bedrock and Foundry still want the older tool. Opus 4.5+ and
 *   Sonnet 4.6+ take `computer_20251124`, the Claude models before them `computer_20250124`.
 * - OpenAI's GA Responses tool is `{"type": "computer"}` (batches of `actions`), used by GPT-5.4 and
 *   later; `computer-use-preview` takes only `computer_use_preview`.
 */
import { type AnthropicComputerTool, type ComputerTool, type ComputerToolChoice, type OpenAiComputerTool } from './model-families';

export interface ClaudeName {
  tier: 'opus' | 'sonnet' | 'haiku';
  major: number;
  minor: number;
}

/**
 * The generation of a Claude model from its name, with any provider prefix or date suffix:
 * `claude-opus-4-5-20251101`, `anthropic/claude-sonnet-4.6`, `anthropic.claude-haiku-4-5-…-v1:0`,
 * `claude-3-7-sonnet-latest`. Null for a name that is not Claude's.
 */
export function claudeNameOf(model: string): ClaudeName | null {
  const name = model.toLowerCase();
  // A minor version is one or two digits, never the date that may follow.
  const modern = /claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2})(?!\d))?/.exec(name);
  if (modern) return { tier: modern[1] as ClaudeName['tier'], major: Number(modern[2]), minor: Number(modern[3] ?? 0) };
  const legacy = /claude-(\d+)(?:[-.](\d{1,2})(?!\d))?-(opus|sonnet|haiku)/.exec(name);
  if (legacy) return { tier: legacy[3] as ClaudeName['tier'], major: Number(legacy[1]), minor: Number(legacy[2] ?? 0) };
  return null;
}

export const claudeAtLeast = (name: ClaudeName, major: number, minor: number): boolean => name.major > major || (name.major === major && name.minor >= minor);

/**
 * The older single computer tool a Claude model takes (the documentation's model lists):
 * computer_20251124 for Opus 4.5 and later, Sonnet 4.6 and later and any later generation;
 * computer_20250124 for the Claude models before; the newer for a name that is not Claude's.
 */
export function legacyClaudeToolFor(model: string): Exclude<AnthropicComputerTool, 'computer_toolset_20260801'> {
  const name = claudeNameOf(model);
  if (name === null) return 'computer_20251124';
  const newest = name.major >= 5 || (name.tier === 'opus' && claudeAtLeast(name, 4, 5)) || (name.tier === 'sonnet' && claudeAtLeast(name, 4, 6));
  return newest ? 'computer_20251124' : 'computer_20250124';
}

/**
 * Bedrock and Microsoft Foundry still serve the older tool: a Bedrock model id
 * (`anthropic.claude-…`, `us.anthropic.claude-…`) or an endpoint on AWS or Azure says so.
 */
export function servedWithoutToolset(model: string, baseUrl: string | undefined): boolean {
  if (/(^|\.)anthropic\.claude/i.test(model)) return true;
  let host = '';
  try {
    host = baseUrl !== undefined ? new URL(baseUrl).hostname.toLowerCase() : '';
  } catch {
    host = '';
  }
  return /bedrock|amazonaws\.com$|azure\.com$|foundry/.test(host);
}

/**
 * Claude's tool for `auto`: the toolset for Claude 5 and later, and for a name that is not
 * Claude's (a proxy's alias: the current tool; a model that refuses it says so, and the error names
 * the flag that picks another), unless it is served on Bedrock or Foundry; else the older tool its
 * generation takes.
 */
export function autoClaudeTool(model: string, baseUrl?: string): AnthropicComputerTool {
  if (servedWithoutToolset(model, baseUrl)) return legacyClaudeToolFor(model);
  const name = claudeNameOf(model);
  if (name === null || name.major >= 5) return 'computer_toolset_20260801';
  return legacyClaudeToolFor(model);
}

/** OpenAI's tool for `auto`: the preview tool for `computer-use-preview`, the GA tool for every other name (GPT-5.4 and later). */
export function autoOpenAiTool(model: string): OpenAiComputerTool {
  return /computer-use-preview/i.test(model) ? 'computer_use_preview' : 'computer';
}

/**
 * The tool a model is asked with: the setting, else for `auto` (or none) an older Claude tool
 * pinned by `model.anthropic.toolVersion` (the setting that came first), else the model's own;
 * null for the families with no vendor tool.
 */
export function computerToolOf(model: {
  family: string;
  model: string;
  baseUrl?: string | undefined;
  computerTool?: ComputerToolChoice | undefined;
  anthropic?: { toolVersion?: Exclude<AnthropicComputerTool, 'computer_toolset_20260801'> | undefined } | undefined;
}): ComputerTool | null {
  const chosen = model.computerTool === undefined || model.computerTool === 'auto' ? null : model.computerTool;
  if (model.family === 'anthropic') return (chosen as AnthropicComputerTool | null) ?? model.anthropic?.toolVersion ?? autoClaudeTool(model.model, model.baseUrl);
  if (model.family === 'openai-cua') return (chosen as OpenAiComputerTool | null) ?? autoOpenAiTool(model.model);
  return null;
}

/**
 * A provider's 400 that names the tool it refused, said with the fix in one line: the other tool
 * and the flag that picks it. Null when the message is about something else.
 */
export function toolRejectionFix(family: string, used: ComputerTool, message: string): string | null {
  const text = message.toLowerCase();
  const names = family === 'anthropic' ? ['computer_toolset', 'computer_2025', 'toolset', 'computer use', 'computer-use', 'tools.0'] : ['computer_use_preview', 'computer', 'tools[0]', 'tools.0'];
  if (!names.some((name) => text.includes(name))) return null;
  const other: ComputerTool = family === 'anthropic' ? (used === 'computer_toolset_20260801' ? 'computer_20251124' : 'computer_toolset_20260801') : used === 'computer' ? 'computer_use_preview' : 'computer';
  return `the model refused the ${used} tool; try the ${other} tool: --computer-tool ${other} (or "computerTool": "${other}" in config.json's model)`;
}
