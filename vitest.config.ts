import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/sequencer.ts';

export default defineConfig({
  test: {
    // Suite runs against the reference target take seconds; the full-profile probes wait out a (scaled) window.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Most of a test file's time is spent waiting on its targets' (scaled) clocks, not on a CPU: on CI's 2 cores the
    // default of one fork per core but one ran the files one after another (22 min wall, 8.5 min of CPU).
    pool: 'forks',
    poolOptions: { forks: { minForks: 1, maxForks: 2 } },
    // Longest files first, as measured, so the forks end together (test/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // No contributor's CONFORMANCE_* variables or .env reach a test (test/isolated-env.ts).
    setupFiles: ['test/isolated-env.ts'],
  },
});
