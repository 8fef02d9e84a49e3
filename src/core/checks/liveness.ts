import { z } from 'zod';
import { DomainError } from '../errors.js';
import type { FaceEngine } from '../face-engine.js';
import type { DecodedImage } from '../../ml/image.js';
import { imageBytes, intakeImage } from './images.js';
import type { StandaloneCheck } from './pipeline.js';
import type { Check, CheckOutcome } from './types.js';

export const livenessInput = z.object({
  image: imageBytes.optional(),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
});
export type LivenessInput = z.infer<typeof livenessInput>;

/** Passive liveness of one selfie as a Check: `live_score` 1 live, 0 spoof, below 0 no face. */
export async function livenessOf(engine: FaceEngine, selfie: DecodedImage): Promise<Check> {
  const assessment = await engine.assessLiveness(selfie);
  const several = assessment.faceCount > 1 ? ` ${assessment.faceCount} faces in the image; the largest was judged.` : '';
  const error =
    assessment.liveScore === 1
      ? several.trim() || null
      : assessment.liveScore === 0
        ? `the selfie looks like a photo of a photo or a screen: ${assessment.evidence
            .filter((item) => !item.passed)
            .map((item) => item.name)
            .join(', ')}.${several}`
        : 'no usable face in the selfie';
  return {
    type: 'liveness',
    status: assessment.liveScore === 1 ? 'passed' : 'failed',
    score: assessment.liveScore,
    data: { live_score: assessment.liveScore, result: assessment.result, scores: assessment.scores, evidence: assessment.evidence },
    error,
  };
}

/** POST /api/v2/liveness: passive, no user action; passes only when `live_score` is 1. */
export function livenessCheck(engine: FaceEngine): StandaloneCheck<LivenessInput, DecodedImage> {
  return {
    type: 'liveness',
    input: livenessInput,
    async prepare(input) {
      if (!input.image) throw new DomainError('validation_error', 'image (the selfie) is required', { data: { errors: { image: 'required' } } });
      return intakeImage('image', input.image);
    },
    async execute(selfie): Promise<CheckOutcome> {
      const check = await livenessOf(engine, selfie);
      if (check.data.live_score === -1) throw new DomainError('no_face', 'no usable face in the selfie: send a sharp, well-lit, front-facing photo');
      return { check, reason: check.status === 'passed' ? undefined : 'spoof' };
    },
  };
}
