/**
 * A demonstration: what the user does by hand on the display, recorded as a session like any run,
 * so History, the inspector, export, replay and `mnemo workflow save` read it unchanged. Each of
 * the user's actions is a step marked `actor: "user"`: the screenshot from just before it (an
 * observation), the action in pixels of that screenshot, and its result; nothing is executed, the
 * user already did it.
 *
 * The parts, each with one job: the input recorder (operator/x11/input-recorder.ts: RECORD's
 * device events and the layout), the key tracker and device input (keys → characters, named keys,
 * shortcuts, the stop chord), the grouping (inputs → actions, pure), the recent screens (the
 * screen before each action), and this, which writes the steps through the run lifecycle. It ends
 * at the stop chord (ctrl+alt+shift+s) or when its signal aborts (Ctrl+C, the app's stop).
 *
 * Text typed into a password field is recorded masked, whether a click focused the field or the
 * keyboard did (Tab): on a display with an accessibility tree the field's role says so, read when
 * the typing begins (tree-reads.ts); without one, the words of its label (secret-field.ts). On a
 * display with a tree each click also keeps the element it hit, so a workflow saved from the
 * demonstration looks for that element first.
 */
import type { ActedElement } from '../../shared/action-result';
import { actionPoints, screenPoint, type Action, type Point } from '../../shared/actions';
import type { Element } from '../../shared/elements';
import { type AgentEvent } from '../../shared/events';
import type { CaptureOptions, Observation } from '../operator/capture';
import { KeyDecoder } from '../operator/keyboard/key-decoder';
import type { InputRecording } from '../operator/x11/input-recorder';
import type { DeviceEvent } from '../operator/x11/record';
import { AsyncQueue } from '../run/async-queue';
import type { Ending } from '../run/ending';
import type { RunLifecycle } from '../run/lifecycle';
import { screenToImagePixels } from '../run/user-steps';
import type { TextReader } from '../workflow/ocr';
import { deviceInput } from './device-input';
import { ActionGrouper, DEFAULT_GROUPING, type GroupedAction, type GroupingOptions } from './grouping';
import { KeyTracker, STOP_CHORD } from './key-tracker';
import { DEFAULT_RECENT_SCREENS, RecentScreens, type RecentScreensOptions } from './recent-screens';
import { anyRegionNamesASecret, isSecretField, typedRegions, wordsNearField } from './secret-field';
import { elementUnder, focusedElement, typedIntoPasswordByRole, typedIntoPasswordByTree, type DemonstrationTree } from './tree-reads';

/** What a demonstration's session says it ran with: no model; the user. */
export const DEMONSTRATION_MODEL = { model: 'none', family: 'demonstration' } as const;

export const STOP_CHORD_TEXT = STOP_CHORD.join('+');

/** What a demonstration needs besides its run's context (the lifecycle the launcher built). */
export interface DemonstrationDeps {
  recording: InputRecording;
  /** Reads the words next to a field (is it a password field?); null: nothing is masked by its label. */
  reader: TextReader | null;
  /** The display's accessibility tree; absent (no bus): pixels only. */
  tree?: DemonstrationTree;
  grouping?: Partial<GroupingOptions>;
  screens?: Partial<RecentScreensOptions>;
}

export interface DemonstrationRequest {
  task: string;
  /** How the screen is captured (the image size and format a run's model would get). */
  capture: CaptureOptions;
}

/** How often open clicks and scrolls are looked at (a click no second one followed is done). */
const TICK_MS = 100;

export class Demonstration {
  constructor(private readonly deps: DemonstrationDeps) {}

  /** Records the user's demonstration on the run's context; the events are the context's (`life.events`). */
  record(request: DemonstrationRequest, life: RunLifecycle): AsyncIterable<AgentEvent> {
    void new DemonstrationRun(this.deps, request, life).execute();
    return life.events;
  }
}

/** X server time (ms) to time since the epoch: the smallest gap seen between an event's time and its arrival. */
class ServerClock {
  private offset: number | null = null;

  constructor(private readonly now: () => number) {}

  saw(serverTime: number): void {
    const gap = this.now() - serverTime;
    if (this.offset === null || gap < this.offset) this.offset = gap;
  }

  wall(serverTime: number): number {
    return serverTime + (this.offset ?? this.now() - serverTime);
  }

  serverNow(): number {
    return this.now() - (this.offset ?? 0);
  }
}

const user = { actor: 'user' } as const;

