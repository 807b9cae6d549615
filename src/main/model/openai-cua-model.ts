/**
 * The `openai-cua` family: OpenAI computer use over the Responses API.
 *
 * Every request carries the computer tool `model.computerTool` names (`auto`: docs/models.md): the
 * GA `computer` tool (GPT-5.4 and later: no display size, coordinates are pixels of the screenshot,
 * sent at its original detail), or `computer_use_preview` with the screenshot's size as the display
 * (so the model's coordinates are pixels of the screenshot); and `truncation: "auto"`, which the
 * preview tool requires. The conversation lives on the server: when the last step's reply (`StepRecord.reply`)
 * is a response with computer calls, the next request names it in `previous_response_id` and
 * answers each call with a `computer_call_output` holding the new screenshot, acknowledging the
 * safety checks the user accepted. Otherwise a new response starts, with the task, the history as
 * text and the screenshot.
 */
import {
  type EasyInputMessage,
  type ResponseCreateParamsNonStreaming,
  type ResponseInputItem,
} from 'openai/resources/responses/responses';
import { computerToolOf } from '../../shared/computer-tool';
import { type OpenAiComputerTool } from '../../shared/model-families';
import { type ModelSettings } from '../../shared/settings';
import { type ModelClient } from './client';
import {
  computerCallOutput,
  cuaToolEntry,
  mnemoFunctionTools,
  type CuaCall,
  type CuaEnvironment,
  parseOpenAiCuaReply,
  parseOpenAiCuaResponse,
  pixelFrame,
  type CoordinateFrame,
  type ImageSize,
  type SafetyCheck,
} from './families';
import { imageDataUrl, parsedPrediction, sizeOf, ThoughtStream } from './messages';
import { usageOf } from './pricing';
import { type PredictInput, type Prediction, type StepRecord, type ThoughtListener } from './types';
import { elementsPromptOf } from './element-aid';
import { withToolFix } from './tool-rejection';
import { FamilyModel, type FamilyModelDeps } from './family-model';

export type OpenAiCuaModelSettings = Pick<ModelSettings, 'model' | 'temperature' | 'maxOutputTokens'> & Partial<Pick<ModelSettings, 'computerTool' | 'baseUrl'>>;

/** The computer tool a request carries: the setting, or the model's own for `auto`. */
export function cuaToolOf(settings: OpenAiCuaModelSettings): OpenAiComputerTool {
  return computerToolOf({ family: 'openai-cua', ...settings }) as OpenAiComputerTool;
}

export interface OpenAiCuaModelDeps extends FamilyModelDeps<ModelClient> {
  environment: CuaEnvironment;
}

/** The environment the tool declares, from Node's platform name. */
export function cuaEnvironmentFor(platform: string): CuaEnvironment {
  if (platform === 'darwin') return 'mac';
  if (platform === 'win32') return 'windows';
  return 'linux';
}

const BASE_INSTRUCTIONS =
  'You operate the computer for the user to complete their task. Act without asking for confirmation, ' +
  'except before an action that cannot be undone (deleting, sending, paying). When the task is done, ' +
  'answer with a short summary of the result.';

function instructionsFor(extra: string | undefined): string {
  return extra !== undefined && extra.trim() !== '' ? `${BASE_INSTRUCTIONS}\n\n${extra.trim()}` : BASE_INSTRUCTIONS;
}

/** The screenshot as an input image: the GA tool's coordinates are pixels of it, so it goes at its original detail. */
function inputImage(input: PredictInput, tool: OpenAiComputerTool) {
  return { type: 'input_image' as const, image_url: imageDataUrl(input.observation), detail: tool === 'computer' ? ('original' as const) : ('auto' as const) };
}

function describeStep(step: StepRecord): string {
  const thought = step.thought ? ` ${step.thought}` : '';
  const actions = step.actions.length > 0 ? ` Actions: ${JSON.stringify(step.actions)}.` : '';
  const results = step.results.trim() !== '' ? ` Result: ${step.results.trim()}` : '';
  return `Step ${step.step}:${thought}${actions}${results}`;
}

interface Chain {
  responseId: string;
  calls: CuaCall[];
}

/** The response to continue: the last step's reply, when it is a response with an id. */
function chainOf(history: readonly StepRecord[]): Chain | null {
  const reply = history.at(-1)?.reply;
  if (reply === undefined || reply.trim() === '') return null;
  const parsed = parseOpenAiCuaReply(reply);
  if (!parsed.ok || parsed.responseId === null) return null;
  return { responseId: parsed.responseId, calls: parsed.calls };
}

/** Which accepted checks answer which call: by id, else the last call takes the rest. */
function acknowledgedFor(calls: readonly CuaCall[], accepted: readonly SafetyCheck[]): SafetyCheck[][] {
  const perCall = calls.map(() => [] as SafetyCheck[]);
  for (const check of accepted) {
    const index = calls.findIndex((call) => call.pendingSafetyChecks.some((pending) => pending.id === check.id));
    const target = index >= 0 ? index : calls.length - 1;
    perCall[target]?.push(check);
  }
  return perCall;
}

