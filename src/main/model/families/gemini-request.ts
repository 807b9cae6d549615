/**
 * The `gemini` family's request (pure; the tool, the grid and the parser are in ./gemini.ts): the
 * conversation rebuilt from the history each step, the model's own turns passed back unchanged
 * with their thought signatures, and every function call answered in order by its response.
 */
import type { Content, FunctionResponse, GenerateContentParameters, Part } from '@google/genai';
import type { GeminiOptions } from '../../../shared/settings';
import type { ModelImage, PredictInput, StepRecord } from '../types';
import { describeSize, isRecord, nonEmpty } from './common';
import { GEMINI_DESKTOP_URL, GEMINI_MNEMO_FUNCTIONS, geminiTools, parseGeminiContent, readGeminiReply, type GeminiParseOptions, type GeminiReply } from './gemini';
import type { ImageSize } from './types';
import { elementsPromptOf } from '../element-aid';

const SYSTEM_PROMPT = (image: ImageSize) =>
  `You operate a computer for the user to complete their task. Each turn you get a screenshot of the whole screen (${describeSize(image)} pixels): a desktop with its windows, which may or may not be a web browser.

Use the computer-use functions to act. go_back and go_forward press Alt+Left and Alt+Right. To open an address, click the browser's address bar and type it. Every function response has the url "${GEMINI_DESKTOP_URL}": a desktop has no URL, so read a page's address in the screenshot.

When only the user can tell you something, call ask_user. Call save_fact to remember a lasting fact for later tasks, and query_long_term_memory to recall what earlier tasks taught. When the instructions offer a saved workflow that does the task, call run_workflow with its name and parameters.

Check each screenshot for the effect of your last actions before going on. When the task is done, answer with a short summary of the result and no function call.`;

export type GeminiRequestSettings = { model: string; temperature?: number | undefined; maxOutputTokens?: number | undefined; gemini?: GeminiOptions | undefined };

/** The system instruction: how Mnemo's desktop differs from the browser the tool expects, then the memory. */
export function geminiSystemPrompt(image: ImageSize, extra?: string): string {
  const prompt = SYSTEM_PROMPT(image);
  return extra !== undefined && extra.trim() !== '' ? `${prompt}\n\n${extra.trim()}` : prompt;
}

function imagePart(image: ModelImage): Part {
  return { inlineData: { mimeType: image.mime, data: image.image.toString('base64') } };
}

function placeholderOf(step: StepRecord): string {
  return step.screenshotPlaceholder ?? `[Screenshot removed - Step ${step.step}]`;
}

/** Contents built turn by turn; parts of the same role in a row join one turn. */
class Turns {
  readonly contents: Content[] = [];

  add(role: 'user' | 'model', ...parts: Part[]): void {
    if (parts.length === 0) return;
    const last = this.contents.at(-1);
    if (last?.role === role) last.parts = [...(last.parts ?? []), ...parts];
    else this.contents.push({ role, parts });
  }
}

/** A step's kept reply, when it reads as a Gemini reply with parts. */
function replyOf(step: StepRecord): GeminiReply | null {
  if (step.reply === undefined || step.reply.trim() === '') return null;
  try {
    const reply = readGeminiReply(JSON.parse(step.reply));
    return reply !== null && Array.isArray(reply.content.parts) && reply.content.parts.length > 0 ? reply : null;
  } catch {
    return null;
  }
}

/**
 * The responses to a step's function calls, in order: each computer-use call with the url, the
 * acknowledgement of its safety decision when it carried one, and the screenshot after the step.
 */
