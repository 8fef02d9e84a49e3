import { z } from 'zod';
import { antispoofInput } from '../checks/antispoof.js';
import { idVerificationInput } from '../checks/id-document.js';
import { locationFields } from '../checks/location.js';
import { credentialInput } from '../credentials/check.js';
import { SESSION_STATUSES } from './entities.js';

/** Session lifetime: the person must finish within it. 5 minutes to 7 days, 1 hour by default. */
export const SESSION_TTL = { minSeconds: 300, maxSeconds: 7 * 24 * 3600, defaultSeconds: 3600 } as const;
/** The age a session's `age` check proves when metadata names none. */
export const DEFAULT_SESSION_MIN_AGE = 18;

const webUrl = z.url({ protocol: /^https?$/, message: 'an http(s) URL' }).max(2000);

const metadataInput = z
  .record(z.string().max(100), z.unknown())
  .refine((value) => JSON.stringify(value).length <= 16_384, 'metadata is limited to 16 KB of JSON')
  .superRefine((value, context) => {
    const number = (key: string, min: number, max: number) => {
      if (value[key] === undefined) return;
      const n = value[key];
      if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max)
        context.addIssue({ code: 'custom', path: [key], message: `a number from ${min} to ${max}` });
    };
    number('expected_lat', -90, 90);
    number('expected_lng', -180, 180);
    number('radius_m', 1, 2e7);
    number('min_age', 1, 120);
    if ((value.expected_lat === undefined) !== (value.expected_lng === undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['expected_lng'],
        message: 'expected_lat and expected_lng go together',
      });
    }
    if (value.radius_m !== undefined && value.expected_lat === undefined) {
      context.addIssue({ code: 'custom', path: ['radius_m'], message: 'radius_m needs expected_lat and expected_lng' });
    }
  });

export const createSessionInput = z.object({
  workflow_id: z.string().trim().min(1).max(40),
  redirect_url: webUrl.optional(),
  callback: z.string().max(2000).optional(),
  vendor_data: z.string().max(1000).optional(),
  ttl_seconds: z.number().int().min(SESSION_TTL.minSeconds).max(SESSION_TTL.maxSeconds).optional(),
  metadata: metadataInput.optional(),
  /** Binds the session to the user's account (our choice of name: the same field the checks take). */
  svc_access_token: z.string().min(1).max(200).optional(),
});
export type CreateSessionInput = z.infer<typeof createSessionInput>;

export const listSessionsInput = z.object({
  status: z.enum(SESSION_STATUSES).optional(),
  vendor_data: z.string().max(1000).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  /** Opaque: the `X-Next-Cursor` of the previous page. */
  cursor: z.string().max(200).optional(),
});

export const reviewInput = z.object({ status: z.enum(['APPROVED', 'DECLINED']) });

/**
 * POST /api/hosted/session/test-outcome: what a tester picks on a test session's page (the values of the
 * Verity-Test-Outcome header).
 */
export const testOutcomeInput = z.object({
  outcome: z
    .string()
    .trim()
    .min(1)
    .max(60)
    .describe('approve, decline, review, or a catalog error code to see how the page shows it'),
});

/**
 * What each step of the hosted page takes (POST /api/hosted/session/steps/{step}): the part of its
 * check's own input the person sends, picked from that check's schema, which parses it. A step
 * passes its check only these fields: the geofence comes from the session's metadata and the
 * account from the session, never from the person's body.
 */
export const STEP_INPUTS = {
  document: idVerificationInput.pick({ front_image: true, back_image: true }).required({ front_image: true }),
  /** `challenge_id` and `captured_ms` are required where the workflow has liveness. */
  selfie: antispoofInput.pick({ frames: true, challenge_id: true, captured_ms: true }).required({ frames: true }),
  location: locationFields.pick({
    latitude: true,
    longitude: true,
    accuracy: true,
    source: true,
    captured_at: true,
    error: true,
  }),
  licence: credentialInput.omit({ svc_access_token: true, svc_id: true }),
} as const;

/** The fields of a step's body that its declaration names (the rest is not passed on). */
export function stepFields(step: keyof typeof STEP_INPUTS, body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(STEP_INPUTS[step].shape).flatMap((field) => (Object.hasOwn(body, field) ? [[field, body[field]]] : [])),
  );
}
