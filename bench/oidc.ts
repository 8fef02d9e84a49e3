// Token endpoint throughput, ours (on PostgreSQL) against panva's oidc-provider twice in the same
// run, same machine, same concurrency: with its in-memory adapter (tokens lost on restart) and
// with a PostgreSQL adapter (bench/oidc-provider-pg-adapter.ts: tokens kept, as ours are). The
// authorization_code grant (one fresh code per request) and the refresh_token grant (chains of
// rotations), in rounds that take turns (each server in turn) so a slow spell of the machine
// falls on all. Each server's CPU time per request is read from /proc, and PostgreSQL's (every
// postgres process on the machine) beside it. Then a bearer-token resource read with the chains'
// last access tokens: our GET /licenses (the token's row and the account's badges) beside
// oidc-provider's userinfo.
//   npm run bench:oidc
// BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres BENCH_CODES=2000 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3
// npm run bench:oidc
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, freshDatabase, percentile, startBuiltVerity, stopProcess } from '../test/helpers/processes.js';
import { summary } from './summary.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const server = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
// Per round: codes exchanged, and refreshes of each of the `connections` chains. A refresh round
// of 16 x 150 takes about 2 s a server: at 16 x 40 (half a second) the ratio moved by a tenth
// from one run to the next, the start and end of each round weighing on it.
const codeCount = Number(process.env.BENCH_CODES ?? 200);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const refreshesPerChain = Number(process.env.BENCH_REFRESHES ?? 150);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const resourceCallsPerClient = Number(process.env.BENCH_RESOURCE_CALLS ?? 200);

interface Target {
  name: string;
  /** The server's process, whose CPU time is read. */
  pid: number;
  tokenUrl: string;
  /** A GET that a bearer access token with the openid scope may read. */
  resourceUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  verifier: string;
  codes: string[];
  chainCodes: string[];
}

interface Figures {
  rps: number;
  p50: number;
  p95: number;
  ok: number;
  failed: number;
  /** The server's CPU time (every thread) per request, when /proc tells it. */
  cpuMsPerRequest: number | null;
  /** PostgreSQL's CPU time per request (every postgres process on the machine), when /proc tells it. */
  databaseCpuMsPerRequest: number | null;
}

/** What the rounds of one grant on one server measured, summed. */
interface Tally {
  latencies: number[];
  ok: number;
  failed: number;
  seconds: number;
  cpuMs: number | null;
  databaseCpuMs: number | null;
}

const newTally = (): Tally => ({ latencies: [], ok: 0, failed: 0, seconds: 0, cpuMs: 0, databaseCpuMs: 0 });

/**
 * A process's CPU time so far from /proc (Linux; null elsewhere), in ms: its own threads, and
 * with `reaped` also the children it has waited for. Less swayed than req/s by what else the
 * machine does: it says what a request costs.
 */
async function procCpuMs(pid: number | string, reaped = false): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!stat) return null;
  // Fields after the command's closing parenthesis: utime, stime, cutime and cstime are the 12th to 15th, in ticks of
  // 1/100 s.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0)) * 10;
}

/**
 * CPU time every postgres process has used so far, with that of backends that ended (the postmaster's reaped children).
 */
async function databaseCpuMs(): Promise<number | null> {
  const pids = await readdir('/proc').catch(() => null);
  if (!pids) return null;
  let total = 0;
  for (const pid of pids.filter((name) => /^\d+$/.test(name))) {
    const command = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
    if (command.trim() === 'postgres') total += (await procCpuMs(pid, true)) ?? 0;
  }
  return total;
}

/** Adds the CPU used since `before` (null: unknown) to a running total. */
const addCpu = (total: number | null, before: number | null, after: number | null) =>
  total === null || before === null || after === null ? null : total + after - before;

function figures(tally: Tally): Figures {
  const latencies = [...tally.latencies].sort((a, b) => a - b);
  return {
    rps: Math.round((tally.ok + tally.failed) / tally.seconds),
    p50: Math.round(percentile(latencies, 50) * 10) / 10,
    p95: Math.round(percentile(latencies, 95) * 10) / 10,
    ok: tally.ok,
    failed: tally.failed,
    cpuMsPerRequest: perRequest(tally.cpuMs, tally),
    databaseCpuMsPerRequest: perRequest(tally.databaseCpuMs, tally),
  };
}

