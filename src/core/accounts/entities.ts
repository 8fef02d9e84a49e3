import { BigIntType, Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/core';

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

  /**
   * When the person proved they receive mail at `email` (a verification or reset link); null: `email_verified` false.
   */
  @Property({ type: 'timestamptz', nullable: true })
  emailVerifiedAt?: Date | null;

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

  /** The face reference: a descriptor only (never an image), sealed; its kind in faceDescriptorKind. */
  @Property({ type: 'text', nullable: true })
  faceDescriptorSealed?: string | null;

  /** The model that produced the face reference (FACE_DESCRIPTOR_KIND); one of another kind counts as not enrolled. */
  @Property({ type: 'string', length: 40, nullable: true })
  faceDescriptorKind?: string | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/** A professional licence on an account, badged by a verified lookup. */
@Entity({ tableName: 'account_license' })
@Index({ properties: ['accountId'] })
export class AccountLicense {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  accountId!: string;

  /** The board's credential name (e.g. `Registered Nurse`); `/licenses` answers it as a key (`licenseTypeKey`). */
  @Property({ type: 'string', length: 80 })
  type!: string;

  @Property({ type: 'string', length: 80 })
  number!: string;

  @Property({ type: 'string', length: 40 })
  status!: string;

  @Property({ type: 'string', length: 200 })
  issuer!: string;

  /** The licence's own expiry (YYYY-MM-DD), as the board gives it. */
  @Property({ type: 'string', length: 10, nullable: true })
  expiresOn?: string | null;

  /** Where the verification came from (a board), null when unverified. */
  @Property({ type: 'string', length: 200, nullable: true })
  verifiedFrom?: string | null;

  /** The state whose board verified it (US postal code), as badged. */
  @Property({ type: 'string', length: 2, nullable: true })
  stateCode?: string | null;

  /** The badge is never served past this. */
  @Property({ type: 'timestamptz', nullable: true })
  expireAt?: Date | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

export type AccountLinkPurpose = 'verify_email' | 'reset_password';

/**
 * A single-use link mailed to an account's address: email verification or password reset. Only
 * the digest of its secret is stored; `email` is the address it went to (it proves that address).
 */
@Entity({ tableName: 'account_link' })
@Index({ properties: ['accountId', 'purpose'] })
export class AccountLink {
  @PrimaryKey({ type: 'string', length: 64 })
  digest!: string;

  @Property({ type: 'string', length: 20 })
  purpose!: AccountLinkPurpose;

  @Property({ type: 'string', length: 40 })
  accountId!: string;

  @Property({ type: 'string', length: 320 })
  email!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  usedAt?: Date | null;
}

/** The sign-in throttle's counts of one key (an address, an email): failures, checks in flight, the lock. */
@Entity({ tableName: 'signin_throttle' })
export class SigninThrottle {
  @PrimaryKey({ type: 'string', length: 255 })
  key!: string;

  @Property({ type: 'integer', default: 0 })
  failures!: number;

  @Property({ type: 'integer', default: 0 })
  checking!: number;

  @Property({ type: new BigIntType('number'), default: 0 })
  checkingUntil!: number;

  @Property({ type: new BigIntType('number'), default: 0 })
  lockedUntil!: number;

  @Property({ type: new BigIntType('number'), default: 0 })
  forgetAt!: number;
}
