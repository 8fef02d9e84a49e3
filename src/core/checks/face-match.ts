import { z } from 'zod';
import type { AccountService } from '../accounts/service.js';
import { DomainError } from '../errors.js';
import type { FaceEngine } from '../face-engine.js';
import { DEFAULT_FACE_MATCH_THRESHOLD, faceSimilarity } from '../../ml/faces/match.js';
import type { DecodedImage } from '../../ml/image.js';
import { imageBytes, intakeImage } from './images.js';
import type { StandaloneCheck } from './pipeline.js';
import type { Check, CheckOutcome } from './types.js';

export const faceMatchInput = z.object({
  image1: imageBytes.optional(),
  image2: imageBytes.optional(),
  /** A caller's own operating point; bounded so a typo cannot turn the check off. */
  threshold: z.number().min(0.5).max(0.999).optional(),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
});
export type FaceMatchInput = z.infer<typeof faceMatchInput>;

type Prepared = { reference: DecodedImage | Float32Array; selfie: DecodedImage; threshold: number };

/** The descriptor of the largest usable face, or 422 no_face naming the image. */
export async function descriptorOf(engine: FaceEngine, image: DecodedImage, field: string): Promise<Float32Array> {
  const face = await engine.describeLargestFace(image);
  if (!face) throw new DomainError('no_face', `no usable face in ${field}: send a sharp, well-lit, front-facing photo`);
  return face.descriptor;
}

/**
 * POST /api/v2/face-match: the same person in both images? A symmetric comparison of 128-d face
 * descriptors; `similarity` >= `threshold` passes. It proves identity, not liveness. In account
 * mode the selfie is compared with the account's face reference (a descriptor, never an image).
 */
export function faceMatchCheck(engine: FaceEngine, accounts: AccountService): StandaloneCheck<FaceMatchInput, Prepared> {
  return {
    type: 'face_match',
    input: faceMatchInput,
    async prepare(input, context): Promise<Prepared> {
      if (context.mode === 'account') {
        const selfieBytes = input.image2 ?? input.image1;
        if (!selfieBytes) throw new DomainError('validation_error', 'send the selfie as image2', { data: { errors: { image2: 'required' } } });
        const reference = await accounts.faceReference(context.svcId!);
        if (!reference) throw new DomainError('face_not_enrolled');
        return { reference, selfie: await intakeImage(input.image2 ? 'image2' : 'image1', selfieBytes), threshold: input.threshold ?? DEFAULT_FACE_MATCH_THRESHOLD };
      }
      const errors: Record<string, string> = {};
      if (!input.image1) errors.image1 = 'required: the reference portrait';
      if (!input.image2) errors.image2 = 'required: the live selfie';
      if (Object.keys(errors).length) throw new DomainError('validation_error', 'image1 and image2 are both required', { data: { errors } });
      return { reference: await intakeImage('image1', input.image1!), selfie: await intakeImage('image2', input.image2!), threshold: input.threshold ?? DEFAULT_FACE_MATCH_THRESHOLD };
    },
    async execute(prepared): Promise<CheckOutcome> {
      return { check: await faceMatchOf(engine, prepared.reference, prepared.selfie, prepared.threshold), reason: 'face_mismatch' };
    },
  };
}

/** Compares a reference (image or stored descriptor) with a selfie; 422 no_face when either has none. */
export async function faceMatchOf(engine: FaceEngine, reference: DecodedImage | Float32Array, selfie: DecodedImage, threshold = DEFAULT_FACE_MATCH_THRESHOLD, names = { reference: 'image1', selfie: 'image2' }): Promise<Check> {
  const referenceDescriptor = reference instanceof Float32Array ? reference : await descriptorOf(engine, reference, names.reference);
  const selfieDescriptor = await descriptorOf(engine, selfie, names.selfie);
  const similarity = Math.round(faceSimilarity(referenceDescriptor, selfieDescriptor) * 10_000) / 10_000;
  const passed = similarity >= threshold;
  return {
    type: 'face_match',
    status: passed ? 'passed' : 'failed',
    score: similarity,
    data: { similarity, threshold },
    error: passed ? null : `the faces do not match (similarity ${similarity} below ${threshold})`,
  };
}
