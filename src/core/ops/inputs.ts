import { z } from 'zod';
import { CHECK_STATUSES, CHECK_TYPES } from '../checks/entities.js';
import { INVITE_METHODS } from '../roster/inputs.js';
import { MEMBER_ROLES, MEMBER_STATUSES } from '../roster/entities.js';
import { SESSION_STATUSES } from '../sessions/entities.js';
import { WEBHOOK_EVENT_STATES } from '../webhooks/entities.js';
import { projectId } from '../tenancy/inputs.js';

// Input schemas of the ops read models and admin actions: the admin operations table hands them
// to GraphQL and tRPC alike, so both fronts validate the same way.

/** Relay-style page: `first` items after the opaque `after` cursor of a previous page. */
const page = {
  first: z.number().int().min(1).max(100).default(20),
  after: z.string().min(1).max(300).optional(),
};

const id = z.string().min(1).max(40);
/** ISO 8601 with an offset; kept a string (inputs are parsed twice, once by tRPC and once by the operations table). */
const isoDateTime = z.iso.datetime({ offset: true });
export const organizationId = z.number().int().positive();

export const SORT_ORDERS = ['CREATED_AT_DESC', 'CREATED_AT_ASC'] as const;

export const sessionFilter = z.object({
  status: z.enum(SESSION_STATUSES).optional(),
  workflowId: id.optional(),
  vendorData: z.string().max(1000).optional(),
  svcId: id.optional(),
  decision: z.enum(SESSION_STATUSES).optional(),
  /** Created at or after (ISO 8601). */
  createdFrom: isoDateTime.optional(),
  /** Created before (ISO 8601). */
  createdTo: isoDateTime.optional(),
});
export type SessionFilter = z.output<typeof sessionFilter>;

export const sessionsInput = z.object({
  projectId,
  filter: sessionFilter.default({}),
  sort: z.enum(SORT_ORDERS).default('CREATED_AT_DESC'),
  ...page,
});
export const reviewQueueInput = z.object({ projectId, ...page });
export const sessionInput = z.object({ projectId, sessionId: id });
/** A reviewer's decision from the console: the note (why) is required and goes in the timeline. */
export const reviewSessionInput = z.object({
  projectId,
  sessionId: id,
  status: z.enum(['APPROVED', 'DECLINED']),
  note: z.string().trim().min(1, 'a note saying why is required').max(180),
});

export const checkRecordsInput = z.object({
  projectId,
  type: z.enum(CHECK_TYPES).optional(),
  status: z.enum(CHECK_STATUSES).optional(),
  ...page,
});

export const webhookEventsInput = z.object({
  projectId,
  state: z.enum(WEBHOOK_EVENT_STATES).optional(),
  sessionId: id.optional(),
  ...page,
});
export const webhookEventInput = z.object({ projectId, eventId: id });

export const accountsInput = z.object({ projectId, ...page });
export const accountIdentityInput = z.object({ projectId, svcId: id });

export const membersInput = z.object({ organizationId, status: z.enum(MEMBER_STATUSES).optional(), ...page });
export const organizationInput = z.object({ organizationId });
export const memberActionInput = z.object({ organizationId, memberId: z.string().trim().min(1).max(320) });
export const inviteMembersInput = z.object({
  organizationId,
  members: z
    .array(
      z.object({
        email: z.string().max(320),
        firstName: z.string().max(100).optional(),
        lastName: z.string().max(100).optional(),
        role: z.enum(MEMBER_ROLES).optional(),
      }),
    )
    .min(1)
    .max(500),
  notify: z.boolean().default(true),
  invite: z.enum(INVITE_METHODS).default('auto'),
});

/** Aggregates cover [from, to): the last 30 days by default, at most 366 days. */
export const aggregatesInput = z
  .object({ projectId, from: isoDateTime.optional(), to: isoDateTime.optional() })
  .refine((input) => !input.from || !input.to || Date.parse(input.from) < Date.parse(input.to), {
    message: 'from must be before to',
    path: ['from'],
  });

export const adminAuditInput = z.object({ projectId: projectId.optional(), ...page });

/** Bulk resend of failed webhook events created in [from, to) (both required, at most 366 days). */
export const resendFailedWebhooksInput = z
  .object({ projectId, from: isoDateTime, to: isoDateTime })
  .refine((input) => Date.parse(input.from) < Date.parse(input.to), {
    message: 'from must be before to',
    path: ['from'],
  })
  .refine((input) => Date.parse(input.to) - Date.parse(input.from) <= 366 * 86_400_000, {
    message: 'at most 366 days',
    path: ['from'],
  });
