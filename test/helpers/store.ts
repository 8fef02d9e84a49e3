import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { externalStore, openEmbeddedStore, type Store } from '../../src/core/db/store.js';

let announced = false;

/**
 * A fresh, empty database for one test file: a new database on TEST_DATABASE_URL's server when
 * that is set (CI), else an in-memory PGlite served on a loopback port.
 */
export async function freshStore(): Promise<Store> {
  const base = process.env.TEST_DATABASE_URL;
  if (!announced) {
    announced = true;
    console.info(base ? 'store: PostgreSQL from TEST_DATABASE_URL' : 'store: embedded PGlite (TEST_DATABASE_URL is not set)');
  }
  if (!base) return openEmbeddedStore();
  const name = `verity_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const store = externalStore(url.toString());
  return {
    ...store,
    async close() {
      const dropper = new pg.Client({ connectionString: base });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}
