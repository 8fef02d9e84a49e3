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

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}
