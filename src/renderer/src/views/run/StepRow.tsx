/** One step in the timeline: what it did, how it went, the thought as it streams, time, tokens, cost. */
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { describeAction } from '../../../../shared/describe-action';
import { formatDuration, formatUsd } from '../../../../shared/format';
import type { StepView } from '../../../../shared/steps';
import { formatTokens } from '../../format';

interface Props {
  step: StepView;
  selected: boolean;
  current: boolean;
  onSelect: (step: number) => void;
}

function outcome(step: StepView): 'ok' | 'failed' | 'running' | 'waiting' {
  if (step.errors.length > 0 || step.results.some((result) => !result.ok)) return 'failed';
  if (step.questions.some((question) => !question.answered)) return 'waiting';
  return step.durationMs === null ? 'running' : 'ok';
}

export const StepRow = memo(function StepRow({ step, selected, current, onSelect }: Props) {
  const { t } = useTranslation();
  const state = outcome(step);
  const thought = step.thought ?? step.streamedThought;
  const actions = step.actions.length > 0 ? step.actions.map((action) => describeAction(action)).join(' · ') : state === 'running' ? t('thinking') : t('noActions');
  const tokens = step.usage ? step.usage.inputTokens + step.usage.outputTokens : null;
  return (
    <button
      type="button"
      className={`step-row step-${state}${step.actor === 'user' ? ' step-by-user' : ''}${selected ? ' selected' : ''}${current ? ' current' : ''}`}
      aria-current={current ? 'step' : undefined}
      onClick={() => onSelect(step.step)}
    >
      <span className="step-line">
        <span className="step-number">{step.step}</span>
        {step.actor === 'user' && <span className="step-actor">{t('live.byYou')}</span>}
        <span className={`step-state state-${state}`} aria-hidden="true" />
        {step.workflow && (
          <span className={`step-decision decision-${step.workflow.decision}`} title={step.workflow.how} data-decision={step.workflow.decision}>
            {t(`workflowRun.decisions.${step.workflow.decision}`)}
          </span>
        )}
        <span className="step-actions">{actions}</span>
      </span>
      <span className="step-thought">{thought}</span>
      <span className="step-meta">
        <span>{formatDuration(step.durationMs)}</span>
        <span>{tokens === null ? '—' : `${formatTokens(tokens)} tok`}</span>
        <span>{step.usage ? formatUsd(step.usage.costUsd) : '—'}</span>
      </span>
    </button>
  );
});
