import type { DocumentReader } from '../ml/document/index.js';
import type { FaceModels } from '../ml/faces/index.js';
import type { LivenessModels } from '../ml/liveness/index.js';

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

export function lazyModels(): Models {
  let documents: Promise<DocumentReader> | undefined;
  let faces: Promise<FaceModels> | undefined;
  let liveness: Promise<LivenessModels> | undefined;
  let loadedLiveness = false;
  let facesBackend: string | undefined;
  let loadedDocuments = false;
  return {
    documents() {
      documents ??= import('../ml/document/index.js')
        .then((module) => module.createTesseractDocumentReader())
        .then((reader) => { loadedDocuments = true; return reader; })
        .catch((error) => { documents = undefined; throw error; });
      return documents;
    },
    faces() {
      faces ??= import('../ml/faces/index.js')
        .then((module) => module.loadFaceModels())
        .then((models) => { facesBackend = models.backend; return models; })
        .catch((error) => { faces = undefined; throw error; });
      return faces;
    },
    liveness() {
      liveness ??= import('../ml/liveness/index.js')
        .then((module) => module.loadLivenessModels())
        .then((models) => { loadedLiveness = true; return models; })
        .catch((error) => { liveness = undefined; throw error; });
      return liveness;
    },
    status() {
      return { ocr: loadedDocuments, faces: facesBackend !== undefined, liveness: loadedLiveness, tf_backend: facesBackend ?? 'not loaded' };
    },
    async close() {
      await Promise.all([documents?.then((reader) => reader.close()), faces?.then((models) => models.close()), liveness?.then((models) => models.close())].map((p) => p?.catch(() => undefined)));
    },
  };
}
