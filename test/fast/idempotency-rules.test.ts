// Idempotency-Key's rules on a fake store, in milliseconds: a retry replays the first answer
// (errors too), another body is 422, a call still running is 409, payment, rate-limit and our
// own failures release the key, and a key lapses after 24 h or when its caller died mid-call.
// The store itself is held to one contract, fake and PostgreSQL alike (test/contracts/idempotency-store.ts).
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS, IdempotencyService } from '../../src/core/billing/idempotency.js';
import { ManualClock } from '../../src/core/clock.js';
import { DomainError } from '../../src/core/errors.js';
import { Sealer } from '../../src/core/secrets.js';

import { FakeIdempotencyStore } from '../fakes/idempotency-store.js';

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'no error',
    (error: unknown) => (error instanceof DomainError ? error.code : 'unexpected'),
  );

function setUp() {
  const clock = new ManualClock(new Date('2026-11-28T12:00:00Z'));
  const store = new FakeIdempotencyStore();
  return {
    clock,
    store,
    idempotency: new IdempotencyService({ store, clock, sealer: new Sealer(Sealer.generateKey()) }),
  };
}

describe('Idempotency-Key on a fake store', () => {
  it('runs once per key and body: a retry gets the first answer, another body 422', async () => {
    const { idempotency } = setUp();
    let runs = 0;
    const work = async () => ({ run: ++runs });
    expect(await idempotency.once('prj', 'k1', 'op', { a: 1 }, work)).toEqual({ value: { run: 1 }, replayed: false });
    expect(await idempotency.once('prj', 'k1', 'op', { a: 1 }, work)).toEqual({ value: { run: 1 }, replayed: true });
    expect(await codeOf(idempotency.once('prj', 'k1', 'op', { a: 2 }, work))).toBe('idempotency_key_reused');
    expect(await codeOf(idempotency.once('prj', 'k1', 'other-op', { a: 1 }, work))).toBe('idempotency_key_reused');
    expect(await idempotency.once('other-prj', 'k1', 'op', { a: 1 }, work)).toEqual({
      value: { run: 2 },
      replayed: false,
    });
    expect(await idempotency.once('prj', undefined, 'op', { a: 1 }, work)).toEqual({
      value: { run: 3 },
      replayed: false,
    });
  });

  it('answers 409 while the first call runs, and replays a domain error as the same error', async () => {
    const { idempotency } = setUp();
    let finish!: () => void;
    const first = idempotency.once('prj', 'k', 'op', {}, () => new Promise<void>((resolve) => (finish = resolve)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await codeOf(idempotency.once('prj', 'k', 'op', {}, async () => {}))).toBe('idempotency_in_progress');
    finish();
    await first;
    const refused = () =>
      idempotency.once('prj', 'e', 'op', {}, async () => Promise.reject(new DomainError('session_closed', 'closed')));
    expect(await codeOf(refused())).toBe('session_closed');
    expect(await codeOf(idempotency.once('prj', 'e', 'op', {}, async () => 'would pass now'))).toBe('session_closed');
  });

  it('releases the key on payment, rate-limit and unexpected failures: the retry runs again', async () => {
    const { idempotency } = setUp();
    const failures: [Error, string][] = [
      [new DomainError('insufficient_balance'), 'insufficient_balance'],
      [new DomainError('rate_limited'), 'rate_limited'],
      [new Error('socket hang up'), 'unexpected'],
    ];
    for (const [i, [failure, code]] of failures.entries()) {
      expect(await codeOf(idempotency.once('prj', `k${i}`, 'op', {}, async () => Promise.reject(failure)))).toBe(code);
      expect(await idempotency.once('prj', `k${i}`, 'op', {}, async () => 'ran')).toEqual({
        value: 'ran',
        replayed: false,
      });
    }
  });

  it('a key lapses after 24 h, and a call abandoned mid-way is taken over once its lock runs out', async () => {
    const { idempotency, clock, store } = setUp();
    await idempotency.once('prj', 'k', 'op', { a: 1 }, async () => 'first');
    clock.advance(IDEMPOTENCY_TTL_MS);
    expect(await idempotency.once('prj', 'k', 'op', { a: 2 }, async () => 'after a day')).toEqual({
      value: 'after a day',
      replayed: false,
    });
    expect(await idempotency.begin('prj', 'dead', 'f')).toEqual({ kind: 'run' }); // its process dies: never finished
    expect(await codeOf(idempotency.begin('prj', 'dead', 'f'))).toBe('idempotency_in_progress');
    clock.advance(5 * 60_000);
    expect(await idempotency.begin('prj', 'dead', 'f')).toEqual({ kind: 'run' });
    clock.advance(IDEMPOTENCY_TTL_MS);
    expect(await idempotency.purgeExpired()).toBe(2);
    expect(store.rows.size).toBe(0);
  });
});
