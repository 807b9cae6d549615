/**
 * Builds the operator for a CLI command, or explains why it cannot. The X connection lives in a
 * child process (isolated-operator.ts): a display that cannot be opened or goes away ends the
 * command with a message and an exit code, never with a signal.
 */
import type { IsolatedOperatorLoad, IsolatedOperator, IsolatedOperatorOptions } from '../operator/isolated-operator';

export async function loadOperator(options: IsolatedOperatorOptions = {}): Promise<IsolatedOperatorLoad> {
  // Loaded on demand: `mnemo parse` or --help need not pay for it.
  const { createIsolatedOperator } = await import('../operator/isolated-operator');
  return createIsolatedOperator(options);
}

/** The operator, or undefined once the reason has been printed. */
export async function operatorOrExplain(options: IsolatedOperatorOptions = {}): Promise<IsolatedOperator | undefined> {
  const loaded = await loadOperator(options);
  if (loaded.ok) return loaded.operator;
  process.stderr.write(`mnemo: ${loaded.message}\n`);
  return undefined;
}
