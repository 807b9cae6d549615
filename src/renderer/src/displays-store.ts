/**
 * The Displays panel's state. The API is passed in, so the store works the same against the
 * preload, a test double, or (later) the browser bridge.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Display, MnemoApi } from '../../shared/contract';

export type DisplaysState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'loaded'; displays: Display[] }
  | { status: 'failed'; message: string };

export interface DisplaysStore {
  state: DisplaysState;
  refresh(): Promise<void>;
}

export function createDisplaysStore(api: Pick<MnemoApi, 'operator:displays'> | undefined): StoreApi<DisplaysStore> {
  return createStore<DisplaysStore>()((set) => ({
    state: { status: 'idle' },
    async refresh() {
      if (!api) {
        set({ state: { status: 'failed', message: 'window.mnemo is missing: open Mnemo through the app.' } });
        return;
      }
      set({ state: { status: 'loading' } });
      const result = await api['operator:displays']();
      set({
        state: result.ok
          ? { status: 'loaded', displays: result.value }
          : { status: 'failed', message: `${result.error.kind}: ${result.error.message}` },
      });
    },
  }));
}
