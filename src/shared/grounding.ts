/**
 * When the grounding check passes: the model answers in the configured space and hits at least
 * 80% of the targets there. One rule for `mnemo check-model --grounding` (its exit code) and the
 * window's "Check grounding".
 */
export const GROUNDING_PASS_SHARE = 0.8;

export function groundingPassed(report: { configured: string; detected: string; targets: number; hits: Readonly<Record<string, number>> }): boolean {
  return report.detected === report.configured && (report.hits[report.configured] ?? 0) >= GROUNDING_PASS_SHARE * report.targets;
}
