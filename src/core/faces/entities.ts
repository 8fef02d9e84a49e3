import { BigIntType, Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One enrolled face of a project: the descriptor only, sealed (AES-256-GCM), never an
 * image, and no clear-text code derived from it. `purpose` separates the uniqueness register
 * (enrolled on request, unlinkable) from the identity clusters behind /antispoof/identity;
 * `livemode` separates test keys' faces from live keys' (each mode has its own registers).
 * `seq` is the enrolment order (a global sequence, never reused, and taken under a per-register
 * lock so it is also commit order): every instance keeps the register's descriptors in memory and
 * catches up with `seq > last seen`; see src/core/faces/face-index.ts.
 */
@Entity({ tableName: 'face_enrollment' })
@Index({ properties: ['projectId', 'purpose', 'livemode', 'seq'] })
export class FaceEnrollment {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: new BigIntType('number'), autoincrement: true })
  seq?: number;

  @Property({ type: 'string', length: 40 })
  projectId!: string;

  @Property({ type: 'string', length: 12 })
  purpose!: 'uniqueness' | 'identity';

  /** False for a face enrolled with a test key: only test keys find, see or unlink it. */
  @Property({ type: 'boolean', default: true })
  livemode: boolean = true;

  /** The caller's label for the face (e.g. its user id), or the svc_id in account mode. */
  @Property({ type: 'string', length: 200, nullable: true })
  reference?: string | null;

  @Property({ type: 'text' })
  descriptorSealed!: string;

  /** The model that produced the descriptor (FACE_DESCRIPTOR_KIND); searches read only their own kind. */
  @Property({ type: 'string', length: 40 })
  descriptorKind!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}
