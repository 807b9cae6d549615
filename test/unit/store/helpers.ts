/**
 * Sessions recorded for the store tests with the real FileRunRecorder, the way the loop records
 * them (step-started, observation with a saved screenshot, prediction, action, action-result,
 * step-finished, a flush per step), plus a real CLI runner and a way to get a pid that is dead.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RunDesktop } from '../../../src/shared/desktop';
import type { RunStatus, AgentEvent } from '../../../src/shared/events';
import type { Frame } from '../../../src/shared/frame';
import { type FileRunRecorder } from '../../../src/main/store/run-recorder';
import type { WriterIdentity } from '../../../src/main/store/writer-identity';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { SessionBuilder } from '../../fixtures/session-builder';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export const FRAME: Frame = {
  displayId: '0',
  bounds: { x: 0, y: 0, width: 1280, height: 800 },
  scaleFactor: 1,
  captured: { width: 1280, height: 800 },
  image: { width: 640, height: 400, format: 'jpeg' },
};

export interface SessionSpec {
  task?: string;
  steps?: number;
  /** Start time (ms); each event 100 ms after the one before. */
  startedAt?: number;
  /** How the run ends; null: it does not (the recorder is left open, as by a crash). */
  finish?: RunStatus | null;
  /** Bytes of each (fake) screenshot. */
  screenshotBytes?: number;
  writer?: WriterIdentity;
  /** Raw replies to save per step. */
  replies?: boolean;
  fullResolution?: boolean;
  /** The desktop the run says it ran on (session.json's `desktop`). */
  desktop?: RunDesktop;
}

export interface Recorded {
  id: string;
  directory: string;
  recorder: FileRunRecorder;
  events: AgentEvent[];
}

export const STEP_COST = 0.0025;

/** Recorders left open (a crash simulated); closed by releaseOpenRecorders() after the tests. */
const leftOpen: FileRunRecorder[] = [];

export async function releaseOpenRecorders(): Promise<void> {
  for (const recorder of leftOpen.splice(0)) await recorder.close();
}

export async function recordSession(dataDir: string, spec: SessionSpec = {}): Promise<Recorded> {
  const task = spec.task ?? 'Move the mouse around';
  const startedAt = spec.startedAt ?? Date.now();
  const session = await SessionBuilder.create(dataDir, { task, model: 'gpt-4.1', family: 'tools', ...(spec.writer ? { writer: spec.writer } : {}), ...(spec.desktop ? { desktop: spec.desktop } : {}) }, startedAt);
  const { recorder, events } = session;
  const record = (event: Record<string, unknown>) => session.record(event);
  await record({ type: 'run-started', task, model: 'gpt-4.1', family: 'tools', limits: { maxSteps: 50, maxCostUsd: null } });
  const steps = spec.steps ?? 3;
  for (let step = 1; step <= steps; step++) {
    await record({ type: 'step-started', step });
    const image = Buffer.alloc(spec.screenshotBytes ?? 2000, step);
    const screenshot = await recorder.saveScreenshot(step, image, 'image/jpeg', { width: 640, height: 400 }, spec.fullResolution ? { fullResolution: Buffer.from(`png ${step}`) } : undefined);
    await record({ type: 'observation', step, screenshot, frame: FRAME });
    const action = { type: 'mouse_move', x: 100 * step, y: 50 };
    if (spec.replies) await recorder.saveReply(step, JSON.stringify({ role: 'assistant', step }));
    await record({ type: 'prediction', step, thought: `Step ${step}: move on.`, actions: [action], usage: { inputTokens: 1000, outputTokens: 20, costUsd: STEP_COST }, attempts: 1 });
    await record({ type: 'action', step, index: 0, action });
    await record({ type: 'action-result', step, index: 0, action, result: { ok: true, type: 'mouse_move', points: [{ x: 200 * step, y: 100 }], durationMs: 5 } });
    await record({ type: 'step-finished', step, durationMs: 600, costUsd: STEP_COST * step });
    await recorder.flush();
  }
  if (spec.finish !== null) {
    const status = spec.finish ?? 'finished';
    await record({
      type: 'run-finished',
      status,
      reason: status === 'finished' ? 'the model reported the task done' : 'it went wrong',
      summary: null,
      steps,
      usage: { inputTokens: 1000 * steps, outputTokens: 20 * steps, costUsd: STEP_COST * steps },
    });
    await recorder.close();
  } else {
    leftOpen.push(recorder);
  }
  return { id: recorder.sessionId, directory: recorder.directory, recorder, events };
}

/** The pid of a process that has exited (and been reaped). */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function mnemo(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runMnemo(args, { env });
}
