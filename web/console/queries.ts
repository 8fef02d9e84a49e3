// Every GraphQL document the console sends, each typed by the data it answers. test/fast/web-console-queries.test.ts
// validates each document against the server's schema, and the answers' types are picked from the wire
// declarations the schema's classes mirror (src/graph/wire.ts), so a renamed field fails the type check or
// the tests, not production. Type-only imports: the bundle takes nothing from src/ but vocabulary.ts.
import type { ChargeView } from '../../src/core/billing/views.js';
import type { Camelized } from '../../src/core/camel.js';
import type { Connection } from '../../src/core/ops/page.js';
import type {
  AdminAuditEntryView,
  CheckFailureReasonView,
  OrganizationView,
  SessionCheckView,
  SessionEvidenceView,
  SessionNode,
  StatusDayCountView,
  TimeToDecisionView,
  TimelineEntryView,
  WebhookAttemptView,
  WebhookEventView,
  WebhookStatsView,
  WorkflowApprovalView,
} from '../../src/core/ops/views.js';
import type { AddedMembersView, BillingView, MemberView } from '../../src/core/roster/views.js';
import type { ErasedWire } from '../../src/core/sessions/views.js';
import type { AdminScope, ApiKeyView, CallbackView, ProjectView, WorkflowView } from '../../src/core/tenancy/views.js';
import type { DestinationHealth } from '../../src/core/webhooks/health-view.js';

/** A GraphQL document and, as a type only, the data it answers (gql returns that type). */
export type Query<Data> = string & { readonly answers?: Data };
const query = <Data>(text: string) => text as Query<Data>;

/** The selection of some fields of a wire object: its text, and as a type the object picked to those fields. */
type Fields<Row> = string & { readonly row?: Row };
export type RowOf<Selection> = Selection extends Fields<infer Row> ? Row : never;
const fields =
  <Wire>() =>
  <const Key extends keyof Wire & string>(...keys: Key[]) =>
    keys.join(' ') as Fields<Pick<Wire, Key>>;

type Page<Node> = Connection<Node>;
type GraphMember = Camelized<MemberView>;
type GraphBilling = Camelized<BillingView>;

const SESSION_ROW = fields<SessionNode>()(
  'id',
  'status',
  'livemode',
  'vendorData',
  'svcId',
  'decision',
  'createdAt',
  'decidedAt',
);
/** A session as the lists show it (sessions, review queue). */
export type SessionRow = RowOf<typeof SESSION_ROW> & { workflow: Pick<WorkflowView, 'name'> | null };
export const SESSION_FIELDS = `${SESSION_ROW} workflow { name }`;

const SESSION = fields<SessionNode>()(
  'id',
  'status',
  'livemode',
  'workflowId',
  'features',
  'vendorData',
  'svcId',
  'decision',
  'decidedAt',
  'decidedBy',
  'createdAt',
  'startedAt',
  'expiresAt',
  'imagesRetained',
);
const CHECK = fields<SessionCheckView>()('type', 'status', 'score', 'reason', 'createdAt');
const TIMELINE = fields<TimelineEntryView>()('from', 'to', 'actor', 'reason', 'at');
const EVENT = fields<WebhookEventView>()('id', 'type', 'state', 'url', 'attemptCount', 'createdAt');
const ATTEMPT = fields<WebhookAttemptView>()('attempt', 'at', 'httpStatus', 'latencyMs', 'error');
/** A check as the session view reads it; `details` only for a reviewer (sessionWithDetails). */
export type CheckRow = RowOf<typeof CHECK> & Partial<Pick<SessionCheckView, 'details'>>;
export type TimelineRow = RowOf<typeof TIMELINE>;
/** One session with everything the session view shows. */
export type SessionDetail = RowOf<typeof SESSION> & {
  approvalBlockers: string[];
  workflow: Pick<WorkflowView, 'name'> | null;
  checks: CheckRow[];
  timeline: TimelineRow[];
  webhookEvents: (RowOf<typeof EVENT> & { attempts: RowOf<typeof ATTEMPT>[] })[];
};
// A reviewer also reads each check's details; a viewer may not ask for them.
const SESSION_QUERY = (details: string) =>
  query<{ session: SessionDetail }>(
    `query($p: String!, $s: String!) { session(projectId: $p, sessionId: $s) { ${SESSION} approvalBlockers workflow { name } checks { ${CHECK}${details} } timeline { ${TIMELINE} } webhookEvents { ${EVENT} attempts { ${ATTEMPT} } } } }`,
  );

const EVENT_ROW = fields<WebhookEventView>()('id', 'type', 'state', 'url', 'attemptCount', 'createdAt', 'sessionId');
const EVENT_ATTEMPT = fields<WebhookAttemptView>()('httpStatus', 'error');
/** A webhook event as the webhooks view lists it. */
export type WebhookEventRow = RowOf<typeof EVENT_ROW> & { attempts: RowOf<typeof EVENT_ATTEMPT>[] };

