import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../db/orm.js';
import {
  failedWith,
  preparedQuery,
  preparedQueryIn,
  SQLSTATE,
  sqlDate,
  sqlDateOrNull,
  transaction,
} from '../db/prepared.js';
import { DomainError } from '../errors.js';
import type { MemberRole, MemberStatus } from './entities.js';

export type { MemberRole, MemberStatus };

/**
 * The transaction a roster change runs in. Another area's statement that belongs to the change
 * (whether a reactivated member's account still exists) joins it, as the accounts' store takes it.
 */
export type RosterTx = EntityManager;

/** A member as it is stored: plain data, no unit of work behind it. */
export interface MemberRecord {
  id: number;
  memberId: string;
  organizationId: number;
  email: string;
  firstName: string;
  lastName: string;
  role: MemberRole;
  status: MemberStatus;
  svcId: string | null;
  /** Digest of the one live activation link; a new link overwrites it (superseding the old). */
  activationDigest: string | null;
  activationExpiresAt: Date | null;
  createdAt: Date;
}

/** Which column a member reference names, and its value (an email already lower-cased). */
export interface MemberKey {
  column: 'member_id' | 'email' | 'svc_id';
  value: string;
}

/** A member to add: the row before PostgreSQL gives it an id. */
export type NewMemberRecord = Omit<MemberRecord, 'id' | 'svcId'>;

/** One entry of the audit trail: who changed what, with the member (or plan) before and after. */
export interface AuditEntry {
  organizationId: number;
  /** The member's `mem_` id, or null for organization-wide changes (the plan). */
  memberId: string | null;
  actor: string;
  action: string;
  before: object | null;
  after: object | null;
  createdAt: Date;
}

export interface AuditRecord {
  id: number;
  memberId: string | null;
  actor: string;
  action: string;
  before: unknown;
  after: unknown;
  createdAt: Date;
}

/** An organization's roster plan: price per active seat and the trial. */
export interface PlanRecord {
  organizationId: number;
  plan: string;
  /** Minor units (cents) of `currency` per seat per month. */
  pricePerSeatMinor: number;
  currency: string;
  trialEndsAt: Date | null;
  /** Billing starts with the month this falls in. */
  startedAt: Date;
  updatedAt: Date;
}

/** A closed monthly billing period. */
export interface InvoiceRecord {
  organizationId: number;
  /** `YYYY-MM` (UTC). */
  period: string;
  seats: number;
  amountMinor: number;
  currency: string;
  createdAt: Date;
}

/** One stretch of time a member held a paid seat (active). */
export interface SeatStretch {
  memberId: string;
  startedAt: Date;
  endedAt: Date | null;
}

/** The member an activation link is for, with its organization's name. */
export interface ActivationTargetRecord {
  memberId: string;
  email: string;
  firstName: string;
  status: MemberStatus;
  activationExpiresAt: Date | null;
  organizationName: string;
}

/** What a roster change does, in one transaction. */
export interface RosterTransaction {
  /** The transaction itself, for another area's statement that belongs to this change. */
  readonly tx: RosterTx;
  /** The member by a reference, locked until the transaction ends; null when not on this roster. */
  lockMember(organizationId: number, key: MemberKey): Promise<MemberRecord | null>;
  /** The member holding this activation link's digest, locked; null when none does. */
  lockMemberByActivation(digest: string): Promise<MemberRecord | null>;
  /** The organization's members with these addresses (lower-cased), not locked. */
  membersByEmail(organizationId: number, emails: readonly string[]): Promise<MemberRecord[]>;
  /**
   * Adds the members whose address is not on the roster yet (the unique index on
   * (organization, lower(email)) decides, so of two concurrent adds one wins): the ids of those added.
   */
  addMembers(members: readonly NewMemberRecord[]): Promise<{ id: number; memberId: string }[]>;
  /**
   * Writes a member's status, account and activation link; `already_active` when the account is already on the roster.
   */
  saveMember(member: MemberRecord): Promise<void>;
  deleteMember(id: number): Promise<void>;
  openSeat(organizationId: number, memberId: string, at: Date): Promise<void>;
  /** Ends the member's open seat, if any. */
  closeSeat(memberId: string, at: Date): Promise<void>;
  appendAudit(entries: readonly AuditEntry[]): Promise<void>;
  /** The organization's plan, locked until the transaction ends; null when it has none. */
  lockPlan(organizationId: number): Promise<PlanRecord | null>;
  /** Writes the plan (its start is kept once set); the plan as stored. */
  savePlan(plan: PlanRecord): Promise<PlanRecord>;
}

