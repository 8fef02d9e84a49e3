import { externalStore, openEmbeddedStore, type Store } from '../../src/core/db/store.js';
import { freshDatabase } from './processes.js';

let announced = false;

/**
 * A fresh, empty database for one test file: a new database on TEST_DATABASE_URL's server when
 * that is set (CI), else an in-memory PGlite served on a loopback port.
 */
export async function freshStore(): Promise<Store> {
  const base = process.env.TEST_DATABASE_URL;
  if (!announced) {
    announced = true;
    console.info(
      base ? 'store: PostgreSQL from TEST_DATABASE_URL' : 'store: embedded PGlite (TEST_DATABASE_URL is not set)',
    );
  }
  if (!base) return openEmbeddedStore();
  const database = await freshDatabase(base, 'verity_t');
  return { ...externalStore(database.url), close: database.drop };
}