function perRequest(ms: number | null, tally: Tally): number | null {
  return ms === null ? null : Math.round((ms / (tally.ok + tally.failed)) * 100) / 100;
}

async function tokenCall(
  target: Target,
  body: Record<string, string>,
): Promise<{ ok: boolean; ms: number; json: any }> {
  const started = performance.now();
  const res = await fetch(target.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: target.clientId, client_secret: target.clientSecret, ...body }),
  });
  const json = await res.json();
  return { ok: res.status === 200, ms: performance.now() - started, json };
}

/** Runs `work` on `connections` workers until each returns null, adding each answer and the time taken to `tally`. */
async function run(
  tally: Tally,
  pid: number,
  work: (worker: number) => Promise<{ ok: boolean; ms: number } | null>,
): Promise<void> {
  const cpuBefore = await procCpuMs(pid);
  const databaseBefore = await databaseCpuMs();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      for (;;) {
        const result = await work(worker);
        if (!result) return;
        tally.latencies.push(result.ms);
        if (result.ok) tally.ok += 1;
        else tally.failed += 1;
      }
    }),
  );
  tally.seconds += (performance.now() - started) / 1000;
  tally.cpuMs = addCpu(tally.cpuMs, cpuBefore, await procCpuMs(pid));
  tally.databaseCpuMs = addCpu(tally.databaseCpuMs, databaseBefore, await databaseCpuMs());
}

/** Round `round` of the code grant: its share of the codes, each exchanged once. */
async function codeGrant(target: Target, round: number, tally: Tally): Promise<void> {
  const pool = target.codes.slice(round * codeCount, (round + 1) * codeCount);
  return run(tally, target.pid, async () => {
    const code = pool.pop();
    if (!code) return null;
    return tokenCall(target, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: target.redirectUri,
      code_verifier: target.verifier,
    });
  });
}

/** The first refresh token of each chain, from its code (not measured). */
async function startChains(target: Target): Promise<string[]> {
  const chains: string[] = [];
  for (const code of target.chainCodes) {
    const first = await tokenCall(target, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: target.redirectUri,
      code_verifier: target.verifier,
    });
    chains.push(first.json.refresh_token);
  }
  return chains;
}

/** One round of the refresh grant: each chain rotated `refreshesPerChain` times, one after another. */
async function refreshGrant(target: Target, chains: string[], accessTokens: string[], tally: Tally): Promise<void> {
  const done = new Array(chains.length).fill(0);
  return run(tally, target.pid, async (worker) => {
    if (done[worker] >= refreshesPerChain) return null;
    done[worker] += 1;
    const result = await tokenCall(target, { grant_type: 'refresh_token', refresh_token: chains[worker]! });
    if (result.ok) {
      chains[worker] = result.json.refresh_token;
      accessTokens[worker] = result.json.access_token;
    }
    return result;
  });
}

/** Each client reads the resource `resourceCallsPerClient` times with its chain's last access token. */
async function resourceCalls(target: Target, accessTokens: string[]): Promise<Figures> {
  const done = new Array(connections).fill(0);
  const tally = newTally();
  await run(tally, target.pid, async (worker) => {
    if (done[worker] >= resourceCallsPerClient) return null;
    done[worker] += 1;
    const started = performance.now();
    const res = await fetch(target.resourceUrl, { headers: { authorization: `Bearer ${accessTokens[worker]}` } });
    await res.arrayBuffer();
    return { ok: res.status === 200, ms: performance.now() - started };
  });
  return figures(tally);
}

