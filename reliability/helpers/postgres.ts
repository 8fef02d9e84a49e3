import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../test/helpers/processes.js';

// A PostgreSQL of the suite's own, in a temp dir on a free port, which the fault tests may stop,
// restart and kill. The machine's shared server (5432) is never touched: every command here
// names this cluster's own data dir.

const run = promisify(execFile);
const BIN = process.env.VERITY_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Why the dedicated server cannot run here, or null when it can. */
export function dedicatedPostgresUnavailable(): string | null {
  for (const tool of ['initdb', 'pg_ctl'])
    if (!existsSync(path.join(BIN, tool))) return `${path.join(BIN, tool)} is missing (set VERITY_PG_BIN)`;
  if (process.getuid?.() === 0 && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser'))
    return 'running as root without runuser: initdb refuses root';
  return null;
}

export class DedicatedPostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly asPostgres: boolean,
  ) {}

  /** `postgresql://postgres@127.0.0.1:<port>/postgres`: the server's maintenance database. */
  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  /** initdb in a new temp dir (owned by `postgres` when we are root, which initdb refuses), then start. */
  static async create(): Promise<DedicatedPostgres> {
    const unavailable = dedicatedPostgresUnavailable();
    if (unavailable) throw new Error(unavailable);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'verity-pg-'));
    const asPostgres = process.getuid?.() === 0;
    if (asPostgres) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      await chown(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    const server = new DedicatedPostgres(dir, await freePort(), asPostgres);
    try {
      await server.exec('initdb', ['-D', server.dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
      await server.start();
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    return server;
  }

  private exec(tool: string, args: string[], timeoutMs = 90_000) {
    const binary = path.join(BIN, tool);
    const [command, argv] = this.asPostgres ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
    return run(command, argv, { timeout: timeoutMs });
  }

  /**
   * Starts the server and waits until it accepts connections. fsync is off: a killed process
   * loses nothing the OS already has, and only an OS crash would need it.
   */
  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`;
    await this.exec('pg_ctl', [
      '-D',
      this.dataDir,
      '-o',
      options,
      '-l',
      path.join(this.dir, 'server.log'),
      '-w',
      '-t',
      '60',
      'start',
    ]);
  }

  /** A clean stop: open connections are terminated, new ones refused until start(). */
  async stop(): Promise<void> {
    await this.exec('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** The postmaster's pid, from its pid file (null when it is not running). */
  async pid(): Promise<number | null> {
    const text = await readFile(path.join(this.dataDir, 'postmaster.pid'), 'utf8').catch(() => '');
    const pid = Number(text.split('\n')[0]);
    return pid > 0 ? pid : null;
  }

  /**
   * kill -9 of the postmaster and every backend of this cluster (a crash): the next start()
   * runs crash recovery from the WAL.
   */
  async kill(): Promise<void> {
    const pid = await this.pid();
    if (!pid) return;
    const { stdout } = await run('pgrep', ['-P', String(pid)]).catch(() => ({ stdout: '' }));
    const targets = [pid, ...stdout.split('\n').filter(Boolean).map(Number)];
    const alive = (target: number) => {
      try {
        process.kill(target, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (const target of targets) if (alive(target)) process.kill(target, 'SIGKILL');
    for (let waited = 0; targets.some(alive) && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
  }

  /** The server log (for a failing test's message). */
  log(): Promise<string> {
    return readFile(path.join(this.dir, 'server.log'), 'utf8').catch(() => '');
  }

  /** Stops the server (whatever its state) and removes its files. */
  async destroy(): Promise<void> {
    if (await this.pid()) await this.stop().catch(() => this.kill());
    await rm(this.dir, { recursive: true, force: true });
  }
}
