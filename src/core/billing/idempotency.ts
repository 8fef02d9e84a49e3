import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { preparedQuery, sqlDate } from '../db/prepared.js';
import { StatementBatch } from '../db/statement-batch.js';
import { DomainError, type ErrorCode } from '../errors.js';
import type { Sealer } from '../secrets.js';
import type { KeyedAnswer } from './wallet-store.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Longer than the slowest call (a live licence lookup takes up to ~90 s). */
const RUNNING_LOCK_MS = 5 * 60 * 1000;
const KEY = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** Statuses a retry must be able to change, so they are not stored: payment, rate limit, our faults. */
const TRANSIENT = (status: number) => status === 402 || status === 429 || status >= 500;

/** Text the walk below emits between values (a bracket, a key), told apart from the body's own values. */
class Emit {
  constructor(readonly text: string) {}
}

/** A stable digest of what was asked: the operation plus its body (files included, as bytes). */
export function fingerprint(operation: string, parts: unknown): string {
  const hash = createHash('sha256').update(operation).update('\0');
  // Depth first with a stack of its own: a JSON body may nest deeper than the call stack goes.
  const pending: unknown[] = [parts];
  while (pending.length) {
    const value = pending.pop();
    if (value instanceof Emit) {
      hash.update(value.text);
    } else if (Buffer.isBuffer(value)) {
      hash.update(`b${value.length}:`).update(value);
    } else if (Array.isArray(value)) {
      hash.update('[');
      pending.push(new Emit(']'));
      for (let i = value.length - 1; i >= 0; i -= 1) pending.push(value[i]);
    } else if (value && typeof value === 'object') {
      hash.update('{');
      pending.push(new Emit('}'));
      for (const key of Object.keys(value).sort().reverse())
        pending.push((value as Record<string, unknown>)[key], new Emit(JSON.stringify(key)));
    } else {
      hash.update(JSON.stringify(value ?? null));
    }
  }
  return hash.digest('hex');
}

export type Begin = { kind: 'run' } | { kind: 'replay'; response: StoredResponse };

/** An idempotency record as stored: the response sealed once the first call answered. */
export interface IdempotencyRow {
  fingerprint: string;
  state: 'running' | 'done';
  responseStatus: number | null;
  responseSealed: string | null;
  lockedUntil: Date;
  expiresAt: Date;
}

/** A new claim on a key: who holds it until when, and when the record lapses. */
export interface IdempotencyClaim {
  projectId: string;
  key: string;
  fingerprint: string;
  lockedUntil: Date;
  expiresAt: Date;
  now: Date;
}

/** A claim won, or the record that holds the key (null: one this claim could not see yet). */
export type ClaimOutcome = { claimed: true } | { claimed: false; existing: IdempotencyRow | null };

/**
 * The idempotency records (`idempotency_record`). Each method is one statement (concurrent claims
 * share one: see CLAIM_OR_READ). The one other writer: a billed check's record statement
 * completes its key's row (wallet-store.ts RECORD_CHECKS), so a keyed check costs one statement
 * more than an unkeyed one, not two.
 */
export interface IdempotencyStore {
  /**
   * Claims a key no record holds, or reads the record that holds it: one statement for a first
   * call and for a replay. `existing` is null when the claim lost to a record this statement could
   * not see yet (committed while it ran): claim again.
   */
  claim(claim: IdempotencyClaim): Promise<ClaimOutcome>;
  /**
   * Takes over a record that lapsed, or whose running call was abandoned (its lock ran out) by `claim.now`; false when
   * another took it first.
   */
  takeOver(claim: IdempotencyClaim): Promise<boolean>;
  /** Deletes a running claim, so a retry runs again. */
  release(projectId: string, key: string): Promise<void>;
  /** Stores the first answer. */
  complete(projectId: string, key: string, status: number, responseSealed: string): Promise<void>;
  /** Deletes records lapsed by `now`; answers how many. */
  purge(now: Date): Promise<number>;
}

