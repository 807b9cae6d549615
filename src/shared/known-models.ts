/**
 * The models people use for computer use, and how each is spoken: its family, the computer tool it
 * is asked with, the coordinate space it answers in, and the bounds of its smart resize when it
 * answers in one. Each row names
 * the model card (or the vendor's documentation) its facts come from; docs/models.md lists them
 * and says where a row is uncertain. `mnemo run --model NAME` without `--family` uses this table,
 * and so does choosing a model name in Settings.
 *
 * Pure data and one lookup: the CLI, the core and the window share it.
 */
import { coordinateSpaceOf, type CoordinateSpaceName } from './model-families';

export interface KnownModel {
  /** The model as the docs and Settings call it. */
  readonly name: string;
  /**
   * Model names it covers, as providers spell them (Hugging Face ids with their organisation,
   * Ollama tags, API names); case-insensitive.
   */
  readonly pattern: RegExp;
  /** The family that speaks it. */
  readonly family: string;
  /**
   * The computer tool or protocol the model is asked with (markdown, as docs/models.md shows it):
   * the vendor's tool for the families that have one (a `model.computerTool` of `auto` follows it),
   * else the family's own prompt.
   */
  readonly tool: string;
  readonly coordinates: CoordinateSpaceName;
  /** UI-TARS only. */
  readonly modelVersion?: '1.0' | '1.5';
  /** For `smart-resize`: the bounds its processor resizes with (UI-TARS-1.5's when absent). */
  readonly smartResize?: { readonly factor: number; readonly minPixels: number; readonly maxPixels: number };
  /** The model card or documentation the row's facts come from. */
  readonly source: string;
  /** What the source does not settle, when something does not; check such a model with `mnemo check-model --grounding`. */
  readonly uncertain?: string;
}

/** Qwen2.5-VL's own processor bounds (qwen-vl-utils): 4 to 16384 patches of 28×28. */
const QWEN_2_5_VL_RESIZE = { factor: 28, minPixels: 4 * 28 * 28, maxPixels: 16384 * 28 * 28 } as const;

