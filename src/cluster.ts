import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import type { Config } from './config.js';
import type { DocumentReader } from './ml/document/index.js';
import type { FaceModels } from './ml/faces/index.js';
import type { LivenessModels } from './ml/liveness/index.js';
import type { Models } from './core/models.js';
import type { Logger } from './logger.js';

// `verity serve --workers N`: a primary process and N HTTP workers on one port (node:cluster).
// The primary serves no HTTP and opens no database: it forks the workers, replaces one that
// dies, tells one of them to run the background duties (the job queue, the housekeeping), and
// holds the models, which the workers call over the cluster's IPC channel, so N workers keep one
// copy of them. SIGHUP replaces the workers one at a time; SIGTERM drains them all. Light at the
// top: the CLI imports this before it knows which role the process has.

/** More workers than this is a typo, not a machine. */
export const MAX_WORKERS = 64;

/** The model parts and the calls a worker may make on each (`load` loads the part and says what it loaded). */
const MODEL_CALLS = {
  documents: ['read'],
  faces: ['detectFaces', 'describeLargestFace', 'cropFace'],
  liveness: ['assess', 'headPose'],
} as const;
type Part = keyof typeof MODEL_CALLS;

interface ModelCall {
  verity: 'model';
  id: number;
  part: Part;
  method: string;
  args: unknown[];
}
interface ModelReply {
  verity: 'model-reply';
  id: number;
  value?: unknown;
  error?: { name: string; message: string };
}
/** What the primary tells a worker: run the background duties, or finish what is in flight and exit. */
type Order = { verity: 'duty' } | { verity: 'stop' };

const isMessage = <T extends { verity: string }>(message: unknown, kind: T['verity']): message is T =>
  typeof message === 'object' && message !== null && (message as { verity?: unknown }).verity === kind;

/**
 * How many HTTP workers `verity serve` runs: `--workers`, else VERITY_WORKERS, else one per core
 * on PostgreSQL and one on the embedded store. More than one on the embedded store is refused:
 * PGlite lives in one process and answers one statement at a time, so workers would queue on it,
 * and its caches and rate counters are that process's own.
 */
export function workerCount(given: string | undefined, config: Pick<Config, 'databaseUrl' | 'workers'>): number {
  const source = given !== undefined ? '--workers' : 'VERITY_WORKERS';
  const value = given ?? config.workers;
  if (value === undefined) return config.databaseUrl ? os.availableParallelism() : 1;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > MAX_WORKERS)
    throw new Error(`${source} takes a whole number from 1 to ${MAX_WORKERS}, got "${value}"`);
  if (count > 1 && !config.databaseUrl) {
    throw new Error(
      `${source} ${count} needs PostgreSQL (DATABASE_URL): the embedded store lives in one process. Run one worker (--workers 1) or set DATABASE_URL`,
    );
  }
  return count;
}

/**
 * True in a process the primary forked. Such a process ignores SIGHUP from here on: a terminal's
 * hangup reaches the whole process group, and the primary answers it by replacing the workers.
 */
export function isClusterWorker(): boolean {
  if (cluster.isWorker && process.listenerCount('SIGHUP') === 0) process.on('SIGHUP', () => undefined);
  return cluster.isWorker;
}

// ---------------------------------------------------------------------------------------------
// The worker's side

/** The models as a worker sees them: each call runs in the primary, which loads each part once for all workers. */
export function primaryModels(): Models {
  let nextId = 1;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  process.on('message', (message: unknown) => {
    if (!isMessage<ModelReply>(message, 'model-reply')) return;
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(Object.assign(new Error(message.error.message), { name: message.error.name }));
    else waiting.resolve(message.value);
  });
  // Each caller below knows the type its call answers (the primary runs the same interface).
  const call = <T>(part: Part, method: string, args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      const sent = process.send?.(
        { verity: 'model', id, part, method, args } satisfies ModelCall,
        undefined,
        undefined,
        (error: Error | null) => {
          if (!error) return;
          pending.delete(id);
          reject(error);
        },
      );
      if (!sent && !process.connected) {
        pending.delete(id);
        reject(new Error('the cluster primary is gone: no models'));
      }
    });
  const loaded: Partial<Record<Part, unknown>> = {};
  const load = async (part: Part) => (loaded[part] ??= await call(part, 'load', []));
  const faces = () => loaded.faces as { backend: string; wasm: string | undefined } | undefined;
  return {
    async documents(): Promise<DocumentReader> {
      await load('documents');
      return { read: (front, back) => call('documents', 'read', [front, back]), close: async () => {} };
    },
    async faces(): Promise<FaceModels> {
      const { backend, wasm } = (await load('faces')) as { backend: string; wasm: string | undefined };
      return {
        backend,
        wasm,
        detectFaces: (image, options) => call('faces', 'detectFaces', [image, options]),
        describeLargestFace: (image, options) => call('faces', 'describeLargestFace', [image, options]),
        cropFace: (image, box, options) => call('faces', 'cropFace', [image, box, options]),
        close: async () => {},
      };
    },
    async liveness(): Promise<LivenessModels> {
      await load('liveness');
      return {
        assess: (image, options) => call('liveness', 'assess', [image, options]),
        headPose: (image, face) => call('liveness', 'headPose', [image, face]),
        close: async () => {},
      };
    },
    status: () => ({
      ocr: loaded.documents !== undefined,
      faces: loaded.faces !== undefined,
      liveness: loaded.liveness !== undefined,
      tf_backend: faces()?.backend ?? 'not loaded',
      ...(faces()?.wasm ? { tf_wasm: faces()!.wasm! } : {}),
    }),
    // The models are the primary's: it closes them once every worker has stopped.
    close: async () => {},
  };
}

