// The promise lint of `npm run lint`: the two rules that need type information, so they run apart from the fast
// lint (eslint.config.mjs). The store's statements are async; a promise nobody awaits (a forEach of async work, a
// timer's async callback) lets a transaction commit before its writes ran, or a failure go unseen.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'bench/', '.docker-cache/', 'test/contracts/typed-client/api.d.ts'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
);
