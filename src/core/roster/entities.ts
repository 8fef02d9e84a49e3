import { BigIntType, Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { MEMBER_STATUSES } from '../vocabulary.js';

export { MEMBER_STATUSES };

/** An employer whose workforce roster is managed through `/api/sdk`. */
@Entity({ tableName: 'organization' })
export class Organization {
  /** The spec gives organization ids as integers. */
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

export const MEMBER_ROLES = ['owner', 'admin', 'developer', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/**
 * A person on an organization's roster. The email is unique per organization regardless of case
 * (a unique index on lower(email)), so two concurrent adds of one address leave one row.
 */
@Entity({ tableName: 'member' })
@Index({
  name: 'member_ops_page_index',
  expression: `create index "member_ops_page_index" on "member" ("organization_id", "created_at", "id") include ("status")`,
})
@Index({
  name: 'member_organization_id_lower_email_unique',
  expression:
    'create unique index "member_organization_id_lower_email_unique" on "member" ("organization_id", lower("email"))',
})
@Unique({ properties: ['organization', 'svcId'] })
@Index({ properties: ['organization', 'role'] })
export class Member {
  /** The spec's integer `id`. */
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  /** `mem_` + 24 hex; the `svc_org_member_id` login claim. */
  @Property({ type: 'string', length: 28 })
  @Unique()
  memberId!: string;

  @ManyToOne(() => Organization, { deleteRule: 'cascade' })
  organization!: Organization;

  @Property({ type: 'string', length: 320 })
  email!: string;

  @Property({ type: 'string', length: 100, default: '' })
  firstName: string = '';

  @Property({ type: 'string', length: 100, default: '' })
  lastName: string = '';

  @Property({ type: 'string', length: 20 })
  role!: MemberRole;

  @Property({ type: 'string', length: 20 })
  status!: MemberStatus;

  /** The connected account; null until the person activates by face. */
  @Property({ type: 'string', length: 40, nullable: true })
  svcId?: string | null;

  /** Digest of the one live activation link; a new link overwrites it (superseding the old). */
  @Property({ type: 'string', length: 64, nullable: true })
  @Unique()
  activationDigest?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  activationExpiresAt?: Date | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/** One stretch of time a member held a paid seat (active); billing counts seat-time from these. */
@Entity({ tableName: 'roster_seat' })
@Index({ properties: ['organizationId', 'startedAt'] })
export class RosterSeat {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'integer' })
  organizationId!: number;

  /** The member's `mem_` id; kept after a permanent removal so closed periods stay explainable. */
  @Property({ type: 'string', length: 28 })
  @Index()
  memberId!: string;

  @Property({ type: 'timestamptz' })
  startedAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  endedAt?: Date | null;
}

/** An organization's roster plan: price per active seat and the trial. */
@Entity({ tableName: 'roster_plan' })
export class RosterPlan {
  @PrimaryKey({ type: 'integer', autoincrement: false })
  organizationId!: number;

  @Property({ type: 'string', length: 60 })
  plan!: string;

  /** Minor units (cents) of `currency` per seat per month. */
  @Property({ type: 'integer' })
  pricePerSeatMinor!: number;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Property({ type: 'timestamptz', nullable: true })
  trialEndsAt?: Date | null;

  /** Billing starts with the month this falls in. */
  @Property({ type: 'timestamptz' })
  startedAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}

/** A closed monthly billing period; unique per organization and period, so closing twice is a no-op. */
@Entity({ tableName: 'roster_invoice' })
@Unique({ properties: ['organizationId', 'period'] })
export class RosterInvoice {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'integer' })
  organizationId!: number;

  /** `YYYY-MM` (UTC). */
  @Property({ type: 'string', length: 7 })
  period!: string;

  @Property({ type: 'integer' })
  seats!: number;

  @Property({ type: 'integer' })
  amountMinor!: number;

  @Property({ type: 'string', length: 3 })
  currency!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/** Who changed what on a roster, with the member before and after. */
@Entity({ tableName: 'roster_audit' })
@Index({ properties: ['organizationId', 'id'] })
export class RosterAudit {
  @PrimaryKey({ type: new BigIntType('number'), autoincrement: true })
  id!: number;

  @Property({ type: 'integer' })
  organizationId!: number;

  /** The member's `mem_` id, or null for organization-wide changes (the plan). */
  @Property({ type: 'string', length: 28, nullable: true })
  @Index()
  memberId?: string | null;

  /** The org app's client id, `activation`, or `operator`. */
  @Property({ type: 'string', length: 100 })
  actor!: string;

  @Property({ type: 'string', length: 40 })
  action!: string;

  @Property({ type: 'json', nullable: true })
  before?: Record<string, unknown> | null;

  @Property({ type: 'json', nullable: true })
  after?: Record<string, unknown> | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/** Re-invite requests per member per minute (a fixed window counted atomically in Postgres). */
@Entity({ tableName: 'roster_invite_window' })
export class RosterInviteWindow {
  @PrimaryKey({ type: 'integer', autoincrement: false })
  memberPk!: number;

  @PrimaryKey({ type: 'timestamptz' })
  windowStart!: Date;

  @Property({ type: 'integer' })
  count!: number;
}
