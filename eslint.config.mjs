// typescript-eslint's recommended rules over the packages, the example app, the tests and the benchmarks
// (`npm run lint`, part of `npm test`). Layout is Prettier's (.prettierrc.json), never ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'cdk.out/**', 'test/corpus/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      // A leading underscore marks a binding kept on purpose (a destructured key left out, an unused callback argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
        },
      ],
    },
  },
  {
    // CommonJS configuration files (dependency-cruiser reads .cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read untyped answers (recorded histories, raw API bodies, SDK internals) and poke at private shapes.
    files: ['test/**', 'packages/*/test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Console pages run in the browser.
    files: ['packages/local/src/console/**/*.js', 'test/e2e/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