/**
 * Organizations and their rosters (`organization`, `member`, `roster_seat`, `roster_plan`,
 * `roster_invoice`, `roster_audit`, `roster_invite_window`): the only code that touches those
 * tables, apart from the token endpoint's statement that reads a member into the id_token.
 */
export interface RosterStore {
  /** Runs `work` in one transaction: it commits when `work` returns and rolls back when it throws. */
  transaction<T>(work: (tx: RosterTransaction) => Promise<T>): Promise<T>;

  organization(organizationId: number): Promise<{ id: number; name: string } | null>;
  organizationExists(organizationId: number): Promise<boolean>;
  /** A new organization; its id. */
  createOrganization(name: string, createdAt: Date): Promise<number>;
  organizationNames(organizationIds: readonly number[]): Promise<{ id: number; name: string }[]>;

  /** The member by a reference; null when not on this roster. */
  member(organizationId: number, key: MemberKey): Promise<MemberRecord | null>;
  /** Members with the `member` role after row id `afterId`, oldest first. */
  memberPage(organizationId: number, afterId: number, limit: number): Promise<MemberRecord[]>;
  isDeactivated(organizationId: number, svcId: string): Promise<boolean>;
  /** The member an activation link's digest is for, whatever its state; null when none. */
  activationTarget(digest: string): Promise<ActivationTargetRecord | null>;
  /**
   * Counts one re-invite of a member in the minute starting `windowStart` (earlier minutes dropped); the minute's
   * count.
   */
  countInvite(memberPk: number, windowStart: Date): Promise<number>;

  /** The audit trail, newest first, of the organization or of one member. */
  auditTrail(organizationId: number, memberId: string | null, limit: number): Promise<AuditRecord[]>;
  /** Whether the organization permanently removed a member known by `ref` (member id, email in any case, or svc_id). */
  wasRemoved(organizationId: number, ref: string): Promise<boolean>;

  plan(organizationId: number): Promise<PlanRecord | null>;
  plans(): Promise<PlanRecord[]>;
  activeSeats(organizationId: number): Promise<number>;
  /** The organization's invoices, oldest period first. */
  invoices(organizationId: number): Promise<InvoiceRecord[]>;
  /** The period of the organization's latest invoice, or null. */
  lastInvoicedPeriod(organizationId: number): Promise<string | null>;
  /** Seat stretches that began before `before` and were still held after `heldAfter`. */
  seatStretches(organizationId: number, before: Date, heldAfter: Date): Promise<SeatStretch[]>;
  /** Adds a period's invoice unless it is there (of two closers, exactly one adds it); whether this one did. */
  addInvoice(invoice: InvoiceRecord): Promise<boolean>;
}

const MEMBER_COLUMNS =
  'id, member_id, organization_id, email, first_name, last_name, role, status, svc_id, activation_digest, activation_expires_at, created_at';

interface MemberRow {
  id: number;
  member_id: string;
  organization_id: number;
  email: string;
  first_name: string;
  last_name: string;
  role: MemberRole;
  status: MemberStatus;
  svc_id: string | null;
  activation_digest: string | null;
  activation_expires_at: Date | string | null;
  created_at: Date | string;
}

const memberOf = (row: MemberRow): MemberRecord => ({
  id: row.id,
  memberId: row.member_id,
  organizationId: row.organization_id,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  role: row.role,
  status: row.status,
  svcId: row.svc_id,
  activationDigest: row.activation_digest,
  activationExpiresAt: sqlDateOrNull(row.activation_expires_at),
  createdAt: sqlDate(row.created_at),
});

