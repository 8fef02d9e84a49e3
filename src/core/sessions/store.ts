import type { EntityManager } from '@mikro-orm/core';
import type { CheckStatus } from '../checks/entities.js';
import type { Orm } from '../db/orm.js';
import {
  preparedQuery,
  preparedQueryIn,
  sqlDate,
  StatementValues,
  statementNameOf,
  transaction,
} from '../db/prepared.js';
import type { SessionStatus } from './entities.js';

/**
 * The transaction a session's writes join: the store's own, or the one billing opened to charge
 * for a new session (the session and its price commit together). Other areas' writes of the same
 * decision (the webhook outbox row, the account's verified identity) join it too.
 */
export type SessionTx = EntityManager;

/** A session as the store answers it: plain data, no unit of work behind it. */
export interface SessionRecord {
  id: string;
  projectId: string;
  workflowId: string;
  status: SessionStatus;
  features: string[];
  tokenDigest: string;
  redirectUrl: string | null;
  callback: string | null;
  vendorData: string | null;
  livemode: boolean;
  metadata: Record<string, unknown> | null;
  svcId: string | null;
  /** What one step leaves for a later one, sealed; null once the session closes. */
  workSealed: string | null;
  decision: SessionStatus | null;
  decidedAt: Date | null;
  decidedBy: string | null;
  startedAt: Date | null;
  dataErasedAt: Date | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** One entry of the timeline. */
export interface SessionEventRecord {
  fromStatus: SessionStatus | null;
  toStatus: SessionStatus;
  actor: string;
  reason: string | null;
  at: Date;
}

/** One check run inside a session; its data and error sealed in `detailSealed`. */
export interface SessionCheckRecord {
  type: string;
  status: CheckStatus;
  score: number | null;
  detailSealed: string;
  reason: string | null;
  createdAt: Date;
}

/** What one transaction does to a session: the row as it will stand, and the timeline entries and checks it appends. */
export interface SessionDraft {
  session: SessionRecord;
  events: SessionEventRecord[];
  checks: SessionCheckRecord[];
}

/** Which session, of which owner: a key of one mode sees only that mode's (`livemode` null: any). */
export interface SessionLookup {
  id: string;
  projectId: string;
  livemode: boolean | null;
}

/** What GET /session/{id} reads, and nothing more. */
export type SessionViewRecord = Pick<
  SessionRecord,
  | 'id'
  | 'status'
  | 'workflowId'
  | 'features'
  | 'vendorData'
  | 'redirectUrl'
  | 'callback'
  | 'svcId'
  | 'livemode'
  | 'expiresAt'
  | 'createdAt'
  | 'updatedAt'
  | 'startedAt'
  | 'decidedAt'
>;

/** The filters of a page of the session list, newest first. */
export interface SessionListQuery {
  projectId: string;
  livemode: boolean | null;
  status?: SessionStatus;
  vendorData?: string;
  /** The last session of the previous page. */
  after?: { createdAt: Date; id: string } | null;
  limit: number;
}

/** A "continue on your phone" link, stored as digests. */
export interface HandoffRecord {
  id: string;
  sessionId: string;
  linkDigest: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * The session tables (`verification_session`, `session_event`, `session_check`,
 * `session_handoff`): the only code that touches them for the sessions area (ops and metrics
 * read them for their reports). Every method is one statement.
 */
export interface SessionStore {
  /** Runs `work` in a transaction of the store's own. */
  transaction<T>(work: (tx: SessionTx) => Promise<T>): Promise<T>;
  /** A new session with its first timeline entries (and checks), in the caller's transaction. */
  insert(tx: SessionTx, draft: SessionDraft): Promise<void>;
  /** The session's row as the draft has it, and what the draft appends, in the caller's transaction. */
  save(tx: SessionTx, draft: SessionDraft): Promise<void>;
  /** The owner's session, locked for the rest of the caller's transaction; null when not theirs or unknown. */
  lock(tx: SessionTx, lookup: SessionLookup): Promise<SessionRecord | null>;
  /** The owner's session as committed. */
  find(lookup: SessionLookup): Promise<SessionRecord | null>;
  /** The views of several sessions, each only for its owner: null where not theirs, answered by position. */
  views(lookups: SessionLookup[]): Promise<(SessionViewRecord | null)[]>;
  /** The session a hosted-page token opens: its own token, or a phone's token from a claimed handoff link. */
  byTokenDigest(digest: string): Promise<SessionRecord | null>;
  /**
   * Moves a NOT_STARTED session to `event.toStatus` and logs the move, only if it is still NOT_STARTED; false when
   * another request did first.
   */
  open(sessionId: string, event: SessionEventRecord): Promise<boolean>;
  /** A session's checks, oldest first (inside the caller's transaction when given). */
  checks(sessionId: string, tx?: SessionTx): Promise<SessionCheckRecord[]>;
  /** Replaces the sealed detail of every check of a session (erasure), in the caller's transaction. */
  sealChecks(tx: SessionTx, sessionId: string, detailSealed: string): Promise<void>;
  /** The timeline, oldest first. */
  timeline(sessionId: string): Promise<SessionEventRecord[]>;
  /** A page of the owner's sessions, newest first. */
  list(query: SessionListQuery): Promise<SessionRecord[]>;
  /** Open sessions past their deadline, oldest deadline first. */
  due(statuses: readonly SessionStatus[], now: Date, limit: number): Promise<{ id: string; projectId: string }[]>;
  addHandoff(handoff: HandoffRecord): Promise<void>;
  /**
   * Spends an unclaimed, unexpired link for the phone's token: the session id, or null when the link is used, expired
   * or unknown.
   */
  claimHandoff(linkDigest: string, phoneTokenDigest: string, now: Date): Promise<string | null>;
  /** Whether a continue-on-your-phone link of the session has been claimed (another device works on it). */
  handoffClaimed(sessionId: string): Promise<boolean>;
}

const COLUMNS = [
  'id',
  'project_id',
  'workflow_id',
  'status',
  'features',
  'token_digest',
  'redirect_url',
  'callback',
  'vendor_data',
  'livemode',
  'metadata',
  'svc_id',
  'work_sealed',
  'decision',
  'decided_at',
  'decided_by',
  'started_at',
  'data_erased_at',
  'expires_at',
  'created_at',
  'updated_at',
] as const;
type SessionRow = Record<(typeof COLUMNS)[number], unknown>;
const SELECT = (alias: string) => COLUMNS.map((column) => `${alias}.${column}`).join(', ');
const VIEW_COLUMNS =
  's.id, s.status, s.workflow_id, s.features, s.vendor_data, s.redirect_url, s.callback, s.svc_id, s.livemode, s.expires_at, s.created_at, s.updated_at, s.started_at, s.decided_at';

const dateOrNull = (value: unknown) => (value === null || value === undefined ? null : sqlDate(value as Date | string));

function recordOf(row: SessionRow): SessionRecord {
  return {
    ...viewOf(row),
    projectId: row.project_id as string,
    tokenDigest: row.token_digest as string,
    metadata: (row.metadata as Record<string, unknown> | null) ?? null,
    workSealed: (row.work_sealed as string | null) ?? null,
    decision: (row.decision as SessionStatus | null) ?? null,
    decidedBy: (row.decided_by as string | null) ?? null,
    dataErasedAt: dateOrNull(row.data_erased_at),
  };
}

function viewOf(row: Partial<SessionRow>): SessionViewRecord {
  return {
    id: row.id as string,
    status: row.status as SessionStatus,
    workflowId: row.workflow_id as string,
    features: row.features as string[],
    vendorData: (row.vendor_data as string | null) ?? null,
    redirectUrl: (row.redirect_url as string | null) ?? null,
    callback: (row.callback as string | null) ?? null,
    svcId: (row.svc_id as string | null) ?? null,
    livemode: row.livemode as boolean,
    expiresAt: sqlDate(row.expires_at as Date | string),
    createdAt: sqlDate(row.created_at as Date | string),
    updatedAt: sqlDate(row.updated_at as Date | string),
    startedAt: dateOrNull(row.started_at),
    decidedAt: dateOrNull(row.decided_at),
  };
}

function checkOf(row: Record<string, unknown>): SessionCheckRecord {
  return {
    type: row.type as string,
    status: row.status as CheckStatus,
    score: row.score === null ? null : Number(row.score),
    detailSealed: row.detail_sealed as string,
    reason: (row.reason as string | null) ?? null,
    createdAt: sqlDate(row.created_at as Date | string),
  };
}

function eventOf(row: Record<string, unknown>): SessionEventRecord {
  return {
    fromStatus: (row.from_status as SessionStatus | null) ?? null,
    toStatus: row.to_status as SessionStatus,
    actor: row.actor as string,
    reason: (row.reason as string | null) ?? null,
    at: sqlDate(row.at as Date | string),
  };
}

// A draft's appended timeline entries and checks, one array per column ($2.. after the session
// id), inserted in the draft's order: both tables' ids are sequences that give their order.
const APPEND = (first: number) => {
  const p = (n: number) => `$${first + n}`;
  return `events as (
  insert into session_event (session_id, from_status, to_status, actor, reason, at)
  select $1, e.from_status, e.to_status, e.actor, e.reason, e.at
  from unnest(${p(0)}::varchar[], ${p(1)}::varchar[], ${p(2)}::varchar[], ${p(3)}::varchar[], ${p(4)}::timestamptz[]) with ordinality as e(from_status, to_status, actor, reason, at, n)
  order by e.n
),
checks as (
  insert into session_check (session_id, type, status, score, detail_sealed, reason, created_at)
  select $1, c.type, c.status, c.score, c.detail_sealed, c.reason, c.created_at
  from unnest(${p(5)}::varchar[], ${p(6)}::varchar[], ${p(7)}::float8[], ${p(8)}::text[], ${p(9)}::varchar[], ${p(10)}::timestamptz[]) with ordinality as c(type, status, score, detail_sealed, reason, created_at, n)
  order by c.n
)`;
};

const appendValues = ({ events, checks }: SessionDraft): unknown[] => [
  events.map((e) => e.fromStatus),
  events.map((e) => e.toStatus),
  events.map((e) => e.actor),
  events.map((e) => e.reason),
  events.map((e) => e.at),
  checks.map((c) => c.type),
  checks.map((c) => c.status),
  checks.map((c) => c.score),
  checks.map((c) => c.detailSealed),
  checks.map((c) => c.reason),
  checks.map((c) => c.createdAt),
];

const rowValues = (s: SessionRecord): unknown[] => [
  s.id,
  s.projectId,
  s.workflowId,
  s.status,
  s.features,
  s.tokenDigest,
  s.redirectUrl,
  s.callback,
  s.vendorData,
  s.livemode,
  s.metadata === null ? null : JSON.stringify(s.metadata),
  s.svcId,
  s.workSealed,
  s.decision,
  s.decidedAt,
  s.decidedBy,
  s.startedAt,
  s.dataErasedAt,
  s.expiresAt,
  s.createdAt,
  s.updatedAt,
];

const INSERT = `with session as (
  insert into verification_session (${COLUMNS.join(', ')})
  values (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
),
${APPEND(COLUMNS.length + 1)}
select 1`;

// What a session's life changes; the rest (owner, workflow, features, token, destinations) is fixed at creation.
const SAVE = `with saved as (
  update verification_session set status = $2, work_sealed = $3, decision = $4, decided_at = $5, decided_by = $6, started_at = $7, data_erased_at = $8, updated_at = $9
  where id = $1
),
${APPEND(10)}
select 1`;

const OF_OWNER = 's.id = $1 and s.project_id = $2 and ($3::boolean is null or s.livemode = $3)';

/** The session tables in PostgreSQL, by named prepared statements. */
export class PgSessionStore implements SessionStore {
  constructor(private readonly orm: Orm) {}

