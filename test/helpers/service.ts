import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import supertest from 'supertest';
import { loadConfig, type Config } from '../../src/config.js';
import type { Clock } from '../../src/core/clock.js';
import type { FaceEngine } from '../../src/core/face-engine.js';
import type { Logger } from '../../src/logger.js';
import { Sealer } from '../../src/core/secrets.js';
import type { DemoTenant } from '../../src/core/seed.js';
import { buildService, type Service } from '../../src/main.js';
import { responseChecker, type ResponseCheck } from './contract.js';
import { freePort } from './processes.js';
import { freshStore } from './store.js';

export interface TestService extends Service {
  demo: DemoTenant;
  http: ReturnType<typeof supertest>;
  config: Config;
}

/** The whole service on a fresh database with the demo tenant seeded, driven through supertest. */
/** What a test may swap: the clock, the face engine, the logger (default silent). */
export interface TestOptions {
  clock?: Clock;
  faceEngine?: FaceEngine;
  logger?: Logger;
}

export async function startTestService(
  overrides: Partial<Config> = {},
  options: TestOptions = {},
): Promise<TestService> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-test-'));
  const config = loadConfig(
    {},
    {
      baseUrl: 'http://verity.test',
      orgApiUrl: 'http://verity.test',
      dataDir,
      encryptionKey: Sealer.generateKey(),
      logLevel: 'silent',
      // Models load on first use in tests; only the tests about them pay for loading them.
      warmModels: false,
      // The sample licence roster only where a test reads it (it takes seconds to load).
      seedLicenses: false,
      // Background jobs (pg-boss) only where a test is about webhooks or expiry.
      runJobs: false,
      // Tests read /metrics without a token; test/metrics-access.test.ts checks it is closed by default.
      metricsPublic: true,
      ...overrides,
    },
  );
  const store = await freshStore();
  const service = await buildService(config, {
    store,
    logger: options.logger ?? pino({ level: 'silent' }),
    clock: options.clock,
    faceEngine: options.faceEngine,
  });
  if (!service.demo) throw new Error('a fresh database must seed the demo tenant');
  return {
    ...service,
    demo: service.demo,
    config,
    http: checkedHttp(
      supertest(service.app),
      responseChecker((await supertest(service.app).get('/api/v2/openapi.json').expect(200)).body),
    ),
    async close() {
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

/** supertest whose every request also checks its answer against the OpenAPI document (helpers/contract.ts). */
function checkedHttp(http: ReturnType<typeof supertest>, check: ResponseCheck): ReturnType<typeof supertest> {
  return new Proxy(http, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !METHODS.has(property) || typeof value !== 'function') return value;
      return (url: string, ...rest: unknown[]) =>
        value.call(target, url, ...rest).expect((res: supertest.Response) => check(property, url, res));
    },
  });
}

/** Raw SQL against the service's database, for checking what is (not) stored. */
export async function sql<T = Record<string, unknown>>(
  service: Service,
  query: string,
  params: unknown[] = [],
): Promise<T[]> {
  return service.core.orm.em.getConnection().execute(query, params);
}

export interface ListeningService extends TestService {
  url: string;
}

/** The service on a real loopback port whose base URL (the OIDC issuer) is that address. */
export async function startListeningService(
  overrides: Partial<Config> = {},
  options: TestOptions = {},
): Promise<ListeningService> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const service = await startTestService({ baseUrl: url, orgApiUrl: url, ...overrides }, options);
  const server = await new Promise<Server>((resolve) => {
    const s = service.app.listen(port, '127.0.0.1', () => resolve(s));
  });
  return {
    ...service,
    url,
    async close() {
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      });
      await service.close();
    },
  };
}
