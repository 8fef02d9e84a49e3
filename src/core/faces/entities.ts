import { ArrayType, Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * A gesture challenge for an anti-spoof burst: single use, valid 60 s, bound to one project.
 * `usedAt` is set by the one run that consumes it (an atomic update, so two runs cannot share it).
 */
@Entity({ tableName: 'face_challenge' })
export class FaceChallenge {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  projectId!: string;

  @Property({ type: 'string', length: 20 })
  gesture!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  usedAt?: Date | null;
}

/**
 * One enrolled face of a project: the 128-d descriptor only, sealed (AES-256-GCM), never an
 * image. `purpose` separates the uniqueness register (enrolled on request, unlinkable) from the
 * identity clusters behind /antispoof/identity. `buckets` holds the locality-sensitive hash keys
 * the search prefilters on (GIN index, `&&`); see src/core/faces/face-index.ts.
 */
@Entity({ tableName: 'face_enrollment' })
@Index({ properties: ['projectId', 'purpose', 'createdAt'] })
@Index({ name: 'face_enrollment_buckets_gin', properties: ['buckets'], type: 'gin' })
export class FaceEnrollment {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  projectId!: string;

  @Property({ type: 'string', length: 12 })
  purpose!: 'uniqueness' | 'identity';

  /** The caller's label for the face (e.g. its user id), or the svc_id in account mode. */
  @Property({ type: 'string', length: 200, nullable: true })
  reference?: string | null;

  @Property({ type: 'text' })
  descriptorSealed!: string;

  @Property({ type: new ArrayType((value) => Number(value)), columnType: 'int[]' })
  buckets!: number[];

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}
