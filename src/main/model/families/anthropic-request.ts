/**
 * The `anthropic` family's request: the conversation Claude's computer-use tool is trained on,
 * rebuilt from the history at every step (pure; the parser is in ./anthropic.ts).
 *
 * - The tool is `model.computerTool`'s (`auto`: the toolset for Claude 5 and later on the Claude
 *   API and Google Cloud, else the older tool the model takes; src/shared/computer-tool.ts): the
 *   toolset entry with no beta header, or the older tool with its display and beta header.
 * - The first user turn holds the task and the first screenshot; each step is then the model's
 *   reply, replayed unchanged (thinking blocks and their signatures included, as the API requires),
 *   and a user turn answering each of its `tool_use` blocks with a `tool_result`, in order: for the
 *   older tool the screenshot taken after the call (the loop's capture, or the next step's
 *   screenshot for the reply's last call); for a toolset member a line saying what was done (and
 *   `toolset_name`, which the API requires on the answer to a member), the screenshot of a
 *   `screenshot` call; the zoomed region, the pointer, the text of Mnemo's own tools, or
 *   `is_error: true` with the reason when the call failed or was not run. The screen after the
 *   step follows the results when no result carried it.
 * - Prompt caching: breakpoints on the system prompt and on the newest three user turns. What
 *   changes at every step (the memory notes and the loop's feedback) goes after the newest
 *   breakpoint, in the newest turn only, so the prefix of one request is the prefix of the next
 *   and is read from the cache; the loop prunes old screenshots in chunks (pruning.ts,
 *   `cacheFriendly`), so that prefix survives several steps.
 */
import {
  type BetaContentBlockParam,
  type BetaImageBlockParam,
  type BetaMessageParam,
  type BetaTextBlockParam,
  type BetaToolResultBlockParam,
  type MessageCreateParamsBase,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { computerToolOf } from '../../../shared/computer-tool';
import { type AnthropicComputerTool, type ComputerToolChoice } from '../../../shared/model-families';
import { type AnthropicSettings } from '../../../shared/settings';
import { type ActionReport, type CapturedAfter, type ModelImage, type PredictInput, type StepRecord } from '../types';
import { ANTHROPIC_BETA, ANTHROPIC_COMPUTER_TOOLSET, ANTHROPIC_TOOLSET_TYPE, computerToolEntry, isComputerCall, mnemoTools, parseAnthropicMessage } from './anthropic';
import type { AnthropicCall } from './types';
import { isRecord } from './common';
import { elementsPromptOf } from '../element-aid';

/** The output token limit when the settings give none (with thinking, the budget comes on top). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

export interface AnthropicRequestSettings {
  model: string;
  /** Where the model is served: Bedrock and Foundry take the older tool under `auto`. */
  baseUrl?: string | undefined;
  computerTool?: ComputerToolChoice | undefined;
  maxOutputTokens?: number | undefined;
  temperature?: number | undefined;
  anthropic?: AnthropicSettings | undefined;
}

/** The computer tool a request carries: the setting, the older tool pinned by `anthropic.toolVersion`, or the model's own. */
export function anthropicToolOf(settings: AnthropicRequestSettings): AnthropicComputerTool {
  return computerToolOf({ family: 'anthropic', ...settings }) as AnthropicComputerTool;
}

const EPHEMERAL = { type: 'ephemeral' as const };

/** The system prompt: the same at every step, so it stays in the cache. */
export const ANTHROPIC_SYSTEM_PROMPT = `You operate the user's computer to complete their task, with the computer tool: each screenshot shows the screen, and your coordinates are pixels of it. Several tool calls in one reply run in order; each result shows what followed.

Act without asking for confirmation, except before an action that cannot be undone (deleting, sending, paying): then use ask_user. Use ask_user too for anything only the user knows. Use save_fact to remember a lasting fact for later tasks, and query_long_term_memory to recall what earlier tasks taught. When the instructions offer a saved workflow that does the task, use run_workflow with its name and parameters.

Check each screenshot for the effect of your last actions before going on. When the task is done, answer without calling a tool: your answer is the summary the user reads.`;

/** A Messages request without `stream`, which the client sets; `betas` becomes the `anthropic-beta` header. */
export type AnthropicRequest = Omit<MessageCreateParamsBase, 'stream'>;

