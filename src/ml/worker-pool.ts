import { parentPort, Worker, workerData } from 'node:worker_threads';
import { SerialQueue } from './queue.js';

// Inference on worker threads, so that the event loop stays free for HTTP while a model runs
// (onnxruntime-node's `run` and TF.js WASM both hold the calling thread until they finish). Each
// worker loads its own models and answers one request at a time; each request goes to the worker
// with the least queued work; a worker that dies fails its own queued requests and is replaced
// for later ones.

/** A request as sent: the pool adds its `id` (distributes over a union of requests). */
export type Unnumbered<Request> = Request extends unknown ? Omit<Request, 'id'> : never;

type Reply = { id: number; value: unknown } | { id: number; error: string };
type Status = { ready: true; info: unknown } | { ready: false; error: string };

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>;
}

export interface PoolOptions {
  /** Said in errors: "<name> worker exited ...". */
  name: string;
  /** The worker's module, the .ts source under a TS loader (tests, scripts), the built .js otherwise. */
  script: { from: string; name: string };
  count: number;
  workerData?: unknown;
}

function workerSpec(script: PoolOptions['script']): { url: URL; execArgv: string[] } {
  const fromSource = script.from.endsWith('.ts');
  const url = new URL(`./${script.name}.${fromSource ? 'ts' : 'js'}`, script.from);
  const loader = ['--import', '@swc-node/register/esm-register'];
  const execArgv =
    fromSource && !process.execArgv.includes(loader[1]!) ? [...process.execArgv, ...loader] : [...process.execArgv];
  return { url, execArgv };
}

export class WorkerPool<Request extends object> {
  private slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  /** Every reply still awaited, so close() can wait for them. */
  private outstanding = new Set<Promise<unknown>>();
  private keepAlive: NodeJS.Timeout | undefined;

  private constructor(
    private readonly options: PoolOptions,
    /** What the first worker said it loaded (e.g. its TF.js backend). */
    readonly info: unknown,
  ) {}

  /** Starts `count` workers and waits until each has loaded its models. */
  static async start<Request extends object>(options: PoolOptions): Promise<WorkerPool<Request>> {
    const started = await Promise.allSettled(Array.from({ length: options.count }, () => spawn(options)));
    const ready = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await Promise.all(ready.map((r) => r.slot.worker.terminate()));
      throw failed.reason;
    }
    const pool = new WorkerPool<Request>(options, ready[0]!.info);
    for (const { slot } of ready) pool.adopt(slot);
    return pool;
  }

  send(request: Request): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error(`${this.options.name} worker pool is closed`));
    if (this.slots.length === 0) return Promise.reject(new Error(`no ${this.options.name} worker is running`));
    return this.sendTo(
      this.slots.reduce((best, s) => (s.pending.size < best.pending.size ? s : best)),
      request,
    );
  }

  private sendTo(slot: Slot, request: Request): Promise<unknown> {
    const id = this.nextId++;
    const reply = new Promise<unknown>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ ...request, id });
    });
    // The workers are unref'd so that they never hold the process open; while a reply is awaited,
    // a timer does instead (a script awaiting only an inference would otherwise exit mid-request).
    this.keepAlive ??= setInterval(() => undefined, 2 ** 30);
    this.outstanding.add(reply);
    const forget = () => {
      this.outstanding.delete(reply);
      if (this.outstanding.size === 0 && this.keepAlive) {
        clearInterval(this.keepAlive);
        this.keepAlive = undefined;
      }
    };
    reply.then(forget, forget);
    return reply;
  }

  /** The same request to every worker (e.g. to load a model everywhere before it is needed). */
  broadcast(request: Request): Promise<unknown[]> {
    return Promise.all(this.slots.map((slot) => this.sendTo(slot, request)));
  }

  /** Waits for queued work, then stops every worker. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.outstanding]);
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
    this.slots = [];
  }

  private adopt(slot: Slot): void {
    this.slots.push(slot);
    slot.worker.on('error', () => undefined); // an uncaught error in the worker ends it: 'exit' below handles that
    slot.worker.on('message', (reply: Reply) => {
      const waiting = slot.pending.get(reply.id);
      if (!waiting) return;
      slot.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply.value);
    });
    slot.worker.on('exit', (code) => {
      this.slots = this.slots.filter((s) => s !== slot);
      for (const waiting of slot.pending.values())
        waiting.reject(new Error(`${this.options.name} worker exited with code ${code}`));
      slot.pending.clear();
      if (!this.closed) void this.replace();
    });
    // After the listeners: a first 'message' listener refs the worker's port again (Node's
    // setupPortReferencing), which would hold the process open for good.
    slot.worker.unref();
  }

  private async replace(): Promise<void> {
    try {
      const { slot } = await spawn(this.options);
      if (this.closed) await slot.worker.terminate();
      else this.adopt(slot);
    } catch {
      // requests go to the workers left; with none, send() refuses them
    }
  }
}

function spawn(options: PoolOptions): Promise<{ slot: Slot; info: unknown }> {
  const { url, execArgv } = workerSpec(options.script);
  const worker = new Worker(url, { execArgv, workerData: options.workerData });
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      void worker.terminate();
      reject(error);
    };
    worker.once('error', fail);
    worker.once('exit', (code) => reject(new Error(`${options.name} worker exited with code ${code} while loading`)));
    worker.once('message', (status: Status) => {
      worker.removeAllListeners('error');
      worker.removeAllListeners('exit');
      if (status.ready) resolve({ slot: { worker, pending: new Map() }, info: status.info });
      else fail(new Error(`${options.name} worker failed to load: ${status.error}`));
    });
  });
}

/**
 * The worker's side: loads its models with `load(workerData)`, says ready (with what it loaded),
 * then answers each request with `handle`, one at a time in arrival order.
 */
export async function serveRequests<Request extends { id: number }>(
  load: (data: unknown) => Promise<{ info: unknown; handle: (request: Request) => Promise<unknown> }>,
): Promise<void> {
  const port = parentPort;
  if (!port) return;
  try {
    const { info, handle } = await load(workerData);
    const queue = new SerialQueue();
    port.on('message', (request: Request) => {
      void queue
        .run(() => handle(request))
        .then(
          (value) => port.postMessage({ id: request.id, value } satisfies Reply),
          (error: unknown) =>
            port.postMessage({
              id: request.id,
              error: error instanceof Error ? error.message : String(error),
            } satisfies Reply),
        );
    });
    port.postMessage({ ready: true, info } satisfies Status);
  } catch (error) {
    port.postMessage({ ready: false, error: error instanceof Error ? error.message : String(error) } satisfies Status);
  }
}
