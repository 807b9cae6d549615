/**
 * The model families: one module each, whose parser is a pure function of the reply text.
 */
import { parseOpenAiCuaReply } from './openai-cua';
import { parseToolsReply } from './tools';
import { type ImageSize, type ModelFamily, type ReplyParse } from './types';
import { parseUiTarsReply, type UiTarsVersion } from './ui-tars';

export * from './types';
export {
  scaleAction,
  mapPoint,
  checkActionInImage,
  checkActionsInImage,
} from './common';
export {
  COMPUTER_TOOL_NAME,
  computerToolDefinition,
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
  type SmartResizeOptions,
  type UiTarsExtras,
  type UiTarsOptions,
  type UiTarsParse,
  type UiTarsVersion,
} from './ui-tars';
export {
  CUA_ENVIRONMENTS,
  CUA_SCROLL_PIXELS_PER_NOTCH,
  CUA_WAIT_MS,
  computerCallOutput,
  computerUsePreviewTool,
  memoryFunctionTools,
  parseOpenAiCuaReply,
  parseOpenAiCuaResponse,
  type CuaCall,
  type CuaEnvironment,
  type CuaExtras,
  type CuaOptions,
  type CuaParse,
  type SafetyCheck,
} from './openai-cua';

export interface ParseReplyOptions {
  /** Pixels of the image the coordinates refer to (see each family for details). */
  readonly image?: ImageSize;
  /** UI-TARS only; default: see `defaultUiTarsVersion`. */
  readonly uiTarsVersion?: UiTarsVersion;
}

/**
 * The UI-TARS version to assume when none is given: with an image, 1.5 (the current model, whose
 * coordinates are pixels of the image it saw); without one, 1.0, whose 0–1000 relative space is
 * the only coordinate space known without an image.
 */
export function defaultUiTarsVersion(image: ImageSize | undefined): UiTarsVersion {
  return image ? '1.5' : '1.0';
}

/** Parse one raw reply of the given family. Never throws for a bad reply. */
export function parseReply(family: ModelFamily, text: string, options: ParseReplyOptions = {}): ReplyParse {
  switch (family) {
    case 'tools':
      return parseToolsReply(text, { image: options.image });
    case 'ui-tars':
      return parseUiTarsReply(text, {
        version: options.uiTarsVersion ?? defaultUiTarsVersion(options.image),
        image: options.image,
      });
    case 'openai-cua':
      return parseOpenAiCuaReply(text, { image: options.image });
  }
}
