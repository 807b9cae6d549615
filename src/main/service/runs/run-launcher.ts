/**
 * Launches a run, a replay or a workflow run, the same steps for all: the data directory made
 * private; the desktop opened (the user's display, or a private one started for the run:
 * run-desktops.ts), locked (one run per display, across processes) and its operator opened, in
 * that order; what the engine needs besides prepared (`prepare`: the memory of a run, the text
 * reader of a workflow run), which may still refuse; the session recorded from the start (through
 * the redaction policy, with the desktop it runs on); the disk checked; then the run's context
 * built, once, for every kind of run: its lifecycle (src/main/run/lifecycle.ts: seq and stamping,
 * usage, the one redaction, the recorder, the questions, the pause gate, the confirmation rules,
 * the takeover). The engine (the DeviceAgent, the Replayer, the WorkflowRunner, the Demonstration
 * or the single action) is started on it and does its own job only; its live handle (with
 * the live view of its display and, for a run, the takeover) listed in the registry and its events
 * pumped through it. When the engine's events end: `finish` (the memory saved, the reader closed),
 * the operator closed, the desktop unlocked and a private one stopped (or kept, when asked),
 * `afterRelease` (the blackboard summaries), and the run leaves the registry.
 *
 * Every failure before the engine starts lets go of what was taken, and is a `ServiceResult`:
 * `busy` (the desktop is locked, naming the session), `no_display`, `record`, or what `prepare`
 * returned.
 */
import type { RunKind } from '../../../shared/app-api';
import type { PrivateDesktopSpec } from '../../../shared/desktop';
import type { AgentEvent } from '../../../shared/events';
import type { Redactor } from '../../../shared/secret-mask';
import { freeBytes, formatMegabytes } from '../../disk/free-space';
import { StoreWriter } from '../../disk/store-writer';
import { describeWriteFailure, displayPath } from '../../disk/write-failure';
import type { CaptureOptions } from '../../operator/capture';
import type { Operator } from '../../operator/desktop-operator';
import { LiveFrames } from '../../operator/live-frames';
import type { ConfirmationRule } from '../../run/confirmation';
import { RunElements, type ElementSource } from '../../run/elements';
import { RunLifecycle } from '../../run/lifecycle';
import { PauseGate } from '../../run/pause-gate';
import { Takeover } from '../../run/takeover';
import { FileRunRecorder, sessionsRoot } from '../../store/run-recorder';
import type { SessionBatchTag } from '../../store/session-meta';
import { DisplayLock } from '../desktops/display-lock';
import { LiveRun, type RunHandle } from './live-run';
import type { OpenedDesktop, RunDesktops } from '../desktops/run-desktops';
import type { RunRegistry } from './run-registry';
import type { ServiceConfig } from '../service-config';
import type { ServiceResult } from '../service-result';

/** The accessibility tree of a run's display, and how to let it go afterwards; or why there is none. */
export type ElementsOpen = { ok: true; source: ElementSource; close(): void } | { ok: false; message: string };

/** An operator for a run, and how to let it go afterwards. */
export type OperatorOpen = { ok: true; operator: Operator; close?: () => Promise<void> | void } | { ok: false; message: string };

export interface RunLauncherDeps {
  config: ServiceConfig;
  runs: RunRegistry;
  /** Where runs work: the user's display, or private desktops started for them. */
  desktops: RunDesktops;
  /** Opens the operator for a display (checking the display first): the user's, or with `env` a private desktop's. */
  openOperator: (capture: CaptureOptions, env?: NodeJS.ProcessEnv) => Promise<OperatorOpen>;
  /**
   * Opens the accessibility tree of a display (the user's: the process's environment; a private
   * desktop's: its `env`) for the runs that ask for it. Absent: runs see pixels only.
   */
  openElements?: (env: NodeJS.ProcessEnv) => Promise<ElementsOpen>;
  /** Free bytes on the disk holding a folder (default: statfs), for the warning before a run. */
  freeBytes?: (path: string) => Promise<number | null>;
  log: (message: string) => void;
  /** The clock of the runs' events (tests). */
  now?: () => number;
  /** Told of each session once its run has ended and its record is closed (the shared store's upload). */
  recorded?: (sessionId: string) => void;
}

