/**
 * The Settings view's state: the settings as saved (config.json, the same file the CLI reads)
 * and the result of "Test connection". The form keeps its own draft; this holds what is saved.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ProviderCheckResult, SaveSettings, SettingsView } from '../../../shared/app-api';
import type { MnemoClient } from '../api/client';

export type CheckState = { status: 'idle' } | { status: 'checking' } | { status: 'done'; result: ProviderCheckResult } | { status: 'failed'; message: string };

export interface SettingsStore {
  saved: SettingsView | null;
  loadError: string | null;
  saving: boolean;
  saveMessage: { ok: boolean; text: string } | null;
  check: CheckState;
  load(): Promise<SettingsView | null>;
  save(request: SaveSettings): Promise<boolean>;
  testConnection(request: { model?: SaveSettings['config']['model']; apiKey?: string }): Promise<void>;
}

/** A provider is configured when the run engine has a base URL and a model to call. */
export function providerConfigured(settings: SettingsView | null): boolean {
  return Boolean(settings?.config.model?.baseUrl && settings.config.model.model);
}

export function createSettingsStore(client: MnemoClient): StoreApi<SettingsStore> {
  return createStore<SettingsStore>()((set) => ({
    saved: null,
    loadError: null,
    saving: false,
    saveMessage: null,
    check: { status: 'idle' },
    async load() {
      const read = await client.settings();
      set(read.ok ? { saved: read.value, loadError: null } : { loadError: read.error.message });
      return read.ok ? read.value : null;
    },
    async save(request) {
      set({ saving: true, saveMessage: null });
      const saved = await client.saveSettings(request);
      set(saved.ok ? { saved: saved.value, saving: false, saveMessage: { ok: true, text: saved.value.configPath } } : { saving: false, saveMessage: { ok: false, text: saved.error.message } });
      return saved.ok;
    },
    async testConnection(request) {
      set({ check: { status: 'checking' } });
      const checked = await client.checkProvider(request);
      set({ check: checked.ok ? { status: 'done', result: checked.value } : { status: 'failed', message: checked.error.message } });
    },
  }));
}
