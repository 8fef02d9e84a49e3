import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The reliability suite (`npm run test:reliability`): load, faults, fuzzing, races and security,
// through the real interfaces. Bounded in time; run by CI after `npm test`. Built from the base
// config by replacing `test` (mergeConfig would add the unit tests to `include`).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['reliability/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // One file at a time: load and fault runs measure the machine and must not share it.
    fileParallelism: false,
  },
});