/** Ours: a fresh database, the demo client, codes minted through the real authorize flow. */
async function startOurs(): Promise<{ target: Target; child: ChildProcess; cleanup: () => Promise<void> }> {
  const database = await freshDatabase(server, 'verity_bench_oidc');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-oidc-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { child } = await startBuiltVerity({
    VERITY_DATA_DIR: dataDir,
    PORT: String(port),
    DATABASE_URL: database.url,
    VERITY_BASE_URL: base,
    LOG_LEVEL: 'warn',
    VERITY_WARM_MODELS: '0',
  });
  const demo = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8'));
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const redirectUri = demo.oidc.redirect_uris[0];
  const query = new URLSearchParams({
    client_id: demo.oidc.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid',
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  // Sign in and consent once; then each authorize request with the session cookie yields a code.
  const first = await fetch(`${base}/api/auth/oidc/authorize?${query}`);
  // the forms carry the CSRF cookie's value in a hidden field, as a browser would send it
  const csrfCookie = first.headers
    .getSetCookie()
    .find((line) => line.startsWith('verity_csrf='))!
    .split(';')[0]!;
  const csrf = csrfCookie.slice('verity_csrf='.length);
  const interaction = /name="interaction" value="([^"]+)"/.exec(await first.text())![1]!;
  const login = await fetch(`${base}/api/auth/oidc/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
    body: new URLSearchParams({ interaction, csrf, email: demo.account.email, password: demo.account.password }),
  });
  const cookie = login.headers
    .getSetCookie()
    .find((line) => line.startsWith('verity_session='))!
    .split(';')[0]!;
  const consentPage = await login.text();
  const consentInteraction = /name="interaction" value="([^"]+)"/.exec(consentPage)![1]!;
  await fetch(`${base}/api/auth/oidc/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${cookie}; ${csrfCookie}` },
    body: new URLSearchParams({ interaction: consentInteraction, csrf, decision: 'allow' }),
  });
  const mint = async () =>
    new URL(
      (
        await fetch(`${base}/api/auth/oidc/authorize?${query}`, { redirect: 'manual', headers: { cookie } })
      ).headers.get('location')!,
    ).searchParams.get('code')!;
  const codes: string[] = [];
  const mintMs: number[] = [];
  for (let i = 0; i < codeCount * rounds + connections; i += 1) {
    const started = performance.now();
    codes.push(await mint());
    mintMs.push(performance.now() - started);
  }
  mintMs.sort((a, b) => a - b);
  console.log(
    `authorize, signed in and consented -> code (one at a time, ${mintMs.length} requests): p50 ${percentile(mintMs, 50).toFixed(1)} ms, p95 ${percentile(mintMs, 95).toFixed(1)} ms`,
  );
  return {
    child,
    target: {
      name: 'verity (PostgreSQL)',
      pid: child.pid!,
      tokenUrl: `${base}/api/auth/oidc/token`,
      resourceUrl: `${base}/api/auth/oidc/licenses`,
      clientId: demo.oidc.client_id,
      clientSecret: demo.oidc.client_secret,
      redirectUri,
      verifier,
      codes: codes.slice(0, codeCount * rounds),
      chainCodes: codes.slice(codeCount * rounds),
    },
    async cleanup() {
      await rm(dataDir, { recursive: true, force: true });
      await database.drop();
    },
  };
}

/** Theirs: oidc-provider with its memory adapter, or on a fresh database when `database` is given. */
async function startTheirs(database?: { url: string }): Promise<{ target: Target; child: ChildProcess }> {
  const port = await freePort();
  const args = [String(port), String(codeCount * rounds), String(connections), ...(database ? [database.url] : [])];
  const child = spawn(
    'node',
    ['--import', '@swc-node/register/esm-register', path.join(root, 'bench/oidc-provider-server.ts'), ...args],
    {
      cwd: root,
      // its warnings (development keys, Node.js 20) are not the bench's
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  let output = '';
  const info = await new Promise<any>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('\n')) resolve(JSON.parse(output.split('\n')[0]!));
    });
    child.once('exit', (code) => reject(new Error(`oidc-provider exited with ${code} before it listened`)));
  });
  return {
    child,
    target: {
      name: database ? 'oidc-provider (PostgreSQL)' : 'oidc-provider (memory)',
      pid: child.pid!,
      tokenUrl: `${info.issuer}/token`,
      resourceUrl: `${info.issuer}/me`,
      clientId: info.client.client_id,
      clientSecret: info.client.client_secret,
      redirectUri: info.client.redirect_uris[0],
      verifier: info.verifier,
      codes: info.codes,
      chainCodes: info.chainCodes,
    },
  };
}

/** One server's run: its target, and what its rounds measured. */
interface Contender {
  target: Target;
  codes: Tally;
  refresh: Tally;
  chains: string[];
  accessTokens: string[];
}

const cpu = (figures: Figures) => `${figures.cpuMsPerRequest ?? 'n/a'} + ${figures.databaseCpuMsPerRequest ?? 'n/a'}`;

const ours = await startOurs();
const theirDatabase = await freshDatabase(server, 'verity_bench_oidc_provider');
const memory = await startTheirs();
const durable = await startTheirs(theirDatabase);
try {
  // Theirs first in each turn, as before the PostgreSQL baseline was added.
  const contenders: Contender[] = [];
  for (const { target } of [memory, durable, ours])
    contenders.push({
      target,
      codes: newTally(),
      refresh: newTally(),
      chains: await startChains(target),
      accessTokens: [],
    });
  for (let round = 0; round < rounds; round += 1) {
    for (const contender of contenders) await codeGrant(contender.target, round, contender.codes);
    for (const contender of contenders)
      await refreshGrant(contender.target, contender.chains, contender.accessTokens, contender.refresh);
  }
  const [theirs, theirsDurable, mine] = contenders as [Contender, Contender, Contender];
  const reads = [];
  for (const contender of contenders) reads.push(await resourceCalls(contender.target, contender.accessTokens));
  const [theirReads, theirDurableReads, ourReads] = reads as [Figures, Figures, Figures];
  console.log(
    `\n${connections} concurrent clients; ${rounds} rounds taking turns, each ${codeCount} codes and ${connections} chains x ${refreshesPerChain} refreshes per server; loopback, 2 cores shared`,
  );
  console.log(
    'CPU ms per request: the server process (every thread) + PostgreSQL (every postgres process) during its rounds',
  );
  console.log(
    '| grant | verity req/s, p50 / p95 ms | oidc-provider (memory) | ratio | oidc-provider (PostgreSQL) | ratio | CPU ms per request: verity, memory, PostgreSQL | failures |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  const rows = [
    ['authorization_code', figures(mine.codes), figures(theirs.codes), figures(theirsDurable.codes)],
    ['refresh_token', figures(mine.refresh), figures(theirs.refresh), figures(theirsDurable.refresh)],
  ] as const;
  const cell = (f: Figures) => `${f.rps}, ${f.p50} / ${f.p95}`;
  for (const [grant, ourFigures, memoryFigures, durableFigures] of rows) {
    console.log(
      `| ${grant} | ${cell(ourFigures)} | ${cell(memoryFigures)} | ${(ourFigures.rps / memoryFigures.rps).toFixed(2)} | ${cell(durableFigures)} | ${(ourFigures.rps / durableFigures.rps).toFixed(2)} | ${cpu(ourFigures)}; ${cpu(memoryFigures)}; ${cpu(durableFigures)} | ${ourFigures.failed}, ${memoryFigures.failed}, ${durableFigures.failed} |`,
    );
  }
  console.log(
    `\n| resource read, bearer token (${connections} clients x ${resourceCallsPerClient}) | req/s | p50 / p95 ms | failures |`,
  );
  console.log('|---|---|---|---|');
  console.log(
    `| verity GET /api/auth/oidc/licenses | ${ourReads.rps} | ${ourReads.p50} / ${ourReads.p95} | ${ourReads.failed} |`,
  );
  console.log(
    `| oidc-provider (memory) GET /me (userinfo) | ${theirReads.rps} | ${theirReads.p50} / ${theirReads.p95} | ${theirReads.failed} |`,
  );
  console.log(
    `| oidc-provider (PostgreSQL) GET /me (userinfo) | ${theirDurableReads.rps} | ${theirDurableReads.p50} / ${theirDurableReads.p95} | ${theirDurableReads.failed} |`,
  );
  summary(
    ...rows.flatMap(([grant, ourFigures, memoryFigures, durableFigures]) =>
      [memoryFigures, durableFigures].map((base, i) => ({
        area: 'OIDC',
        what: `token endpoint, ${grant} req/s (p50 ${ourFigures.p50} ms, p95 ${ourFigures.p95} ms)`,
        verity: ourFigures.rps,
        unit: 'req/s',
        baseline: { name: i === 0 ? 'oidc-provider (memory)' : 'oidc-provider (PostgreSQL)', value: base.rps },
      })),
    ),
    {
      area: 'OIDC',
      what: `GET /licenses with a bearer token req/s (p50 ${ourReads.p50} ms)`,
      verity: ourReads.rps,
      unit: 'req/s',
      baseline: { name: 'oidc-provider userinfo (memory)', value: theirReads.rps },
    },
  );
} finally {
  await stopProcess(memory.child);
  await stopProcess(durable.child);
  await stopProcess(ours.child);
  await ours.cleanup();
  await theirDatabase.drop();
}