/** The statement that finds a member by each kind of reference within an organization. */
const MEMBER_BY: Record<MemberKey['column'], string> = {
  member_id: `select ${MEMBER_COLUMNS} from member where organization_id = $1 and member_id = $2`,
  email: `select ${MEMBER_COLUMNS} from member where organization_id = $1 and lower(email) = $2`,
  svc_id: `select ${MEMBER_COLUMNS} from member where organization_id = $1 and svc_id = $2`,
};

const PLAN_COLUMNS = 'organization_id, plan, price_per_seat_minor, currency, trial_ends_at, started_at, updated_at';

interface PlanRow {
  organization_id: number;
  plan: string;
  price_per_seat_minor: number;
  currency: string;
  trial_ends_at: Date | string | null;
  started_at: Date | string;
  updated_at: Date | string;
}

const planOf = (row: PlanRow): PlanRecord => ({
  organizationId: row.organization_id,
  plan: row.plan,
  pricePerSeatMinor: row.price_per_seat_minor,
  currency: row.currency,
  trialEndsAt: sqlDateOrNull(row.trial_ends_at),
  startedAt: sqlDate(row.started_at),
  updatedAt: sqlDate(row.updated_at),
});

const ADD_MEMBERS = `insert into member (member_id, organization_id, email, first_name, last_name, role, status, svc_id, activation_digest, activation_expires_at, created_at)
  select m.member_id, m.organization_id, m.email, m.first_name, m.last_name, m.role, m.status, null, m.activation_digest, m.activation_expires_at, m.created_at
  from unnest($1::varchar[], $2::int[], $3::varchar[], $4::varchar[], $5::varchar[], $6::varchar[], $7::varchar[], $8::varchar[], $9::timestamptz[], $10::timestamptz[])
    as m(member_id, organization_id, email, first_name, last_name, role, status, activation_digest, activation_expires_at, created_at)
  on conflict do nothing returning id, member_id`;

const APPEND_AUDIT = `insert into roster_audit (organization_id, member_id, actor, action, before, after, created_at)
  select * from unnest($1::int[], $2::varchar[], $3::varchar[], $4::varchar[], $5::jsonb[], $6::jsonb[], $7::timestamptz[])`;

const SAVE_PLAN = `insert into roster_plan (${PLAN_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7)
  on conflict (organization_id) do update set plan = excluded.plan, price_per_seat_minor = excluded.price_per_seat_minor, currency = excluded.currency,
    trial_ends_at = excluded.trial_ends_at, updated_at = excluded.updated_at
  returning ${PLAN_COLUMNS}`;

const jsonOrNull = (value: object | null): string | null => (value === null ? null : JSON.stringify(value));

/** A roster transaction on PostgreSQL: each write one named statement on the transaction's connection. */
class PgRosterTransaction implements RosterTransaction {
  constructor(
    private readonly orm: Orm,
    readonly tx: RosterTx,
  ) {}

