/**
 * A provider that refuses the computer tool it was sent (Claude 5.5 answers the older
 * `computer_20251124` with HTTP 400 on the Claude API; `computer-use-preview` knows nothing of the
 * GA `computer` tool): no retry helps, so the failure is fatal and says the fix in the same line:
 * the other tool, and the flag that picks it.
 */
import { toolRejectionFix } from '../../shared/computer-tool';
import { type ComputerTool } from '../../shared/model-families';
import { type ModelError } from './types';

export function withToolFix(family: string, tool: ComputerTool, error: ModelError): ModelError {
  if (error.status !== 400) return error;
  const fix = toolRejectionFix(family, tool, error.message);
  return fix === null ? error : { ...error, message: `${error.message}; ${fix}`, fatal: true };
}
