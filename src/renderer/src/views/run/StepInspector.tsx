/**
 * One step, live or past, in full: the screenshot as the model saw it (with or without the
 * marker), the thought, the parsed actions and their results, the raw model reply, the timings,
 * tokens and cost, and the memory changes of the step.
 */
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { actionSentence } from '../../../../shared/describe-action';
import { formatDuration, formatUsd } from '../../../../shared/format';
import type { MemoryChange } from '../../../../shared/memory';
import { actionOutcomes, resultsAtActions, type StepView } from '../../../../shared/steps';
import { useServices, useSession } from '../../app-context';
import { ActionOverlay } from '../../components/ActionOverlay';
import { SessionImage } from '../../components/SessionImage';
import { formatTokens } from '../../format';
import { NAMES } from '../../i18n/names';
import type { ActedElement, OutcomeCheck } from '../../../../shared/action-result';
import type { Frame } from '../../../../shared/frame';
import { stepAt } from '../../store/session-fold';

export function StepInspector() {
  const { t } = useTranslation();
  const { session: store } = useServices();
  const sessionId = useSession((s) => s.session?.id ?? null);
  const step = useSession((s) => (s.session && s.inspected !== null ? (stepAt(s.session, s.inspected) ?? null) : null));
  const titleId = useId();
  if (!sessionId || !step) return null;
  return (
    <aside className="inspector" aria-labelledby={titleId}>
      <header className="inspector-header">
        <h2 id={titleId}>{t('inspector.title', { n: step.step })}</h2>
        <button type="button" onClick={() => store.getState().inspect(null)}>
          {t('inspector.close')}
        </button>
      </header>
      <InspectorScreenshot sessionId={sessionId} step={step} />
      <section>
        <h3>{t('inspector.thought')}</h3>
        <p className="thought">{step.thought ?? step.streamedThought ?? '—'}</p>
      </section>
      <ActionOutcomes step={step} />
      {(step.errors.length > 0 || step.notes.length > 0) && (
        <section>
          <h3>{t('inspector.errors')}</h3>
          <ul className="plain-list">
            {step.errors.map((error, index) => (
              <li key={`e${index}`} className="error">
                {error.kind}: {error.message}
              </li>
            ))}
            {step.notes.map((note, index) => (
              <li key={`n${index}`}>{note}</li>
            ))}
          </ul>
        </section>
      )}
      {step.questions.length > 0 && (
        <section>
          <h3>{t('inspector.questions')}</h3>
          <ul className="plain-list">
            {step.questions.map((question) => (
              <li key={question.id}>
                {question.question} → <strong>{question.answered ? (question.answer ?? '—') : '…'}</strong>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section>
        <h3>{t('inspector.timings')}</h3>
        <Figures
          rows={[
            ...(['observe', 'model', 'act', 'settle'] as const).map((part): [string, string] => [t(`inspector.${part === 'model' ? 'modelCall' : part}`), formatDuration(step.timings?.[part])]),
            [t('inspector.total'), formatDuration(step.durationMs)],
          ]}
        />
      </section>
      <section>
        <h3>{t('inspector.usage')}</h3>
        <Figures
          rows={[
            [t('inspector.input'), step.usage ? formatTokens(step.usage.inputTokens) : '—'],
            [t('inspector.output'), step.usage ? formatTokens(step.usage.outputTokens) : '—'],
            [t('header.cost'), formatUsd(step.usage?.costUsd)],
            [t('inspector.runCost'), formatUsd(step.costUsd)],
          ]}
        />
      </section>
      <section>
        <h3>{t('inspector.memoryChanges')}</h3>
        {step.memory.length === 0 ? (
          <p className="note">{t('inspector.noMemoryChanges')}</p>
        ) : (
          <ul className="plain-list memory-changes">
            {step.memory.map((event) => (
              <li key={event.seq}>{describeChange(event.change)}</li>
            ))}
          </ul>
        )}
      </section>
      <RawReply sessionId={sessionId} step={step.step} />
    </aside>
  );
}

/**
 * The step's actions, each with how it went: its result, or why it was not run (a batch that
 * stopped because the screen changed, an action that failed); a batch says how much of it ran.
 */
function ActionOutcomes({ step }: { step: StepView }) {
  const { t } = useTranslation();
  const outcomes = actionOutcomes(step);
  const ran = outcomes.filter((outcome) => outcome.ran).length;
  return (
    <section>
      <h3>{t('inspector.actions')}</h3>
      {outcomes.length > 1 && <p className="note batch-summary">{t('inspector.batch', { total: outcomes.length, ran, notRun: outcomes.length - ran })}</p>}
      <ol className="action-list">
        {outcomes.map((outcome, index) => {
          const { result } = outcome.ran ? outcome : { result: null };
          return (
            <li key={index} className={!outcome.ran ? 'result-not-run' : result ? (result.ok ? 'result-ok' : 'result-failed') : 'result-none'}>
              <span>{actionSentence(outcome.action)}</span>
              <span className="action-result">
                {!outcome.ran ? t('inspector.notRunWhy', { why: outcome.why }) : result ? (result.ok ? `✓ ${result.detail ?? ''}` : `✗ ${result.error.kind}: ${result.error.message}`) : '✓'}
              </span>
              {result?.ok && result.element && <ActedElementLine element={result.element} />}
              {result?.ok && result.check && <ReadBackLine check={result.check} />}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** The element the action hit, as the accessibility tree named it. */
function ActedElementLine({ element }: { element: ActedElement }) {
  const { t } = useTranslation();
  return (
    <span className="acted-element" role="note" aria-label={NAMES.actedElement}>
      {t('inspector.actedElement', { role: element.role, name: element.name, number: element.n !== undefined ? ` #${element.n}` : '' })}
    </span>
  );
}

/** What reading the element back found: the value, a password's length, a toggle's state; a mismatch stands out. */
function ReadBackLine({ check }: { check: OutcomeCheck }) {
  const { t } = useTranslation();
  return (
    <span className={`read-back ${check.ok ? 'read-back-ok' : 'read-back-mismatch'}`} role="note" aria-label={NAMES.readBack}>
      {check.ok ? '✓ ' : '✗ '}
      {t(check.ok ? 'inspector.readBackOk' : 'inspector.readBackMismatch', { message: check.message })}
    </span>
  );
}

/**
 * The boxes of the elements the step's actions hit, on its screenshot: their screen bounds mapped
 * through the step's frame onto the image (the screenshot's own pixels).
 */
function ActedElementBoxes({ step, frame, width, height }: { step: StepView; frame: Frame; width: number; height: number }) {
  const sx = frame.image.width / frame.bounds.width;
  const sy = frame.image.height / frame.bounds.height;
  const hit = resultsAtActions(step).flatMap((result) => (result?.ok && result.element ? [result.element] : []));
  if (hit.length === 0) return null;
  return (
    <svg className="action-overlay acted-element-boxes" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={NAMES.actedElementBoxes}>
      {hit.map((element, index) => (
        <rect
          key={index}
          x={(element.bounds.x - frame.bounds.x) * sx}
          y={(element.bounds.y - frame.bounds.y) * sy}
          width={element.bounds.width * sx}
          height={element.bounds.height * sy}
        >
          <title>{`${element.role} "${element.name}"`}</title>
        </rect>
      ))}
    </svg>
  );
}

function InspectorScreenshot({ sessionId, step }: { sessionId: string; step: StepView }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const [marker, setMarker] = useState(true);
  if (!step.screenshot) return null;
  const { screenshot } = step;
  return (
    <section>
      <label className="inline-check">
        <input type="checkbox" checked={marker} onChange={(event) => setMarker(event.target.checked)} />
        {t('inspector.marker')}
      </label>
      <div className="screen-frame">
        <SessionImage src={client.fileUrl(sessionId, screenshot.path)} alt={t('inspector.screenshotAlt', { n: step.step })} width={screenshot.width} height={screenshot.height} />
        {marker && <ActionOverlay actions={step.actions} results={resultsAtActions(step)} width={screenshot.width} height={screenshot.height} />}
        {marker && step.frame && <ActedElementBoxes step={step} frame={step.frame} width={screenshot.width} height={screenshot.height} />}
      </div>
    </section>
  );
}

/** The model's raw reply, read from the session folder when the inspector opens. */
function RawReply({ sessionId, step }: { sessionId: string; step: number }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const [reply, setReply] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    let current = true;
    setLoaded(false);
    const url = client.fileUrl(sessionId, `replies/step-${String(step).padStart(4, '0')}.txt`);
    fetch(url, { credentials: 'same-origin' })
      .then(async (response) => (response.ok ? response.text() : null))
      .catch(() => null)
      .then((text) => {
        if (!current) return;
        setReply(text);
        setLoaded(true);
      });
    return () => {
      current = false;
    };
  }, [client, sessionId, step]);
  return (
    <section>
      <h3>{t('inspector.rawReply')}</h3>
      {loaded && reply === null ? <p className="note">{t('inspector.noReply')}</p> : <pre className="raw-reply">{reply ?? '…'}</pre>}
    </section>
  );
}

/** A memory change in a few words. */
export function describeChange(change: MemoryChange): string {
  switch (change.kind) {
    case 'trace':
      return `trace ${change.op}${change.step !== null ? ` step ${change.step}` : ''} (${change.length} items${change.dropped ? `, ${change.dropped} dropped` : ''})`;
    case 'layers':
    case 'layers-delta': {
      const changed = (['pending', 'recent', 'summary'] as const).filter((name) => change[name] !== undefined || (name === 'recent' && 'recentLines' in change && change.recentLines !== undefined));
      return `layers: ${changed.join(', ') || 'state'}${change.compressing ? ' (summarising)' : ''}${change.lastError ? ` — ${change.lastError}` : ''}`;
    }
    case 'pruning':
      return `pruning: ${change.imagesKept} images kept, screenshots of steps ${change.prunedSteps.join(', ') || 'none'} removed, ~${change.estimatedTokens} tokens`;
    case 'pruning-delta':
      return `pruning: ${change.imagesKept} images kept${change.pruned.add.length ? `, screenshot of step ${change.pruned.add.join(', ')} removed` : ''}, ~${change.estimatedTokens} tokens`;
    case 'blackboard':
      return 'blackboard replaced';
    case 'blackboard-delta':
      return `blackboard: ${Object.entries(change.sections)
        .map(([section, delta]) => `${section} +${delta.add.length}${delta.drop ? ` −${delta.drop}` : ''}`)
        .join(', ')}`;
    case 'conversation':
      return `conversation: ${change.context.length} messages, ${change.shortTerm.length} short-term, ${change.longTerm.length} long-term`;
    case 'conversation-delta': {
      const parts = (['context', 'shortTerm', 'longTerm'] as const).filter((tier) => change[tier]).map((tier) => `${tier} +${change[tier]?.add.length ?? 0}`);
      return `conversation: ${parts.join(', ') || 'state'}`;
    }
    case 'facts':
      return `facts ${change.op} (${change.source}): ${change.facts.map((fact) => fact.keyword).join(', ') || 'none'}${change.error ? ` — ${change.error}` : ''}`;
    case 'working-memory':
      return `working memory ${change.op} (${change.conversationId})${change.status ? `: ${change.status}` : ''}${change.error ? ` — ${change.error}` : ''}`;
    case 'prompt':
    case 'prompt-delta':
      return `prompt memory: ~${change.totalTokens} tokens (${change.sections
        .filter((section) => section.usedTokens > 0 || section.omitted > 0)
        .map((section) => `${section.name} ${section.usedTokens}${section.budgetTokens !== null ? `/${section.budgetTokens}` : ''}${section.omitted ? `, ${section.omitted} left out` : ''}`)
        .join('; ')})`;
  }
}

/** Labelled figures (timings, tokens, cost), one term and value each. */
function Figures({ rows }: { rows: ReadonlyArray<readonly [string, string]> }) {
  return (
    <dl className="figures">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
