import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The browser code: one entry per page script plus the stylesheet of the server-rendered pages,
// bundled into dist/web with hashed names and a manifest the server reads (src/web/assets.ts).
const entry = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    manifest: true,
    target: 'es2020',
    // No inline polyfill: our CSP allows scripts from our origin only.
    modulePreload: false,
    // GraphiQL (the admin IDE at /graphql) is one large chunk; the hosted page's is small.
    chunkSizeWarningLimit: 1200,
    rollupOptions: {
      // React libraries inside GraphiQL mark modules "use client"; that means nothing in a bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
      input: {
        hosted: entry('./hosted/main.tsx'),
        console: entry('./console/main.tsx'),
        activation: entry('./activation/selfie.ts'),
        graphiql: entry('./graphiql/main.ts'),
        pages: entry('./pages/pages.css'),
      },
    },
  },
});
