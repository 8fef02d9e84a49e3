import type { DocumentReader } from '../ml/document/index.js';
import type { FaceModels } from '../ml/faces/index.js';
import type { LivenessModels } from '../ml/liveness/index.js';
import { tfWasmFeatures } from '../ml/tf.js'; // light: TF.js itself loads only in loadTf()
import { inSpan } from './tracing.js';

/**
 * The models core calls, loaded once on first use (or warmed at start) and shared by every
 * request. Tests that are not about the models never load them.
 */
export interface Models {
  documents(): Promise<DocumentReader>;
  faces(): Promise<FaceModels>;
  liveness(): Promise<LivenessModels>;
  /** Which parts are loaded and the TF.js backend, for /readyz and the logs. */
  status(): Record<string, boolean | string>;
  close(): Promise<void>;
}

/** Loads once on first call and shares the result; a failed load is retried by the next call. */
function once<T>(load: () => Promise<T>): {
  get: () => Promise<T>;
  loaded: () => T | undefined;
  settled: () => Promise<T | undefined>;
} {
  let pending: Promise<T> | undefined;
  let value: T | undefined;
  return {
    get: () => {
      pending ??= load().then(
        (result) => (value = result),
        (error: unknown) => {
          pending = undefined;
          throw error;
        },
      );
      return pending;
    },
    loaded: () => value,
    /** What was loaded or is still loading (undefined when nothing was, or loading failed). */
    settled: async () => (pending ? pending.catch(() => undefined) : undefined),
  };
}

export function lazyModels(): Models {
  const documents = once(async () => (await import('../ml/document/index.js')).startDocumentWorker());
  const faces = once(async () => (await import('../ml/inference/index.js')).loadFaceModels());
  const liveness = once(async () => (await import('../ml/inference/index.js')).loadLivenessModels());
  const parts = [documents, faces, liveness];
  return {
    documents: documents.get,
    faces: faces.get,
    liveness: liveness.get,
    status() {
      // The nets run on the face worker threads: their TF.js says which WASM features it uses.
      const wasm = faces.loaded()?.wasm ?? tfWasmFeatures();
      return {
        ocr: documents.loaded() !== undefined,
        faces: faces.loaded() !== undefined,
        liveness: liveness.loaded() !== undefined,
        tf_backend: faces.loaded()?.backend ?? 'not loaded',
        ...(wasm ? { tf_wasm: wasm } : {}),
      };
    },
    async close() {
      await Promise.all(parts.map(async (part) => (await part.settled())?.close().catch(() => undefined)));
    },
  };
}

/**
 * The same models, each inference timed into `observe` (seconds, by model: document_read,
 * face_detect, face_describe, liveness, head_pose) and traced as an `inference <model>` span. The
 * time includes waiting for the process's inference queue: it is what a request pays.
 */
export function timedModels(models: Models, observe: (model: string, seconds: number) => void): Models {
  const time = <T>(model: string, work: () => Promise<T>): Promise<T> =>
    inSpan(`inference ${model}`, { attributes: { 'verity.model': model } }, async () => {
      const started = performance.now();
      try {
        return await work();
      } finally {
        observe(model, (performance.now() - started) / 1000);
      }
    });
  return {
    async documents() {
      const reader = await models.documents();
      return {
        read: (front, back) => time('document_read', () => reader.read(front, back)),
        close: () => reader.close(),
      };
    },
    async faces() {
      const faces = await models.faces();
      return {
        backend: faces.backend,
        wasm: faces.wasm,
        detectFaces: (image, options) => time('face_detect', () => faces.detectFaces(image, options)),
        describeLargestFace: (image, options) => time('face_describe', () => faces.describeLargestFace(image, options)),
        cropFace: (image, box, options) => faces.cropFace(image, box, options),
        close: () => faces.close(),
      };
    },
    async liveness() {
      const liveness = await models.liveness();
      return {
        assess: (image, options) => time('liveness', () => liveness.assess(image, options)),
        headPose: (image, face) => time('head_pose', () => liveness.headPose(image, face)),
        close: () => liveness.close(),
      };
    },
    status: () => models.status(),
    close: () => models.close(),
  };
}
