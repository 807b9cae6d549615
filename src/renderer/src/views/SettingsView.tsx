/**
 * Settings, saved to the same config.json the CLI reads: the provider (presets fill the base
 * URL), model (a model Mnemo knows fills its family and coordinates), family and version, the
 * vendor's computer tool beside the family (auto says which one the model gets), the coordinate
 * space, "Test connection" and "Check grounding", the checks of `mnemo doctor`, limits,
 * memory budgets, confirmation rules, data directory and retention, and the window's language.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { SavedSettings as Saved } from '../../../shared/app-api';
import { ConfigFileSchema, describeConfigIssues, type ConfigFile, type ConfirmationRule } from '../../../shared/config';
import { ELEMENTS_AID_MODES, endpointOf, MODEL_FAMILIES, type ElementsAidMode } from '../../../shared/settings';
import { knownModel, settingsOfKnownModel } from '../../../shared/known-models';
import { COMPUTER_TOOLS_OF, COORDINATE_SPACES, coordinateSpaceOf, takesCoordinates, type ComputerToolChoice, type CoordinateSpaceName } from '../../../shared/model-families';
import { computerToolOf } from '../../../shared/computer-tool';
import { GroundingOutcome } from './GroundingOutcome';
import { useServices, useSettings } from '../app-context';
import { LANGUAGES } from '../i18n';
import { NAMES } from '../i18n/names';
import { PROVIDER_PRESETS, presetOf } from './provider-presets';
import { ConfirmationRules, type RuleDraft } from './ConfirmationRules';
import { DoctorChecks } from './DoctorChecks';
import { ErrorLine } from '../components/ErrorLine';
import { appsOf, DesktopFields, type DesktopDraft } from '../components/DesktopFields';
import { desktopDraftOf } from './run/TaskForm';

interface Draft {
  baseUrl: string;
  model: string;
  family: string;
  modelVersion: string;
  /** '' for the family's own space. */
  coordinates: string;
  /** '' for auto: the model's own tool. */
  computerTool: string;
  /** The elements aid (model.elements): off, list or marks. */
  elements: ElementsAidMode;
  smartResize: NonNullable<ConfigFile['model']>['smartResize'] | null;
  apiKey: string;
  maxSteps: string;
  maxCostUsd: string;
  recentBudget: string;
  summaryBudget: string;
  retentionDays: string;
  retentionGb: string;
  rules: RuleDraft[];
  /** The Run form's defaults for private desktops. */
  desktop: DesktopDraft;
}

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
const list = (value: string) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);

function draftOf(saved: Saved | null): Draft {
  const config = saved?.config ?? {};
  return {
    baseUrl: text(config.model?.baseUrl),
    model: text(config.model?.model),
    family: text(config.model?.family ?? 'tools'),
    modelVersion: text(config.model?.modelVersion),
    coordinates: text(config.model?.coordinates),
    computerTool: config.model?.computerTool === 'auto' ? '' : text(config.model?.computerTool),
    elements: config.model?.elements ?? 'off',
    smartResize: config.model?.smartResize ?? null,
    apiKey: '',
    maxSteps: text(config.agent?.maxSteps),
    maxCostUsd: text(config.agent?.maxCostUsd),
    recentBudget: text(config.memory?.recentBudget),
    summaryBudget: text(config.memory?.summaryBudget),
    retentionDays: text(config.store?.retentionDays),
    retentionGb: text(config.store?.retentionGb),
    desktop: desktopDraftOf(saved),
    rules: (config.agent?.confirmationRules ?? []).map((rule) => ({
      reason: rule.reason ?? '',
      keys: (rule.keys ?? []).join(', '),
      types: (rule.types ?? []).join(', '),
      windowTitleContains: rule.windowTitleContains ?? '',
      textMatches: rule.textMatches ?? '',
    })),
  };
}

/** A number field: absent when empty, NaN (refused by the schema) when not a number. */
function numberOrUndefined(value: string): number | undefined {
  return value.trim() === '' ? undefined : Number(value);
}