/** The whole request of one step. */
export function buildAnthropicRequest(input: PredictInput, settings: AnthropicRequestSettings): AnthropicRequest {
  const tool = anthropicToolOf(settings);
  const thinking = settings.anthropic?.thinking;
  const display = { width: input.observation.width, height: input.observation.height };
  return {
    model: settings.model,
    // With thinking the limit covers the thinking too: the budget comes on top of the answer's.
    max_tokens: (settings.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS) + (thinking?.budgetTokens ?? 0),
    system: [{ type: 'text' as const, text: ANTHROPIC_SYSTEM_PROMPT, cache_control: EPHEMERAL }],
    tools: [computerToolEntry(tool, display, settings.anthropic?.zoom ?? true), ...mnemoTools(input.workflows === true, input.elements !== undefined)],
    messages: buildAnthropicMessages(input),
    // The toolset is generally available: no beta header (an empty list would still send one).
    ...(tool === ANTHROPIC_TOOLSET_TYPE ? {} : { betas: [ANTHROPIC_BETA[tool]] }),
    // Thinking takes no temperature of ours (the API refuses one).
    ...(thinking ? { thinking: { type: 'enabled' as const, budget_tokens: thinking.budgetTokens } } : settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
  };
}

/** The turns of one request, the newest breakpoints set, the step's notes last. */
export function buildAnthropicMessages(input: PredictInput): BetaMessageParam[] {
  const turns = new Turns();
  const { history } = input;
  const first = history[0];
  turns.user([text(`Task: ${input.task}`)]);
  if (first !== undefined && first.step > 1) turns.user([text(`(Steps 1 to ${first.step - 1} are summarised in the memory notes.)`)]);
  turns.user(first ? screenshotOf(first) : [image(input.observation)]);
  history.forEach((step, index) => {
    const next = history[index + 1];
    const after = next ? screenshotOf(next) : [image(input.observation)];
    answerStep(turns, step, after);
  });
  const messages = turns.build();
  markNewestUserTurns(messages, 3);
  const notes = notesOf(input);
  if (notes.length > 0) {
    const last = messages.at(-1) as BetaMessageParam;
    (last.content as BetaContentBlockParam[]).push(...notes.map(text));
  }
  return messages;
}

/** The reply of a step as the API sent it, and the user turn answering its calls. */
function answerStep(turns: Turns, step: StepRecord, after: BetaContentBlockParam[]): void {
  const content = replyContent(step.reply);
  if (content === null) {
    // No reply kept (a history from elsewhere): the turn written from its thought and actions.
    const written = [step.thought ?? '', step.actions.length > 0 ? `Actions: ${JSON.stringify(step.actions)}` : ''].filter(Boolean).join('\n');
    if (written !== '') turns.assistant([text(written)]);
    turns.user([...(step.results.trim() !== '' ? [text(`Result: ${step.results.trim()}`)] : []), ...after]);
    return;
  }
  turns.assistant(content);
  const toolUses = content.filter((block) => block.type === 'tool_use') as Array<{ id: string }>;
  if (toolUses.length === 0) {
    turns.user([...(step.results.trim() !== '' ? [text(step.results.trim())] : []), ...after]);
    return;
  }
  const parsed = parseAnthropicMessage(content);
  // The loop ran none of the reply when it could not be used (then `reports` is absent).
  if (!parsed.ok || step.reports === undefined) {
    const reason = parsed.ok ? step.results.trim() : `the reply could not be used: ${parsed.reason}`;
    turns.user([...toolUses.map((use) => errorResult(use.id, reason || 'not run')), ...after]);
    return;
  }
  const results: BetaContentBlockParam[] = [];
  let screenShown = false;
  const inputs = toolInputsOf(content);
  parsed.calls.forEach((call, index) => {
    const last = index === parsed.calls.length - 1;
    const outcome = callResult(call, step, last ? after : null, inputs.get(call.id));
    results.push(outcome.block);
    screenShown ||= outcome.usedAfter;
  });
  turns.user([...results, ...(screenShown ? [] : [text('The screen now:'), ...after])]);
}

/** Why a call of the step was not run: the batch stopped before it, an earlier action failed, or the step ended. */
function notRunReason(call: AnthropicCall, step: StepRecord): string {
  const reports = step.reports ?? [];
  if (step.notRun !== undefined && call.firstAction + call.actionCount > step.notRun.from) return step.notRun.reason;
  return reports.some((report) => !report.ok) ? 'an earlier action of this reply failed' : step.results.trim() || 'the step ended before it';
}

/** One call's tool_result, and whether it carries the screen after the step. */
function callResult(call: AnthropicCall, step: StepRecord, after: BetaContentBlockParam[] | null, input: unknown): { block: BetaToolResultBlockParam; usedAfter: boolean } {
  const answer = answerTo(call);
  const reports = step.reports ?? [];
  const own = reports.slice(call.firstAction, call.firstAction + call.actionCount);
  const failed = own.find((report): report is Extract<ActionReport, { ok: false }> => !report.ok);
  if (failed) return { block: answer.error(failed.error), usedAfter: false };
  if (own.length < call.actionCount) {
    const why = notRunReason(call, step);
    return { block: answer.error(call.toolset !== undefined ? `Not executed: ${why}` : `not run: ${why}`), usedAfter: false };
  }
  const details = own.flatMap((report) => (report.ok && report.detail ? [report.detail] : []));
  const words = details.length > 0 ? details.join('; ') : 'done';
  if (!isComputerCall(call)) return { block: answer.ok([text(words)]), usedAfter: false };
  // The toolset answers its pure actions in words, as its SDK does; the older tool with "done" and a screenshot.
  const said = call.toolset !== undefined ? acknowledgement(call.action ?? '', input, details) : words;
  const capture = step.captures?.find((candidate) => candidate.afterAction === call.firstAction + call.actionCount - 1);
  if (capture?.kind === 'pointer') {
    if (!capture.pointer) return { block: answer.error(`the pointer position could not be read${capture.error ? `: ${capture.error}` : ''}`), usedAfter: false };
    return { block: answer.ok([text(`X=${capture.pointer.x},Y=${capture.pointer.y}`)]), usedAfter: false };
  }
  if (capture) {
    if (capture.error !== undefined && !capture.image) return { block: answer.error(`${said}, but the screenshot failed: ${capture.error}`), usedAfter: false };
    return { block: answer.ok(call.toolset !== undefined ? capturedImage(capture) : [text(said), ...capturedImage(capture)]), usedAfter: false };
  }
  // The screen after the step: in the last older-tool call's result, and a toolset screenshot's.
  const showsScreen = call.toolset === undefined || call.action === 'screenshot';
  if (after !== null && showsScreen) return { block: answer.ok(call.toolset !== undefined ? after : [text(said), ...after]), usedAfter: true };
  return { block: answer.ok([text(said)]), usedAfter: false };
}

/** The answers to one call: a result, or an error, carrying `toolset_name` when the call was a toolset member's. */
function answerTo(call: AnthropicCall) {
  const toolset = call.toolset !== undefined ? { toolset_name: ANTHROPIC_COMPUTER_TOOLSET } : {};
  return {
    ok: (content: BetaContentBlockParam[]): BetaToolResultBlockParam => ({ ...result(call.id, content), ...toolset }),
    error: (reason: string): BetaToolResultBlockParam => ({ ...errorResult(call.id, reason), ...toolset }),
  };
}

/** The inputs of a reply's tool calls, by id. */
function toolInputsOf(content: readonly BetaContentBlockParam[]): Map<string, unknown> {
  const inputs = new Map<string, unknown>();
  for (const block of content) if (block.type === 'tool_use') inputs.set(block.id, block.input);
  return inputs;
}

/**
 * What a toolset member did, in a line: the kind of acknowledgement its SDK gives ("Clicked.",
 * "Typed.", "Pressed ctrl+s."), then what the operator said of it, when it said something.
 */
function acknowledgement(member: string, input: unknown, details: readonly string[]): string {
  const field = (name: string) => (isRecord(input) && (typeof input[name] === 'string' || typeof input[name] === 'number') ? String(input[name]) : '');
  const line = MEMBER_ACKNOWLEDGEMENTS[member]?.(field) ?? 'Done.';
  return details.length > 0 ? `${line} ${details.join('; ')}` : line;
}

const MEMBER_ACKNOWLEDGEMENTS: Record<string, (field: (name: string) => string) => string> = {
  key: (field) => `Pressed ${field('text')}.`,
  hold_key: (field) => `Held ${field('text')} for ${field('duration')}s.`,
  type: () => 'Typed.',
  mouse_move: () => 'Moved the mouse.',
  left_mouse_down: () => 'Left mouse button pressed.',
  left_mouse_up: () => 'Left mouse button released.',
  left_click: () => 'Clicked.',
  left_click_drag: () => 'Dragged.',
  right_click: () => 'Right-clicked.',
  middle_click: () => 'Middle-clicked.',
  double_click: () => 'Double-clicked.',
  triple_click: () => 'Triple-clicked.',
  scroll: (field) => `Scrolled ${field('scroll_direction')}.`,
  wait: (field) => `Waited ${field('duration') || '1'}s.`,
};

function capturedImage(capture: CapturedAfter): BetaContentBlockParam[] {
  if (capture.image) return [image(capture.image)];
  return [text(capture.placeholder ?? '[Screenshot removed]')];
}

/** The memory notes and the loop's feedback, minus what a tool result of the last step says already. */
function notesOf(input: PredictInput): string[] {
  const notes: string[] = [];
  if (input.system !== undefined && input.system.trim() !== '') notes.push(`Notes from memory for this task:\n${input.system.trim()}`);
  const said = new Set((input.history.at(-1)?.reports ?? []).flatMap((report) => (report.ok && report.detail ? [report.detail.trim()] : [])));
  const feedback = (input.feedback ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !said.has(line.trim()))
    .join('\n');
  if (feedback !== '') notes.push(feedback);
  // The elements aid changes at every step: after the newest breakpoint, with the notes.
  const elements = elementsPromptOf(input, { byNumber: true });
  if (elements !== null) notes.push(elements);
  return notes;
}

/** The content blocks of a kept reply, or null when there is none (or it is not a message). */
function replyContent(reply: string | undefined): BetaContentBlockParam[] | null {
  if (reply === undefined || reply.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(reply);
  } catch {
    return null;
  }
  const content = isRecord(value) && Array.isArray(value.content) ? value.content : Array.isArray(value) ? value : null;
  return content === null ? null : (content.filter(isRecord) as unknown as BetaContentBlockParam[]);
}

/** A step's screenshot, or the placeholder that replaced it. */
function screenshotOf(step: StepRecord): BetaContentBlockParam[] {
  if (step.screenshot) return [image(step.screenshot)];
  return [text(step.screenshotPlaceholder ?? `[Screenshot removed - Step ${step.step}]`)];
}

function text(value: string): BetaTextBlockParam {
  return { type: 'text', text: value };
}

function image(value: ModelImage): BetaImageBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: value.mime, data: value.image.toString('base64') } };
}

