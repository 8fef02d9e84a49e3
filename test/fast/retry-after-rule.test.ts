import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from '../../src/http/envelope.js';

// Retry-After of an error answer, the rule on its own (test/api-reference.test.ts sees it on a 503 through HTTP).

describe('retryAfterSeconds', () => {
  it("takes the refusing rule's own wait, else 1 s for a 429 and 2 s for a 503, and none for other errors", () => {
    expect(retryAfterSeconds({ status: 429, error: { code: 'rate_limited' }, retryAfterSeconds: 37 })).toBe(37);
    expect(retryAfterSeconds({ status: 429, error: { code: 'too_many_attempts' } })).toBe(1);
    expect(retryAfterSeconds({ status: 503, error: { code: 'service_unavailable' } })).toBe(2);
    expect(retryAfterSeconds({ status: 503, error: { code: 'engine_unreachable' } })).toBe(2);
    expect(retryAfterSeconds({ status: 500, error: { code: 'internal_error' } })).toBeUndefined();
    expect(retryAfterSeconds({ status: 400, error: { code: 'validation_error' } })).toBeUndefined();
  });
});
