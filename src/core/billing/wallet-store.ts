import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../db/orm.js';
import { preparedQuery } from '../db/prepared.js';

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

/** The wallet tables (`project.balance_minor`, `wallet_lease`, `charge`): the only code that writes them for calls. */
export interface WalletStore {
  /** Takes up to `wantMinor` (at least `minMinor`) off the project's balance as a new lease; null when the balance is below `minMinor`. */
  openLease(lease: { id: string; projectId: string; wantMinor: number; minMinor: number; holder: string; expiresAt: Date; now: Date }): Promise<LeaseGrant | null>;
  /** Closes an open lease and returns to the balance what its charges did not spend; null when it was closed already. */
  closeLease(leaseId: string, now: Date): Promise<number | null>;
  /** Open leases past their expiry: their holder died or lost the database. */
  expiredLeases(now: Date, limit: number): Promise<string[]>;
  /** The record and its charge in one statement; false (nothing written) when the lease was closed meanwhile. */
  recordPaidCheck(record: CheckRecordRow, charge: LeasedCharge | null): Promise<boolean>;
  /** The charge inside the caller's transaction (a session and its price commit together); false when the lease was closed. */
  chargeInTransaction(em: EntityManager, charge: LeasedCharge, paidFor: string): Promise<boolean>;
  /** What a project can spend: its row's balance and the unspent part of its open leases. */
  balanceOf(projectId: string): Promise<number | null>;
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

// The lease row is locked FOR KEY SHARE: calls paying from one lease do not wait on each other,
// but closing it (FOR UPDATE) waits for those in flight, and a call after the close sees it closed.
const RECORD_PAID_CHECK = `
with lease as (select id from wallet_lease where id = $11 and closed_at is null for key share),
record as (
  insert into check_record (id, project_id, type, status, mode, svc_id, livemode, reason, duration_ms, created_at)
  select $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 from lease
  returning id
)
insert into charge (id, project_id, item, check_id, amount_minor, currency, refunded, created_at, lease_id)
select $12, $2, $13, record.id, $14, $15, false, $10, $11 from record
returning id`;

const RECORD_CHECK = `
insert into check_record (id, project_id, type, status, mode, svc_id, livemode, reason, duration_ms, created_at)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
returning id`;

const CHARGE_IN_TRANSACTION = `
with lease as (select id from wallet_lease where id = ? and closed_at is null for key share)
insert into charge (id, project_id, item, check_id, amount_minor, currency, refunded, created_at, lease_id)
select ?, ?, ?, ?, ?, ?, false, ?, lease.id from lease
returning id`;

const CLOSE_LEASE = `
with spent as (select coalesce(sum(amount_minor), 0) as minor from charge where lease_id = ? and not refunded),
closed as (
  update wallet_lease set closed_at = ?, spent_minor = spent.minor from spent
  where wallet_lease.id = ? and closed_at is null
  returning project_id, amount_minor - spent_minor as unspent
)
update project set balance_minor = balance_minor + closed.unspent from closed
where project.id = closed.project_id
returning closed.unspent::float8 as unspent`;

export class PostgresWalletStore implements WalletStore {
  constructor(private readonly orm: Orm) {}

  async openLease(lease: { id: string; projectId: string; wantMinor: number; minMinor: number; holder: string; expiresAt: Date; now: Date }): Promise<LeaseGrant | null> {
    const rows = await preparedQuery<{ amount_minor: number; currency: string }>(this.orm, 'wallet_open_lease', OPEN_LEASE, [
      lease.id,
      lease.projectId,
      lease.wantMinor,
      lease.minMinor,
      lease.holder,
      lease.expiresAt,
      lease.now,
    ]);
    return rows[0] ? { amountMinor: Number(rows[0].amount_minor), currency: rows[0].currency } : null;
  }

  async closeLease(leaseId: string, now: Date): Promise<number | null> {
    return this.orm.em.fork().transactional(async (em) => {
      const connection = em.getConnection();
      const context = em.getTransactionContext();
      // First wait for the calls still writing charges to this lease, then count them.
      const open = await connection.execute('select id from wallet_lease where id = ? and closed_at is null for update', [leaseId], 'all', context);
      if (open.length === 0) return null;
      const rows = await connection.execute(CLOSE_LEASE, [leaseId, now, leaseId], 'all', context);
      return rows[0] ? Number(rows[0].unspent) : null;
    });
  }

  async expiredLeases(now: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.orm.em.getConnection().execute('select id from wallet_lease where closed_at is null and expires_at < ? order by expires_at limit ?', [now, limit]);
    return rows.map((row) => row.id);
  }

  async recordPaidCheck(record: CheckRecordRow, charge: LeasedCharge | null): Promise<boolean> {
    const recordValues = [record.id, record.projectId, record.type, record.status, record.mode, record.svcId, record.livemode, record.reason, record.durationMs, record.createdAt];
    if (!charge) {
      await preparedQuery(this.orm, 'wallet_record_check', RECORD_CHECK, recordValues);
      return true;
    }
    const rows = await preparedQuery(this.orm, 'wallet_record_paid_check', RECORD_PAID_CHECK, [...recordValues, charge.leaseId, charge.id, charge.item, charge.amountMinor, charge.currency]);
    return rows.length > 0;
  }

  async chargeInTransaction(em: EntityManager, charge: LeasedCharge, paidFor: string): Promise<boolean> {
    const rows = await em
      .getConnection()
      .execute(CHARGE_IN_TRANSACTION, [charge.leaseId, charge.id, charge.projectId, charge.item, paidFor, charge.amountMinor, charge.currency, charge.createdAt], 'all', em.getTransactionContext());
    return rows.length > 0;
  }

  async balanceOf(projectId: string): Promise<number | null> {
    const rows = await this.orm.em.getConnection().execute('select balance_minor::float8 as balance_minor from wallet where project_id = ?', [projectId]);
    return rows[0] ? Number(rows[0].balance_minor) : null;
  }
}