  transaction<T>(work: (tx: SessionTx) => Promise<T>): Promise<T> {
    return transaction(this.orm, work);
  }

  async insert(tx: SessionTx, draft: SessionDraft): Promise<void> {
    await preparedQueryIn(this.orm, tx, 'session_insert', INSERT, [
      ...rowValues(draft.session),
      ...appendValues(draft),
    ]);
  }

  async save(tx: SessionTx, draft: SessionDraft): Promise<void> {
    const s = draft.session;
    await preparedQueryIn(this.orm, tx, 'session_save', SAVE, [
      s.id,
      s.status,
      s.workSealed,
      s.decision,
      s.decidedAt,
      s.decidedBy,
      s.startedAt,
      s.dataErasedAt,
      s.updatedAt,
      ...appendValues(draft),
    ]);
  }

  async lock(tx: SessionTx, lookup: SessionLookup): Promise<SessionRecord | null> {
    const [row] = await preparedQueryIn<SessionRow>(
      this.orm,
      tx,
      'session_lock',
      `select ${SELECT('s')} from verification_session s where ${OF_OWNER} for update`,
      [lookup.id, lookup.projectId, lookup.livemode],
    );
    return row ? recordOf(row) : null;
  }

  async find(lookup: SessionLookup): Promise<SessionRecord | null> {
    const [row] = await preparedQuery<SessionRow>(
      this.orm,
      'session_of_owner',
      `select ${SELECT('s')} from verification_session s where ${OF_OWNER}`,
      [lookup.id, lookup.projectId, lookup.livemode],
    );
    return row ? recordOf(row) : null;
  }

