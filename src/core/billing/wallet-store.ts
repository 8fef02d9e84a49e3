import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../db/orm.js';
import { preparedQuery, preparedQueryIn, sqlDate, transaction } from '../db/prepared.js';
import { StatementBatch } from '../db/statement-batch.js';
import { ANSWER_WITH_RECORDS } from './idempotency.js';

/** A block of a project's balance taken by one instance, spent locally. */
export interface LeaseGrant {
  amountMinor: number;
  currency: string;
}

/** The charge of one call, paid from an open lease. */
export interface LeasedCharge {
  id: string;
  leaseId: string;
  projectId: string;
  item: string;
  amountMinor: number;
  currency: string;
  createdAt: Date;
}

/** A standalone check's record, written with its charge. */
export interface CheckRecordRow {
  id: string;
  projectId: string;
  type: string;
  status: string;
  mode: string;
  svcId: string | null;
  livemode: boolean;
  reason: string | null;
  durationMs: number;
  createdAt: Date;
}

/**
 * The answer of a call made with an `Idempotency-Key`, completed by the statement that records the
 * call (the key's row was claimed before the work, idempotency.ts): no statement of its own.
 */
export interface KeyedAnswer {
  key: string;
  status: number;
  sealed: string;
}

/** The wallet tables (`project.balance_minor`, `wallet_lease`, `charge`): the only code that writes them for calls. */
export interface WalletStore {
  /**
   * Takes up to `wantMinor` (at least `minMinor`) off the project's balance as a new lease; null when the balance is
   * below `minMinor`.
   */
  openLease(lease: {
    id: string;
    projectId: string;
    wantMinor: number;
    minMinor: number;
    holder: string;
    expiresAt: Date;
    now: Date;
  }): Promise<LeaseGrant | null>;
  /**
   * Closes an open lease and returns to the balance what its charges did not spend; null when it was closed already.
   */
  closeLease(leaseId: string, now: Date): Promise<number | null>;
  /** Open leases past their expiry: their holder died or lost the database. */
  expiredLeases(now: Date, limit: number): Promise<string[]>;
  /**
   * The record, its charge and its idempotent answer in one statement; false (nothing written) when the lease was
   * closed meanwhile.
   */
  recordPaidCheck(record: CheckRecordRow, charge: LeasedCharge | null, answer?: KeyedAnswer | null): Promise<boolean>;
  /**
   * The charge inside the caller's transaction (a session and its price commit together); false when the lease was
   * closed.
   */
  chargeInTransaction(em: EntityManager, charge: LeasedCharge, paidFor: string): Promise<boolean>;
  /** What a project can spend: its row's balance and the unspent part of its open leases. */
  balanceOf(projectId: string): Promise<number | null>;
  /** Adds to a project's balance; false for an unknown project. */
  credit(projectId: string, amountMinor: number): Promise<boolean>;
  /** A project's charges, newest first. */
  charges(projectId: string, limit: number): Promise<ChargeRow[]>;
  /** Unsettled, unrefunded charges written before `before` (only versions before wallet leases wrote them). */
  abandonedCharges(before: Date, limit: number): Promise<string[]>;
  /**
   * Marks an unsettled charge refunded and credits its amount back, once; false when it was settled or refunded
   * already.
   */
  refundCharge(chargeId: string): Promise<boolean>;
}

/** A charge as the dashboards list it. */
export interface ChargeRow {
  id: string;
  projectId: string;
  item: string;
  checkId: string | null;
  amountMinor: number;
  currency: string;
  refunded: boolean;
  createdAt: Date;
}

const OPEN_LEASE = `
with old as (select id, balance_minor from project where id = $2 for update),
taken as (
  update project p set balance_minor = p.balance_minor - least(old.balance_minor, $3) from old
  where p.id = old.id and old.balance_minor >= $4
  returning p.currency, old.balance_minor - p.balance_minor as amount
)
insert into wallet_lease (id, project_id, amount_minor, currency, holder, expires_at, created_at)
select $1, $2, taken.amount, taken.currency, $5, $6, $7 from taken
returning amount_minor::float8 as amount_minor, currency`;

