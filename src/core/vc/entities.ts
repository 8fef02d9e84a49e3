import { Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/core';

/** A status list of issued credentials: each credential has a bit of one (its revocation). */
@Entity({ tableName: 'credential_status_list' })
export class CredentialStatusList {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'integer' })
  size!: number;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/** A verifiable credential issued to an account's wallet, and its place in a status list. */
@Entity({ tableName: 'issued_credential' })
@Index({
  name: 'issued_credential_live_by_account',
  expression: `create index "issued_credential_live_by_account" on "issued_credential" ("account_id") where "revoked_at" is null`,
})
@Unique({ name: 'issued_credential_list_idx_unique', properties: ['listId', 'idx'] })
export class IssuedCredential {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  accountId!: string;

  @Property({ type: 'string', length: 64 })
  clientId!: string;

  @Property({ type: 'string', length: 64 })
  holderJkt!: string;

  @Property({ type: 'integer' })
  listId!: number;

  @Property({ type: 'integer' })
  idx!: number;

  @Property({ type: 'timestamptz' })
  issuedAt!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null;

  @Property({ type: 'string', length: 40, nullable: true })
  revokedReason?: string | null;
}

/** A proof nonce spent once (its digest), kept until it expires. */
@Entity({ tableName: 'credential_nonce' })
export class CredentialNonce {
  @PrimaryKey({ type: 'string', length: 64 })
  digest!: string;

  @Property({ type: 'timestamptz' })
  usedAt!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;
}
