/** The Run view: task box, run header, current screen, timeline, inspector, inline questions. */
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices, useSession } from '../../app-context';
import { Divergence } from './Divergence';
import { LiveDesktop } from './LiveDesktop';
import { LiveRuns } from './LiveRuns';
import { QuestionDialog } from './QuestionDialog';
import { RunHeader } from './RunHeader';
import { ScreenView } from './ScreenView';
import { SessionBar } from './SessionBar';
import { StepInspector } from './StepInspector';
import { TaskForm } from './TaskForm';
import { isLive, useShownStatus } from './status';
import { Timeline } from './Timeline';
import { WorkflowReportPanel } from './WorkflowReport';

export function RunView() {
  const { t } = useTranslation();
  const { session: store, client } = useServices();
  const hasSession = useSession((s) => s.session !== null);
  const sessionId = useSession((s) => s.session?.id ?? null);
  const loading = useSession((s) => s.loading);
  const error = useSession((s) => s.error);
  const liveElsewhere = useSession((s) => s.liveRunId !== null && s.liveRunId !== s.session?.id && s.liveRuns.length < 2);
  const status = useShownStatus();
  const live = isLive(status);
  // The live view only for a run the core lists as going on: a run that has ended has no stream.
  const streaming = useSession((s) => s.session !== null && s.liveRuns.some((run) => run.id === s.session?.id));
  const recorded = !live;
  // One function per run, so the outlines' reading loop restarts only when the run changes.
  const readElements = useCallback(() => client['run:elements']({ id: sessionId ?? '' }), [client, sessionId]);
  return (
    <div className="run-view">
      <TaskForm />
      <LiveRuns />
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
          <WorkflowReportPanel />
          {recorded && <SessionBar />}
          <Divergence />
          <div className="run-body">
            <div className="screens">
              {live && streaming && sessionId && (
                <LiveDesktop
                  src={client.liveUrl(sessionId)}
                  takenOver={status === 'takenOver'}
                  send={(action) => store.getState().input(action)}
                  readElements={readElements}
                />
              )}
              <ScreenView />
            </div>
            <Timeline />
            <StepInspector />
          </div>
        </>
      )}
      <QuestionDialog />
    </div>
  );
}
