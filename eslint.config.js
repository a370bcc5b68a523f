// Lint rules, including the layer boundaries (see ARCHITECTURE.md):
// - electron/engine is plain Node: it never imports electron, the DOM-side code, the CLI or the Electron glue.
// - electron/cli is a host of the engine: it may import the engine, never electron or the renderer.
// Import cycles and the engine's internal layers are checked by dependency-cruiser (.dependency-cruiser.cjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import pluginVue from 'eslint-plugin-vue';

const hostDirs = ['**/main/**', '**/preload/**', '**/renderer/**', '**/engine-host/**'];

// The renderer is browser code: it talks to the engine only through the protocol.
const rendererRestrictions = {
  paths: [
    { name: 'electron', message: 'The renderer never touches Electron: use the bridge (window.phasor).' },
  ],
  patterns: [
    { group: ['node:*'], message: 'The renderer never touches Node.' },
    {
      regex: String.raw`electron/(?!engine/protocol/|engine/output/colormaps)`,
      message: 'The renderer imports only electron/engine/protocol and the colormaps from the engine.',
    },
  ],
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'out/**',
      'build/**',
      'node_modules/**',
      'native/build/**',
      '.device/**',
      'release/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...pluginVue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.vue'] } },
  },
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['electron/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'electron', message: 'The engine runs in any host: it never imports electron.' },
            { name: 'vue', message: 'The engine never imports renderer code.' },
            { name: 'pinia', message: 'The engine never imports renderer code.' },
          ],
          patterns: [
            { group: hostDirs, message: 'The engine never imports its hosts (main, preload, renderer).' },
            { group: ['**/cli/**', '../cli/*', '../../cli/*'], message: 'The engine never imports the CLI.' },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'The CLI is a plain Node host: it never imports electron.' }],
          patterns: [{ group: hostDirs, message: 'The CLI imports the engine only.' }],
        },
      ],
    },
  },
  {
    files: ['electron/main/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: String.raw`engine/(?!protocol/)`,
              message: 'The main process never loads the engine: it runs in electron/engine-host.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/engine-host/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/main/**', '**/preload/**', '**/renderer/**', '**/cli/**'],
              message: 'The engine host imports the engine only; the main process reaches it by messages.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/engine/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'The protocol is shared with the browser: no Node imports.' },
            { group: ['../*'], message: 'The protocol stands alone (the renderer imports it).' },
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.vue'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': ['error', rendererRestrictions] },
  },
  prettier,
);
