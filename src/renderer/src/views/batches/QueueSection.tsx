/**
 * The queue's place in the Batches view: the schedules with their next runs, and the workers with
 * what each is running, from `batches:queue`. Without a queue or a schedule it says so ("No
 * schedules", "No queue set"); the queue's part fills the same command in.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BatchQueueView } from '../../../../shared/batch';
import { useServices } from '../../app-context';
import { formatWhen } from '../../format';
import { NAMES } from '../../i18n/names';

export function QueueSection() {
  const { t } = useTranslation();
  const { client } = useServices();
  const [queue, setQueue] = useState<BatchQueueView | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stale = false;
    void client['batches:queue']().then((read) => {
      if (stale) return;
      if (read.ok) setQueue(read.value);
      else setError(read.error.message);
    });
    return () => {
      stale = true;
    };
  }, [client]);

  return (
    <div className="queue-sections">
      <section aria-label={NAMES.schedules}>
        <h3>{t('schedules')}</h3>
        {error && <p className="note">{error}</p>}
        {queue && queue.schedules.length === 0 && <p className="note empty">{t('batchesView.noSchedules')}</p>}
        <ul className="schedule-list">
          {queue?.schedules.map((schedule) => (
            <li key={schedule.id}>
              <code>{schedule.cron}</code> {schedule.what}
              {schedule.nextRuns.length > 0 && ` · ${t('batchesView.nextRuns', { when: schedule.nextRuns.map((at) => formatWhen(at)).join(', ') })}`}
            </li>
          ))}
        </ul>
      </section>
      <section aria-label={NAMES.workers}>
        <h3>{t('workers')}</h3>
        {queue && queue.queue === null && <p className="note empty">{t('batchesView.noQueue')}</p>}
        {queue && queue.queue !== null && queue.workers.length === 0 && <p className="note empty">{t('batchesView.noWorkers', { queue: queue.queue })}</p>}
        <ul className="worker-list">
          {queue?.workers.map((worker) => (
            <li key={worker.id}>
              {worker.host} (pid {worker.pid}) · {t('batchesView.desktopsInUse', { count: worker.desktopsInUse })}
              {worker.running.map((job) => ` · ${job.batch} #${job.row}`).join('')}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
