import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';
import { WEBHOOK_EVENT_STATES } from '../vocabulary.js';

export { WEBHOOK_EVENT_STATES };

export type WebhookEventState = (typeof WEBHOOK_EVENT_STATES)[number];

/**
 * The outbox: one row per event, written in the same transaction as the state change it
 * announces, so a crash between the two loses nothing. Delivery jobs read it; it is the truth.
 */
@Entity({ tableName: 'webhook_event' })
@Index({ name: 'webhook_event_ops_state_index', properties: ['projectId', 'state', 'createdAt', 'id'] })
@Index({
  name: 'webhook_event_ops_created_index',
  expression: `create index "webhook_event_ops_created_index" on "webhook_event" ("project_id", "created_at", "id") include ("state")`,
})
@Index({
  name: 'webhook_event_recent_index',
  expression: `create index "webhook_event_recent_index" on "webhook_event" ("created_at") where "url" is not null`,
})
@Index({ properties: ['state', 'nextAttemptAt'] })
@Index({ properties: ['projectId', 'createdAt'] })
@Index({ properties: ['sessionId'] })
export class WebhookEvent {
  /** The wire `event_id` and `X-Svc-Event-Id`. */
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  projectId!: string;

  @Property({ type: 'string', length: 40 })
  sessionId!: string;

  @Property({ type: 'string', length: 60 })
  type!: string;

  /** False for a test-mode session's event: sent only to test destinations, signed with the test secret. */
  @Property({ type: 'boolean', default: true })
  livemode: boolean = true;

  /** The exact body sent on every attempt (the signature covers these bytes). */
  @Property({ type: 'text' })
  body!: string;

  /** Where it goes, fixed when the event is written; null when the project has no callback. */
  @Property({ type: 'text', nullable: true })
  url?: string | null;

  @Property({ type: 'string', length: 20 })
  state!: WebhookEventState;

  @Property({ type: 'integer', default: 0 })
  attempts: number = 0;

  @Property({ type: 'timestamptz' })
  nextAttemptAt!: Date;

  /** While `sending`: until when the attempt owns the row (a crashed attempt is retried after). */
  @Property({ type: 'timestamptz', nullable: true })
  leaseUntil?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  deliveredAt?: Date | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/** One delivery attempt: what ops read when a receiver says it got nothing. */
@Entity({ tableName: 'webhook_attempt' })
@Index({ name: 'webhook_attempt_at_index', properties: ['at'] })
@Index({ properties: ['eventId', 'at'] })
export class WebhookAttempt {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 40 })
  eventId!: string;

  @Property({ type: 'integer' })
  attempt!: number;

  @Property({ type: 'timestamptz' })
  at!: Date;

  /** HTTP status, or null when there was no answer (refused, timeout). */
  @Property({ type: 'integer', nullable: true })
  httpStatus?: number | null;

  @Property({ type: 'integer' })
  latencyMs!: number;

  @Property({ type: 'string', length: 300, nullable: true })
  error?: string | null;

  /** The first 200 characters of the receiver's answer. */
  @Property({ type: 'string', length: 200, nullable: true })
  responseSnippet?: string | null;
}

/** A destination's run of failed attempts (a project, a URL, a mode), which the health rule reads. */
@Entity({ tableName: 'webhook_destination_streak' })
export class WebhookDestinationStreak {
  @PrimaryKey({ type: 'string', length: 40 })
  projectId!: string;

  @PrimaryKey({ type: 'text' })
  url!: string;

  @PrimaryKey({ type: 'boolean' })
  livemode!: boolean;

  @Property({ type: 'integer' })
  failures!: number;

  @Property({ type: 'timestamptz' })
  lastAttemptAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  lastOkAt?: Date | null;
}
