/** The model a replay or a workflow run may ask, and what their sessions say they ran with. */
import type { VisionModel } from '../../model/types';
import type { RunFlags } from '../../settings/settings';
import type { ServiceResult } from '../service-result';
import type { RecipeParts } from './recipe-parts';

/** What a session of a replay or a workflow run says it ran with: the model that may reground, or none. */
export const modelOfSession = (model: VisionModel | undefined) => ({ model: model?.model ?? 'none', family: model?.family ?? 'none' });

/** The model a replay or a workflow run may ask (to reground), when flags were given for one. */
export function modelFor(parts: Pick<RecipeParts, 'config' | 'createModel'>, flags: RunFlags | undefined, policy: string): ServiceResult<VisionModel | undefined> {
  if (!flags) return { ok: true, value: undefined };
  const settings = parts.config.runSettings(flags);
  if (!settings.ok) return { ok: false, error: { kind: 'settings', message: `--policy ${policy} needs a model: ${settings.error.message}` } };
  return { ok: true, value: parts.createModel(settings.value.model, settings.value.prices) };
}
