import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { z } from 'zod';
import type {
  inviteMembersInput,
  memberActionInput,
  resendFailedWebhooksInput,
  reviewSessionInput,
  sessionFilter,
  sessionInput,
  webhookEventInput,
} from '../core/ops/inputs.js';
import type { AdminResult } from '../core/admin.js';
import type { Connection as PageConnection } from '../core/ops/page.js';
import type {
  AccountIdentityView,
  AccountNode,
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
} from '../core/ops/views.js';
import type { AddedMembersView, BillingView, MemberView } from '../core/roster/views.js';
import type { ErasedWire } from '../core/sessions/views.js';
import type { AdminScope } from '../core/tenancy/views.js';
import type { DestinationHealth } from '../core/webhooks/health-view.js';
import { CheckRecordType } from './types.js';
import type { Mirror, MirrorInput } from './wire.js';

// GraphQL shapes of the ops read models (src/core/ops). Each object type implements Mirror of the
// wire (or core result) it describes (./wire.ts), so it follows that declaration at compile time;
// fields resolved by a @FieldResolver (a session's checks, a check's details) are left out of it.
// Inputs are validated again by the operations' zod schemas, so these classes only describe the wire.

export enum SessionSort {
  CREATED_AT_DESC = 'CREATED_AT_DESC',
  CREATED_AT_ASC = 'CREATED_AT_ASC',
}
registerEnumType(SessionSort, { name: 'SessionSort', description: 'Order of a sessions page' });

@ObjectType('PageInfo')
export class PageInfoType implements Mirror<PageInfoType, PageConnection<unknown>['pageInfo']> {
  @Field(() => Boolean) hasNextPage!: boolean;
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page' }) endCursor!: string | null;
}

/** A Relay connection type (`<Name>Connection` with `<Name>Edge`) over a node type. */
function connection<N>(name: string, node: new () => N) {
  @ObjectType(`${name}Edge`)
  class Edge {
    @Field(() => String) cursor!: string;
    @Field(() => node) node!: N;
  }
  @ObjectType(`${name}Connection`)
  class Connection {
    @Field(() => [Edge]) edges!: Edge[];
    @Field(() => PageInfoType) pageInfo!: PageInfoType;
  }
  return Connection;
}

@ObjectType('Me', { description: 'The admin token making the request' })
export class MeType implements Mirror<MeType, AdminScope> {
  @Field(() => ID) tokenId!: string;
  @Field(() => String, { description: 'viewer, reviewer or admin' }) role!: string;
  @Field(() => String, { nullable: true, description: 'The one project the token may see; null: all' }) projectId!:
    | string
    | null;
}

@ObjectType('SessionCheck', { description: 'One check run inside a session' })
export class SessionCheckType implements Mirror<SessionCheckType, Omit<SessionCheckView, 'details'>> {
  @Field(() => ID) id!: string;
  @Field(() => String) type!: string;
  @Field(() => String, { description: 'passed, failed or review' }) status!: string;
  @Field(() => Float, { nullable: true }) score!: number | null;
  @Field(() => String, { nullable: true, description: 'Short machine reason when not passed' }) reason!: string | null;
  @Field(() => String) createdAt!: string;
}

@ObjectType('TimelineEntry', { description: 'One state change of a session' })
export class TimelineEntryType implements Mirror<TimelineEntryType, TimelineEntryView> {
  @Field(() => String, { nullable: true }) from!: string | null;
  @Field(() => String) to!: string;
  @Field(() => String, { description: 'api_key:<id>, user, system or admin:<token id>' }) actor!: string;
  @Field(() => String, { nullable: true }) reason!: string | null;
  @Field(() => String) at!: string;
}

@ObjectType('WebhookAttempt')
export class WebhookAttemptType implements Mirror<WebhookAttemptType, WebhookAttemptView> {
  @Field(() => Int) attempt!: number;
  @Field(() => String) at!: string;
  @Field(() => Int, { nullable: true, description: 'null: no answer (refused, timeout)' }) httpStatus!: number | null;
  @Field(() => Int) latencyMs!: number;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => String, { nullable: true }) responseSnippet!: string | null;
}

