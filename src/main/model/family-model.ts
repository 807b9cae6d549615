/**
 * What every family's `VisionModel` is built on: its settings (the model's name among them) and
 * its collaborators (the family's client, the prices, ...), given to the constructor. A family
 * adds its own fields and `predict`.
 */
import { type PriceTable } from '../../shared/settings';
import { type ModelFamily } from './families';
import { type PredictInput, type Prediction, type ThoughtListener, type VisionModel } from './types';

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

  abstract predict(input: PredictInput, signal?: AbortSignal, onThought?: ThoughtListener): Promise<Prediction>;
}
