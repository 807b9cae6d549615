/** A batch's progress in one line: done of all (failed), running, the ETA while it runs, the cost so far; and a bar. */
import { useTranslation } from 'react-i18next';
import type { BatchSummary } from '../../../../shared/batch';
import { formatDuration, formatUsd } from '../../../../shared/format';

export function BatchProgress({ batch }: { batch: BatchSummary }) {
  const { t } = useTranslation();
  const done = batch.counts.succeeded + batch.counts.failed;
  const eta = batch.status === 'running' ? (batch.etaMs === null ? t('batchesView.etaUnknown') : formatDuration(batch.etaMs)) : null;
  return (
    <span className="batch-progress">
      <progress max={batch.total} value={done} aria-label={t('batchesView.progressOf', { id: batch.id })} />
      <span className="batch-progress-line">
        {t('batchesView.progress', { done, total: batch.total, failed: batch.counts.failed, running: batch.counts.running })}
        {eta !== null && ` · ${t('batchesView.eta', { eta })}`} · {formatUsd(batch.costUsd)}
      </span>
    </span>
  );
}
