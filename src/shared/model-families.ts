/**
 * The reply formats Mnemo reads (src/main/model/families/) and the UI-TARS versions, as plain
 * lists: the schemas build on them, and the CLI offers them as choices at every start without
 * loading a schema library.
 */
export const MODEL_FAMILIES = ['tools', 'ui-tars', 'openai-cua', 'anthropic', 'gemini', 'pyautogui'] as const;

/** UI-TARS 1.0 (and Doubao) answer in 0-1000 relative coordinates, 1.5 in pixels of the image it saw. */
export const UI_TARS_VERSIONS = ['1.0', '1.5'] as const;

/**
 * The coordinate spaces models answer in, for the image they were sent: its pixels; pixels of the
 * image after the Qwen-VL smart resize; a 0-1000 grid; fractions 0-1 of each side.
 */
export const COORDINATE_SPACES = ['image', 'smart-resize', 'relative-1000', 'relative-1'] as const;
export type CoordinateSpaceName = (typeof COORDINATE_SPACES)[number];

/** The families whose coordinate space is a setting (`--coordinates`, `model.coordinates`). */
export const COORDINATE_FAMILIES = ['tools', 'ui-tars', 'pyautogui'] as const;

/** The families whose protocol fixes the space: the computer-use tools of OpenAI, Anthropic and Google. */
const FIXED_SPACES: Readonly<Record<string, CoordinateSpaceName>> = {
  'openai-cua': 'image',
  anthropic: 'image',
  // Gemini's computer-use tool writes every point on a 0-999 grid of the screenshot.
  gemini: 'relative-1000',
};

/** A model's coordinates, as its settings decide them: the space and, for `smart-resize`, the bounds. */
export interface ModelCoordinates {
  readonly space: CoordinateSpaceName;
  readonly smartResize?: { readonly factor?: number | undefined; readonly minPixels?: number | undefined; readonly maxPixels?: number | undefined } | undefined;
}

/** Whether a family takes `--coordinates`. */
export function takesCoordinates(family: string): boolean {
  return (COORDINATE_FAMILIES as readonly string[]).includes(family);
}

/**
 * The space a model answers in: the one its protocol fixes, else the one set, else the family's
 * own (what Mnemo always assumed): pixels of the image for `tools` and `pyautogui`, 0-1000 for
 * UI-TARS 1.0, the smart-resized image for UI-TARS 1.5 (the default version).
 */
export function coordinateSpaceOf(model: { family: string; modelVersion?: string | undefined; coordinates?: CoordinateSpaceName | undefined }): CoordinateSpaceName {
  const fixed = FIXED_SPACES[model.family];
  if (fixed !== undefined) return fixed;
  if (model.coordinates !== undefined) return model.coordinates;
  if (model.family === 'ui-tars') return model.modelVersion === '1.0' ? 'relative-1000' : 'smart-resize';
  return 'image';
}

/** The space and resize bounds of a model's settings. */
export function modelCoordinatesOf(model: Parameters<typeof coordinateSpaceOf>[0] & { smartResize?: ModelCoordinates['smartResize'] }): ModelCoordinates {
  const space = coordinateSpaceOf(model);
  return space === 'smart-resize' && model.smartResize ? { space, smartResize: model.smartResize } : { space };
}

/** Why `coordinates` cannot be set for this family, or null when it can (or is not set). */
export function coordinatesProblem(model: { family: string; coordinates?: CoordinateSpaceName | undefined }): string | null {
  if (model.coordinates === undefined || takesCoordinates(model.family)) return null;
  const fixed = FIXED_SPACES[model.family];
  return `coordinates apply to the families ${COORDINATE_FAMILIES.join(', ')}; ${model.family} answers in ${fixed ?? 'image'} coordinates, as its protocol says`;
}

/**
 * The vendor computer tools Mnemo speaks, per family (`model.computerTool`, `--computer-tool`):
 * Claude's GA toolset and its two older single tools; OpenAI's GA `computer` tool and the preview
 * one. `auto` picks one from the model's name (src/shared/computer-tool.ts).
 */
export const ANTHROPIC_COMPUTER_TOOLS = ['computer_toolset_20260801', 'computer_20251124', 'computer_20250124'] as const;
export const OPENAI_COMPUTER_TOOLS = ['computer', 'computer_use_preview'] as const;
export const COMPUTER_TOOL_CHOICES = ['auto', ...ANTHROPIC_COMPUTER_TOOLS, ...OPENAI_COMPUTER_TOOLS] as const;
export type ComputerToolChoice = (typeof COMPUTER_TOOL_CHOICES)[number];
export type AnthropicComputerTool = (typeof ANTHROPIC_COMPUTER_TOOLS)[number];
export type OpenAiComputerTool = (typeof OPENAI_COMPUTER_TOOLS)[number];
export type ComputerTool = AnthropicComputerTool | OpenAiComputerTool;

/** The families whose vendor tool is a setting, and the tools each takes. */
export const COMPUTER_TOOLS_OF: Readonly<Record<string, readonly ComputerTool[]>> = {
  anthropic: ANTHROPIC_COMPUTER_TOOLS,
  'openai-cua': OPENAI_COMPUTER_TOOLS,
};

/** Why `computerTool` cannot be set for this family, or null when it can (or is `auto`, or not set). */
export function computerToolProblem(model: { family: string; computerTool?: ComputerToolChoice | undefined }): string | null {
  if (model.computerTool === undefined || model.computerTool === 'auto') return null;
  const tools = COMPUTER_TOOLS_OF[model.family];
  if (tools === undefined) {
    return `computerTool applies to the families ${Object.keys(COMPUTER_TOOLS_OF).join(', ')}; ${model.family} is asked in its own format (use auto)`;
  }
  if (!(tools as readonly string[]).includes(model.computerTool)) {
    return `computerTool ${model.computerTool} is not a ${model.family} tool: choose auto, ${tools.join(', ')}`;
  }
  return null;
}

/** The first problem of a model's settings that the schema alone cannot see (coordinates, computer tool), or null. */
export function modelSettingsProblem(model: { family: string; coordinates?: CoordinateSpaceName | undefined; computerTool?: ComputerToolChoice | undefined }): string | null {
  return coordinatesProblem(model) ?? computerToolProblem(model);
}
