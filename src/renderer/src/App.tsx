import type { StoreApi } from 'zustand';
import { DisplaysPanel } from './DisplaysPanel';
import type { DisplaysStore } from './displays-store';
import { TaskPanel } from './TaskPanel';

export function App({ displays }: { displays: StoreApi<DisplaysStore> }) {
  return (
    <div className="app">
      <header className="app-header">
        <h1>Mnemo</h1>
      </header>
      <main className="app-main">
        <TaskPanel />
        <DisplaysPanel store={displays} />
      </main>
    </div>
  );
}