class DemonstrationRun {
  private readonly grouper: ActionGrouper;
  private readonly keys: KeyTracker;
  private readonly screens: RecentScreens;
  private readonly clock: ServerClock;
  private step = 0;
  /** Steps are written one after the other, in the order the actions began. */
  private writes: Promise<void> = Promise.resolve();
  private stoppedBy: string | null = null;
  /** The field the next typing goes into: the screenshot and point of the click that focused it. */
  private field: { image: Buffer; point: Point } | null = null;
  /** The screen before the action taken last: a key that moved the focus (Tab) comes before the typing. */
  private previousBefore: Observation | null = null;
  /** When the action taken last ended (ms since the epoch). */
  private previousEnded: number | null = null;
  /** The focused element read when the current typing began (its first character), until the typing is taken. */
  private typingFocus: Promise<Element | null> | null = null;

  constructor(
    private readonly deps: DemonstrationDeps,
    private readonly request: DemonstrationRequest,
    private readonly life: RunLifecycle,
  ) {
    this.grouper = new ActionGrouper({ ...DEFAULT_GROUPING, ...deps.grouping });
    this.keys = new KeyTracker(KeyDecoder.fromCore(deps.recording.layout));
    this.screens = new RecentScreens(() => life.operator.observe(request.capture), { ...DEFAULT_RECENT_SCREENS, ...deps.screens });
    this.clock = new ServerClock(life.clock);
  }

  async execute(): Promise<void> {
    let ending: Ending;
    try {
      ending = await this.loop();
    } catch (error) {
      ending = { status: 'failed', reason: `the demonstration could not be recorded: ${error instanceof Error ? error.message : String(error)}` };
    }
    await this.deps.recording.stop();
    await this.screens.stop();
    await this.writes.catch(() => undefined);
    await this.life.finish(ending, this.step);
  }

  private async loop(): Promise<Ending> {
    const { life } = this;
    life.emit({ type: 'run-started', task: this.request.task, ...DEMONSTRATION_MODEL, limits: { maxSteps: 0, maxCostUsd: null } });
    const started = await this.screens.start();
    if (!started.ok) return { status: 'failed', reason: `the screen could not be captured: ${started.message}` };
    const { recording } = this.deps;
    const onAbort = () => {
      this.stoppedBy ??= 'stopped';
      void recording.stop();
    };
    if (life.signal.aborted) onAbort();
    life.signal.addEventListener('abort', onAbort, { once: true });
    const events = new AsyncQueue<DeviceEvent>();
    recording.begin(events);
    life.emit({ type: 'note', step: 0, message: `recording what you do on the display; stop with Ctrl+C or ${STOP_CHORD_TEXT}` });
    const ticker = setInterval(() => this.take(this.grouper.tick(this.clock.serverNow())), TICK_MS);
    try {
      for await (const event of events) {
        this.clock.saw(event.time);
        const input = deviceInput(event, this.keys);
        if (input.kind === 'stop') {
          this.stoppedBy = STOP_CHORD_TEXT;
          void recording.stop();
          break;
        }
        if (input.kind === 'input') {
          this.take([...this.grouper.tick(input.input.time), ...this.grouper.push(input.input)]);
          // Read after the actions before it were taken: a Tab before the typing has moved the focus by then.
          if (input.input.kind === 'text' && this.typingFocus === null && this.deps.tree) this.typingFocus = focusedElement(this.deps.tree);
        }
      }
    } finally {
      clearInterval(ticker);
      life.signal.removeEventListener('abort', onAbort);
    }
    this.take(this.grouper.flush());
    await this.writes;
    if (this.stoppedBy === null) return { status: 'failed', reason: recording.failure ?? 'the recording of the input ended by itself' };
    const steps = `${this.step} step${this.step === 1 ? '' : 's'} of yours recorded`;
    return { status: 'finished', reason: `${steps}; the demonstration was ${this.stoppedBy === 'stopped' ? 'stopped' : `stopped with ${this.stoppedBy}`}` };
  }

  /** Completed actions, each with the screen from just before it (chosen now, before the captures move on). */
  private take(actions: readonly GroupedAction[]): void {
    for (const grouped of actions) {
      const before = this.screens.before(this.clock.wall(grouped.startedAt));
      // Typing shows on the screen where it went: against the screen before the action before it
      // (a capture begun before the first key may show it when the machine is slow) and its own,
      // in the newest capture since its last key, if any.
      const typed: TypedScreens | null =
        grouped.action.type === 'type' ? { baselines: [...new Set([this.previousBefore ?? before, before])], after: this.screens.newestAfter(this.clock.wall(grouped.endedAt)) } : null;
      this.previousBefore = before;
      // A capture begun before the previous action ended does not show what that action did.
      const predates = this.previousEnded !== null && before.capturedAt < this.previousEnded;
      this.previousEnded = this.clock.wall(grouped.endedAt);
      const focus = grouped.action.type === 'type' ? this.typingFocus : null;
      this.typingFocus = null;
      const element = this.deps.tree && isClick(grouped.action) ? elementUnder(this.deps.tree, actionPoints(grouped.action)[0] as Point) : null;
      this.writes = this.writes.then(() => this.writeStep(grouped, { screen: before, predates }, typed, focus, element));
    }
    const open = this.grouper.openSince;
    this.screens.keepFrom(open === null ? null : this.clock.wall(open));
  }