// Many calls' records and charges in one statement (see StatementBatch), one array per column.
// The lease rows are locked FOR KEY SHARE: calls paying from one lease do not wait on each other,
// but closing it (FOR UPDATE) waits for those in flight, and a call after the close sees it
// closed. A record paid from a closed lease is not written, nor its charge; one without a lease
// (a test key's, unpaid) always is.
const RECORD_CHECKS = `
with input as (
  select * from unnest($1::varchar[], $2::varchar[], $3::text[], $4::text[], $5::varchar[], $6::varchar[], $7::boolean[], $8::varchar[], $9::int[],
                       $10::timestamptz[], $11::varchar[], $12::varchar[], $13::varchar[], $14::bigint[], $15::varchar[],
                       $16::varchar[], $17::int[], $18::text[])
    as i(id, project_id, type, status, mode, svc_id, livemode, reason, duration_ms, created_at, lease_id, charge_id, item, amount_minor, currency,
         answer_key, answer_status, answer_sealed)
),
lease as (select id from wallet_lease where id in (select lease_id from input) and closed_at is null for key share),
record as (
  insert into check_record (id, project_id, type, status, mode, svc_id, livemode, reason, duration_ms, created_at)
  select id, project_id, type, status, mode, svc_id, livemode, reason, duration_ms, created_at from input
  where lease_id is null or lease_id in (select id from lease)
  returning id
),
paid as (
  insert into charge (id, project_id, item, check_id, amount_minor, currency, refunded, created_at, lease_id)
  select input.charge_id, input.project_id, input.item, input.id, input.amount_minor, input.currency, false, input.created_at, input.lease_id
  from input join record on record.id = input.id where input.lease_id is not null
),
-- The idempotent calls' answers, with the records they answer (the idempotency store's CTE).
${ANSWER_WITH_RECORDS}
select id from record`;

/** A record with its charge, if paid, and its idempotent answer, if keyed, as RECORD_CHECKS takes it. */
interface PaidRecord {
  record: CheckRecordRow;
  charge: LeasedCharge | null;
  answer: KeyedAnswer | null;
}

const CHARGE_IN_TRANSACTION = `
with lease as (select id from wallet_lease where id = $1 and closed_at is null for key share)
insert into charge (id, project_id, item, check_id, amount_minor, currency, refunded, created_at, lease_id)
select $2, $3, $4, $5, $6, $7, false, $8, lease.id from lease
returning id`;

// The update's row lock makes one winner when two sweeps refund one charge.
const REFUND_CHARGE = `
with refunded as (
  update charge set refunded = true where id = $1 and not refunded and check_id is null
  returning project_id, amount_minor
)
update project set balance_minor = balance_minor + refunded.amount_minor from refunded
where project.id = refunded.project_id
returning project.id`;

const CLOSE_LEASE = `
with spent as (select coalesce(sum(amount_minor), 0) as minor from charge where lease_id = $1 and not refunded),
closed as (
  update wallet_lease set closed_at = $2, spent_minor = spent.minor from spent
  where wallet_lease.id = $1 and closed_at is null
  returning project_id, amount_minor - spent_minor as unspent
)
update project set balance_minor = balance_minor + closed.unspent from closed
where project.id = closed.project_id
returning closed.unspent::float8 as unspent`;

export class PostgresWalletStore implements WalletStore {
  private readonly records = new StatementBatch<PaidRecord, boolean>((rows) => this.writeRecords(rows));

  constructor(private readonly orm: Orm) {}

  async openLease(lease: {
    id: string;
    projectId: string;
    wantMinor: number;
    minMinor: number;
    holder: string;
    expiresAt: Date;
    now: Date;
  }): Promise<LeaseGrant | null> {
    const rows = await preparedQuery<{ amount_minor: number; currency: string }>(
      this.orm,
      'wallet_open_lease',
      OPEN_LEASE,
      [lease.id, lease.projectId, lease.wantMinor, lease.minMinor, lease.holder, lease.expiresAt, lease.now],
    );
    return rows[0] ? { amountMinor: Number(rows[0].amount_minor), currency: rows[0].currency } : null;
  }

  async closeLease(leaseId: string, now: Date): Promise<number | null> {
    return transaction(this.orm, async (em) => {
      // First wait for the calls still writing charges to this lease, then count them.
      const open = await preparedQueryIn(
        this.orm,
        em,
        'wallet_lock_open_lease',
        'select id from wallet_lease where id = $1 and closed_at is null for update',
        [leaseId],
      );
      if (open.length === 0) return null;
      const rows = await preparedQueryIn<{ unspent: number }>(this.orm, em, 'wallet_close_lease', CLOSE_LEASE, [
        leaseId,
        now,
      ]);
      return rows[0] ? Number(rows[0].unspent) : null;
    });
  }

