import { mkdir, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import path from 'node:path';
import type { Express } from 'express';
import { resolveEncryptionKey, type Config } from './config.js';
import type { Clock } from './core/clock.js';
import type { FaceEngine } from './core/face-engine.js';
import type { Models } from './core/models.js';
import { createOrm, type Orm } from './core/db/orm.js';
import { entities } from './core/entities.js';
import { isDatabaseUnavailable, outageReason } from './core/db/unavailable.js';
import { Notifications } from './core/db/notifications.js';
import { ownConnections, preparedQuery } from './core/db/prepared.js';
import { externalStore, openEmbeddedStore, type Store } from './core/db/store.js';
import { Core } from './core/index.js';
import { PgBossJobs } from './core/jobs.js';
import { parsePrices } from './core/billing/service.js';
import { seedDemoTenant, type DemoTenant } from './core/seed.js';
import { graphqlMiddleware } from './graph/server.js';
import { graphiqlPage } from './web/graphiql-page.js';
import { trpcMiddleware } from './graph/trpc.js';
import { listenFailure } from './listen.js';
import { createLogger, type Logger } from './logger.js';
import { createHttpApp } from './rest/app.js';
import { jsonBody } from './http/input.js';
import { traceQueries } from './core/tracing.js';
import { startTracing } from './tracing.js';

export interface Service {
  app: Express;
  core: Core;
  store: Store;
  logger: Logger;
  /** Credentials of the demo tenant when this start seeded it; null when it existed already. */
  demo: DemoTenant | null;
  /** Starts the background duties when the build deferred them (`dutiesLater`); a second call does nothing. */
  startDuties(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the ORM and makes one query; a database that cannot be reached fails the start with one line naming its host
 * and why.
 */
async function connectOrm(store: Store): Promise<Orm> {
  try {
    const orm = await createOrm(store.url, { entities, poolMax: store.poolMax, ownSessions: !store.embedded });
    await preparedQuery(orm, 'connect', 'select 1', []).catch(async (error: unknown) => {
      await orm.close();
      throw error;
    });
    return orm;
  } catch (error) {
    if (
      !isDatabaseUnavailable(error) &&
      !/password|authentication|role .* does not exist/i.test((error as Error).message)
    )
      throw error;
    const where = store.embedded
      ? 'the embedded PostgreSQL'
      : `the database at ${new URL(store.url).host} (DATABASE_URL)`;
    throw new Error(`cannot reach ${where}: ${outageReason(error).reason ?? (error as Error).message}`);
  }
}

export interface BuildOptions {
  logger?: Logger;
  clock?: Clock;
  /** The face engine checks call (default: the real models); tests not about the models pass a deterministic one. */
  faceEngine?: FaceEngine;
  /** Use this store instead of opening one from the config (tests). */
  store?: Store;
  /** The models (default: loaded in this process); a cluster worker passes the primary's (src/cluster.ts). */
  models?: Models;
  /** Leave the background duties to a later `startDuties()`: a cluster runs them in one worker only. */
  dutiesLater?: boolean;
}

/** How often expired idempotency records, rate counters and nonces are purged. */
const HOUSEKEEPING_MS = 10 * 60 * 1000;

/**
 * The work one process does for every instance: the job queue's handlers (webhooks, the sweep,
 * billing periods; only with `runJobs`) and the housekeeping purge. In a cluster one worker runs
 * them, not each (src/cluster.ts).
 */
function backgroundDuties(
  core: Core,
  storeUrl: string,
  runJobs: boolean,
  logger: Logger,
): { start(): Promise<void>; stop(): Promise<void> } {
  let started: Promise<void> | undefined;
  let jobs: PgBossJobs | undefined;
  let housekeeping: NodeJS.Timeout | undefined;
  return {
    start() {
      started ??= (async () => {
        if (runJobs) {
          jobs = await PgBossJobs.start(storeUrl, {
            onError: (error) => logger.warn({ err: error }, 'job queue error'),
          });
          await core.startJobs(jobs);
        }
        housekeeping = setInterval(() => {
          core.purgeExpired().catch((error) => logger.warn({ err: error }, 'purging expired records failed'));
        }, HOUSEKEEPING_MS);
        housekeeping.unref();
      })();
      return started;
    },
    async stop() {
      await started?.catch(() => undefined);
      clearInterval(housekeeping);
      if (!jobs) return;
      // Before the queue stops: first attempts started in this process finish or are cut by their timeout.
      await core.webhooks.settle();
      await jobs.stop();
    },
  };
}

/** Opens the store, migrates, seeds the demo tenant once, and builds the HTTP app. */
export async function buildService(config: Config, options: BuildOptions = {}): Promise<Service> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const store =
    options.store ??
    (config.databaseUrl
      ? externalStore(config.databaseUrl)
      : await openEmbeddedStore({ dataDir: config.dataDir, port: config.embeddedDbPort, publishUrl: true }));
  const closers: (() => Promise<void>)[] = [() => store.close()];
  const close = async () => {
    for (const closer of closers.reverse())
      await closer().catch((error) => logger.error({ err: error }, 'close failed'));
  };
  try {
    if (config.otlpTracesUrl) {
      // Shut down after everything else has closed: the last spans are flushed then.
      const tracing = await startTracing({
        tracesUrl: config.otlpTracesUrl,
        serviceName: config.otelServiceName,
        sampling: config.traceSampling,
      });
      closers.push(() => tracing.shutdown());
    }
    const orm = await connectOrm(store);
    closers.push(() => orm.close());
    if (config.otlpTracesUrl) traceQueries(orm.em.getConnection().getKnex());
    // On PostgreSQL, what one instance revokes reaches every instance's caches. The embedded store
    // is one instance: it caches while no outside session (`verity admin`) is connected (store.ts).
    const notifications = store.embedded
      ? store.feed
      : new Notifications(store.url, (error) =>
          logger.warn({ err: error }, 'notification connection lost; caches off until it is back'),
        );
    // The webhook dispatcher's claims and outcomes on two connections of its own (closed after it
    // settles): at 100 sessions a second they waited longer for a pooled connection than for the receiver.
    const webhookConnections = store.embedded
      ? undefined
      : ownConnections(store.url, {
          max: 2,
          applicationName: 'verity-webhooks',
          onError: (error) =>
            logger.warn({ err: error }, 'a webhook dispatcher connection was lost; the next statement reconnects'),
        });
    if (webhookConnections) closers.push(() => webhookConnections.close());
    const core = new Core({
      orm,
      notifications,
      webhookStatements: webhookConnections?.run,
      encryptionKey: await resolveEncryptionKey(config),
      clock: options.clock,
      faceEngine: options.faceEngine,
      models: options.models,
      allowInsecureCallbacks: config.allowInsecureCallbacks,
      prices: parsePrices(config.pricesJson),
      issuer: config.baseUrl,
      mail: { smtpUrl: config.smtpUrl, from: config.mailFrom },
      // The embedded store is one process by construction (data-dir lock), so counters can live in memory.
      rateLimit: {
        points: config.rateLimitPerMinute,
        windowSeconds: 60,
        store: store.embedded ? 'memory' : 'postgres',
      },
      hostedRateLimitPerMinute: config.hostedRateLimitPerMinute,
      sandboxDailyChecks: config.sandboxDailyChecks,
      webhookRetry: { baseSeconds: Math.max(1, config.webhookRetryBaseSeconds) },
      challengeGestures: config.challengeGestures,
      keyActivationSeconds: config.keyActivationSeconds,
      metricsProjectLabels: config.metricsProjectLabels,
      logger,
    });
    // Runs before the ORM closes: what this instance leased from wallets goes back.
    closers.push(() => core.billing.returnLeases());
    if (notifications instanceof Notifications) {
      closers.push(() => notifications.close());
      await notifications.start();
    }
    const applied = await core.migrate();
    if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
    await core.signingKeys.ensure();
    await core.credentialKeys.ensure();
    const demo = config.seedDemo ? await seedDemoTenant(core, config, { licenses: config.seedLicenses }) : null;
    const duties = backgroundDuties(core, store.url, config.runJobs, logger);
    // Stopped before the ORM and the store close (closers run in reverse order).
    closers.push(() => duties.stop());
    if (!options.dutiesLater) await duties.start();
    const graph = await graphqlMiddleware(core, logger);
    closers.push(graph.stop);
    closers.push(() => core.models.close());
    const { app } = createHttpApp({
      core,
      logger,
      probe: { parts: () => core.models.status(), requireParts: config.warmModels },
      baseUrl: config.baseUrl,
      jsonBodyLimit: config.jsonBodyLimit,
      metricsAccess: { token: config.metricsToken, public: config.metricsPublic },
      mounts: [
        { path: '/graphql', handlers: [graphiqlPage, ...jsonBody(config.jsonBodyLimit), graph.handler] },
        { path: '/trpc', handlers: [trpcMiddleware(core, logger)] },
      ],
    });
    return { app, core, store, logger, demo, startDuties: duties.start, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * pg-boss 10 marks a job done without awaiting it, so while PostgreSQL restarts that promise
 * rejects unhandled and would end the process. The job comes back after its expiry (our handlers
 * are idempotent): tolerate exactly that; anything else still ends the process.
 */
export function tolerateDatabaseOutages(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    if (isDatabaseUnavailable(reason)) {
      logger.warn({ database: outageReason(reason) }, 'database unavailable in a background task');
      return;
    }
    logger.fatal({ err: reason }, 'unhandled rejection');
    process.exit(1);
  });
}

/** How long a stopping instance waits for requests in flight (a live licence lookup may take a minute). */
const SHUTDOWN_GRACE_MS = 90_000;

export interface RunningService extends Service {
  server: Server;
  url: string;
}

/** `verity serve`: build, write demo.json on the first start, listen. */
export async function startService(config: Config, options: BuildOptions = {}): Promise<RunningService> {
  const service = await buildService(config, options);
  if (config.warmModels) {
    const started = Date.now();
    Promise.all([service.core.models.documents(), service.core.models.faces(), service.core.models.liveness()]).then(
      () => service.logger.info({ ms: Date.now() - started, ...service.core.models.status() }, 'models loaded'),
      (error) => service.logger.error({ err: error }, 'models failed to load'),
    );
  }
  const demoFile = path.join(config.dataDir, 'demo.json');
  if (service.demo) {
    await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    await writeFile(demoFile, `${JSON.stringify(service.demo, null, 2)}\n`, { mode: 0o600 });
    service.logger.info({ path: demoFile }, 'demo tenant seeded; its credentials are in this file');
    console.log(`Demo tenant credentials: ${demoFile}`);
  }
  const server = await new Promise<Server>((resolve, reject) => {
    // Express 5 hands a listen error to this callback too: without the check, a port in use
    // was reported as listening and the process stayed up, unbound.
    const listening = service.app.listen(config.port, config.host, (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  }).catch(async (error: NodeJS.ErrnoException) => {
    await service.close();
    throw listenFailure(error, config.port, config.host);
  });
  server.keepAliveTimeout = 65_000;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  service.logger.info({ url, store: service.store.embedded ? 'embedded' : 'postgres' }, 'verity is listening');
  return {
    ...service,
    server,
    url,
    async close() {
      // Stop taking requests and let in-flight ones finish: a keep-alive connection is closed as
      // soon as its request is answered (the next one would be refused anyway), and whatever is
      // still open after the grace period is cut. Then jobs stop and the store is released.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      server.on('request', (_req, res) => res.setHeader('Connection', 'close'));
      await closed;
      clearInterval(idle);
      clearTimeout(grace);
      await service.close();
    },
  };
}