/** What a launch prepared once the desktop is held; its hooks run when the run has ended. */
export interface Prepared {
  /** The conversation the task belongs to (runs only). */
  conversationId: string | null;
  /** After the engine's events ended, before the desktop is let go (the memory saved). */
  finish?(): Promise<void>;
  /** After the desktop is let go (the blackboard summaries, in the background). */
  afterRelease?(): void;
}

export interface LaunchPlan<P extends Prepared> {
  kind: RunKind;
  /** The task as the user wrote it: recorded and shown with the redaction applied. */
  task: string;
  /** The run's redaction policy: applied to its events, its record and its memory. */
  redaction: Redactor;
  /** What the session's record says it ran with. */
  session: { model: string; family: string; replayOf?: string; batch?: SessionBatchTag };
  display?: number | undefined;
  /** A private desktop to start for it; absent or null: the user's display. */
  desktop?: PrivateDesktopSpec | null | undefined;
  /** Leave the private desktop running after the run (its DISPLAY is said in the log). */
  keepDesktop?: boolean | undefined;
  /** The user can take it over and hand it back (the DeviceAgent serves the user's steps; a replay cannot). */
  takeover?: boolean;
  /** False: questions are not asked, they go unanswered. Default true. */
  interactive?: boolean | undefined;
  /** When to ask before an action (the settings' agent.confirmationRules); none by default. */
  confirmationRules?: readonly ConfirmationRule[];
  /** Said in the error when the session cannot be recorded: `the session`, `the replay`. */
  what: string;
  /** Read the display's accessibility tree (run/elements.ts: element actions, what each click hit, read-backs), where it has one. */
  elements?: boolean;
  /**
   * After the desktop is held and before the session is recorded; a failure lets the desktop go.
   * Given the held display's environment (its DISPLAY and buses: the user's, or a private desktop's).
   */
  prepare(held: { env: NodeJS.ProcessEnv }): Promise<ServiceResult<P>>;
  /** The engine on the run's context: its events (the context's), ending with run-finished. */
  engine(life: RunLifecycle, prepared: P): AsyncIterable<AgentEvent>;
}

interface HeldDesktop {
  lock: DisplayLock;
  operator: Operator;
  /** The display's accessibility tree, when the plan asked for it and the display has one. */
  elements: RunElements | undefined;
  desktop: OpenedDesktop;
  /** Lets the operator, the lock and the desktop go; a private desktop is kept when `keep`. */
  release(keep?: boolean): Promise<void>;
}

export class RunLauncher {
  constructor(private readonly deps: RunLauncherDeps) {}

  async launch<P extends Prepared>(plan: LaunchPlan<P>): Promise<ServiceResult<RunHandle>> {
    const { config } = this.deps;
    await config.dataDirReady();
    const held = await this.holdDesktop(plan.desktop ?? null, plan.display, plan.elements === true);
    if (!held.ok) return held;
    const { lock, operator, elements, desktop, release } = held.value;

    const prepared = await plan.prepare({ env: desktop.env });
    if (!prepared.ok) {
      await release();
      return prepared;
    }
    const task = plan.redaction.text(plan.task);
    const dataDir = config.dataDir;
    const recorder = await FileRunRecorder.create(dataDir, { task, ...plan.session, desktop: desktop.desktop, storeWriter: new StoreWriter(plan.redaction) }).catch(
      (error: unknown) => error as Error,
    );
    if (recorder instanceof Error) {
      await release();
      return { ok: false, error: { kind: 'record', message: `cannot record ${plan.what}: ${describeWriteFailure(recorder, sessionsRoot(dataDir), 'a new session')}` } };
    }
    await lock.name(recorder.sessionId);
    const notices = [...desktop.notes, ...(await this.lowDiskNotices())];

    const gate = new PauseGate();
    const stop = new AbortController();
    const takeover = plan.takeover ? new Takeover() : undefined;
    const live = new LiveRun({
      kind: plan.kind,
      task,
      recorder,
      dataDir,
      conversationId: prepared.value.conversationId,
      desktop: desktop.desktop,
      gate,
      stop,
      quit: (): Promise<void> => life.quit('quit by the user before the run could wind down'),
      nobodyAnswers: plan.interactive === false,
      ...(takeover ? { takeover } : {}),
      live: this.liveFrames(operator, plan.display),
    });
    const life = new RunLifecycle(
      {
        recorder,
        operator,
        askUser: live.askUser,
        gate,
        notices,
        redaction: plan.redaction,
        ...(plan.confirmationRules ? { confirmationRules: plan.confirmationRules } : {}),
        ...(takeover ? { takeover } : {}),
        ...(elements ? { elements } : {}),
        ...(this.deps.now ? { now: this.deps.now } : {}),
      },
      stop.signal,
    );
    const events = plan.engine(life, prepared.value);
    this.deps.runs.add(live);
    void live.pump(events, async () => {
      try {
        await prepared.value.finish?.();
        await release(plan.keepDesktop === true);
        prepared.value.afterRelease?.();
        // Shared session store: the session is whole on disk now.
        this.deps.recorded?.(live.id);
      } finally {
        this.deps.runs.remove(live.id);
      }
    });
    return { ok: true, value: live };
  }

