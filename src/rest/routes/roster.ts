import type { NextFunction, Request, Response } from 'express';
import { DomainError, type ErrorCode } from '../../core/errors.js';
import type { Core } from '../../core/index.js';
import {
  addMembersInput,
  listMembersQuery,
  MEMBER_PAGE_MAX,
  removeMemberQuery,
  resolveMemberInput,
} from '../../core/roster/inputs.js';
import {
  addedMembersWire,
  billingWire,
  invitedMemberWire,
  memberAnswerWire,
  memberPageWire,
  removedMemberWire,
  resolvedMemberWire,
} from '../../core/roster/views.js';
import type { OrgCaller } from '../auth.js';
import { sendData } from '../../http/envelope.js';
import { toDomainError } from '../errors.js';
import type { ApiDocs } from '../../http/openapi.js';
import { caseSensitiveRouter } from '../../http/router.js';
import { refuseUndeclaredFields, requireJsonBody } from '../../http/input.js';

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
  // The roster's bad input is 400 invalid_request with data.errors (the spec's dialect for it).
  const declaredOnly = (schema: Parameters<typeof refuseUndeclaredFields>[0]) => [
    requireJsonBody,
    refuseUndeclaredFields(schema, { code: 'invalid_request' }),
  ];
  router.post('/members/resolve', ...declaredOnly(resolveMemberInput), async (req, res) => {
    sendData(res, await core.roster.resolve(caller(res).organizationId, req.body));
  });
  router.post('/members', ...declaredOnly(addMembersInput), async (req, res) => {
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

  const doc = { tag: 'roster' as const, security: 'orgClient' as const };
  const path = (suffix: string) => `/api/sdk${suffix}`;
  docs.add(
    {
      ...doc,
      method: 'get',
      path: path('/members'),
      query: listMembersQuery,
      summary: 'List members',
      description: `The members with the \`member\` role (owners, admins and developers are left out; find anyone with resolve), oldest first, ${MEMBER_PAGE_MAX} a page by default, and your organization's id and name. When more follow, \`X-Next-Cursor\` holds the next page's \`cursor\` and \`Link\` (rel="next") its URL; the last page has neither.`,
      responseHeaders: [
        {
          name: 'X-Next-Cursor',
          description: "the next page's `cursor`; absent on the last page",
          example: 'bWVtXzZiOGQwZjJhNGM2ZThhMWIzZDVmN2E5Yw',
        },
        {
          name: 'Link',
          description: 'the next page\'s URL, rel="next" (RFC 8288); absent on the last page',
          example: '</api/sdk/members?cursor=bWVtXzZiOGQwZjJhNGM2ZThhMWIzZDVmN2E5Yw>; rel="next"',
        },
      ],
      errors: [...AUTH_ERRORS, 'invalid_request'],
      response: memberPageWire,
      examples: { response: { members: [MEMBER_EXAMPLE], organization: { id: 17, name: 'Bayside Home Health' } } },
    },
    {
      ...doc,
      method: 'post',
      path: path('/members/resolve'),
      summary: 'Find a member',
      description:
        'Is this person in your organization? Give `svc_id` (the `svc_id` claim of their login) or `email`; answers `found` and the member in any role and status, or `found: false` and `member: null`. Neither given is 400 `missing_identifier`. Use it at login to map a person to their member record.',
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
      summary: 'Add members',
      description:
        'Adds 1 to 500 people by `email` (with optional `first_name`, `last_name` and `role`, default `member`) and invites them to activate by signing in and taking a selfie. The answer says per person what happened: `created` (with `invite_method` and, for a face invite you deliver yourself, the `activation_link`) or `skipped` with the reason (e.g. already a member). A deactivated member added again is reactivated (`reactivated: true`).\n\n- `notify` (default true) emails the invitations; with `notify: false` nothing is sent.\n- `invite`: `email`, `face` (a link the person opens to connect by face; returned to you only when `notify` is false), or `auto` (email when notifying, else a face link).\n\nA bad entry is 400 `invalid_request` with `data.errors` naming it (e.g. `members[3].email`); nothing is added then.',
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
      summary: 'Deactivate a member',
      description:
        "Deactivates a member (by `member_id`, email or `svc_id`): they stop counting as a seat, their logins to your organization's apps are revoked, and the record stays so you can reactivate them. Their Verity account is not deleted.",
      response: memberAnswerWire,
      errors: MEMBER_ERRORS,
      examples: { response: { member: { ...MEMBER_EXAMPLE, status: 'deactivated', active: false } } },
    },
    {
      ...doc,
      method: 'patch',
      path: path('/members/{member_id}/reactivate'),
      summary: 'Reactivate a member',
      description:
        'Reactivates a deactivated member: `active` again when their account still exists, else `invited` (they activate again by face). An unknown member is 404 `not_found`.',
      response: memberAnswerWire,
      errors: MEMBER_ERRORS,
      examples: { response: { member: MEMBER_EXAMPLE } },
    },
    {
      ...doc,
      method: 'post',
      path: path('/members/{member_id}/invite'),
      summary: 'Re-send an invitation',
      description:
        'A new face activation link for a member who has not activated yet (`invited` or `link_sent`): emailed to them and returned to you; the previous link stops working. At most 10 a minute per member (429 `rate_limited` with `Retry-After`). An active member is 409 `already_active`, a deactivated one 409 `deactivated`.',
      response: invitedMemberWire,
      errors: [...MEMBER_ERRORS, 'already_active', 'deactivated', 'rate_limited'],
      examples: {
        response: {
          member: { ...MEMBER_EXAMPLE, status: 'link_sent', svc_id: null, active: false },
          activation_link: ACTIVATION_LINK,
        },
      },
    },
    {
      ...doc,
      method: 'delete',
      path: path('/members/{member_id}'),
      query: removeMemberQuery,
      summary: 'Remove a member',
      description:
        "Without `permanent`, the same as deactivate. With `permanent=true` the member record is deleted (`removed: true`); the person's Verity account is not. Idempotent: a member already gone answers `{ member: null, already_removed: true }`.",
      response: removedMemberWire,
      errors: [...MEMBER_ERRORS, 'invalid_request'],
      examples: { response: { member: { ...MEMBER_EXAMPLE, status: 'deactivated', active: false }, removed: true } },
    },
    {
      ...doc,
      method: 'get',
      path: path('/billing'),
      summary: 'Read seats and billing',
      description:
        'Your plan (`subscription`, null before one exists), the seats in use (active members), the estimated next charge (seats x price per seat), the balance and past invoices per month.',
      response: billingWire,
      errors: AUTH_ERRORS,
      examples: {
        response: {
          subscription: {
            plan: 'team',
            status: 'active',
            price_per_seat: 4,
            in_trial: false,
            trial_ends_at: null,
            current_period_end: '2026-12-01T00:00:00.000Z',
          },
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