  async views(lookups: SessionLookup[]): Promise<(SessionViewRecord | null)[]> {
    // Answered by the lookup's position: two callers may ask for one id, and only its owner gets it.
    const rows = await preparedQuery<Partial<SessionRow> & { asked: number }>(
      this.orm,
      'session_views_of_owners',
      `select asked.n::int as asked, ${VIEW_COLUMNS} from verification_session s
       join unnest($1::varchar[], $2::varchar[], $3::boolean[]) with ordinality as asked(id, project_id, livemode, n)
         on s.id = asked.id and s.project_id = asked.project_id and (asked.livemode is null or s.livemode = asked.livemode)`,
      [lookups.map((l) => l.id), lookups.map((l) => l.projectId), lookups.map((l) => l.livemode)],
    );
    const answers: (SessionViewRecord | null)[] = lookups.map(() => null);
    for (const row of rows) answers[row.asked - 1] = viewOf(row);
    return answers;
  }

  async byTokenDigest(digest: string): Promise<SessionRecord | null> {
    // Every call of the hosted page comes here: the session's own token and a phone's, in one statement.
    const [row] = await preparedQuery<SessionRow>(
      this.orm,
      'session_by_token',
      `select ${SELECT('s')} from verification_session s where s.token_digest = $1
       union all
       select ${SELECT('s')} from session_handoff h join verification_session s on s.id = h.session_id where h.phone_token_digest = $1
       limit 1`,
      [digest],
    );
    return row ? recordOf(row) : null;
  }

