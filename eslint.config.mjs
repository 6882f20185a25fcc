import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTypeScript from 'eslint-config-next/typescript';
import jest from 'eslint-plugin-jest';

const config = [
  ...nextVitals,
  ...nextTypeScript,
  {
    ignores: [
      '.next/**',
      '.next-*/**',
      'node_modules/**',
      'next-env.d.ts',
      'coverage/**',
      'bench/.work/**',
      'bench/results/**',
      'dist/**',
      // StrykerJS's sandboxes and reports (npm run test:mutation).
      '.stryker-tmp/**',
      'reports/**',
    ],
  },
  {
    // Tests that cannot pass without asserting, and assertions that are really made.
    files: ['__tests__/**/*.test.{ts,tsx}'],
    plugins: { jest },
    rules: {
      'jest/expect-expect': ['error', { assertFunctionNames: ['expect', 'expect*'] }],
      'jest/valid-expect': 'error',
      'jest/no-standalone-expect': ['error', { additionalTestBlockFunctions: ['whereJestSoftDeletes'] }],
    },
  },
  {
    // CommonJS files loaded by Node or by tools before any compiler runs.
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
];

export default config;
