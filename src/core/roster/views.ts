import { z } from 'zod';
import { MEMBER_ROLES, MEMBER_STATUSES, type Member } from './entities.js';

// The roster objects on the wire, declared once: the views below are typed by these schemas, the
// roster router documents with them and the HTTP tests parse every answer with them.
// `active` is derived from the status, never stored, so it cannot drift.

/** The spec's Member object. */
export const memberWire = z.object({
  id: z.number().int(),
  member_id: z.string().describe('mem_ + 24 hex; the svc_org_member_id login claim'),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  role: z.enum(MEMBER_ROLES),
  status: z.enum(MEMBER_STATUSES),
  svc_id: z.string().nullable(),
  active: z.boolean(),
  created_at: z.string(),
});
export type MemberView = z.output<typeof memberWire>;

/** A member as POST /members created (or reactivated) it. */
export const createdMemberWire = memberWire.extend({
  activation_link: z.string().nullable(),
  invite_method: z.enum(['face', 'email', 'none']),
  reactivated: z.literal(true).optional(),
});
export type CreatedMemberView = z.output<typeof createdMemberWire>;

export const memberPageWire = z.object({
  members: z.array(memberWire),
  organization: z.object({ id: z.number().int(), name: z.string() }),
});
export const resolvedMemberWire = z.object({ found: z.boolean(), member: memberWire.nullable() });
export const addedMembersWire = z.object({
  created: z.array(createdMemberWire),
  skipped: z.array(z.object({ email: z.string(), reason: z.string() })),
  notified: z.boolean(),
});
export type AddedMembersView = z.output<typeof addedMembersWire>;
export const memberAnswerWire = z.object({ member: memberWire });
export const invitedMemberWire = z.object({ member: memberWire, activation_link: z.string() });
export const removedMemberWire = z.object({
  member: memberWire.nullable(),
  removed: z.boolean().optional(),
  already_removed: z.boolean().optional(),
});
export type RemovedMemberView = z.output<typeof removedMemberWire>;

/** The spec's Billing object. */
export const billingWire = z.object({
  subscription: z
    .object({
      plan: z.string(),
      status: z.string(),
      price_per_seat: z.number(),
      in_trial: z.boolean(),
      trial_ends_at: z.string().nullable(),
      current_period_end: z.string(),
    })
    .nullable(),
  seats: z.number().int(),
  estimated_next_charge: z.number(),
  currency: z.string(),
  balance: z.number(),
  invoices: z.array(
    z.object({ period: z.string(), seats: z.number().int(), amount: z.number(), created_at: z.string() }),
  ),
});
export type BillingView = z.output<typeof billingWire>;

export type MemberFields = Pick<
  Member,
  'id' | 'memberId' | 'firstName' | 'lastName' | 'email' | 'role' | 'status' | 'svcId' | 'createdAt'
>;

export const memberView = (member: MemberFields): MemberView => ({
  id: member.id,
  member_id: member.memberId,
  first_name: member.firstName,
  last_name: member.lastName,
  email: member.email,
  role: member.role,
  status: member.status,
  svc_id: member.svcId ?? null,
  active: member.status === 'active',
  created_at: new Date(member.createdAt).toISOString(),
});