  private run<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    return preparedQueryIn<T>(this.orm, this.tx, name, text, values);
  }

  async lockMember(organizationId: number, key: MemberKey): Promise<MemberRecord | null> {
    const [row] = await this.run<MemberRow>(`member_lock_by_${key.column}`, `${MEMBER_BY[key.column]} for update`, [
      organizationId,
      key.value,
    ]);
    return row ? memberOf(row) : null;
  }

  async lockMemberByActivation(digest: string): Promise<MemberRecord | null> {
    const [row] = await this.run<MemberRow>(
      'member_lock_by_activation_digest',
      `select ${MEMBER_COLUMNS} from member where activation_digest = $1 for update`,
      [digest],
    );
    return row ? memberOf(row) : null;
  }

  async membersByEmail(organizationId: number, emails: readonly string[]): Promise<MemberRecord[]> {
    const rows = await this.run<MemberRow>(
      'members_by_lower_email',
      `select ${MEMBER_COLUMNS} from member where organization_id = $1 and lower(email) = any($2::varchar[])`,
      [organizationId, emails],
    );
    return rows.map(memberOf);
  }

  async addMembers(members: readonly NewMemberRecord[]): Promise<{ id: number; memberId: string }[]> {
    if (members.length === 0) return [];
    const column = <T>(value: (member: NewMemberRecord) => T) => members.map(value);
    const rows = await this.run<{ id: number; member_id: string }>('members_add', ADD_MEMBERS, [
      column((m) => m.memberId),
      column((m) => m.organizationId),
      column((m) => m.email),
      column((m) => m.firstName),
      column((m) => m.lastName),
      column((m) => m.role),
      column((m) => m.status),
      column((m) => m.activationDigest),
      column((m) => m.activationExpiresAt),
      column((m) => m.createdAt),
    ]);
    return rows.map((row) => ({ id: row.id, memberId: row.member_id }));
  }

  async saveMember(member: MemberRecord): Promise<void> {
    try {
      await this.run(
        'member_save',
        'update member set status = $2, svc_id = $3, activation_digest = $4, activation_expires_at = $5 where id = $1',
        [member.id, member.status, member.svcId, member.activationDigest, member.activationExpiresAt],
      );
    } catch (error) {
      // The unique (organization, svc_id): the account is already another member of this roster.
      if (failedWith(error, SQLSTATE.uniqueViolation))
        throw new DomainError('already_active', "this account is already on the organization's roster");
      throw error;
    }
  }

  async deleteMember(id: number): Promise<void> {
    await this.run('member_delete', 'delete from member where id = $1', [id]);
  }

  async openSeat(organizationId: number, memberId: string, at: Date): Promise<void> {
    await this.run(
      'roster_seat_open',
      'insert into roster_seat (organization_id, member_id, started_at, ended_at) values ($1, $2, $3, null)',
      [organizationId, memberId, at],
    );
  }

  async closeSeat(memberId: string, at: Date): Promise<void> {
    await this.run(
      'roster_seat_close',
      'update roster_seat set ended_at = $2 where member_id = $1 and ended_at is null',
      [memberId, at],
    );
  }

  async appendAudit(entries: readonly AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const column = <T>(value: (entry: AuditEntry) => T) => entries.map(value);
    await this.run('roster_audit_append', APPEND_AUDIT, [
      column((e) => e.organizationId),
      column((e) => e.memberId),
      column((e) => e.actor),
      column((e) => e.action),
      column((e) => jsonOrNull(e.before)),
      column((e) => jsonOrNull(e.after)),
      column((e) => e.createdAt),
    ]);
  }

  async lockPlan(organizationId: number): Promise<PlanRecord | null> {
    const [row] = await this.run<PlanRow>(
      'roster_plan_lock',
      `select ${PLAN_COLUMNS} from roster_plan where organization_id = $1 for update`,
      [organizationId],
    );
    return row ? planOf(row) : null;
  }

  async savePlan(plan: PlanRecord): Promise<PlanRecord> {
    const [row] = await this.run<PlanRow>('roster_plan_save', SAVE_PLAN, [
      plan.organizationId,
      plan.plan,
      plan.pricePerSeatMinor,
      plan.currency,
      plan.trialEndsAt,
      plan.startedAt,
      plan.updatedAt,
    ]);
    return planOf(row!);
  }
}

/** The roster tables in PostgreSQL, by named prepared statements. */
export class PgRosterStore implements RosterStore {
  constructor(private readonly orm: Orm) {}

  transaction<T>(work: (tx: RosterTransaction) => Promise<T>): Promise<T> {
    return transaction(this.orm, (em) => work(new PgRosterTransaction(this.orm, em)));
  }

  async organization(organizationId: number): Promise<{ id: number; name: string } | null> {
    const [row] = await preparedQuery<{ id: number; name: string }>(
      this.orm,
      'organization_by_id',
      'select id, name from organization where id = $1',
      [organizationId],
    );
    return row ?? null;
  }

