import { z } from 'zod';
import { DomainError } from './errors.js';
import type { Core } from './index.js';
import type { AdminRole } from './tenancy/entities.js';
import {
  callbackUrlInput,
  createAdminTokenInput,
  revokeAdminTokenInput,
  rotateWebhookSecretInput,
  oidcClientActiveInput,
  oidcClientPkceInput,
  oidcClientRefInput,
  orgAppActiveInput,
  orgAppRefInput,
  createApiKeyInput,
  createOidcClientInput,
  createOrgAppInput,
  createProjectInput,
  createWorkflowInput,
  brandingInput,
  defaultCallbackInput,
  evidenceRetentionInput,
  projectId,
  revokeApiKeyInput,
  setCallbackActiveInput,
} from './tenancy/inputs.js';
import { parseInput } from './validation.js';
import { setPlanInput } from './roster/inputs.js';
import {
  accountIdentityInput,
  accountsInput,
  adminAuditInput,
  aggregatesInput,
  checkRecordsInput,
  inviteMembersInput,
  memberActionInput,
  membersInput,
  organizationInput,
  resendFailedWebhooksInput,
  reviewQueueInput,
  reviewSessionInput,
  sessionInput,
  sessionsInput,
  webhookEventInput,
  webhookEventsInput,
} from './ops/inputs.js';
import { webhookHealth } from './webhooks/health.js';
import type { SessionEvidenceView } from './ops/views.js';
import { camelMember, type AdminCaller } from './ops/service.js';
import { billingWire, type memberView } from './roster/views.js';
import { camelView } from './camel.js';

// The operations of the admin API, once. GraphQL resolvers and tRPC procedures are thin fronts
// over this table: the same input schema, the same role rule, the same project isolation.

interface Operation<S extends z.ZodType, R> {
  kind: 'query' | 'mutation';
  role: AdminRole;
  /** Only an unscoped (all-projects) token may run it: creating projects, organizations, tokens. */
  global?: boolean;
  input: S;
  run: (core: Core, input: z.output<S>, caller: AdminCaller) => Promise<R>;
}

/** The image type from its first bytes (the hosted page sends JPEG or PNG). */
const mimeOf = (bytes: Buffer) =>
  bytes[0] === 0x89 && bytes[1] === 0x50
    ? 'image/png'
    : bytes[0] === 0x52 && bytes[8] === 0x57
      ? 'image/webp'
      : 'image/jpeg';

const op = <S extends z.ZodType, R>(operation: Operation<S, R>) => operation;
const byProject = z.object({ projectId });
const pageOfProject = z.object({ projectId, limit: z.number().int().min(1).max(500).optional() });
const aggregate = <R>(compute: (core: Core, range: ReturnType<Core['ops']['aggregates']['range']>) => Promise<R>) =>
  op({
    kind: 'query',
    role: 'viewer',
    input: aggregatesInput,
    run: (core, input) => compute(core, core.ops.aggregates.range(input)),
  });

/** The roster service's caller for an admin: the audit trail names the admin token. */
const rosterCaller = (organizationId: number, caller: AdminCaller) => ({
  organizationId,
  clientId: `admin:${caller.tokenId}`,
});
const memberOutcome = (outcome: { member: ReturnType<typeof memberView> | null }) =>
  outcome.member ? camelMember(outcome.member) : null;

/** The roster's Billing object in the admin API's camelCase. */
async function organizationBilling(core: Core, organizationId: number) {
  const billing = await core.roster.billing(organizationId);
  const plan = billing.subscription;
  return {
    organizationId,
    ...camelView(billingWire, billing),
    subscription: plan && camelView(billingWire.shape.subscription.unwrap(), plan),
    invoices: billing.invoices.map((invoice) => camelView(billingWire.shape.invoices.element, invoice)),
  };
}