  private async writeStep(
    grouped: GroupedAction,
    { screen: before, predates }: { screen: Observation; predates: boolean },
    typed: TypedScreens | null,
    focus: Promise<Element | null> | null,
    element: Promise<ActedElement | null> | null,
  ): Promise<void> {
    const { life } = this;
    const { frame } = before;
    const step = ++this.step;
    const began = life.clock();
    life.emit({ type: 'step-started', step, ...user });
    const mime = frame.image.format === 'png' ? 'image/png' : 'image/jpeg';
    const screenshot = life.recorder.saveScreenshot(step, before.image, mime, frame.image, { fullResolution: before.fullResolution });
    life.emit({ type: 'observation', step, screenshot, frame, ...(predates ? { predatesPreviousAction: true as const } : {}), ...user });
    const finish = () => {
      life.finishStep(step, life.clock() - began, undefined, 'user');
      void life.recorder.flush();
    };
    const { bounds } = frame;
    const points = actionPoints(grouped.action);
    if (points.some((p) => p.x < bounds.x || p.y < bounds.y || p.x >= bounds.x + bounds.width || p.y >= bounds.y + bounds.height)) {
      life.emit({ type: 'note', step, message: 'this action was outside the recorded display: it is not part of the demonstration', ...user });
      finish();
      return;
    }
    const action = screenToImagePixels(grouped.action, frame);
    if (action.type === 'type' && typed) {
      const focused = focus ? await focus : null;
      const byRole = this.deps.tree ? await typedIntoPasswordByTree(this.deps.tree, action.text, focused) : typedIntoPasswordByRole(focused);
      if (byRole ?? (await this.typedIntoSecretField(typed))) life.secrets.add(action.text);
    }
    const hit = element ? await element : null;
    this.followField(action, before.image);
    life.emit({ type: 'action', step, index: 0, action, ...user });
    life.emit({
      type: 'action-result',
      step,
      index: 0,
      action,
      result: {
        ok: true,
        type: action.type,
        points: points.map((p) => screenPoint({ x: p.x, y: p.y })),
        durationMs: Math.max(0, grouped.endedAt - grouped.startedAt),
        ...(hit ? { element: hit } : {}),
      },
      ...user,
    });
    finish();
  }

  /** Where typing goes next: the field a click focused; after a key that moves the focus, unknown. */
  private followField(action: Action, image: Buffer): void {
    if (action.type === 'click' || action.type === 'double_click' || action.type === 'triple_click') this.field = { image, point: { x: action.x, y: action.y } };
    else if (action.type === 'hotkey' || action.type === 'drag' || action.type === 'scroll') this.field = null;
  }

  /**
   * The field a click focused is read where it was clicked. A field the keyboard reached (Tab) is
   * found by what the typing changed on the screen: in the newest capture since its last key, or,
   * when there is none or it shows no change, in one taken now.
   */
  private async typedIntoSecretField({ baselines, after }: TypedScreens): Promise<boolean> {
    const { reader } = this.deps;
    const { operator } = this.life;
    if (!reader) return false;
    try {
      if (this.field) return isSecretField(await wordsNearField(this.field.image, this.field.point, reader));
      /** Read where `screen` differs from a baseline; null when it differs from none. */
      const readChanges = async (screen: Buffer): Promise<boolean | null> => {
        for (const baseline of baselines) {
          const regions = await typedRegions(baseline.image, screen);
          if (regions.length > 0) return anyRegionNamesASecret(screen, regions, reader);
        }
        return null;
      };
      const judged = after ? await readChanges(after.image) : null;
      if (judged !== null) return judged;
      const captured = await operator.observe(this.request.capture);
      return captured.ok && (await readChanges(captured.observation.image)) === true;
    } catch {
      // Unreadable: the text is kept as typed, as a run keeps what its model did not call a secret.
      return false;
    }
  }
}

const isClick = (action: Action): boolean => action.type === 'click' || action.type === 'double_click' || action.type === 'triple_click';

/** What typing with no click before it is judged by: the screens before it, and one after it if captured. */
interface TypedScreens {
  baselines: Observation[];
  after: Observation | null;
}
