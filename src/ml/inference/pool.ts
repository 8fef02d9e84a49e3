import os from 'node:os';
import type { DecodedImage } from '../image.js';
import type { Box } from '../liveness/evidence.js';
import type { HeadPose, LivenessAssessment } from '../liveness/index.js';
import { type Unnumbered, WorkerPool } from '../worker-pool.js';
import type { DescribeOptions, DetectedFace, DetectOptions, FaceDescription } from '../faces/index.js';
import type { FaceWork } from '../faces/work.js';
import type { FaceRequest, FaceWorkerInfo } from './worker.js';

// Face inference, and liveness beside it, on worker threads (../worker-pool.ts), one TF.js backend each. TF.js WASM
// runs
// on one core per thread, so on 2 cores two workers describe the two images of a face match at
// once, and the event loop stays free for HTTP while they do.

/** Workers to start: VERITY_FACE_WORKERS, else one per core up to two. */
export function faceWorkerCount(): number {
  const configured = Number(process.env.VERITY_FACE_WORKERS);
  if (Number.isInteger(configured) && configured >= 1) return configured;
  return Math.min(2, os.availableParallelism());
}

export class FaceWorkerPool implements FaceWork {
  private constructor(readonly pool: WorkerPool<Unnumbered<FaceRequest>>) {}

  get backend(): string {
    return (this.pool.info as FaceWorkerInfo).backend;
  }

  /** The TF.js WASM features the workers use (simd, threads), when their backend is WASM. */
  get wasm(): string | undefined {
    return (this.pool.info as FaceWorkerInfo).wasm;
  }

  /** Starts `count` workers and waits until each has loaded and warmed its nets. */
  static async start(count = faceWorkerCount()): Promise<FaceWorkerPool> {
    // the cores shared out: each worker's native detector gets its share of threads
    const threads = Math.max(1, Math.floor(os.availableParallelism() / count));
    return new FaceWorkerPool(
      await WorkerPool.start({
        name: 'face',
        script: { from: import.meta.url, name: 'worker' },
        count,
        workerData: { threads },
      }),
    );
  }

  detectFaces(image: DecodedImage, options?: DetectOptions): Promise<DetectedFace[]> {
    return this.pool.send({ op: 'detect', image, options }) as Promise<DetectedFace[]>;
  }

  describeLargestFace(image: DecodedImage, options?: DescribeOptions): Promise<FaceDescription | null> {
    return this.pool.send({ op: 'describe', image, options }) as Promise<FaceDescription | null>;
  }

  assess(image: DecodedImage, frames: { image: DecodedImage; box: Box }[]): Promise<LivenessAssessment> {
    return this.pool.send({ op: 'assess', image, frames }) as Promise<LivenessAssessment>;
  }

  headPose(image: DecodedImage, box: Box): Promise<HeadPose | null> {
    return this.pool.send({ op: 'headPose', image, box }) as Promise<HeadPose | null>;
  }

  /** Loads and warms the liveness graphs on every worker now, not on its first liveness request. */
  async warmLiveness(): Promise<void> {
    await this.pool.broadcast({ op: 'warmLiveness' });
  }

  /** Waits for queued work, then stops every worker. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
