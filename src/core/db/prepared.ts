import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import pg from 'pg';
import { DomainError } from '../errors.js';
import { traceStatement } from '../tracing.js';
import type { Orm } from './orm.js';

/** What a pooled node-postgres connection offers for a named statement. */
interface PgConnection {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** ORMs whose pooled connections are sessions of their own (createOrm's `ownSessions`). */
const ownSessions = new WeakSet<Orm>();

/** Lets preparedQuery name its statements on this ORM's connections. */
export function preparesNamedStatements(orm: Orm): void {
  ownSessions.add(orm);
}

/** An escaped NUL in JSON text (`\u0000` after an even number of backslashes), which jsonb refuses. */
const JSON_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/;

/**
 * Whether a query parameter holds what PostgreSQL cannot store: U+0000 in text (the query fails as
 * a protocol error), or its escape in JSON text bound for jsonb. Such a value can only come from a
 * caller, so both the ORM's guard and preparedQuery answer it as the caller's 400.
 */
export function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000') || (/^[[{]/.test(value) && JSON_NUL.test(value));
  return Array.isArray(value) && value.some(holdsNul);
}

function refuseNulParameters(values: readonly unknown[]): void {
  if (values.some(holdsNul)) throw new DomainError('validation_error', 'text must not contain NUL (U+0000) characters');
}

/**
 * Runs one statement ($1.. placeholders, values bound by the server) as a named prepared
 * statement on a pooled connection. The ORM's `execute` inlines the values into the text and
 * sends it as a new simple query, which PostgreSQL parses and plans afresh every time; the token
 * endpoint's statements are long CTEs run on every request, so each connection parses them once.
 * `name` must stand for one text only (node-postgres refuses a name reused for another). Where
 * connections share a session (the embedded PGlite), a name would outlive the connection that
 * prepared it and clash with the next one's: there the statement goes unnamed, still bound.
 */
export async function preparedQuery<T>(orm: Orm, name: string, text: string, values: unknown[]): Promise<T[]> {
  refuseNulParameters(values);
  const knexClient = orm.em.getConnection().getKnex().client;
  const connection: PgConnection = await knexClient.acquireConnection();
  try {
    return await traceStatement(
      text,
      async () =>
        (await connection.query(ownSessions.has(orm) ? { name, text, values } : { text, values })).rows as T[],
    );
  } finally {
    await knexClient.releaseConnection(connection);
  }
}

/**
 * preparedQuery inside the caller's transaction, on the connection that transaction holds: for
 * writes that must commit with others (a session and its charge, a decision and its webhook).
 */
export async function preparedQueryIn<T>(
  orm: Orm,
  em: EntityManager,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const transaction = em.getTransactionContext<{ client: { acquireConnection(): Promise<PgConnection> } }>();
  if (!transaction) throw new Error(`${name} must run inside a transaction`);
  refuseNulParameters(values);
  // A transaction's client answers its own connection and never releases it before the end.
  const connection = await transaction.client.acquireConnection();
  return traceStatement(
    text,
    async () => (await connection.query(ownSessions.has(orm) ? { name, text, values } : { text, values })).rows as T[],
  );
}

/**
 * Runs `work` in one transaction on a forked EntityManager: statements given that EntityManager
 * (preparedQueryIn) run on the transaction's connection. Begun on the ORM's connection rather
 * than with `em.transactional`, which binds the transaction to an AsyncLocalStorage: once any
 * storage runs, Node 20 fires promise hooks on every promise of the process, and every request
 * paid for it (we always pass the transaction by hand, so nothing needs the storage).
 */
export function transaction<T>(orm: Orm, work: (em: Orm['em']) => Promise<T>): Promise<T> {
  const em = orm.em.fork();
  return em.getConnection().transactional(async (context) => {
    em.setTransactionContext(context);
    try {
      return await work(em);
    } finally {
      em.resetTransactionContext();
    }
  });
}

/**
 * The name of a statement whose text is built per call (the filters given, a report's joins):
 * `prefix` and a digest of the text, so each shape is prepared once per connection under a name
 * that stands for that text only. Values stay bound ($n); only the shape goes into the text.
 */
export function statementNameOf(prefix: string, text: string): string {
  return `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
}

/**
 * The values of a statement built per call, in the order its placeholders number them: `bind`
 * answers the next placeholder (`$3`), so a condition is written as `status = ${values.bind(status)}`.
 */
export class StatementValues {
  readonly list: unknown[] = [];

  bind(value: unknown): string {
    this.list.push(value);
    return `$${this.list.length}`;
  }
}

/** A statement in the caller's transaction when there is one (preparedQueryIn), else on the pool (preparedQuery). */
export function preparedQueryWith<T>(
  orm: Orm,
  tx: EntityManager | undefined,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  return tx ? preparedQueryIn<T>(orm, tx, name, text, values) : preparedQuery<T>(orm, name, text, values);
}

/** Runs one named statement ($1.. placeholders, values bound by the server) and answers its rows. */
export type StatementRunner = <T>(name: string, text: string, values: unknown[]) => Promise<T[]>;

/** Statements on the ORM's pool (preparedQuery). */
export const ormStatements =
  (orm: Orm): StatementRunner =>
  (name, text, values) =>
    preparedQuery(orm, name, text, values);

/**
 * Statements on a small pool of connections of their own (PostgreSQL): for background work that
 * the API's requests must not starve of connections, nor it them. A connection lost while idle
 * (a restart) is dropped and the next statement connects anew.
 */
export function ownConnections(
  url: string,
  options: { max: number; applicationName: string; onError: (error: Error) => void },
): { run: StatementRunner; close: () => Promise<void> } {
  // keepAlive: a peer gone without a word (a cut network) is noticed, not waited on forever.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    keepAlive: true,
    application_name: options.applicationName,
  });
  pool.on('error', options.onError);
  return {
    run: async <T>(name: string, text: string, values: unknown[]) => {
      refuseNulParameters(values);
      return traceStatement(text, async () => (await pool.query({ name, text, values })).rows as T[]);
    },
    close: () => pool.end(),
  };
}

/** PostgreSQL's error codes (SQLSTATE) a store turns into an answer. */
export const SQLSTATE = { uniqueViolation: '23505', foreignKeyViolation: '23503' } as const;

/** Whether a failed statement failed with this SQLSTATE (node-postgres puts it on the error as `code`). */
export const failedWith = (error: unknown, sqlState: (typeof SQLSTATE)[keyof typeof SQLSTATE]): boolean =>
  (error as { code?: unknown } | null)?.code === sqlState;

/** A timestamp read by raw SQL: the ORM's connection leaves them as text (PGlite gives a Date). */
export const sqlDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));

/** sqlDate of a nullable column. */
export const sqlDateOrNull = (value: Date | string | null): Date | null => (value === null ? null : sqlDate(value));
