/** Builds the desktop operator for a CLI command, or explains why it cannot. */
import type { DesktopOperator, DesktopOperatorOptions } from '../operator/desktop-operator';

export async function operatorOrExplain(options: DesktopOperatorOptions = {}): Promise<DesktopOperator | undefined> {
  // Loaded on demand: sharp and nut-js cost a few hundred ms that `mnemo parse` or --help need not pay.
  const { createDesktopOperator } = await import('../operator/desktop-operator');
  const loaded = await createDesktopOperator(options);
  if (loaded.ok) return loaded.operator;
  process.stderr.write(`mnemo: ${loaded.message}\n`);
  return undefined;
}