const PROJECT = fields<ProjectView>()('id', 'name', 'balance', 'currency');
export type ProjectRow = RowOf<typeof PROJECT>;
const ORGANIZATION = fields<OrganizationView>()('id', 'name');
const MEMBER = fields<GraphMember>()('memberId', 'email', 'firstName', 'lastName', 'role', 'status', 'createdAt');
export type MemberRow = RowOf<typeof MEMBER>;
const AUDIT = fields<AdminAuditEntryView>()('tokenId', 'action', 'target', 'at');
const KEY = fields<ApiKeyView>()('id', 'name', 'prefix', 'mode', 'createdAt', 'revokedAt');
const WORKFLOW = fields<WorkflowView>()('id', 'name', 'features', 'createdAt');
const DESTINATION = fields<CallbackView>()('url', 'mode', 'active');
const CHARGE = fields<ChargeView>()('item', 'amount', 'currency', 'refunded', 'createdAt');
const SUBSCRIPTION = fields<Camelized<NonNullable<BillingView['subscription']>>>()(
  'plan',
  'status',
  'pricePerSeat',
  'trialEndsAt',
);
const INVOICE = fields<Camelized<BillingView['invoices'][number]>>()('period', 'seats', 'amount');
const ORGANIZATION_BILLING = fields<GraphBilling>()('seats', 'estimatedNextCharge', 'currency', 'balance');
const EVIDENCE = fields<SessionEvidenceView>()('id', 'kind', 'attempt', 'dataUrl');
const PER_DAY = fields<StatusDayCountView>()('day', 'status', 'count');
const RATE = fields<WorkflowApprovalView>()('workflowId', 'workflowName', 'sessions', 'approvalRate');
const TIME_TO_DECISION = fields<TimeToDecisionView>()('decided', 'medianSeconds', 'p90Seconds');
const FAILURE = fields<CheckFailureReasonView>()('source', 'type', 'reason', 'count');
const WEBHOOK_STATS = fields<WebhookStatsView>()(
  'events',
  'delivered',
  'failed',
  'backlog',
  'oldestPendingAt',
  'successRate',
  'attemptSuccessRate',
);
export type WebhookStatsRow = RowOf<typeof WEBHOOK_STATS>;
const HEALTH = fields<DestinationHealth>()(
  'destination',
  'livemode',
  'healthy',
  'attemptsLastHour',
  'successRateLastHour',
  'attemptsLastDay',
  'successRateLastDay',
  'consecutiveFailures',
  'nextRetryAt',
  'lastStatus',
  'lastError',
  'lastSuccessAt',
);
export type HealthRow = RowOf<typeof HEALTH>;
const ME = fields<AdminScope>()('tokenId', 'role', 'projectId');
export type MeRow = RowOf<typeof ME>;
export type OrganizationRow = RowOf<typeof ORGANIZATION>;

/** A member after (re)activation or deactivation: null when there is none to change. */
type MemberChange = Pick<GraphMember, 'email' | 'status'> | null;
/** Both mutations' documents have one type, so a view may pick either by name. */
const memberChange = (name: 'reactivateMember' | 'deactivateMember') =>
  query<{ reactivateMember?: MemberChange; deactivateMember?: MemberChange }>(
    `mutation($i: MemberActionInput!) { ${name}(input: $i) { email status } }`,
  );