@ObjectType('WebhookEvent')
export class WebhookEventType implements Mirror<WebhookEventType, WebhookEventView> {
  @Field(() => ID) id!: string;
  @Field(() => String) projectId!: string;
  @Field(() => String) sessionId!: string;
  @Field(() => String) type!: string;
  @Field(() => Boolean, {
    description: 'False for a test-mode event: sent only to the test destination, signed with the test secret',
  })
  livemode!: boolean;
  @Field(() => String, { nullable: true }) url!: string | null;
  @Field(() => String, {
    description:
      'pending, sending, delivered, failed, disabled or no_destination (a test event when the project has no test destination)',
  })
  state!: string;
  @Field(() => Int) attemptCount!: number;
  @Field(() => String, { nullable: true }) nextAttemptAt!: string | null;
  @Field(() => String, { nullable: true }) deliveredAt!: string | null;
  @Field(() => String) createdAt!: string;
}

@ObjectType('Session', { description: 'A hosted verification session' })
export class SessionType implements Mirror<SessionType, SessionNode> {
  @Field(() => ID) id!: string;
  @Field(() => String) projectId!: string;
  @Field(() => String) workflowId!: string;
  @Field(() => String) status!: string;
  @Field(() => [String]) features!: string[];
  @Field(() => String, { nullable: true }) vendorData!: string | null;
  @Field(() => String, { nullable: true }) svcId!: string | null;
  @Field(() => String, { nullable: true }) decision!: string | null;
  @Field(() => String, { nullable: true }) decidedAt!: string | null;
  @Field(() => String, { nullable: true, description: 'system, api_key:<id> or admin:<token id>' }) decidedBy!:
    | string
    | null;
  @Field(() => String, { nullable: true }) startedAt!: string | null;
  @Field(() => String) expiresAt!: string;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
  @Field(() => String, { nullable: true }) callback!: string | null;
  @Field(() => String, { nullable: true }) redirectUrl!: string | null;
  @Field(() => Boolean, { description: 'False for a session made with a test API key (vk_test_...)' })
  livemode!: boolean;
  @Field(() => Boolean, {
    description:
      "Whether review images are kept (while open or in review, then for the project's retention); read them with sessionEvidence",
  })
  imagesRetained!: boolean;
}

export const SessionConnection = connection('Session', SessionType);
export const WebhookEventConnection = connection('WebhookEvent', WebhookEventType);
export const CheckRecordConnection = connection('CheckRecord', CheckRecordType);

@ObjectType('Account', { description: "A person's account, without identity data" })
export class AccountType implements Mirror<AccountType, AccountNode> {
  @Field(() => ID) svcId!: string;
  @Field(() => String, {
    nullable: true,
    description: "Only when the person granted the profile scope to one of the project's apps",
  })
  email!: string | null;
  @Field(() => Boolean) idVerified!: boolean;
  @Field(() => Boolean) humanVerified!: boolean;
  @Field(() => String, { nullable: true }) identityVerifiedAt!: string | null;
  @Field(() => Boolean) hasFaceReference!: boolean;
  @Field(() => String) createdAt!: string;
}
export const AccountConnection = connection('Account', AccountType);

@ObjectType('AccountIdentity', {
  description:
    'Raw identity data when this project verified it in a session of its own; otherwise proofs only. Admins only, every read audited',
})
export class AccountIdentityType implements Mirror<AccountIdentityType, AccountIdentityView> {
  @Field(() => ID) svcId!: string;
  @Field(() => Boolean, {
    description: 'The raw fields are null: the identity was not verified in a session of this project',
  })
  proofsOnly!: boolean;
  @Field(() => Boolean) identityVerified!: boolean;
  @Field(() => Boolean, { nullable: true, description: 'The verified document has not expired (null: no identity)' })
  documentValid!: boolean | null;
  @Field(() => String, { nullable: true }) fullName!: string | null;
  @Field(() => String, { nullable: true }) dateOfBirth!: string | null;
  @Field(() => String, { nullable: true }) documentNumber!: string | null;
  @Field(() => String, { nullable: true }) documentExpiry!: string | null;
  @Field(() => String, { nullable: true }) address!: string | null;
}

@ObjectType('AdminAuditEntry')
export class AdminAuditEntryType implements Mirror<AdminAuditEntryType, AdminAuditEntryView> {
  @Field(() => String) tokenId!: string;
  @Field(() => String, { nullable: true }) projectId!: string | null;
  @Field(() => String) action!: string;
  @Field(() => String) target!: string;
  @Field(() => String) at!: string;
}
export const AdminAuditConnection = connection('AdminAuditEntry', AdminAuditEntryType);

