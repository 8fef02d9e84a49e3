import { receivedImage, type DecodedImage } from '../image.js';
import { serveRequests } from '../worker-pool.js';
import type { DetectOptions } from './index.js';
import { faceRuntime } from './runtime.js';
import { faceWork } from './work.js';

// A face-inference worker thread (see pool.ts): loads its own TF.js backend and nets, says
// `ready`, then answers requests one at a time in arrival order.

export type FaceRequest = { id: number; op: 'detect'; image: DecodedImage; options?: DetectOptions } | { id: number; op: 'describe'; image: DecodedImage };

await serveRequests<FaceRequest>(async (data) => {
  const rt = await faceRuntime({ threads: (data as { threads?: number } | null)?.threads });
  const work = faceWork(rt);
  return {
    info: rt.backend,
    handle: (request) => (request.op === 'detect' ? work.detectFaces(receivedImage(request.image), request.options) : work.describeLargestFace(receivedImage(request.image))),
  };
});
