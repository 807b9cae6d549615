/** The Run view: task box, run header, current screen, timeline, inspector, inline questions. */
import { useTranslation } from 'react-i18next';
import { useServices, useSession } from '../../app-context';
import { Divergence } from './Divergence';
import { QuestionDialog } from './QuestionDialog';
import { RunHeader } from './RunHeader';
import { ScreenView } from './ScreenView';
import { SessionBar } from './SessionBar';
import { StepInspector } from './StepInspector';
import { TaskForm } from './TaskForm';
import { useShownStatus } from './status';
import { Timeline } from './Timeline';

export function RunView() {
  const { t } = useTranslation();
  const { session: store } = useServices();
  const hasSession = useSession((s) => s.session !== null);
  const loading = useSession((s) => s.loading);
  const error = useSession((s) => s.error);
  const liveElsewhere = useSession((s) => s.liveRunId !== null && s.liveRunId !== s.session?.id);
  const status = useShownStatus();
  const recorded = status !== 'running' && status !== 'paused';
  return (
    <div className="run-view">
      <TaskForm />
      {error && (
        <p className="error" role="alert">
          {error}
          <button type="button" className="link" onClick={() => store.getState().clearError()}>
            ×
          </button>
        </p>
      )}
      {liveElsewhere && (
        <p className="note banner">
          {t('liveElsewhere')}{' '}
          <button type="button" className="link" onClick={() => void store.getState().showLive()}>
            {t('showLive')}
          </button>
        </p>
      )}
      {!hasSession ? (
        <p className="note empty">{t('noSession')}</p>
      ) : (
        <>
          <RunHeader />
          {loading && <p className="note">{t('loading')}</p>}
          {recorded && <SessionBar />}
          <Divergence />
          <div className="run-body">
            <ScreenView />
            <Timeline />
            <StepInspector />
          </div>
        </>
      )}
      <QuestionDialog />
    </div>
  );
}
