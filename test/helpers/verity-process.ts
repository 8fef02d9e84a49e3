import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Sealer } from '../../src/core/secrets.js';
import type { DemoTenant } from '../../src/core/seed.js';
import { root, verityCommand } from './compiled.js';
import { freePort, stopProcess, waitReady } from './processes.js';

// `verity serve` as a real process, run from the compiled source (test/build-server.ts), for the multi-instance test
// and
// the reliability suite, on a PostgreSQL they choose. It can be stopped, SIGKILLed and started again
// on the same port and data dir.

const cli = verityCommand;

/** The environment of an instance for the suite: fast retries, no models, no rate limit in the way. */
export function verityEnv(databaseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    VERITY_ENCRYPTION_KEY: Sealer.generateKey(),
    VERITY_ALLOW_INSECURE_CALLBACKS: '1',
    VERITY_WARM_MODELS: '0',
    VERITY_SEED_LICENSES: '0',
    VERITY_RATE_LIMIT_PER_MINUTE: '100000000',
    VERITY_HOSTED_RATE_LIMIT_PER_MINUTE: '100000000',
    VERITY_WEBHOOK_RETRY_BASE_SECONDS: '1',
    // One process per instance: these suites start their instances themselves (test/workers.test.ts runs a cluster).
    VERITY_WORKERS: '1',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

export class VerityProcess {
  private child: ChildProcess | null = null;
  private logged = '';

  private constructor(
    private readonly env: NodeJS.ProcessEnv,
    readonly port: number,
    readonly dataDir: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The process id, to read its memory from /proc. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** What the process wrote (stdout and stderr), for failure messages and log scans. */
  output(): string {
    return this.logged;
  }

  static async start(env: NodeJS.ProcessEnv): Promise<VerityProcess> {
    const instance = new VerityProcess(env, await freePort(), await mkdtemp(path.join(os.tmpdir(), 'verity-rel-')));
    await instance.start();
    return instance;
  }

  /** Starts (again) on the same port and data dir; resolves once /readyz answers 200. */
  async start(): Promise<number> {
    const started = Date.now();
    const child = spawn('node', [...cli, 'serve'], {
      cwd: root,
      env: { ...this.env, PORT: String(this.port), VERITY_DATA_DIR: this.dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => {
      this.logged += chunk;
    });
    child.stderr!.on('data', (chunk) => {
      this.logged += chunk;
    });
    this.child = child;
    try {
      return await waitReady(this.url, child, started, 120_000);
    } catch (error) {
      child.kill('SIGKILL');
      throw new Error(`verity not ready: ${(error as Error).message}\n${this.logged.slice(-4000)}`);
    }
  }

  /** The demo tenant the first start seeded. */
  async demo(): Promise<DemoTenant> {
    return JSON.parse(await readFile(path.join(this.dataDir, 'demo.json'), 'utf8')) as DemoTenant;
  }

  /** SIGKILL: no shutdown, requests in flight are cut. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGTERM (graceful shutdown); the exit code. */
  async stop(): Promise<number | null> {
    return this.child ? stopProcess(this.child) : null;
  }

  /** Stops the process and removes its data dir. */
  async destroy(): Promise<void> {
    await this.stop();
    await rm(this.dataDir, { recursive: true, force: true });
  }

  /** `verity admin ...` against the same database; its JSON output. */
  async admin(...args: string[]): Promise<unknown> {
    const { stdout } = await promisify(execFile)('node', [...cli, 'admin', ...args], {
      cwd: root,
      env: { ...this.env, VERITY_DATA_DIR: this.dataDir },
      timeout: 60_000,
    });
    return JSON.parse(stdout);
  }

  /** A tRPC mutation of the admin API (faster than an admin command: no process to start). */
  async trpc(token: string, operation: string, input: object): Promise<unknown> {
    const res = await fetch(`${this.url}/trpc/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(input),
    });
    if (!res.ok) throw new Error(`trpc ${operation}: ${res.status} ${await res.text()}`);
    return res.json();
  }
}
