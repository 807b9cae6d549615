/**
 * The window: navigation between the views (hash routes, so a reload keeps the view) and the
 * first-run rules: with no provider configured the app opens on Settings and says why (unless the
 * user chose a view before the settings were read); when a check of `mnemo doctor` fails at
 * start, a notice says what and how to fix it.
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices, useSettings } from './app-context';
import { NAMES } from './i18n/names';
import { providerConfigured } from './store/settings-store';
import { BatchesView } from './views/batches/BatchesView';
import { batchesHash, batchOfHash } from './views/batches/batch-fold';
import { BlackboardView } from './views/BlackboardView';
import { StartupNotice } from './views/DoctorChecks';
import { HistoryView } from './views/HistoryView';
import { MemoryView } from './views/MemoryView';
import { RunView } from './views/run/RunView';
import { SettingsView } from './views/SettingsView';
import { WorkflowsView } from './views/workflows/WorkflowsView';
import { workflowOfHash, workflowsHash } from './views/workflows/workflows-hash';

const VIEWS = ['run', 'memory', 'blackboard', 'history', 'workflows', 'batches', 'settings'] as const;
type ViewName = (typeof VIEWS)[number];

/** The view a hash names: its first segment (`#/workflows/<name>` is the Workflows view with one open). */
function viewOfHash(hash: string): ViewName | null {
  const name = hash.replace(/^#\/?/, '').split('/')[0] ?? '';
  return (VIEWS as readonly string[]).includes(name) ? (name as ViewName) : null;
}

export function App() {
  const { t } = useTranslation();
  const { client, session, settings } = useServices();
  const [view, setView] = useState<ViewName>(() => viewOfHash(location.hash) ?? 'run');
  const [openWorkflow, setOpenWorkflow] = useState<string | null>(() => workflowOfHash(location.hash));
  const [openBatch, setOpenBatch] = useState<string | null>(() => batchOfHash(location.hash));
  const [providerMissing, setProviderMissing] = useState(false);
  const [noticeDismissed, setNoticeDismissed] = useState(false);
  const saved = useSettings((s) => s.saved);

  /**
   * The user has chosen a view since the page loaded (a tab clicked, even the one shown; the
   * address changed): the first-run move to Settings (no provider yet) no longer happens, as it
   * would take them away from where they went when the settings answer late.
   */
  const viewChosen = useRef(false);

  useEffect(() => {
    const onHash = () => {
      viewChosen.current = true;
      setView(viewOfHash(location.hash) ?? 'run');
      setOpenWorkflow(workflowOfHash(location.hash));
      setOpenBatch(batchOfHash(location.hash));
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    void settings
      .getState()
      .load()
      .then((loaded) => {
        if (loaded && !providerConfigured(loaded)) {
          setProviderMissing(true);
          if (!viewChosen.current) go('settings');
        }
      });
  }, [settings]);

  useEffect(() => {
    // The checks move the pointer by a pixel and back: never while a run drives the desktop.
    void client['run:current']().then((current) => {
      if (current.ok && current.value === null) void settings.getState().runDoctor();
    });
  }, [client, settings]);

  useEffect(() => {
    if (providerMissing && providerConfigured(saved)) setProviderMissing(false);
  }, [providerMissing, saved]);

  const go = (next: ViewName) => {
    if (location.hash !== `#/${next}`) location.hash = `/${next}`;
    setView(next);
  };
  const openSession = (id: string) => {
    void session.getState().open(id);
    go('run');
  };
  /** A run started elsewhere in the window (a workflow run): the Run view follows it. */
  const followRun = (id: string) => {
    void session.getState().switchTo(id);
    go('run');
  };
  const showWorkflow = (name: string | null) => {
    location.hash = workflowsHash(name);
  };
  const showBatch = (id: string | null) => {
    location.hash = batchesHash(id);
  };
  const openStep = (step: number) => {
    session.getState().inspect(step);
    go('run');
  };

  return (
    <div className="app">
      <header className="app-header">
        <h1>{t('appTitle')}</h1>
        <nav aria-label={t('views')} className="tabs">
          {VIEWS.map((name) => (
            <a key={name} href={`#/${name}`} onClick={() => (viewChosen.current = true)} aria-label={NAMES[name]} aria-current={view === name ? 'page' : undefined} className={view === name ? 'active' : ''}>
              {t(name)}
            </a>
          ))}
        </nav>
      </header>
      <main className="app-main">
        {!noticeDismissed && <StartupNotice onDismiss={() => setNoticeDismissed(true)} onOpenSettings={() => go('settings')} />}
        {view === 'run' && <RunView />}
        {view === 'memory' && <MemoryView onOpenSession={openSession} />}
        {view === 'blackboard' && <BlackboardView onOpenStep={openStep} />}
        {view === 'history' && <HistoryView onOpen={openSession} />}
        {view === 'workflows' && <WorkflowsView open={openWorkflow} onOpen={showWorkflow} onRun={followRun} onOpenSession={openSession} />}
        {view === 'batches' && <BatchesView open={openBatch} onOpen={showBatch} onOpenSession={openSession} />}
        {view === 'settings' && <SettingsView explainMissingProvider={providerMissing} />}
      </main>
    </div>
  );
}