  async open(sessionId: string, event: SessionEventRecord): Promise<boolean> {
    const rows = await preparedQuery<{ id: string }>(
      this.orm,
      'session_open',
      `with opened as (
         update verification_session set status = $3, started_at = $5, updated_at = $5 where id = $1 and status = $2 returning id
       ), logged as (
         insert into session_event (session_id, from_status, to_status, actor, reason, at) select id, $2, $3, $4, $6, $5 from opened
       )
       select id from opened`,
      [sessionId, event.fromStatus, event.toStatus, event.actor, event.at, event.reason],
    );
    return rows.length > 0;
  }

  async checks(sessionId: string, tx?: SessionTx): Promise<SessionCheckRecord[]> {
    const text =
      'select type, status, score, detail_sealed, reason, created_at from session_check where session_id = $1 order by id';
    const rows = tx
      ? await preparedQueryIn<Record<string, unknown>>(this.orm, tx, 'session_checks', text, [sessionId])
      : await preparedQuery<Record<string, unknown>>(this.orm, 'session_checks', text, [sessionId]);
    return rows.map(checkOf);
  }

  async sealChecks(tx: SessionTx, sessionId: string, detailSealed: string): Promise<void> {
    await preparedQueryIn(
      this.orm,
      tx,
      'session_seal_checks',
      'update session_check set detail_sealed = $2 where session_id = $1',
      [sessionId, detailSealed],
    );
  }

