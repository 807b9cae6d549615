/**
 * One batch open: what it runs, its progress, "Retry failed rows" and "Cancel", and its rows in a
 * table (each value column, a secret as `${env:NAME}` or `${keychain:NAME}`, never its value; the
 * status; the attempts; the session, which opens in the Run view; the cost; why it failed).
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BatchDetail } from '../../../../shared/batch';
import { formatUsd } from '../../../../shared/format';
import { useServices } from '../../app-context';
import { NAMES } from '../../i18n/names';
import { BatchProgress } from './BatchProgress';

export function BatchPane({ batch, onOpenSession, onError }: { batch: BatchDetail; onOpenSession: (id: string) => void; onError: (message: string | null) => void }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const [busy, setBusy] = useState(false);
  const open = batch.counts.pending + batch.counts.running;

  const act = async (work: () => Promise<{ ok: true } | { ok: false; error: { message: string } }>) => {
    setBusy(true);
    const answer = await work();
    setBusy(false);
    onError(answer.ok ? null : answer.error.message);
  };

  return (
    <section className="batch-pane" aria-label={`${t('batchesView.batch')} ${batch.id}`}>
      <h2>
        {batch.source.kind === 'workflow' ? t('batchesView.workflow', { name: batch.source.name }) : t('batchesView.task', { task: batch.source.task })}
      </h2>
      <p className="batch-facts">
        <code>{batch.id}</code> · {batch.valuesFile} · {t('batchesView.concurrency', { reason: batch.concurrencyReason })} · {t('batchesView.retries', { count: batch.retries })}
        {batch.runningIn && ` · ${t('batchesView.runningIn', { pid: batch.runningIn.pid, host: batch.runningIn.hostname })}`}
      </p>
      <BatchProgress batch={batch} />
      <div className="batch-actions">
        <button type="button" aria-label={NAMES.retryFailedRows} disabled={busy || batch.counts.failed === 0 || batch.status === 'running'} onClick={() => void act(() => client['batches:retry']({ id: batch.id, failedOnly: true }))}>
          {t('retryFailedRows')}
        </button>
        <button type="button" className="danger" aria-label={NAMES.cancel} disabled={busy || batch.status === 'cancelled' || (open === 0 && batch.status !== 'running')} onClick={() => void act(() => client['batches:cancel']({ id: batch.id }))}>
          {t('cancel')}
        </button>
      </div>
      <div className="batch-rows-scroll">
        <table className="batch-rows" aria-label={NAMES.batchRows}>
          <thead>
            <tr>
              <th scope="col">{t('batchesView.row')}</th>
              {batch.columns.map((column) => (
                <th key={column} scope="col">
                  {column}
                </th>
              ))}
              <th scope="col">{t('batchesView.rowStatus')}</th>
              <th scope="col">{t('batchesView.attempts')}</th>
              <th scope="col">{t('batchesView.session')}</th>
              <th scope="col">{t('batchesView.cost')}</th>
              <th scope="col">{t('batchesView.reason')}</th>
              <th scope="col">{t('batchesView.screenValues')}</th>
            </tr>
          </thead>
          <tbody>
            {batch.rows.map((row) => (
              <tr key={row.row} aria-label={`${t('batchesView.row')} ${row.row}`}>
                <th scope="row">{row.row}</th>
                {batch.columns.map((column) => (
                  <td key={column}>{row.values[column] ?? ''}</td>
                ))}
                <td>
                  <span className={`status-badge batch-row-${row.status}`}>{t(`batchesView.rowStatuses.${row.status}`)}</span>
                </td>
                <td>{row.attempts}</td>
                <td>
                  {row.session ? (
                    <a href="#/run" aria-label={`${t('batchesView.openSession')} ${row.session}`} onClick={(event) => {
                      event.preventDefault();
                      onOpenSession(row.session as string);
                    }}>
                      <code>{row.session}</code>
                    </a>
                  ) : (
                    '—'
                  )}
                </td>
                <td>{formatUsd(row.costUsd)}</td>
                <td className="batch-reason">{row.status === 'failed' ? row.reason : ''}</td>
                <td className="batch-screen-values">{screenValuesText(row.screenValues)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** What a row's run read off the screen, in one line: `Name: Ada; summary: Entered.` (a password only by its length, as the main process wrote it). */
function screenValuesText(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([name, value]) => `${name}: ${value}`)
    .join('; ');
}
