// Each table is written by one store (issue #51): the statements that insert into, update or
// delete from a table are all in one file of src/, its area's store, and another area asks that
// store (a port it declares, as McpAudit's AgentConsents). A statement that must write beside
// another store's table in one round trip takes that store's CTE (the token endpoint's grants take
// the grant store's, the wallet's records take the idempotency store's): the text stays with the
// table's store. Read from the source text, so a new writer fails here before any database runs.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './source-files.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
/** The migrations make the tables; they are not their writers. */
const MIGRATIONS = 'core/db/migrations';

/** Comments of TypeScript (`//`, `/* *\/`) and of SQL (`--`), which name tables in prose. */
const withoutComments = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])(?:\/\/|--)[^\n]*/g, '$1');

/**
 * The tables a text writes: `insert into t`, `delete from t`, `update t [alias] set`, `truncate t`
 * (`on conflict ... do update set` names no table; `for update skip locked` sets nothing).
 */
export function writtenTables(text: string): Set<string> {
  const tables = new Set<string>();
  const writes =
    /\b(?:insert\s+into|delete\s+from|truncate(?:\s+table)?)\s+"?([a-z_][a-z0-9_]*)"?|\bupdate\s+"?([a-z_][a-z0-9_]*)"?\s+(?:(?:as\s+)?[a-z_][a-z0-9_]*\s+)?set\b/gi;
  for (const match of withoutComments(text).matchAll(writes)) tables.add((match[1] ?? match[2])!.toLowerCase());
  return tables;
}

/** Table -> the files of src/ that write it. */
function writers(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const path = relative(SRC, file);
    if (path.startsWith(MIGRATIONS)) continue;
    for (const table of writtenTables(readFileSync(file, 'utf8')))
      found.set(table, [...(found.get(table) ?? []), path]);
  }
  return found;
}

/**
 * Tables with more than one writer, each with all of its writers and why. The list may only
 * shrink: a new second writer, or a known table's new one, fails the test.
 */
const KNOWN: Record<string, { files: string[]; why: string }> = {
  project: {
    files: ['core/billing/wallet-store.ts', 'core/tenancy/store.ts'],
    why:
      "balance_minor is the wallet's balance kept on the project row (the schema's choice): billing moves it in the " +
      'statement that opens or closes a lease, refunds a charge or credits a top-up; tenancy writes the other columns',
  },
};

describe('each table is written by one store', () => {
  it('finds the writes of a statement, and no write in prose or locking clauses', () => {
    expect([
      ...writtenTables(`with claimed as (update authorization_code c set used_at = $1 returning id)
      insert into access_token (id) select id from claimed on conflict (id) do update set id = excluded.id;
      delete from login_session where digest = $2; update "project" set name = $3;
      select id from webhook_event for update skip locked; -- then insert into nowhere
      // an UPDATE changes a row once; insert into prose`),
    ]).toEqual(['authorization_code', 'access_token', 'login_session', 'project']);
  });

  it('has one writer file per table, but for the known ones', () => {
    const many = Object.fromEntries(
      [...writers()].filter(([, files]) => files.length > 1).map(([table, files]) => [table, files.sort()]),
    );
    expect(many).toEqual(Object.fromEntries(Object.entries(KNOWN).map(([table, known]) => [table, known.files])));
  });
});
