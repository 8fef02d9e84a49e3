import { ArrayType, Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/core';

/** A state (or other jurisdiction) whose licensing boards we can query. */
@Entity({ tableName: 'credential_state' })
export class CredentialState {
  @PrimaryKey({ type: 'string', length: 2 })
  stateCode!: string;

  @Property({ type: 'string', length: 100 })
  stateName!: string;
}

export type BoardAdapterKind = 'builtin' | 'http';

/** A licensing board of a state and the credential it issues. */
@Entity({ tableName: 'credential_provider' })
@Unique({ properties: ['stateCode', 'providerCode'] })
export class CredentialProvider {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 2 })
  stateCode!: string;

  @Property({ type: 'string', length: 40 })
  providerCode!: string;

  @Property({ type: 'string', length: 200 })
  providerDisplayName!: string;

  /** What integrators send as `license_type`, e.g. `Registered Nurse`. */
  @Property({ type: 'string', length: 120 })
  credentialName!: string;

  @Property({ type: ArrayType })
  requiredFields!: string[];

  /** `builtin`: the rows of `license_record`; `http`: a board's JSON lookup (see `adapterConfig`). */
  @Property({ type: 'string', length: 20 })
  adapter!: BoardAdapterKind;

  @Property({ type: 'json', nullable: true })
  adapterConfig?: Record<string, unknown> | null;
}

/** One licence of a board's published roster (served by the built-in adapter). */
@Entity({ tableName: 'license_record' })
@Unique({ properties: ['stateCode', 'providerCode', 'licenseNumber'] })
@Index({ properties: ['stateCode', 'providerCode', 'licenseKey'] })
export class LicenseRecord {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'string', length: 2 })
  stateCode!: string;

  @Property({ type: 'string', length: 40 })
  providerCode!: string;

  /** Exactly as the board writes it, punctuation included. */
  @Property({ type: 'string', length: 60 })
  licenseNumber!: string;

  /** Upper case, letters and digits only: what `do_ai_clean` matches on. */
  @Property({ type: 'string', length: 60 })
  licenseKey!: string;

  @Property({ type: 'string', length: 100 })
  firstName!: string;

  @Property({ type: 'string', length: 100, nullable: true })
  middleName?: string | null;

  @Property({ type: 'string', length: 100 })
  lastName!: string;

  /** active, expired, suspended, revoked */
  @Property({ type: 'string', length: 20 })
  status!: string;

  @Property({ type: 'string', length: 10, nullable: true })
  issuedAt?: string | null;

  @Property({ type: 'string', length: 10, nullable: true })
  expiresAt?: string | null;

  @Property({ type: 'string', length: 120, nullable: true })
  specialty?: string | null;

  @Property({ type: 'string', length: 10, nullable: true })
  npi?: string | null;
}
