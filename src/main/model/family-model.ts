/**
 * What every family's `VisionModel` is built on: its settings (the model's name among them) and
 * its collaborators (the family's client, the prices, ...), given to the constructor. A family
 * adds its own fields and `predictStep`; `predict` first draws the elements aid's marks on the
 * screenshot when it is on (`marks`), so every family sends the marked image.
 */
import { type PriceTable } from '../../shared/settings';
import { type ModelFamily } from './families';
import { type PredictInput, type Prediction, type ThoughtListener, type VisionModel } from './types';
import { withElementMarks } from './element-marks';

/** A family's collaborators: its client, and the prices its usage is costed at. */
export interface FamilyModelDeps<Client> {
  client: Client;
  prices: PriceTable;
}

export abstract class FamilyModel<Settings extends { model: string }, Deps> implements VisionModel {
  abstract readonly family: ModelFamily;
  readonly model: string;

  constructor(
    protected readonly settings: Settings,
    protected readonly deps: Deps,
  ) {
    this.model = settings.model;
  }

  async predict(input: PredictInput, signal?: AbortSignal, onThought?: ThoughtListener): Promise<Prediction> {
    return this.predictStep(await withElementMarks(input), signal, onThought);
  }

  /** One step of the family, its input as sent (the marks drawn). */
  protected abstract predictStep(input: PredictInput, signal?: AbortSignal, onThought?: ThoughtListener): Promise<Prediction>;
}
