import type { Notifications } from '../db/notifications.js';

/** The channel a revoked key's digest is announced on (`pg_notify` in the revoking transaction). */
export const API_KEY_REVOKED_CHANNEL = 'verity_api_key_revoked';
/** Each instance answers on this channel once it has dropped the revoked key. */
const API_KEY_DROPPED_CHANNEL = 'verity_api_key_dropped';

export interface ApiKeyCaller { projectId: string; apiKeyId: string }

/** How long a key read from the database is trusted without reading it again. */
const TTL_MS = 30_000;
/** Keys kept at most (the oldest go first): a bound, not a working-set estimate. */
const MAX_KEYS = 10_000;
/** How long a revocation waits for every instance to say it dropped the key (one cut off is waited for no longer). */
const DROPPED_WAIT_MS = 2000;

/**
 * Known API keys by the SHA-256 digest of the key (never the key itself), so a billed call does
 * not read the database to authenticate. Only while revocations are heard (LISTEN/NOTIFY is live):
 * a revocation is announced when it commits, every instance drops the key and says so, and the
 * revoking call answers once every instance has. When the notification connection drops,
 * everything is forgotten and keys are read from the database until it is back. Unknown keys are
 * never cached (a flood of wrong keys cannot fill it).
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { caller: ApiKeyCaller; until: number }>();
  /** Bumped by every revocation heard: a database read that overlapped one is not cached. */
  private generation = 0;
  /** Per revoked digest: how many instances said they dropped it, and who waits for that. */
  private readonly dropped = new Map<string, { count: number; waiter?: () => void }>();

  constructor(private readonly notifications: Notifications | undefined, private readonly now: () => number = Date.now) {
    notifications?.on(API_KEY_REVOKED_CHANNEL, (digest) => this.revoked(digest));
    notifications?.on(API_KEY_DROPPED_CHANNEL, (digest) => this.droppedBy(digest));
    notifications?.onLost(() => this.forgetAll());
  }

  private get enabled(): boolean {
    return this.notifications?.live ?? false;
  }

  /** Reads through the cache: `load` asks the database; a live key found there is kept for TTL_MS. */
  async read(digest: string, load: () => Promise<ApiKeyCaller | null>): Promise<ApiKeyCaller | null> {
    const entry = this.enabled ? this.entries.get(digest) : undefined;
    if (entry && entry.until > this.now()) return entry.caller;
    const generation = this.generation;
    const caller = await load();
    this.entries.delete(digest);
    if (caller && this.enabled && generation === this.generation) {
      if (this.entries.size >= MAX_KEYS) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(digest, { caller, until: this.now() + TTL_MS });
    }
    return caller;
  }

  /** After a revocation of `digest` committed: resolves once every instance listening has dropped the key (or after DROPPED_WAIT_MS). */
  async everywhereDropped(digest: string): Promise<void> {
    this.forget(digest);
    if (!this.enabled) return;
    const expected = await this.notifications!.listeners();
    await new Promise<void>((resolve) => {
      const state = this.droppedState(digest);
      const check = () => {
        if (state.count < expected) return;
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(resolve, DROPPED_WAIT_MS);
      timer.unref();
      state.waiter = check;
      check();
    });
  }

  /** Any instance revoked a key: drop it here, then say so. */
  private revoked(digest: string): void {
    this.forget(digest);
    this.notifications!.send(API_KEY_DROPPED_CHANNEL, digest).catch(() => {});
  }

  private droppedBy(digest: string): void {
    const state = this.droppedState(digest);
    state.count += 1;
    state.waiter?.();
  }

  private droppedState(digest: string) {
    let state = this.dropped.get(digest);
    if (!state) {
      // Answers to revocations long done are not needed: a bound, not a history.
      if (this.dropped.size >= 1000) this.dropped.clear();
      state = { count: 0 };
      this.dropped.set(digest, state);
    }
    return state;
  }

  private forget(digest: string): void {
    this.generation += 1;
    this.entries.delete(digest);
  }

  private forgetAll(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
