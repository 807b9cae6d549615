/**
 * The `anthropic` vision model: Claude's computer-use tool through the official SDK. The request
 * is rebuilt from the history at every step (families/anthropic-request.ts), the reply parsed into
 * actions and the captures its results need (families/anthropic.ts); the thought streams as the
 * model writes it (its thinking first when `model.anthropic.thinking` is set, then its text).
 */
import { type ModelSettings } from '../../shared/settings';
import { type AnthropicClient, anthropicTokens, messageJson } from './anthropic-client';
import { anthropicToolOf, buildAnthropicRequest } from './families/anthropic-request';
import { withToolFix } from './tool-rejection';
import { imageLimitsFor, parseAnthropicMessage, pixelFrame, type CoordinateFrame, type ImageSize } from './families';
import { parsedPrediction, sizeOf, ThoughtStream } from './messages';
import { usageOf } from './pricing';
import { type ImageLimits, type PredictInput, type Prediction, type ThoughtListener } from './types';
import { FamilyModel, type FamilyModelDeps } from './family-model';

export type AnthropicModelSettings = Pick<ModelSettings, 'model' | 'stream' | 'temperature' | 'maxOutputTokens' | 'anthropic'> & Partial<Pick<ModelSettings, 'computerTool' | 'baseUrl'>>;

export type AnthropicModelDeps = FamilyModelDeps<AnthropicClient>;

export class AnthropicModel extends FamilyModel<AnthropicModelSettings, AnthropicModelDeps> {
  readonly family = 'anthropic' as const;
  readonly imageLimits: ImageLimits;

  constructor(settings: AnthropicModelSettings, deps: AnthropicModelDeps) {
    super(settings, deps);
    this.imageLimits = imageLimitsFor(settings.model);
  }

  /** The image sent is declared as the display: Claude answers in its pixels. */
  coordinateFrame(image: ImageSize): CoordinateFrame {
    return pixelFrame(image);
  }

  protected async predictStep(input: PredictInput, signal?: AbortSignal, onThought?: ThoughtListener): Promise<Prediction> {
    const thoughts = new ThoughtStream((text) => text, onThought);
    // Blocks of the reply joined as the parser joins them: a blank line between two blocks.
    let shown = { attempt: 0, block: -1, any: false };
    const result = await this.deps.client.message(buildAnthropicRequest(input, this.settings), {
      stream: this.settings.stream,
      signal,
      onText: ({ delta, block, attempt }) => {
        if (attempt !== shown.attempt) shown = { attempt, block: -1, any: false };
        const separator = block !== shown.block && shown.any ? '\n\n' : '';
        shown = { attempt, block, any: true };
        thoughts.push(separator + delta, attempt);
      },
    });
    thoughts.flush();
    if (!result.ok) return { ok: false, error: withToolFix(this.family, anthropicToolOf(this.settings), result.error), attempts: result.attempts };
    const message = result.value;
    const usage = usageOf(message.usage ? anthropicTokens(message.usage) : null, this.model, this.deps.prices);
    const raw = messageJson(message);
    const parsed = parseAnthropicMessage(message, { image: sizeOf(input.observation) });
    if (!parsed.ok) return { ok: false, error: { kind: 'parse', message: parsed.reason, raw }, usage, attempts: result.attempts };
    thoughts.finish(parsed.thought, result.attempts);
    return parsedPrediction(parsed, { usage, raw, attempts: result.attempts }, {
      pendingSafetyChecks: [],
      extras: { family: 'anthropic', messageId: parsed.messageId, stopReason: parsed.stopReason, calls: parsed.calls },
      captures: parsed.captures,
    });
  }
}
