// Writes the OpenAPI document the service serves at /api/v2/openapi.json to a file (default
// dist/openapi.json), for `npm run openapi:lint`. The document is built by the routers as they
// mount, so this builds the real service on a throwaway embedded database and asks it.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { buildService } from '../src/main.js';

const target = path.resolve(process.argv[2] ?? 'dist/openapi.json');
const dataDir = await mkdtemp(path.join(tmpdir(), 'verity-openapi-'));
const config = loadConfig({
  VERITY_DATA_DIR: dataDir,
  VERITY_SEED_DEMO: 'false',
  VERITY_WARM_MODELS: 'false',
  LOG_LEVEL: 'warn',
  VERITY_BASE_URL: process.env.VERITY_BASE_URL ?? 'http://localhost:8080',
});
const service = await buildService(config);
try {
  const server = service.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2/openapi.json`);
  if (!response.ok) throw new Error(`the service answered ${response.status} for its OpenAPI document`);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, `${JSON.stringify(await response.json(), null, 2)}\n`);
  await new Promise((resolve) => {
    server.close(resolve);
    server.closeAllConnections();
  });
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
} finally {
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
}
