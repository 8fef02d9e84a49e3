import { describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../src/core/sessions/entities.js';
import type {
  SessionCheckRecord,
  SessionEventRecord,
  SessionRecord,
  SessionStore,
} from '../../src/core/sessions/store.js';

/** What a contract run needs: a store, two projects that exist and a workflow of the first. */
export interface SessionStoreSubject {
  store: SessionStore;
  projectId: string;
  otherProjectId: string;
  workflowId: string;
}

const at = new Date('2026-06-01T12:00:00.000Z');
const later = (ms: number) => new Date(at.getTime() + ms);
let serial = 0;

/** A new NOT_STARTED session of `projectId`, live, expiring in an hour unless told. */
export const sessionOf = (
  projectId: string,
  workflowId: string,
  overrides: Partial<SessionRecord> = {},
): SessionRecord => {
  const id = `ses_contract_${process.pid}_${++serial}`;
  return {
    id,
    projectId,
    workflowId,
    status: 'NOT_STARTED',
    features: ['location'],
    tokenDigest: `digest_${id}`,
    redirectUrl: null,
    callback: 'https://hooks.example.com/in',
    vendorData: 'user-1',
    livemode: true,
    metadata: { plan: 'gold' },
    svcId: null,
    workSealed: null,
    decision: null,
    decidedAt: null,
    decidedBy: null,
    startedAt: null,
    dataErasedAt: null,
    expiresAt: later(3_600_000),
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
};

const event = (from: SessionStatus | null, to: SessionStatus, ms = 0): SessionEventRecord => ({
  fromStatus: from,
  toStatus: to,
  actor: 'api_key:k1',
  reason: `${from}>${to}`,
  at: later(ms),
});

const check = (type: string, ms = 0): SessionCheckRecord => ({
  type,
  status: 'passed',
  score: 0.5,
  detailSealed: `sealed-${type}`,
  reason: null,
  createdAt: later(ms),
});

/** Commits a new session with its first timeline entry. */
export async function insertSession(store: SessionStore, session: SessionRecord): Promise<void> {
  await store.transaction((tx) => store.insert(tx, { session, events: [event(null, session.status)], checks: [] }));
}

/**
 * The rules every SessionStore keeps, run against the in-memory fake (test/fast) and PgSessionStore
 * (test/store-contracts.test.ts): a session is seen by its owner and mode only, a transaction's writes commit
 * together or not at all, a save changes only what a session's life changes and appends in order, a session is
 * opened once, a handoff link is claimed once before it expires, and the sweep finds what is past its deadline.
 */
export function sessionStoreContract(kind: string, subject: () => SessionStoreSubject): void {
  describe(`SessionStore contract: ${kind}`, () => {
    it('finds a committed session for its owner and mode only; views answer by position', async () => {
      const { store, projectId, otherProjectId, workflowId } = subject();
      const session = sessionOf(projectId, workflowId);
      await insertSession(store, session);
      expect(await store.find({ id: session.id, projectId, livemode: null })).toEqual(session);
      expect(await store.find({ id: session.id, projectId, livemode: true })).toEqual(session);
      expect(await store.find({ id: session.id, projectId, livemode: false })).toBeNull();
      expect(await store.find({ id: session.id, projectId: otherProjectId, livemode: null })).toBeNull();
      const { projectId: _, tokenDigest, metadata, workSealed, decision, decidedBy, dataErasedAt, ...view } = session;
      expect(
        await store.views([
          { id: session.id, projectId: otherProjectId, livemode: null },
          { id: session.id, projectId, livemode: null },
          { id: `${session.id}_unknown`, projectId, livemode: null },
        ]),
      ).toEqual([null, view, null]);
    });

    it('commits nothing of a transaction that throws', async () => {
      const { store, projectId, workflowId } = subject();
      const session = sessionOf(projectId, workflowId);
      const failed = store.transaction(async (tx) => {
        await store.insert(tx, { session, events: [event(null, 'NOT_STARTED')], checks: [check('location')] });
        throw new Error('the step failed');
      });
      await expect(failed).rejects.toThrow('the step failed');
      expect(await store.find({ id: session.id, projectId, livemode: null })).toBeNull();
      expect(await store.byTokenDigest(session.tokenDigest)).toBeNull();
    });

    it("saves only what a session's life changes, and appends its timeline and checks in order", async () => {
      const { store, projectId, workflowId } = subject();
      const session = sessionOf(projectId, workflowId);
      await store.transaction((tx) =>
        store.insert(tx, { session, events: [event(null, 'NOT_STARTED')], checks: [check('location')] }),
      );
      const decided: SessionRecord = {
        ...session,
        status: 'APPROVED',
        decision: 'APPROVED',
        decidedAt: later(2000),
        decidedBy: 'system',
        startedAt: later(1000),
        workSealed: null,
        updatedAt: later(2000),
      };
      await store.transaction((tx) =>
        store.save(tx, {
          // The owner, token and destinations are fixed at creation: a draft cannot move them.
          session: { ...decided, vendorData: 'someone-else', tokenDigest: 'another', callback: null },
          events: [event('NOT_STARTED', 'IN_PROGRESS', 1000), event('IN_PROGRESS', 'APPROVED', 2000)],
          checks: [check('age', 2000), check('credential', 2000)],
        }),
      );
      expect(await store.find({ id: session.id, projectId, livemode: null })).toEqual(decided);
      expect((await store.timeline(session.id)).map((e) => e.reason)).toEqual([
        'null>NOT_STARTED',
        'NOT_STARTED>IN_PROGRESS',
        'IN_PROGRESS>APPROVED',
      ]);
      expect((await store.checks(session.id)).map((c) => c.type)).toEqual(['location', 'age', 'credential']);
      await store.transaction((tx) => store.sealChecks(tx, session.id, 'erased'));
      expect(await store.checks(session.id)).toEqual(
        [check('location'), check('age', 2000), check('credential', 2000)].map((c) => ({
          ...c,
          detailSealed: 'erased',
        })),
      );
    });

    it('opens a NOT_STARTED session once among concurrent openers, and logs the move', async () => {
      const { store, projectId, workflowId } = subject();
      const session = sessionOf(projectId, workflowId);
      await insertSession(store, session);
      const opening = event('NOT_STARTED', 'IN_PROGRESS', 500);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => store.open(session.id, opening)));
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      expect(await store.find({ id: session.id, projectId, livemode: null })).toMatchObject({
        status: 'IN_PROGRESS',
        startedAt: opening.at,
        updatedAt: opening.at,
      });
      expect(await store.timeline(session.id)).toEqual([event(null, 'NOT_STARTED'), opening]);
    });

    it('claims a handoff link once, before its expiry and not at it; the phone token then opens the session', async () => {
      const { store, projectId, workflowId } = subject();
      const session = sessionOf(projectId, workflowId);
      const untouched = sessionOf(projectId, workflowId);
      await insertSession(store, session);
      await insertSession(store, untouched);
      const link = (n: number) => ({
        id: `hnd_${session.id}_${n}`,
        sessionId: session.id,
        linkDigest: `link_${session.id}_${n}`,
        createdAt: at,
        expiresAt: later(600_000),
      });
      await store.addHandoff(link(1));
      await store.addHandoff(link(2));
      expect(await store.claimHandoff(link(1).linkDigest, `phone_${session.id}_1`, later(600_000))).toBeNull();
      expect(await store.handoffClaimed(session.id)).toBe(false);
      const claims = await Promise.all(
        [1, 2, 3].map((n) => store.claimHandoff(link(2).linkDigest, `phone_${session.id}_${n}`, later(599_999))),
      );
      expect(claims.filter((claimed) => claimed === session.id)).toHaveLength(1);
      expect(claims.filter((claimed) => claimed === null)).toHaveLength(2);
      expect(await store.handoffClaimed(session.id)).toBe(true);
      expect(await store.handoffClaimed(untouched.id)).toBe(false);
      const phone = `phone_${session.id}_${claims.indexOf(session.id) + 1}`;
      expect((await store.byTokenDigest(phone))?.id).toBe(session.id);
      expect((await store.byTokenDigest(session.tokenDigest))?.id).toBe(session.id);
      expect(await store.byTokenDigest(`phone_${session.id}_unknown`)).toBeNull();
    });

    it('finds the sessions of the statuses asked past their deadline (inclusive), oldest deadline first, up to the limit', async () => {
      const { store, projectId, otherProjectId, workflowId } = subject();
      // Deadlines long past, which no other case uses: the sweep sees every project's sessions.
      const deadline = new Date('1990-01-01T00:00:00.000Z');
      const past = (ms: number) => new Date(deadline.getTime() + ms);
      const second = sessionOf(projectId, workflowId, { expiresAt: past(-1000) });
      const first = sessionOf(otherProjectId, workflowId, { expiresAt: past(-2000) });
      const third = sessionOf(projectId, workflowId, { status: 'IN_PROGRESS', expiresAt: past(0) });
      const closed = sessionOf(projectId, workflowId, { status: 'APPROVED', expiresAt: past(-3000) });
      const notYet = sessionOf(projectId, workflowId, { expiresAt: past(1) });
      for (const session of [second, first, third, closed, notYet]) await insertSession(store, session);
      const open = ['NOT_STARTED', 'IN_PROGRESS'] as const;
      const mine = (due: { id: string }[]) => due.filter((s) => s.id.startsWith(`ses_contract_${process.pid}_`));
      expect(mine(await store.due(open, deadline, 10))).toEqual([
        { id: first.id, projectId: otherProjectId },
        { id: second.id, projectId },
        { id: third.id, projectId },
      ]);
      expect(mine(await store.due(open, deadline, 2)).map((s) => s.id)).toEqual([first.id, second.id]);
      expect(mine(await store.due(['APPROVED'], deadline, 10)).map((s) => s.id)).toEqual([closed.id]);
    });
  });
}
