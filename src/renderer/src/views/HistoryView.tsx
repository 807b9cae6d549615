/**
 * Recorded sessions: search, status filter, delete; one opens in the Run view. The sample session
 * Mnemo ships carries a badge, and is removed like any session (it is not offered again).
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { RUN_STATUSES } from '../../../shared/events';
import { formatUsd } from '../../../shared/format';
import { useServices, useHistory } from '../app-context';
import { formatWhen } from '../format';
import { NAMES } from '../i18n/names';
import { ErrorLine } from '../components/ErrorLine';

const STATUSES = [...RUN_STATUSES, 'running', 'interrupted'];

export function HistoryView({ onOpen }: { onOpen: (sessionId: string) => void }) {
  const { t } = useTranslation();
  const { history } = useServices();
  const sessions = useHistory((s) => s.sessions);
  const search = useHistory((s) => s.search);
  const status = useHistory((s) => s.status);
  const error = useHistory((s) => s.error);
  const loading = useHistory((s) => s.loading);

  useEffect(() => {
    void history.getState().refresh();
  }, [history]);

  const remove = (id: string, sample: boolean) => {
    if (window.confirm(sample ? t('historyView.confirmRemoveSample') : t('historyView.confirmDelete', { id }))) void history.getState().remove(id);
  };

  return (
    <div className="history-view">
      <div className="history-filters">
        <input type="search" aria-label={NAMES.searchSessions} placeholder={t('searchSessions')} value={search} onChange={(event) => history.getState().setSearch(event.target.value)} />
        <label className="inline-field">
          {t('historyView.status')}
          <select value={status} onChange={(event) => history.getState().setStatus(event.target.value)}>
            <option value="">{t('historyView.all')}</option>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {t(`status.${value === 'running' ? 'running' : value}`)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorLine message={error} />
      {!loading && sessions.length === 0 && <p className="note empty">{t('historyView.none')}</p>}
      <ul className="session-list" aria-label={t('historyView.sessions')}>
        {sessions.map((session) => (
          <li key={session.id} className="session-item">
            <button type="button" className="session-open" onClick={() => onOpen(session.id)} aria-label={`${t('historyView.open')} ${session.sample ? `${NAMES.sample}: ` : ''}${session.task}`}>
              <span className={`status-badge status-${session.status}`}>{t(`status.${session.status}`, { defaultValue: session.status })}</span>
              <span className="session-task">
                {session.sample && (
                  <span className="sample-badge" title={t('historyView.sampleHint')}>
                    {t('historyView.sample')}
                  </span>
                )}
                {session.store !== undefined && (
                  <span className="sample-badge" title={t('historyView.storedHint', { store: session.store })}>
                    {t('historyView.stored')}
                  </span>
                )}
                {session.waitingForUpload && (
                  <span className="sample-badge" title={t('historyView.waitingForUploadHint')}>
                    {t('historyView.waitingForUpload')}
                  </span>
                )}
                {session.task}
              </span>
              <span className="session-meta">
                {formatWhen(session.startedAt)} · {t('historyView.steps', { count: session.steps })} · {formatUsd(session.cost)} · <code>{session.id}</code>
              </span>
            </button>
            {/* A session read from the shared store is not this machine's to delete (the store keeps it for every machine). */}
            {session.store === undefined && (
              <button
                type="button"
                className="danger small"
                onClick={() => remove(session.id, session.sample === true)}
                aria-label={session.sample ? `Remove sample ${session.id}` : `${t('historyView.delete')} ${session.id}`}
              >
                {session.sample ? t('historyView.removeSample') : t('historyView.delete')}
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
