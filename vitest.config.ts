import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Suite runs against the reference target take seconds; the full-profile probes wait out a (scaled) window.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
