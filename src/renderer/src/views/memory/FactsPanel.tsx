/**
 * The facts remembered across tasks: browse by subject and scope, search (ranked by the core),
 * edit a value (the old one stays in the fact's history), forget. A fact a run taught names its
 * session, which opens in the Run view like any session.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { FactJson } from '../../../../shared/app-api';
import { useServices } from '../../app-context';
import { formatWhen } from '../../format';
import { NAMES } from '../../i18n/names';
import { ErrorLine } from '../../components/ErrorLine';

/** The subjects every store knows, offered before any fact shows others. */
const BUILT_IN_SUBJECTS = ['user', 'machine', 'everything'];

type OpenSession = (sessionId: string) => void;

export function FactsPanel({ onOpenSession }: { onOpenSession: OpenSession }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const [subject, setSubject] = useState('');
  const [scope, setScope] = useState('');
  const [search, setSearch] = useState('');
  const [facts, setFacts] = useState<FactJson[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [seen, setSeen] = useState<{ subjects: string[]; scopes: string[] }>({ subjects: BUILT_IN_SUBJECTS, scopes: [] });
  const [reloads, setReloads] = useState(0);
  const asked = useRef(0);

  useEffect(() => {
    // Only the answer to the latest question counts (typing asks once per key).
    const mine = ++asked.current;
    const query = { subject, scope };
    const text = search.trim();
    void (text ? client['facts:search']({ ...query, text }) : client['facts:list'](query)).then((answer) => {
      if (mine !== asked.current) return;
      if (!answer.ok) {
        setError(answer.error.message);
        return;
      }
      setError(null);
      setFacts(answer.value);
      const union = (known: string[], more: string[]) => [...new Set([...known, ...more])].sort();
      setSeen((before) => ({ subjects: union(before.subjects, answer.value.map((fact) => fact.subject)), scopes: union(before.scopes, answer.value.map((fact) => fact.scope)) }));
    });
  }, [client, subject, scope, search, reloads]);

  const reload = () => setReloads((count) => count + 1);

  return (
    <section className="panel facts" aria-label={NAMES.facts}>
      <h2>{t('factsPanel.title')}</h2>
      <div className="field-row facts-filters">
        <input type="search" aria-label={NAMES.searchFacts} placeholder={t('factsPanel.search')} value={search} onChange={(event) => setSearch(event.target.value)} />
        <label className="inline-field">
          {t('factsPanel.subject')}
          <select aria-label={NAMES.subject} value={subject} onChange={(event) => setSubject(event.target.value)}>
            <option value="">{t('factsPanel.any')}</option>
            {seen.subjects.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="inline-field">
          {t('factsPanel.scope')}
          <input type="text" aria-label={NAMES.scope} list="fact-scopes" placeholder={t('factsPanel.any')} value={scope} onChange={(event) => setScope(event.target.value)} />
          <datalist id="fact-scopes">
            {seen.scopes.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </label>
      </div>
      <ErrorLine message={error} />
      {facts && facts.length === 0 && <p className="note">{search.trim() ? t('factsPanel.noMatch') : t('factsPanel.none')}</p>}
      <ul className="fact-list" aria-label={t('factsPanel.list')}>
        {(facts ?? []).map((fact) => (
          <FactItem key={fact.id} fact={fact} onOpenSession={onOpenSession} onChanged={reload} />
        ))}
      </ul>
    </section>
  );
}

/** Where a version came from: the run that taught it (a button that opens it), or a person. */
function TaughtBy({ sessionId, onOpenSession }: { sessionId: string | undefined; onOpenSession: OpenSession }) {
  const { t } = useTranslation();
  if (!sessionId) return <span>{t('factsPanel.byPerson')}</span>;
  return (
    <button type="button" className="link" aria-label={`Open session ${sessionId}`} onClick={() => onOpenSession(sessionId)}>
      {t('factsPanel.taughtBy', { id: sessionId })}
    </button>
  );
}

function FactItem({ fact, onOpenSession, onChanged }: { fact: FactJson; onOpenSession: OpenSession; onChanged: () => void }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const [editing, setEditing] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const history = fact.history ?? [];

  const forget = async () => {
    if (!window.confirm(t('factsPanel.confirmForget', { keyword: fact.keyword }))) return;
    const forgotten = await client['facts:forget']({ id: fact.id });
    if (forgotten.ok) onChanged();
    else setProblem(forgotten.error.message);
  };

  return (
    <li className="fact-item">
      <div className="fact-head">
        <strong className="fact-keyword">{fact.keyword}</strong>
        <span className="fact-tag">{fact.subject}</span>
        <code className="fact-scope">{fact.scope}</code>
        {fact.factType === 'multiple' && <span className="fact-tag">{t('factsPanel.multiple')}</span>}
        {fact.score !== undefined && <span className="note">{t('factsPanel.score', { score: fact.score.toFixed(2) })}</span>}
      </div>
      {editing ? (
        <FactEditor
          fact={fact}
          onDone={(saved) => {
            setEditing(false);
            if (saved) onChanged();
          }}
        />
      ) : (
        <>
          <ul className="fact-values">
            {fact.values.map((value) => (
              <li key={value}>{value}</li>
            ))}
          </ul>
          {fact.description && <p className="fact-description">{fact.description}</p>}
        </>
      )}
      <p className="fact-meta">
        {formatWhen(fact.timestamp)} · <TaughtBy sessionId={fact.sessionId} onOpenSession={onOpenSession} />
      </p>
      {history.length > 0 && (
        <details className="fact-history">
          <summary>{t('factsPanel.history', { count: history.length })}</summary>
          <ol className="plain-list">
            {history.map((version) => (
              <li key={`${version.timestamp}-${version.values.join('\u0000')}`}>
                {version.values.join('; ')} · {formatWhen(version.timestamp)} · <TaughtBy sessionId={version.sessionId} onOpenSession={onOpenSession} />
              </li>
            ))}
          </ol>
        </details>
      )}
      <ErrorLine message={problem} />
      {!editing && (
        <div className="fact-actions">
          <button type="button" className="small" aria-label={`Edit ${fact.keyword}`} onClick={() => setEditing(true)}>
            {t('factsPanel.edit')}
          </button>
          <button type="button" className="danger small" aria-label={`Forget ${fact.keyword}`} onClick={() => void forget()}>
            {t('factsPanel.forget')}
          </button>
        </div>
      )}
    </li>
  );
}

/**
 * A person's edit: the new values supersede the current ones (which go to the history). A
 * MULTIPLE fact only gathers values when saved, so one that loses a value is saved anew.
 */
function FactEditor({ fact, onDone }: { fact: FactJson; onDone: (saved: boolean) => void }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const multiple = fact.factType === 'multiple';
  const [values, setValues] = useState(fact.values.join('\n'));
  const [description, setDescription] = useState(fact.description);
  const [problem, setProblem] = useState<string | null>(null);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const next = (multiple ? values.split('\n') : [values]).map((value) => value.trim()).filter(Boolean);
    if (next.length === 0) {
      setProblem(t('factsPanel.needsValue'));
      return;
    }
    const sameValues = next.length === fact.values.length && next.every((value) => fact.values.includes(value));
    // The store keeps a fact's versions by value: a new description alone is not a new version.
    if (sameValues && description.trim() !== fact.description) return setProblem(t('factsPanel.sameValues'));
    if (sameValues) return onDone(false);
    if (multiple && fact.values.some((value) => !next.includes(value))) {
      const forgotten = await client['facts:forget']({ id: fact.id });
      if (!forgotten.ok) return setProblem(forgotten.error.message);
    }
    const saved = await client['facts:save']({ subject: fact.subject, scope: fact.scope, keyword: fact.keyword, description, values: next, multiple });
    if (saved.ok) onDone(true);
    else setProblem(saved.error.message);
  };

  return (
    <form className="fact-editor" onSubmit={(event) => void save(event)}>
      <label className="field">
        {multiple ? t('factsPanel.valuesPerLine') : t('factsPanel.value')}
        {multiple ? (
          <textarea aria-label={NAMES.values} rows={Math.max(2, fact.values.length)} value={values} onChange={(event) => setValues(event.target.value)} />
        ) : (
          <input type="text" aria-label={NAMES.values} value={values} onChange={(event) => setValues(event.target.value)} />
        )}
      </label>
      <label className="field">
        {t('factsPanel.description')}
        <input type="text" aria-label={NAMES.description} value={description} onChange={(event) => setDescription(event.target.value)} />
      </label>
      <ErrorLine message={problem} />
      <div className="field-row">
        <button type="submit" className="primary small" aria-label={NAMES.saveFact}>
          {t('factsPanel.save')}
        </button>
        <button type="button" className="small" onClick={() => onDone(false)}>
          {t('factsPanel.cancel')}
        </button>
      </div>
    </form>
  );
}
