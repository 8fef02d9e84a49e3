import { ArrayType, BigIntType, Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import type { CheckStatus } from '../checks/entities.js';
import { SESSION_STATUSES } from '../vocabulary.js';

export { SESSION_STATUSES };

export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** A hosted verification: a person completes the checks of a workflow on our page. */
@Entity({ tableName: 'verification_session' })
@Index({ name: 'verification_session_ops_decision_index', properties: ['projectId', 'decision', 'createdAt', 'id'] })
@Index({ name: 'verification_session_ops_status_index', properties: ['projectId', 'status', 'createdAt', 'id'] })
@Index({ name: 'verification_session_ops_vendor_index', properties: ['projectId', 'vendorData', 'createdAt', 'id'] })
@Index({ name: 'verification_session_ops_workflow_index', properties: ['projectId', 'workflowId', 'createdAt', 'id'] })
@Index({
  name: 'verification_session_ops_created_index',
  expression: `create index "verification_session_ops_created_index" on "verification_session" ("project_id", "created_at", "id") include ("status", "workflow_id", "decision", "decided_at")`,
})
@Index({
  name: 'verification_session_ops_svc_index',
  expression: `create index "verification_session_ops_svc_index" on "verification_session" ("project_id", "svc_id", "created_at", "id") where "svc_id" is not null`,
})
@Index({ properties: ['projectId', 'createdAt'] })
@Index({ properties: ['projectId', 'status', 'createdAt'] })
@Index({ properties: ['projectId', 'vendorData'] })
@Index({ properties: ['status', 'expiresAt'] })
export class VerificationSession {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  projectId!: string;

  @Property({ type: 'string', length: 40 })
  workflowId!: string;

  @Property({ type: 'string', length: 20 })
  status!: SessionStatus;

  @Property({ type: ArrayType })
  features!: string[];

  /** SHA-256 of the hosted page's session token (the token itself is shown once). */
  @Property({ type: 'string', length: 64 })
  @Unique()
  tokenDigest!: string;

  @Property({ type: 'text', nullable: true })
  redirectUrl?: string | null;

  /** Per-session webhook URL (an approved destination); null: the project's default. */
  @Property({ type: 'text', nullable: true })
  callback?: string | null;

  @Property({ type: 'text', nullable: true })
  vendorData?: string | null;

  /** False for a session made with a test key: never charged, seen only by test keys. */
  @Property({ type: 'boolean', default: true })
  livemode: boolean = true;

  /** Caller's free-form metadata (expected point and geofence for the location check). */
  @Property({ type: 'json', nullable: true })
  metadata?: Record<string, unknown> | null;

  /** The bound account, when the session was created with the user's access token. */
  @Property({ type: 'string', length: 40, nullable: true })
  svcId?: string | null;

  /**
   * What one step leaves for a later one (the document portrait for the face match, the selfie,
   * the name read from the document), sealed, and wiped when the session closes.
   */
  @Property({ type: 'text', nullable: true })
  workSealed?: string | null;

  @Property({ type: 'string', length: 20, nullable: true })
  decision?: SessionStatus | null;

  @Property({ type: 'timestamptz', nullable: true })
  decidedAt?: Date | null;

  /** Who decided: `system`, or `review:<admin token id or api key id>`. */
  @Property({ type: 'string', length: 80, nullable: true })
  decidedBy?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  startedAt?: Date | null;

  /** When the integrator erased the session's sealed data and images (DELETE .../data). */
  @Property({ type: 'timestamptz', nullable: true })
  dataErasedAt?: Date | null;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}

/** One check run inside a session. `data` may hold raw identity data (document fields): sealed. */
@Entity({ tableName: 'session_check' })
@Index({
  name: 'session_check_ops_failed_index',
  expression: `create index "session_check_ops_failed_index" on "session_check" ("created_at") include ("session_id", "type", "reason", "status") where "status" <> 'passed'`,
})
@Index({ properties: ['sessionId'] })
export class SessionCheck {
  /** A sequence: the order checks were recorded in, even within one transaction. */
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'string', length: 40 })
  sessionId!: string;

  @Property({ type: 'string', length: 30 })
  type!: string;

  @Property({ type: 'string', length: 10 })
  status!: CheckStatus;

  @Property({ type: 'double', nullable: true })
  score?: number | null;

  /** The Check's `data` and `error`, sealed JSON. */
  @Property({ type: 'text' })
  detailSealed!: string;

  /** A short machine reason when not passed (e.g. `spoof`, `outside_geofence`); never raw data. */
  @Property({ type: 'string', length: 80, nullable: true })
  reason?: string | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/** The session's timeline: every state change, with who moved it and why. */