  async expiredLeases(now: Date, limit: number): Promise<string[]> {
    const rows = await preparedQuery<{ id: string }>(
      this.orm,
      'wallet_expired_leases',
      'select id from wallet_lease where closed_at is null and expires_at < $1 order by expires_at limit $2',
      [now, limit],
    );
    return rows.map((row) => row.id);
  }

  recordPaidCheck(
    record: CheckRecordRow,
    charge: LeasedCharge | null,
    answer: KeyedAnswer | null = null,
  ): Promise<boolean> {
    return this.records.submit({ record, charge, answer });
  }

  /** Writes the records (and charges) of several calls in one statement: for each, whether it was written. */
  private async writeRecords(rows: PaidRecord[]): Promise<boolean[]> {
    const column = <T>(value: (row: PaidRecord) => T) => rows.map(value);
    const written = await preparedQuery<{ id: string }>(this.orm, 'wallet_record_checks', RECORD_CHECKS, [
      column((r) => r.record.id),
      column((r) => r.record.projectId),
      column((r) => r.record.type),
      column((r) => r.record.status),
      column((r) => r.record.mode),
      column((r) => r.record.svcId),
      column((r) => r.record.livemode),
      column((r) => r.record.reason),
      column((r) => r.record.durationMs),
      column((r) => r.record.createdAt),
      column((r) => r.charge?.leaseId ?? null),
      column((r) => r.charge?.id ?? null),
      column((r) => r.charge?.item ?? null),
      column((r) => r.charge?.amountMinor ?? null),
      column((r) => r.charge?.currency ?? null),
      column((r) => r.answer?.key ?? null),
      column((r) => r.answer?.status ?? null),
      column((r) => r.answer?.sealed ?? null),
    ]);
    const ids = new Set(written.map((row) => row.id));
    return rows.map((row) => ids.has(row.record.id));
  }

  async chargeInTransaction(em: EntityManager, charge: LeasedCharge, paidFor: string): Promise<boolean> {
    const rows = await preparedQueryIn(this.orm, em, 'wallet_charge_in_transaction', CHARGE_IN_TRANSACTION, [
      charge.leaseId,
      charge.id,
      charge.projectId,
      charge.item,
      paidFor,
      charge.amountMinor,
      charge.currency,
      charge.createdAt,
    ]);
    return rows.length > 0;
  }

  async credit(projectId: string, amountMinor: number): Promise<boolean> {
    const rows = await preparedQuery(
      this.orm,
      'wallet_credit',
      'update project set balance_minor = balance_minor + $2 where id = $1 returning id',
      [projectId, amountMinor],
    );
    return rows.length > 0;
  }

  async charges(projectId: string, limit: number): Promise<ChargeRow[]> {
    const rows = await preparedQuery<{
      id: string;
      project_id: string;
      item: string;
      check_id: string | null;
      amount_minor: number;
      currency: string;
      refunded: boolean;
      created_at: Date | string;
    }>(
      this.orm,
      'wallet_charges_of_project',
      'select id, project_id, item, check_id, amount_minor::float8 as amount_minor, currency, refunded, created_at from charge where project_id = $1 order by created_at desc, id desc limit $2',
      [projectId, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      projectId: row.project_id,
      item: row.item,
      checkId: row.check_id,
      amountMinor: Number(row.amount_minor),
      currency: row.currency,
      refunded: row.refunded,
      createdAt: sqlDate(row.created_at),
    }));
  }

  async abandonedCharges(before: Date, limit: number): Promise<string[]> {
    const rows = await preparedQuery<{ id: string }>(
      this.orm,
      'wallet_abandoned_charges',
      'select id from charge where check_id is null and not refunded and created_at < $1 limit $2',
      [before, limit],
    );
    return rows.map((row) => row.id);
  }

  async refundCharge(chargeId: string): Promise<boolean> {
    return (await preparedQuery(this.orm, 'wallet_refund_charge', REFUND_CHARGE, [chargeId])).length > 0;
  }

  async balanceOf(projectId: string): Promise<number | null> {
    const rows = await preparedQuery<{ balance_minor: number }>(
      this.orm,
      'wallet_balance_of',
      'select balance_minor::float8 as balance_minor from wallet where project_id = $1',
      [projectId],
    );
    return rows[0] ? Number(rows[0].balance_minor) : null;
  }
}
