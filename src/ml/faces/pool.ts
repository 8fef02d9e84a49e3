import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { DecodedImage } from '../image.js';
import type { DetectedFace, DetectOptions, FaceDescription } from './index.js';
import type { FaceWork } from './work.js';
import type { FaceReply, FaceRequest, FaceWorkerStatus } from './worker.js';

type FaceRequestBody = FaceRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

// Face inference on worker threads, one TF.js backend each. TF.js WASM runs on one core per
// thread, so on 2 cores two workers describe the two images of a face match at once, and the
// event loop stays free for HTTP while they do. Each request goes to the worker with the least
// queued work; a worker that dies fails its own queued requests and is replaced for later ones.

/** Workers to start: VERITY_FACE_WORKERS, else one per core up to two. */
export function faceWorkerCount(): number {
  const configured = Number(process.env.VERITY_FACE_WORKERS);
  if (Number.isInteger(configured) && configured >= 1) return configured;
  return Math.min(2, os.availableParallelism());
}

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>;
}

/** Where the worker's code is: the .ts source under a TS loader (tests, scripts), the built .js otherwise. */
function workerSpec(): { url: URL; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(fromSource ? './worker.ts' : './worker.js', import.meta.url);
  const loader = ['--import', '@swc-node/register/esm-register'];
  const execArgv = fromSource && !process.execArgv.includes(loader[1]!) ? [...process.execArgv, ...loader] : [...process.execArgv];
  return { url, execArgv };
}

export class FaceWorkerPool implements FaceWork {
  private slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  /** Every reply still awaited, so close() can wait for them. */
  private outstanding = new Set<Promise<unknown>>();
  private keepAlive: NodeJS.Timeout | undefined;

  private constructor(
    readonly backend: string,
    private readonly threads: number,
  ) {}

  /** Starts `count` workers and waits until each has loaded and warmed its nets. */
  static async start(count = faceWorkerCount()): Promise<FaceWorkerPool> {
    // the cores shared out: each worker's native detector gets its share of threads
    const threads = Math.max(1, Math.floor(os.availableParallelism() / count));
    const started = await Promise.allSettled(Array.from({ length: count }, () => spawn(threads)));
    const ready = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await Promise.all(ready.map((r) => r.slot.worker.terminate()));
      throw failed.reason;
    }
    const pool = new FaceWorkerPool(ready[0]!.backend, threads);
    for (const { slot } of ready) pool.adopt(slot);
    return pool;
  }

  detectFaces(image: DecodedImage, options?: DetectOptions): Promise<DetectedFace[]> {
    return this.send({ op: 'detect', image, options }) as Promise<DetectedFace[]>;
  }

  describeLargestFace(image: DecodedImage): Promise<FaceDescription | null> {
    return this.send({ op: 'describe', image }) as Promise<FaceDescription | null>;
  }

  /** Waits for queued work, then stops every worker. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.outstanding]);
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
    this.slots = [];
  }

  private send(request: FaceRequestBody): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('face worker pool is closed'));
    if (this.slots.length === 0) return Promise.reject(new Error('no face worker is running'));
    const slot = this.slots.reduce((best, s) => (s.pending.size < best.pending.size ? s : best));
    const id = this.nextId++;
    const reply = new Promise<unknown>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ ...request, id });
    });
    // The workers are unref'd so that they never hold the process open; while a reply is awaited,
    // a timer does instead (a script awaiting only a face would otherwise exit mid-request).
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

  private adopt(slot: Slot): void {
    this.slots.push(slot);
    slot.worker.on('error', () => undefined); // an uncaught error in the worker ends it: 'exit' below handles that
    slot.worker.on('message', (reply: FaceReply) => {
      const waiting = slot.pending.get(reply.id);
      if (!waiting) return;
      slot.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply.value);
    });
    slot.worker.on('exit', (code) => {
      this.slots = this.slots.filter((s) => s !== slot);
      for (const waiting of slot.pending.values()) waiting.reject(new Error(`face worker exited with code ${code}`));
      slot.pending.clear();
      if (!this.closed) void this.replace();
    });
    // After the listeners: a first 'message' listener refs the worker's port again (Node's
    // setupPortReferencing), which would hold the process open for good.
    slot.worker.unref();
  }

  private async replace(): Promise<void> {
    try {
      const { slot } = await spawn(this.threads);
      if (this.closed) await slot.worker.terminate();
      else this.adopt(slot);
    } catch {
      // requests go to the workers left; with none, send() refuses them
    }
  }
}

function spawn(threads: number): Promise<{ slot: Slot; backend: string }> {
  const { url, execArgv } = workerSpec();
  const worker = new Worker(url, { execArgv, workerData: { threads } });
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      void worker.terminate();
      reject(error);
    };
    worker.once('error', fail);
    worker.once('exit', (code) => reject(new Error(`face worker exited with code ${code} while loading`)));
    worker.once('message', (status: FaceWorkerStatus) => {
      worker.removeAllListeners('error');
      worker.removeAllListeners('exit');
      if (status.ready) resolve({ slot: { worker, pending: new Map() }, backend: status.backend });
      else fail(new Error(`face worker failed to load: ${status.error}`));
    });
  });
}
