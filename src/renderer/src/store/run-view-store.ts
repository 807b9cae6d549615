/**
 * The Run view's state: which session it shows (the live run, or one opened from History), that
 * session folded from its events, and what the user does to it (start, pause, resume, stop,
 * answer, scrub). Fed by the client's event feed; batches events per frame, so a burst of
 * catch-up events costs one render.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ActionInput } from '../../../shared/actions';
import type { LiveRunItem } from '../../../shared/app-api';
import type { DesktopRequest } from '../../../shared/desktop';
import type { AgentEvent } from '../../../shared/events';
import type { MnemoClient } from '../api/client';
import { emptySession, withEvents, type SessionData } from './session-fold';

export interface RunViewStore {
  /** The session shown, or null before any. */
  session: SessionData | null;
  /** A new run's events take the view (false while the user looks at a past session). */
  followLive: boolean;
  /** The run going on (in this or another window), if any: the newest. */
  liveRunId: string | null;
  /** Every run going on (several at once on private desktops), oldest first. */
  liveRuns: LiveRunItem[];
  loading: boolean;
  /** The last command that failed, in words. */
  error: string | null;
  /** The step the screen shows when scrubbing; null: the latest. */
  cursor: number | null;
  /** The step open in the inspector. */
  inspected: number | null;

  /** Feeds one event from the client's subscription. */
  receive(event: AgentEvent): void;
  /** Asks which run is going on (at start). */
  syncCurrentRun(): Promise<void>;
  /** Asks which runs are going on (after a run starts or ends, a takeover, a hand-back). */
  refreshLiveRuns(): Promise<void>;
  /** Starts a task, on the user's display or (with `desktop`) on a private desktop of its own. */
  start(task: string, continueConversation: boolean, desktop?: DesktopRequest): Promise<boolean>;
  /** Opens a recorded (or live) session. */
  open(sessionId: string): Promise<void>;
  showLive(): Promise<void>;
  /** Shows one of the runs going on, and follows it. */
  switchTo(runId: string): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
  answer(text: string): Promise<void>;
  /** The user takes the shown run over; the agent stops after the action in progress. */
  takeOver(): Promise<void>;
  /** One action of the user's on the shown run, in its display's pixels. */
  input(action: ActionInput): Promise<void>;
  /** Gives the shown run back to the agent, with a note for it. */
  handBack(note: string): Promise<void>;
  replay(policy: 'stop' | 'ask' | 'reground', speed: number): Promise<void>;
  setCursor(step: number | null): void;
  inspect(step: number | null): void;
  clearError(): void;
}

const BATCH_MS = 16;

