/** The History view's list: sessions with a search, a status filter and delete. */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { SessionListItem } from '../../../shared/app-api';
import type { MnemoClient } from '../api/client';

export interface HistoryStore {
  sessions: SessionListItem[];
  search: string;
  status: string;
  loading: boolean;
  error: string | null;
  setSearch(search: string): void;
  setStatus(status: string): void;
  refresh(): Promise<void>;
  remove(id: string): Promise<void>;
}

export function createHistoryStore(client: MnemoClient): StoreApi<HistoryStore> {
  let asked = 0;
  return createStore<HistoryStore>()((set, get) => ({
    sessions: [],
    search: '',
    status: '',
    loading: false,
    error: null,
    setSearch(search) {
      set({ search });
      void get().refresh();
    },
    setStatus(status) {
      set({ status });
      void get().refresh();
    },
    async refresh() {
      // Only the answer to the latest question counts (typing sends one per key).
      const mine = ++asked;
      set({ loading: true });
      const { search, status } = get();
      const listed = await client['sessions:list']({ ...(search ? { search } : {}), ...(status ? { status } : {}) });
      if (mine !== asked) return;
      set(listed.ok ? { sessions: listed.value, loading: false, error: null } : { loading: false, error: listed.error.message });
    },
    async remove(id) {
      const removed = await client['sessions:delete']({ id });
      if (!removed.ok) {
        set({ error: removed.error.message });
        return;
      }
      set({ sessions: get().sessions.filter((session) => session.id !== id) });
      // A listing asked before the delete may still answer with the session in it: ask again, so
      // only an answer given after the delete counts.
      await get().refresh();
    },
  }));
}
