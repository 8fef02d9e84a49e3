// Rate limits shared through PostgreSQL in slices: two limiters on one database stand for two
// instances. Together they let exactly the limit through in a window, never more, whatever the
// interleaving; the window ends and the limit is whole again; one write per slice, not per request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimits } from '../src/core/billing/rate-limit.js';
import { DomainError } from '../src/core/errors.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

/** Two limiters (two instances) on one key; `now` moves by hand. */
function instances(points: number, keyPrefix: string) {
  let now = Date.parse('2026-11-27T12:00:00Z');
  const options = { points, windowSeconds: 60, store: 'postgres' as const, keyPrefix };
  const clock = () => now;
  return {
    a: new RateLimits(service.core.orm, options, clock),
    b: new RateLimits(service.core.orm, options, clock),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const outcome = (limits: RateLimits, key: string) =>
  limits.consume(key).then(
    () => 'ok' as const,
    (error: unknown) => {
      if (error instanceof DomainError && error.code === 'rate_limited') return error.retryAfterSeconds!;
      throw error;
    },
  );

describe('rate limits in slices across instances', () => {
  it('two instances together let exactly the limit through, at once or one by one, and say when to retry', async () => {
    const { a, b } = instances(40, 'slices-at-once');
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => outcome(i % 2 ? a : b, 'key-1')));
    expect(answers.filter((answer) => answer === 'ok')).toHaveLength(40);
    for (const answer of answers.filter((answer) => answer !== 'ok')) {
      expect(answer).toBeGreaterThan(0);
      expect(answer).toBeLessThanOrEqual(60);
    }

    const { a: c, b: d } = instances(40, 'slices-in-turn');
    const inTurn: (string | number)[] = [];
    for (let i = 0; i < 60; i++) inTurn.push(await outcome(i % 3 ? c : d, 'key-1'));
    expect(inTurn.filter((answer) => answer === 'ok')).toHaveLength(40);
  });

  it('asks the database once per slice, not once per request, and slices shrink near the limit', async () => {
    const { a } = instances(600, 'slices-writes');
    const grants: number[] = [];
    for (let i = 0; i < 100; i++) {
      await a.consume('key-1');
      const [row] = await sql<{ points: number; last_grant: number }>(
        service,
        'select points, last_grant from rate_limit where key = ?',
        ['slices-writes:key-1'],
      );
      if (grants.at(-1) !== row!.points) grants.push(row!.points);
    }
    expect(grants.length).toBeLessThanOrEqual(4); // slices of 30 (a twentieth of 600)
    const { a: near } = instances(16, 'slices-near');
    await near.consume('key-1');
    const [row] = await sql<{ last_grant: number }>(service, 'select last_grant from rate_limit where key = ?', [
      'slices-near:key-1',
    ]);
    expect(row!.last_grant).toBe(1); // 16 / 20 rounds up to 1
  });

  it('a window that has ended is whole again; its leftovers are not spent in the next', async () => {
    const { a, b, advance } = instances(10, 'slices-window');
    const first = await Promise.all(Array.from({ length: 12 }, (_, i) => outcome(i % 2 ? a : b, 'key-1')));
    expect(first.filter((answer) => answer === 'ok')).toHaveLength(10);
    advance(61_000);
    const second = await Promise.all(Array.from({ length: 12 }, (_, i) => outcome(i % 2 ? a : b, 'key-1')));
    expect(second.filter((answer) => answer === 'ok')).toHaveLength(10);
  });
});
