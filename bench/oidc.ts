// Token endpoint throughput, ours (on PostgreSQL) against panva's oidc-provider (in-memory
// adapter) in the same run, same machine, same concurrency: the authorization_code grant
// (one fresh code per request) and the refresh_token grant (chains of rotations), in rounds that
// take turns (theirs, ours, theirs, ...) so a slow spell of the machine falls on both. Then a
// bearer-token resource read with the chains' last access tokens: our GET /licenses (the token's
// row and the account's badges) beside oidc-provider's userinfo (its token from memory).
//   npm run bench:oidc
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres BENCH_CODES=2000 BENCH_CONNECTIONS=16 BENCH_ROUNDS=3 npm run bench:oidc
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, freshDatabase, percentile, startBuiltVerity, stopProcess } from '../test/helpers/processes.js';
import { summary } from './summary.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const server = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
// Per round: codes exchanged, and refreshes of each of the `connections` chains.
const codeCount = Number(process.env.BENCH_CODES ?? 200);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const refreshesPerChain = Number(process.env.BENCH_REFRESHES ?? 40);
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
}

/** What the rounds of one grant on one server measured, summed. */
interface Tally {
  latencies: number[];
  ok: number;
  failed: number;
  seconds: number;
  cpuMs: number | null;
}

const newTally = (): Tally => ({ latencies: [], ok: 0, failed: 0, seconds: 0, cpuMs: 0 });

/**
 * CPU time a process has used so far, in ms, all its threads (Linux /proc; null elsewhere). Less
 * swayed than req/s by what else the machine does: it says what a request costs the server.
 */
async function cpuMsOf(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!stat) return null;
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in ticks of 1/100 s.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function figures(tally: Tally): Figures {
  const latencies = [...tally.latencies].sort((a, b) => a - b);
  return {
    rps: Math.round((tally.ok + tally.failed) / tally.seconds),
    p50: Math.round(percentile(latencies, 50) * 10) / 10,
    p95: Math.round(percentile(latencies, 95) * 10) / 10,
    ok: tally.ok,
    failed: tally.failed,
    cpuMsPerRequest: tally.cpuMs === null ? null : Math.round((tally.cpuMs / (tally.ok + tally.failed)) * 100) / 100,
  };
}

