/** The run at a glance: task, status, steps, elapsed time, cost, tokens, model; Pause, Resume, Stop while it runs. */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDuration, formatUsd } from '../../../../shared/format';
import { useSession } from '../../app-context';
import { formatTokens } from '../../format';
import { isLive, useShownStatus } from './status';
import { RunControls } from '../../components/RunControls';
import { TakeoverControls } from './TakeoverControls';

/** Re-renders every second while `active`, for the elapsed time. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

export function RunHeader() {
  const { t } = useTranslation();
  const run = useSession((s) => s.session?.run);
  const stepCount = useSession((s) => s.session?.steps.length ?? 0);
  const status = useShownStatus();
  const live = isLive(status);
  const now = useNow(live);
  if (!run) return null;
  const elapsed = run.startedAt === null ? null : (live ? now : (run.endedAt ?? run.lastEventAt ?? run.startedAt)) - run.startedAt;
  return (
    <section className="run-header" aria-label={t('header.steps')}>
      <div className="run-title">
        <span className={`status-badge status-${status}`}>{t(`status.${status}`)}</span>
        <span className="run-task" title={run.task}>
          {run.task}
        </span>
      </div>
      <dl className="run-figures">
        <div>
          <dt>{t('header.steps')}</dt>
          <dd data-testid="step-count">{run.maxSteps ? `${stepCount} / ${run.maxSteps}` : stepCount}</dd>
        </div>
        <div>
          <dt>{t('header.elapsed')}</dt>
          <dd>{formatDuration(elapsed)}</dd>
        </div>
        <div>
          <dt>{t('header.cost')}</dt>
          <dd>{formatUsd(run.totals.usage.costUsd)}</dd>
        </div>
        <div>
          <dt>{t('header.tokens')}</dt>
          <dd>{formatTokens(run.totals.usage.inputTokens + run.totals.usage.outputTokens)}</dd>
        </div>
        <div>
          <dt>{t('header.model')}</dt>
          <dd>{run.model || '—'}</dd>
        </div>
      </dl>
      {live && (
        <div className="live-controls">
          {status !== 'takenOver' && <RunControls paused={run.paused} />}
          {/* A replay follows its record: it can be paused, not taken over. */}
          {run.replayOf === null && <TakeoverControls takenOver={status === 'takenOver'} />}
        </div>
      )}
      {run.reason && !live && <p className="run-reason">{run.reason}</p>}
    </section>
  );
}
