// Comparing two 128-d descriptors. face-api's recognition net (a dlib ResNet port) is trained so
// that the Euclidean distance between two photos of one person is small (dlib's rule of thumb:
// below 0.6). The API speaks in similarity, where the spec's default threshold is about 0.95, so
// the distance is mapped through a falling logistic:
//
//   similarity(d) = 1 / (1 + exp((d - MIDPOINT) / SPREAD))
//
// MIDPOINT and SPREAD are chosen (scripts/eval-faces.ts) so that similarity = 0.95 exactly at
// the decision distance MATCH_DISTANCE, i.e. MIDPOINT = MATCH_DISTANCE + SPREAD * ln(19).

/**
 * Which descriptor model and pipeline produced a stored descriptor. Descriptors of different kinds
 * cannot be compared, so every stored descriptor carries its kind and is only compared with its
 * own; a new model or chip pipeline gets a new kind, and faces of the old kind must be enrolled
 * again (migration Migration20261125100000_descriptor_kind marked those stored before it).
 */
export const FACE_DESCRIPTOR_KIND = 'face-api-128';

/** Distance at which same/different is decided (measured on the evaluation sets). */
export const MATCH_DISTANCE = 0.6;
/** Width of the logistic: how fast similarity falls around the decision distance. */
export const SPREAD = 0.05;
const MIDPOINT = MATCH_DISTANCE + SPREAD * Math.log(19);

/** similarity >= this means "same person"; equals similarity(MATCH_DISTANCE). */
export const DEFAULT_FACE_MATCH_THRESHOLD = 0.95;

export function faceDistance(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`descriptor sizes differ: ${a.length} vs ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    sum += d * d;
  }
  return Math.sqrt(sum);
}

export function similarityFromDistance(distance: number): number {
  return 1 / (1 + Math.exp((distance - MIDPOINT) / SPREAD));
}

export function faceSimilarity(a: Float32Array, b: Float32Array): number {
  return similarityFromDistance(faceDistance(a, b));
}
