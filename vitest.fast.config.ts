import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The fast tier (`npm run test:fast`): the rules of each area on fake stores, wire shapes and
// pure functions, in test/fast/ and beside the browser code. No database, no service, no browser,
// so it needs neither the bundled pages nor the compiled server the full suite builds first.
// Built by replacing `test`, as vitest.reliability.config.ts is (mergeConfig would add arrays).
// Threads without isolation: these files keep no global state, and one module graph for all of
// them halves the time spent importing.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/fast/**/*.test.ts', 'web/**/*.test.{ts,tsx}'],
    globalSetup: [],
    pool: 'threads',
    isolate: false,
  },
});