@ObjectType('Organization')
export class OrganizationType implements Mirror<OrganizationType, OrganizationView> {
  @Field(() => Int) id!: number;
  @Field(() => String) name!: string;
  @Field(() => String) createdAt!: string;
}

@ObjectType('Member', { description: "A person on an organization's roster" })
export class MemberType implements Mirror<MemberType, MemberView> {
  @Field(() => Int) id!: number;
  @Field(() => String) memberId!: string;
  @Field(() => String) firstName!: string;
  @Field(() => String) lastName!: string;
  @Field(() => String) email!: string;
  @Field(() => String) role!: string;
  @Field(() => String, { description: 'invited, link_sent, active or deactivated' }) status!: string;
  @Field(() => String, { nullable: true }) svcId!: string | null;
  @Field(() => Boolean) active!: boolean;
  @Field(() => String) createdAt!: string;
}
export const MemberConnection = connection('Member', MemberType);

@ObjectType('InvitedMember')
export class InvitedMemberType implements Mirror<InvitedMemberType, AdminResult<'inviteMembers'>['created'][number]> {
  @Field(() => MemberType) member!: MemberType;
  @Field(() => String, { nullable: true, description: 'The activation link when it was not emailed' }) activationLink!:
    | string
    | null;
  @Field(() => String) inviteMethod!: string;
}

@ObjectType('SkippedMember')
export class SkippedMemberType implements Mirror<SkippedMemberType, AddedMembersView['skipped'][number]> {
  @Field(() => String) email!: string;
  @Field(() => String) reason!: string;
}

@ObjectType('InviteMembersPayload')
export class InviteMembersPayload implements Mirror<InviteMembersPayload, AdminResult<'inviteMembers'>> {
  @Field(() => [InvitedMemberType]) created!: InvitedMemberType[];
  @Field(() => [SkippedMemberType]) skipped!: SkippedMemberType[];
  @Field(() => Boolean) notified!: boolean;
}

@ObjectType('Subscription')
export class SubscriptionType implements Mirror<SubscriptionType, NonNullable<BillingView['subscription']>> {
  @Field(() => String) plan!: string;
  @Field(() => String) status!: string;
  @Field(() => Float) pricePerSeat!: number;
  @Field(() => Boolean) inTrial!: boolean;
  @Field(() => String, { nullable: true }) trialEndsAt!: string | null;
  @Field(() => String) currentPeriodEnd!: string;
}

@ObjectType('Invoice')
export class InvoiceType implements Mirror<InvoiceType, BillingView['invoices'][number]> {
  @Field(() => String, { description: 'YYYY-MM' }) period!: string;
  @Field(() => Int) seats!: number;
  @Field(() => Float) amount!: number;
  @Field(() => String) createdAt!: string;
}

@ObjectType('OrganizationBilling')
// organizationId: the REST billing answer is of the organization in its path; GraphQL names it.
export class OrganizationBillingType
  implements Mirror<OrganizationBillingType, BillingView & { organizationId: number }>
{
  @Field(() => Int) organizationId!: number;
  @Field(() => SubscriptionType, { nullable: true }) subscription!: SubscriptionType | null;
  @Field(() => Int, { description: 'Active members' }) seats!: number;
  @Field(() => Float) estimatedNextCharge!: number;
  @Field(() => String) currency!: string;
  @Field(() => Float, { description: 'Owed: the sum of closed periods' }) balance!: number;
  @Field(() => [InvoiceType]) invoices!: InvoiceType[];
}

@ObjectType('StatusDayCount')
export class StatusDayCountType implements Mirror<StatusDayCountType, StatusDayCountView> {
  @Field(() => String, { description: 'YYYY-MM-DD (UTC)' }) day!: string;
  @Field(() => String) status!: string;
  @Field(() => Int) count!: number;
}

@ObjectType('WorkflowApproval')
export class WorkflowApprovalType implements Mirror<WorkflowApprovalType, WorkflowApprovalView> {
  @Field(() => String) workflowId!: string;
  @Field(() => String, { nullable: true }) workflowName!: string | null;
  @Field(() => Int) sessions!: number;
  @Field(() => Int) approved!: number;
  @Field(() => Int) declined!: number;
  @Field(() => Float, { nullable: true, description: 'approved / (approved + declined); null when none is decided' })
  approvalRate!: number | null;
}