  async organizationExists(organizationId: number): Promise<boolean> {
    return (
      (
        await preparedQuery(this.orm, 'organization_exists', 'select 1 from organization where id = $1', [
          organizationId,
        ])
      ).length > 0
    );
  }

  async createOrganization(name: string, createdAt: Date): Promise<number> {
    const [row] = await preparedQuery<{ id: number }>(
      this.orm,
      'organization_create',
      'insert into organization (name, created_at) values ($1, $2) returning id',
      [name, createdAt],
    );
    return row!.id;
  }

  organizationNames(organizationIds: readonly number[]): Promise<{ id: number; name: string }[]> {
    return preparedQuery<{ id: number; name: string }>(
      this.orm,
      'organization_names',
      'select id, name from organization where id = any($1::int[])',
      [organizationIds],
    );
  }

  async member(organizationId: number, key: MemberKey): Promise<MemberRecord | null> {
    // A per-call lookup of org apps: one named statement, no entity built.
    const [row] = await preparedQuery<MemberRow>(this.orm, `member_by_${key.column}`, MEMBER_BY[key.column], [
      organizationId,
      key.value,
    ]);
    return row ? memberOf(row) : null;
  }

  async memberPage(organizationId: number, afterId: number, limit: number): Promise<MemberRecord[]> {
    // Plain rows, not entities: a roster can hold 100,000 members and hydrating each costs.
    const rows = await preparedQuery<MemberRow>(
      this.orm,
      'member_page',
      `select ${MEMBER_COLUMNS} from member where organization_id = $1 and role = 'member' and id > $2 order by id limit $3`,
      [organizationId, afterId, limit],
    );
    return rows.map(memberOf);
  }

  async isDeactivated(organizationId: number, svcId: string): Promise<boolean> {
    const rows = await preparedQuery(
      this.orm,
      'member_deactivated',
      "select 1 from member where organization_id = $1 and svc_id = $2 and status = 'deactivated' limit 1",
      [organizationId, svcId],
    );
    return rows.length > 0;
  }

  async activationTarget(digest: string): Promise<ActivationTargetRecord | null> {
    const [row] = await preparedQuery<{
      member_id: string;
      email: string;
      first_name: string;
      status: MemberStatus;
      activation_expires_at: Date | string | null;
      organization_name: string;
    }>(
      this.orm,
      'member_by_activation_digest',
      `select m.member_id, m.email, m.first_name, m.status, m.activation_expires_at, o.name as organization_name
         from member m join organization o on o.id = m.organization_id where m.activation_digest = $1`,
      [digest],
    );
    if (!row) return null;
    return {
      memberId: row.member_id,
      email: row.email,
      firstName: row.first_name,
      status: row.status,
      activationExpiresAt: sqlDateOrNull(row.activation_expires_at),
      organizationName: row.organization_name,
    };
  }

  async countInvite(memberPk: number, windowStart: Date): Promise<number> {
    // This minute's count, and the member's earlier minutes dropped, in one statement.
    const [row] = await preparedQuery<{ count: number }>(
      this.orm,
      'roster_count_invite',
      `with earlier as (delete from roster_invite_window where member_pk = $1 and window_start < $2)
       insert into roster_invite_window (member_pk, window_start, count) values ($1, $2, 1)
       on conflict (member_pk, window_start) do update set count = roster_invite_window.count + 1 returning count`,
      [memberPk, windowStart],
    );
    return Number(row!.count);
  }

  async auditTrail(organizationId: number, memberId: string | null, limit: number): Promise<AuditRecord[]> {
    const rows = await preparedQuery<{
      id: number | string;
      member_id: string | null;
      actor: string;
      action: string;
      before: unknown;
      after: unknown;
      created_at: Date | string;
    }>(
      this.orm,
      'roster_audit_trail',
      `select id, member_id, actor, action, before, after, created_at from roster_audit
       where organization_id = $1 and ($2::varchar is null or member_id = $2) order by id desc limit $3`,
      [organizationId, memberId, limit],
    );
    // The id is a bigint, which node-postgres reads as text.
    return rows.map((row) => ({
      id: Number(row.id),
      memberId: row.member_id,
      actor: row.actor,
      action: row.action,
      before: row.before,
      after: row.after,
      createdAt: sqlDate(row.created_at),
    }));
  }

