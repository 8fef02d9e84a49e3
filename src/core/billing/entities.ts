import { BigIntType, Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** One debit of a project's wallet for one billable call; refunded when the call failed on our side. */
@Entity({ tableName: 'charge' })
@Index({
  name: 'charge_lease_id_index',
  expression: `create index "charge_lease_id_index" on "charge" ("lease_id") where "lease_id" is not null`,
})
@Index({
  name: 'charge_unsettled_index',
  expression: `create index "charge_unsettled_index" on "charge" ("created_at") where "check_id" is null and not "refunded"`,
})
@Index({ properties: ['projectId', 'createdAt'] })
export class Charge {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  projectId!: string;

  /** What was bought, e.g. `check:age`. */
  @Property({ type: 'string', length: 60 })
  item!: string;

  /** The check record this paid for, once the call finished. */
  @Property({ type: 'string', length: 40, nullable: true })
  checkId?: string | null;

  @Property({ type: new BigIntType('number') })
  amountMinor!: number;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Property({ type: 'boolean', default: false })
  refunded: boolean = false;

  /** The wallet lease it was paid from (none for charges from before leases). */
  @Property({ type: 'string', length: 40, nullable: true })
  leaseId?: string | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/**
 * The first response to a request with an `Idempotency-Key`, replayed for 24 h. The body is
 * sealed (AES-GCM): a fresh-mode response can carry raw identity data the caller asked for.
 */
@Entity({ tableName: 'idempotency_record' })
export class IdempotencyRecord {
  @PrimaryKey({ type: 'string', length: 40 })
  projectId!: string;

  @PrimaryKey({ type: 'string', length: 255 })
  key!: string;

  /** SHA-256 of route and body: the same key with another body is refused. */
  @Property({ type: 'string', length: 64 })
  fingerprint!: string;

  @Property({ type: 'string', length: 12 })
  state!: 'running' | 'done';

  @Property({ type: 'integer', nullable: true })
  responseStatus?: number | null;

  @Property({ type: 'text', nullable: true })
  responseSealed?: string | null;

  /** A running record older than this was abandoned by a crashed process and may be taken over. */
  @Property({ type: 'timestamptz' })
  lockedUntil!: Date;

  @Property({ type: 'timestamptz' })
  @Index()
  expiresAt!: Date;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/** A slice of a project's balance an instance holds to pay calls from (billing/wallet-store.ts). */
@Entity({ tableName: 'wallet_lease' })
@Index({
  name: 'wallet_lease_expiry_index',
  expression: `create index "wallet_lease_expiry_index" on "wallet_lease" ("expires_at") where "closed_at" is null`,
})
@Index({
  name: 'wallet_lease_open_index',
  expression: `create index "wallet_lease_open_index" on "wallet_lease" ("project_id") where "closed_at" is null`,
})
export class WalletLease {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  projectId!: string;

  @Property({ type: new BigIntType('number') })
  amountMinor!: number;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Property({ type: 'string', length: 80 })
  holder!: string;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: new BigIntType('number'), nullable: true })
  spentMinor?: number | null;

  @Property({ type: 'timestamptz', nullable: true })
  closedAt?: Date | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/** A key's request window: the points granted in it and when it ends (epoch ms). */
@Entity({ tableName: 'rate_limit' })
export class RateLimitWindow {
  @PrimaryKey({ type: 'string', length: 255 })
  key!: string;

  @Property({ type: 'integer', default: 0 })
  points!: number;

  @Property({ type: new BigIntType('number'), nullable: true })
  expire?: number | null;

  @Property({ type: 'integer', default: 0 })
  lastGrant!: number;
}

/** A sandbox project's calls of one day, against its daily quota. */
@Entity({ tableName: 'sandbox_usage' })
export class SandboxUsage {
  @PrimaryKey({ type: 'string', length: 40 })
  projectId!: string;

  @PrimaryKey({ type: 'date' })
  day!: string;

  @Property({ type: 'integer' })
  used!: number;
}
