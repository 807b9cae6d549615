/**
 * A conversation's working memory: the one summary the memory model rewrites after each task of
 * the conversation. The open session's conversation is chosen first, when it has one.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { WorkingMemory } from '../../../../shared/app-api';
import { useServices, useSession } from '../../app-context';
import { formatWhen } from '../../format';
import { NAMES } from '../../i18n/names';
import { ErrorLine } from '../../components/ErrorLine';

export function WorkingMemoryPanel() {
  const { t } = useTranslation();
  const { client } = useServices();
  const openConversation = useSession((s) => s.session?.run.conversationId ?? null);
  const [conversations, setConversations] = useState<string[] | null>(null);
  const [chosen, setChosen] = useState('');
  // undefined: not read yet; null: this conversation has none yet.
  const [memory, setMemory] = useState<WorkingMemory | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    void client['memory:conversations']().then((listed) => {
      if (!listed.ok) return setError(listed.error.message);
      setConversations(listed.value);
      setChosen((current) => (current && listed.value.includes(current) ? current : openConversation && listed.value.includes(openConversation) ? openConversation : (listed.value[0] ?? '')));
    });
  }, [client, openConversation, reloads]);

  useEffect(() => {
    if (!chosen) return setMemory(undefined);
    let current = true;
    void client['memory:working']({ conversationId: chosen }).then((read) => {
      if (!current) return;
      if (read.ok) {
        setError(null);
        setMemory(read.value);
      } else setError(read.error.message);
    });
    return () => {
      current = false;
    };
  }, [client, chosen, reloads]);

  return (
    <section className="panel working-memory" aria-label={NAMES.workingMemory}>
      <h2>{t('workingMemoryPanel.title')}</h2>
      <ErrorLine message={error} />
      {conversations && conversations.length === 0 ? (
        <p className="note">{t('workingMemoryPanel.none')}</p>
      ) : (
        <div className="field-row">
          <label className="inline-field">
            {t('workingMemoryPanel.conversation')}
            <select aria-label={NAMES.chooseConversation} value={chosen} onChange={(event) => setChosen(event.target.value)}>
              {(conversations ?? []).map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="small" onClick={() => setReloads((count) => count + 1)}>
            {t('workingMemoryPanel.refresh')}
          </button>
        </div>
      )}
      {memory === null && <p className="note">{t('workingMemoryPanel.empty')}</p>}
      {memory && (
        <>
          <pre className="layer-text working-memory-text">{memory.memory}</pre>
          <p className="gauge-caption">{t('workingMemoryPanel.updated', { when: formatWhen(memory.updatedAt) })}</p>
        </>
      )}
    </section>
  );
}
