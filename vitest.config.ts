import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // As bin/suite-hooks.mjs does for the CLI: suites kept outside the project import this kit too.
  resolve: { alias: { 'edgecheck/kit': fileURLToPath(new URL('./runner/kit.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    // Servers, child processes and whole suite runs: seconds, not milliseconds.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      NO_COLOR: '1',
      // Runs under test must not append to the summary of the CI step that runs the tests.
      GITHUB_STEP_SUMMARY: '',
    },
  },
});