  /**
   * The run's desktop, its lock and its operator, in that order (a busy display opens nothing; a
   * private desktop started for nothing is stopped again).
   */
  private async holdDesktop(spec: PrivateDesktopSpec | null, display: number | undefined, wantsElements: boolean): Promise<ServiceResult<HeldDesktop>> {
    const { config, desktops } = this.deps;
    const desktop = await desktops.open(spec, display);
    if (!desktop.ok) return desktop;
    const name = desktop.value.desktop.display;
    const locked = await DisplayLock.acquire(config.dataDir, name).catch((error: unknown) => ({
      ok: false as const,
      message: `cannot lock ${name}: ${(error as Error).message}`,
      sessionId: null,
    }));
    if (!locked.ok) {
      await desktop.value.release(false);
      return { ok: false, error: { kind: 'busy', message: locked.message, sessionId: locked.sessionId } };
    }
    const opened = await this.deps.openOperator({ ...(display !== undefined ? { display } : {}) }, spec ? desktop.value.env : undefined);
    if (!opened.ok) {
      await locked.lock.release();
      await desktop.value.release(false);
      return { ok: false, error: { kind: 'no_display', message: opened.message } };
    }
    const close = opened.close;
    // No tree is no failure: the run sees pixels only (the agent says so once when its aid is on).
    const tree = wantsElements && this.deps.openElements ? await this.deps.openElements(spec ? desktop.value.env : process.env) : undefined;
    const elements = tree?.ok ? new RunElements(tree.source) : undefined;
    return {
      ok: true,
      value: {
        lock: locked.lock,
        operator: opened.operator,
        elements,
        desktop: desktop.value,
        release: async (keep = false) => {
          if (tree?.ok) tree.close();
          await close?.();
          await locked.lock.release();
          const kept = await desktop.value.release(keep);
          if (kept) this.deps.log(kept);
        },
      },
    };
  }

  /** The live view of a run's display, when its operator can watch it. */
  private liveFrames(operator: Operator, display: number | undefined): LiveFrames | null {
    const liveFrame = operator.liveFrame?.bind(operator);
    if (!liveFrame) return null;
    return new LiveFrames({ liveFrame }, { fps: this.deps.config.desktopSettings().liveFps, ...(display !== undefined ? { display } : {}) });
  }

  /**
   * A disk nearly full, said as a note before the first step (in the terminal, the app, --json and
   * the record): the run will stop at the first step it cannot record.
   */
  private async lowDiskNotices(): Promise<string[]> {
    const { config } = this.deps;
    const minFreeMb = config.storeSettings().minFreeMb;
    if (minFreeMb <= 0) return [];
    const free = await (this.deps.freeBytes ?? freeBytes)(config.dataDir).catch(() => null);
    if (free === null || free >= minFreeMb * 1e6) return [];
    return [
      `warning: only ${formatMegabytes(free)} free on the disk holding ${displayPath(config.dataDir)} (less than store.minFreeMb, ${minFreeMb} MB); the run stops at the first step it cannot record`,
    ];
  }
}
