import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { CHECK_TYPES, CHECK_STATUSES } from '../vocabulary.js';

export { CHECK_TYPES, CHECK_STATUSES };

export type CheckType = (typeof CHECK_TYPES)[number];
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/**
 * The stored record of one standalone check call (its id is the response's `session_id`).
 * Never raw identity data or images: type, verdict, mode, time, project, price.
 */
@Entity({ tableName: 'check_record' })
@Index({ name: 'check_record_ops_page_index', properties: ['projectId', 'createdAt', 'id'] })
@Index({
  name: 'check_record_ops_failed_index',
  expression: `create index "check_record_ops_failed_index" on "check_record" ("project_id", "created_at") include ("type", "reason", "status") where "status" <> 'passed'`,
})
@Index({ properties: ['projectId', 'createdAt'] })
export class CheckRecord {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  projectId!: string;

  @Enum({ items: () => CHECK_TYPES, type: 'string', nativeEnumName: undefined })
  type!: CheckType;

  @Enum({ items: () => CHECK_STATUSES, type: 'string', nativeEnumName: undefined })
  status!: CheckStatus;

  /** `fresh` (raw input, nothing kept) or `account` (answered from a stored identity). */
  @Property({ type: 'string', length: 10 })
  mode!: 'fresh' | 'account';

  @Property({ type: 'string', length: 40, nullable: true })
  svcId?: string | null;

  /** False for a check made with a test key (never charged). */
  @Property({ type: 'boolean', default: true })
  livemode: boolean = true;

  /** A short machine reason when not passed (e.g. `expired`, `permission_denied`); never raw data. */
  @Property({ type: 'string', length: 80, nullable: true })
  reason?: string | null;

  @Property({ type: 'integer' })
  durationMs!: number;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/**
 * A gesture challenge for an anti-spoof burst: single use, valid 60 s, bound to one project.
 * `usedAt` is set by the one run that consumes it (an atomic update, so two runs cannot share it).
 */
@Entity({ tableName: 'face_challenge' })
export class FaceChallenge {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  projectId!: string;

  @Property({ type: 'string', length: 20 })
  gesture!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  usedAt?: Date | null;
}
