/**
 * Renderer entry: picks the transport (the preload's IPC in Electron, HTTP in a browser), composes
 * the stores over it, follows the runs, and renders the window or, at `#widget`, the status widget.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nextProvider } from 'react-i18next';
import { prepareEventChecks } from '../../shared/events';
import { chooseClient } from './api/choose-client';
import { App } from './App';
import { AppContext, type AppServices } from './app-context';
import { createI18n } from './i18n';
import { createHistoryStore } from './store/history-store';
import { createRunViewStore } from './store/run-view-store';
import { createSettingsStore } from './store/settings-store';
import { warmUpSessionOpen } from './store/warm-up';
import { StatusWidget } from './widget/StatusWidget';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

const client = chooseClient();
const services: AppServices = {
  client,
  session: createRunViewStore(client),
  history: createHistoryStore(client),
  settings: createSettingsStore(client),
};
// Every run from its first event, the one going on included: a window opened mid-run shows it all.
client.subscribe(0, (event) => services.session.getState().receive(event));
void services.session.getState().syncCurrentRun();

// The event schema's lookup tables, and the open's check and fold run once, while the window
// waits for the user rather than when a long session is opened and its events are checked.
const whenIdle = (work: () => void) => ('requestIdleCallback' in window ? window.requestIdleCallback(work) : setTimeout(work, 0));
whenIdle(() => {
  prepareEventChecks();
  warmUpSessionOpen();
});

const widget = location.hash === '#widget';
document.body.classList.toggle('widget-body', widget);

createRoot(root).render(
  <StrictMode>
    <I18nextProvider i18n={createI18n()}>
      <AppContext.Provider value={services}>{widget ? <StatusWidget /> : <App />}</AppContext.Provider>
    </I18nextProvider>
  </StrictMode>,
);
