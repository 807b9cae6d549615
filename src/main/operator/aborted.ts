/** Cancellation inside an action: thrown between input events, turned into an `aborted` result. */
export class AbortedError extends Error {
  override readonly name = 'AbortedError';
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortedError('the action was cancelled');
}
