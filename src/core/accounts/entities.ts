import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/core';

/** A person's Verity account (`svc_id`). */
@Entity({ tableName: 'account' })
export class Account {
  /** The `svc_id`: `svc_` followed by 24 hex characters. */
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  /** Stored lower-cased; unique. */
  @Property({ type: 'string', length: 320 })
  @Unique()
  email!: string;

  @Property({ type: 'text' })
  passwordHash!: string;

  @Property({ type: 'string', length: 200, nullable: true })
  displayName?: string | null;

  /**
   * The verified identity (full name, date of birth, document number, address) as sealed JSON
   * (AES-256-GCM). Only core opens it, and account-mode answers carry proofs, never these values.
   */
  @Property({ type: 'text', nullable: true })
  identitySealed?: string | null;

  @Property({ type: 'boolean', default: false })
  idVerified: boolean = false;

  /** A liveness check on file; `human_verified` falls back to `id_verified` without one. */
  @Property({ type: 'boolean', nullable: true })
  humanVerified?: boolean | null;

  @Property({ type: 'timestamptz', nullable: true })
  identityVerifiedAt?: Date | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}
