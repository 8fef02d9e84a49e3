import { parentPort, workerData } from 'node:worker_threads';
import type { DecodedImage } from '../image.js';
import type { DetectOptions } from './index.js';
import { SerialQueue } from './queue.js';
import { faceRuntime } from './runtime.js';
import { faceWork } from './work.js';

// A face-inference worker thread (see pool.ts): loads its own TF.js backend and nets, says
// `ready`, then answers requests one at a time in arrival order.

export type FaceRequest = { id: number; op: 'detect'; image: DecodedImage; options?: DetectOptions } | { id: number; op: 'describe'; image: DecodedImage };
export type FaceReply = { id: number; value: unknown } | { id: number; error: string };
export type FaceWorkerStatus = { ready: true; backend: string } | { ready: false; error: string };

const port = parentPort;
if (port) {
  try {
    const rt = await faceRuntime({ threads: (workerData as { threads?: number } | null)?.threads });
    const work = faceWork(rt);
    const queue = new SerialQueue();
    port.on('message', (request: FaceRequest) => {
      // a Buffer arrives as a plain Uint8Array; sharp wants a Buffer
      const bytes = Buffer.from(request.image.bytes.buffer, request.image.bytes.byteOffset, request.image.bytes.byteLength);
      const image = { ...request.image, bytes };
      void queue
        .run<unknown>(() => (request.op === 'detect' ? work.detectFaces(image, request.options) : work.describeLargestFace(image)))
        .then(
          (value) => port.postMessage({ id: request.id, value } satisfies FaceReply),
          (error: unknown) => port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies FaceReply),
        );
    });
    port.postMessage({ ready: true, backend: rt.backend } satisfies FaceWorkerStatus);
  } catch (error) {
    port.postMessage({ ready: false, error: error instanceof Error ? error.message : String(error) } satisfies FaceWorkerStatus);
  }
}