function ruleOf(draft: RuleDraft): ConfirmationRule {
  const rule: ConfirmationRule = {};
  if (draft.reason.trim()) rule.reason = draft.reason.trim();
  if (list(draft.keys).length) rule.keys = list(draft.keys);
  if (list(draft.types).length) rule.types = list(draft.types);
  if (draft.windowTitleContains.trim()) rule.windowTitleContains = draft.windowTitleContains.trim();
  if (draft.textMatches.trim()) rule.textMatches = draft.textMatches.trim();
  return rule;
}

/** The model part of the form, as the provider check and the config take it. */
function modelOf(draft: Draft, saved: Saved | null): NonNullable<ConfigFile['model']> {
  const { baseUrl: _b, model: _m, family: _f, modelVersion: _v, coordinates: _c, smartResize: _s, computerTool: _t, elements: _e, ...kept } = saved?.config.model ?? {};
  const spaced = takesCoordinates(draft.family);
  const tooled = COMPUTER_TOOLS_OF[draft.family]?.includes(draft.computerTool as never) ?? false;
  return {
    ...kept,
    ...(draft.baseUrl.trim() ? { baseUrl: draft.baseUrl.trim() } : {}),
    ...(draft.model.trim() ? { model: draft.model.trim() } : {}),
    ...(draft.family ? { family: draft.family as (typeof MODEL_FAMILIES)[number] } : {}),
    ...(draft.family === 'ui-tars' && draft.modelVersion ? { modelVersion: draft.modelVersion as '1.0' | '1.5' } : {}),
    ...(spaced && draft.coordinates ? { coordinates: draft.coordinates as CoordinateSpaceName } : {}),
    ...(spaced && draft.smartResize ? { smartResize: draft.smartResize } : {}),
    ...(tooled ? { computerTool: draft.computerTool as ComputerToolChoice } : {}),
    // Off is the default: written only when the file said something else before.
    ...(draft.elements !== 'off' || saved?.config.model?.elements !== undefined ? { elements: draft.elements } : {}),
  };
}

function configOf(draft: Draft, saved: Saved | null): ConfigFile {
  const config = saved?.config ?? {};
  const defined = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
  return {
    ...config,
    model: modelOf(draft, saved),
    agent: defined({
      ...config.agent,
      maxSteps: numberOrUndefined(draft.maxSteps),
      maxCostUsd: numberOrUndefined(draft.maxCostUsd),
      confirmationRules: draft.rules.map(ruleOf),
    }),
    memory: defined({ ...config.memory, recentBudget: numberOrUndefined(draft.recentBudget), summaryBudget: numberOrUndefined(draft.summaryBudget) }),
    desktop: { ...config.desktop, private: draft.desktop.private, size: draft.desktop.size.trim() || '1280x800', apps: appsOf(draft.desktop) },
    store: defined({
      ...config.store,
      keepFullResolution: config.store?.keepFullResolution ?? false,
      minFreeMb: config.store?.minFreeMb ?? 200,
      retentionDays: numberOrUndefined(draft.retentionDays) ?? null,
      retentionGb: numberOrUndefined(draft.retentionGb) ?? null,
    }),
  };
}

