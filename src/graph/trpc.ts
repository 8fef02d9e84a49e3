import { initTRPC, TRPCError } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { adminOperations, runAdminOperation, type AdminOperationName, type AdminOperations } from '../core/admin.js';
import { isDatabaseUnavailable, outageError, outageReason } from '../core/db/unavailable.js';
import { DomainError } from '../core/errors.js';
import type { Core } from '../core/index.js';
import type { AdminCaller } from '../core/ops/service.js';
import type { Logger } from '../logger.js';
import { bearer } from '../rest/auth.js';
import { unacceptableJson } from '../http/input.js';
import { MAX_PAGE, QUERY_LIMITS } from './limits.js';

interface TrpcContext {
  core: Core;
  scope: AdminCaller | null;
  /** What this HTTP request has cost so far, over every call of its batch (see chargeCost). */
  cost: { spent: number };
}

/** Calls one HTTP request may batch (tRPC answers more with 400). */
export const MAX_BATCH = 10;
/** Rows (or calls) one HTTP request may cost: a tenth of GraphQL's budget, five full pages. */
const TRPC_BUDGET = QUERY_LIMITS.maxCost / 10;

/**
 * A cost budget per HTTP request, over every call of its batch: a list costs its page size
 * (`first`), anything else 1. Five full pages fit in one request; ten do not.
 */
function chargeCost(ctx: TrpcContext, input: unknown): void {
  const first =
    input && typeof input === 'object' && 'first' in input ? Number((input as { first?: unknown }).first) : NaN;
  ctx.cost.spent += Number.isInteger(first) && first > 0 ? Math.min(first, MAX_PAGE) : 1;
  if (ctx.cost.spent > TRPC_BUDGET) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `request cost over the limit of ${TRPC_BUDGET}: ask for smaller pages or fewer calls`,
      cause: new DomainError('validation_error', 'request cost over the limit'),
    });
  }
}

const TRPC_CODE: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

/** The catalog error behind a failure: a domain error, or 503 service_unavailable for a database outage. */
const domainOf = (cause: unknown): DomainError | undefined =>
  cause instanceof DomainError ? cause : outageError(cause);

/** A failure as a tRPC error that keeps the catalog code (the original stays its cause, for the log). */
function asTrpcError(error: unknown): unknown {
  const domain = domainOf(error);
  return domain
    ? new TRPCError({
        code: TRPC_CODE[domain.status] ?? 'INTERNAL_SERVER_ERROR',
        message: domain.message,
        cause: error as Error,
      })
    : error;
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const domain = domainOf(error.cause);
    return {
      ...shape,
      message: domain ? domain.message : error.code === 'INTERNAL_SERVER_ERROR' ? 'unexpected error' : shape.message,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        domainCode: domain?.code ?? (error.code === 'INTERNAL_SERVER_ERROR' ? 'internal_error' : 'validation_error'),
      },
    };
  },
});

const authed = t.procedure.use(async ({ ctx, next, getRawInput }) => {
  if (!ctx.scope)
    throw new TRPCError({
      code: 'UNAUTHORIZED',
      message: 'missing or invalid admin token',
      cause: new DomainError('unauthenticated', 'missing or invalid admin token'),
    });
  const input = await getRawInput();
  const unacceptable = unacceptableJson(input);
  if (unacceptable)
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: unacceptable,
      cause: new DomainError('validation_error', unacceptable),
    });
  chargeCost(ctx, input);
  return next({ ctx: { core: ctx.core, scope: ctx.scope } });
});

/** Runs an admin operation for a tRPC call, with domain errors as tRPC errors that keep the catalog code. */
function resolver<K extends AdminOperationName>(name: K) {
  return async ({ ctx, input }: { ctx: { core: Core; scope: AdminCaller }; input: unknown }) => {
    try {
      return await runAdminOperation(ctx.core, ctx.scope, name, input);
    } catch (error) {
      throw asTrpcError(error);
    }
  };
}

function kindOf(name: AdminOperationName, kind: 'query' | 'mutation'): AdminOperationName {
  if (adminOperations[name].kind !== kind) throw new Error(`${name} is a ${adminOperations[name].kind}, not a ${kind}`);
  return name;
}