/**
 * A worker: serves HTTP on the shared port with the primary's models, runs the background duties
 * when the primary says so, and on `stop` (or SIGTERM) finishes the requests in flight and exits.
 */
export async function runWorker(config: Config): Promise<void> {
  const [{ startService, tolerateDatabaseOutages }, { createLogger }] = await Promise.all([
    import('./main.js'),
    import('./logger.js'),
  ]);
  const logger = createLogger(config.logLevel, undefined, { pid: process.pid, worker: cluster.worker?.id });
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let stopping = false;
  let duty = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    logger.info('worker stopping');
    await service?.close();
    process.exit(0);
  };
  const startDuties = () => {
    service?.startDuties().then(
      () => logger.info('background duties started in this worker'),
      // Exiting hands the duties to another worker: the primary reassigns them and forks a replacement.
      (error: unknown) => {
        logger.error({ err: error }, 'background duties failed to start; exiting so another worker takes them');
        process.exit(1);
      },
    );
  };
  process.on('message', (message: unknown) => {
    if (isMessage<Order>(message, 'stop')) void stop();
    if (isMessage<Order>(message, 'duty')) {
      duty = true;
      startDuties();
    }
  });
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  tolerateDatabaseOutages(logger);
  service = await startService(config, { logger, models: primaryModels(), dutiesLater: true });
  // A stop before this point exited at once (nothing was served yet).
  if (duty) startDuties();
}

// ---------------------------------------------------------------------------------------------
// The primary's side

/** Runs one model call for a worker and answers it; a worker that went away meanwhile gets nothing. */
async function answerModelCall(models: Models, worker: Worker, call: ModelCall): Promise<void> {
  let reply: ModelReply;
  try {
    const allowed: readonly string[] | undefined = Object.hasOwn(MODEL_CALLS, call.part)
      ? MODEL_CALLS[call.part]
      : undefined;
    if (!allowed || (call.method !== 'load' && !allowed.includes(call.method)))
      throw new Error(`no model call ${call.part}.${call.method}`);
    const part = (await models[call.part]()) as unknown as Record<string, unknown>;
    const value =
      call.method === 'load'
        ? { backend: part.backend, wasm: part.wasm }
        : await (part[call.method] as (...args: unknown[]) => Promise<unknown>)(...call.args);
    reply = { verity: 'model-reply', id: call.id, value };
  } catch (error) {
    reply = {
      verity: 'model-reply',
      id: call.id,
      error: { name: (error as Error).name ?? 'Error', message: (error as Error).message ?? String(error) },
    };
  }
  if (worker.isConnected()) worker.send(reply, undefined, () => undefined);
}

/** A worker that dies within this long of its fork is replaced after a pause, not in a tight loop. */
const CRASH_LOOP_MS = 10_000;
const RESPAWN_PAUSE_MS = 1000;

class Primary {
  /** The worker serving each slot (undefined while its replacement starts). */
  private readonly slots: (Worker | undefined)[] = [];
  /** Workers told to stop: their exit is expected. */
  private readonly retiring = new Set<Worker>();
  private dutyHolder?: Worker;
  private readonly forkedAt = new WeakMap<Worker, number>();
  private stopping = false;
  private reloading = false;

  constructor(
    private readonly count: number,
    private readonly models: Models,
    private readonly logger: Logger,
  ) {}

  /**
   * Forks every worker; the first alone, so that it migrates and seeds before the others start. Rejects if one exits
   * before it listens.
   */
  async start(): Promise<void> {
    cluster.on('exit', (worker, code, signal) => this.exited(worker, code, signal));
    this.slots[0] = await this.fork();
    const rest = await Promise.all(Array.from({ length: this.count - 1 }, () => this.fork()));
    rest.forEach((worker, index) => {
      this.slots[index + 1] = worker;
    });
    this.assignDuty();
  }

  /** A new worker, once it listens; rejects if it exits first. */
  private fork(): Promise<Worker> {
    const worker = cluster.fork();
    this.forkedAt.set(worker, Date.now());
    worker.on('message', (message: unknown) => {
      if (isMessage<ModelCall>(message, 'model')) void answerModelCall(this.models, worker, message);
    });
    return new Promise((resolve, reject) => {
      const early = (code: number | null, signal: string | null) =>
        reject(new Error(`worker ${worker.process.pid} exited (${signal ?? `code ${code}`}) before it listened`));
      worker.once('exit', early);
      worker.once('listening', () => {
        worker.off('exit', early);
        resolve(worker);
      });
    });
  }

