/** Confirmation rules: which actions need the user's yes before they run, and why. */
import { useTranslation } from 'react-i18next';

export interface RuleDraft {
  reason: string;
  keys: string;
  types: string;
  windowTitleContains: string;
  textMatches: string;
}

const FIELDS: Array<{ key: keyof RuleDraft; label: string }> = [
  { key: 'reason', label: 'settingsView.ruleReason' },
  { key: 'keys', label: 'settingsView.ruleKeys' },
  { key: 'types', label: 'settingsView.ruleTypes' },
  { key: 'windowTitleContains', label: 'settingsView.ruleTitle' },
  { key: 'textMatches', label: 'settingsView.ruleText' },
];

export function ConfirmationRules({ rules, onChange }: { rules: RuleDraft[]; onChange: (rules: RuleDraft[]) => void }) {
  const { t } = useTranslation();
  const update = (index: number, key: keyof RuleDraft, value: string) => onChange(rules.map((rule, i) => (i === index ? { ...rule, [key]: value } : rule)));
  return (
    <div className="rules">
      {rules.map((rule, index) => (
        <div key={index} className="rule">
          {FIELDS.map(({ key, label }) => (
            <label key={key} className="field tight">
              {t(label)}
              <input type="text" value={rule[key]} onChange={(event) => update(index, key, event.target.value)} />
            </label>
          ))}
          <button type="button" className="small" onClick={() => onChange(rules.filter((_, i) => i !== index))}>
            {t('settingsView.removeRule')}
          </button>
        </div>
      ))}
      <button type="button" className="small" onClick={() => onChange([...rules, { reason: '', keys: '', types: '', windowTitleContains: '', textMatches: '' }])}>
        {t('settingsView.addRule')}
      </button>
    </div>
  );
}
