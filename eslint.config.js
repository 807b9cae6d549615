// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** Electron may be imported only by the app shell and the preload script. */
const electronOnlyInAppAndPreload = {
  'no-restricted-imports': [
    'error',
    {
      paths: [
        {
          name: 'electron',
          message: 'Import electron only in src/main/app/ or src/preload/ (see ARCHITECTURE.md, Environments).',
        },
      ],
      patterns: [
        {
          group: ['electron/*'],
          message: 'Import electron only in src/main/app/ or src/preload/ (see ARCHITECTURE.md, Environments).',
        },
      ],
    },
  ],
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'release/**', 'node_modules/**', 'coverage/**', 'test/fixtures/**/*.html'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.{ts,tsx,js,mjs,cjs}'],
    ignores: ['src/main/app/**', 'src/preload/**'],
    rules: electronOnlyInAppAndPreload,
  },
  {
    // The renderer runs in the browser sandbox: DOM globals, no Node.
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['test/fixtures/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
