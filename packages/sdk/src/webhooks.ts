import { createHmac, timingSafeEqual } from 'node:crypto';

export interface VerifyWebhookInput {
  /** The request body exactly as received: re-serialised JSON does not verify. */
  rawBody: Buffer | string;
  /** Request headers (Node's lowercase IncomingHttpHeaders or a Headers object). */
  headers: Record<string, string | string[] | undefined> | Headers;
  /** The project's webhook signing secret (not the API key). */
  secret: string;
  /** How old a delivery may be, in seconds, before it is refused as a replay. Default 300. */
  toleranceSeconds?: number;
  /** Current time in unix seconds (for tests). */
  now?: number;
}

export type VerifyWebhookResult = { ok: true; eventId: string; timestamp: number; event: Record<string, unknown> } | { ok: false; reason: 'missing_headers' | 'stale_timestamp' | 'bad_signature' };

function header(headers: VerifyWebhookInput['headers'], name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
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
 * service also sends `X-Svc-Signature-Previous`; either signature is accepted.
 */
export function verifyWebhook(input: VerifyWebhookInput): VerifyWebhookResult {
  const timestampText = header(input.headers, 'x-svc-timestamp');
  const eventId = header(input.headers, 'x-svc-event-id');
  if (!timestampText || !eventId || !/^\d+$/.test(timestampText)) return { ok: false, reason: 'missing_headers' };
  const timestamp = Number(timestampText);
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (input.toleranceSeconds ?? 300)) return { ok: false, reason: 'stale_timestamp' };
  const body = typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : input.rawBody;
  const expected = createHmac('sha256', input.secret).update(`${timestampText}.`, 'utf8').update(body).digest();
  const signed = [header(input.headers, 'x-svc-signature'), header(input.headers, 'x-svc-signature-previous')].some((given) => signatureMatches(expected, given));
  if (!signed) return { ok: false, reason: 'bad_signature' };
  return { ok: true, eventId, timestamp, event: JSON.parse(body.toString('utf8')) };
}
