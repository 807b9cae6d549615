/**
 * Reads a recorded session back: its metadata, its events (a corrupt or truncated line is skipped
 * with a warning, never a crash) and a per-step view for inspection, replay and reports.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Action } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';
import type { AgentEvent, ScreenshotRef, UsageSummary } from '../../shared/events';
import type { Frame } from '../../shared/frame';
import { sessionsRoot, type SessionMeta } from './run-recorder';

export interface ReadWarning {
  line: number;
  message: string;
}

export interface StepView {
  step: number;
  screenshot: ScreenshotRef | null;
  frame: Frame | null;
  thought: string | null;
  actions: Action[];
  /** One per executed action, in order (fewer than `actions` when the step ended early). */
  results: ActionResult[];
  usage: UsageSummary | null;
  /** Model or capture errors during the step. */
  errors: Array<{ kind: string; message: string }>;
  notes: string[];
  questions: Array<{ kind: string; question: string; answer: string | null }>;
  durationMs: number | null;
  /** Cost of the run up to the end of this step. */
  costUsd: number | null;
  /** Memory state events recorded during the step, as they were. */
  memory: AgentEvent[];
}

export interface SessionRecord {
  meta: SessionMeta;
  directory: string;
  events: AgentEvent[];
  steps: StepView[];
  warnings: ReadWarning[];
}

export type SessionRead = { ok: true; session: SessionRecord } | { ok: false; message: string };

/** Parses JSONL, skipping lines that are not a JSON object with a `type` (a crash mid-write). */
export function parseEventLines(text: string): { events: AgentEvent[]; warnings: ReadWarning[] } {
  const events: AgentEvent[] = [];
  const warnings: ReadWarning[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      const value = JSON.parse(line) as unknown;
      if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
        warnings.push({ line: index + 1, message: 'not an event (no "type")' });
        return;
      }
      events.push(value as AgentEvent);
    } catch (error) {
      const last = index === lines.length - 1 || (index === lines.length - 2 && lines[lines.length - 1] === '');
      warnings.push({ line: index + 1, message: `${last ? 'truncated' : 'corrupt'} line skipped: ${(error as Error).message}` });
    }
  });
  return { events, warnings };
}

function emptyStep(step: number): StepView {
  return { step, screenshot: null, frame: null, thought: null, actions: [], results: [], usage: null, errors: [], notes: [], questions: [], durationMs: null, costUsd: null, memory: [] };
}

/** Folds the event stream into one view per step. */
export function stepsOf(events: readonly AgentEvent[]): StepView[] {
  const steps = new Map<number, StepView>();
  const at = (step: number) => {
    let view = steps.get(step);
    if (!view) {
      view = emptyStep(step);
      steps.set(step, view);
    }
    return view;
  };
  for (const event of events) {
    if (!('step' in event) || event.step < 1) continue;
    const view = at(event.step);
    switch (event.type) {
      case 'observation':
        view.screenshot = event.screenshot;
        view.frame = event.frame;
        break;
      case 'prediction':
        view.thought = event.thought;
        view.actions = event.actions;
        view.usage = event.usage;
        break;
      case 'action-result':
        view.results.push(event.result);
        break;
      case 'model-error':
        view.errors.push({ kind: event.kind, message: event.message });
        break;
      case 'note':
        view.notes.push(event.message);
        break;
      case 'ask-user':
        view.questions.push({ kind: event.kind, question: event.question, answer: null });
        break;
      case 'user-answer': {
        const open = view.questions.find((q) => q.answer === null && q.kind === event.kind);
        if (open) open.answer = event.answer;
        break;
      }
      case 'step-finished':
        view.durationMs = event.durationMs;
        view.costUsd = event.costUsd;
        break;
      default:
        if (event.type.startsWith('memory')) view.memory.push(event);
        break;
    }
  }
  return [...steps.values()].sort((a, b) => a.step - b.step);
}

export function sessionDirectory(dataDir: string, id: string): string {
  return join(sessionsRoot(dataDir), id);
}

/** Reads a session by id; a missing or unreadable session is a message, not a throw. */
export async function readSession(dataDir: string, id: string): Promise<SessionRead> {
  if (!/^[\w.-]+$/.test(id)) return { ok: false, message: `"${id}" is not a session id` };
  const directory = sessionDirectory(dataDir, id);
  let meta: SessionMeta;
  try {
    meta = JSON.parse(await readFile(join(directory, 'session.json'), 'utf8')) as SessionMeta;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, message: code === 'ENOENT' ? `no session "${id}" in ${sessionsRoot(dataDir)}` : `session "${id}" cannot be read: ${(error as Error).message}` };
  }
  let text = '';
  try {
    text = await readFile(join(directory, 'events.jsonl'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return { ok: false, message: `session "${id}": events cannot be read: ${(error as Error).message}` };
  }
  const { events, warnings } = parseEventLines(text);
  return { ok: true, session: { meta, directory, events, steps: stepsOf(events), warnings } };
}
