import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { NotRunReporter } from './test/helpers/not-run-reporter.ts';
import { SlowestFirstSequencer } from './test/helpers/slowest-first-sequencer.ts';

/** Where tests note what they could not run here; the last reporter prints it after the summary. */
const NOT_RUN_LOG = join(tmpdir(), `edgecheck-not-run-${process.pid}.jsonl`);

export default defineConfig({
  // As bin/suite-hooks.mjs does for the CLI: suites kept outside the project import this kit too.
  resolve: { alias: { 'edgecheck/kit': fileURLToPath(new URL('./runner/kit.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', new NotRunReporter(NOT_RUN_LOG)],
    // Servers, child processes and whole suite runs: seconds, not milliseconds.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two at a time even on two cores: much of a test's time is spent waiting on servers and child
    // processes, and vitest would otherwise run one file at a time there (cores - 1).
    maxWorkers: 2,
    minWorkers: 1,
    // The slow files start first (test/README.md lists them), so none is left running alone at the end.
    sequence: { sequencer: SlowestFirstSequencer },
    // A worker keeps the modules it loaded from one file to the next: importing the AWS SDK and
    // the engine afresh for each of eighty files cost more CPU than some of the tests. Tests stop
    // what they start and restore what they change, so no file sees another's state.
    poolOptions: { forks: { isolate: false } },
    // What a test stubs is put back after it, so no later file in the worker sees it.
    setupFiles: ['test/helpers/restore-after-each.ts'],
    restoreMocks: true,
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      NO_COLOR: '1',
      // Runs under test must not append to the summary of the CI step that runs the tests.
      GITHUB_STEP_SUMMARY: '',
      EDGECHECK_NOT_RUN_LOG: NOT_RUN_LOG,
    },
  },
});
