import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** Where the data lives and how to reach it over the Postgres protocol. */
export interface Store {
  url: string;
  /** True when this process serves the embedded PGlite database itself. */
  embedded: boolean;
  /** Connections our pool may open (the embedded store serialises through one PGlite). */
  poolMax: number;
  close(): Promise<void>;
}

const URL_FILE = 'postgres.url';
const LOCK_FILE = 'verity.lock';

export function postgresUrlFile(dataDir: string): string {
  return path.join(dataDir, URL_FILE);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Holds `<dataDir>/verity.lock` so two processes never open the same PGlite files. */
async function takeLock(dataDir: string): Promise<() => Promise<void>> {
  const lockPath = path.join(dataDir, LOCK_FILE);
  const held = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
  if (held && held !== process.pid && processAlive(held)) {
    throw new Error(`the data dir ${dataDir} is in use by process ${held}; stop it or set VERITY_DATA_DIR to another folder`);
  }
  await writeFile(lockPath, String(process.pid), { mode: 0o600 });
  return () => rm(lockPath, { force: true });
}

export interface EmbeddedOptions {
  /** Folder of the PGlite files; undefined keeps the database in memory (tests). */
  dataDir?: string;
  port?: number;
  /** Write `<dataDir>/postgres.url` so `verity admin` and psql can reach the running store. */
  publishUrl?: boolean;
}

/** Opens PGlite and serves it on a loopback port through pglite-socket. */
export async function openEmbeddedStore(options: EmbeddedOptions = {}): Promise<Store> {
  let releaseLock: (() => Promise<void>) | undefined;
  if (options.dataDir) {
    await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
    releaseLock = await takeLock(options.dataDir);
  }
  try {
    const db = options.dataDir ? new PGlite(path.join(options.dataDir, 'pgdata')) : new PGlite();
    await db.waitReady;
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: options.port ?? 0, maxConnections: 16 });
    await server.start();
    const url = `postgresql://postgres@${server.getServerConn()}/postgres?sslmode=disable`;
    const urlFile = options.dataDir && options.publishUrl ? postgresUrlFile(options.dataDir) : undefined;
    if (urlFile) await writeFile(urlFile, `${url}\n`, { mode: 0o600 });
    return {
      url,
      embedded: true,
      poolMax: 1,
      async close() {
        if (urlFile) await rm(urlFile, { force: true });
        await server.stop();
        await db.close();
        await releaseLock?.();
      },
    };
  } catch (error) {
    await releaseLock?.();
    throw error;
  }
}

export function externalStore(url: string): Store {
  return { url, embedded: false, poolMax: 10, close: async () => {} };
}

function canConnect(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) || 5432, timeout: 1000 });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
}

/**
 * The store for a short-lived command (`verity admin`, `verity migrate`): the running service's
 * embedded database when one is published in the data dir, else the data dir opened directly.
 */
export async function openStoreForCommand(databaseUrl: string | undefined, dataDir: string): Promise<Store> {
  if (databaseUrl) return externalStore(databaseUrl);
  const published = (await readFile(postgresUrlFile(dataDir), 'utf8').catch(() => '')).trim();
  if (published && (await canConnect(published))) return { ...externalStore(published), poolMax: 1 };
  return openEmbeddedStore({ dataDir });
}
