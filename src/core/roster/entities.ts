import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

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