@ObjectType('TimeToDecision')
export class TimeToDecisionType implements Mirror<TimeToDecisionType, TimeToDecisionView> {
  @Field(() => Int, { description: 'Sessions approved or declined' }) decided!: number;
  @Field(() => Float, { nullable: true, description: 'Median seconds from creation to the decision' }) medianSeconds!:
    | number
    | null;
  @Field(() => Float, { nullable: true }) p90Seconds!: number | null;
}

@ObjectType('CheckFailureReason')
export class CheckFailureReasonType implements Mirror<CheckFailureReasonType, CheckFailureReasonView> {
  @Field(() => String, { description: 'session (a check in a session) or standalone (a check record)' })
  source!: string;
  @Field(() => String) type!: string;
  @Field(() => String) reason!: string;
  @Field(() => String, { description: 'failed or review' }) status!: string;
  @Field(() => Int) count!: number;
}

@ObjectType('WebhookStats')
export class WebhookStatsType implements Mirror<WebhookStatsType, WebhookStatsView> {
  @Field(() => Int) events!: number;
  @Field(() => Int) delivered!: number;
  @Field(() => Int) failed!: number;
  @Field(() => Int) disabled!: number;
  @Field(() => Int) noDestination!: number;
  @Field(() => Int, { description: 'Events still to send (pending or sending)' }) backlog!: number;
  @Field(() => String, { nullable: true }) oldestPendingAt!: string | null;
  @Field(() => Float, { nullable: true, description: 'delivered / (delivered + failed + disabled)' }) successRate!:
    | number
    | null;
  @Field(() => Int) attempts!: number;
  @Field(() => Float, { nullable: true, description: 'Share of attempts answered 2xx' }) attemptSuccessRate!:
    | number
    | null;
}

@ObjectType('WebhookDestinationHealth', {
  description: 'Health of one webhook destination (a project, a callback URL and a mode), from its recent attempts',
})
export class WebhookDestinationHealthType implements Mirror<WebhookDestinationHealthType, DestinationHealth> {
  @Field(() => String) projectId!: string;
  @Field(() => String, { description: 'Host and path of the callback URL, without its query' }) destination!: string;
  @Field(() => Boolean, {
    description: 'False: the test-mode events sent to this URL (a URL used by both modes is two destinations)',
  })
  livemode!: boolean;
  @Field(() => Boolean, {
    description:
      'false when it keeps failing: 5 or more failed attempts in a row, or at least 3 attempts in the last hour and none answered 2xx',
  })
  healthy!: boolean;
  @Field(() => Int) attemptsLastHour!: number;
  @Field(() => Float, {
    nullable: true,
    description: "Share of the last hour's attempts answered 2xx; null without attempts",
  })
  successRateLastHour!: number | null;
  @Field(() => Int) attemptsLastDay!: number;
  @Field(() => Float, {
    nullable: true,
    description: "Share of the last day's attempts answered 2xx; null without attempts",
  })
  successRateLastDay!: number | null;
  @Field(() => Int, { description: 'Attempts since the last 2xx (within 7 days)' }) consecutiveFailures!: number;
  @Field(() => String, { nullable: true, description: 'When the next retry of a pending event is due' }) nextRetryAt!:
    | string
    | null;
  @Field(() => Int, { description: 'Events waiting to be sent (pending or sending)' }) pendingEvents!: number;
  @Field(() => String, { nullable: true }) lastAttemptAt!: string | null;
  @Field(() => Int, { nullable: true, description: 'HTTP status of the last attempt; null: no answer' }) lastStatus!:
    | number
    | null;
  @Field(() => String, { nullable: true, description: 'Error of the last attempt (refused, timeout ...)' }) lastError!:
    | string
    | null;
  @Field(() => String, { nullable: true }) lastSuccessAt!: string | null;
}

@ObjectType('ResendFailedWebhooksPayload')
export class ResendFailedWebhooksPayload
  implements Mirror<ResendFailedWebhooksPayload, AdminResult<'resendFailedWebhooks'>>
{
  @Field(() => String) from!: string;
  @Field(() => String) to!: string;
  @Field(() => Int, { description: 'Failed events queued again' }) queued!: number;
  @Field(() => Boolean, { description: 'true: the per-call limit (5000) was reached; run it again for the rest' })
  limitReached!: boolean;
}