  async wasRemoved(organizationId: number, ref: string): Promise<boolean> {
    const rows = await preparedQuery(
      this.orm,
      'roster_was_removed',
      `select 1 from roster_audit where organization_id = $1 and action = 'remove'
         and (member_id = $2 or lower(before->>'email') = lower($2) or before->>'svc_id' = $2) limit 1`,
      [organizationId, ref],
    );
    return rows.length > 0;
  }

  async plan(organizationId: number): Promise<PlanRecord | null> {
    const [row] = await preparedQuery<PlanRow>(
      this.orm,
      'roster_plan_of_organization',
      `select ${PLAN_COLUMNS} from roster_plan where organization_id = $1`,
      [organizationId],
    );
    return row ? planOf(row) : null;
  }

  async plans(): Promise<PlanRecord[]> {
    return (await preparedQuery<PlanRow>(this.orm, 'roster_plans', `select ${PLAN_COLUMNS} from roster_plan`, [])).map(
      planOf,
    );
  }

  async activeSeats(organizationId: number): Promise<number> {
    const [row] = await preparedQuery<{ count: string }>(
      this.orm,
      'member_active_count',
      "select count(*) as count from member where organization_id = $1 and status = 'active'",
      [organizationId],
    );
    // count(*) is a bigint, which node-postgres reads as text.
    return Number(row!.count);
  }

  async invoices(organizationId: number): Promise<InvoiceRecord[]> {
    const rows = await preparedQuery<{
      organization_id: number;
      period: string;
      seats: number;
      amount_minor: number;
      currency: string;
      created_at: Date | string;
    }>(
      this.orm,
      'roster_invoices_of_organization',
      'select organization_id, period, seats, amount_minor, currency, created_at from roster_invoice where organization_id = $1 order by period asc',
      [organizationId],
    );
    return rows.map((row) => ({
      organizationId: row.organization_id,
      period: row.period,
      seats: row.seats,
      amountMinor: row.amount_minor,
      currency: row.currency,
      createdAt: sqlDate(row.created_at),
    }));
  }

  async lastInvoicedPeriod(organizationId: number): Promise<string | null> {
    const [row] = await preparedQuery<{ period: string }>(
      this.orm,
      'roster_last_invoiced_period',
      'select period from roster_invoice where organization_id = $1 order by period desc limit 1',
      [organizationId],
    );
    return row?.period ?? null;
  }

  async seatStretches(organizationId: number, before: Date, heldAfter: Date): Promise<SeatStretch[]> {
    const rows = await preparedQuery<{ member_id: string; started_at: Date | string; ended_at: Date | string | null }>(
      this.orm,
      'roster_seat_stretches',
      'select member_id, started_at, ended_at from roster_seat where organization_id = $1 and started_at < $2 and (ended_at is null or ended_at > $3)',
      [organizationId, before, heldAfter],
    );
    return rows.map((row) => ({
      memberId: row.member_id,
      startedAt: sqlDate(row.started_at),
      endedAt: sqlDateOrNull(row.ended_at),
    }));
  }

  async addInvoice(invoice: InvoiceRecord): Promise<boolean> {
    const rows = await preparedQuery(
      this.orm,
      'roster_invoice_add',
      `insert into roster_invoice (organization_id, period, seats, amount_minor, currency, created_at) values ($1, $2, $3, $4, $5, $6)
       on conflict (organization_id, period) do nothing returning id`,
      [invoice.organizationId, invoice.period, invoice.seats, invoice.amountMinor, invoice.currency, invoice.createdAt],
    );
    return rows.length > 0;
  }
}
