/**
 * The Settings view's state: the settings as saved (config.json, the same file the CLI reads),
 * the result of "Test connection" and of "Check grounding", and the checks of `mnemo doctor` (also shown at start when one
 * fails). The form keeps its own draft; this holds what is saved.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { DoctorCheck, GroundingCheckResult, ProviderCheckResult, SaveSettings, SavedSettings } from '../../../shared/app-api';
import type { MnemoClient } from '../api/client';

export type CheckState = { status: 'idle' } | { status: 'checking' } | { status: 'done'; result: ProviderCheckResult } | { status: 'failed'; message: string };
export type GroundingState = { status: 'idle' } | { status: 'checking'; targets: number } | { status: 'done'; result: GroundingCheckResult } | { status: 'failed'; message: string };

/** The doctor's checks: the last ones stay shown while they run again. */
export interface DoctorState {
  running: boolean;
  checks: DoctorCheck[] | null;
  error: string | null;
}

export interface SettingsStore {
  saved: SavedSettings | null;
  loadError: string | null;
  saving: boolean;
  /** `notice`: what the save did with the API key that the user should know (moved out of config.json, kept there). */
  saveMessage: { ok: boolean; text: string; notice?: string } | null;
  check: CheckState;
  grounding: GroundingState;
  doctor: DoctorState;
  load(): Promise<SavedSettings | null>;
  save(request: SaveSettings): Promise<boolean>;
  testConnection(request: { model?: SaveSettings['config']['model']; apiKey?: string }): Promise<void>;
  checkGrounding(request: { model?: SaveSettings['config']['model']; apiKey?: string; targets?: number }): Promise<void>;
  runDoctor(): Promise<void>;
}

/** A provider is configured when the run engine has a base URL and a model to call. */
export function providerConfigured(settings: SavedSettings | null): boolean {
  return Boolean(settings?.config.model?.baseUrl && settings.config.model.model);
}

export function createSettingsStore(client: MnemoClient): StoreApi<SettingsStore> {
  return createStore<SettingsStore>()((set, get) => ({
    saved: null,
    loadError: null,
    saving: false,
    saveMessage: null,
    check: { status: 'idle' },
    grounding: { status: 'idle' },
    doctor: { running: false, checks: null, error: null },
    async load() {
      const read = await client['settings:get']();
      set(read.ok ? { saved: read.value, loadError: null } : { loadError: read.error.message });
      return read.ok ? read.value : null;
    },
    async save(request) {
      set({ saving: true, saveMessage: null });
      const saved = await client['settings:save'](request);
      set(
        saved.ok
          ? { saved: saved.value, saving: false, saveMessage: { ok: true, text: saved.value.configPath, ...(saved.value.notice ? { notice: saved.value.notice } : {}) } }
          : { saving: false, saveMessage: { ok: false, text: saved.error.message } },
      );
      return saved.ok;
    },
    async testConnection(request) {
      set({ check: { status: 'checking' } });
      const checked = await client['provider:check'](request);
      set({ check: checked.ok ? { status: 'done', result: checked.value } : { status: 'failed', message: checked.error.message } });
    },
    async checkGrounding(request) {
      set({ grounding: { status: 'checking', targets: request.targets ?? 5 } });
      const checked = await client['provider:grounding'](request);
      set({ grounding: checked.ok ? { status: 'done', result: checked.value } : { status: 'failed', message: checked.error.message } });
    },
    async runDoctor() {
      if (get().doctor.running) return;
      set({ doctor: { ...get().doctor, running: true, error: null } });
      const checked = await client['doctor:run']();
      set({ doctor: checked.ok ? { running: false, checks: checked.value, error: null } : { ...get().doctor, running: false, error: checked.error.message } });
    },
  }));
}
