import type { NextFunction, Request, Response } from 'express';
import { DomainError, type ErrorCode } from '../../core/errors.js';
import type { Core } from '../../core/index.js';
import { addMembersInput, listMembersQuery, MEMBER_PAGE_MAX, removeMemberQuery, resolveMemberInput } from '../../core/roster/inputs.js';
import { addedMembersWire, billingWire, invitedMemberWire, memberAnswerWire, memberPageWire, removedMemberWire, resolvedMemberWire } from '../../core/roster/views.js';
import type { OrgCaller } from '../auth.js';
import { sendData } from '../envelope.js';
import { toDomainError } from '../errors.js';
import type { ApiDocs } from '../openapi.js';
import { caseSensitiveRouter } from '../router.js';

const AUTH_ERRORS: ErrorCode[] = ['invalid_client'];

/** A member as the document's examples show it. */
const MEMBER_EXAMPLE = {
  id: 412,
  member_id: 'mem_6b8d0f2a4c6e8a1b3d5f7a9c',
  first_name: 'Dana',
  last_name: 'Whitfield',
  email: 'dana.whitfield@example.com',
  role: 'member',
  status: 'active',
  svc_id: 'svc_8d2f4a6b1c3e5f7091a2b3c4',
  active: true,
  created_at: '2026-10-02T14:05:31.000Z',
} as const;
const ACTIVATION_LINK = 'https://verity.example/activate/act_Zm9yRXhhbXBsZU9ubHlOb3RBUmVhbExpbmsw';
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
  const router = caseSensitiveRouter();
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
      response: memberPageWire,
      examples: { response: { members: [MEMBER_EXAMPLE], organization: { id: 17, name: 'Bayside Home Health' } } },
    },
    {
      ...doc,
      method: 'post',
      path: path('/members/resolve'),
      summary: 'Find a member (any role) by svc_id or email',
      body: resolveMemberInput,
      response: resolvedMemberWire,
      errors: [...AUTH_ERRORS, 'missing_identifier', 'invalid_request'],
      examples: { request: { email: 'dana.whitfield@example.com' }, response: { found: true, member: MEMBER_EXAMPLE } },
    },
    {
      ...doc,
      method: 'post',
      path: path('/members'),
      successStatus: 201,
      summary: 'Add 1 to 500 members; per-member outcome. invite auto = email when notify, else a face link returned to the caller',
      body: addMembersInput,
      response: addedMembersWire,
      errors: [...AUTH_ERRORS, 'invalid_request'],
      examples: {
        request: {
          members: [
            { email: 'marcus.reyes@example.com', first_name: 'Marcus', last_name: 'Reyes', role: 'member' },
            { email: 'dana.whitfield@example.com', first_name: 'Dana', last_name: 'Whitfield' },
          ],
          notify: false,
          invite: 'face',
        },
        response: {
          created: [
            {
              ...MEMBER_EXAMPLE,
              id: 413,
              member_id: 'mem_7c9e1a3b5d7f9b2c4e6a8b0d',
              first_name: 'Marcus',
              last_name: 'Reyes',
              email: 'marcus.reyes@example.com',
              status: 'link_sent',
              svc_id: null,
              active: false,
              created_at: '2026-11-27T09:12:44.000Z',
              activation_link: ACTIVATION_LINK,
              invite_method: 'face',
            },
          ],
          skipped: [{ email: 'dana.whitfield@example.com', reason: 'already_member' }],
          notified: false,
        },
      },
    },
    {
      ...doc,
      method: 'patch',
      path: path('/members/{member_id}/deactivate'),
      summary: 'Deactivate ({member_id}: member id, email or svc_id): billing stops, app logins revoked, row kept',
      response: memberAnswerWire,
      errors: MEMBER_ERRORS,
      examples: { response: { member: { ...MEMBER_EXAMPLE, status: 'deactivated', active: false } } },
    },
    {
      ...doc,
      method: 'patch',
      path: path('/members/{member_id}/reactivate'),
      summary: 'Reactivate: active when the account exists, else invited',
      response: memberAnswerWire,
      errors: MEMBER_ERRORS,
      examples: { response: { member: MEMBER_EXAMPLE } },
    },
    {
      ...doc,
      method: 'post',
      path: path('/members/{member_id}/invite'),
      summary: 'A new face activation link (supersedes the old), emailed and returned; 10 per minute per member',
      response: invitedMemberWire,
      errors: [...MEMBER_ERRORS, 'already_active', 'deactivated', 'rate_limited'],
      examples: { response: { member: { ...MEMBER_EXAMPLE, status: 'link_sent', svc_id: null, active: false }, activation_link: ACTIVATION_LINK } },
    },
    {
      ...doc,
      method: 'delete',
      path: path('/members/{member_id}'),
      query: removeMemberQuery,
      summary: 'Deactivate, or with permanent=true delete the row; idempotent (already_removed)',
      response: removedMemberWire,
      errors: [...MEMBER_ERRORS, 'invalid_request'],
      examples: { response: { member: { ...MEMBER_EXAMPLE, status: 'deactivated', active: false }, removed: true } },
    },
    {
      ...doc,
      method: 'get',
      path: path('/billing'),
      summary: 'Plan, seats (active members), estimated next charge, balance and invoices',
      response: billingWire,
      errors: AUTH_ERRORS,
      examples: {
        response: {
          subscription: { plan: 'team', status: 'active', price_per_seat: 4, in_trial: false, trial_ends_at: null, current_period_end: '2026-12-01T00:00:00.000Z' },
          seats: 38,
          estimated_next_charge: 152,
          currency: 'USD',
          balance: 0,
          invoices: [{ period: '2026-10', seats: 35, amount: 140, created_at: '2026-11-01T00:00:07.000Z' }],
        },
      },
    },
  );
  return router;
}