@InputType()
export class ResendFailedWebhooksInput
  implements MirrorInput<ResendFailedWebhooksInput, z.input<typeof resendFailedWebhooksInput>>
{
  @Field(() => String) projectId!: string;
  @Field(() => String, { description: 'Events created at or after (ISO 8601)' }) from!: string;
  @Field(() => String, { description: 'Events created before (ISO 8601)' }) to!: string;
}

@InputType()
export class SessionFilterInput implements MirrorInput<SessionFilterInput, z.input<typeof sessionFilter>> {
  @Field(() => String, { nullable: true }) status?: string;
  @Field(() => String, { nullable: true }) workflowId?: string;
  @Field(() => String, { nullable: true }) vendorData?: string;
  @Field(() => String, { nullable: true }) svcId?: string;
  @Field(() => String, { nullable: true, description: 'APPROVED, DECLINED, EXPIRED or ABANDONED' }) decision?: string;
  @Field(() => String, { nullable: true, description: 'Created at or after (ISO 8601)' }) createdFrom?: string;
  @Field(() => String, { nullable: true, description: 'Created before (ISO 8601)' }) createdTo?: string;
}

@InputType()
export class ReviewSessionInput implements MirrorInput<ReviewSessionInput, z.input<typeof reviewSessionInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String) sessionId!: string;
  @Field(() => String, { description: 'APPROVED or DECLINED' }) status!: string;
  @Field(() => String, { description: 'Why (required, 1-180 characters): recorded in the timeline with the reviewer' })
  note!: string;
}

@ObjectType({ description: 'A review image of a session, sealed at rest; every read is recorded in the admin audit' })
export class SessionEvidenceType implements Mirror<SessionEvidenceType, SessionEvidenceView> {
  @Field(() => ID) id!: string;
  @Field(() => String, {
    description: 'document_front, document_back, document_portrait or selfie (the burst frame liveness judged)',
  })
  kind!: string;
  @Field(() => Int, {
    description:
      "Which try of its step the image comes from (1 for the first): a refused document's and a retaken selfie's are kept too; the timeline says why each was refused",
  })
  attempt!: number;
  @Field(() => String, { description: 'The image as a data: URL' }) dataUrl!: string;
  @Field(() => String) createdAt!: string;
}

@ObjectType({ description: "The outcome of erasing a session's sealed data and images" })
export class SessionDataErasedType implements Mirror<SessionDataErasedType, Omit<ErasedWire, 'erased'>> {
  @Field(() => ID) sessionId!: string;
  @Field(() => String) status!: string;
  @Field(() => Boolean, { description: 'true when it had been erased before (the call is idempotent)' })
  alreadyErased!: boolean;
  @Field(() => String) erasedAt!: string;
}

@InputType()
export class SessionRefInput implements MirrorInput<SessionRefInput, z.input<typeof sessionInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String) sessionId!: string;
}

@InputType()
export class WebhookEventRefInput implements MirrorInput<WebhookEventRefInput, z.input<typeof webhookEventInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String) eventId!: string;
}

@InputType()
export class NewMemberInput
  implements MirrorInput<NewMemberInput, z.input<typeof inviteMembersInput>['members'][number]>
{
  @Field(() => String) email!: string;
  @Field(() => String, { nullable: true }) firstName?: string;
  @Field(() => String, { nullable: true }) lastName?: string;
  @Field(() => String, { nullable: true, description: 'owner, admin, developer or member (default)' }) role?: string;
}

@InputType()
// members: each checked by NewMemberInput's own MirrorInput.
export class InviteMembersInput
  implements
    MirrorInput<InviteMembersInput, Omit<z.input<typeof inviteMembersInput>, 'members'> & { members: NewMemberInput[] }>
{
  @Field(() => Int) organizationId!: number;
  @Field(() => [NewMemberInput]) members!: NewMemberInput[];
  @Field(() => Boolean, { nullable: true, description: 'Email the invitations (default true)' }) notify?: boolean;
  @Field(() => String, { nullable: true, description: 'auto (default), email or face' }) invite?: string;
}

@InputType()
export class MemberActionInput implements MirrorInput<MemberActionInput, z.input<typeof memberActionInput>> {
  @Field(() => Int) organizationId!: number;
  @Field(() => String, { description: 'mem_ id, email or svc_id' }) memberId!: string;
}
