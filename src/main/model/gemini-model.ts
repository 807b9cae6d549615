/**
 * The `gemini` family: Gemini computer use through the official `@google/genai` SDK
 * (gemini-client.ts). The request and the reply are read by the pure family module
 * (families/gemini.ts): the computer-use tool with Mnemo's own functions beside it, the
 * conversation rebuilt from the history with every function call answered by its response and
 * screenshot, the 0–999 grid mapped onto the image. The thought summaries stream as the thought.
 */
import type { Part } from '@google/genai';
import { type ModelSettings } from '../../shared/settings';
import { buildGeminiRequest, geminiCoordinateFrame, geminiThoughtOf, parseGeminiContent, type ImageSize } from './families';
import type { CoordinateFrame } from './families/coordinates';
import { type GeminiClient } from './gemini-client';
import { parsedPrediction, sizeOf, ThoughtStream } from './messages';
import { usageOf } from './pricing';
import { type PredictInput, type Prediction, type ThoughtListener } from './types';
import { FamilyModel, type FamilyModelDeps } from './family-model';

export type GeminiModelSettings = Pick<ModelSettings, 'model' | 'stream' | 'temperature' | 'maxOutputTokens' | 'gemini'>;

export type GeminiModelDeps = FamilyModelDeps<GeminiClient>;

export class GeminiModel extends FamilyModel<GeminiModelSettings, GeminiModelDeps> {
  readonly family = 'gemini' as const;

  /** Gemini answers on a 0-999 grid over the image. */
  coordinateFrame(image: ImageSize): CoordinateFrame {
    return geminiCoordinateFrame(image);
  }

  protected async predictStep(input: PredictInput, signal?: AbortSignal, onThought?: ThoughtListener): Promise<Prediction> {
    const image = sizeOf(input.observation);
    // The thought is read from the parts so far (summaries, then text), not from raw deltas, and
    // only as often as the stream says it is due (see ThoughtStream): reading it costs its length.
    let latest: readonly Part[] = [];
    const thoughts = new ThoughtStream(() => geminiThoughtOf(latest) ?? '', onThought);
    const result = await this.deps.client.generate(buildGeminiRequest(input, this.settings), {
      stream: this.settings.stream,
      signal,
      onParts: (parts, attempt) => {
        latest = parts;
        thoughts.advance(textLength(parts), attempt);
      },
    });
    thoughts.flush();
    if (!result.ok) return { ok: false, error: result.error, attempts: result.attempts };
    const { reply, usage: tokens } = result.value;
    const usage = usageOf(tokens, this.model, this.deps.prices);
    const raw = JSON.stringify(reply);
    const parsed = parseGeminiContent(reply, { image });
    if (!parsed.ok) return { ok: false, error: { kind: 'parse', message: parsed.reason, raw }, usage, attempts: result.attempts };
    thoughts.finish(parsed.thought, result.attempts);
    return parsedPrediction(parsed, { usage, raw, attempts: result.attempts }, {
      pendingSafetyChecks: parsed.calls.flatMap((call) => (call.safety ? [call.safety] : [])),
      extras: { family: 'gemini', calls: parsed.calls, finishReason: parsed.finishReason },
    });
  }
}

/** The characters of text in the parts (a handful of parts: adjacent texts are joined as they stream). */
function textLength(parts: readonly Part[]): number {
  let length = 0;
  for (const part of parts) length += part.text?.length ?? 0;
  return length;
}
