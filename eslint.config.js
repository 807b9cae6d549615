// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const ELECTRON_MESSAGE = 'Import electron only in src/main/app/ or src/preload/ (see docs/architecture.md, Environments).';

/** Electron may be imported only by the app shell and the preload script. */
const electronPaths = [{ name: 'electron', message: ELECTRON_MESSAGE }];
const electronPatterns = [{ group: ['electron/*'], message: ELECTRON_MESSAGE }];

/**
 * The layers of src/main (docs/architecture.md, "Layers"): each folder lists the folders it must
 * not import. The front ends (cli, app, server, mcp) sit on top and nothing below imports them;
 * among themselves they are ordered: the two process entries (cli, app) may start the HTTP server
 * and the MCP server, which know neither each other nor the entries (their HTTP primitives are
 * http/, below them), and neither entry imports the other.
 */
const FRONT_ENDS = ['cli', 'app', 'server', 'mcp'];
const FRONT_END_ORDER = {
  cli: ['app'],
  app: ['cli', 'server', 'mcp'],
  server: ['cli', 'app', 'mcp'],
  mcp: ['cli', 'app', 'server'],
};
const LAYERS = {
  // The HTTP primitives of the HTTP front ends (access, bodies, replies): nothing of the core.
  http: ['operator', 'model', 'memory', 'store', 'run', 'agent', 'replay', 'workflow', 'service', 'settings', 'teach'],
  // Careful file writes (atomic, whole appends, write failures in words): used by every layer that writes.
  disk: ['operator', 'model', 'memory', 'store', 'run', 'agent', 'replay', 'workflow', 'service', 'settings', 'teach'],
  // sharp, loaded at its first use: used by every layer that reads or makes an image.
  image: ['operator', 'model', 'memory', 'store', 'run', 'agent', 'replay', 'workflow', 'service', 'settings', 'teach', 'disk', 'http', 'batch'],
  operator: ['model', 'memory', 'store', 'run', 'agent', 'replay', 'workflow', 'service', 'settings', 'teach'],
  model: ['operator', 'memory', 'store', 'run', 'agent', 'replay', 'workflow', 'service', 'settings', 'teach'],
  store: ['operator', 'model', 'memory', 'run', 'agent', 'replay', 'workflow', 'service', 'settings', 'teach'],
  memory: ['operator', 'store', 'run', 'agent', 'replay', 'workflow', 'service', 'settings', 'teach'],
  settings: ['operator', 'model', 'memory', 'run', 'agent', 'replay', 'workflow', 'service', 'teach'],
  run: ['model', 'memory', 'agent', 'replay', 'workflow', 'service', 'settings', 'teach'],
  agent: ['replay', 'workflow', 'service', 'settings', 'teach'],
  replay: ['agent', 'memory', 'workflow', 'service', 'settings', 'teach'],
  // Workflows re-run recordings on replay's plan, divergence guard and reground.
  workflow: ['agent', 'memory', 'service', 'settings', 'teach'],
  // Demonstrations: the user's input recorded (operator) as a session (run's lifecycle), a field's label read with workflow's OCR.
  teach: ['agent', 'memory', 'service', 'settings'],
  // Batches: the values, the journal and the scheduling of rows; a row is launched by a recipe the service gives it.
  batch: ['operator', 'model', 'memory', 'store', 'run', 'agent', 'replay', 'workflow', 'service', 'settings', 'teach'],
  service: [],
};

/** `no-restricted-imports` for one folder: the Electron rule (but in the app) plus the folders it must not import. */
function restrictedImports(folder) {
  const banned = FRONT_ENDS.includes(folder) ? FRONT_END_ORDER[folder] : [...(LAYERS[folder] ?? []), ...FRONT_ENDS];
  const electron = folder === 'app' ? { paths: [], patterns: [] } : { paths: electronPaths, patterns: electronPatterns };
  return {
    'no-restricted-imports': [
      'error',
      {
        paths: electron.paths,
        patterns: [
          ...electron.patterns,
          ...banned.map((other) => ({
            // A folder of src/main, or its index, reached relatively; never a file of the same name
            // elsewhere (shared/settings.ts) nor a package's own folder (@modelcontextprotocol/sdk/server/…).
            group: [1, 2, 3, 4].flatMap((depth) => [`${'../'.repeat(depth)}${other}`, `${'../'.repeat(depth)}${other}/**`]),
            message: `src/main/${folder}/ must not import src/main/${other}/ (see docs/architecture.md, Layers).`,
          })),
        ],
      },
    ],
  };
}

