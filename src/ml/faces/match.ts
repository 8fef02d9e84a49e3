// Comparing two face descriptors. The descriptor (descriptor-onnx.ts) is a unit vector, trained
// so that two photos of one person have a high cosine. The API speaks in similarity, where the
// spec's default threshold is about 0.95, so the cosine is mapped through a rising logistic:
//
//   similarity(cos) = 1 / (1 + exp(-(cos - MIDPOINT) / SPREAD))
//
// with MIDPOINT = MATCH_COSINE - SPREAD * ln(19), so that similarity = 0.95 exactly at the
// decision cosine MATCH_COSINE (fitted by `npm run eval:faces`; docs/face-engine.md, "Face match: the descriptor"). For
// unit
// vectors the Euclidean distance is sqrt(2 - 2 cos): the face register and bursts compare
// distances, at MATCH_DISTANCE, which is the same decision.

/**
 * Which descriptor model and pipeline produced a stored descriptor. Descriptors of different kinds
 * cannot be compared, so every stored descriptor carries its kind and is only compared with its
 * own; a new model or chip pipeline gets a new kind, and faces of the old kind are enrolled again
 * (the old kind was 'face-api-128', dlib's 128-d descriptor through face-api).
 */
export const FACE_DESCRIPTOR_KIND = 'fr-feature-512';
/** Values in one descriptor of that kind. */
export const DESCRIPTOR_DIMENSIONS = 512;

/** Cosine at which same/different is decided: above every impostor pair of the pooled sets, with margin. */
export const MATCH_COSINE = 0.5;
/** Width of the logistic, in cosine: how fast similarity rises around the decision cosine. */
export const SPREAD = 0.04;
const MIDPOINT = MATCH_COSINE - SPREAD * Math.log(19);
/** The Euclidean distance between unit descriptors at MATCH_COSINE. */
export const MATCH_DISTANCE = Math.sqrt(2 - 2 * MATCH_COSINE);

/** similarity >= this means "same person"; equals similarityFromCosine(MATCH_COSINE). */
export const DEFAULT_FACE_MATCH_THRESHOLD = 0.95;

export function faceCosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`descriptor sizes differ: ${a.length} vs ${b.length}`);
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return dot / (Math.sqrt(aa * bb) || 1);
}

export function faceDistance(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`descriptor sizes differ: ${a.length} vs ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    sum += d * d;
  }
  return Math.sqrt(sum);
}

export function similarityFromCosine(cosine: number): number {
  return 1 / (1 + Math.exp(-(cosine - MIDPOINT) / SPREAD));
}

/** The similarity of two unit descriptors `distance` apart. */
export function similarityFromDistance(distance: number): number {
  return similarityFromCosine(1 - (distance * distance) / 2);
}

export function faceSimilarity(a: Float32Array, b: Float32Array): number {
  return similarityFromCosine(faceCosine(a, b));
}

/** A copy scaled to unit length, so that the cosine of two descriptors is their dot product. */
export function normalised(v: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum) || 1;
  return Float32Array.from(v, (x) => x / norm);
}
