import type {
  HandoffRecord,
  SessionCheckRecord,
  SessionDraft,
  SessionEventRecord,
  SessionListQuery,
  SessionLookup,
  SessionRecord,
  SessionStore,
  SessionTx,
  SessionViewRecord,
} from '../../src/core/sessions/store.js';

const owns = (session: SessionRecord, lookup: SessionLookup) =>
  session.id === lookup.id &&
  session.projectId === lookup.projectId &&
  (lookup.livemode === null || session.livemode === lookup.livemode);

const viewOf = (s: SessionRecord): SessionViewRecord => ({
  id: s.id,
  status: s.status,
  workflowId: s.workflowId,
  features: s.features,
  vendorData: s.vendorData,
  redirectUrl: s.redirectUrl,
  callback: s.callback,
  svcId: s.svcId,
  livemode: s.livemode,
  expiresAt: s.expiresAt,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  startedAt: s.startedAt,
  decidedAt: s.decidedAt,
});

/**
 * The session tables in memory, held to the same contract as PgSessionStore (test/contracts/session-store.ts).
 * A transaction's writes apply when it ends without throwing, as a commit; reads see only what was committed.
 */
export class FakeSessionStore implements SessionStore {
  sessions = new Map<string, SessionRecord>();
  events = new Map<string, SessionEventRecord[]>();
  checkRows = new Map<string, SessionCheckRecord[]>();
  handoffs = new Map<string, HandoffRecord & { claimedAt: Date | null; phoneTokenDigest: string | null }>();
  private pending = new WeakMap<SessionTx, (() => void)[]>();

  async transaction<T>(work: (tx: SessionTx) => Promise<T>): Promise<T> {
    const tx = {} as SessionTx;
    const writes: (() => void)[] = [];
    this.pending.set(tx, writes);
    const result = await work(tx);
    for (const write of writes) write();
    return result;
  }

  /** As billing's charged transaction hands the store its transaction. */
  inTransaction<T>(work: (tx: SessionTx) => Promise<T>): Promise<T> {
    return this.transaction(work);
  }

  /** Runs `write` when the transaction commits: how another area's fake joins it (FakeEvidenceStore). */
  later(tx: SessionTx, write: () => void): void {
    const writes = this.pending.get(tx);
    if (!writes) throw new Error('a write outside a transaction');
    writes.push(write);
  }

  private append(id: string, draft: SessionDraft): void {
    this.events.set(id, [...(this.events.get(id) ?? []), ...structuredClone(draft.events)]);
    this.checkRows.set(id, [...(this.checkRows.get(id) ?? []), ...structuredClone(draft.checks)]);
  }

  async insert(tx: SessionTx, draft: SessionDraft): Promise<void> {
    this.later(tx, () => {
      this.sessions.set(draft.session.id, structuredClone(draft.session));
      this.append(draft.session.id, draft);
    });
  }

  async save(tx: SessionTx, draft: SessionDraft): Promise<void> {
    // What a session's life changes; the rest (owner, workflow, token, destinations) is fixed at creation.
    const { status, workSealed, decision, decidedAt, decidedBy, startedAt, dataErasedAt, updatedAt } = draft.session;
    const life = { status, workSealed, decision, decidedAt, decidedBy, startedAt, dataErasedAt, updatedAt };
    this.later(tx, () => {
      const session = this.sessions.get(draft.session.id);
      if (!session) return;
      Object.assign(session, structuredClone(life));
      this.append(session.id, draft);
    });
  }

  async lock(_tx: SessionTx, lookup: SessionLookup): Promise<SessionRecord | null> {
    return this.find(lookup);
  }

  async find(lookup: SessionLookup): Promise<SessionRecord | null> {
    const session = this.sessions.get(lookup.id);
    return session && owns(session, lookup) ? structuredClone(session) : null;
  }

  async views(lookups: SessionLookup[]): Promise<(SessionViewRecord | null)[]> {
    return (await Promise.all(lookups.map((lookup) => this.find(lookup)))).map((found) => found && viewOf(found));
  }

  async byTokenDigest(digest: string): Promise<SessionRecord | null> {
    const own = [...this.sessions.values()].find((session) => session.tokenDigest === digest);
    const phone = [...this.handoffs.values()].find((handoff) => handoff.phoneTokenDigest === digest);
    const session = own ?? (phone ? this.sessions.get(phone.sessionId) : undefined);
    return session ? structuredClone(session) : null;
  }

  async open(sessionId: string, event: SessionEventRecord): Promise<boolean> {
    const session = this.sessions.get(sessionId);
    if (!session || session.status !== event.fromStatus) return false;
    Object.assign(session, { status: event.toStatus, startedAt: event.at, updatedAt: event.at });
    this.events.get(sessionId)!.push({ ...event });
    return true;
  }

  async checks(sessionId: string): Promise<SessionCheckRecord[]> {
    return structuredClone(this.checkRows.get(sessionId) ?? []);
  }

  async sealChecks(tx: SessionTx, sessionId: string, detailSealed: string): Promise<void> {
    this.later(tx, () =>
      this.checkRows.set(
        sessionId,
        (this.checkRows.get(sessionId) ?? []).map((check) => ({ ...check, detailSealed })),
      ),
    );
  }

  async timeline(sessionId: string): Promise<SessionEventRecord[]> {
    return structuredClone(this.events.get(sessionId) ?? []);
  }

  async list(_query: SessionListQuery): Promise<SessionRecord[]> {
    throw new Error('list is not in the fake');
  }

  async due(statuses: readonly string[], now: Date, limit: number): Promise<{ id: string; projectId: string }[]> {
    return [...this.sessions.values()]
      .filter((session) => statuses.includes(session.status) && session.expiresAt <= now)
      .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
      .slice(0, limit)
      .map((session) => ({ id: session.id, projectId: session.projectId }));
  }

  async addHandoff(handoff: HandoffRecord): Promise<void> {
    this.handoffs.set(handoff.linkDigest, { ...handoff, claimedAt: null, phoneTokenDigest: null });
  }

  async claimHandoff(linkDigest: string, phoneTokenDigest: string, now: Date): Promise<string | null> {
    const handoff = this.handoffs.get(linkDigest);
    if (!handoff || handoff.claimedAt || handoff.expiresAt <= now) return null;
    Object.assign(handoff, { claimedAt: now, phoneTokenDigest });
    return handoff.sessionId;
  }

  async handoffClaimed(sessionId: string): Promise<boolean> {
    return [...this.handoffs.values()].some((handoff) => handoff.sessionId === sessionId && handoff.claimedAt !== null);
  }
}
