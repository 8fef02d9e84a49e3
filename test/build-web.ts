import { build } from 'vite';

// Vitest global setup: bundle web/ into dist/web once, so the pages the tests open serve the
// browser code of this checkout (npm start gets it from `npm run build`).
export default async function buildWeb(): Promise<void> {
  await build({ configFile: new URL('../web/vite.config.ts', import.meta.url).pathname });
}
