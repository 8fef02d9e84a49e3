import { Arg, Args, ArgsType, Ctx, Field, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { camelView } from '../core/camel.js';
import type { Core } from '../core/index.js';
import { type ErasedWire, erasedWire } from '../core/sessions/views.js';
import type { CheckNode, SessionNode, WebhookAttemptNode, WebhookEventNode } from '../core/ops/service.js';
import { approvalBlockers } from '../core/sessions/service.js';
import type { z } from 'zod';
import type { aggregatesInput } from '../core/ops/inputs.js';
import { BatchLoader } from './loader.js';
import type { MirrorInput } from './wire.js';
import {
  AccountConnection,
  AccountIdentityType,
  AdminAuditConnection,
  CheckFailureReasonType,
  CheckRecordConnection,
  InviteMembersInput,
  InviteMembersPayload,
  InvitedMemberType,
  MeType,
  MemberActionInput,
  MemberConnection,
  MemberType,
  OrganizationBillingType,
  OrganizationType,
  ReviewSessionInput,
  SessionCheckType,
  SessionDataErasedType,
  SessionEvidenceType,
  SessionRefInput,
  SessionConnection,
  SessionFilterInput,
  SessionSort,
  SessionType,
  StatusDayCountType,
  TimeToDecisionType,
  TimelineEntryType,
  WebhookAttemptType,
  ResendFailedWebhooksInput,
  ResendFailedWebhooksPayload,
  WebhookDestinationHealthType,
  WebhookEventConnection,
  WebhookEventRefInput,
  WebhookEventType,
  WebhookStatsType,
  WorkflowApprovalType,
} from './ops-types.js';
import { run, type GraphContext } from './resolvers.js';
import { WorkflowType } from './types.js';

/**
 * Per-request loaders: nested fields of a list (checks, timeline, webhooks, workflow) cost one query per field, not per
 * row.
 */
export function opsLoaders(core: Core) {
  return {
    checks: new BatchLoader(
      (ids: string[]) => core.ops.checksBySessions(ids),
      () => [] as CheckNode[],
    ),
    timeline: new BatchLoader(
      (ids: string[]) => core.ops.timelineBySessions(ids),
      () => [],
    ),
    webhookEvents: new BatchLoader(
      (ids: string[]) => core.ops.webhookEventsBySessions(ids),
      () => [] as WebhookEventNode[],
    ),
    attempts: new BatchLoader(
      (ids: string[]) => core.ops.attemptsByEvents(ids),
      () => [] as WebhookAttemptNode[],
    ),
    workflows: new BatchLoader(
      (ids: string[]) => core.ops.workflowsByIds(ids),
      () => null,
    ),
    sessions: new BatchLoader(
      (ids: string[]) => core.ops.sessionsByIds(ids),
      () => null,
    ),
  };
}
export type OpsLoaders = ReturnType<typeof opsLoaders>;

/** GraphQL nulls as absent values: the operations' zod schemas treat optional fields as undefined. */
const defined = <T extends object>(value: T | null | undefined) =>
  value
    ? Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== null && inner !== undefined))
    : undefined;

@ArgsType()
class PageArgs {
  @Field(() => Int, { nullable: true, description: '1 to 100, default 20' }) first?: number | null;
  @Field(() => String, { nullable: true, description: 'The endCursor of the previous page' }) after?: string | null;
}

@ArgsType()
class AggregateArgs implements MirrorInput<AggregateArgs, z.input<typeof aggregatesInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String, { nullable: true, description: 'Start (ISO 8601, inclusive); default: 30 days before to' })
  from?: string | null;
  @Field(() => String, { nullable: true, description: 'End (ISO 8601, exclusive); default: now' }) to?: string | null;
}

type DetailedSession = SessionNode & { checks?: unknown[]; timeline?: unknown[]; webhookEvents?: unknown[] };

@Resolver(() => SessionType)
export class SessionResolver {
  @Query(() => MeType, { description: 'The admin token making the request: its role and project scope' })
  me(@Ctx() ctx: GraphContext) {
    return run(ctx, 'me');
  }