export function SettingsView({ explainMissingProvider }: { explainMissingProvider: boolean }) {
  const { t, i18n } = useTranslation();
  const { settings } = useServices();
  const saved = useSettings((s) => s.saved);
  const loadError = useSettings((s) => s.loadError);
  const saving = useSettings((s) => s.saving);
  const saveMessage = useSettings((s) => s.saveMessage);
  const check = useSettings((s) => s.check);
  const [draft, setDraft] = useState<Draft>(() => draftOf(saved));
  const [invalid, setInvalid] = useState<string | null>(null);

  useEffect(() => setDraft(draftOf(saved)), [saved]);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }));

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const config = configOf(draft, saved);
    const parsed = ConfigFileSchema.safeParse(config);
    if (!parsed.success) {
      setInvalid(describeConfigIssues(parsed.error.issues));
      return;
    }
    setInvalid(null);
    await settings.getState().save({ config, ...(draft.apiKey ? { apiKey: draft.apiKey } : {}) });
  };

  const testConnection = () => {
    void settings.getState().testConnection({ model: modelOf(draft, saved), ...(draft.apiKey ? { apiKey: draft.apiKey } : {}) });
  };
  const checkGrounding = () => {
    void settings.getState().checkGrounding({ model: modelOf(draft, saved), ...(draft.apiKey ? { apiKey: draft.apiKey } : {}) });
  };
  const grounding = useSettings((s) => s.grounding);

  /** A model name Mnemo knows brings its family, coordinates and resize (and the family's API root when none is set). */
  const chooseModel = (name: string) => {
    const row = knownModel(name);
    const known = row ? settingsOfKnownModel(row) : null;
    if (!known || !(MODEL_FAMILIES as readonly string[]).includes(known.family)) {
      set('model', name);
      return;
    }
    const endpoint = endpointOf(known.family);
    setDraft((current) => ({
      ...current,
      model: name,
      family: known.family,
      coordinates: known.coordinates ?? '',
      smartResize: known.smartResize ? { ...known.smartResize } : null,
      ...(known.modelVersion ? { modelVersion: known.modelVersion } : {}),
      ...(current.baseUrl.trim() === '' && endpoint.defaultBaseUrl ? { baseUrl: endpoint.defaultBaseUrl } : {}),
    }));
  };
  const knownRow = knownModel(draft.model);

  return (
    <form className="settings-view" onSubmit={(event) => void save(event)}>
      {explainMissingProvider && (
        <p className="notice" role="status">
          {t('settingsView.noProvider')}
        </p>
      )}
      <ErrorLine message={loadError} />
      <fieldset className="panel">
        <legend>{t('settingsView.provider')}</legend>
        <label className="field">
          {t('settingsView.provider')}
          <select
            value={presetOf(draft.baseUrl)}
            onChange={(event) => {
              const preset = PROVIDER_PRESETS.find((p) => p.id === event.target.value);
              if (!preset || preset.id === 'custom') return;
              setDraft((current) => ({ ...current, baseUrl: preset.baseUrl, ...(preset.family ? { family: preset.family } : {}) }));
            }}
          >
            {PROVIDER_PRESETS.map((preset) => (
              <option key={preset.id} value={preset.id}>
                {t(`settingsView.presets.${preset.id}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          {t('baseUrl')}
          <input type="text" aria-label={NAMES.baseUrl} value={draft.baseUrl} placeholder="http://localhost:11434/v1" onChange={(event) => set('baseUrl', event.target.value)} />
        </label>
        <label className="field">
          {t('model')}
          <input type="text" aria-label={NAMES.model} value={draft.model} placeholder="gpt-4.1, ui-tars-1.5-7b…" onChange={(event) => chooseModel(event.target.value)} />
          {knownRow && (
            <small className="known-model">{t('settingsView.knownModel', { name: knownRow.name, family: knownRow.family, coordinates: knownRow.coordinates })}</small>
          )}
        </label>
        <ChoiceField label={t('settingsView.family')} value={draft.family} choices={MODEL_FAMILIES} onChange={(value) => set('family', value)} />
        {draft.family === 'ui-tars' && (
          <label className="field">
            {t('settingsView.version')}
            <select value={draft.modelVersion} onChange={(event) => set('modelVersion', event.target.value)}>
              <option value="">1.5</option>
              <option value="1.0">1.0</option>
              <option value="1.5">1.5</option>
            </select>
          </label>
        )}
        {COMPUTER_TOOLS_OF[draft.family] !== undefined && (
          <ChoiceField
            label={t('settingsView.computerTool')}
            name={NAMES.computerTool}
            value={COMPUTER_TOOLS_OF[draft.family]?.includes(draft.computerTool as never) ? draft.computerTool : ''}
            unset={t('settingsView.computerToolAuto', { tool: computerToolOf({ family: draft.family, model: draft.model.trim(), baseUrl: draft.baseUrl.trim() || undefined }) ?? '' })}
            choices={COMPUTER_TOOLS_OF[draft.family] ?? []}
            onChange={(value) => set('computerTool', value)}
          />
        )}
        {takesCoordinates(draft.family) && (
          <ChoiceField
            label={t('coordinates')}
            name={NAMES.coordinates}
            value={draft.coordinates}
            unset={t('settingsView.coordinatesDefault', { space: coordinateSpaceOf({ family: draft.family, modelVersion: draft.modelVersion || undefined }) })}
            choices={COORDINATE_SPACES}
            onChange={(value) => set('coordinates', value)}
          />
        )}
        <ElementsAidField value={draft.elements} onChange={(value) => set('elements', value)} />
        <label className="field">
          {t('settingsView.apiKey')}
          <input
            type="password"
            autoComplete="off"
            value={draft.apiKey}
            placeholder={saved?.hasApiKey ? t('settingsView.apiKeyStored') : draft.family === 'anthropic' ? 'sk-ant-…' : draft.family === 'gemini' ? 'AIza…' : 'sk-…'}
            onChange={(event) => set('apiKey', event.target.value)}
          />
        </label>
        <p className="hint">{t('settingsView.apiKeyEnv', { name: endpointOf(draft.family).apiKeyEnv.join(' / ') })}</p>
        {saved?.keyStore && (
          <p className={saved.keyStore.status === 'ok' ? 'hint' : 'hint warn'}>
            {t('settingsView.keyStore')}: {saved.keyStore.detail}
            {saved.keyStore.fix ? ` (${saved.keyStore.fix})` : ''}
          </p>
        )}
        <div className="field-row">
          <button type="button" aria-label={NAMES.testConnection} onClick={testConnection} disabled={check.status === 'checking'}>
            {t('testConnection')}
          </button>
          <button type="button" aria-label={NAMES.checkGrounding} onClick={checkGrounding} disabled={grounding.status === 'checking'}>
            {t('checkGrounding')}
          </button>
          <CheckOutcome />
        </div>
        <GroundingOutcome state={grounding} onUse={takesCoordinates(draft.family) ? (space: CoordinateSpaceName) => set('coordinates', space) : undefined} />
      </fieldset>

      <DoctorChecks />

      <fieldset className="panel">
        <legend>{t('settingsView.limits')}</legend>
        <NumberField label={t('settingsView.maxSteps')} value={draft.maxSteps} onChange={(value) => set('maxSteps', value)} />
        <NumberField label={t('settingsView.maxCost')} value={draft.maxCostUsd} step="0.01" onChange={(value) => set('maxCostUsd', value)} />
      </fieldset>

      <fieldset className="panel">
        <legend>{t('settingsView.memoryBudgets')}</legend>
        <NumberField label={t('settingsView.recentBudget')} value={draft.recentBudget} placeholder="500" onChange={(value) => set('recentBudget', value)} />
        <NumberField label={t('settingsView.summaryBudget')} value={draft.summaryBudget} placeholder="2000" onChange={(value) => set('summaryBudget', value)} />
      </fieldset>

      <fieldset className="panel">
        <legend>{t('settingsView.rules')}</legend>
        <ConfirmationRules rules={draft.rules} onChange={(rules) => set('rules', rules)} />
      </fieldset>

      <fieldset className="panel">
        <legend>{t('settingsView.desktop')}</legend>
        <p className="note">{t('settingsView.desktopIntro')}</p>
        <DesktopFields draft={draft.desktop} onChange={(desktop) => set('desktop', desktop)} />
      </fieldset>

      <fieldset className="panel">
        <legend>{t('settingsView.storage')}</legend>
        <p className="field">
          {t('settingsView.dataDir')}: <code>{saved?.dataDir ?? '—'}</code>
        </p>
        <p className="field">
          {t('settingsView.configPath')}: <code>{saved?.configPath ?? '—'}</code>
        </p>
        <NumberField label={t('settingsView.retentionDays')} value={draft.retentionDays} onChange={(value) => set('retentionDays', value)} />
        <NumberField label={t('settingsView.retentionGb')} value={draft.retentionGb} step="0.1" onChange={(value) => set('retentionGb', value)} />
      </fieldset>

      <fieldset className="panel">
        <legend>{t('settingsView.language')}</legend>
        <label className="field">
          {t('settingsView.language')}
          <select value={i18n.language} onChange={(event) => void i18n.changeLanguage(event.target.value)}>
            {LANGUAGES.map((language) => (
              <option key={language.code} value={language.code}>
                {language.name}
              </option>
            ))}
          </select>
        </label>
      </fieldset>

      <div className="field-row save-row">
        <button type="submit" className="primary" aria-label={NAMES.save} disabled={saving}>
          {t('save')}
        </button>
        {invalid && (
          <span className="error" role="alert">
            {t('settingsView.invalid', { message: invalid })}
          </span>
        )}
        {saveMessage && (
          <span className={saveMessage.ok ? 'ok' : 'error'} role={saveMessage.ok ? 'status' : 'alert'}>
            {saveMessage.ok ? t('settingsView.saved', { path: saveMessage.text }) : t('settingsView.invalid', { message: saveMessage.text })}
          </span>
        )}
        {saveMessage?.notice && (
          <span className="note" role="status">
            {saveMessage.notice}
          </span>
        )}
      </div>
    </form>
  );
}

function CheckOutcome() {
  const { t } = useTranslation();
  const check = useSettings((s) => s.check);
  if (check.status === 'idle') return null;
  if (check.status === 'checking') return <span className="note">{t('settingsView.checking')}</span>;
  if (check.status === 'failed') {
    return (
      <span className="error check-outcome" role="alert">
        {check.message}
      </span>
    );
  }
  const { result } = check;
  return result.ok ? (
    <span className="ok check-outcome" role="status">
      {t('settingsView.checkOk', { ms: Math.round(result.latencyMs), images: result.imageAccepted ? t('settingsView.imagesAccepted') : t('settingsView.imagesRefused') })}
      {result.note ? ` ${result.note}` : ''}
    </span>
  ) : (
    <span className="error check-outcome" role="alert">
      {result.status ? `${result.status}: ` : ''}
      {result.message}
    </span>
  );
}

/** A labelled choice among plain values; `unset`, when given, is the first choice and stands for none (''). */
/** The elements aid, with what the chosen mode costs in tokens a step. */
function ElementsAidField({ value, onChange }: { value: ElementsAidMode; onChange: (value: ElementsAidMode) => void }) {
  const { t } = useTranslation();
  const costId = useId();
  return (
    <>
      <label className="field">
        {t('settingsView.elementsAid')}
        <select aria-label={NAMES.elementsAid} aria-describedby={costId} value={value} onChange={(event) => onChange(event.target.value as ElementsAidMode)}>
          {ELEMENTS_AID_MODES.map((mode) => (
            <option key={mode} value={mode}>
              {mode}
            </option>
          ))}
        </select>
      </label>
      <p className="hint" id={costId}>
        {t(`settingsView.elementsCost.${value}`)}
      </p>
    </>
  );
}

function ChoiceField({ label, name, value, choices, unset, onChange }: { label: string; name?: string; value: string; choices: readonly string[]; unset?: string; onChange: (value: string) => void }) {
  return (
    <label className="field">
      {label}
      <select aria-label={name} value={value} onChange={(event) => onChange(event.target.value)}>
        {unset !== undefined && <option value="">{unset}</option>}
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    </label>
  );
}

function NumberField({ label, value, onChange, step = '1', placeholder }: { label: string; value: string; onChange: (value: string) => void; step?: string; placeholder?: string }) {
  return (
    <label className="field">
      {label}
      <input type="number" min="0" step={step} value={value} placeholder={placeholder} onChange={(event) => onChange(event.target.value)} />
    </label>
  );
}
