import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { DomainError, type ErrorCode } from '../../core/errors.js';
import type { Core } from '../../core/index.js';
import { MEMBER_ROLES, MEMBER_STATUSES } from '../../core/roster/entities.js';
import { addMembersInput, listMembersQuery, MEMBER_PAGE_MAX, removeMemberQuery, resolveMemberInput } from '../../core/roster/inputs.js';
import type { OrgCaller } from '../auth.js';
import { sendData } from '../envelope.js';
import { toDomainError } from '../errors.js';
import type { ApiDocs } from '../openapi.js';

/** Exported for the activation page's JSON answer (src/web/activation-pages.ts). */
export const member = z.object({
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
const createdMember = member.extend({
  activation_link: z.string().nullable(),
  invite_method: z.enum(['face', 'email', 'none']),
  reactivated: z.literal(true).optional(),
});
const billing = z.object({
  subscription: z.object({ plan: z.string(), status: z.string(), price_per_seat: z.number(), in_trial: z.boolean(), trial_ends_at: z.string().nullable(), current_period_end: z.string() }).nullable(),
  seats: z.number().int(),
  estimated_next_charge: z.number(),
  currency: z.string(),
  balance: z.number(),
  invoices: z.array(z.object({ period: z.string(), seats: z.number().int(), amount: z.number(), created_at: z.string() })),
});

const AUTH_ERRORS: ErrorCode[] = ['invalid_client'];
const MEMBER_ERRORS: ErrorCode[] = [...AUTH_ERRORS, 'not_found'];

/**
 * More members follow: the cursor in `X-Next-Cursor`, and the next page's URL (same limit) in a
 * `Link` header (RFC 8288), so the body keeps the spec's shape.
 */
function announceNextPage(res: Response, query: Request['query'], cursor: string): void {
  const next = new URLSearchParams({ cursor });
  if (typeof query.limit === 'string') next.set('limit', query.limit);
  res.setHeader('X-Next-Cursor', cursor);
  res.setHeader('Link', `</api/sdk/members?${next}>; rel="next"`);
}

/**
 * The roster's own bad-input answer is 400 `invalid_request` with `data.errors`: a body that is
 * not JSON (or nests too deep) gets the same, naming `body`. Mounted after the roster routes.
 */
export function rosterBodyErrors(error: unknown, _req: Request, _res: Response, next: NextFunction): void {
  const known = toDomainError(error);
  if (known?.code !== 'validation_error') {
    next(error);
    return;
  }
  next(new DomainError('invalid_request', known.message, { data: { errors: { body: known.message } } }));
}

/** The organization roster API (`/api/sdk`, after `requireOrgClient`): thin routes over `core.roster`. */
export function rosterRouter(core: Core, docs: ApiDocs) {
  const router = Router();
  const caller = (res: Response) => res.locals.org as OrgCaller;
  const memberRef = (req: Request) => String(req.params.member_id);

  router.get('/members', async (req, res) => {
    const { members, organization, nextCursor } = await core.roster.listMembers(caller(res).organizationId, req.query);
    if (nextCursor) announceNextPage(res, req.query, nextCursor);
    sendData(res, { members, organization });
  });
  router.post('/members/resolve', async (req, res) => {
    sendData(res, await core.roster.resolve(caller(res).organizationId, req.body));
  });
  router.post('/members', async (req, res) => {
    sendData(res, await core.roster.addMembers(caller(res), req.body), 201);
  });
  router.patch('/members/:member_id/deactivate', async (req, res) => {
    sendData(res, await core.roster.deactivate(caller(res), memberRef(req)));
  });
  router.patch('/members/:member_id/reactivate', async (req, res) => {
    sendData(res, await core.roster.reactivate(caller(res), memberRef(req)));
  });
  router.post('/members/:member_id/invite', async (req, res) => {
    sendData(res, await core.roster.invite(caller(res), memberRef(req)));
  });
  router.delete('/members/:member_id', async (req, res) => {
    sendData(res, await core.roster.remove(caller(res), memberRef(req), req.query));
  });
  router.get('/billing', async (_req, res) => {
    sendData(res, await core.roster.billing(caller(res).organizationId));
  });

  const doc = { tag: 'organization roster', security: 'orgClient' as const };
  const path = (suffix: string) => `/api/sdk${suffix}`;
  docs.add(
    {
      ...doc,
      method: 'get',
      path: path('/members'),
      query: listMembersQuery,
      summary: `Members with the member role, oldest first, ${MEMBER_PAGE_MAX} per page by default; when more follow, the X-Next-Cursor header and a Link rel="next" header give the next page`,
      errors: [...AUTH_ERRORS, 'invalid_request'],
      response: z.object({ members: z.array(member), organization: z.object({ id: z.number().int(), name: z.string() }) }),
    },
    {
      ...doc,
      method: 'post',
      path: path('/members/resolve'),
      summary: 'Find a member (any role) by svc_id or email',
      body: resolveMemberInput,
      response: z.object({ found: z.boolean(), member: member.nullable() }),
      errors: [...AUTH_ERRORS, 'missing_identifier', 'invalid_request'],
    },
    {
      ...doc,
      method: 'post',
      path: path('/members'),
      successStatus: 201,
      summary: 'Add 1 to 500 members; per-member outcome. invite auto = email when notify, else a face link returned to the caller',
      body: addMembersInput,
      response: z.object({ created: z.array(createdMember), skipped: z.array(z.object({ email: z.string(), reason: z.string() })), notified: z.boolean() }),
      errors: [...AUTH_ERRORS, 'invalid_request'],
    },
    {
      ...doc,
      method: 'patch',
      path: path('/members/{member_id}/deactivate'),
      summary: 'Deactivate ({member_id}: member id, email or svc_id): billing stops, app logins revoked, row kept',
      response: z.object({ member }),
      errors: MEMBER_ERRORS,
    },
    { ...doc, method: 'patch', path: path('/members/{member_id}/reactivate'), summary: 'Reactivate: active when the account exists, else invited', response: z.object({ member }), errors: MEMBER_ERRORS },
    {
      ...doc,
      method: 'post',
      path: path('/members/{member_id}/invite'),
      summary: 'A new face activation link (supersedes the old), emailed and returned; 10 per minute per member',
      response: z.object({ member, activation_link: z.string() }),
      errors: [...MEMBER_ERRORS, 'already_active', 'deactivated', 'rate_limited'],
    },
    {
      ...doc,
      method: 'delete',
      path: path('/members/{member_id}'),
      query: removeMemberQuery,
      summary: 'Deactivate, or with permanent=true delete the row; idempotent (already_removed)',
      response: z.object({ member: member.nullable(), removed: z.boolean().optional(), already_removed: z.boolean().optional() }),
      errors: [...MEMBER_ERRORS, 'invalid_request'],
    },
    { ...doc, method: 'get', path: path('/billing'), summary: 'Plan, seats (active members), estimated next charge, balance and invoices', response: billing, errors: AUTH_ERRORS },
  );
  return router;
}
