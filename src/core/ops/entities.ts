import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** An admin action that revealed or changed something sensitive (OpsService.audit writes it). */
@Entity({ tableName: 'admin_audit' })
@Index({ name: 'admin_audit_project_id_at_index', properties: ['projectId', 'createdAt', 'id'] })
export class AdminAuditEntry {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'string', length: 40 })
  tokenId!: string;

  @Property({ type: 'string', length: 40, nullable: true })
  projectId?: string | null;

  @Property({ type: 'string', length: 60 })
  action!: string;

  @Property({ type: 'string', length: 120 })
  target!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}
