/** What every view reaches: the client and the stores, composed once in main.tsx. */
import { createContext, useContext } from 'react';
import { useStore, type StoreApi } from 'zustand';
import type { MnemoClient } from './api/client';
import type { HistoryStore } from './store/history-store';
import type { RunViewStore } from './store/run-view-store';
import type { SettingsStore } from './store/settings-store';

export interface AppServices {
  client: MnemoClient;
  session: StoreApi<RunViewStore>;
  history: StoreApi<HistoryStore>;
  settings: StoreApi<SettingsStore>;
}

export const AppContext = createContext<AppServices | null>(null);

export function useServices(): AppServices {
  const services = useContext(AppContext);
  if (!services) throw new Error('useServices outside <AppContext.Provider>');
  return services;
}

export function useSession<T>(select: (state: RunViewStore) => T): T {
  return useStore(useServices().session, select);
}

export function useHistory<T>(select: (state: HistoryStore) => T): T {
  return useStore(useServices().history, select);
}

export function useSettings<T>(select: (state: SettingsStore) => T): T {
  return useStore(useServices().settings, select);
}
