/**
 * What every way of starting a run is made from: the settings, the one launcher, where runs work
 * and how a model is made. The service builds these once and hands them to each recipe (agent,
 * replay, workflow, teach), so a recipe holds only what is its own.
 */
import type { ModelSettings, PriceTable } from '../../../shared/settings';
import type { VisionModel } from '../../model/types';
import type { RunDesktops } from '../desktops/run-desktops';
import type { RunLauncher } from './run-launcher';
import type { ServiceConfig } from '../service-config';

export interface RecipeParts {
  config: ServiceConfig;
  launcher: RunLauncher;
  desktops: RunDesktops;
  createModel: (settings: ModelSettings, prices: PriceTable) => VisionModel;
}
