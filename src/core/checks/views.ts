import { z } from 'zod';
import { livemodeField } from '../sandbox.js';
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

export const standaloneWire = z.object({ session_id: z.string(), status: z.enum(CHECK_STATUSES), check: checkWire, livemode: livemodeField });

/** The combined KYC + credential answer: `passed` only when every check passes. */
export const combinedWire = z.object({
  session_id: z.string(),
  status: z.enum(CHECK_STATUSES),
  identity: z.object({ name: z.string().nullable(), dob: z.string().nullable() }),
  checks: z.array(checkWire),
  livemode: livemodeField,
});