async function tokenCall(target: Target, body: Record<string, string>): Promise<{ ok: boolean; ms: number; json: any }> {
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
async function run(tally: Tally, pid: number, work: (worker: number) => Promise<{ ok: boolean; ms: number } | null>): Promise<void> {
  const cpuBefore = await cpuMsOf(pid);
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
  const cpuAfter = await cpuMsOf(pid);
  tally.cpuMs = tally.cpuMs === null || cpuBefore === null || cpuAfter === null ? null : tally.cpuMs + cpuAfter - cpuBefore;
}

/** Round `round` of the code grant: its share of the codes, each exchanged once. */
async function codeGrant(target: Target, round: number, tally: Tally): Promise<void> {
  const pool = target.codes.slice(round * codeCount, (round + 1) * codeCount);
  return run(tally, target.pid, async () => {
    const code = pool.pop();
    if (!code) return null;
    return tokenCall(target, { grant_type: 'authorization_code', code, redirect_uri: target.redirectUri, code_verifier: target.verifier });
  });
}

/** The first refresh token of each chain, from its code (not measured). */
async function startChains(target: Target): Promise<string[]> {
  const chains: string[] = [];
  for (const code of target.chainCodes) {
    const first = await tokenCall(target, { grant_type: 'authorization_code', code, redirect_uri: target.redirectUri, code_verifier: target.verifier });
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
  const { child } = await startBuiltVerity({ VERITY_DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: database.url, VERITY_BASE_URL: base, LOG_LEVEL: 'warn', VERITY_WARM_MODELS: '0' });
  const demo = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8'));
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const redirectUri = demo.oidc.redirect_uris[0];
  const query = new URLSearchParams({ client_id: demo.oidc.client_id, redirect_uri: redirectUri, response_type: 'code', scope: 'openid', state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
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
  const mint = async () => new URL((await fetch(`${base}/api/auth/oidc/authorize?${query}`, { redirect: 'manual', headers: { cookie } })).headers.get('location')!).searchParams.get('code')!;
  const codes: string[] = [];
  const mintMs: number[] = [];
  for (let i = 0; i < codeCount * rounds + connections; i += 1) {
    const started = performance.now();
    codes.push(await mint());
    mintMs.push(performance.now() - started);
  }
  mintMs.sort((a, b) => a - b);
  console.log(`authorize, signed in and consented -> code (one at a time, ${mintMs.length} requests): p50 ${percentile(mintMs, 50).toFixed(1)} ms, p95 ${percentile(mintMs, 95).toFixed(1)} ms`);
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

async function startTheirs(): Promise<{ target: Target; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn('node', ['--import', '@swc-node/register/esm-register', path.join(root, 'bench/oidc-provider-server.ts'), String(port), String(codeCount * rounds), String(connections)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let output = '';
  const info = await new Promise<any>((resolve) =>
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('\n')) resolve(JSON.parse(output.split('\n')[0]!));
    }),
  );
  return {
    child,
    target: {
      name: 'oidc-provider (memory)',
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

const ours = await startOurs();
const theirs = await startTheirs();
try {
  const tallies = { theirCodes: newTally(), ourCodes: newTally(), theirRefresh: newTally(), ourRefresh: newTally() };
  const theirTokens: string[] = [];
  const ourTokens: string[] = [];
  const theirChains = await startChains(theirs.target);
  const ourChains = await startChains(ours.target);
  for (let round = 0; round < rounds; round += 1) {
    await codeGrant(theirs.target, round, tallies.theirCodes);
    await codeGrant(ours.target, round, tallies.ourCodes);
    await refreshGrant(theirs.target, theirChains, theirTokens, tallies.theirRefresh);
    await refreshGrant(ours.target, ourChains, ourTokens, tallies.ourRefresh);
  }
  const rows: [string, Figures, Figures][] = [
    ['authorization_code', figures(tallies.ourCodes), figures(tallies.theirCodes)],
    ['refresh_token', figures(tallies.ourRefresh), figures(tallies.theirRefresh)],
  ];
  const theirReads = await resourceCalls(theirs.target, theirTokens);
  const ourReads = await resourceCalls(ours.target, ourTokens);
  console.log(`\n${connections} concurrent clients; ${rounds} rounds taking turns, each ${codeCount} codes and ${connections} chains x ${refreshesPerChain} refreshes per server; loopback, 2 cores shared`);
  console.log(
    '| grant | verity req/s | verity p50 / p95 ms | oidc-provider req/s | oidc-provider p50 / p95 ms | ratio (verity / oidc-provider) | server CPU ms per request (verity, oidc-provider) | failures (verity, oidc-provider) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [grant, mine, base] of rows) {
    console.log(
      `| ${grant} | ${mine.rps} | ${mine.p50} / ${mine.p95} | ${base.rps} | ${base.p50} / ${base.p95} | ${(mine.rps / base.rps).toFixed(2)} | ${mine.cpuMsPerRequest ?? 'n/a'}, ${base.cpuMsPerRequest ?? 'n/a'} | ${mine.failed}, ${base.failed} |`,
    );
  }
  console.log(`\n| resource read, bearer token (${connections} clients x ${resourceCallsPerClient}) | req/s | p50 / p95 ms | failures |`);
  console.log('|---|---|---|---|');
  console.log(`| verity GET /api/auth/oidc/licenses | ${ourReads.rps} | ${ourReads.p50} / ${ourReads.p95} | ${ourReads.failed} |`);
  console.log(`| oidc-provider GET /me (userinfo) | ${theirReads.rps} | ${theirReads.p50} / ${theirReads.p95} | ${theirReads.failed} |`);
  summary(
    ...rows.map(([grant, mine, base]) => ({
      area: 'OIDC',
      what: `token endpoint, ${grant} req/s (p50 ${mine.p50} ms, p95 ${mine.p95} ms)`,
      verity: mine.rps,
      unit: 'req/s',
      baseline: { name: 'oidc-provider (memory)', value: base.rps },
    })),
    {
      area: 'OIDC',
      what: `GET /licenses with a bearer token req/s (p50 ${ourReads.p50} ms)`,
      verity: ourReads.rps,
      unit: 'req/s',
      baseline: { name: 'oidc-provider userinfo (memory)', value: theirReads.rps },
    },
  );
} finally {
  await stopProcess(theirs.child);
  await stopProcess(ours.child);
  await ours.cleanup();
}
