import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { SoleInstanceFeed } from './notifications.js';
import { openPasswordGate } from './password-gate.js';

/** Where the data lives and how to reach it over the Postgres protocol. */
export interface Store {
  url: string;
  /** True when this process serves the embedded PGlite database itself. */
  embedded: boolean;
  /** Connections our pool may open (the embedded store serialises through one PGlite). */
  poolMax: number;
  /**
   * The embedded store with a data dir: what tells this sole instance's caches that an outside
   * session (`verity admin`, psql) may have changed the data. Without one (an in-memory store a
   * test may write to directly), nothing is cached.
   */
  feed?: SoleInstanceFeed;
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
    throw new Error(
      `the data dir ${dataDir} is in use by process ${held}; stop it or set VERITY_DATA_DIR to another folder`,
    );
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

/**
 * The data dir holds the database, the encryption key and the demo credentials: it is the
 * owner's alone. A dir others can write is refused (anyone could swap the database or the key);
 * one others can read is closed (0700).
 */
export async function secureDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const { mode } = await stat(dataDir);
  if (mode & 0o022) {
    throw new Error(
      `the data dir ${dataDir} is writable by other users (mode ${(mode & 0o777).toString(8)}): anyone on this machine could replace the database or the key. Run: chmod 700 ${dataDir}`,
    );
  }
  await chmod(dataDir, 0o700);
}

/**
 * Every file below `dir` 0600 and every folder 0700. PGlite creates its files 0666 whatever the
 * umask; the 0700 data dir already keeps other users out, and this keeps a copied or moved
 * folder from exposing them. Run after PGlite opens (initdb) and when it closes.
 */
async function tighten(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await tighten(full);
    else if (entry.isFile()) await chmod(full, 0o600);
  }
}

/** Where PGlite's own socket goes: in the data dir when the path fits a Unix socket, else in a private temp dir. */
async function backendSocketPath(dataDir: string): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const inDataDir = path.join(dataDir, '.s.PGSQL.internal');
  if (Buffer.byteLength(inDataDir) < 100) return { path: inDataDir, cleanup: () => rm(inDataDir, { force: true }) };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'verity-db-'));
  return { path: path.join(dir, '.s.PGSQL.internal'), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Opens PGlite and serves it over the Postgres protocol. With a data dir: PGlite listens on a
 * Unix socket in that owner-only dir, and the only network listener is a password gate on
 * loopback (a password generated at each start, published in `postgres.url`, mode 0600). Without
 * one (an in-memory database for tests): PGlite on a loopback port.
 */
export async function openEmbeddedStore(options: EmbeddedOptions = {}): Promise<Store> {
  let releaseLock: (() => Promise<void>) | undefined;
  if (options.dataDir) {
    await secureDataDir(options.dataDir);
    releaseLock = await takeLock(options.dataDir);
  }
  try {
    const db = options.dataDir ? new PGlite(path.join(options.dataDir, 'pgdata')) : new PGlite();
    await db.waitReady;
    if (!options.dataDir) {
      const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: options.port ?? 0, maxConnections: 16 });
      await server.start();
      return {
        url: `postgresql://postgres@${server.getServerConn()}/postgres?sslmode=disable`,
        embedded: true,
        poolMax: 1,
        close: async () => {
          await server.stop();
          await db.close();
        },
      };
    }
    await tighten(options.dataDir);
    const dataDir = options.dataDir;
    const socket = await backendSocketPath(dataDir);
    await socket.cleanup(); // a socket left by a killed process
    const server = new PGLiteSocketServer({ db, path: socket.path, maxConnections: 16 });
    await server.start();
    await chmod(socket.path, 0o600);
    // Two passwords, both new at each start: the service's own sessions give one, outside sessions
    // the published one, so the gate can tell the feed when another process is connected.
    const password = randomBytes(24).toString('base64url');
    const ownPassword = randomBytes(24).toString('base64url');
    const feed = new SoleInstanceFeed();
    const gate = await openPasswordGate({
      backendPath: socket.path,
      password,
      own: {
        password: ownPassword,
        outsideOpened: () => feed.outsideOpened(),
        outsideClosed: () => feed.outsideClosed(),
      },
      port: options.port ?? 0,
    });
    const gateUrl = (secret: string) =>
      `postgresql://postgres:${secret}@127.0.0.1:${gate.port}/postgres?sslmode=disable`;
    const urlFile = options.publishUrl ? postgresUrlFile(options.dataDir) : undefined;
    if (urlFile) await writeFile(urlFile, `${gateUrl(password)}\n`, { mode: 0o600 });
    return {
      url: gateUrl(ownPassword),
      embedded: true,
      poolMax: 1,
      feed,
      async close() {
        if (urlFile) await rm(urlFile, { force: true });
        await gate.close();
        await server.stop();
        await socket.cleanup();
        await db.close();
        await tighten(dataDir).catch(() => undefined);
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
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
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
