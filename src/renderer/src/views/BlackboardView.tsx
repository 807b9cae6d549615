/** The blackboard: tasks, questions and answers, trajectories and saved screenshots, each linked to its step. */
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { BlackboardSection, MemoryItemData } from '../../../shared/memory';
import { useSession } from '../app-context';

const SECTIONS: Array<{ section: BlackboardSection; title: string }> = [
  { section: 'requests', title: 'blackboardView.tasks' },
  { section: 'questions', title: 'blackboardView.questions' },
  { section: 'trajectories', title: 'blackboardView.trajectories' },
  { section: 'screenshots', title: 'blackboardView.screenshots' },
];

/** The text an item shows: its most telling fields (a task's end and summary in words). */
function itemText(item: MemoryItemData, t: TFunction): string {
  if (item.kind === 'task-summary') return `${t('blackboardView.taskSummary')}: ${String(item.summary ?? '')}`;
  if (item.kind === 'task-end') return `${t('blackboardView.taskEnd', { status: String(item.status ?? '') })}: ${String(item.outcome ?? '')}`;
  const parts: string[] = [];
  for (const key of ['request', 'question', 'answer', 'subtask', 'action', 'observation', 'response', 'control_text', 'comment', 'screenshot']) {
    const value = item[key];
    if (value !== undefined && value !== null && value !== '') parts.push(typeof value === 'string' ? value : JSON.stringify(value));
  }
  if (parts.length > 0) return parts.join(' — ');
  const { step: _step, ...rest } = item;
  return JSON.stringify(rest);
}

export function BlackboardView({ onOpenStep }: { onOpenStep: (step: number) => void }) {
  const { t } = useTranslation();
  const blackboard = useSession((s) => s.session?.memory.snapshot.blackboard ?? null);
  const links = useSession((s) => s.session?.memory.boardSteps);
  const earlier = useSession((s) => s.session?.memory.snapshot.blackboardEarlier ?? {});
  if (!blackboard || !links) return <p className="note empty">{t('memoryView.noSession')}</p>;
  return (
    <div className="blackboard-view">
      {SECTIONS.map(({ section, title }) => (
        <section key={section} className="panel" aria-label={t(title)}>
          <h2>
            {t(title)} <span className="count">{blackboard[section].length}</span>
          </h2>
          {(earlier[section] ?? 0) > 0 && <p className="note">{t('blackboardView.earlier', { count: earlier[section] })}</p>}
          {blackboard[section].length === 0 ? (
            <p className="note">{t('blackboardView.empty')}</p>
          ) : (
            <ol className="plain-list board-items">
              {blackboard[section].map((item, index) => (
                <BoardItem key={index} item={item} step={links[section][index] ?? null} onOpenStep={onOpenStep} />
              ))}
            </ol>
          )}
        </section>
      ))}
    </div>
  );
}

/** One item; `step` is the step of this session that added it (null: an earlier run, or the run's start). */
function BoardItem({ item, step, onOpenStep }: { item: MemoryItemData; step: number | null; onOpenStep: (step: number) => void }) {
  const { t } = useTranslation();
  return (
    <li className={step === null ? 'board-item earlier' : 'board-item'}>
      {step !== null && (
        <button type="button" className="link step-link" onClick={() => onOpenStep(step)}>
          {t('blackboardView.openStep', { n: step })}
        </button>
      )}
      <span className="board-text">{itemText(item, t)}</span>
    </li>
  );
}
