import { z } from 'zod';
import type { AccountService } from '../accounts/service.js';
import { faceMatchOf } from '../checks/face-match.js';
import { idVerificationCheck } from '../checks/id-document.js';
import { imageBytes, intakeImage } from '../checks/images.js';
import { livenessOf } from '../checks/liveness.js';
import type { StandaloneCheck } from '../checks/pipeline.js';
import type { Check, CheckContext, CombinedOutcome } from '../checks/types.js';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import type { FaceEngine } from '../face-engine.js';
import type { Models } from '../models.js';
import type { DecodedImage } from '../../ml/image.js';
import { credentialCheck } from './check.js';
import type { ProviderRecord } from './views.js';
import type { CredentialRegistry } from './registry.js';

const field = z.string().trim().max(200);

export const kycCredentialInput = z.object({
  front_image: imageBytes.optional(),
  back_image: imageBytes.optional(),
  selfie: imageBytes.optional(),
  license_type: field.optional(),
  provider_code: field.optional(),
  license_state: field.optional(),
  state: field.optional(),
  license_number: field.optional(),
  license_no: field.optional(),
  npi: z
    .string()
    .trim()
    .regex(/^\d{10}$/, 'npi is 10 digits')
    .optional(),
  svc_access_token: z.string().min(1).max(200).optional(),
  svc_id: z.string().min(1).max(40).optional(),
});
export type KycCredentialInput = z.infer<typeof kycCredentialInput>;

interface Prepared {
  front: DecodedImage;
  back?: DecodedImage;
  selfie: DecodedImage;
  provider: ProviderRecord;
  number: string;
  npi?: string;
}

/**
 * POST /api/v2/kyc-credential: ID verification, liveness, face match (document portrait against
 * the selfie) and the licence lookup, where the licence is matched against the name read from
 * the ID, never a name the client sends. `passed` only when all four pass.
 */
export function kycCredentialCheck(deps: {
  orm: Orm;
  models: Models;
  faces: FaceEngine;
  accounts: AccountService;
  registry: CredentialRegistry;
}): StandaloneCheck<KycCredentialInput, Prepared> {
  const idCheck = idVerificationCheck(deps.models, deps.faces, deps.accounts);
  const licenceCheck = credentialCheck(deps);
  return {
    type: 'kyc_credential',
    input: kycCredentialInput,
    async prepare(input, context): Promise<Prepared> {
      if (context.mode === 'account') {
        throw new DomainError(
          'validation_error',
          "kyc-credential reads a fresh document and selfie; for an account's licence use credential-verification with svc_access_token",
        );
      }
      if (!input.front_image)
        throw new DomainError(
          'kyc_required',
          'front_image (the ID document) is required: ID verification comes before licence verification',
        );
      const errors: Record<string, string> = {};
      if (!input.selfie) errors.selfie = 'required';
      if (!(input.license_state ?? input.state)) errors.license_state = 'required (alias state)';
      if (!(input.license_number ?? input.license_no)) errors.license_number = 'required (alias license_no)';
      if (!(input.license_type ?? input.provider_code)) errors.license_type = 'required (alias provider_code)';
      if (Object.keys(errors).length)
        throw new DomainError(
          'validation_error',
          Object.entries(errors)
            .map(([k, v]) => `${k}: ${v}`)
            .join('; '),
          { data: { errors } },
        );
      const stateCode = (input.license_state ?? input.state)!;
      const code = (input.provider_code ?? input.license_type)!;
      // license_type may be a provider code or the provider's credential name.
      const provider = await deps.registry
        .resolveProvider(stateCode, { providerCode: code })
        .catch(async (error: unknown) => {
          if (input.provider_code || !(error instanceof DomainError)) throw error;
          return deps.registry.resolveProvider(stateCode, { credentialName: code });
        });
      return {
        front: await intakeImage('front_image', input.front_image),
        back: input.back_image ? await intakeImage('back_image', input.back_image) : undefined,
        selfie: await intakeImage('selfie', input.selfie!),
        provider,
        number: (input.license_number ?? input.license_no)!,
        npi: input.npi,
      };
    },
    async execute(prepared, context: CheckContext): Promise<CombinedOutcome> {
      const document = await idCheck
        .execute({ mode: 'fresh', front: prepared.front, back: prepared.back }, context)
        .catch((error: unknown) => {
          if (error instanceof DomainError && error.code === 'unprocessable')
            throw new DomainError(
              'kyc_required',
              'the ID document could not be read: ID verification is needed before licence verification',
            );
          throw error;
        });
      const idResult = (document as { check: Check }).check;
      const fields = idResult.data.fields as { full_name: string; date_of_birth: string };
      if (!fields.full_name)
        throw new DomainError(
          'kyc_required',
          'no name could be read from the ID: ID verification is needed before licence verification',
        );

      const liveness = await livenessOf(deps.faces, prepared.selfie);
      const faceMatch = await faceMatchOf(deps.faces, prepared.front, prepared.selfie, undefined, {
        reference: 'the document portrait',
        selfie: 'the selfie',
      }).catch((error: unknown): Check => {
        if (!(error instanceof DomainError && error.code === 'no_face')) throw error;
        return { type: 'face_match', status: 'failed', data: { similarity: 0, threshold: 0.95 }, error: error.message };
      });
      const licence = (await licenceCheck.execute(
        {
          provider: prepared.provider,
          number: prepared.number,
          npi: prepared.npi,
          clean: false,
          mode: 'verify',
          name: fields.full_name,
        },
        context,
      )) as { check: Check };
      const checks = [idResult, liveness, faceMatch, licence.check];
      const status = checks.some((check) => check.status === 'failed')
        ? 'failed'
        : checks.some((check) => check.status === 'review')
          ? 'review'
          : 'passed';
      const failedTypes = checks.filter((check) => check.status !== 'passed').map((check) => check.type);
      return {
        type: 'kyc_credential',
        status,
        identity: { name: fields.full_name, dob: fields.date_of_birth },
        checks,
        reason: failedTypes.length ? `not_passed:${failedTypes.join(',')}`.slice(0, 80) : undefined,
      };
    },
  };
}
