import { z } from 'zod';
import { CHECK_STATUSES, CHECK_TYPES, SESSION_STATUSES, WEBHOOK_EVENT_STATES } from '../vocabulary.js';

// The admin API's session node, declared once: sessionNode is typed by it, SESSION_COLUMNS is
// derived from its keys and test/fast/graphql-wire.test.ts checks the GraphQL Session type against it.
// Why it is not sessionWire (core/sessions/views.ts) in camelCase: ops see what an integrator must
// not (projectId, decision, decidedBy, imagesRetained), the id is `id` (a GraphQL node), and
// vendorData stays null when none was sent (ops filter on it) where the public wire answers "".
// The fields both share are checked for the same nullability by the same test.

export const sessionNodeWire = z.object({
  id: z.string(),
  projectId: z.string(),
  workflowId: z.string(),
  status: z.enum(SESSION_STATUSES),
  features: z.array(z.string()),
  vendorData: z.string().nullable(),
  svcId: z.string().nullable(),
  decision: z.string().nullable(),
  decidedAt: z.string().nullable(),
  decidedBy: z.string().nullable(),
  startedAt: z.string().nullable(),
  expiresAt: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  callback: z.string().nullable(),
  redirectUrl: z.string().nullable(),
  /** False for a test key's session (sandbox: never charged). */
  livemode: z.boolean(),
  /** Review images are kept while the session is open or in review, then for the project's retention. */
  imagesRetained: z.boolean(),
});
export type SessionNode = z.output<typeof sessionNodeWire>;

// The other objects of the admin API's ops reads, declared once the same way: the mappers in
// ops/service.ts are typed by them and test/fast/graphql-wire.test.ts checks the GraphQL types (field
// names and nullability) against them. Fields a mapper keeps for itself (a parent id to group by,
// a sealed blob) are added to the node type beside the declaration, never sent.

/** One check run inside a session (GraphQL SessionCheck). */
export const sessionCheckWire = z.object({
  id: z.string(),
  type: z.string(),
  status: z.enum(CHECK_STATUSES),
  score: z.number().nullable(),
  reason: z.string().nullable().describe('short machine reason when not passed'),
  createdAt: z.string(),
  /** The check's data and error as JSON: reviewers and admins only (null for viewers), never images. */
  details: z.string().nullable(),
});
export type SessionCheckView = z.output<typeof sessionCheckWire>;

/** One state change of a session (GraphQL TimelineEntry). */
export const timelineEntryWire = z.object({
  from: z.string().nullable(),
  to: z.string(),
  actor: z.string().describe('api_key:<id>, user, system or admin:<token id>'),
  reason: z.string().nullable(),
  at: z.string(),
});
export type TimelineEntryView = z.output<typeof timelineEntryWire>;

/** A webhook event of a session (GraphQL WebhookEvent; its session and attempts are resolved fields). */
export const webhookEventWire = z.object({
  id: z.string(),
  projectId: z.string(),
  sessionId: z.string(),
  type: z.string(),
  livemode: z
    .boolean()
    .describe(
      'false: a test-mode event, sent only to the test destination with the test secret (no_destination when there is none)',
    ),
  url: z.string().nullable(),
  state: z.enum(WEBHOOK_EVENT_STATES),
  attemptCount: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
});
export type WebhookEventView = z.output<typeof webhookEventWire>;

/** One delivery attempt of a webhook event (GraphQL WebhookAttempt). */
export const webhookAttemptWire = z.object({
  attempt: z.number().int(),
  at: z.string(),
  httpStatus: z.number().int().nullable().describe('null: no answer (refused, timeout)'),
  latencyMs: z.number().int(),
  error: z.string().nullable(),
  responseSnippet: z.string().nullable(),
});
export type WebhookAttemptView = z.output<typeof webhookAttemptWire>;

/** The stored record of a standalone check call (GraphQL CheckRecord; `sessionId` is the answer's session_id). */
export const checkRecordWire = z.object({
  sessionId: z.string(),
  projectId: z.string(),
  type: z.enum(CHECK_TYPES),
  status: z.enum(CHECK_STATUSES),
  mode: z.enum(['fresh', 'account']),
  svcId: z.string().nullable(),
  reason: z.string().nullable(),
  durationMs: z.number().int(),
  createdAt: z.string(),
});
export type CheckRecordView = z.output<typeof checkRecordWire>;

