/**
 * What the chat-completion families (`tools`, `ui-tars`, `pyautogui`) share as models: their
 * settings, the client and the prices, the coordinate frame of their settings for an image, and
 * one step's call through `chatPrediction`. Each family gives its request, its parser and its
 * extras.
 */
import { modelCoordinatesOf } from '../../shared/model-families';
import { type ModelSettings } from '../../shared/settings';
import { type ChatReply, type ChatRequest, type ModelClient } from './client';
import { frameFor, type CoordinateFrame, type ImageSize, type ModelCoordinates, type ModelFamily, type ParsedReply, type ReplyParse } from './families';
import { FamilyModel, type FamilyModelDeps } from './family-model';
import { chatPrediction, type ThoughtStream } from './messages';
import { type PredictInput, type Prediction, type PredictionExtras, type ThoughtListener } from './types';

export type ChatFamilyDeps = FamilyModelDeps<ModelClient>;

/** One step of a chat family: its request, how the thought streams, what is kept raw, the parse and the extras. */
export interface ChatStep<Extras extends object> {
  request: ChatRequest;
  thoughts: ThoughtStream;
  rawOf: (message: ChatReply['message']) => string;
  parse: (message: ChatReply['message'], raw: string) => ReplyParse<Extras>;
  extras: (finishReason: string | null, parsed: ParsedReply<Extras> | null) => PredictionExtras;
}

/** The settings that decide a chat family's coordinates. */
export type CoordinateSettings = Pick<ModelSettings, 'coordinates' | 'smartResize'> & { modelVersion?: ModelSettings['modelVersion'] };

/** The space a chat family's model writes in: its setting, else the family's own (UI-TARS: its version's). */
export function familyCoordinates(family: ModelFamily, settings: CoordinateSettings): ModelCoordinates {
  return modelCoordinatesOf({ family, modelVersion: settings.modelVersion, coordinates: settings.coordinates, smartResize: settings.smartResize });
}

export abstract class ChatFamilyModel<Settings extends Pick<ModelSettings, 'model' | 'stream'> & CoordinateSettings, Extras extends object> extends FamilyModel<Settings, ChatFamilyDeps> {
  /** The step for this input: the family's request, parser and extras. */
  protected abstract step(input: PredictInput, onThought: ThoughtListener | undefined): ChatStep<Extras>;

  /** The space the model writes in, as its settings say. */
  protected coordinates(): ModelCoordinates {
    return familyCoordinates(this.family, this.settings);
  }

  coordinateFrame(image: ImageSize): CoordinateFrame {
    return frameFor(this.coordinates(), image);
  }

  protected predictStep(input: PredictInput, signal?: AbortSignal, onThought?: ThoughtListener): Promise<Prediction> {
    const { request, thoughts, rawOf, parse, extras } = this.step(input, onThought);
    return chatPrediction({ client: this.deps.client, request, stream: this.settings.stream, signal, thoughts, model: this.model, prices: this.deps.prices, rawOf }, parse, extras);
  }
}