/**
 * One run context (docs/architecture.md, "The run's context"): only the launcher builds a run's
 * lifecycle; the engines do their own job on it and neither sum usage nor mask text (the
 * lifecycle does both, once).
 */
const ONE_CONTEXT = {
  selector: "NewExpression[callee.name='RunLifecycle']",
  message: 'Only the launcher (src/main/service/runs/run-launcher.ts) builds a run\'s lifecycle; an engine receives it.',
};
const ENGINE_FILES = ['src/main/agent/**/*.ts', 'src/main/replay/**/*.ts', 'src/main/workflow/runner.ts', 'src/main/teach/**/*.ts', 'src/main/run/single-action.ts', 'src/main/run/user-steps.ts'];
const ENGINE_RULES = [
  ONE_CONTEXT,
  { selector: "CallExpression[callee.name='sumUsage']", message: "An engine does not sum usage: it says what a model call spent with life.spend(usage) and the step's end carries the sum." },
  {
    selector: "CallExpression[callee.object.property.name='secrets'][callee.property.name=/^(text|rawReply)$/], CallExpression[callee.name=/^(maskSecrets|maskRawReply|chainRedactors)$/], NewExpression[callee.name='SecretMask']",
    message: 'An engine does not mask text: the lifecycle masks every event where it is stamped, and a raw reply in life.saveReply.',
  },
];

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
    rules: { 'no-restricted-imports': ['error', { paths: electronPaths, patterns: electronPatterns }] },
  },
  ...[...Object.keys(LAYERS), ...FRONT_ENDS].map((folder) => ({ files: [`src/main/${folder}/**/*.ts`], rules: restrictedImports(folder) })),
  { files: ['src/**/*.ts'], ignores: ['src/main/service/runs/run-launcher.ts'], rules: { 'no-restricted-syntax': ['error', ONE_CONTEXT] } },
  { files: ENGINE_FILES, rules: { 'no-restricted-syntax': ['error', ...ENGINE_RULES] } },
  {
    // The renderer runs in the browser sandbox: DOM globals, no Node; it imports src/shared and itself only.
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: electronPaths,
          patterns: [
            ...electronPatterns,
            { group: ['**/main/**', '**/preload/**', '**/test/**'], message: 'src/renderer/ imports only src/shared/ and itself (see docs/architecture.md, Layers).' },
            { group: ['node:*'], message: 'The renderer runs in a browser: no Node modules.' },
          ],
        },
      ],
    },
  },
  {
    files: ['test/fixtures/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The unit tests share their workers' modules (vitest.config.ts, `isolate: false`): a file may
    // leave nothing behind for the next one, so no module mocks, no stubbed globals, no edited
    // environment (a test passes its own `env` to the process it starts).
    files: ['test/unit/**/*.ts'],
    rules: {
      'no-restricted-properties': ['error', ...['mock', 'doMock', 'stubGlobal', 'stubEnv', 'useFakeTimers'].map((property) => ({ object: 'vi', property, message: `vi.${property} outlives its file: the unit tests share their workers (vitest.config.ts).` }))],
      'no-restricted-syntax': [
        'error',
        { selector: "AssignmentExpression > MemberExpression.left[object.object.name='process'][object.property.name='env']", message: 'process.env outlives the file: the unit tests share their workers (vitest.config.ts); pass an env to what the test starts.' },
        { selector: "UnaryExpression[operator='delete'] > MemberExpression[object.object.name='process'][object.property.name='env']", message: 'process.env outlives the file: the unit tests share their workers (vitest.config.ts).' },
      ],
    },
  },
);
