import pg from 'pg';

/** The application_name of every instance's notification connection: how instances count each other. */
export const NOTIFICATIONS_APPLICATION = 'verity-notifications';

/** Someone to tell what another instance (or this one) announced on a channel. */
export type NotificationHandler = (payload: string) => void;

/**
 * What instances tell each other (a cached value changed, a webhook is due), as caches and the webhook dispatcher use
 * it.
 */
export interface ChangeFeed {
  /** True while every change is being heard: caches may keep values only then. */
  readonly live: boolean;
  on(channel: string, handler: NotificationHandler): void;
  /** Calls `handler` whenever changes may have been missed. */
  onLost(handler: () => void): void;
  send(channel: string, payload: string): Promise<void>;
  /** How many instances must say they dropped a changed value before the change answers. */
  listeners(): Promise<number>;
}

/**
 * The embedded store's feed: this process is the only instance (the data-dir lock), so what it
 * announces it tells itself, and a change it makes is dropped from its own caches by the change
 * itself (SharedCache.everywhereDropped). The one other writer is an outside session through the
 * password gate (`verity admin`, psql), which PGlite cannot notify about: while one is open the
 * feed is not live (caches read the database), and when it opens and closes every cache forgets
 * what it held.
 */
export class SoleInstanceFeed implements ChangeFeed {
  private readonly handlers = new Map<string, NotificationHandler[]>();
  private readonly lostHandlers: (() => void)[] = [];
  private outsideSessions = 0;

  get live(): boolean {
    return this.outsideSessions === 0;
  }

  on(channel: string, handler: NotificationHandler): void {
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  onLost(handler: () => void): void {
    this.lostHandlers.push(handler);
  }

  async send(channel: string, payload: string): Promise<void> {
    for (const handler of this.handlers.get(channel) ?? []) handler(payload);
  }

  /** No other instance is there to wait for. */
  async listeners(): Promise<number> {
    return 0;
  }

  outsideOpened(): void {
    this.outsideSessions += 1;
    this.lost();
  }

  outsideClosed(): void {
    this.outsideSessions -= 1;
    this.lost();
  }

  private lost(): void {
    for (const handler of this.lostHandlers) handler();
  }
}

/**
 * PostgreSQL LISTEN/NOTIFY on one dedicated connection: what one instance commits (a revoked API
 * key) every instance hears at once. While the connection is down notifications may be missed,
 * so `live` is false and `lost` handlers run (caches drop everything and read the database);
 * it reconnects on its own and says so through `live` again.
 */
export class Notifications implements ChangeFeed {
  private client?: pg.Client;
  /** The statements sent on the connection, one after another (pg 9 refuses a query while one runs). */
  private pending: Promise<unknown> = Promise.resolve();
  private readonly handlers = new Map<string, NotificationHandler[]>();
  private readonly lostHandlers: (() => void)[] = [];
  private closed = false;
  private retry?: NodeJS.Timeout;
  /** True while every notification sent is being received. */
  live = false;

  constructor(
    private readonly url: string,
    private readonly onError: (error: Error) => void = () => {},
  ) {}

  /** Calls `handler` with the payload of each notification on `channel` (register before `start`). */
  on(channel: string, handler: NotificationHandler): void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`channel names are lower-case words: ${channel}`);
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  /** Calls `handler` whenever notifications may have been missed. */
  onLost(handler: () => void): void {
    this.lostHandlers.push(handler);
  }

  /** Connects and listens; on failure it keeps trying in the background (never throws). */
  async start(): Promise<void> {
    await this.connect().catch((error: Error) => {
      this.onError(error);
      this.reconnect();
    });
  }

  private async connect(): Promise<void> {
    // keepAlive: a peer gone without a word (a cut network) is noticed, not waited on forever.
    const client = new pg.Client({
      connectionString: this.url,
      keepAlive: true,
      application_name: NOTIFICATIONS_APPLICATION,
    });
    client.on('notification', (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    client.on('error', (error) => this.lose(client, error));
    client.on('end', () => this.lose(client, new Error('notification connection ended')));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`listen ${channel}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.live = true;
  }

  private lose(client: pg.Client, error: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.live = false;
    for (const handler of this.lostHandlers) handler();
    client.end().catch(() => {});
    if (this.closed) return;
    this.onError(error);
    this.reconnect();
  }

  private reconnect(): void {
    this.retry = setTimeout(() => {
      if (!this.closed) void this.start();
    }, 1000);
    this.retry.unref();
  }

  /** Announces `payload` on `channel` to every instance (this one included); nothing while not live. */
  async send(channel: string, payload: string): Promise<void> {
    await this.inTurn(() => this.client?.query('select pg_notify($1, $2)', [channel, payload]));
  }

  /** Runs a statement on the connection once the ones sent before it have answered. */
  private inTurn<T>(statement: () => Promise<T> | undefined): Promise<T | undefined> {
    const answered = this.pending.then(statement, statement);
    this.pending = answered.catch(() => undefined);
    return answered;
  }

  /** How many instances listen on this database now (this one included). */
  async listeners(): Promise<number> {
    const result = await this.inTurn(() =>
      this.client?.query<{ count: string }>(
        'select count(*) from pg_stat_activity where datname = current_database() and application_name = $1',
        [NOTIFICATIONS_APPLICATION],
      ),
    );
    return Number(result?.rows[0]?.count ?? 0);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    this.live = false;
    await client?.end().catch(() => {});
  }
}
