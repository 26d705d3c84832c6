// npm run test:quick: the unit and architecture tests of test/quick-and-slow.ts, for the edit-test loop (npm test
// runs every test file, these among them).
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';
import { QUICK_TESTS, asGlobs } from './test/quick-and-slow.ts';

export default mergeConfig(base, defineConfig({ test: { include: asGlobs(QUICK_TESTS) } }));
