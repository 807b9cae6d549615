/**
 * The model families: one module each, whose parser is a pure function of the reply text.
 */
import { parseAnthropicReply } from './anthropic';
import { type AnthropicComputerTool, type ComputerToolChoice, type OpenAiComputerTool } from '../../../shared/model-families';
import { type ModelCoordinates } from './coordinates';
import { parseGeminiReply } from './gemini';
export { buildGeminiRequest, geminiSystemPrompt, type GeminiRequestSettings } from './gemini-request';
import { parseOpenAiCuaReply } from './openai-cua';
import { parsePyautoguiReply } from './pyautogui';
import { parseToolsReply } from './tools';
import { type ImageSize, type ModelFamily, type ReplyParse } from './types';
import { parseUiTarsReply, type UiTarsVersion } from './ui-tars';

export * from './types';
export { MODEL_FAMILIES } from '../../../shared/model-families';
export {
  scaleAction,
  mapActionPoints,
  mapPoint,
  checkActionInImage,
  checkActionsInImage,
} from './common';
export {
  COMPUTER_TOOL_NAME,
  ZOOM_TOOL_NAME,
  computerToolDefinition,
  zoomToolDefinition,
  parseToolsMessage,
  parseToolsReply,
  parseToolsText,
  type FunctionToolDefinition,
  type ToolsExtras,
  type ToolsOptions,
  type ToolsParse,
} from './tools';
export {
  SMART_RESIZE_MAX_RATIO,
  UI_TARS_1_5_RESIZE,
  UI_TARS_CALL_USER_QUESTION,
  UI_TARS_RELATIVE_RANGE,
  UI_TARS_SCROLL_AMOUNT,
  UI_TARS_VERSIONS,
  UI_TARS_WAIT_MS,
  fromSmartResized,
  parseUiTarsReply,
  readUiTarsPoint,
  smartResize,
  type UiTarsExtras,
  type UiTarsOptions,
  type UiTarsParse,
} from './ui-tars';
export {
  CUA_ENVIRONMENTS,
  CUA_SCROLL_PIXELS_PER_NOTCH,
  CUA_WAIT_MS,
  computerCallOutput,
  computerUsePreviewTool,
  cuaToolEntry,
  COMPUTER_TOOL,
  memoryFunctionTools,
  mnemoFunctionTools,
  workflowFunctionTool,
  parseOpenAiCuaReply,
  parseOpenAiCuaResponse,
  type CuaEnvironment,
  type CuaExtras,
  type CuaOptions,
  type CuaParse,
} from './openai-cua';
export {
  GEMINI_DESKTOP_URL,
  GEMINI_ENVIRONMENTS,
  GEMINI_EXCLUDED_FUNCTIONS,
  GEMINI_GRID,
  GEMINI_KEY_EQUIVALENTS,
  GEMINI_SCROLL_MAGNITUDE,
  GEMINI_WAIT_MS,
  fromGeminiGrid,
  geminiCoordinateFrame,
  geminiComputerUseTool,
  geminiFunctionDeclarations,
  geminiThoughtOf,
  geminiTools,
  parseGeminiContent,
  parseGeminiReply,
  readGeminiReply,
  toGeminiGrid,
  type GeminiEnvironment,
  type GeminiExtras,
  type GeminiParse,
  type GeminiParseOptions,
  type GeminiReply,
} from './gemini';

export {
  ANTHROPIC_BETA,
  ANTHROPIC_COMPUTER_TOOL,
  ANTHROPIC_COMPUTER_TOOLSET,
  ANTHROPIC_MAX_DURATION_S,
  ANTHROPIC_MAX_KEY_REPEAT,
  ANTHROPIC_TOOLSET_MEMBERS,
  ANTHROPIC_TOOLSET_TYPE,
  claudeNameOf,
  computerTool,
  computerToolEntry,
  computerToolset,
  isComputerCall,
  imageLimitsFor,
  mapComputerAction,
  mnemoTools,
  parseAnthropicMessage,
  parseAnthropicReply,
  toolVersionFor,
  type AnthropicExtras,
  type AnthropicImageLimits,
  type AnthropicOptions,
  type AnthropicParse,
  type AnthropicToolVersion,
  type AnthropicToolsetMember,
} from './anthropic';

export {
  COORDINATE_SPACES,
  actionToImage,
  actionToModel,
  actionsToImage,
  checkActionOnGrid,
  describeCoordinates,
  describeGrid,
  frameFor,
  gridOf,
  imageToModel,
  modelToImage,
  onGrid,
  pixelFrame,
  readModelPoint,
  type ModelCoordinates,
} from './coordinates';
export {
  PYAUTOGUI_CALLS,
  PYAUTOGUI_MAX_SCROLL,
  PYAUTOGUI_WAIT_MS,
  formatPyautoguiAction,
  parsePyautoguiReply,
  type PyautoguiExtras,
  type PyautoguiOptions,
  type PyautoguiParse,
} from './pyautogui';

export interface ParseReplyOptions {
  /** Pixels of the image the coordinates refer to (see each family for details). */
  readonly image?: ImageSize;
  /** UI-TARS only; default: see `defaultUiTarsVersion`. */
  readonly uiTarsVersion?: UiTarsVersion;
  /** `tools`, `ui-tars`, `pyautogui`: the space the points are written in, mapped onto `image`. */
  readonly coordinates?: ModelCoordinates | undefined;
  /**
   * The points as the model wrote them, in whatever space: no image, no mapping, only negative
   * values refused (the grounding check reads answers this way to find their space).
   */
  readonly raw?: boolean;
  /** `anthropic`, `openai-cua`: the vendor tool the reply must have been written for (absent or auto: either). */
  readonly computerTool?: ComputerToolChoice | undefined;
}

/**
 * The UI-TARS version to assume when none is given: with an image, 1.5 (the current model, whose
 * coordinates are pixels of the image it saw); without one, 1.0, whose 0–1000 relative space is
 * the only coordinate space known without an image.
 */
export function defaultUiTarsVersion(image: ImageSize | undefined): UiTarsVersion {
  return image ? '1.5' : '1.0';
}

const chosenTool = (choice: ComputerToolChoice | undefined) => (choice === undefined || choice === 'auto' ? undefined : choice);

/** Parse one raw reply of the given family. Never throws for a bad reply. */
export function parseReply(family: ModelFamily, text: string, options: ParseReplyOptions = {}): ReplyParse {
  const image = options.raw ? undefined : options.image;
  const coordinates = options.raw ? undefined : options.coordinates;
  switch (family) {
    case 'tools':
      return parseToolsReply(text, { image, coordinates });
    case 'ui-tars':
      // Raw: 1.5 without an image returns points as written.
      return parseUiTarsReply(text, {
        version: options.raw ? '1.5' : (options.uiTarsVersion ?? defaultUiTarsVersion(image)),
        ...(image ? { image } : {}),
        coordinates,
      });
    case 'openai-cua':
      return parseOpenAiCuaReply(text, { image, tool: chosenTool(options.computerTool) as OpenAiComputerTool | undefined });
    case 'anthropic':
      return parseAnthropicReply(text, { image, tool: chosenTool(options.computerTool) as AnthropicComputerTool | undefined });
    case 'gemini':
      return parseGeminiReply(text, { image });
    case 'pyautogui':
      return parsePyautoguiReply(text, { ...(image ? { image } : {}), coordinates });
  }
}
