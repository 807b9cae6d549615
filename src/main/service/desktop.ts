/** The operator a run gets on this machine's desktop (the display checked first). */
import type { CaptureOptions } from '../operator/capture';
import type { OperatorOpen } from './run-service';

export async function openDesktopOperator(capture: CaptureOptions): Promise<OperatorOpen> {
  // Loaded on demand: sharp and nut-js cost a few hundred ms that other commands need not pay.
  const { createDesktopOperator } = await import('../operator/desktop-operator');
  return createDesktopOperator({ capture });
}
