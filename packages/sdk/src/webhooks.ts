import { createHmac, timingSafeEqual } from 'node:crypto';
import type { HeadersInput } from './runtime-types.js';

export interface VerifyWebhookInput {
  /** The request body exactly as received: re-serialised JSON does not verify. */
  rawBody: string | Uint8Array | ArrayBuffer;
  /** Request headers: Node's `req.headers` (lowercase names) or a Headers object. */
  headers: HeadersInput;
  /**
   * The project's webhook signing secret (not the API key) of the mode this endpoint receives: live, or test for a test
   * receiver.
   */
  secret: string;
  /** How old a delivery may be, in seconds, before it is refused as a replay. Default 300. */
  toleranceSeconds?: number;
  /** Current time in unix seconds (for tests). */
  now?: number;
}

export type VerifyWebhookResult =
  | {
      ok: true;
      /** The signed body's `event_id`: deduplicate on it (the `X-Svc-Event-Id` header is not signed). */
      eventId: string;
      /**
       * The signed body's `livemode`: false for an event of a test-mode session (a `vk_test_` key), which no live flow
       * should act on.
       */
      livemode: boolean;
      timestamp: number;
      event: Record<string, unknown>;
    }
  | { ok: false; reason: 'missing_headers' | 'stale_timestamp' | 'bad_signature' | 'malformed_body' };

function header(headers: HeadersInput, name: string): string | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Constant-time check of one hex signature against the expected HMAC bytes. */
function signatureMatches(expected: Buffer, given: string | undefined): boolean {
  if (!given || !/^[0-9a-f]+$/.test(given)) return false;
  const bytes = Buffer.from(given, 'hex');
  return bytes.length === expected.length && timingSafeEqual(bytes, expected);
}

/**
 * Verifies a Verity webhook delivery: `X-Svc-Signature` is the lowercase hex HMAC-SHA256 of
 * `<X-Svc-Timestamp>.<raw body>` keyed with the signing secret. During a secret rotation the
 * service also sends `X-Svc-Signature-Previous`; either signature is accepted. Everything the
 * result carries comes from signed bytes: the event id and `livemode` are read from the body,
 * never from the unsigned `X-Svc-Event-Id` header. Test-mode events are signed with the
 * project's test secret, so a receiver given the live secret refuses them (`bad_signature`).
 */
export function verifyWebhook(input: VerifyWebhookInput): VerifyWebhookResult {
  const timestampText = header(input.headers, 'x-svc-timestamp');
  if (!timestampText || !/^\d+$/.test(timestampText)) return { ok: false, reason: 'missing_headers' };
  const timestamp = Number(timestampText);
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (input.toleranceSeconds ?? 300)) return { ok: false, reason: 'stale_timestamp' };
  const body =
    typeof input.rawBody === 'string'
      ? Buffer.from(input.rawBody, 'utf8')
      : Buffer.from(input.rawBody instanceof ArrayBuffer ? new Uint8Array(input.rawBody) : input.rawBody);
  const expected = createHmac('sha256', input.secret).update(`${timestampText}.`, 'utf8').update(body).digest();
  const signed = [header(input.headers, 'x-svc-signature'), header(input.headers, 'x-svc-signature-previous')].some(
    (given) => signatureMatches(expected, given),
  );
  if (!signed) return { ok: false, reason: 'bad_signature' };
  const event = signedEvent(body);
  if (!event) return { ok: false, reason: 'malformed_body' };
  // Events recorded before `livemode: true` was added to live bodies carry it only when false.
  return { ok: true, eventId: event.event_id as string, livemode: event.livemode !== false, timestamp, event };
}

/** The signed body as an event: a JSON object with a string `event_id`, else null. */
function signedEvent(body: Buffer): Record<string, unknown> | null {
  try {
    const event: unknown = JSON.parse(body.toString('utf8'));
    if (typeof event !== 'object' || event === null || Array.isArray(event)) return null;
    return typeof (event as { event_id?: unknown }).event_id === 'string' ? (event as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