  @Query(() => SessionConnection, { description: 'Sessions of a project, filtered and sorted, a page at a time' })
  sessions(
    @Arg('projectId', () => String) projectId: string,
    @Arg('filter', () => SessionFilterInput, { nullable: true }) filter: SessionFilterInput | null,
    @Arg('sort', () => SessionSort, { nullable: true }) sort: SessionSort | null,
    @Args(() => PageArgs) pageArgs: PageArgs,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'sessions', { projectId, filter: defined(filter), sort: sort ?? undefined, ...defined(pageArgs) });
  }

  @Query(() => SessionConnection, { description: 'Sessions waiting for a manual review (IN_REVIEW), oldest first' })
  reviewQueue(
    @Arg('projectId', () => String) projectId: string,
    @Args(() => PageArgs) pageArgs: PageArgs,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'reviewQueue', { projectId, ...defined(pageArgs) });
  }

  @Query(() => SessionType, { description: 'One session with its checks, decision, timeline and webhook attempts' })
  session(
    @Arg('projectId', () => String) projectId: string,
    @Arg('sessionId', () => String) sessionId: string,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'session', { projectId, sessionId });
  }

  @Mutation(() => SessionType, {
    description:
      'Approve or decline a session in review: the rules of the REST PATCH (409 review_not_pending, session_closed, required_face_checks_incomplete), recorded as admin:<token id>',
  })
  reviewSession(@Arg('input', () => ReviewSessionInput) input: ReviewSessionInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'reviewSession', input);
  }

  @Query(() => [SessionEvidenceType], {
    description:
      "A session's review images: reviewers and admins of its project; every image served is recorded in the admin audit",
  })
  sessionEvidence(
    @Arg('projectId', () => String) projectId: string,
    @Arg('sessionId', () => String) sessionId: string,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'sessionEvidence', { projectId, sessionId });
  }

  @Mutation(() => SessionDataErasedType, {
    description:
      "Erase a session's sealed data and review images now, keeping its decision (REST: DELETE /api/v2/session/{id}/data); admin role",
  })
  async eraseSessionData(@Arg('input', () => SessionRefInput) input: SessionRefInput, @Ctx() ctx: GraphContext) {
    return camelView(erasedWire, (await run(ctx, 'eraseSessionData', input)) as ErasedWire);
  }

  @FieldResolver(() => [SessionCheckType])
  checks(@Root() session: DetailedSession, @Ctx() ctx: GraphContext) {
    return session.checks ?? ctx.loaders.checks.load(session.id);
  }

  @FieldResolver(() => [TimelineEntryType])
  timeline(@Root() session: DetailedSession, @Ctx() ctx: GraphContext) {
    return session.timeline ?? ctx.loaders.timeline.load(session.id);
  }

  @FieldResolver(() => [WebhookEventType])
  webhookEvents(@Root() session: DetailedSession, @Ctx() ctx: GraphContext) {
    return session.webhookEvents ?? ctx.loaders.webhookEvents.load(session.id);
  }

  @FieldResolver(() => WorkflowType, { nullable: true })
  workflow(@Root() session: SessionNode, @Ctx() ctx: GraphContext) {
    return ctx.loaders.workflows.load(session.workflowId);
  }

  @FieldResolver(() => [String], {
    description:
      'Checks an approval needs that the session lacks (id_verification, liveness, face_match): approving is refused (required_face_checks_incomplete) unless this is empty',
  })
  async approvalBlockers(@Root() session: DetailedSession, @Ctx() ctx: GraphContext) {
    return approvalBlockers((session.checks as CheckNode[] | undefined) ?? (await ctx.loaders.checks.load(session.id)));
  }
}

@Resolver(() => SessionCheckType)
export class SessionCheckResolver {
  /** Opened only when asked for (and allowed): a page of checks without details never unseals anything. */
  @FieldResolver(() => String, {
    nullable: true,
    description:
      'The check data and error as JSON, opened for reviewers and admins only (null for viewers); never images',
  })
  details(
    @Root() check: CheckNode | (Omit<CheckNode, 'detailSealed'> & { details: string | null }),
    @Ctx() ctx: GraphContext,
  ) {
    return 'detailSealed' in check ? ctx.core.ops.openDetails(check.detailSealed, ctx.scope.role) : check.details;
  }
}