export function buildOpenAiCuaRequest(
  input: PredictInput,
  settings: OpenAiCuaModelSettings,
  environment: CuaEnvironment,
): ResponseCreateParamsNonStreaming {
  const chosen = cuaToolOf(settings);
  const tool = cuaToolEntry(chosen, sizeOf(input.observation), environment);
  const items: ResponseInputItem[] = [];
  const chain = chainOf(input.history);
  const given = input.feedback !== undefined && input.feedback.trim() !== '' ? input.feedback.trim() : null;
  // The elements aid goes with the words of the turn that carries the screenshot it was read with.
  const elements = elementsPromptOf(input, { byNumber: true });
  const feedback = given !== null && elements !== null ? `${given}\n\n${elements}` : (given ?? elements);

  if (chain !== null && chain.calls.length > 0) {
    const screenshot = imageDataUrl(input.observation);
    const computerCalls = chain.calls.filter((call) => call.kind !== 'function');
    const acknowledged = acknowledgedFor(computerCalls, input.acknowledgedSafetyChecks ?? []);
    computerCalls.forEach((call, index) => {
      items.push(computerCallOutput(call.callId, screenshot, acknowledged[index] ?? []));
    });
    // A memory function's answer is the step's result (the recalled text, "saved ...").
    const results = input.history.at(-1)?.results.trim() || 'done';
    for (const call of chain.calls) if (call.kind === 'function') items.push({ type: 'function_call_output', call_id: call.callId, output: results });
    if (computerCalls.length === 0) items.push({ role: 'user', content: [{ type: 'input_text', text: feedback ?? 'Current screen:' }, inputImage(input, chosen)] } satisfies EasyInputMessage);
    else if (feedback !== null) items.push({ role: 'user', content: feedback } satisfies EasyInputMessage);
  } else if (chain !== null) {
    // The model answered in words (a question, a summary): the user's answer and a new look.
    items.push({
      role: 'user',
      content: [{ type: 'input_text', text: feedback ?? 'Continue.' }, inputImage(input, chosen)],
    } satisfies EasyInputMessage);
  } else {
    const parts = [`Task: ${input.task}`];
    if (input.history.length > 0) parts.push(`Steps so far:\n${input.history.map(describeStep).join('\n')}`);
    if (feedback !== null) parts.push(feedback);
    items.push({
      role: 'user',
      content: [{ type: 'input_text', text: parts.join('\n\n') }, inputImage(input, chosen)],
    } satisfies EasyInputMessage);
  }

  return {
    model: settings.model,
    instructions: instructionsFor(input.system),
    input: items,
    tools: [tool, ...mnemoFunctionTools(input.workflows === true, input.elements !== undefined)],
    truncation: 'auto',
    reasoning: { summary: 'concise' },
    ...(chain !== null ? { previous_response_id: chain.responseId } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.maxOutputTokens !== undefined ? { max_output_tokens: settings.maxOutputTokens } : {}),
  };
}

export class OpenAiCuaModel extends FamilyModel<OpenAiCuaModelSettings, OpenAiCuaModelDeps> {
  readonly family = 'openai-cua' as const;

  /** The tool's display is the image sent: the model answers in its pixels. */
  coordinateFrame(image: ImageSize): CoordinateFrame {
    return pixelFrame(image);
  }

  protected async predictStep(input: PredictInput, signal?: AbortSignal, onThought?: ThoughtListener): Promise<Prediction> {
    const image = sizeOf(input.observation);
    const request = buildOpenAiCuaRequest(input, this.settings, this.deps.environment);
    const result = await this.deps.client.respond(request, signal);
    if (!result.ok) return { ok: false, error: withToolFix(this.family, cuaToolOf(this.settings), result.error), attempts: result.attempts };
    const response = result.value;
    const tokens = response.usage
      ? { inputTokens: response.usage.input_tokens, outputTokens: response.usage.output_tokens }
      : null;
    const usage = usageOf(tokens, this.model, this.deps.prices);
    const raw = JSON.stringify({ id: response.id, status: response.status, output: response.output, usage: response.usage });
    const parsed = parseOpenAiCuaResponse(response, { image });
    if (!parsed.ok) {
      const incomplete = response.status === 'incomplete' ? ` (the response is incomplete: ${response.incomplete_details?.reason ?? 'unknown reason'})` : '';
      return { ok: false, error: { kind: 'parse', message: `${parsed.reason}${incomplete}`, raw }, usage, attempts: result.attempts };
    }
    // Not streamed: the whole thought arrives at once, still before the prediction.
    new ThoughtStream((text) => text, onThought).finish(parsed.thought, result.attempts);
    return parsedPrediction(parsed, { usage, raw, attempts: result.attempts }, {
      pendingSafetyChecks: parsed.calls.flatMap((call) => call.pendingSafetyChecks),
      extras: { family: 'openai-cua', responseId: parsed.responseId, calls: parsed.calls },
    });
  }
}
