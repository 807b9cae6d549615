/** Replaying a recorded session on a desktop, recorded as a new session (src/main/replay/). */
import type { DesktopRequest } from '../../../shared/desktop';
import type { DivergenceThresholds } from '../../replay/divergence';
import type { ReplayPolicy } from '../../replay/policy';
import { Replayer } from '../../replay/replayer';
import type { RunFlags } from '../../settings/settings';
import type { RunHandle } from './live-run';
import type { Prepared } from './run-launcher';
import type { ServiceResult } from '../service-result';
import type { SessionQueries } from '../sessions/session-queries';
import type { RecipeParts } from './recipe-parts';
import { modelFor, modelOfSession } from './run-models';

export interface ReplayRequest {
  /** A session id, a unique prefix of one, or `last`. */
  session: string;
  policy: ReplayPolicy;
  /** Recorded pauses divided by this; 0: no pauses. */
  speed: number;
  thresholds?: Partial<DivergenceThresholds>;
  display?: number;
  interactive?: boolean;
  /** A model to find diverged targets again (reground); flags as for a run. */
  model?: RunFlags;
  /** Where to replay; absent: the desktop the session recorded (a private one is started the same again). */
  desktop?: DesktopRequest;
  keepDesktop?: boolean;
}

export interface ReplaysDeps extends RecipeParts {
  records: SessionQueries;
}

export class Replays {
  constructor(private readonly deps: ReplaysDeps) {}

  async start(request: ReplayRequest): Promise<ServiceResult<RunHandle>> {
    const { config, launcher, desktops, records } = this.deps;
    const chosen = modelFor(this.deps, request.model, request.policy);
    if (!chosen.ok) return chosen;
    const model = chosen.value;
    const found = await records.recorded(request.session);
    if (!found.ok) return config.redacted(found);
    const session = found.value;
    const launched = await launcher.launch<Prepared>({
      kind: 'replay',
      task: session.meta.task,
      redaction: config.redaction(request.model),
      session: { ...modelOfSession(model), replayOf: session.meta.id },
      display: request.display,
      desktop: desktops.specFor(request.desktop, session.meta.desktop),
      keepDesktop: request.keepDesktop,
      interactive: request.interactive,
      what: 'the replay',
      prepare: async () => ({ ok: true, value: { conversationId: null } }),
      engine: (life) =>
        new Replayer(model ? { model } : {}).replay(
          session,
          {
            policy: request.policy,
            speed: request.speed,
            ...(request.thresholds ? { thresholds: request.thresholds } : {}),
            capture: { ...(request.display !== undefined ? { display: request.display } : {}) },
          },
          life,
        ),
    });
    return config.redacted(launched);
  }
}
