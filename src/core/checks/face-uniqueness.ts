import { z } from 'zod';
import type { AccountService } from '../accounts/service.js';
import { DomainError } from '../errors.js';
import type { FaceEngine } from '../face-engine.js';
import type { FaceIndex } from '../faces/face-index.js';
import { similarityFromDistance } from '../../ml/faces/match.js';
import { descriptorOf } from './face-match.js';
import { imageBytes, intakeImage } from './images.js';
import type { StandaloneCheck } from './pipeline.js';
import type { CheckOutcome } from './types.js';

export const faceUniquenessInput = z.object({
  image: imageBytes.optional(),
  /** Enrol the face when no one enrolled matches it. */
  enroll: z.boolean().optional(),
  /** The caller's label for the enrolled face (e.g. its user id); never a biometric. */
  reference: z.string().trim().min(1).max(200).optional(),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
});
export type FaceUniquenessInput = z.infer<typeof faceUniquenessInput>;

type Prepared = {
  source: { image: Awaited<ReturnType<typeof intakeImage>> } | { descriptor: Float32Array };
  enroll: boolean;
  reference: string | null;
};

const similarity = (distance: number) => Math.round(similarityFromDistance(distance) * 10_000) / 10_000;

/**
 * POST /api/v2/face-uniqueness: is this face already enrolled in the project? `passed` when no
 * enrolled face is the same person. With `enroll: true` a unique face is enrolled (descriptor
 * only, sealed) and its `face_id` returned; a duplicate is never enrolled. Account mode searches
 * with the account's face reference (no image needed) and labels the enrolment with the svc_id.
 */
export function faceUniquenessCheck(deps: {
  engine: FaceEngine;
  index: FaceIndex;
  accounts: AccountService;
}): StandaloneCheck<FaceUniquenessInput, Prepared> {
  return {
    type: 'face_uniqueness',
    input: faceUniquenessInput,
    async prepare(input, context): Promise<Prepared> {
      const enroll = input.enroll ?? false;
      if (input.image)
        return {
          source: { image: await intakeImage('image', input.image) },
          enroll,
          reference: input.reference ?? context.svcId ?? null,
        };
      if (context.mode !== 'account')
        throw new DomainError('validation_error', 'image (a selfie) is required', {
          data: { errors: { image: 'required' } },
        });
      const descriptor = await deps.accounts.stateFor(context).requireFaceReference(context.svcId!);
      return { source: { descriptor }, enroll, reference: input.reference ?? context.svcId };
    },
    async execute(prepared, context): Promise<CheckOutcome> {
      const descriptor =
        'descriptor' in prepared.source
          ? prepared.source.descriptor
          : await descriptorOf(deps.engine, prepared.source.image, 'image');
      const {
        matches,
        compared,
        enrolledId: faceId,
      } = await deps.index.search(
        { projectId: context.projectId, purpose: 'uniqueness', livemode: context.livemode },
        descriptor,
        prepared.enroll ? { enrollIfNew: { reference: prepared.reference } } : {},
      );
      const unique = matches.length === 0;
      return {
        check: {
          type: 'face_uniqueness',
          status: unique ? 'passed' : 'failed',
          score: unique ? 0 : similarity(matches[0]!.distance),
          data: {
            unique,
            matches: matches.map((m) => ({
              face_id: m.faceId,
              reference: m.reference,
              similarity: similarity(m.distance),
            })),
            enrolled: Boolean(faceId),
            face_id: faceId ?? null,
            candidates_compared: compared,
          },
          error: unique
            ? null
            : `the face is already enrolled as ${matches[0]!.faceId}${prepared.enroll ? '; not enrolled again' : ''}`,
        },
        reason: 'duplicate_face',
      };
    },
  };
}
