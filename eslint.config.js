import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'data', 'server/db/migrations', 'coverage'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Layering (docs/decisions.md D11): machines and domain stay free of React, the DOM and our other layers.
    files: ['src/machines/**/*.ts', 'src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['react', 'react-dom', '*/screens/*', '*/ui/*', '*/app/*'] },
      ],
      'no-restricted-globals': ['error', 'window', 'document', 'localStorage', 'sessionStorage', 'location'],
    },
  },
  {
    // ui: presentational, props in and callbacks out; it knows the shared domain only.
    files: ['src/ui/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['**/machines/**', '**/http/**', '**/app/**', '**/screens/**', 'xstate', '@xstate/*'] },
      ],
    },
  },
  {
    // http: calls and their types; the machines that use them are not its business.
    files: ['src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/machines/**', '**/screens/**', '**/ui/**'] }],
    },
  },
  {
    // screens reach the server through typed endpoint modules, never the raw client (its helpers are fine).
    files: ['src/screens/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/http/client'],
              importNames: ['http', 'request', 'configureHttp', 'resetHttp'],
              message: 'Call the server through a typed module in src/http (e.g. staff-api, products-api).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['server/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['*/src/machines/*', '*/src/screens/*', '*/src/ui/*', '*/src/http/*', '*/src/app/*'] },
      ],
    },
  },
);