// Many calls' claims, or the records that hold their keys, in one statement (a group commit, as
// the check records are written: a claim of its own cost each keyed call a commit, and halved the
// keyed route's throughput). A replay is answered from this one indexed read. Every part sees the
// statement's snapshot, so a record committed while it ran is neither claimed over nor read (no
// row: the caller claims again). Two calls of one batch with the same key: the first claims, the
// other finds no row and claims again. Keys are inserted in key order, so two batches never wait
// on each other's keys in opposite orders.
const CLAIM_OR_READ = `
with input as (
  select * from unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::timestamptz[], $5::timestamptz[], $6::timestamptz[])
    with ordinality as i(project_id, key, fingerprint, locked_until, expires_at, created_at, n)
),
firsts as (select distinct on (project_id, key) * from input order by project_id, key, n),
claimed as (
  insert into idempotency_record (project_id, key, fingerprint, state, locked_until, expires_at, created_at)
  select project_id, key, fingerprint, 'running', locked_until, expires_at, created_at from firsts
  on conflict (project_id, key) do nothing returning project_id, key
)
select (claimed.key is not null and firsts.n = input.n) as claimed, held.fingerprint, held.state, held.response_status,
  held.response_sealed, held.locked_until, held.expires_at
from input
join firsts on firsts.project_id = input.project_id and firsts.key = input.key
left join claimed on claimed.project_id = input.project_id and claimed.key = input.key
left join idempotency_record held on held.project_id = input.project_id and held.key = input.key
order by input.n`;

/**
 * The idempotent calls' answers stored with the check records they answer, as a CTE of the wallet
 * store's one statement for records and charges (RECORD_CHECKS): it reads that statement's `input`
 * (project_id, id, answer_key, answer_status, answer_sealed) and `record` (the ids written).
 */
export const ANSWER_WITH_RECORDS = `answered as (
  update idempotency_record set state = 'done', response_status = input.answer_status, response_sealed = input.answer_sealed
  from input join record on record.id = input.id
  where input.answer_key is not null and idempotency_record.project_id = input.project_id and idempotency_record.key = input.answer_key
    and idempotency_record.state = 'running'
)`;

/** The idempotency records in PostgreSQL, by named prepared statements. */
export class PgIdempotencyStore implements IdempotencyStore {
  constructor(private readonly orm: Orm) {}

  private readonly claims = new StatementBatch<IdempotencyClaim, ClaimOutcome>((rows) => this.claimAll(rows));

  claim(c: IdempotencyClaim): Promise<ClaimOutcome> {
    return this.claims.submit(c);
  }

  private async claimAll(claims: IdempotencyClaim[]): Promise<ClaimOutcome[]> {
    const rows = await preparedQuery<{
      claimed: boolean;
      fingerprint: string | null;
      state: 'running' | 'done';
      response_status: number | null;
      response_sealed: string | null;
      locked_until: Date | string;
      expires_at: Date | string;
    }>(this.orm, 'idempotency_claim_or_read', CLAIM_OR_READ, [
      claims.map((c) => c.projectId),
      claims.map((c) => c.key),
      claims.map((c) => c.fingerprint),
      claims.map((c) => c.lockedUntil),
      claims.map((c) => c.expiresAt),
      claims.map((c) => c.now),
    ]);
    return rows.map((row) => {
      if (row.claimed) return { claimed: true };
      if (row.fingerprint === null) return { claimed: false, existing: null };
      return {
        claimed: false,
        existing: {
          fingerprint: row.fingerprint,
          state: row.state,
          responseStatus: row.response_status,
          responseSealed: row.response_sealed,
          lockedUntil: sqlDate(row.locked_until),
          expiresAt: sqlDate(row.expires_at),
        },
      };
    });
  }

  async takeOver(c: IdempotencyClaim): Promise<boolean> {
    const rows = await preparedQuery(
      this.orm,
      'idempotency_take_over',
      `update idempotency_record set fingerprint = $3, state = 'running', response_status = null, response_sealed = null, locked_until = $4, expires_at = $5, created_at = $6
       where project_id = $1 and key = $2 and (expires_at <= $6 or (state = 'running' and locked_until <= $6)) returning key`,
      [c.projectId, c.key, c.fingerprint, c.lockedUntil, c.expiresAt, c.now],
    );
    return rows.length === 1;
  }

  async release(projectId: string, key: string): Promise<void> {
    await preparedQuery(
      this.orm,
      'idempotency_release',
      "delete from idempotency_record where project_id = $1 and key = $2 and state = 'running'",
      [projectId, key],
    );
  }

  async complete(projectId: string, key: string, status: number, responseSealed: string): Promise<void> {
    await preparedQuery(
      this.orm,
      'idempotency_complete',
      "update idempotency_record set state = 'done', response_status = $3, response_sealed = $4 where project_id = $1 and key = $2",
      [projectId, key, status, responseSealed],
    );
  }

