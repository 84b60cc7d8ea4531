import { defineConfig } from 'vitest/config';

/**
 * The suites whose conditional writes decide exactly-once behaviour. The `dynamodb-local` project runs them a
 * second time against AWS's own DynamoDB Local, which takes the branches dynalite never reaches
 * (`ReturnValuesOnConditionCheckFailure`).
 */
const CONDITIONAL_WRITE_SUITES = [
  'packages/runtime/test/**/idempotency-ledger.test.ts',
  'packages/runtime/test/**/approval-service.test.ts',
  'packages/runtime/test/**/tool-step.test.ts',
  'packages/runtime/test/**/model-step.test.ts',
];

export default defineConfig({
  // @autosave/* resolve to the packages' TypeScript sources through tsconfig.json's paths (no build step).
  resolve: { tsconfigPaths: true },
  test: {
    // Engine crash tests spawn processes and bind ports; keep the two cores from thrashing.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      // The global setup finds (or, as root, installs) Debian's chromium for the browser tests.
      {
        extends: true,
        test: {
          name: 'default',
          include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
          globalSetup: ['test/setup/global-setup.ts'],
        },
      },
      {
        extends: true,
        // A JVM start under load can outlast the default hook timeout.
        test: {
          name: 'dynamodb-local',
          include: CONDITIONAL_WRITE_SUITES,
          hookTimeout: 150_000,
          env: { AUTOSAVE_TEST_DYNAMODB: 'dynamodb-local' },
        },
      },
    ],
  },
});