  /** One live worker runs the background duties: the first of the slots, when none does. */
  private assignDuty(): void {
    if (this.stopping || (this.dutyHolder && !this.dutyHolder.isDead() && !this.retiring.has(this.dutyHolder))) return;
    const next = this.slots.find(
      (worker) => worker && !worker.isDead() && !this.retiring.has(worker) && worker.isConnected(),
    );
    this.dutyHolder = next;
    if (!next) return;
    next.send({ verity: 'duty' } satisfies Order);
    this.logger.info({ worker_pid: next.process.pid }, 'background duties assigned');
  }

  private exited(worker: Worker, code: number | null, signal: string | null): void {
    const expected = this.stopping || this.retiring.delete(worker);
    if (this.dutyHolder === worker) {
      this.dutyHolder = undefined;
      this.assignDuty();
    }
    const slot = this.slots.indexOf(worker);
    if (expected || slot < 0) return;
    this.logger.error({ worker_pid: worker.process.pid, code, signal }, 'a worker died; starting another');
    this.slots[slot] = undefined;
    this.respawn(slot, worker);
  }

  /** Fills `slot` again, pausing first when the worker before died young (a crash loop). */
  private respawn(slot: number, dead: Worker | undefined): void {
    const young = !dead || Date.now() - (this.forkedAt.get(dead) ?? 0) < CRASH_LOOP_MS;
    setTimeout(
      () => {
        if (this.stopping) return;
        this.fork().then(
          (worker) => {
            if (this.stopping) return void this.retire(worker);
            this.slots[slot] = worker;
            this.assignDuty();
          },
          (error: Error) => {
            this.logger.error({ err: error }, 'a replacement worker failed to start; trying again');
            this.respawn(slot, undefined);
          },
        );
      },
      young ? RESPAWN_PAUSE_MS : 0,
    ).unref();
  }

  /** Tells `worker` to finish its requests and exit; resolves when it has. */
  private retire(worker: Worker): Promise<void> {
    this.retiring.add(worker);
    if (worker.isDead()) return Promise.resolve();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    if (worker.isConnected()) worker.send({ verity: 'stop' } satisfies Order, undefined, () => undefined);
    return exited;
  }

  /**
   * SIGHUP: each worker in turn is replaced by a fresh fork (the code on disk now), which takes
   * connections before the old one stops taking them and drains: no request is refused. A fresh
   * worker that fails to start stops the reload; the workers not yet replaced keep serving.
   */
  async reload(): Promise<void> {
    if (this.stopping) return;
    if (this.reloading) return void this.logger.warn('a reload is already under way');
    this.reloading = true;
    this.logger.info({ workers: this.count }, 'reloading the workers one at a time');
    try {
      for (let slot = 0; slot < this.count; slot += 1) {
        const fresh = await this.fork();
        const old = this.slots[slot];
        if (this.stopping) return void (await this.retire(fresh));
        this.slots[slot] = fresh;
        if (old) {
          // The duties move to a worker that stays before the one holding them drains.
          if (this.dutyHolder === old) this.retiring.add(old);
          this.assignDuty();
          await this.retire(old);
        }
      }
      this.logger.info('reload done');
    } catch (error) {
      this.logger.error({ err: error }, 'reload stopped; the workers not yet replaced keep serving');
    } finally {
      this.reloading = false;
    }
  }

  /** Every worker drains and exits. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await Promise.all(Object.values(cluster.workers ?? {}).map((worker) => (worker ? this.retire(worker) : undefined)));
  }
}

/**
 * `verity serve` with more than one worker: runs until SIGTERM or SIGINT (every worker drains,
 * then exit 0); SIGHUP replaces the workers one at a time. Rejects when the first start fails
 * (the worker has said why on stderr).
 */
export async function runPrimary(config: Config, count: number): Promise<void> {
  const [{ lazyModels }, { createLogger }] = await Promise.all([import('./core/models.js'), import('./logger.js')]);
  const logger = createLogger(config.logLevel, undefined, { pid: process.pid, role: 'primary' });
  // Structured clone on the IPC channel: images and descriptors travel as bytes, not JSON arrays.
  cluster.setupPrimary({ serialization: 'advanced' });
  const models = lazyModels();
  const primary = new Primary(count, models, logger);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await primary.stop();
    await models.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGHUP', () => void primary.reload());
  if (config.warmModels) {
    const started = Date.now();
    Promise.all([models.documents(), models.faces(), models.liveness()]).then(
      () => logger.info({ ms: Date.now() - started, ...models.status() }, 'models loaded'),
      (error) => logger.error({ err: error }, 'models failed to load'),
    );
  }
  try {
    await primary.start();
  } catch {
    // The worker has said why on stderr, in one line; models still loading are not waited for.
    await primary.stop();
    process.exit(1);
  }
  logger.info({ workers: count, port: config.port }, 'cluster is serving');
}
