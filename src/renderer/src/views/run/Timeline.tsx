/** The step timeline: virtualised, following the live end unless the user scrolls away. */
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { StepView } from '../../../../shared/steps';
import { useServices, useSession } from '../../app-context';
import { VirtualList } from '../../components/VirtualList';
import { NAMES } from '../../i18n/names';
import { StepRow } from './StepRow';

const ROW_HEIGHT = 76;

export function Timeline() {
  const { t } = useTranslation();
  const { session } = useServices();
  const steps = useSession((s) => s.session?.steps ?? EMPTY);
  const cursor = useSession((s) => s.cursor);
  const inspected = useSession((s) => s.inspected);
  const following = useSession((s) => s.cursor === null);
  const select = useCallback((step: number) => session.getState().inspect(step), [session]);
  const cursorIndex = cursor === null ? null : steps.findIndex((step) => step.step === cursor);
  const renderRow = (index: number) => {
    const step = steps[index] as StepView;
    return <StepRow step={step} selected={inspected === step.step} current={cursor === step.step} onSelect={select} />;
  };
  return (
    <VirtualList
      className="timeline"
      label={NAMES.steps}
      count={steps.length}
      rowHeight={ROW_HEIGHT}
      renderRow={renderRow}
      follow={following}
      revealIndex={cursorIndex !== null && cursorIndex >= 0 ? cursorIndex : null}
      followLabel={t('jumpToLatest')}
    />
  );
}

const EMPTY: StepView[] = [];
