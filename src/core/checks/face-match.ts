import { z } from 'zod';
import type { AccountService } from '../accounts/service.js';
import { DomainError } from '../errors.js';
import type { FaceDescription, FaceEngine } from '../face-engine.js';
import { DEFAULT_FACE_MATCH_THRESHOLD, faceSimilarity } from '../../ml/faces/match.js';
import type { DecodedImage } from '../../ml/image.js';
import { imageBytes, intakeImage } from './images.js';
import type { StandaloneCheck } from './pipeline.js';
import type { Check, CheckOutcome } from './types.js';

export const faceMatchInput = z.object({
  image1: imageBytes
    .optional()
    .describe(
      'the reference portrait (base64, a data URL or a file); not sent in account mode, where the enrolled face is the reference',
    ),
  image2: imageBytes.optional().describe('the live selfie (base64, a data URL or a file)'),
  /** A caller's own operating point; bounded so a typo cannot turn the check off. */
  threshold: z.number().min(0.5).max(0.999).optional(),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
});
export type FaceMatchInput = z.infer<typeof faceMatchInput>;

type Prepared = { reference: DecodedImage | Float32Array; selfie: DecodedImage; threshold: number };

/** The descriptor of the largest usable face, or 422 no_face naming the image. */
export async function descriptorOf(engine: FaceEngine, image: DecodedImage, field: string): Promise<Float32Array> {
  return (await describedFace(engine, image, field)).descriptor;
}

/**
 * The largest usable face of an image, described (found the quick way when plainly upright), or 422 no_face naming the
 * image.
 */
export async function describedFace(engine: FaceEngine, image: DecodedImage, field: string): Promise<FaceDescription> {
  const face = await engine.describeLargestFace(image, { quick: true });
  if (!face) throw new DomainError('no_face', `no usable face in ${field}: send a sharp, well-lit, front-facing photo`);
  return face;
}

/** Below this landmark extent (pixels) a face is found and described, but too coarse to vouch for. */
export const MIN_MATCH_FACE_PIXELS = 48;
/**
 * Nose tip off the eye midpoint by more than this many eye distances: turned too far to vouch for (about 35 degrees).
 */
export const MAX_MATCH_TURN = 0.35;

/**
 * Inner-face detail (Laplacian variance over grey variance) below which a face is too blurred to vouch for. Chosen on
 * the bbt crops (sharp originals >= 0.049, strongly blurred copies <= 0.008; the geometric midpoint), reported on
 * obama-biden (docs/face-engine.md, "Quality gates").
 */
export const MIN_MATCH_SHARPNESS = 0.02;
/**
 * Share of the face's landmark bounds inside the image below which the frame cuts the face. Chosen on the bbt crops
 * (originals >= 0.89, copies cut through the face <= 0.84), reported on obama-biden.
 */
export const MIN_MATCH_VISIBLE = 0.85;

/**
 * Share of the inner face's grey levels on isolated histogram peaks above which the face is drawn or posterised, not
 * photographed. Chosen on the bbt crops (every photo copy, JPEG 15 included, <= 0.185; 57 of 58 cartoon and drawing
 * copies >= 0.2), reported on obama-biden (docs/face-engine.md, "Quality gates").
 */
export const MAX_PHOTO_TONAL_PEAKS = 0.2;
/**
 * Estimated age under which a face is a child's: it changes too fast, and the descriptor was trained on adults. No
 * child's photo is on disk to choose it by; adults' estimates start at 20 on bbt and 26 on obama-biden
 * (docs/face-engine.md).
 */
export const MIN_MATCH_ESTIMATED_AGE = 13;

/**
 * Why a face cannot be vouched for by a confident pass or fail, or null: too small, turned too
 * far from the camera, cut by the frame, too blurred, drawn rather than photographed, or a
 * child's. Such a comparison answers `review` with the reason.
 */
export function faceQualityProblem(face: FaceDescription): { reason: string; text: string } | null {
  const xs = face.landmarks.map((p) => p.x);
  const ys = face.landmarks.map((p) => p.y);
  const extent = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
  if (extent < MIN_MATCH_FACE_PIXELS)
    return {
      reason: 'face_too_small',
      text: `the face is ${Math.round(extent)} px across; at least ${MIN_MATCH_FACE_PIXELS} are needed to compare faces`,
    };
  const eye = (from: number) =>
    face.landmarks.slice(from, from + 6).reduce((a, p) => ({ x: a.x + p.x / 6, y: a.y + p.y / 6 }), { x: 0, y: 0 });
  const left = eye(36);
  const right = eye(42);
  const eyeDistance = Math.hypot(right.x - left.x, right.y - left.y);
  const nose = face.landmarks[30]!;
  // the nose tip's offset along the eye line from the eyes' midpoint, in eye distances
  const turn =
    eyeDistance > 0
      ? ((nose.x - (left.x + right.x) / 2) * (right.x - left.x) +
          (nose.y - (left.y + right.y) / 2) * (right.y - left.y)) /
        (eyeDistance * eyeDistance)
      : 1;
  if (Math.abs(turn) > MAX_MATCH_TURN)
    return {
      reason: 'face_turned',
      text: `the face is turned away from the camera (nose ${Math.abs(turn).toFixed(2)} eye distances off centre; at most ${MAX_MATCH_TURN})`,
    };
  const quality = face.quality;
  if (quality && quality.visible < MIN_MATCH_VISIBLE)
    return {
      reason: 'face_cut',
      text: `the frame cuts the face (${Math.round(quality.visible * 100)}% of it in the picture; at least ${MIN_MATCH_VISIBLE * 100}% is needed)`,
    };
  if (quality && quality.sharpness < MIN_MATCH_SHARPNESS)
    return {
      reason: 'face_blurred',
      text: `the face is too blurred to compare (detail ${quality.sharpness.toFixed(3)}; at least ${MIN_MATCH_SHARPNESS})`,
    };
  if (quality && quality.tonalPeaks > MAX_PHOTO_TONAL_PEAKS)
    return {
      reason: 'face_cartoon',
      text: `the face looks drawn or posterised, not photographed (${Math.round(quality.tonalPeaks * 100)}% of its tones flat; at most ${MAX_PHOTO_TONAL_PEAKS * 100}%)`,
    };
  if (face.estimatedAge !== undefined && face.estimatedAge < MIN_MATCH_ESTIMATED_AGE)
    return {
      reason: 'face_child',
      text: `the face looks like a child's (estimated age ${Math.round(face.estimatedAge)}); a child's face is not compared with confidence`,
    };
  return null;
}