@Resolver(() => WebhookEventType)
export class WebhookEventResolver {
  @Query(() => WebhookEventConnection, {
    description: 'Webhook events of a project, newest first; filter by state (failed, pending ...) or session',
  })
  webhookEvents(
    @Arg('projectId', () => String) projectId: string,
    @Arg('state', () => String, { nullable: true }) state: string | null,
    @Arg('sessionId', () => String, { nullable: true }) sessionId: string | null,
    @Args(() => PageArgs) pageArgs: PageArgs,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'webhookEvents', {
      projectId,
      state: state ?? undefined,
      sessionId: sessionId ?? undefined,
      ...defined(pageArgs),
    });
  }

  @Query(() => [WebhookAttemptType], { description: 'Delivery attempts of one webhook event' })
  webhookAttempts(
    @Arg('projectId', () => String) projectId: string,
    @Arg('eventId', () => String) eventId: string,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'webhookAttempts', { projectId, eventId });
  }

  @Mutation(() => WebhookEventType, { description: 'Send a webhook event again (a new attempt series)' })
  resendWebhookEvent(@Arg('input', () => WebhookEventRefInput) input: WebhookEventRefInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'resendWebhookEvent', input);
  }

  @Mutation(() => ResendFailedWebhooksPayload, {
    description:
      'Send again every failed event of the project created in [from, to) (at most 5000 a call); returns how many were queued',
  })
  resendFailedWebhooks(
    @Arg('input', () => ResendFailedWebhooksInput) input: ResendFailedWebhooksInput,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'resendFailedWebhooks', input);
  }

  @Query(() => [WebhookDestinationHealthType], {
    description:
      'Health of each webhook destination of the project (events in the last 7 days or pending), unhealthy first',
  })
  webhookHealth(@Arg('projectId', () => String) projectId: string, @Ctx() ctx: GraphContext) {
    return run(ctx, 'webhookHealth', { projectId });
  }

  @FieldResolver(() => SessionType, { nullable: true, description: 'The session the event is about' })
  session(@Root() event: WebhookEventNode, @Ctx() ctx: GraphContext) {
    return ctx.loaders.sessions.load(event.sessionId);
  }

  @FieldResolver(() => [WebhookAttemptType])
  attempts(@Root() event: WebhookEventNode & { attempts?: WebhookAttemptNode[] }, @Ctx() ctx: GraphContext) {
    return event.attempts ?? ctx.loaders.attempts.load(event.id);
  }
}

