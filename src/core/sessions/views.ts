import { z } from 'zod';
import { checkWire } from '../checks/views.js';
import { livemodeField } from '../checks/sandbox.js';
import { SESSION_STATUSES } from './entities.js';
import type { SessionRecord, SessionViewRecord } from './store.js';

// The session objects on the wire, declared once: the views below are typed by these schemas,
// the REST router documents with them and the HTTP tests parse every answer with them.

const vendorData = z.string().describe('the caller\'s correlation string; "" when none was sent');

export const sessionWire = z.object({
  session_id: z.string(),
  status: z.enum(SESSION_STATUSES),
  workflow_id: z.string(),
  features: z.array(z.string()),
  vendor_data: vendorData,
  redirect_url: z.string().nullable(),
  callback: z.string().nullable().describe('the per-session webhook URL, when one was given'),
  svc_id: z.string().nullable().describe('account id of the bound user, when an access token was bound'),
  expires_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  started_at: z.string().nullable(),
  decided_at: z.string().nullable(),
  livemode: livemodeField,
});
export type SessionWire = z.output<typeof sessionWire>;

export const createdSessionWire = sessionWire.extend({
  url: z.string().describe('the hosted page; the session token rides in its fragment'),
  session_token: z.string().describe('shown once'),
});

export const decisionWire = z.object({
  session_id: z.string(),
  status: z.enum(SESSION_STATUSES),
  decision: z.string().nullable(),
  decided_at: z.string().nullable(),
  decided_by: z.string().nullable().describe('who decided: system, api_key:<id> or a reviewer'),
  workflow_id: z.string(),
  features: z.array(z.string()),
  vendor_data: vendorData,
  checks: z.array(checkWire),
  svc_id: z.string().optional(),
  identity: z
    .object({
      full_name: z.string().nullable(),
      licenses: z.array(
        z.object({ license_state: z.string().nullable(), status: z.string(), expire_date: z.string().nullable() }),
      ),
    })
    .optional(),
  livemode: livemodeField,
});
export type DecisionWire = z.output<typeof decisionWire>;

/** The answer of DELETE /api/v2/session/{id}/data. */
export const erasedWire = z.object({
  session_id: z.string(),
  status: z.enum(SESSION_STATUSES),
  erased: z.literal(true),
  already_erased: z.boolean().describe('true when an earlier call had already erased it (the call is idempotent)'),
  erased_at: z.string(),
});
export type ErasedWire = z.output<typeof erasedWire>;

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

/**
 * The spec types `vendor_data` a string on the session, the decision and the webhook: when the
 * caller sent none it is `""`, always present, never null (docs/sessions.md).
 */
export const vendorDataOnWire = (session: Pick<SessionRecord, 'vendorData'>): string => session.vendorData ?? '';

export const sessionView = (session: SessionViewRecord): SessionWire => ({
  session_id: session.id,
  status: session.status,
  workflow_id: session.workflowId,
  features: session.features,
  vendor_data: vendorDataOnWire(session),
  redirect_url: session.redirectUrl ?? null,
  callback: session.callback ?? null,
  svc_id: session.svcId ?? null,
  expires_at: session.expiresAt.toISOString(),
  created_at: session.createdAt.toISOString(),
  updated_at: session.updatedAt.toISOString(),
  started_at: iso(session.startedAt),
  decided_at: iso(session.decidedAt),
  ...testMark(session),
});

/** Test data says so on the wire (`livemode: false`); live data is unchanged. */
export const testMark = (session: Pick<SessionRecord, 'livemode'>) =>
  session.livemode ? {} : { livemode: false as const };

/**
 * How a hosted step ended: its checks' worst status, `not_run` when the session ended before it; null while it is still
 * to do.
 */
export const STEP_OUTCOMES = ['passed', 'failed', 'review', 'not_run'] as const;
export type StepOutcome = (typeof STEP_OUTCOMES)[number];

/** What the hosted page reads (GET /api/hosted/session, and the answer of start and of each step). */
export const hostedFlowWire = z.object({
  session_id: z.string(),
  status: z.enum(SESSION_STATUSES),
  project_name: z.string().describe('whom the person verifies for'),
  privacy_policy_url: z.string().nullable().optional(),
  support_url: z
    .string()
    .nullable()
    .describe("where a declined person can ask for help (the project's https:// or mailto: link), or null"),
  retention_days: z
    .number()
    .int()
    .describe(
      'days the project keeps the photos (document and selfie) after the decision, for its reviewers; 0: deleted at the decision',
    ),
  logo: z.boolean().describe('GET /api/hosted/session/logo has a PNG'),
  features: z.array(z.string()),
  steps: z.array(
    z.object({
      step: z.string().describe('document, selfie, location or licence'),
      done: z
        .boolean()
        .describe('nothing more to do on this step (also true for every step once the session is finished)'),
      outcome: z
        .enum(STEP_OUTCOMES)
        .nullable()
        .describe(
          'how the step ended: passed, failed or review (its checks), not_run when the session ended before it; null while it is to do',
        ),
    }),
  ),
  continued_on_phone: z
    .boolean()
    .describe('a continue-on-your-phone link of this session was claimed: another device is working on it'),
  checks: z.array(checkWire.pick({ type: true, status: true, error: true })),
  expires_at: z.string(),
  geofence: z.boolean().describe('the location step is checked against an expected point'),
  finished: z.boolean(),
  redirect_to: z
    .string()
    .nullable()
    .describe(
      "where to send the person when finished (the integrator's redirect_url with ?status=); a hint, the decision endpoint is authoritative",
    ),
  livemode: livemodeField,
});
export type HostedFlowWire = z.output<typeof hostedFlowWire>;

/** POST /api/hosted/session/handoff: the continue-on-your-phone link (its code in the fragment). */
export const handoffLinkWire = z.object({ url: z.string(), expires_at: z.string() });
/** POST /api/hosted/handoff/claim: the phone's own session token. */
export const handoffClaimWire = z.object({ session_id: z.string(), session_token: z.string() });
export type HandoffLinkWire = z.output<typeof handoffLinkWire>;
export type HandoffClaimWire = z.output<typeof handoffClaimWire>;