/** A person's account as a project's ops see it, without identity data (GraphQL Account). */
export const accountNodeWire = z.object({
  svcId: z.string(),
  email: z.string().nullable().describe("only when the person granted the profile scope to one of the project's apps"),
  idVerified: z.boolean(),
  humanVerified: z.boolean(),
  identityVerifiedAt: z.string().nullable(),
  hasFaceReference: z.boolean(),
  createdAt: z.string(),
});
export type AccountNode = z.output<typeof accountNodeWire>;

/** An account's identity: raw fields only where this project verified it, else proofs (GraphQL AccountIdentity). */
export const accountIdentityWire = z.object({
  svcId: z.string(),
  proofsOnly: z.boolean(),
  identityVerified: z.boolean(),
  documentValid: z.boolean().nullable(),
  fullName: z.string().nullable(),
  dateOfBirth: z.string().nullable(),
  documentNumber: z.string().nullable(),
  documentExpiry: z.string().nullable(),
  address: z.string().nullable(),
});
export type AccountIdentityView = z.output<typeof accountIdentityWire>;

/** A sensitive admin read or change (GraphQL AdminAuditEntry). */
export const adminAuditEntryWire = z.object({
  tokenId: z.string(),
  projectId: z.string().nullable(),
  action: z.string(),
  target: z.string(),
  at: z.string(),
});
export type AdminAuditEntryView = z.output<typeof adminAuditEntryWire>;

/** A roster organization (GraphQL Organization). */
export const organizationWire = z.object({ id: z.number().int(), name: z.string(), createdAt: z.string() });
export type OrganizationView = z.output<typeof organizationWire>;

// The dashboard's figures (ops/aggregates.ts is typed by these; GraphQL's types and the console
// follow them).

/** Sessions created on one UTC day with one status (GraphQL StatusDayCount). */
export const statusDayCountWire = z.object({
  day: z.string().describe('YYYY-MM-DD (UTC)'),
  status: z.enum(SESSION_STATUSES),
  count: z.number().int(),
});
export type StatusDayCountView = z.output<typeof statusDayCountWire>;

/** One workflow's approvals (GraphQL WorkflowApproval). */
export const workflowApprovalWire = z.object({
  workflowId: z.string(),
  workflowName: z.string().nullable(),
  sessions: z.number().int(),
  approved: z.number().int(),
  declined: z.number().int(),
  approvalRate: z.number().nullable().describe('approved / (approved + declined); null when none is decided'),
});
export type WorkflowApprovalView = z.output<typeof workflowApprovalWire>;

/** Seconds from creation to an APPROVED or DECLINED decision (GraphQL TimeToDecision). */
export const timeToDecisionWire = z.object({
  decided: z.number().int(),
  medianSeconds: z.number().nullable(),
  p90Seconds: z.number().nullable(),
});
export type TimeToDecisionView = z.output<typeof timeToDecisionWire>;

/** Why checks did not pass, by source, type, reason and status (GraphQL CheckFailureReason). */
export const checkFailureReasonWire = z.object({
  source: z.enum(['session', 'standalone']),
  type: z.string(),
  reason: z.string(),
  status: z.string(),
  count: z.number().int(),
});
export type CheckFailureReasonView = z.output<typeof checkFailureReasonWire>;

/** Webhook delivery of a range of events (GraphQL WebhookStats). */
export const webhookStatsWire = z.object({
  events: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
  disabled: z.number().int(),
  noDestination: z.number().int(),
  backlog: z.number().int(),
  oldestPendingAt: z.string().nullable(),
  successRate: z.number().nullable().describe('delivered / (delivered + failed + disabled)'),
  attempts: z.number().int(),
  attemptSuccessRate: z.number().nullable().describe('share of attempts answered 2xx'),
});
export type WebhookStatsView = z.output<typeof webhookStatsWire>;

/** A review image of a session, served to a reviewer and audited (GraphQL SessionEvidence). */
export const sessionEvidenceWire = z.object({
  id: z.string(),
  kind: z.string().describe('document_front, document_back, document_portrait or selfie'),
  attempt: z.number().int().describe('which try of its step the image comes from (1 for the first)'),
  dataUrl: z.string().describe('the image as a data: URL'),
  createdAt: z.string(),
});
export type SessionEvidenceView = z.output<typeof sessionEvidenceWire>;