/** First match wins: the specific rows come before the general ones. */
export const KNOWN_MODELS: readonly KnownModel[] = [
  {
    name: 'UI-TARS-2',
    pattern: /ui-?tars-?2(?![\db])/i,
    family: 'ui-tars',
    tool: 'the UI-TARS text format, points as `<point>x y</point>`',
    coordinates: 'relative-1000',
    modelVersion: '1.0',
    source: 'https://arxiv.org/abs/2509.02544',
    uncertain:
      "no weights or model card are public; the report keeps the UI-TARS action format, and OSWorld's agent for the Seed/Doubao API asks for click(point='<point>x1 y1</point>') and reads the points on a 0-1000 grid, as the Doubao UI-TARS models write them",
  },
  {
    name: 'UI-TARS-1.5',
    pattern: /ui-?tars-?1\.5/i,
    family: 'ui-tars',
    tool: 'the UI-TARS text format',
    coordinates: 'smart-resize',
    modelVersion: '1.5',
    source: 'https://huggingface.co/ByteDance-Seed/UI-TARS-1.5-7B',
  },
  {
    name: 'UI-TARS (1.0) and the Doubao UI-TARS models',
    pattern: /ui-?tars/i,
    family: 'ui-tars',
    tool: 'the UI-TARS text format',
    coordinates: 'relative-1000',
    modelVersion: '1.0',
    source: 'https://huggingface.co/ByteDance-Seed/UI-TARS-7B-DPO',
  },
  {
    name: 'OpenCUA',
    pattern: /opencua/i,
    family: 'pyautogui',
    tool: 'pyautogui code',
    coordinates: 'smart-resize',
    smartResize: QWEN_2_5_VL_RESIZE,
    source: 'https://huggingface.co/xlangai/OpenCUA-7B',
    uncertain:
      'OpenCUA-7B and -32B are run with absolute coordinates of the Qwen2.5-VL resize (OSWorld\'s "qwen25"); OpenCUA-72B is asked with another system prompt and its coordinate type is not stated: assumed the same',
  },
  {
    name: 'GTA1',
    pattern: /gta-?1(?![\d.])/i,
    family: 'tools',
    tool: 'a function tool (the family\'s prompt)',
    coordinates: 'smart-resize',
    smartResize: { factor: 28, minPixels: 3136, maxPixels: 4096 * 2160 },
    source: 'https://github.com/Yan98/GTA1',
    uncertain:
      'a grounding model: its inference example answers "(x,y)" in pixels of the Qwen2.5-VL resize with max_pixels 4096×2160 (the 2507 model); the later Salesforce/GTA1-7B and -32B are assumed to answer the same way; in OSWorld it grounds a planner\'s steps rather than acting alone',
  },
  {
    name: 'UI-Venus',
    pattern: /ui-?venus/i,
    family: 'tools',
    tool: 'a function tool (the family\'s prompt)',
    coordinates: 'smart-resize',
    smartResize: { factor: 28, minPixels: 2_000_000, maxPixels: 4_800_000 },
    source: 'https://huggingface.co/inclusionAI/UI-Venus-Ground-7B',
    uncertain: 'the resize bounds are those of the card\'s grounding example; a server started with other bounds needs them in model.smartResize',
  },
  {
    name: 'Holo3',
    pattern: /holo-?3/i,
    family: 'tools',
    tool: 'a function tool (the family\'s prompt)',
    coordinates: 'relative-1000',
    source: 'https://hub.hcompany.ai/element-localization',
    uncertain:
      "H Company's documentation gives points as integers in [0, 1000] of the image sent; Holo3's own agent harness answers with a JSON object of its own (note, thought, tool_call), which the tools family does not read: the row is for its coordinates",
  },
  {
    name: 'Holo2',
    pattern: /holo-?2/i,
    family: 'tools',
    tool: 'a function tool (the family\'s prompt)',
    coordinates: 'relative-1000',
    source: 'https://huggingface.co/Hcompany/Holo2-8B',
    uncertain: 'taken from its Qwen3-VL base, which writes points on a 0-1000 grid',
  },
  {
    name: 'Holo1.5 and Holo1',
    pattern: /holo-?1/i,
    family: 'tools',
    tool: 'a function tool (the family\'s prompt)',
    coordinates: 'smart-resize',
    smartResize: QWEN_2_5_VL_RESIZE,
    source: 'https://huggingface.co/Hcompany/Holo1.5-7B',
  },
  {
    name: 'GUI-Actor',
    pattern: /gui-?actor/i,
    family: 'tools',
    tool: 'a function tool (the family\'s prompt)',
    coordinates: 'relative-1',
    source: 'https://huggingface.co/microsoft/GUI-Actor-7B-Qwen2.5-VL',
    uncertain: 'coordinate-free: its action head points at image patches and its own inference code returns the point as fractions 0-1 of the image; a plain OpenAI-compatible server does not run that head',
  },
  {
    name: 'Qwen3.5',
    pattern: /qwen-?3\.5/i,
    family: 'tools',
    tool: 'a function tool (the family\'s prompt)',
    coordinates: 'relative-1000',
    source: 'https://www.alibabacloud.com/blog/qwen3-5-towards-native-multimodal-agents_602894',
    uncertain: 'the release does not state the grid; assumed 0-1000 as Qwen3-VL writes, and as Holo3, fine-tuned from Qwen3.5-35B-A3B, answers',
  },
  {
    name: 'Qwen3-VL',
    pattern: /qwen-?3-?vl/i,
    family: 'tools',
    tool: 'a function tool (the family\'s prompt)',
    coordinates: 'relative-1000',
    source: 'https://huggingface.co/Qwen/Qwen3-VL-8B-Instruct',
  },
  {
    name: 'Qwen2.5-VL',
    pattern: /qwen-?2\.?5-?vl/i,
    family: 'tools',
    tool: 'a function tool (the family\'s prompt)',
    coordinates: 'smart-resize',
    smartResize: QWEN_2_5_VL_RESIZE,
    source: 'https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct',
  },
  {
    name: 'GLM-4.5V and GLM-4.6V',
    pattern: /glm-?4\.[56]v/i,
    family: 'tools',
    tool: 'a function tool (the family\'s prompt)',
    coordinates: 'relative-1000',
    source: 'https://huggingface.co/zai-org/GLM-4.5V',
  },
  {
    name: 'Claude (computer use), Claude 5 included',
    pattern: /claude/i,
    family: 'anthropic',
    tool: '`computer_toolset_20260801` (Claude 5 and later, on the Claude API and Google Cloud); `computer_20251124` (Opus 4.5 and later, Sonnet 4.6 and later, and Claude 5 on Bedrock and Foundry); `computer_20250124` (the earlier models)',
    coordinates: 'image',
    source: 'https://platform.claude.com/docs/en/agents-and-tools/tool-use/computer-use-tool',
    uncertain:
      "the toolset and the platforms that take it are as Mnemo's issue 29 states: the stored copy of Anthropic's page lists only computer_20251124 (Opus 4.7, Opus 4.6, Sonnet 4.6, Opus 4.5) and computer_20250124 (Sonnet 4.5, Haiku 4.5, Opus 4.1 and older)",
  },
  {
    name: 'Gemini computer use (2.5 and 3.x)',
    pattern: /gemini-(?:2\.5-computer-use|3)/i,
    family: 'gemini',
    tool: 'the `computer_use` tool (`computerUse`)',
    coordinates: 'relative-1000',
    source: 'https://ai.google.dev/gemini-api/docs/computer-use',
    uncertain: 'every gemini-3 name is taken for a computer-use model; which 3.x models take the tool was not checked against a copy of the page',
  },
  {
    name: 'OpenAI GPT-5.4 and later (computer use)',
    pattern: /(?:^|\/)gpt-5\.(?:[4-9]|[1-9]\d)(?!\d)(?!-(?:mini|nano)\b)/i,
    family: 'openai-cua',
    tool: '`computer` (the GA tool; actions in batches, `actions`)',
    coordinates: 'image',
    source: 'https://developers.openai.com/docs/guides/tools-computer-use',
    uncertain:
      'the guide names gpt-5.4 and says later models build on it: 5.5 and 5.6 are assumed to take the tool; the mini and nano models are left out; until the computer-tool setting lands, the openai-cua family asks with computer_use_preview',
  },
  {
    name: 'OpenAI computer-use-preview',
    pattern: /(?:^|\/)computer-use-preview/i,
    family: 'openai-cua',
    tool: '`computer_use_preview`',
    coordinates: 'image',
    source: 'https://platform.openai.com/docs/guides/tools-computer-use',
  },
];

/** The row that covers a model name, or undefined for a model the table does not know. */
export function knownModel(name: string): KnownModel | undefined {
  const trimmed = name.trim();
  if (trimmed === '') return undefined;
  return KNOWN_MODELS.find((row) => row.pattern.test(trimmed));
}

/**
 * What a known model's row sets in the model settings: its family, space and resize (and UI-TARS
 * version). The space is left out where it is the family's own, so config.json stays as short as
 * the user would write it.
 */
export function settingsOfKnownModel(row: KnownModel): { family: string; coordinates?: CoordinateSpaceName; modelVersion?: '1.0' | '1.5'; smartResize?: KnownModel['smartResize'] } {
  const ownSpace = coordinateSpaceOf({ family: row.family, modelVersion: row.modelVersion });
  return {
    family: row.family,
    ...(row.coordinates !== ownSpace ? { coordinates: row.coordinates } : {}),
    ...(row.modelVersion ? { modelVersion: row.modelVersion } : {}),
    ...(row.smartResize && row.coordinates === 'smart-resize' ? { smartResize: row.smartResize } : {}),
  };
}
