import type { EntityManager } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import type { AttemptOutcome, WebhookStore } from '../../src/core/webhooks/store.js';

/** What a contract run needs: a store, a transaction to record in, two projects and a session of the first. */
export interface WebhookStoreSubject {
  store: WebhookStore;
  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T>;
  projectId: string;
  otherProjectId: string;
  sessionId: string;
}

const at = new Date('2026-06-01T12:00:00.000Z');
const later = (ms: number) => new Date(at.getTime() + ms);
let serial = 0;
const unique = (prefix: string) => `${prefix}_ct_${process.pid}_${++serial}`;

/**
 * The rules every WebhookStore keeps, run against the in-memory fake (test/fast) and PgWebhookStore
 * (test/store-contracts.test.ts): an event is its project's, a pending event is claimed once when due (by the sweep
 * oldest due first, by a sender one at a time), an outcome writes the attempt and the event's new state, and a resend
 * waits for a running attempt.
 */
export function webhookStoreContract(kind: string, subject: () => WebhookStoreSubject): void {
  describe(`WebhookStore contract: ${kind}`, () => {
    const recorded = async (s: WebhookStoreSubject, url: string | null, now = at) => {
      const id = unique('evt');
      await s.transaction((em) =>
        s.store.record(em, {
          id,
          projectId: s.projectId,
          sessionId: s.sessionId,
          type: 'verification.approved',
          livemode: true,
          body: `{"event_id":"${id}"}`,
          url,
          now,
        }),
      );
      return id;
    };
    const outcome = (eventId: string, attempt: number, overrides: Partial<AttemptOutcome>): AttemptOutcome => ({
      attemptId: unique('wa'),
      eventId,
      attempt,
      at: later(attempt * 1000),
      httpStatus: 500,
      latencyMs: 12,
      error: null,
      snippet: 'oops',
      state: 'pending',
      deliveredAt: null,
      nextAttemptAt: later(60_000),
      ...overrides,
    });

    it('records an event, pending with a destination and kept without one, for its project only', async () => {
      const s = subject();
      const sent = await recorded(s, 'https://hooks.example.com/in');
      const nowhere = await recorded(s, null);
      expect(await s.store.event(s.projectId, sent)).toEqual({
        id: sent,
        projectId: s.projectId,
        sessionId: s.sessionId,
        type: 'verification.approved',
        livemode: true,
        body: `{"event_id":"${sent}"}`,
        url: 'https://hooks.example.com/in',
        state: 'pending',
        attempts: 0,
        nextAttemptAt: at,
        deliveredAt: null,
        createdAt: at,
      });
      expect((await s.store.event(s.projectId, nowhere))?.state).toBe('no_destination');
      expect(await s.store.event(s.otherProjectId, sent)).toBeNull();
    });

    it('gives an event due by then to one sender among concurrent ones, and none before it is due', async () => {
      const s = subject();
      const id = await recorded(s, 'https://hooks.example.com/in');
      expect(await s.store.claimOne(id, later(30_000), later(-1))).toBeNull();
      const claims = await Promise.all(Array.from({ length: 4 }, () => s.store.claimOne(id, later(30_000), at)));
      expect(claims.filter(Boolean)).toEqual([expect.objectContaining({ id, state: 'sending' })]);
      expect((await s.store.event(s.projectId, id))?.state).toBe('sending');
    });

    it('claims the due pending events once among concurrent sweeps, the oldest due first, up to the limit', async () => {
      const s = subject();
      // Times long past, which no other case uses: a sweep claims every project's due events.
      const era = new Date('1990-01-01T00:00:00.000Z');
      const past = (ms: number) => new Date(era.getTime() + ms);
      const second = await recorded(s, 'https://hooks.example.com/in', past(-1000));
      const first = await recorded(s, 'https://hooks.example.com/in', past(-2000));
      const third = await recorded(s, 'https://hooks.example.com/in', past(0));
      await recorded(s, 'https://hooks.example.com/in', past(1));
      await recorded(s, null, past(-3000));
      // The dispatcher starts them in the order of the answer: the longest due first.
      const claimed = await s.store.claimDue(2, past(30_000), era);
      expect(claimed.map((event) => event.id)).toEqual([first, second]);
      const sweeps = await Promise.all([1, 2, 3].map(() => s.store.claimDue(10, past(30_000), era)));
      expect(sweeps.flat().map((event) => event.id)).toEqual([third]);
    });

    it("writes each outcome's attempt and the event's new state; the attempts in order", async () => {
      const s = subject();
      const id = await recorded(s, 'https://hooks.example.com/in');
      await s.store.claimOne(id, later(30_000), at);
      await s.store.writeOutcomes([outcome(id, 1, { nextAttemptAt: later(60_000) })]);
      expect(await s.store.event(s.projectId, id)).toMatchObject({ state: 'pending', attempts: 1 });
      expect(await s.store.claimOne(id, later(90_000), later(59_999))).toBeNull();
      expect(await s.store.claimOne(id, later(90_000), later(60_000))).not.toBeNull();
      await s.store.writeOutcomes([
        outcome(id, 2, { httpStatus: 200, snippet: 'ok', state: 'delivered', deliveredAt: later(2000) }),
      ]);
      expect(await s.store.event(s.projectId, id)).toMatchObject({
        state: 'delivered',
        attempts: 2,
        deliveredAt: later(2000),
      });
      expect(await s.store.attempts(id)).toEqual([
        { attempt: 1, at: later(1000), httpStatus: 500, latencyMs: 12, error: null, responseSnippet: 'oops' },
        { attempt: 2, at: later(2000), httpStatus: 200, latencyMs: 12, error: null, responseSnippet: 'ok' },
      ]);
    });

    it("resends its project's event to the url given, due now, unless an attempt is running", async () => {
      const s = subject();
      const id = await recorded(s, 'https://hooks.example.com/in');
      await s.store.claimOne(id, later(30_000), at);
      expect(await s.store.requeue(s.projectId, id, 'https://hooks.example.com/new', later(5000))).toBe('sending');
      await s.store.writeOutcomes([outcome(id, 1, { state: 'failed' })]);
      expect(await s.store.requeue(s.otherProjectId, id, 'https://hooks.example.com/new', later(5000))).toBeNull();
      expect(await s.store.requeue(s.projectId, id, 'https://hooks.example.com/new', later(5000))).toMatchObject({
        id,
        url: 'https://hooks.example.com/new',
        state: 'pending',
        attempts: 1,
        nextAttemptAt: later(5000),
      });
      expect((await s.store.event(s.projectId, id))?.url).toBe('https://hooks.example.com/new');
    });
  });
}
