/**
 * The memory live: the three layers with their budgets as gauges, what of the memory went into the
 * last prompt (each section's budget, cost and what it left out), the screenshots the model still
 * sees and those pruned (thumbnails), and the conversation tiers; and the memory kept across
 * tasks: the facts and each conversation's working memory.
 */
import { useTranslation } from 'react-i18next';
import type { StepView } from '../../../shared/steps';
import { useServices, useSession, useSettings } from '../app-context';
import { SessionImage } from '../components/SessionImage';
import { NAMES } from '../i18n/names';
import { FactsPanel } from './memory/FactsPanel';
import { WorkingMemoryPanel } from './memory/WorkingMemoryPanel';
import { PromptMemoryPanel } from './memory/PromptMemoryPanel';
import { ErrorLine } from '../components/ErrorLine';

const DEFAULT_BUDGETS = { recent: 500, summary: 2000 };
/** The strip shows this many of the latest steps. */
const STRIP_LENGTH = 12;
const THUMB_WIDTH = 160;

export function MemoryView({ onOpenSession }: { onOpenSession: (sessionId: string) => void }) {
  return (
    <div className="memory-view">
      <SessionMemory />
      <div className="long-lived">
        <FactsPanel onOpenSession={onOpenSession} />
        <WorkingMemoryPanel />
      </div>
    </div>
  );
}

/** The open session's memory: the layers, the screenshots, the conversation tiers. */
function SessionMemory() {
  const { t } = useTranslation();
  const memory = useSession((s) => s.session?.memory ?? null);
  const budgets = useSettings((s) => s.saved?.config.memory);
  if (!memory) return <p className="note">{t('memoryView.noSession')}</p>;
  const { layers } = memory.snapshot;
  const recentBudget = budgets?.recentBudget ?? DEFAULT_BUDGETS.recent;
  const summaryBudget = budgets?.summaryBudget ?? DEFAULT_BUDGETS.summary;
  return (
    <>
      <div className="layers">
        <Layer name={NAMES.pending} title={t('pending')} text={layers.pending} budget={null} />
        <Layer name={NAMES.recentSteps} title={t('recentSteps')} text={layers.recent} budget={recentBudget} busy={memory.layersCompressing} />
        <Layer name={NAMES.summary} title={t('summary')} text={layers.summary} budget={summaryBudget} busy={memory.layersCompressing} />
      </div>
      <ErrorLine message={memory.layersError} />
      <PromptMemoryPanel />
      <ScreenshotStrip />
      <ConversationTiers />
    </>
  );
}

function Layer({ name, title, text, budget, busy = false }: { name: string; title: string; text: string; budget: number | null; busy?: boolean }) {
  const { t } = useTranslation();
  return (
    <section className="layer panel" aria-label={name}>
      <h2>{title}</h2>
      {budget === null ? (
        <p className="gauge-caption">{t('memoryView.noBudget', { used: text.length })}</p>
      ) : (
        <>
          <meter min={0} max={budget} low={budget * 0.75} high={budget * 0.95} optimum={0} value={Math.min(text.length, budget)} aria-label={`${name} budget`} />
          <p className="gauge-caption">
            {t('memoryView.budget', { used: text.length, budget })}
            {busy && <span className="busy"> · {t('memoryView.compressing')}</span>}
          </p>
        </>
      )}
      <pre className="layer-text">{text || t('memoryView.empty')}</pre>
    </section>
  );
}

type Seen = 'seen' | 'pruned' | 'dropped';

function ScreenshotStrip() {
  const { t } = useTranslation();
  const { client, session: store } = useServices();
  const sessionId = useSession((s) => s.session?.id ?? null);
  const steps = useSession((s) => s.session?.steps);
  const pruning = useSession((s) => s.session?.memory.pruning ?? null);
  if (!sessionId || !steps) return null;
  const pruned = new Set(pruning?.prunedSteps ?? []);
  const dropped = new Set(pruning?.droppedSteps ?? []);
  const shown = steps.filter((step): step is StepView & { screenshot: NonNullable<StepView['screenshot']> } => step.screenshot !== null).slice(-STRIP_LENGTH);
  const seenOf = (step: number): Seen => (dropped.has(step) ? 'dropped' : pruned.has(step) ? 'pruned' : 'seen');
  return (
    <section className="panel strip-panel" aria-label={NAMES.screenshots}>
      <h2>{t('screenshots')}</h2>
      {pruning && <p className="gauge-caption">{t('memoryView.tokens', { tokens: Math.round(pruning.estimatedTokens), threshold: Math.round(pruning.thresholdTokens) })}</p>}
      <ol className="strip">
        {shown.map((step) => {
          const seen = seenOf(step.step);
          return (
            <li key={step.step} className={`thumb thumb-${seen}`}>
              <button type="button" className="thumb-button" onClick={() => store.getState().inspect(step.step)}>
                <SessionImage src={client.fileUrl(sessionId, step.screenshot.path, THUMB_WIDTH)} alt={t('stepLabel', { n: step.step })} width={THUMB_WIDTH} />
                <span className="thumb-caption">
                  {t('stepLabel', { n: step.step })} · {t(`memoryView.${seen}`)}
                </span>
              </button>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

function ConversationTiers() {
  const { t } = useTranslation();
  const conversation = useSession((s) => s.session?.memory.snapshot.conversation);
  const busy = useSession((s) => s.session?.memory.conversationCompressing ?? false);
  if (!conversation) return null;
  return (
    <section className="panel conversation" aria-label={NAMES.conversation}>
      <h2>
        {t('conversation')}
        {busy && <span className="busy"> · {t('memoryView.compressing')}</span>}
      </h2>
      <div className="tiers">
        <div className="tier">
          <h3>{t('memoryView.chatContext')}</h3>
          <ol className="plain-list">
            {conversation.context.map((message, index) => (
              <li key={index} className={`message message-${message.role}`}>
                <strong>{message.role}</strong>
                {message.kind === 'task' ? ' (task)' : ''}: {message.content}
              </li>
            ))}
          </ol>
          {conversation.context.length === 0 && <p className="note">{t('memoryView.empty')}</p>}
        </div>
        <Tier title={t('memoryView.shortTerm')} items={conversation.shortTerm} />
        <Tier title={t('memoryView.longTerm')} items={conversation.longTerm} />
      </div>
    </section>
  );
}

function Tier({ title, items }: { title: string; items: string[] }) {
  const { t } = useTranslation();
  return (
    <div className="tier">
      <h3>{title}</h3>
      {items.length === 0 ? (
        <p className="note">{t('memoryView.empty')}</p>
      ) : (
        <ol className="plain-list">
          {items.map((item, index) => (
            <li key={index}>{item}</li>
          ))}
        </ol>
      )}
    </div>
  );
}
