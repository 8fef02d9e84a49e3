import { z } from 'zod';
import type { SESSION_STATUSES } from '../../core/sessions/entities.js';
import { TRANSITIONS } from '../../core/sessions/transitions.js';
import type { ApiDocs, HeaderDoc, WebhookDoc } from '../../http/openapi.js';

// The webhooks Verity sends (OpenAPI 3.1 `webhooks`): one per event type, with the body exactly
// as signed and sent (SessionService.move builds it, WebhookService.record adds `event_id` and
// `livemode`) and the headers of every delivery. test/api-reference.test.ts checks a real
// delivery against this declaration.

type SessionStatus = (typeof SESSION_STATUSES)[number];

/**
 * The statuses a session's move announces: every move of the state table but the first
 * (creation) and the person opening the page (IN_PROGRESS), as SessionService.move decides.
 */
export const ANNOUNCED_STATUSES: SessionStatus[] = [
  ...new Set(TRANSITIONS.filter((row) => row.from !== null && row.to !== 'IN_PROGRESS').map((row) => row.to)),
];

/** When each event is sent, in the reader's words. */
const WHEN: Partial<Record<SessionStatus, string>> = {
  APPROVED:
    'every check of the workflow passed, a reviewer approved the session (`PATCH /api/v2/session/{id}/status`), or a test key forced `approve`',
  DECLINED:
    'a check failed for good (a spoof, a face mismatch, a document whose check digits fail, outside the geofence, the last try of a fixable step), a reviewer declined it, or a test key forced `decline`',
  IN_REVIEW:
    'every check is done and one was sent to review rather than passed: a person must decide (`PATCH /api/v2/session/{id}/status` or the console)',
  EXPIRED: 'the person never started before `expires_at`',
  ABANDONED: 'the person started but did not finish before `expires_at`',
};

/** The signed body of the event a move to `status` announces. */
export function webhookEventWire(status: SessionStatus) {
  const decision = status.toLowerCase();
  return z
    .strictObject({
      event_id: z
        .string()
        .describe(
          'unique per event, the same as X-Svc-Event-Id: deduplicate on it (an event can arrive more than once)',
        ),
      type: z.literal(`verification.${decision}`),
      session_id: z.string(),
      status: z.literal(status).describe("the session's status after the move"),
      vendor_data: z.string().describe('your vendor_data of the session; "" when you sent none'),
      decision: z.literal(decision).describe('the status in lower case'),
      occurred_at: z.iso.datetime().describe('when the session moved (UTC)'),
      livemode: z
        .boolean()
        .describe('false for a session made with a test key: never act on a test event in production'),
    })
    .meta({ title: `verification.${decision} event` });
}

const SIGNATURE_HEADERS: HeaderDoc[] = [
  {
    name: 'X-Svc-Timestamp',
    description:
      'Unix seconds when this attempt was sent (each retry has its own). Refuse one more than 5 minutes from your clock: a replayed delivery.',
    schema: z.string().meta({ examples: ['1795843800'] }),
  },
  {
    name: 'X-Svc-Signature',
    description:
      'Lowercase hex HMAC-SHA256 of `<X-Svc-Timestamp>.<raw body>` (the timestamp, a dot, the exact bytes received) keyed with the webhook signing secret of the mode (live or test; never the API key). Compare in constant time before parsing the body: parsing and serialising again changes the bytes.',
    schema: z.string().meta({ examples: ['5d41402abc4b2a76b9719d911017c592a1b2c3d4e5f60718293a4b5c6d7e8f90'] }),
  },
  {
    name: 'X-Svc-Event-Id',
    description: 'The event id, the same as `event_id` in the body. Not signed: take the id from the verified body.',
    schema: z.string().meta({ examples: ['evt_4c1a9e7b3d5f2a8c6e0b1d3f'] }),
  },
  {
    name: 'X-Svc-Signature-Previous',
    description:
      'During a signing secret rotation only: the same signature with the previous secret, until the overlap ends. Accept either while you switch secrets.',
    schema: z.string().meta({ examples: ['0a1b2c3d4e5f60718293a4b5c6d7e8f95d41402abc4b2a76b9719d911017c592'] }),
  },
];

/** What the receiver's answer means to Verity. */
const RECEIVER_ANSWERS = {
  '200': 'Any 2xx within 10 seconds: delivered, no more attempts.',
  '400':
    'What a receiver answers when the signature does not verify. Any answer but 2xx (or none in 10 s) is retried after 30 s, 1 min, 2 min ... up to 1 hour apart (Retry-After is honoured when longer), 12 attempts in about 7 hours; then the event is `failed` and can be resent from the console or the CLI.',
  '410':
    'Gone: the destination is disabled and the event is not retried (re-enable it in the console or with `verity admin`).',
};

/** Adds the webhooks of every announced status to the document. */
export function documentWebhooks(docs: ApiDocs): void {
  // In the order WHEN tells them (the final outcomes first); one it does not know comes last and fails below.
  const order = Object.keys(WHEN);
  const rank = (status: SessionStatus) => (order.includes(status) ? order.indexOf(status) : order.length);
  docs.addWebhooks(
    ...[...ANNOUNCED_STATUSES]
      .sort((a, b) => rank(a) - rank(b))
      .map((status): WebhookDoc => {
        const decision = status.toLowerCase();
        const when = WHEN[status];
        if (!when) throw new Error(`say when the ${status} webhook is sent`);
        return {
          type: `verification.${decision}`,
          summary: `Session ${decision.replace('_', ' ')}`,
          description: `Sent to the session's \`callback\`, else the project's default callback for its mode, when a session moves to \`${status}\`: ${when}.\n\nVerify \`X-Svc-Signature\` over the raw body, answer 2xx at once, deduplicate on \`event_id\`, then read \`GET /api/v2/session/{session_id}/decision\` for the outcome: the event is a notification, the decision is the record.`,
          payload: webhookEventWire(status),
          example: {
            event_id: 'evt_4c1a9e7b3d5f2a8c6e0b1d3f',
            type: `verification.${decision}`,
            session_id: 'ses_9f8e7d6c5b4a39281a0b2c3d',
            status,
            vendor_data: 'applicant-8841',
            decision,
            occurred_at: '2026-11-27T09:04:51.000Z',
            livemode: true,
          },
          headers: SIGNATURE_HEADERS,
          responses: RECEIVER_ANSWERS,
        };
      }),
  );
}
