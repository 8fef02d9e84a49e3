import type { Orm } from '../db/orm.js';
import { preparedQuery, type StatementValues, statementNameOf } from '../db/prepared.js';
import { DomainError } from '../errors.js';

// Keyset (cursor) pagination over (created_at, id), the Relay connection shape. A cursor carries
// the row's created_at as Postgres prints it (microseconds, which a JS Date would lose) and its
// id, so the next page starts exactly after it even when many rows share a millisecond.

export interface Edge<N> {
  cursor: string;
  node: N;
}

export interface Connection<N> {
  edges: Edge<N>[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

export function encodeCursor(createdAt: string, id: string | number): string {
  return Buffer.from(JSON.stringify([createdAt, String(id)])).toString('base64url');
}

export function decodeCursor(cursor: string): [string, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      value.every((part) => typeof part === 'string') &&
      !Number.isNaN(Date.parse(value[0]))
    ) {
      return value as [string, string];
    }
  } catch {
    // answered below
  }
  throw new DomainError('validation_error', 'after is not a cursor this API gave out', {
    data: { errors: { after: 'invalid cursor' } },
  });
}

export interface KeysetQuery {
  /** The statement's name, before the digest of its shape (the filters given vary it). */
  name: string;
  /** Columns to select (of `from`); `created_at` and `id` must be among the table's columns. */
  columns: string;
  from: string;
  where: string[];
  /** The values that `columns` and `where` bind; the page binds its cursor and size after them. */
  values: StatementValues;
  order: 'asc' | 'desc';
  first: number;
  after?: string;
}

/** One page of rows in (created_at, id) order, mapped to nodes. */
export async function keysetPage<R extends { cursor_at: string; id: string | number }, N>(
  orm: Orm,
  query: KeysetQuery,
  toNode: (row: R) => N,
): Promise<Connection<N>> {
  const where = [...query.where];
  const values = query.values;
  if (query.after) {
    const [at, id] = decodeCursor(query.after);
    where.push(
      `(created_at, id) ${query.order === 'desc' ? '<' : '>'} (${values.bind(at)}::timestamptz, ${values.bind(id)})`,
    );
  }
  const text = `select ${query.columns}, created_at::text as cursor_at from ${query.from}
     where ${where.length ? where.join(' and ') : 'true'}
     order by created_at ${query.order}, id ${query.order} limit ${values.bind(query.first + 1)}`;
  const rows = await preparedQuery<R>(orm, statementNameOf(query.name, text), text, values.list);
  const edges = rows
    .slice(0, query.first)
    .map((row) => ({ cursor: encodeCursor(row.cursor_at, row.id), node: toNode(row) }));
  return { edges, pageInfo: { hasNextPage: rows.length > query.first, endCursor: edges.at(-1)?.cursor ?? null } };
}
