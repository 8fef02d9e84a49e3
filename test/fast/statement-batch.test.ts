import { describe, expect, it } from 'vitest';
import { batchPerOwner, StatementBatch } from '../../src/core/db/statement-batch.js';

// The group commit of billed calls' records, on a fake statement: which rows go together, and
// whose call a failure fails. Milliseconds, no database.

/** A fake statement that records each call's rows and answers each row doubled, after a tick. */
function fakeStatement(refuse: (row: number) => Error | null = () => null) {
  const statements: number[][] = [];
  let running = 0;
  let mostAtOnce = 0;
  const write = async (rows: number[]) => {
    statements.push(rows);
    running += 1;
    mostAtOnce = Math.max(mostAtOnce, running);
    await new Promise((resolve) => setTimeout(resolve, 1));
    running -= 1;
    const refused = rows.map(refuse).find(Boolean);
    if (refused) throw refused;
    return rows.map((row) => row * 2);
  };
  return { write, statements, mostAtOnce: () => mostAtOnce };
}

describe('StatementBatch', () => {
  it('writes the rows submitted in one turn as one statement, and answers each its own result', async () => {
    const statement = fakeStatement();
    const batch = new StatementBatch(statement.write);
    expect(await Promise.all([1, 2, 3].map((row) => batch.submit(row)))).toEqual([2, 4, 6]);
    expect(statement.statements).toEqual([[1, 2, 3]]);
  });

  it('lets rows that arrive while statements are in flight wait for the next, at most maxInFlight at once and maxRows each', async () => {
    const statement = fakeStatement();
    const batch = new StatementBatch(statement.write, { maxRows: 4, maxInFlight: 2 });
    const calls: Promise<number>[] = [];
    for (let row = 0; row < 20; row++) {
      calls.push(batch.submit(row));
      if (row % 3 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 20 }, (_, row) => row * 2));
    expect(statement.statements.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, row) => row));
    expect(Math.max(...statement.statements.map((rows) => rows.length))).toBeLessThanOrEqual(4);
    expect(statement.mostAtOnce()).toBeLessThanOrEqual(2);
    expect(statement.statements.length).toBeLessThan(20);
  });

  it('fails only the call whose row the database refuses: the others are written again alone', async () => {
    const statement = fakeStatement((row) =>
      row === 2 ? new Error('value too long for type character varying(80)') : null,
    );
    const batch = new StatementBatch(statement.write);
    const results = await Promise.allSettled([1, 2, 3].map((row) => batch.submit(row)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[0]).toMatchObject({ value: 2 });
    expect(results[2]).toMatchObject({ value: 6 });
    expect(statement.statements).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('fails every call of the statement when the database is unreachable, without writing any again', async () => {
    const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const statement = fakeStatement(() => outage);
    const batch = new StatementBatch(statement.write);
    const results = await Promise.allSettled([1, 2, 3].map((row) => batch.submit(row)));
    expect(results.every((r) => r.status === 'rejected' && r.reason === outage)).toBe(true);
    expect(statement.statements).toEqual([[1, 2, 3]]);
  });
});

describe('batchPerOwner', () => {
  it("gives each owner one batch of its own, whose statements run on that owner's writer", async () => {
    const written: [string, number[]][] = [];
    const batchOf = batchPerOwner(async (owner: { name: string }, rows: number[]) => {
      written.push([owner.name, rows]);
      return rows.map((row) => `${owner.name}:${row}`);
    });
    const a = { name: 'a' };
    const b = { name: 'b' };
    expect(batchOf(a)).toBe(batchOf(a));
    expect(batchOf(a)).not.toBe(batchOf(b));
    expect(await Promise.all([batchOf(a).submit(1), batchOf(b).submit(2), batchOf(a).submit(3)])).toEqual([
      'a:1',
      'b:2',
      'a:3',
    ]);
    expect(written).toEqual([
      ['a', [1, 3]],
      ['b', [2]],
    ]);
  });
});
