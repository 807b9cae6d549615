/** Builds the desktop operator for a CLI command, or explains why it cannot. */
import { createDesktopOperator, type DesktopOperator, type DesktopOperatorOptions } from '../operator/desktop-operator';

export async function operatorOrExplain(options: DesktopOperatorOptions = {}): Promise<DesktopOperator | undefined> {
  const loaded = await createDesktopOperator(options);
  if (loaded.ok) return loaded.operator;
  process.stderr.write(`mnemo: ${loaded.message}\n`);
  return undefined;
}