function functionResponses(reply: GeminiReply, step: StepRecord, after: ModelImage | string, acknowledged: (id: string) => boolean, options: GeminiParseOptions): Part[] {
  const parsed = parseGeminiContent(reply, options);
  const calls = (reply.content.parts ?? []).flatMap((part) => (part.functionCall ? [part.functionCall] : []));
  return calls.map((call, index): Part => {
    const name = call.name ?? '';
    const id = call.id ?? `${name}#${index + 1}`;
    const base: FunctionResponse = { name, ...(call.id ? { id: call.id } : {}) };
    if (!parsed.ok) return { functionResponse: { ...base, response: { error: `not run: ${parsed.reason}` } } };
    // A call the loop did not get to (the batch stopped before it: the screen changed; an action failed).
    const own = parsed.calls[index];
    if (own !== undefined && step.notRun !== undefined && own.actionIndex >= step.notRun.from) return { functionResponse: { ...base, response: { error: `not run: ${step.notRun.reason}` } } };
    if (GEMINI_MNEMO_FUNCTIONS.has(name)) return { functionResponse: { ...base, response: { result: step.results.trim() || 'done' } } };
    const safety = isRecord(call.args) && isRecord(call.args.safety_decision) && call.args.safety_decision.decision === 'require_confirmation';
    const response = {
      url: GEMINI_DESKTOP_URL,
      ...(safety && acknowledged(id) ? { safety_acknowledgement: 'true' } : {}),
      ...(typeof after === 'string' ? { screenshot: after } : {}),
    };
    return { functionResponse: { ...base, response, ...(typeof after === 'string' ? {} : { parts: [imagePart(after)] }) } };
  });
}

/**
 * The request of one step. The conversation is rebuilt from the history each time: the task with
 * the first screenshot, then per step the model's own turn (its reply kept unchanged, thought
 * signatures included) and the responses to its calls carrying the screenshot that followed.
 * A call that needed the user's yes is acknowledged when the user gave it: for the last step,
 * as the loop says (`acknowledgedSafetyChecks`); an older step's was, since the run went on.
 */
export function buildGeminiRequest(input: PredictInput, settings: GeminiRequestSettings): GenerateContentParameters & { contents: Content[] } {
  const image = { width: input.observation.width, height: input.observation.height };
  const turns = new Turns();
  const { history } = input;
  const first = history[0];
  const opening: Part[] = [{ text: `Task: ${input.task}` }];
  if (first !== undefined && first.step > 1) opening.push({ text: `(Steps 1 to ${first.step - 1} are summarised in the instructions.)` });
  if (first === undefined) opening.push(imagePart(input.observation));
  else opening.push(first.screenshot ? imagePart(first.screenshot) : { text: placeholderOf(first) });
  turns.add('user', ...opening);

  const lastAccepted = new Set((input.acknowledgedSafetyChecks ?? []).map((check) => check.id));
  history.forEach((step, index) => {
    const next = history[index + 1];
    const after: ModelImage | string = next === undefined ? input.observation : (next.screenshot ?? placeholderOf(next));
    const isLast = next === undefined;
    const reply = replyOf(step);
    const stepImage = step.screenshot ? { width: step.screenshot.width, height: step.screenshot.height } : image;
    if (reply === null) {
      // Not a Gemini reply (a run that changed family): the step as text.
      turns.add('model', { text: describeStep(step) });
      turns.add('user', ...(typeof after === 'string' ? [{ text: after }] : [imagePart(after)]));
      return;
    }
    turns.add('model', ...(reply.content.parts ?? []));
    const responses = functionResponses(reply, step, after, (id) => !isLast || lastAccepted.has(id), { image: stepImage });
    if (responses.length > 0) turns.add('user', ...responses);
    else turns.add('user', { text: step.results.trim() || 'Continue.' }, ...(typeof after === 'string' ? [{ text: after }] : [imagePart(after)]));
  });
  const feedback = nonEmpty(input.feedback);
  if (feedback !== null) turns.add('user', { text: feedback });
  const elements = elementsPromptOf(input, { byNumber: true });
  if (elements !== null) turns.add('user', { text: elements });

  const thoughts = settings.gemini?.includeThoughts !== false;
  return {
    model: settings.model,
    contents: turns.contents,
    config: {
      systemInstruction: geminiSystemPrompt(image, input.system),
      tools: geminiTools(settings.gemini?.environment ?? 'browser', input.workflows === true, input.elements !== undefined),
      ...(thoughts ? { thinkingConfig: { includeThoughts: true } } : {}),
      ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
      ...(settings.maxOutputTokens !== undefined ? { maxOutputTokens: settings.maxOutputTokens } : {}),
    },
  };
}

function describeStep(step: StepRecord): string {
  const thought = step.thought ? `${step.thought}\n` : '';
  return `${thought}Step ${step.step} actions: ${JSON.stringify(step.actions)}. Result: ${step.results.trim() || 'done'}`;
}
