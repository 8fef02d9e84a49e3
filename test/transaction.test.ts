import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOrm, type Orm } from '../src/core/db/orm.js';
import { entities } from '../src/core/entities.js';
import { preparedQuery, preparedQueryIn, transaction } from '../src/core/db/prepared.js';
import type { Store } from '../src/core/db/store.js';
import { freshStore } from './helpers/store.js';

// The stores' one way into a transaction: what work writes commits together or not at all, and
// it is begun without an AsyncLocalStorage (one that runs once slows every promise of the process).
describe('transaction', () => {
  let store: Store;
  let orm: Orm;
  const count = async () =>
    Number((await preparedQuery<{ n: string }>(orm, 'tx_test_count', 'select count(*) as n from tx_test', []))[0]!.n);

  beforeAll(async () => {
    store = await freshStore();
    orm = await createOrm(store.url, { entities, poolMax: store.poolMax, ownSessions: !store.embedded });
    await orm.em.getConnection().execute('create table tx_test (id int primary key)');
  });
  afterAll(async () => {
    await orm.close();
    await store.close();
  });

  it('commits what work wrote, on one connection that sees its own writes', async () => {
    const seen = await transaction(orm, async (em) => {
      await preparedQueryIn(orm, em, 'tx_test_insert', 'insert into tx_test (id) values ($1)', [1]);
      return (
        await preparedQueryIn<{ n: string }>(orm, em, 'tx_test_count_in', 'select count(*) as n from tx_test', [])
      )[0]!.n;
    });
    expect(Number(seen)).toBe(1);
    expect(await count()).toBe(1);
  });

  it('rolls every statement back when work throws, and passes the error on', async () => {
    const failing = transaction(orm, async (em) => {
      await preparedQueryIn(orm, em, 'tx_test_insert', 'insert into tx_test (id) values ($1)', [2]);
      throw new Error('work failed');
    });
    await expect(failing).rejects.toThrow('work failed');
    expect(await count()).toBe(1);
  });

  it('runs no AsyncLocalStorage', async () => {
    const run = vi.spyOn(AsyncLocalStorage.prototype, 'run');
    try {
      await transaction(orm, (em) =>
        preparedQueryIn(orm, em, 'tx_test_insert', 'insert into tx_test (id) values ($1)', [3]),
      );
      expect(run).not.toHaveBeenCalled();
    } finally {
      run.mockRestore();
    }
  });

  it('refuses a statement for a transaction outside one', async () => {
    await expect(
      preparedQueryIn(orm, orm.em.fork(), 'tx_test_insert', 'insert into tx_test (id) values ($1)', [4]),
    ).rejects.toThrow('must run inside a transaction');
  });
});