export function createRunViewStore(client: MnemoClient): StoreApi<RunViewStore> {
  let queue: AgentEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** Events of a session that arrive while its record is being read. */
  let heldWhileLoading: AgentEvent[] | null = null;

  return createStore<RunViewStore>()((set, get) => {
    const flush = () => {
      timer = null;
      const events = queue;
      queue = [];
      const { session } = get();
      if (!session) return;
      const next = withEvents(session, events);
      if (next !== session) set({ session: next });
    };

    const failed = (message: string) => set({ error: message });

    /** Shows session `id`: its recorded events first, then the live ones held meanwhile. */
    const load = async (id: string, followLive: boolean) => {
      if (get().session?.id === id) {
        set({ followLive });
        return;
      }
      queue = [];
      heldWhileLoading = [];
      set({ session: emptySession(id), followLive, loading: true, cursor: null, inspected: null, error: null });
      const read = await client['sessions:events']({ id, since: 0 });
      if (get().session?.id !== id) return;
      const held = heldWhileLoading ?? [];
      heldWhileLoading = null;
      if (!read.ok) {
        set({ loading: false, error: read.error.message });
        return;
      }
      const session = withEvents(withEvents(emptySession(id), read.value), held);
      set({ session, loading: false });
    };

    /** Asks for the live runs once the events of a burst have come (a run start brings a dozen). */
    let refreshTimer: ReturnType<typeof setTimeout> | null = null;
    const refreshSoon = () => {
      refreshTimer ??= setTimeout(() => {
        refreshTimer = null;
        void get().refreshLiveRuns();
      }, 100);
    };

    const onRun = async (action: (id: string) => ReturnType<MnemoClient['run:pause']>) => {
      const id = get().liveRunId ?? get().session?.id;
      if (!id) return;
      const result = await action(id);
      if (!result.ok) {
        failed(result.error.message);
        return;
      }
      // Paused takes effect at the next step boundary (the event says so then); the button changes now.
      const session = get().session;
      if (session?.id === result.value.id && session.run.status === 'running' && session.run.paused !== result.value.paused) {
        set({ session: { ...session, run: { ...session.run, paused: result.value.paused } } });
      }
    };

    return {
      session: null,
      followLive: true,
      liveRunId: null,
      liveRuns: [],
      loading: false,
      error: null,
      cursor: null,
      inspected: null,

      receive(event) {
        const { session, followLive } = get();
        if (event.type === 'run-started' || event.type === 'run-finished' || event.type === 'taken-over' || event.type === 'handed-back') refreshSoon();
        if (event.type === 'run-started' && event.runId !== session?.id) {
          set({ liveRunId: event.runId });
          if (!followLive && session) return;
          // A new run takes the view; its first event starts the fold.
          queue = [];
          heldWhileLoading = null;
          set({ session: withEvents(emptySession(event.runId), [event]), cursor: null, inspected: null, loading: false });
          return;
        }
        if (event.type === 'run-finished') {
          const liveRuns = get().liveRuns.filter((run) => run.id !== event.runId);
          // The newest run still going takes over as "the live run".
          set({ liveRuns, ...(event.runId === get().liveRunId ? { liveRunId: liveRuns.at(-1)?.id ?? null } : {}) });
        }
        if (event.runId !== session?.id) return;
        if (heldWhileLoading) {
          heldWhileLoading.push(event);
          return;
        }
        queue.push(event);
        timer ??= setTimeout(flush, BATCH_MS);
      },

      async syncCurrentRun() {
        void get().refreshLiveRuns();
        const current = await client['run:current']();
        if (!current.ok || !current.value) return;
        set({ liveRunId: current.value.id });
        if (get().followLive && get().session?.id !== current.value.id) await load(current.value.id, true);
      },

      async refreshLiveRuns() {
        const listed = await client['runs:list']();
        if (listed.ok) set({ liveRuns: listed.value });
      },

      async start(task, continueConversation, desktop) {
        const conversationId = continueConversation ? (get().session?.run.conversationId ?? undefined) : undefined;
        const started = await client['run:start']({ task, ...(conversationId ? { conversationId } : {}), ...(desktop?.private ? { desktop } : {}) });
        if (!started.ok) {
          failed(started.error.kind === 'busy' ? `A run is going on already${started.error.sessionId ? ` (session ${started.error.sessionId})` : ''}: ${started.error.message}` : started.error.message);
          return false;
        }
        set({ liveRunId: started.value.id, error: null });
        refreshSoon();
        await load(started.value.id, true);
        return true;
      },

      open: (id) => load(id, false),

      switchTo: (id) => load(id, true),

      async showLive() {
        const id = get().liveRunId;
        if (id) await load(id, true);
        else set({ followLive: true });
      },

      pause: () => onRun((id) => client['run:pause']({ id })),
      resume: () => onRun((id) => client['run:resume']({ id })),
      stop: () => onRun((id) => client['run:stop']({ id })),

      async answer(text) {
        const { session } = get();
        const question = session?.run.pendingQuestion;
        if (!session || !question) return;
        const result = await client['run:answer']({ id: session.id, text, questionId: question.id });
        if (!result.ok) failed(result.error.message);
      },

      async takeOver() {
        const id = get().session?.id;
        if (!id) return;
        const taken = await client['run:takeover']({ id });
        if (!taken.ok) return failed(taken.error.message);
        const session = get().session;
        // The button changes now; the event confirms it once the agent has stopped.
        if (session?.id === id) set({ session: { ...session, run: { ...session.run, takenOver: true } } });
        refreshSoon();
      },

      async input(action) {
        const id = get().session?.id;
        if (!id) return;
        const done = await client['run:input']({ id, action });
        if (!done.ok) failed(done.error.message);
      },

      async handBack(note) {
        const id = get().session?.id;
        if (!id) return;
        const back = await client['run:handback']({ id, ...(note.trim() ? { note: note.trim() } : {}) });
        if (!back.ok) return failed(back.error.message);
        const session = get().session;
        if (session?.id === id) set({ session: { ...session, run: { ...session.run, takenOver: false } } });
        refreshSoon();
      },

      async replay(policy, speed) {
        const id = get().session?.id;
        if (!id) return;
        const started = await client['replay:start']({ session: id, policy, speed });
        if (!started.ok) {
          failed(started.error.message);
          return;
        }
        set({ liveRunId: started.value.id, error: null });
        await load(started.value.id, true);
      },

      setCursor: (step) => set({ cursor: step }),
      inspect: (step) => set({ inspected: step }),
      clearError: () => set({ error: null }),
    };
  });
}
