/**
 * The provider and grounding checks, for `mnemo check-model` and the settings form's "Test
 * connection" and "Check grounding": the saved settings (with a command line's flags), or the
 * model settings as the form holds them over the saved ones. What a provider says back may echo
 * the key: every answer is masked, the key typed into the form too, saved or not.
 */
import { DEFAULT_PRICES, ImageSettingsSchema, type ModelSettingsInput } from '../../../shared/settings';
import type { GroundingCheckOutcome } from '../../model/grounding-check';
import { checkModel, type ModelCheck } from '../../model/provider-check';
import type { CaptureOptions } from '../../operator/capture';
import { redactionOf } from '../../settings/redaction';
import type { RunFlags } from '../../settings/settings';
import { checkGroundingOf, type GroundingRequest } from './grounding';
import type { OperatorOpen } from '../runs/run-launcher';
import type { ServiceResult } from '../service-result';
import type { RecipeParts } from '../runs/recipe-parts';

export interface ProviderChecksDeps extends Pick<RecipeParts, 'config' | 'createModel'> {
  openOperator: (capture: CaptureOptions, env?: NodeJS.ProcessEnv) => Promise<OperatorOpen>;
}

/** A check's answer with the typed key masked as well as the settings' secrets. */
const withoutKey = <T>(value: T, apiKey: string | undefined): T => redactionOf({ file: {}, env: {}, extra: [apiKey ?? ''] }).deep(value);

export class ProviderChecks {
  constructor(private readonly deps: ProviderChecksDeps) {}

  /** The provider check alone, with a real chat call: latency, and whether an image is accepted. */
  async model(overrides: RunFlags = {}, signal?: AbortSignal): Promise<ServiceResult<ModelCheck>> {
    const settings = this.deps.config.runSettings(overrides);
    if (!settings.ok) return settings;
    return { ok: true, value: this.deps.config.redaction(overrides).deep(await checkModel(settings.value.model, {}, signal)) };
  }

  /** "Test connection": the model settings as the form holds them, one small chat request with an image. */
  async provider(model: Partial<ModelSettingsInput>, apiKey?: string): Promise<ServiceResult<ModelCheck>> {
    const { config } = this.deps;
    const settings = config.candidateModel(model, apiKey);
    if (!settings.ok) return config.redacted(settings);
    return { ok: true, value: withoutKey(config.redaction().deep(await checkModel(settings.value)), settings.value.apiKey) };
  }

  /**
   * `mnemo check-model --grounding`: the model shown synthetic targets at the run's image size,
   * the coordinate space of its answers found and compared with the configured one.
   */
  async grounding(overrides: RunFlags = {}, request: GroundingRequest = {}): Promise<ServiceResult<GroundingCheckOutcome>> {
    const settings = this.deps.config.runSettings(overrides);
    if (!settings.ok) return settings;
    const run = settings.value;
    const where = overrides.display !== undefined ? { display: overrides.display } : {};
    const outcome = await checkGroundingOf(this.deps.createModel(run.model, run.prices), run, this.deps.openOperator, { ...where, ...request });
    return { ok: true, value: this.deps.config.redaction(overrides).deep(outcome) };
  }

  /** "Check grounding" in the settings: the model settings as the form holds them (over the saved ones). */
  async groundingCandidate(model: Partial<ModelSettingsInput>, apiKey?: string, request: GroundingRequest = {}): Promise<ServiceResult<GroundingCheckOutcome>> {
    const { config } = this.deps;
    const candidate = config.candidateModel(model, apiKey);
    if (!candidate.ok) return config.redacted(candidate);
    const { file } = config.loaded;
    const prices = { ...DEFAULT_PRICES, ...file.prices };
    const image = ImageSettingsSchema.parse(file.image ?? {});
    const outcome = await checkGroundingOf(this.deps.createModel(candidate.value, prices), { model: candidate.value, image }, this.deps.openOperator, request);
    return { ok: true, value: withoutKey(config.redaction().deep(outcome), candidate.value.apiKey) };
  }
}