  async purge(now: Date): Promise<number> {
    return (
      await preparedQuery(
        this.orm,
        'idempotency_purge',
        'delete from idempotency_record where expires_at <= $1 returning key',
        [now],
      )
    ).length;
  }
}

/** `Idempotency-Key` on billable calls: one execution per key and body, its response replayed for 24 h. */
export class IdempotencyService {
  constructor(private readonly deps: { store: IdempotencyStore; clock: Clock; sealer: Sealer }) {}

  validKey(key: string): boolean {
    return KEY.test(key);
  }

  /** Claims the key for this request, or says how to answer instead (replay, 409, 422). */
  async begin(projectId: string, key: string, requestFingerprint: string): Promise<Begin> {
    if (!this.validKey(key))
      throw new DomainError('validation_error', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
    const now = this.deps.clock.now();
    const claim: IdempotencyClaim = {
      projectId,
      key,
      fingerprint: requestFingerprint,
      lockedUntil: new Date(now.getTime() + RUNNING_LOCK_MS),
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      now,
    };
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const claimed = await this.deps.store.claim(claim);
      if (claimed.claimed) return { kind: 'run' };
      const existing = claimed.existing;
      if (!existing) continue; // expired and purged in between: claim again
      if (existing.expiresAt <= now || (existing.state === 'running' && existing.lockedUntil <= now)) {
        // Expired, or abandoned by a process that died mid-call: take it over (one winner).
        if (await this.deps.store.takeOver(claim)) return { kind: 'run' };
        continue;
      }
      if (existing.fingerprint !== requestFingerprint) throw new DomainError('idempotency_key_reused');
      if (existing.state === 'running') throw new DomainError('idempotency_in_progress');
      return {
        kind: 'replay',
        response: {
          status: existing.responseStatus!,
          body: JSON.parse(this.deps.sealer.open(existing.responseSealed!)),
        },
      };
    }
    throw new DomainError('idempotency_in_progress');
  }

  /**
   * The first response sealed for the statement that records the call, or null when it must not be stored (a transient
   * failure).
   */
  answerOf(key: string, response: StoredResponse): KeyedAnswer | null {
    if (TRANSIENT(response.status)) return null;
    return { key, status: response.status, sealed: this.deps.sealer.seal(JSON.stringify(response.body)) };
  }

  /** Stores the first response; transient failures release the key so a retry runs again. */
  async finish(projectId: string, key: string, response: StoredResponse): Promise<void> {
    if (TRANSIENT(response.status)) return this.deps.store.release(projectId, key);
    await this.deps.store.complete(
      projectId,
      key,
      response.status,
      this.deps.sealer.seal(JSON.stringify(response.body)),
    );
  }

  /**
   * `work` at most once per key and request body: a retry with the key gets the first answer again
   * for 24 h (`replayed`), another body 422 `idempotency_key_reused`, one still running 409
   * `idempotency_in_progress`. A domain error is an answer too (the retry gets the same error); an
   * unexpected failure releases the key. Without a key, `work` just runs.
   */
  async once<T>(
    projectId: string,
    key: string | undefined,
    operation: string,
    request: unknown,
    work: () => Promise<T>,
  ): Promise<{ value: T; replayed: boolean }> {
    if (key === undefined) return { value: await work(), replayed: false };
    const begun = await this.begin(projectId, key, fingerprint(operation, request));
    if (begun.kind === 'replay') {
      const stored = begun.response.body as { value?: T; error?: { code: ErrorCode; message: string; data?: unknown } };
      if (stored.error)
        throw new DomainError(
          stored.error.code,
          stored.error.message,
          stored.error.data === undefined ? {} : { data: stored.error.data },
        );
      return { value: stored.value as T, replayed: true };
    }
    try {
      const value = await work();
      await this.finish(projectId, key, { status: 200, body: { value } });
      return { value, replayed: false };
    } catch (error) {
      const known =
        error instanceof DomainError
          ? { status: error.status, body: { error: { code: error.code, message: error.message, data: error.data } } }
          : { status: 500, body: null };
      await this.finish(projectId, key, known);
      throw error;
    }
  }

  /** Deletes records past their 24 h; returns how many. */
  async purgeExpired(): Promise<number> {
    return this.deps.store.purge(this.deps.clock.now());
  }
}
