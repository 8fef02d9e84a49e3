import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * The development outbox: mail that would have been sent when no SMTP server is configured, so a
 * fresh install works without one. Bodies carry activation links, so they are sealed at rest and
 * read back only through core (`verity admin outbox list`).
 */
@Entity({ tableName: 'mail_outbox' })
@Index({ properties: ['createdAt'] })
export class MailOutboxMessage {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 320 })
  @Index()
  recipient!: string;

  @Property({ type: 'string', length: 300 })
  subject!: string;

  /** Sealed JSON `{ text, html }`. */
  @Property({ type: 'text' })
  bodySealed!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}
