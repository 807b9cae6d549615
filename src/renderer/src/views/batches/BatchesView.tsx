/**
 * The Batches view: every batch of the data directory with its progress (done, failed, running,
 * the ETA, the cost), one open with its rows (the value columns, a secret as the reference to where
 * it is kept; the status; the session, which opens in the Run view), "Retry failed rows" and
 * "Cancel"; "New batch" to start one; and, below, the queue's schedules and workers. Everything follows the batches' changes
 * as they land in their journals (a batch run here, or by `mnemo batch run` in a terminal).
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BatchChange, BatchDetail, BatchSummary } from '../../../../shared/batch';
import { useServices } from '../../app-context';
import { ErrorLine } from '../../components/ErrorLine';
import { formatWhen } from '../../format';
import { NAMES } from '../../i18n/names';
import { BatchPane } from './BatchPane';
import { detailWithChange, listWithChange } from './batch-fold';
import { BatchProgress } from './BatchProgress';
import { NewBatchForm } from './NewBatchForm';
import { QueueSection } from './QueueSection';

export function BatchesView({ open, onOpen, onOpenSession }: { open: string | null; onOpen: (id: string | null) => void; onOpenSession: (id: string) => void }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const [batches, setBatches] = useState<BatchSummary[] | null>(null);
  const [detail, setDetail] = useState<BatchDetail | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stale = false;
    // Changes that come before the list (the stream tells every batch whole first) fold into it once it is there.
    let early: BatchChange[] | null = [];
    const stop = client.followBatches((change) => {
      if (early) early.push(change);
      else setBatches((now) => (now ? listWithChange(now, change) : now));
      setDetail((now) => detailWithChange(now, change));
    });
    void client['batches:list']().then((listed) => {
      if (stale) return;
      const pending = early ?? [];
      early = null;
      if (listed.ok) setBatches(pending.reduce(listWithChange, listed.value));
      else setError(listed.error.message);
    });
    return () => {
      stale = true;
      stop();
    };
  }, [client]);

  useEffect(() => {
    if (!open) {
      setDetail(null);
      return;
    }
    let stale = false;
    void client['batches:get']({ id: open }).then((read) => {
      if (stale) return;
      if (read.ok) {
        setDetail(read.value);
        setError(null);
      } else setError(read.error.message);
    });
    return () => {
      stale = true;
    };
  }, [client, open]);

  return (
    <div className="batches-view">
      <section className="batch-list-pane" aria-label={NAMES.batches}>
        <h2>{t('batches')}</h2>
        {batches !== null && batches.length === 0 && <p className="note empty">{t('batchesView.none')}</p>}
        <ul className="batch-list" aria-label={t('batchesView.list')}>
          {(batches ?? []).map((batch) => (
            <li key={batch.id} className={batch.id === detail?.id ? 'batch-item active' : 'batch-item'}>
              <button type="button" className="batch-open" aria-label={`${t('batchesView.open')} ${batch.id}`} aria-current={batch.id === open ? 'true' : undefined} onClick={() => onOpen(batch.id)}>
                <span className={`status-badge batch-status-${batch.status}`}>{t(`batchesView.status.${batch.status}`)}</span>
                <span className="batch-what">{batch.source.kind === 'workflow' ? batch.source.name : batch.source.task}</span>
                <span className="batch-meta">
                  {formatWhen(batch.createdAt)} · <code>{batch.id}</code>
                </span>
                <BatchProgress batch={batch} />
              </button>
            </li>
          ))}
        </ul>
        <NewBatchForm onStarted={onOpen} />
      </section>
      <div className="batch-detail-pane">
        <ErrorLine message={error} />
        {detail ? <BatchPane batch={detail} onOpenSession={onOpenSession} onError={setError} /> : <p className="note">{t('batchesView.choose')}</p>}
        <QueueSection />
      </div>
    </div>
  );
}