export const adminOperations = {
  projects: op({
    kind: 'query',
    role: 'viewer',
    input: z.object({}),
    run: (core, _input, scope) => core.tenancy.listProjects(scope),
  }),
  project: op({
    kind: 'query',
    role: 'viewer',
    input: byProject,
    run: (core, input) => core.tenancy.getProject(input.projectId),
  }),
  apiKeys: op({
    kind: 'query',
    role: 'viewer',
    input: byProject,
    run: (core, input) => core.tenancy.listApiKeys(input.projectId),
  }),
  workflows: op({
    kind: 'query',
    role: 'viewer',
    input: byProject,
    run: (core, input) => core.tenancy.listWorkflows(input.projectId),
  }),
  callbackDestinations: op({
    kind: 'query',
    role: 'viewer',
    input: byProject,
    run: (core, input) => core.tenancy.listCallbacks(input.projectId),
  }),
  oidcClients: op({
    kind: 'query',
    role: 'viewer',
    input: byProject,
    run: (core, input) => core.tenancy.listOidcClients(input.projectId),
  }),
  orgApps: op({
    kind: 'query',
    role: 'viewer',
    global: true,
    input: z.object({}),
    run: (core) => core.tenancy.listOrgApps(),
  }),
  charges: op({
    kind: 'query',
    role: 'viewer',
    input: pageOfProject,
    run: (core, input) => core.billing.listCharges(input.projectId, { limit: input.limit }),
  }),
  checkRecords: op({
    kind: 'query',
    role: 'viewer',
    input: checkRecordsInput,
    run: (core, input) => core.ops.checkRecords(input),
  }),

  // ---- ops: who am I, sessions, reviews, webhooks, accounts, roster, aggregates ----
  me: op({ kind: 'query', role: 'viewer', input: z.object({}), run: async (_core, _input, caller) => caller }),
  sessions: op({ kind: 'query', role: 'viewer', input: sessionsInput, run: (core, input) => core.ops.sessions(input) }),
  reviewQueue: op({
    kind: 'query',
    role: 'viewer',
    input: reviewQueueInput,
    run: (core, input) => core.ops.reviewQueue(input),
  }),
  session: op({
    kind: 'query',
    role: 'viewer',
    input: sessionInput,
    run: (core, input, caller) => core.ops.sessionDetail(input.projectId, input.sessionId, caller.role),
  }),
  webhookEvents: op({
    kind: 'query',
    role: 'viewer',
    input: webhookEventsInput,
    run: (core, input) => core.ops.webhookEvents(input),
  }),
  webhookAttempts: op({
    kind: 'query',
    role: 'viewer',
    input: webhookEventInput,
    run: async (core, input) => (
      await core.ops.webhookEvent(input.projectId, input.eventId),
      (await core.ops.attemptsByEvents([input.eventId])).get(input.eventId) ?? []
    ),
  }),
  accounts: op({ kind: 'query', role: 'viewer', input: accountsInput, run: (core, input) => core.ops.accounts(input) }),
  /** Raw identity data: admins only, each read recorded in admin_audit. */
  accountIdentity: op({
    kind: 'query',
    role: 'admin',
    input: accountIdentityInput,
    run: (core, input, caller) => core.ops.accountIdentity(caller, input.projectId, input.svcId),
  }),
  adminAudit: op({
    kind: 'query',
    role: 'admin',
    input: adminAuditInput,
    run: (core, input, caller) => core.ops.adminAudit(caller, input),
  }),
  organizations: op({
    kind: 'query',
    role: 'viewer',
    input: z.object({}),
    run: (core, _input, caller) => core.ops.organizations(caller),
  }),
  members: op({ kind: 'query', role: 'viewer', input: membersInput, run: (core, input) => core.ops.members(input) }),
  invitations: op({
    kind: 'query',
    role: 'viewer',
    input: membersInput.omit({ status: true }),
    run: (core, input) => core.ops.members(input, ['invited', 'link_sent']),
  }),
  organizationBilling: op({
    kind: 'query',
    role: 'viewer',
    input: organizationInput,
    run: (core, input) => organizationBilling(core, input.organizationId),
  }),
  sessionsPerDay: aggregate((core, range) => core.ops.aggregates.sessionsPerDay(range)),
  approvalRates: aggregate((core, range) => core.ops.aggregates.approvalRates(range)),
  timeToDecision: aggregate((core, range) => core.ops.aggregates.timeToDecision(range)),
  checkFailureReasons: aggregate((core, range) => core.ops.aggregates.checkFailureReasons(range)),
  webhookStats: aggregate((core, range) => core.ops.aggregates.webhookStats(range)),
  /**
   * Per destination of the project: recent success, consecutive failures, next retry, healthy (see
   * isDestinationHealthy).
   */
  webhookHealth: op({
    kind: 'query',
    role: 'viewer',
    input: byProject,
    run: (core, input) => webhookHealth(core.orm, { now: core.clock.now(), projectId: input.projectId }),
  }),

  /**
   * Review images of a session (reviewers and admins of its project); every image served is recorded in admin_audit.
   */
  sessionEvidence: op({
    kind: 'query',
    role: 'reviewer',
    input: sessionInput,
    run: async (core, input, caller): Promise<SessionEvidenceView[]> => {
      const images = await core.sessions.evidenceOf(input.projectId, input.sessionId);
      for (const image of images)
        await core.ops.audit(caller, {
          action: `session.evidence.view:${image.kind}`,
          target: `${input.sessionId}/${image.id}`,
          projectId: input.projectId,
        });
      return images.map((image) => ({
        id: image.id,
        kind: image.kind,
        attempt: image.attempt,
        createdAt: image.createdAt.toISOString(),
        dataUrl: `data:${mimeOf(image.bytes)};base64,${image.bytes.toString('base64')}`,
      }));
    },
  }),
  /** DELETE /api/v2/session/{id}/data from the console: admins only, recorded as admin:<token id>. */
  eraseSessionData: op({
    kind: 'mutation',
    role: 'admin',
    input: sessionInput,
    run: (core, input, caller) => core.sessions.eraseData(input.projectId, input.sessionId, `admin:${caller.tokenId}`),
  }),

  /** The manual review of the REST PATCH: same rules (409s, one winner), recorded as admin:<token id>. */
  reviewSession: op({
    kind: 'mutation',
    role: 'reviewer',
    input: reviewSessionInput,
    run: async (core, input, caller) => {
      await core.sessions.review(
        input.projectId,
        input.sessionId,
        `admin:${caller.tokenId}`,
        { status: input.status },
        input.note,
      );
      return core.ops.sessionDetail(input.projectId, input.sessionId, caller.role);
    },
  }),
  resendWebhookEvent: op({
    kind: 'mutation',
    role: 'admin',
    input: webhookEventInput,
    run: async (core, input) => {
      await core.webhooks.resend(input.projectId, input.eventId);
      return core.ops.webhookEvent(input.projectId, input.eventId);
    },
  }),
  resendFailedWebhooks: op({
    kind: 'mutation',
    role: 'admin',
    input: resendFailedWebhooksInput,
    run: async (core, input) => ({
      from: input.from,
      to: input.to,
      ...(await core.webhooks.resendFailed(input.projectId, { from: new Date(input.from), to: new Date(input.to) })),
    }),
  }),
  inviteMembers: op({
    kind: 'mutation',
    role: 'admin',
    input: inviteMembersInput,
    run: async (core, input, caller) => {
      const members = input.members.map((member) => ({
        email: member.email,
        first_name: member.firstName,
        last_name: member.lastName,
        role: member.role,
      }));
      const outcome = await core.roster.addMembers(rosterCaller(input.organizationId, caller), {
        members,
        notify: input.notify,
        invite: input.invite,
      });
      return {
        created: outcome.created.map((member) => ({
          member: camelMember(member),
          activationLink: member.activation_link,
          inviteMethod: member.invite_method,
        })),
        skipped: outcome.skipped,
        notified: outcome.notified,
      };
    },
  }),
  deactivateMember: op({
    kind: 'mutation',
    role: 'admin',
    input: memberActionInput,
    run: async (core, input, caller) =>
      memberOutcome(await core.roster.deactivate(rosterCaller(input.organizationId, caller), input.memberId)),
  }),
  reactivateMember: op({
    kind: 'mutation',
    role: 'admin',
    input: memberActionInput,
    run: async (core, input, caller) =>
      memberOutcome(await core.roster.reactivate(rosterCaller(input.organizationId, caller), input.memberId)),
  }),
  resendInvitation: op({
    kind: 'mutation',
    role: 'admin',
    input: memberActionInput,
    run: async (core, input, caller) => {
      const outcome = await core.roster.invite(rosterCaller(input.organizationId, caller), input.memberId);
      return { member: camelMember(outcome.member), activationLink: outcome.activation_link, inviteMethod: 'face' };
    },
  }),

  createProject: op({
    kind: 'mutation',
    role: 'admin',
    global: true,
    input: createProjectInput,
    run: (core, input) => core.tenancy.createProject(input),
  }),
  createApiKey: op({
    kind: 'mutation',
    role: 'admin',
    input: createApiKeyInput,
    run: (core, input) => core.tenancy.createApiKey(input),
  }),
  revokeApiKey: op({
    kind: 'mutation',
    role: 'admin',
    input: revokeApiKeyInput,
    run: (core, input) => core.tenancy.revokeApiKey(input),
  }),
  createWorkflow: op({
    kind: 'mutation',
    role: 'admin',
    input: createWorkflowInput,
    run: (core, input) => core.tenancy.createWorkflow(input),
  }),
  approveCallback: op({
    kind: 'mutation',
    role: 'admin',
    input: callbackUrlInput,
    run: (core, input) => core.tenancy.approveCallback(input),
  }),
  setCallbackActive: op({
    kind: 'mutation',
    role: 'admin',
    input: setCallbackActiveInput,
    run: (core, input) => core.tenancy.setCallbackActive(input),
  }),
  setEvidenceRetention: op({
    kind: 'mutation',
    role: 'admin',
    input: evidenceRetentionInput,
    run: (core, input) => core.tenancy.setEvidenceRetention(input),
  }),
  setDefaultCallback: op({
    kind: 'mutation',
    role: 'admin',
    input: defaultCallbackInput,
    run: (core, input) => core.tenancy.setDefaultCallback(input),
  }),
  setProjectBranding: op({
    kind: 'mutation',
    role: 'admin',
    input: brandingInput,
    run: (core, input) => core.tenancy.setBranding(input),
  }),
  createOidcClient: op({
    kind: 'mutation',
    role: 'admin',
    input: createOidcClientInput,
    run: (core, input) => core.tenancy.createOidcClient(input),
  }),
  topUpWallet: op({
    kind: 'mutation',
    role: 'admin',
    global: true,
    input: z.object({ projectId, amount: z.number().positive().max(1e9) }),
    run: async (core, input) => {
      await core.billing.topUp(input.projectId, input.amount);
      return core.tenancy.getProject(input.projectId);
    },
  }),
  createOrgApp: op({
    kind: 'mutation',
    role: 'admin',
    global: true,
    input: createOrgAppInput,
    run: (core, input) => core.tenancy.createOrgApp(input),
  }),
  createAdminToken: op({
    kind: 'mutation',
    role: 'admin',
    global: true,
    input: createAdminTokenInput,
    run: (core, input) => core.tenancy.createAdminToken(input),
  }),
  setOidcClientActive: op({
    kind: 'mutation',
    role: 'admin',
    input: oidcClientActiveInput,
    run: (core, input) => core.tenancy.setOidcClientActive(input),
  }),
  rotateOidcClientSecret: op({
    kind: 'mutation',
    role: 'admin',
    input: oidcClientRefInput,
    run: (core, input) => core.tenancy.rotateOidcClientSecret(input),
  }),
  setOidcClientPkce: op({
    kind: 'mutation',
    role: 'admin',
    input: oidcClientPkceInput,
    run: (core, input) => core.tenancy.setOidcClientPkce(input),
  }),
  setOrgAppActive: op({
    kind: 'mutation',
    role: 'admin',
    global: true,
    input: orgAppActiveInput,
    run: (core, input) => core.tenancy.setOrgAppActive(input),
  }),
  rotateOrgAppSecret: op({
    kind: 'mutation',
    role: 'admin',
    global: true,
    input: orgAppRefInput,
    run: (core, input) => core.tenancy.rotateOrgAppSecret(input),
  }),
  rotateWebhookSecret: op({
    kind: 'mutation',
    role: 'admin',
    input: rotateWebhookSecretInput,
    run: (core, input) => core.tenancy.rotateWebhookSecret(input),
  }),
  adminTokens: op({
    kind: 'query',
    role: 'admin',
    global: true,
    input: z.object({}),
    run: (core) => core.tenancy.adminTokens(),
  }),
  revokeAdminToken: op({
    kind: 'mutation',
    role: 'admin',
    global: true,
    input: revokeAdminTokenInput,
    run: (core, input) => core.tenancy.revokeAdminToken(input),
  }),
  setPlan: op({
    kind: 'mutation',
    role: 'admin',
    global: true,
    input: setPlanInput,
    run: (core, input) => core.roster.setPlan(input),
  }),
};

export type AdminOperations = typeof adminOperations;
export type AdminOperationName = keyof AdminOperations;
export type AdminResult<K extends AdminOperationName> = Awaited<ReturnType<AdminOperations[K]['run']>>;

/** Runs one admin operation for a caller: role, then input, then project isolation, then the work. */
export async function runAdminOperation<K extends AdminOperationName>(
  core: Core,
  caller: AdminCaller,
  name: K,
  rawInput: unknown,
): Promise<AdminResult<K>> {
  const operation = adminOperations[name] as unknown as Operation<z.ZodType, AdminResult<K>>;
  core.tenancy.requireRole(caller, operation.role);
  if (operation.global && caller.projectId !== null) {
    throw new DomainError('forbidden', 'this needs a token that is not scoped to one project');
  }
  const input = parseInput(operation.input, rawInput ?? {}) as { projectId?: string; organizationId?: number };
  if (typeof input.projectId === 'string') core.tenancy.requireProjectAccess(caller, input.projectId);
  if (typeof input.organizationId === 'number' && !operation.global)
    await core.ops.requireOrganizationAccess(caller, input.organizationId);
  return operation.run(core, input, caller);
}
