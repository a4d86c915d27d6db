// Lint rules checked by `npm test` (npm run lint), zero warnings allowed. Layout is Prettier's job, not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** `x as never` / `x as any` switch type checking off at that point; narrow the type instead. */
const noCastEscape = {
  selector: 'TSAsExpression > :matches(TSNeverKeyword, TSAnyKeyword).typeAnnotation',
  message: 'Casting to never/any switches type checking off; narrow the type instead.',
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'public-build/', 'test-results/', 'bench/results/', 'coverage/', '**/*.cjs', 'web/api-schema.d.ts'] },
  // web/api-schema.d.ts is generated (npm run gen:api); test/unit/api-schema.test.ts keeps it in step with the API.
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      'no-restricted-syntax': ['error', noCastEscape],
      // Numbers in messages and SQL comments read fine; objects and undefined still do not pass.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // Fastify plugins and hooks are async by contract even when their body awaits nothing.
      '@typescript-eslint/require-await': 'off',
      // Records here are JSON documents (Record<string, unknown>); delete is how a field leaves one.
      '@typescript-eslint/no-dynamic-delete': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
    },
  },
  {
    // Tests, benchmarks and scripts read JSON responses (`res.json()` is `any`), index arrays they just made and
    // build messages from them: the any family, non-null assertions and the checks on operands would only add casts
    // there, not safety. Floating promises, misused promises and the rest of strict-type-checked stay on.
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: {
      '@typescript-eslint/restrict-plus-operands': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/no-unnecessary-type-conversion': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/use-unknown-in-catch-callback-variable': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-misused-spread': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // The buyer's page and the console run in the browser; their tsconfigs carry the DOM types.
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    rules: {
      // `onClick={() => setOpen(false)}` is how a JSX or h() handler is written; a void call in any other
      // expression position is still reported.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // The DOM ignores what an event handler returns, and the console's async handlers report their own
      // failures (setError); promises handed to anything else than an element's on* attribute are still checked.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    // Components stay short enough to read in one sitting: a longer one is split into named parts.
    files: ['web/admin/**/*.tsx', 'web/views/**/*.ts', 'web/app.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: null },
      globals: { process: 'readonly', console: 'readonly', setInterval: 'readonly', clearInterval: 'readonly' },
    },
  },
);