@Entity({ tableName: 'session_event' })
@Index({ properties: ['sessionId'] })
export class SessionEvent {
  /** A sequence: the timeline's order, even when two moves share a timestamp. */
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'string', length: 40 })
  sessionId!: string;

  @Property({ type: 'string', length: 20, nullable: true })
  fromStatus?: string | null;

  @Property({ type: 'string', length: 20 })
  toStatus!: string;

  /** `api_key:<id>`, `user` (the hosted page), `system` (rules and jobs), `admin:<token id>`. */
  @Property({ type: 'string', length: 80 })
  actor!: string;

  @Property({ type: 'string', length: 200, nullable: true })
  reason?: string | null;

  @Property({ type: 'timestamptz' })
  at!: Date;
}

/** The kinds of image kept for a reviewer. */
export const EVIDENCE_KINDS = ['document_front', 'document_back', 'document_portrait', 'selfie'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/**
 * One image kept for review, sealed (AES-256-GCM, bytes `iv | tag | ciphertext`). Kept while the
 * session is open or IN_REVIEW and for the project's retention period after the decision.
 */
@Entity({ tableName: 'session_evidence' })
@Index({
  name: 'session_evidence_purge_after_index',
  expression: `create index "session_evidence_purge_after_index" on "session_evidence" ("purge_after", "created_at") where "purge_after" is not null`,
})
@Index({ properties: ['sessionId'] })
export class SessionEvidence {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'string', length: 40 })
  sessionId!: string;

  @Property({ type: 'string', length: 30 })
  kind!: EvidenceKind;

  @Property({ type: 'blob' })
  sealed!: Buffer;

  /**
   * Which try of its step the image belongs to (1 for the first): a refused document or a selfie asked again keeps its
   * images too.
   */
  @Property({ type: 'smallint', default: 1 })
  attempt: number = 1;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  /**
   * When the purge deletes it: the decision plus the project's retention, null while the session is open or in
   * review. Kept by triggers (Migration20261205090000_evidence_purge_after), never written by the service.
   */
  @Property({ type: 'timestamptz', nullable: true })
  purgeAfter?: Date | null;
}

/**
 * "Continue on your phone": a one-time link (short-lived, stored as a digest) that a device without
 * a camera shows as a QR code; claiming it gives the phone its own session token (also a digest)
 * and spends the link.
 */
@Entity({ tableName: 'session_handoff' })
@Index({ properties: ['sessionId'] })
export class SessionHandoff {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  sessionId!: string;

  @Property({ type: 'string', length: 64 })
  @Unique({ name: 'session_handoff_link_digest_key' })
  linkDigest!: string;

  /** The phone's session token, once the link is claimed. */
  @Property({ type: 'string', length: 64, nullable: true })
  @Unique({ name: 'session_handoff_phone_token_digest_key' })
  phoneTokenDigest?: string | null;

  @Property({ type: 'Date' })
  createdAt!: Date;

  @Property({ type: 'Date' })
  expiresAt!: Date;

  @Property({ type: 'Date', nullable: true })
  claimedAt?: Date | null;
}

/** Sessions per status, kept by a trigger in shards (Migration20261204090000_growth) so a count reads a few rows. */
@Entity({ tableName: 'session_status_count' })
export class SessionStatusCount {
  @PrimaryKey({ type: 'string', length: 20 })
  status!: string;

  @PrimaryKey({ type: 'smallint' })
  shard!: number;

  @Property({ type: new BigIntType('number') })
  n!: number;
}
