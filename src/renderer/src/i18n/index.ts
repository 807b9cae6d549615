/**
 * i18next with the two languages the window speaks. The choice is the user's (Settings), kept in
 * this window's local storage; the first time, the browser's language decides.
 */
import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './en';
import { zh } from './zh';

export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'zh', name: '中文' },
] as const;
export type LanguageCode = (typeof LANGUAGES)[number]['code'];

const STORAGE_KEY = 'mnemo.language';

function initialLanguage(): LanguageCode {
  const stored = globalThis.localStorage?.getItem(STORAGE_KEY);
  if (stored === 'en' || stored === 'zh') return stored;
  return globalThis.navigator?.language?.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export function createI18n(): i18n {
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    resources: { en: { translation: en }, zh: { translation: zh } },
    lng: initialLanguage(),
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
    initAsync: false,
  });
  instance.on('languageChanged', (language) => {
    globalThis.localStorage?.setItem(STORAGE_KEY, language);
    document.documentElement.lang = language;
  });
  document.documentElement.lang = instance.language;
  return instance;
}
