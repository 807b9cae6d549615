/**
 * The report of a workflow run, folded from its events (live or recorded): how many steps were
 * replayed, refound, grounded or stopped, what they cost against the recording. One fold for the
 * CLI, MCP and the window.
 */
import type { AgentEvent } from './events';
import type { RecordingCost, WorkflowFinder } from './workflow-run';

export interface WorkflowReport {
  type: 'workflow-report';
  status: string;
  steps: number;
  replayed: number;
  refound: number;
  grounded: number;
  stopped: number;
  modelCalls: number;
  /**
   * How many steps' targets each finder found (the steps with a target to find); in the report of
   * a run that could read the accessibility tree (its run-started says `elements`).
   */
  foundBy?: Record<WorkflowFinder, number>;
  tokens: number;
  costUsd: number;
  recording: RecordingCost;
}

/**
 * The report after one more event of a workflow run: null until its run-started (and for a run
 * that is not a workflow's). The fold `workflowReport` runs over a whole record, and the window
 * over a live run's events as they come, so both count the same way.
 */
export function addToWorkflowReport(report: WorkflowReport | null, event: AgentEvent): WorkflowReport | null {
  if (event.type === 'run-started') {
    if (!event.workflow) return report;
    return { type: 'workflow-report', status: 'running', steps: 0, replayed: 0, refound: 0, grounded: 0, stopped: 0, modelCalls: 0, tokens: 0, costUsd: 0, recording: event.workflow.recording, ...(event.workflow.elements ? { foundBy: { element: 0, template: 0, ocr: 0, model: 0 } } : {}) };
  }
  if (!report) return null;
  if (event.type === 'workflow-step') {
    const next = { ...report, steps: report.steps + 1, modelCalls: report.modelCalls + event.modelCalls };
    next[event.decision]++;
    if (event.foundBy && report.foundBy) next.foundBy = { ...report.foundBy, [event.foundBy]: report.foundBy[event.foundBy] + 1 };
    return next;
  }
  if (event.type === 'run-finished') {
    const { usage } = event;
    return { ...report, status: event.status, tokens: usage.inputTokens + usage.outputTokens, costUsd: usage.costUsd };
  }
  return report;
}

/** The figures of a workflow run, from its events (live or recorded): one fold for the CLI and the window. */
export function workflowReport(events: Iterable<AgentEvent>): WorkflowReport | null {
  let report: WorkflowReport | null = null;
  for (const event of events) report = addToWorkflowReport(report, event);
  return report;
}