/** A tRPC query (or mutation, below) per admin operation, with the operation's own zod input schema. */
const query = <K extends AdminOperationName>(name: K) =>
  authed.input(adminOperations[name].input as AdminOperations[K]['input']).query(resolver(kindOf(name, 'query') as K));
const mutation = <K extends AdminOperationName>(name: K) =>
  authed
    .input(adminOperations[name].input as AdminOperations[K]['input'])
    .mutation(resolver(kindOf(name, 'mutation') as K));

export const adminRouter = t.router({
  projects: query('projects'),
  project: query('project'),
  apiKeys: query('apiKeys'),
  workflows: query('workflows'),
  callbackDestinations: query('callbackDestinations'),
  oidcClients: query('oidcClients'),
  orgApps: query('orgApps'),
  charges: query('charges'),
  checkRecords: query('checkRecords'),
  me: query('me'),
  sessions: query('sessions'),
  reviewQueue: query('reviewQueue'),
  session: query('session'),
  webhookEvents: query('webhookEvents'),
  webhookAttempts: query('webhookAttempts'),
  accounts: query('accounts'),
  accountIdentity: query('accountIdentity'),
  sessionEvidence: query('sessionEvidence'),
  adminAudit: query('adminAudit'),
  organizations: query('organizations'),
  members: query('members'),
  invitations: query('invitations'),
  organizationBilling: query('organizationBilling'),
  sessionsPerDay: query('sessionsPerDay'),
  approvalRates: query('approvalRates'),
  timeToDecision: query('timeToDecision'),
  checkFailureReasons: query('checkFailureReasons'),
  webhookStats: query('webhookStats'),
  reviewSession: mutation('reviewSession'),
  eraseSessionData: mutation('eraseSessionData'),
  resendWebhookEvent: mutation('resendWebhookEvent'),
  inviteMembers: mutation('inviteMembers'),
  deactivateMember: mutation('deactivateMember'),
  reactivateMember: mutation('reactivateMember'),
  resendInvitation: mutation('resendInvitation'),
  topUpWallet: mutation('topUpWallet'),
  createProject: mutation('createProject'),
  createApiKey: mutation('createApiKey'),
  revokeApiKey: mutation('revokeApiKey'),
  createWorkflow: mutation('createWorkflow'),
  approveCallback: mutation('approveCallback'),
  setCallbackActive: mutation('setCallbackActive'),
  setDefaultCallback: mutation('setDefaultCallback'),
  setEvidenceRetention: mutation('setEvidenceRetention'),
  setProjectBranding: mutation('setProjectBranding'),
  createOidcClient: mutation('createOidcClient'),
  createOrgApp: mutation('createOrgApp'),
  createAdminToken: mutation('createAdminToken'),
  adminTokens: query('adminTokens'),
  rotateWebhookSecret: mutation('rotateWebhookSecret'),
  setOidcClientActive: mutation('setOidcClientActive'),
  rotateOidcClientSecret: mutation('rotateOidcClientSecret'),
  setOidcClientPkce: mutation('setOidcClientPkce'),
  setOrgAppActive: mutation('setOrgAppActive'),
  rotateOrgAppSecret: mutation('rotateOrgAppSecret'),
  revokeAdminToken: mutation('revokeAdminToken'),
  setPlan: mutation('setPlan'),
});

/** The router's type, for typed TypeScript clients (`createTRPCClient<AdminRouter>`). */
export type AdminRouter = typeof adminRouter;

export function trpcMiddleware(core: Core, logger: Logger) {
  return createExpressMiddleware({
    router: adminRouter,
    maxBatchSize: MAX_BATCH,
    createContext: async ({ req }) => {
      const token = bearer(req);
      try {
        return { core, scope: token ? await core.tenancy.authenticateAdminToken(token) : null, cost: { spent: 0 } };
      } catch (error) {
        throw asTrpcError(error);
      }
    },
    onError: ({ error }) => {
      if (isDatabaseUnavailable(error.cause))
        logger.warn({ database: outageReason(error.cause) }, 'database unavailable');
      if (error.code === 'INTERNAL_SERVER_ERROR' && !(error.cause instanceof DomainError))
        logger.error({ err: error.cause ?? error }, 'trpc error');
    },
  });
}
