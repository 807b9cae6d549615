/** The current screen (as the model saw it) with the step's action drawn on it. */
import { useTranslation } from 'react-i18next';
import { useServices, useSession } from '../../app-context';
import { ActionOverlay } from '../../components/ActionOverlay';
import { SessionImage } from '../../components/SessionImage';
import { NAMES } from '../../i18n/names';
import { resultsAtActions } from '../../../../shared/steps';
import { useShownStep } from './shown-step';

export function ScreenView() {
  const { t } = useTranslation();
  const { client } = useServices();
  const sessionId = useSession((s) => s.session?.id ?? null);
  const step = useShownStep();
  if (!sessionId || !step?.screenshot) {
    return (
      <figure className="screen screen-empty">
        <figcaption>{t('noScreenshot')}</figcaption>
      </figure>
    );
  }
  const { screenshot } = step;
  return (
    <figure className="screen">
      <div className="screen-frame">
        <SessionImage src={client.fileUrl(sessionId, screenshot.path)} alt={NAMES.currentScreen} width={screenshot.width} height={screenshot.height} />
        <ActionOverlay actions={step.actions} results={resultsAtActions(step)} width={screenshot.width} height={screenshot.height} />
      </div>
      <figcaption>{t('stepLabel', { n: step.step })}</figcaption>
    </figure>
  );
}
