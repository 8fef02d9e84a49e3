import { z } from 'zod';
import { GESTURES } from '../faces/burst.js';
import { livemodeField } from './sandbox.js';
import { CHECK_STATUSES, CHECK_TYPES } from '../vocabulary.js';

// The check objects on the wire, declared once: standalone routes, session decisions and the
// OpenAPI document all use these.

export const checkWire = z.object({
  type: z.enum(CHECK_TYPES),
  status: z.enum(CHECK_STATUSES),
  score: z.number().optional(),
  data: z.record(z.string(), z.unknown()),
  error: z.string().nullable(),
});

export const standaloneWire = z.object({
  session_id: z.string(),
  status: z.enum(CHECK_STATUSES),
  check: checkWire,
  livemode: livemodeField,
});

/** The combined KYC + credential answer: `passed` only when every check passes. */
export const combinedWire = z.object({
  session_id: z.string(),
  status: z.enum(CHECK_STATUSES),
  identity: z.object({ name: z.string().nullable(), dob: z.string().nullable() }),
  checks: z.array(checkWire),
  livemode: livemodeField,
});

/** The challenge route's answer: the id under the spec's name `challengeId` and as `challenge_id`. */
export const challengeWire = z.object({
  challenge_id: z.string(),
  challengeId: z.string(),
  gesture: z.enum(GESTURES),
  expires_at: z.string(),
});
export type ChallengeView = z.output<typeof challengeWire>;

/** DELETE /api/v2/face-uniqueness/{face_id}. */
export const unlinkedFaceWire = z.object({ face_id: z.string(), unlinked: z.literal(true) });
export type UnlinkedFaceView = z.output<typeof unlinkedFaceWire>;