function result(id: string, content: BetaContentBlockParam[]): BetaToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: id, content: content as BetaToolResultBlockParam['content'] };
}

function errorResult(id: string, reason: string): BetaToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: id, content: [text(reason)], is_error: true };
}

/** A breakpoint on the last block of each of the newest `count` user turns. */
function markNewestUserTurns(messages: BetaMessageParam[], count: number): void {
  let marked = 0;
  for (let index = messages.length - 1; index >= 0 && marked < count; index--) {
    const message = messages[index] as BetaMessageParam;
    if (message.role !== 'user' || !Array.isArray(message.content) || message.content.length === 0) continue;
    const lastBlock = message.content.at(-1) as BetaContentBlockParam & { cache_control?: unknown };
    message.content[message.content.length - 1] = { ...lastBlock, cache_control: EPHEMERAL } as BetaContentBlockParam;
    marked++;
  }
}

/** Turns that alternate: consecutive user content joins one turn, an empty assistant turn is left out. */
class Turns {
  private readonly messages: BetaMessageParam[] = [];

  user(blocks: BetaContentBlockParam[]): void {
    if (blocks.length === 0) return;
    const last = this.messages.at(-1);
    if (last?.role === 'user') (last.content as BetaContentBlockParam[]).push(...blocks);
    else this.messages.push({ role: 'user', content: [...blocks] });
  }

  assistant(blocks: BetaContentBlockParam[]): void {
    if (blocks.length === 0) return;
    this.messages.push({ role: 'assistant', content: blocks });
  }

  build(): BetaMessageParam[] {
    return this.messages;
  }
}
