import { ArrayType, Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Account } from '../accounts/entities.js';
import { OidcClient } from '../tenancy/entities.js';

/** A bearer access token issued to a client for an account. Only its digest is stored. */
@Entity({ tableName: 'access_token' })
export class AccessToken {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 64 })
  @Unique()
  tokenDigest!: string;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  @Index()
  account!: Account;

  @ManyToOne(() => OidcClient, { deleteRule: 'cascade', fieldName: 'client_id' })
  client!: OidcClient;

  @Property({ type: ArrayType })
  scopes!: string[];

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null;
}
