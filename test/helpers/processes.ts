import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

// Helpers shared by the tests and the benches that run Verity (or a baseline) as a real process.

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Stops a test's HTTP server, cutting its open (keep-alive) connections. */
export function closeServer(
  server: { close(done: () => void): unknown; closeAllConnections(): void } | undefined,
): Promise<void> {
  return new Promise((resolve) => {
    if (!server) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** SIGTERM, then the exit code once the process has shut down. */
export function stopProcess(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

/** The p-th percentile of an ascending list. */
export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Polls `<url>/readyz` until it answers 200; returns the milliseconds since `started`. */
export async function waitReady(
  url: string,
  child: ChildProcess,
  started = Date.now(),
  timeoutMs = 120_000,
): Promise<number> {
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/readyz`).then(
        (res) => res.status === 200,
        () => false,
      )
    )
      return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${url} was not ready within ${timeoutMs} ms`);
}

/** `verity serve` from the build (`npm run build`) with the given environment; resolves when ready. */
export async function startBuiltVerity(
  env: NodeJS.ProcessEnv & { PORT: string },
): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const started = Date.now();
  // BENCH_CPU_PROF=<dir>: each server writes a V8 CPU profile there when it stops (summarise with
  // bench/cpu-profile.ts).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_SERVER_LOG=<file>: the servers' log lines (stdout) are appended there, e.g. to see why a bench got a 503.
  const stdout = process.env.BENCH_SERVER_LOG ? openSync(process.env.BENCH_SERVER_LOG, 'a') : 'ignore';
  // One process unless the bench asks for a cluster (VERITY_WORKERS): the default on PostgreSQL is one worker per core.
  const child = spawn('node', [...profile, path.join(root, 'dist/src/cli.js'), 'serve'], {
    env: { VERITY_WORKERS: '1', ...process.env, ...env },
    stdio: ['ignore', stdout, 'inherit'],
  });
  const url = `http://127.0.0.1:${env.PORT}`;
  return { child, url, ms: await waitReady(url, child, started) };
}

/** A `verity` command from the build; rejects when it exits non-zero. */
export function runBuiltVerity(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [path.join(root, 'dist/src/cli.js'), ...args], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`verity ${args.join(' ')} exited ${code}`)),
    );
  });
}

/** A new, empty database on a PostgreSQL server, and a way to drop it. */
export async function freshDatabase(
  serverUrl: string,
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}
