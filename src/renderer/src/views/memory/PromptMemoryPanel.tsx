/**
 * What of the memory went into the last system prompt: each section (the layers, the blackboard,
 * the conversation, working memory, facts) with its budget, what it cost, how many entries it
 * showed and what it left out (kept in memory, searched again for each task), and the text itself.
 */
import { useTranslation } from 'react-i18next';
import type { PromptSectionView } from '../../../../shared/memory';
import { useSession } from '../../app-context';
import { NAMES } from '../../i18n/names';

export function PromptMemoryPanel() {
  const { t } = useTranslation();
  const prompt = useSession((s) => s.session?.memory.snapshot.prompt ?? null);
  return (
    <section className="panel prompt-memory" aria-label={NAMES.promptMemory}>
      <h2>{t('promptView.title')}</h2>
      {prompt === null ? (
        <p className="note">{t('promptView.none')}</p>
      ) : (
        <>
          <p className="gauge-caption">{t('promptView.caption', { tokens: prompt.totalTokens })}</p>
          <table className="prompt-sections">
            <thead>
              <tr>
                <th scope="col">{t('promptView.section')}</th>
                <th scope="col">{t('promptView.used')}</th>
                <th scope="col">{t('promptView.shown')}</th>
                <th scope="col">{t('promptView.leftOut')}</th>
              </tr>
            </thead>
            <tbody>
              {prompt.sections.map((section) => (
                <SectionRow key={section.name} section={section} />
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function SectionRow({ section }: { section: PromptSectionView }) {
  const { t } = useTranslation();
  const title = t(`promptView.${section.name}`);
  const budget = section.budgetTokens;
  return (
    <tr>
      <th scope="row">
        {title}
        {section.text !== '' && (
          <details>
            <summary>{t('promptView.text')}</summary>
            <pre className="layer-text">{section.text}</pre>
          </details>
        )}
      </th>
      <td>
        {budget !== null && <meter min={0} max={budget} high={budget * 0.95} optimum={0} value={Math.min(section.usedTokens, budget)} aria-label={`${title} budget`} />}
        <span className="gauge-caption">
          {' '}
          ~{section.usedTokens} / {budget ?? t('promptView.ownLimits')}
        </span>
      </td>
      <td>{section.shown}</td>
      <td>{section.omitted > 0 || section.leftOut !== '' ? section.leftOut : t('promptView.nothing')}</td>
    </tr>
  );
}
