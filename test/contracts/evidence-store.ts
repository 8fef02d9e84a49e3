import { describe, expect, it } from 'vitest';
import type { EvidenceStore } from '../../src/core/sessions/evidence.js';
import type { SessionRecord, SessionStore } from '../../src/core/sessions/store.js';
import { insertSession, sessionOf } from './session-store.js';

/**
 * What a contract run needs: a store, the session store whose transactions its writes join and whose sessions its
 * purge reads, a project that exists with its evidence retention, and a workflow of it.
 */
export interface EvidenceStoreSubject {
  store: EvidenceStore;
  sessions: SessionStore;
  projectId: string;
  retentionDays: number;
  workflowId: string;
}

const at = new Date('2026-06-01T12:00:00.000Z');
const selfie = (text: string) => ({ kind: 'selfie' as const, bytes: Buffer.from(text) });

/**
 * The rules every EvidenceStore keeps, run against the in-memory fake (test/fast) and PgEvidenceStore
 * (test/store-contracts.test.ts): images are kept and erased with their transaction, listed in order as they were
 * given, and purged only once their session's decision is older than the project's retention, oldest first, a
 * bounded round at a time.
 */
export function evidenceStoreContract(kind: string, subject: () => EvidenceStoreSubject): void {
  describe(`EvidenceStore contract: ${kind}`, () => {
    const newSession = async (sessions: SessionStore, session: SessionRecord) => {
      await insertSession(sessions, session);
      return session.id;
    };

    it('keeps images with the transaction that commits them, listed in order with their try', async () => {
      const { store, sessions, projectId, workflowId } = subject();
      const sessionId = await newSession(sessions, sessionOf(projectId, workflowId));
      await sessions.transaction((tx) =>
        store.keep(tx, sessionId, [selfie('a'), { kind: 'document_front', bytes: Buffer.from('b') }], 1, at),
      );
      const refused = sessions.transaction(async (tx) => {
        await store.keep(tx, sessionId, [selfie('lost')], 2, at);
        throw new Error('the step failed');
      });
      await expect(refused).rejects.toThrow('the step failed');
      await sessions.transaction((tx) => store.keep(tx, sessionId, [selfie('c')], 2, new Date(at.getTime() + 1000)));
      const kept = await store.list(sessionId);
      expect(kept.map(({ id: _, ...image }) => image)).toEqual([
        { ...selfie('a'), attempt: 1, createdAt: at },
        { kind: 'document_front', bytes: Buffer.from('b'), attempt: 1, createdAt: at },
        { ...selfie('c'), attempt: 2, createdAt: new Date(at.getTime() + 1000) },
      ]);
      expect(new Set(kept.map((image) => image.id)).size).toBe(3);
    });

    it("erases a session's images with its transaction and says how many; other sessions keep theirs", async () => {
      const { store, sessions, projectId, workflowId } = subject();
      const erased = await newSession(sessions, sessionOf(projectId, workflowId));
      const other = await newSession(sessions, sessionOf(projectId, workflowId));
      await sessions.transaction(async (tx) => {
        await store.keep(tx, erased, [selfie('a'), selfie('b')], 1, at);
        await store.keep(tx, other, [selfie('c')], 1, at);
      });
      const rolledBack = sessions.transaction(async (tx) => {
        await store.erase(tx, erased);
        throw new Error('the erasure failed');
      });
      await expect(rolledBack).rejects.toThrow('the erasure failed');
      expect(await store.list(erased)).toHaveLength(2);
      expect(await sessions.transaction((tx) => store.erase(tx, erased))).toBe(2);
      expect(await store.list(erased)).toEqual([]);
      expect(await sessions.transaction((tx) => store.erase(tx, erased))).toBe(0);
      expect((await store.list(other)).map((image) => String(image.bytes))).toEqual(['c']);
    });

    it("purges only images of sessions decided longer ago than the project's retention, oldest first, a round at a time", async () => {
      const { store, sessions, projectId, retentionDays, workflowId } = subject();
      // Decisions long past, which no other case makes: a purge round sees every project's images.
      const decidedAt = new Date('2001-03-01T00:00:00.000Z');
      const now = new Date(decidedAt.getTime() + retentionDays * 86_400_000);
      const hoursBefore = (hours: number) => new Date(decidedAt.getTime() - hours * 3_600_000);
      const decided = (moment: Date) =>
        sessionOf(projectId, workflowId, {
          status: 'DECLINED',
          decision: 'DECLINED',
          decidedAt: moment,
          decidedBy: 'system',
          expiresAt: hoursBefore(-1),
          createdAt: hoursBefore(3),
          updatedAt: moment,
        });
      const due = await newSession(sessions, decided(decidedAt));
      const alsoDue = await newSession(sessions, decided(decidedAt));
      const notYet = await newSession(sessions, decided(new Date(decidedAt.getTime() + 1)));
      const undecided = await newSession(sessions, sessionOf(projectId, workflowId, { status: 'IN_REVIEW' }));
      await sessions.transaction(async (tx) => {
        await store.keep(tx, due, [selfie('oldest')], 1, hoursBefore(3));
        await store.keep(tx, alsoDue, [selfie('newest')], 1, hoursBefore(1));
        await store.keep(tx, due, [selfie('middle')], 2, hoursBefore(2));
        await store.keep(tx, notYet, [selfie('kept')], 1, hoursBefore(3));
        await store.keep(tx, undecided, [selfie('open')], 1, hoursBefore(3));
      });
      expect(await store.purgeExpired(now, 2)).toBe(2);
      expect(await store.list(due)).toEqual([]);
      expect((await store.list(alsoDue)).map((image) => String(image.bytes))).toEqual(['newest']);
      expect(await store.purgeExpired(now, 2)).toBe(1);
      expect(await store.purgeExpired(now, 2)).toBe(0);
      expect(await store.list(notYet)).toHaveLength(1);
      expect(await store.list(undecided)).toHaveLength(1);
    });
  });
}
