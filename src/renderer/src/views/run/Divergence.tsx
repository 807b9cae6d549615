/**
 * A replay that diverged: for each step the replayer found different, the recorded and the
 * current screen around the action's target, side by side. The recorded image is the replayed
 * session's file of the same step (both records name screenshots by step).
 */
import { useTranslation } from 'react-i18next';
import { actionPoints } from '../../../../shared/actions';
import type { ScreenshotRef } from '../../../../shared/events';
import type { StepView } from '../../../../shared/steps';
import { useServices, useSession } from '../../app-context';
import { SessionImage } from '../../components/SessionImage';

/** Side of the compared square, in screenshot pixels (the replayer's patch is about this size). */
const PATCH = 160;

function divergedSteps(steps: readonly StepView[]): Array<{ step: StepView; note: string }> {
  const found: Array<{ step: StepView; note: string }> = [];
  for (const step of steps) {
    const note = step.notes.find((text) => /^step \d+ diverges: /.test(text));
    if (note) found.push({ step, note });
  }
  return found;
}

export function Divergence() {
  const { t } = useTranslation();
  const replayOf = useSession((s) => s.session?.run.replayOf ?? null);
  const sessionId = useSession((s) => s.session?.id ?? null);
  const steps = useSession((s) => s.session?.steps);
  if (!replayOf || !sessionId || !steps) return null;
  const diverged = divergedSteps(steps);
  if (diverged.length === 0) return null;
  return (
    <section className="divergence" aria-label={t('divergence.title', { n: diverged[0]?.step.step })}>
      {diverged.slice(-3).map(({ step, note }) => (
        <article key={step.step} className="divergence-step">
          <h3>{t('divergence.title', { n: step.step })}</h3>
          <p className="note">{note.replace(/^step \d+ diverges: /, '')}</p>
          {step.screenshot && (
            <div className="patches">
              <Patch label={t('divergence.recorded')} sessionId={replayOf} shot={step.screenshot} centre={targetOf(step, note)} />
              <Patch label={t('divergence.current')} sessionId={sessionId} shot={step.screenshot} centre={targetOf(step, note)} />
            </div>
          )}
        </article>
      ))}
    </section>
  );
}

/** The point the replayer compared around: named in its note, else the step's first target. */
function targetOf(step: StepView, note: string): { x: number; y: number } | null {
  const named = /at \((\d+(?:\.\d+)?), (\d+(?:\.\d+)?)\)/.exec(note);
  if (named) return { x: Number(named[1]), y: Number(named[2]) };
  for (const action of step.actions) {
    const [point] = actionPoints(action);
    if (point) return point;
  }
  return null;
}

function Patch({ label, sessionId, shot, centre }: { label: string; sessionId: string; shot: ScreenshotRef; centre: { x: number; y: number } | null }) {
  const { client } = useServices();
  const side = Math.min(PATCH, shot.width, shot.height);
  const x = centre ? Math.min(Math.max(centre.x - side / 2, 0), shot.width - side) : 0;
  const y = centre ? Math.min(Math.max(centre.y - side / 2, 0), shot.height - side) : 0;
  // The crop is geometry: React sets it through the CSSOM, which the CSP allows (no style attribute in markup).
  const crop = centre === null ? undefined : { width: `${(shot.width / side) * 100}%`, transform: `translate(${(-x / shot.width) * 100}%, ${(-y / shot.height) * 100}%)` };
  return (
    <figure className="patch">
      <div className="patch-window">
        <SessionImage src={client.fileUrl(sessionId, shot.path)} alt={label} className="patch-image" style={crop} />
      </div>
      <figcaption>{label}</figcaption>
    </figure>
  );
}
