import { receivedImage, type DecodedImage } from '../image.js';
import type { Box } from '../liveness/evidence.js';
import { livenessWork, type LivenessWork } from '../liveness/index.js';
import { livenessGraphs } from '../liveness/models.js';
import { tfWasmFeatures } from '../tf.js';
import { serveRequests } from '../worker-pool.js';
import type { DescribeOptions, DetectOptions } from '../faces/index.js';
import { faceRuntime } from '../faces/runtime.js';
import { faceWork } from '../faces/work.js';

// A face-inference worker thread (see pool.ts): loads its own TF.js backend and nets, says
// `ready`, then answers requests one at a time in arrival order. The liveness graphs are loaded
// on the first liveness request (or `warmLiveness`), on the same TF.js backend.

export type FaceRequest =
  | { id: number; op: 'detect'; image: DecodedImage; options?: DetectOptions }
  | { id: number; op: 'describe'; image: DecodedImage; options?: DescribeOptions }
  | { id: number; op: 'assess'; image: DecodedImage; frames: { image: DecodedImage; box: Box }[] }
  | { id: number; op: 'headPose'; image: DecodedImage; box: Box }
  | { id: number; op: 'warmLiveness' };

/** What a face worker says it loaded: its TF.js backend and, on WASM, the features it uses. */
export interface FaceWorkerInfo {
  backend: string;
  wasm: string | undefined;
}

await serveRequests<FaceRequest>(async (data) => {
  const rt = await faceRuntime({ threads: (data as { threads?: number } | null)?.threads });
  const work = faceWork(rt);
  let liveness: Promise<LivenessWork> | undefined;
  const loadLiveness = () => {
    liveness ??= livenessGraphs().then((graphs) => livenessWork(graphs, work.detectFaces));
    liveness.catch(() => {
      liveness = undefined; // a failed load is retried by the next request
    });
    return liveness;
  };
  return {
    info: { backend: rt.backend, wasm: tfWasmFeatures() } satisfies FaceWorkerInfo,
    handle: async (request) => {
      switch (request.op) {
        case 'detect':
          return work.detectFaces(receivedImage(request.image), request.options);
        case 'describe':
          return work.describeLargestFace(receivedImage(request.image), request.options);
        case 'assess':
          return (await loadLiveness()).assess(
            receivedImage(request.image),
            request.frames.map((frame) => ({ image: receivedImage(frame.image), box: frame.box })),
          );
        case 'headPose':
          return (await loadLiveness()).headPose(receivedImage(request.image), request.box);
        case 'warmLiveness':
          await loadLiveness();
          return null;
      }
    },
  };
});
