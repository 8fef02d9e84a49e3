import { randomBytes } from 'node:crypto';
import type { ChangeFeed } from './notifications.js';

/** How long a value read from the database is trusted without reading it again. */
const TTL_MS = 30_000;
/** Values kept at most per cache (the oldest go first): a bound, not a working-set estimate. */
const MAX_ENTRIES = 10_000;
/** How long a change waits for every instance to say it dropped the value (one cut off is waited for no longer). */
const DROPPED_WAIT_MS = 2000;

/**
 * Values every instance may cache in process (credentials looked up on each request) while one
 * instance may change them. Only while changes are heard (LISTEN/NOTIFY is live): a change is
 * announced on `changedChannel` when it commits, every instance drops the value and says so,
 * and the changing call answers once every instance has (`everywhereDropped`). When the
 * notification connection drops, everything is forgotten and values are read from the database
 * until it is back. Misses (null) are never cached: a flood of wrong keys cannot fill it.
 */
export class SharedCache<V> {
  private readonly changedChannel: string;
  private readonly droppedChannel: string;
  private readonly entries = new Map<string, { value: V; until: number }>();
  /** Bumped by every change heard: a database read that overlapped one is not cached. */
  private generation = 0;
  /** Per change (its id): how many instances said they dropped the key, and who waits for that. */
  private readonly dropped = new Map<string, { count: number; waiter?: () => void }>();

  constructor(
    private readonly notifications: ChangeFeed | undefined,
    name: string,
    private readonly now: () => number = Date.now,
  ) {
    this.changedChannel = `verity_${name}_changed`;
    this.droppedChannel = `verity_${name}_dropped`;
    notifications?.on(this.changedChannel, (payload) => this.changed(payload));
    notifications?.on(this.droppedChannel, (changeId) => this.droppedBy(changeId));
    notifications?.onLost(() => this.forgetAll());
  }

  private get enabled(): boolean {
    return this.notifications?.live ?? false;
  }

  /**
   * Reads through the cache: `load` asks the database; a value found there is kept for TTL_MS (when `keep` says so).
   */
  async read(key: string, load: () => Promise<V | null>, keep: (value: V) => boolean = () => true): Promise<V | null> {
    const entry = this.enabled ? this.entries.get(key) : undefined;
    if (entry && entry.until > this.now()) return entry.value;
    const generation = this.generation;
    const value = await load();
    this.entries.delete(key);
    if (value !== null && keep(value) && this.enabled && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { value, until: this.now() + TTL_MS });
    }
    return value;
  }

  /**
   * A change of `key`: announce it in the changing transaction (`select pg_notify(channel,
   * payload)`, sent when it commits), then await `everywhereDropped`: it resolves once every
   * instance listening has dropped the key (or after DROPPED_WAIT_MS).
   */
  change(key: string): { channel: string; payload: string; everywhereDropped: () => Promise<void> } {
    const changeId = randomBytes(8).toString('hex');
    return {
      channel: this.changedChannel,
      payload: `${changeId}:${key}`,
      everywhereDropped: () => this.everywhereDropped(key, changeId),
    };
  }

  private async everywhereDropped(key: string, changeId: string): Promise<void> {
    this.forget(key);
    if (!this.enabled) return;
    const expected = await this.notifications!.listeners();
    await new Promise<void>((resolve) => {
      const state = this.droppedState(changeId);
      const timer = setTimeout(resolve, DROPPED_WAIT_MS);
      timer.unref();
      state.waiter = () => {
        if (state.count < expected) return;
        clearTimeout(timer);
        resolve();
      };
      state.waiter();
    });
  }

  /** Any instance changed a key: drop it here, then say so. */
  private changed(payload: string): void {
    const split = payload.indexOf(':');
    this.forget(payload.slice(split + 1));
    this.notifications!.send(this.droppedChannel, payload.slice(0, split)).catch(() => {});
  }

  private droppedBy(changeId: string): void {
    const state = this.droppedState(changeId);
    state.count += 1;
    state.waiter?.();
  }

  private droppedState(changeId: string) {
    let state = this.dropped.get(changeId);
    if (!state) {
      // Answers to changes long done are not needed: a bound, not a history.
      if (this.dropped.size >= 1000) this.dropped.clear();
      state = { count: 0 };
      this.dropped.set(changeId, state);
    }
    return state;
  }

  private forget(key: string): void {
    this.generation += 1;
    this.entries.delete(key);
  }

  private forgetAll(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