export const QUERIES = {
  start: query<{ me: MeRow; projects: ProjectRow[]; organizations: OrganizationRow[] }>(
    `{ me { ${ME} } projects { ${PROJECT} } organizations { ${ORGANIZATION} } }`,
  ),
  workflowNames: query<{ workflows: Pick<WorkflowView, 'id' | 'name'>[] }>(
    'query($p: String!) { workflows(projectId: $p) { id name } }',
  ),
  sessions: query<{ sessions: Page<SessionRow> }>(
    `query($p: String!, $f: SessionFilterInput, $s: SessionSort, $a: String) { sessions(projectId: $p, filter: $f, sort: $s, first: 25, after: $a) { edges { node { ${SESSION_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
  ),
  reviewSession: query<{ reviewSession: Pick<SessionNode, 'id' | 'status'> }>(
    'mutation($i: ReviewSessionInput!) { reviewSession(input: $i) { id status } }',
  ),
  adminAudit: query<{ adminAudit: Page<RowOf<typeof AUDIT>> }>(
    `query($p: String, $a: String) { adminAudit(projectId: $p, first: 25, after: $a) { edges { node { ${AUDIT} } } pageInfo { hasNextPage endCursor } } }`,
  ),
  setEvidenceRetention: query<{ setEvidenceRetention: Pick<ProjectView, 'evidenceRetentionDays'> }>(
    'mutation($i: EvidenceRetentionInput!) { setEvidenceRetention(input: $i) { evidenceRetentionDays } }',
  ),
  sessionEvidence: query<{ sessionEvidence: RowOf<typeof EVIDENCE>[] }>(
    `query($p: String!, $s: String!) { sessionEvidence(projectId: $p, sessionId: $s) { ${EVIDENCE} } }`,
  ),
  eraseSessionData: query<{ eraseSessionData: Pick<Camelized<ErasedWire>, 'sessionId' | 'alreadyErased'> }>(
    'mutation($i: SessionRefInput!) { eraseSessionData(input: $i) { sessionId alreadyErased } }',
  ),
  resendWebhookEvent: query<{ resendWebhookEvent: Pick<WebhookEventView, 'id' | 'state'> }>(
    'mutation($i: WebhookEventRefInput!) { resendWebhookEvent(input: $i) { id state } }',
  ),
  session: SESSION_QUERY(''),
  sessionWithDetails: SESSION_QUERY(' details'),
  reviewQueue: query<{ reviewQueue: Page<SessionRow & { approvalBlockers: string[] }> }>(
    `query($p: String!, $a: String) { reviewQueue(projectId: $p, first: 25, after: $a) { edges { node { ${SESSION_FIELDS} approvalBlockers } } pageInfo { hasNextPage endCursor } } }`,
  ),
  sessionStatus: query<{ session: Pick<SessionNode, 'id' | 'status'> }>(
    'query($p: String!, $s: String!) { session(projectId: $p, sessionId: $s) { id status } }',
  ),
  webhookEvents: query<{ webhookEvents: Page<WebhookEventRow> }>(
    `query($p: String!, $st: String, $a: String) { webhookEvents(projectId: $p, state: $st, first: 25, after: $a) { edges { node { ${EVENT_ROW} attempts { ${EVENT_ATTEMPT} } } } pageInfo { hasNextPage endCursor } } }`,
  ),
  reactivateMember: memberChange('reactivateMember'),
  deactivateMember: memberChange('deactivateMember'),
  members: query<{ members: Page<MemberRow> }>(
    `query($o: Int!, $st: String, $a: String) { members(organizationId: $o, status: $st, first: 25, after: $a) { edges { node { ${MEMBER} } } pageInfo { hasNextPage endCursor } } }`,
  ),
  inviteMembers: query<{
    inviteMembers: {
      created: { member: Pick<GraphMember, 'email' | 'status'>; activationLink: string | null }[];
      skipped: AddedMembersView['skipped'];
    };
  }>(
    'mutation($i: InviteMembersInput!) { inviteMembers(input: $i) { created { member { email status } activationLink } skipped { email reason } } }',
  ),
  billing: query<{ project: Pick<ProjectView, 'balance' | 'currency'>; charges: RowOf<typeof CHARGE>[] }>(
    `query($p: String!) { project(projectId: $p) { balance currency } charges(projectId: $p, limit: 50) { ${CHARGE} } }`,
  ),
  organizationBilling: query<{
    organizationBilling: RowOf<typeof ORGANIZATION_BILLING> & {
      subscription: RowOf<typeof SUBSCRIPTION> | null;
      invoices: RowOf<typeof INVOICE>[];
    };
  }>(
    `query($o: Int!) { organizationBilling(organizationId: $o) { ${ORGANIZATION_BILLING} subscription { ${SUBSCRIPTION} } invoices { ${INVOICE} } } }`,
  ),
  keys: query<{
    project: Pick<ProjectView, 'evidenceRetentionDays'>;
    apiKeys: RowOf<typeof KEY>[];
    workflows: RowOf<typeof WORKFLOW>[];
    callbackDestinations: RowOf<typeof DESTINATION>[];
  }>(
    `query($p: String!) { project(projectId: $p) { evidenceRetentionDays } apiKeys(projectId: $p) { ${KEY} } workflows(projectId: $p) { ${WORKFLOW} } callbackDestinations(projectId: $p) { ${DESTINATION} } }`,
  ),
  revokeApiKey: query<{ revokeApiKey: Pick<ApiKeyView, 'id'> }>(
    'mutation($i: RevokeApiKeyInput!) { revokeApiKey(input: $i) { id } }',
  ),
  createApiKey: query<{ createApiKey: { key: string; apiKey: Pick<ApiKeyView, 'id'> } }>(
    'mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { key apiKey { id } } }',
  ),
  createWorkflow: query<{ createWorkflow: Pick<WorkflowView, 'id' | 'name'> }>(
    'mutation($i: CreateWorkflowInput!) { createWorkflow(input: $i) { id name } }',
  ),
  setCallbackActive: query<{ setCallbackActive: Pick<CallbackView, 'active'> }>(
    'mutation($i: SetCallbackActiveInput!) { setCallbackActive(input: $i) { active } }',
  ),
  dashboard: query<{
    sessionsPerDay: RowOf<typeof PER_DAY>[];
    approvalRates: RowOf<typeof RATE>[];
    timeToDecision: RowOf<typeof TIME_TO_DECISION>;
    checkFailureReasons: RowOf<typeof FAILURE>[];
    webhookStats: WebhookStatsRow;
    webhookHealth: HealthRow[];
  }>(
    `query($p: String!) { sessionsPerDay(projectId: $p) { ${PER_DAY} } approvalRates(projectId: $p) { ${RATE} } timeToDecision(projectId: $p) { ${TIME_TO_DECISION} } checkFailureReasons(projectId: $p) { ${FAILURE} } webhookStats(projectId: $p) { ${WEBHOOK_STATS} } webhookHealth(projectId: $p) { ${HEALTH} } }`,
  ),
};
