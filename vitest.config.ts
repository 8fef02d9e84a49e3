import { createRequire } from 'node:module';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// SWC instead of esbuild: type-graphql and MikroORM read decorator metadata, which esbuild does not emit.
const require = createRequire(import.meta.url);

export default defineConfig({
  // Node loads graphql's CommonJS build for type-graphql and Apollo; tests must see the same
  // copy, not the .mjs one Vite would pick, or graphql refuses objects "from another realm".
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  plugins: [
    swc.vite({
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        // TSX (web/) is Preact's automatic JSX runtime.
        transform: {
          legacyDecorator: true,
          decoratorMetadata: true,
          useDefineForClassFields: false,
          react: { runtime: 'automatic', importSource: 'preact' },
        },
        target: 'es2022',
      },
    }),
  ],
  test: {
    include: ['test/**/*.test.ts', 'web/**/*.test.{ts,tsx}'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two files at a time: vitest's default (cores - 1) is one on this 2-core machine, and most
    // files wait on PostgreSQL, HTTP or a browser rather than the CPU. Each service gets its own
    // fresh database (test/helpers/store.ts), so files never share state.
    maxWorkers: 2,
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/build-web.ts', 'test/build-server.ts'],
  },
});
