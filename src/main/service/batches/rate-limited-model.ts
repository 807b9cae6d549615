/**
 * A model whose every request first takes its place in its provider's shared rate limit (the
 * queue's Redis, counted across every worker): the loop and the families never know. Everything
 * but `predict` is the model's own.
 */
import type { SharedRateLimit } from '../../batch/queue/rate-limit';
import { providerOf } from '../../batch/queue/rate-limit';
import type { VisionModel } from '../../model/types';

export function rateLimitedModel(model: VisionModel, baseUrl: string | undefined, limit: SharedRateLimit): VisionModel {
  const provider = providerOf(baseUrl);
  if (!limit.limitOf(provider)) return model;
  const predict: VisionModel['predict'] = async (input, signal) => {
    await limit.take(provider, signal);
    return model.predict(input, signal);
  };
  return new Proxy(model, {
    get(target, property) {
      if (property === 'predict') return predict;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