  async timeline(sessionId: string): Promise<SessionEventRecord[]> {
    const rows = await preparedQuery<Record<string, unknown>>(
      this.orm,
      'session_timeline',
      'select from_status, to_status, actor, reason, at from session_event where session_id = $1 order by id',
      [sessionId],
    );
    return rows.map(eventOf);
  }

  async list(query: SessionListQuery): Promise<SessionRecord[]> {
    // Built per call (the filters vary), one statement per set of filters given.
    const values = new StatementValues();
    const where = [`project_id = ${values.bind(query.projectId)}`];
    if (query.livemode !== null) where.push(`livemode = ${values.bind(query.livemode)}`);
    if (query.status) where.push(`status = ${values.bind(query.status)}`);
    if (query.vendorData !== undefined) where.push(`vendor_data = ${values.bind(query.vendorData)}`);
    if (query.after) {
      where.push(`(created_at, id) < (${values.bind(query.after.createdAt)}, ${values.bind(query.after.id)})`);
    }
    const text = `select ${COLUMNS.join(', ')} from verification_session where ${where.join(' and ')}
      order by created_at desc, id desc limit ${values.bind(query.limit)}`;
    const rows = await preparedQuery<SessionRow>(this.orm, statementNameOf('sessions_list', text), text, values.list);
    return rows.map(recordOf);
  }

  async due(
    statuses: readonly SessionStatus[],
    now: Date,
    limit: number,
  ): Promise<{ id: string; projectId: string }[]> {
    const rows = await preparedQuery<{ id: string; project_id: string }>(
      this.orm,
      'sessions_due',
      'select id, project_id from verification_session where status = any($1::varchar[]) and expires_at <= $2 order by expires_at limit $3',
      [statuses, now, limit],
    );
    return rows.map((row) => ({ id: row.id, projectId: row.project_id }));
  }

  async addHandoff(handoff: HandoffRecord): Promise<void> {
    await preparedQuery(
      this.orm,
      'session_handoff_add',
      'insert into session_handoff (id, session_id, link_digest, created_at, expires_at) values ($1, $2, $3, $4, $5)',
      [handoff.id, handoff.sessionId, handoff.linkDigest, handoff.createdAt, handoff.expiresAt],
    );
  }

  async claimHandoff(linkDigest: string, phoneTokenDigest: string, now: Date): Promise<string | null> {
    // A conditional update: of two claims at once, exactly one finds the link unclaimed.
    const [row] = await preparedQuery<{ session_id: string }>(
      this.orm,
      'session_handoff_claim',
      'update session_handoff set claimed_at = $2, phone_token_digest = $3 where link_digest = $1 and claimed_at is null and expires_at > $2 returning session_id',
      [linkDigest, now, phoneTokenDigest],
    );
    return row?.session_id ?? null;
  }

  async handoffClaimed(sessionId: string): Promise<boolean> {
    const [row] = await preparedQuery<{ claimed: boolean }>(
      this.orm,
      'session_handoff_claimed',
      'select exists (select 1 from session_handoff where session_id = $1 and claimed_at is not null) as claimed',
      [sessionId],
    );
    return row?.claimed === true;
  }
}