@Resolver()
export class OpsResolver {
  @Query(() => CheckRecordConnection, { description: 'Standalone check records of a project, newest first' })
  checkRecords(
    @Arg('projectId', () => String) projectId: string,
    @Arg('type', () => String, { nullable: true }) type: string | null,
    @Arg('status', () => String, { nullable: true }) status: string | null,
    @Args(() => PageArgs) pageArgs: PageArgs,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'checkRecords', {
      projectId,
      type: type ?? undefined,
      status: status ?? undefined,
      ...defined(pageArgs),
    });
  }

  @Query(() => AccountConnection, {
    description: "Accounts seen in the project's sessions and checks, without identity data",
  })
  accounts(
    @Arg('projectId', () => String) projectId: string,
    @Args(() => PageArgs) pageArgs: PageArgs,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'accounts', { projectId, ...defined(pageArgs) });
  }

  @Query(() => AccountIdentityType, {
    description: 'Raw identity data of an account: admin role only; every read is recorded in the admin audit',
  })
  accountIdentity(
    @Arg('projectId', () => String) projectId: string,
    @Arg('svcId', () => String) svcId: string,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'accountIdentity', { projectId, svcId });
  }

  @Query(() => AdminAuditConnection, { description: 'Sensitive admin reads, newest first (admin role)' })
  adminAudit(
    @Arg('projectId', () => String, { nullable: true }) projectId: string | null,
    @Args(() => PageArgs) pageArgs: PageArgs,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'adminAudit', { projectId: projectId ?? undefined, ...defined(pageArgs) });
  }

  @Query(() => [OrganizationType], {
    description: 'Organizations the token can see (a project-scoped token: those of its OIDC clients)',
  })
  organizations(@Ctx() ctx: GraphContext) {
    return run(ctx, 'organizations');
  }

  @Query(() => MemberConnection, { description: 'Members of an organization, oldest first' })
  members(
    @Arg('organizationId', () => Int) organizationId: number,
    @Arg('status', () => String, { nullable: true }) status: string | null,
    @Args(() => PageArgs) pageArgs: PageArgs,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'members', { organizationId, status: status ?? undefined, ...defined(pageArgs) });
  }

  @Query(() => MemberConnection, { description: 'Open invitations (invited or link_sent) of an organization' })
  invitations(
    @Arg('organizationId', () => Int) organizationId: number,
    @Args(() => PageArgs) pageArgs: PageArgs,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'invitations', { organizationId, ...defined(pageArgs) });
  }

  @Query(() => OrganizationBillingType, { description: 'Roster plan, seats and invoices of an organization' })
  organizationBilling(@Arg('organizationId', () => Int) organizationId: number, @Ctx() ctx: GraphContext) {
    return run(ctx, 'organizationBilling', { organizationId });
  }

  @Mutation(() => InviteMembersPayload, {
    description: 'Add and invite members (the same rules as POST /api/sdk/members)',
  })
  inviteMembers(@Arg('input', () => InviteMembersInput) input: InviteMembersInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'inviteMembers', { ...input, members: input.members.map((member) => defined(member)) });
  }

  @Mutation(() => MemberType, {
    nullable: true,
    description: 'Deactivate a member: billing stops, their app logins are revoked',
  })
  deactivateMember(@Arg('input', () => MemberActionInput) input: MemberActionInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'deactivateMember', input);
  }

  @Mutation(() => MemberType, { nullable: true })
  reactivateMember(@Arg('input', () => MemberActionInput) input: MemberActionInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'reactivateMember', input);
  }

  @Mutation(() => InvitedMemberType, {
    description: 'A new activation link for an invited member (the old one stops working)',
  })
  resendInvitation(@Arg('input', () => MemberActionInput) input: MemberActionInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'resendInvitation', input);
  }

  @Query(() => [StatusDayCountType], {
    description: 'Sessions created per UTC day and status in [from, to) (default: the last 30 days)',
  })
  sessionsPerDay(@Args(() => AggregateArgs) args: AggregateArgs, @Ctx() ctx: GraphContext) {
    return run(ctx, 'sessionsPerDay', defined(args));
  }

  @Query(() => [WorkflowApprovalType], { description: 'Approval rate per workflow of sessions created in [from, to)' })
  approvalRates(@Args(() => AggregateArgs) args: AggregateArgs, @Ctx() ctx: GraphContext) {
    return run(ctx, 'approvalRates', defined(args));
  }

  @Query(() => TimeToDecisionType, { description: 'Median time from creation to an APPROVED or DECLINED decision' })
  timeToDecision(@Args(() => AggregateArgs) args: AggregateArgs, @Ctx() ctx: GraphContext) {
    return run(ctx, 'timeToDecision', defined(args));
  }

  @Query(() => [CheckFailureReasonType], { description: 'Why checks did not pass, in sessions and standalone' })
  checkFailureReasons(@Args(() => AggregateArgs) args: AggregateArgs, @Ctx() ctx: GraphContext) {
    return run(ctx, 'checkFailureReasons', defined(args));
  }

  @Query(() => WebhookStatsType, { description: 'Webhook success rate and backlog of events created in [from, to)' })
  webhookStats(@Args(() => AggregateArgs) args: AggregateArgs, @Ctx() ctx: GraphContext) {
    return run(ctx, 'webhookStats', defined(args));
  }
}
