import { z } from 'zod';
import { MEMBER_ROLES } from './entities.js';

// Input schemas of the roster API, shared by the REST router, the OpenAPI document and the admin fronts.

export const MAX_MEMBERS_PER_CALL = 500;

const email = z.string().trim().max(320).pipe(z.email('not a valid email address'));
const namePart = z.string().trim().max(100);

export const newMemberInput = z.object({
  email,
  first_name: namePart.optional(),
  last_name: namePart.optional(),
  role: z.enum(MEMBER_ROLES, { error: `role must be one of ${MEMBER_ROLES.join(', ')}` }).default('member'),
});

export const INVITE_METHODS = ['auto', 'email', 'face'] as const;

export const addMembersInput = z.object({
  members: z
    .array(newMemberInput)
    .min(1, 'give at least one member')
    .max(MAX_MEMBERS_PER_CALL, `at most ${MAX_MEMBERS_PER_CALL} members per call`),
  notify: z.boolean().default(true),
  invite: z.enum(INVITE_METHODS).default('auto'),
});
export type AddMembersInput = z.output<typeof addMembersInput>;

/** The largest page of GET /members, and its default: big enough that most rosters arrive whole. */
export const MEMBER_PAGE_MAX = 1000;

export const listMembersQuery = z.object({
  limit: z.coerce
    .number()
    .int('limit must be an integer')
    .min(1)
    .max(MEMBER_PAGE_MAX)
    .default(MEMBER_PAGE_MAX)
    .describe(`members per page, 1 to ${MEMBER_PAGE_MAX} (default ${MEMBER_PAGE_MAX})`),
  cursor: z
    .string()
    .max(100)
    .optional()
    .describe('from the X-Next-Cursor header (or the Link rel="next" URL) of the previous page'),
});

export const resolveMemberInput = z.object({
  svc_id: z.string().trim().min(1).max(40).optional(),
  email: z.string().trim().min(1).max(320).optional(),
});

export const removeMemberQuery = z.object({
  permanent: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .describe('true deletes the row; otherwise the member is deactivated'),
});

export const setPlanInput = z.object({
  organizationId: z.number().int().positive(),
  plan: z.string().trim().min(1).max(60),
  /** Currency units per active seat per month. */
  pricePerSeat: z.number().nonnegative().max(1e6),
  currency: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{3}$/, 'a 3-letter ISO 4217 code')
    .transform((value) => value.toUpperCase())
    .default('USD'),
  trialDays: z.number().int().min(0).max(365).default(0),
});
