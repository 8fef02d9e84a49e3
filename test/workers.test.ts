import { execFile, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, verityCommand } from './helpers/compiled.js';
import { freePort, freshDatabase, stopProcess, waitReady } from './helpers/processes.js';
import { verityEnv } from './helpers/verity-process.js';

// `verity serve --workers 2` as an operator runs it, on PostgreSQL: both workers answer on the one
// port, the background duties run in one of them and move when it dies, a key revoked through
// one worker is refused by both, SIGHUP replaces the workers while a steady stream of requests is
// served without one failure, and SIGTERM exits 0. Which worker answered is read from the request
// log (each line carries its process id). Runs when TEST_DATABASE_URL is set, as in CI.

const server = process.env.TEST_DATABASE_URL;
if (!server) console.info('skipping the workers test: it needs TEST_DATABASE_URL (a PostgreSQL server)');

let database: { url: string; drop: () => Promise<void> };
let dataDir: string;
let port: number;
let env: NodeJS.ProcessEnv;
let child: ChildProcess;
let output = '';
let demo: { api_key: string; project_id: string };

interface LogLine {
  msg?: string;
  pid?: number;
  role?: string;
  route?: string;
  status?: number;
  req_id?: string;
  worker_pid?: number;
}
const lines = (): LogLine[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
const logged = (msg: string) => lines().filter((line) => line.msg === msg);

/** Waits until `count` lines say `msg`. */
async function untilLogged(msg: string, count: number, timeoutMs = 60_000): Promise<LogLine[]> {
  const started = Date.now();
  while (logged(msg).length < count) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`"${msg}" logged ${logged(msg).length} times, not ${count}:\n${output.slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return logged(msg);
}

/**
 * One request on a connection of its own (the cluster deals connections to the workers in turn); its status and request
 * id.
 */
function request(
  route: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
): Promise<{ status: number; id: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: route,
        method,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, id: String(res.headers['x-request-id'] ?? '') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The processes that answered these requests, from the request log. */
async function answeredBy(ids: string[]): Promise<Set<number>> {
  const started = Date.now();
  for (;;) {
    const byId = new Map(
      lines().flatMap((line) => (line.msg === 'request' && line.req_id ? [[line.req_id, line.pid!] as const] : [])),
    );
    if (ids.every((id) => byId.has(id)) || Date.now() - started > 5000)
      return new Set(ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const verity = async (...args: string[]) =>
  JSON.parse(
    (await promisify(execFile)('node', [...verityCommand, ...args], { cwd: root, env, timeout: 60_000 })).stdout,
  );

describe.skipIf(!server)('verity serve --workers 2', () => {
  beforeAll(async () => {
    database = await freshDatabase(server!, 'verity_workers');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-workers-'));
    port = await freePort();
    env = {
      ...verityEnv(database.url, { LOG_LEVEL: 'info', PORT: String(port), VERITY_DATA_DIR: dataDir }),
      VERITY_WORKERS: undefined,
    };
    child = spawn('node', [...verityCommand, 'serve', '--workers', '2'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr!.on('data', (chunk) => {
      output += chunk;
    });
    await waitReady(`http://127.0.0.1:${port}`, child, Date.now(), 90_000);
    await untilLogged('cluster is serving', 1);
    demo = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8'));
  });

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('answers from both workers on the one port', async () => {
    const workers = (await untilLogged('verity is listening', 2)).map((line) => line.pid);
    const answers = await Promise.all(Array.from({ length: 10 }, () => request('/healthz')));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect([...(await answeredBy(answers.map((answer) => answer.id)))].sort()).toEqual([...new Set(workers)].sort());
  });

  it('runs the background duties in one worker only', async () => {
    const started = await untilLogged('background duties started in this worker', 1);
    // Give a second worker the time to start them too, were it going to.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(logged('background duties started in this worker')).toHaveLength(1);
    expect(logged('background duties assigned').map((line) => line.worker_pid)).toEqual([started[0]!.pid]);
  });

  it('refuses on both workers a key revoked through one of them', async () => {
    const { token } = await verity('admin', 'admin-token', 'create', '--role', 'admin');
    const { apiKey, key } = await verity('admin', 'apikey', 'create', '--name', 'revoked-on-one');
    const age = () =>
      request(
        '/api/v2/age-verification',
        { 'X-API-Key': key },
        'POST',
        JSON.stringify({ dob: '1990-05-01', bands: [18] }),
      );
    // Both workers have checked (and cached) the key.
    const before = await Promise.all(Array.from({ length: 6 }, age));
    expect(before.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    expect((await answeredBy(before.map((answer) => answer.id))).size).toBe(2);
    const revoked = await request(
      '/trpc/revokeApiKey',
      { authorization: `Bearer ${token}` },
      'POST',
      JSON.stringify({ projectId: demo.project_id, apiKeyId: apiKey.id }),
    );
    expect(revoked.status).toBe(200);
    const after = await Promise.all(Array.from({ length: 6 }, age));
    expect(after.map((answer) => answer.status)).toEqual(Array(6).fill(401));
    expect((await answeredBy(after.map((answer) => answer.id))).size).toBe(2);
  });

  it('serves every request of a steady stream while SIGHUP replaces the workers', async () => {
    const before = new Set(logged('verity is listening').map((line) => line.pid));
    let reloaded = false;
    const statuses: (number | string)[] = [];
    const stream = (async () => {
      while (!reloaded) {
        statuses.push(
          await request(
            '/api/v2/age-verification',
            { 'X-API-Key': demo.api_key },
            'POST',
            JSON.stringify({ dob: '1990-05-01', bands: [18] }),
          ).then(
            (answer) => answer.status,
            (error: Error) => error.message,
          ),
        );
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGHUP');
    await untilLogged('reload done', 1, 90_000);
    reloaded = true;
    await stream;
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const now = logged('verity is listening')
      .map((line) => line.pid)
      .filter((pid) => !before.has(pid));
    expect(now).toHaveLength(2);
    // The duties moved to a fresh worker before the one holding them drained.
    expect(now).toContain(logged('background duties started in this worker').at(-1)!.pid);
  });

  it('gives the duties to another worker and forks a replacement when the worker holding them dies', async () => {
    const holder = logged('background duties started in this worker').at(-1)!.pid!;
    const listening = logged('verity is listening').length;
    const dutyStarts = logged('background duties started in this worker').length;
    process.kill(holder, 'SIGKILL');
    const [taken] = (await untilLogged('background duties started in this worker', dutyStarts + 1)).slice(-1);
    expect(taken!.pid).not.toBe(holder);
    await untilLogged('verity is listening', listening + 1);
    expect(logged('a worker died; starting another')).toHaveLength(1);
    const answers = await Promise.all(Array.from({ length: 6 }, () => request('/healthz')));
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    expect((await answeredBy(answers.map((answer) => answer.id))).size).toBe(2);
  });

  it('drains and exits 0 on SIGTERM', async () => {
    expect(await stopProcess(child)).toBe(0);
    expect(logged('worker stopping')).toHaveLength(2 + 2); // the two the reload retired, and the two running now
  });
});

describe('verity serve --workers, refused', () => {
  const serve = async (args: string[], extra: NodeJS.ProcessEnv) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'verity-workers-refused-'));
    try {
      await promisify(execFile)('node', [...verityCommand, 'serve', ...args], {
        cwd: root,
        env: {
          ...process.env,
          DATABASE_URL: '',
          VERITY_WORKERS: '',
          VERITY_DATA_DIR: dir,
          PORT: String(await freePort()),
          ...extra,
        },
        timeout: 30_000,
      });
      return { code: 0, stderr: '' };
    } catch (error) {
      return error as { code: number; stderr: string };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  it('on the embedded store, with a line that says what to do', async () => {
    const { code, stderr } = await serve(['--workers', '2'], {});
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'verity: --workers 2 needs PostgreSQL (DATABASE_URL): the embedded store lives in one process. Run one worker (--workers 1) or set DATABASE_URL',
    );
  });

  it('when the count is not a whole number from 1 to 64', async () => {
    for (const [args, extra, said] of [
      [['--workers', 'two'], {}, '--workers takes a whole number from 1 to 64, got "two"'],
      [['--workers', '0'], {}, '--workers takes a whole number from 1 to 64, got "0"'],
      [[], { VERITY_WORKERS: '65' }, 'VERITY_WORKERS takes a whole number from 1 to 64, got "65"'],
    ] as const) {
      const { code, stderr } = await serve([...args], extra);
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(`verity: ${said}`);
    }
  });
});