/**
 * POST /api/v2/face-match: the same person in both images? A symmetric comparison of face
 * descriptors (512-d, match.ts); `similarity` >= `threshold` passes. It proves identity, not liveness. In account
 * mode the selfie is compared with the account's face reference (a descriptor, never an image).
 */
export function faceMatchCheck(
  engine: FaceEngine,
  accounts: AccountService,
): StandaloneCheck<FaceMatchInput, Prepared> {
  return {
    type: 'face_match',
    input: faceMatchInput,
    async prepare(input, context): Promise<Prepared> {
      if (context.mode === 'account') {
        const selfieBytes = input.image2 ?? input.image1;
        if (!selfieBytes)
          throw new DomainError('validation_error', 'send the selfie as image2', {
            data: { errors: { image2: 'required' } },
          });
        const reference = await accounts.stateFor(context).requireFaceReference(context.svcId!);
        return {
          reference,
          selfie: await intakeImage(input.image2 ? 'image2' : 'image1', selfieBytes),
          threshold: input.threshold ?? DEFAULT_FACE_MATCH_THRESHOLD,
        };
      }
      const errors: Record<string, string> = {};
      if (!input.image1) errors.image1 = 'required: the reference portrait';
      if (!input.image2) errors.image2 = 'required: the live selfie';
      if (Object.keys(errors).length)
        throw new DomainError('validation_error', 'image1 and image2 are both required', { data: { errors } });
      return {
        reference: await intakeImage('image1', input.image1!),
        selfie: await intakeImage('image2', input.image2!),
        threshold: input.threshold ?? DEFAULT_FACE_MATCH_THRESHOLD,
      };
    },
    async execute(prepared): Promise<CheckOutcome> {
      const check = await faceMatchOf(engine, prepared.reference, prepared.selfie, prepared.threshold);
      const quality = check.data.quality as { reason: string }[] | undefined;
      return { check, reason: quality?.[0]?.reason ?? 'face_mismatch' };
    },
  };
}

/** How a comparison names its two images in reasons: the route's field names unless a caller says otherwise. */
const IMAGE_NAMES = { reference: 'image1', selfie: 'image2' };

/** Compares a reference (image or stored descriptor) with a selfie; 422 no_face when either has none. */
export async function faceMatchOf(
  engine: FaceEngine,
  reference: DecodedImage | Float32Array,
  selfie: DecodedImage,
  threshold = DEFAULT_FACE_MATCH_THRESHOLD,
  names = IMAGE_NAMES,
): Promise<Check> {
  // Both images at once (the engine runs them on separate cores); the reference's error wins, as if in order.
  const [described, selfieFace] = await Promise.allSettled([
    reference instanceof Float32Array ? reference : describedFace(engine, reference, names.reference),
    describedFace(engine, selfie, names.selfie),
  ]);
  if (described.status === 'rejected') throw described.reason;
  if (selfieFace.status === 'rejected') throw selfieFace.reason;
  return faceMatchVerdict(described.value, selfieFace.value, threshold, names);
}

/**
 * The verdict on two described faces (the reference may be a stored descriptor): `review` with the
 * reasons when either face cannot be vouched for, else passed when the similarity reaches the threshold.
 */
export function faceMatchVerdict(
  reference: FaceDescription | Float32Array,
  selfie: FaceDescription,
  threshold = DEFAULT_FACE_MATCH_THRESHOLD,
  names = IMAGE_NAMES,
): Check {
  const referenceFace = reference instanceof Float32Array ? null : reference;
  const referenceDescriptor = referenceFace ? referenceFace.descriptor : (reference as Float32Array);
  const similarity = Math.round(faceSimilarity(referenceDescriptor, selfie.descriptor) * 10_000) / 10_000;
  const problems = [
    ...(referenceFace ? [[names.reference, faceQualityProblem(referenceFace)] as const] : []),
    [names.selfie, faceQualityProblem(selfie)] as const,
  ].filter((p): p is readonly [string, { reason: string; text: string }] => p[1] !== null);
  if (problems.length) {
    return {
      type: 'face_match',
      status: 'review',
      score: similarity,
      data: { similarity, threshold, quality: problems.map(([field, p]) => ({ image: field, reason: p.reason })) },
      error: problems.map(([field, p]) => `${field}: ${p.text}`).join('; '),
    };
  }
  const passed = similarity >= threshold;
  return {
    type: 'face_match',
    status: passed ? 'passed' : 'failed',
    score: similarity,
    data: { similarity, threshold },
    error: passed ? null : `the faces do not match (similarity ${similarity} below ${threshold})`,
  };
}
