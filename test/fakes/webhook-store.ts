import type { EntityManager } from '@mikro-orm/core';
import type { AttemptOutcome, StoredAttempt, StoredEvent, WebhookStore } from '../../src/core/webhooks/store.js';

/**
 * The outbox in memory, with the SQL's rules (a claim takes a pending, due event once, oldest due first), held to the
 * same contract as PgWebhookStore (test/contracts/webhook-store.ts). Writes apply at once: the fake has no
 * transactions, so an event recorded in a transaction that fails stays.
 */
export class FakeWebhookStore implements WebhookStore {
  rows = new Map<string, StoredEvent>();
  attemptRows = new Map<string, StoredAttempt[]>();

  async record(_em: EntityManager, event: Parameters<WebhookStore['record']>[1]): Promise<void> {
    const { now, ...fields } = event;
    this.rows.set(event.id, {
      ...fields,
      state: event.url ? 'pending' : 'no_destination',
      attempts: 0,
      nextAttemptAt: now,
      deliveredAt: null,
      createdAt: now,
    });
  }

  async claimDue(limit: number, _leaseUntil: Date, now: Date): Promise<StoredEvent[]> {
    const due = [...this.rows.values()]
      .filter((event) => event.state === 'pending' && event.nextAttemptAt <= now)
      .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime())
      .slice(0, limit);
    for (const event of due) event.state = 'sending';
    return due.map((event) => ({ ...event }));
  }

  async claimOne(eventId: string, _leaseUntil: Date, dueBy: Date): Promise<StoredEvent | null> {
    const event = this.rows.get(eventId);
    if (event?.state !== 'pending' || event.nextAttemptAt > dueBy) return null;
    event.state = 'sending';
    return { ...event };
  }

  async writeOutcomes(outcomes: AttemptOutcome[]): Promise<void> {
    for (const outcome of outcomes) {
      const event = this.rows.get(outcome.eventId)!;
      Object.assign(event, {
        state: outcome.state,
        attempts: outcome.attempt,
        deliveredAt: outcome.deliveredAt,
        nextAttemptAt: outcome.nextAttemptAt,
      });
      const rows = this.attemptRows.get(outcome.eventId) ?? [];
      rows.push({
        attempt: outcome.attempt,
        at: outcome.at,
        httpStatus: outcome.httpStatus,
        latencyMs: outcome.latencyMs,
        error: outcome.error,
        responseSnippet: outcome.snippet,
      });
      this.attemptRows.set(outcome.eventId, rows);
    }
  }

  async releaseLapsedClaims(): Promise<void> {
    throw new Error('releaseLapsedClaims is not in the fake');
  }

  async overdue(): Promise<string[]> {
    throw new Error('overdue is not in the fake');
  }

  async failedIn(): Promise<string[]> {
    throw new Error('failedIn is not in the fake');
  }

  async requeueFailed(): Promise<string[]> {
    throw new Error('requeueFailed is not in the fake');
  }

  async requeue(projectId: string, eventId: string, url: string, now: Date): Promise<StoredEvent | 'sending' | null> {
    const event = this.rows.get(eventId);
    if (event?.projectId !== projectId) return null;
    if (event.state === 'sending') return 'sending';
    Object.assign(event, { url, state: 'pending', nextAttemptAt: now });
    return { ...event };
  }

  async event(projectId: string, eventId: string): Promise<StoredEvent | null> {
    const event = this.rows.get(eventId);
    return event?.projectId === projectId ? { ...event } : null;
  }

  async events(): Promise<StoredEvent[]> {
    throw new Error('events is not in the fake');
  }

  async attempts(eventId: string): Promise<StoredAttempt[]> {
    return (this.attemptRows.get(eventId) ?? [])
      .map((attempt) => ({ ...attempt }))
      .sort((a, b) => a.attempt - b.attempt || a.at.getTime() - b.at.getTime());
  }
}
