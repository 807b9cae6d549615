import { useEffect } from 'react';
import { useStore, type StoreApi } from 'zustand';
import type { Display } from '../../shared/contract';
import type { DisplaysStore } from './displays-store';

function describeDisplay(display: Display): string {
  const { x, y, width, height } = display.bounds;
  return `${width}×${height} at (${x}, ${y}), scale ${display.scaleFactor}`;
}

export function DisplaysPanel({ store }: { store: StoreApi<DisplaysStore> }) {
  const state = useStore(store, (s) => s.state);
  const refresh = useStore(store, (s) => s.refresh);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  return (
    <section className="panel" aria-labelledby="displays-heading" data-state={state.status}>
      <header className="panel-header">
        <h2 id="displays-heading">Displays</h2>
        <button type="button" onClick={() => void refresh()} disabled={state.status === 'loading'}>
          Refresh
        </button>
      </header>
      {state.status === 'loading' && <p className="note">Looking for displays…</p>}
      {state.status === 'failed' && (
        <p className="error" role="alert">
          {state.message}
        </p>
      )}
      {state.status === 'loaded' && (
        <ul className="displays" aria-label="Displays">
          {state.displays.map((display) => (
            <li key={String(display.id)} className="display">
              <span className="display-id">Display {String(display.id)}</span>
              {display.primary && <span className="badge">primary</span>}
              <span className="display-geometry">{describeDisplay(display)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
