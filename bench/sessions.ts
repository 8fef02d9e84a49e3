// Hosted sessions and webhooks, measured against a built `verity serve` on PostgreSQL:
//   1. sessions created per second (POST /api/v2/session), beside an authenticated 404 on the
//      same server as the baseline (the cost of auth and the middleware alone);
//   2. time from a session's terminal state to its webhook arriving, p50/p95, while 100 sessions
//      per second are created and finished;
//   3. an outage: the receiver is down for BENCH_OUTAGE_SECONDS (default 120) while sessions
//      finish, the service is restarted in the middle of the retries, then the receiver comes
//      back: every event must arrive, none lost.
//   npm run bench:sessions     (BENCH_DATABASE_URL, default the machine's loopback PostgreSQL)
import http from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import {
  freePort,
  freshDatabase,
  percentile,
  runBuiltVerity,
  startBuiltVerity,
  stopProcess,
} from '../test/helpers/processes.js';
import { summary } from './summary.js';

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const outageSeconds = Number(process.env.BENCH_OUTAGE_SECONDS ?? 120);
const rate = Number(process.env.BENCH_SESSIONS_PER_SECOND ?? 100);

/** Receives webhooks on a fixed port; can be taken down and brought back. */
class Receiver {
  readonly arrivals = new Map<string, { at: number; occurredAt: number; count: number }>();
  private server: http.Server | null = null;
  constructor(readonly port: number) {}

  async up(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { session_id: string; occurred_at: string };
        const seen = this.arrivals.get(body.session_id);
        if (seen) seen.count += 1;
        else this.arrivals.set(body.session_id, { at: Date.now(), occurredAt: Date.parse(body.occurred_at), count: 1 });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server)
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      });
  }
}

const database = await freshDatabase(serverUrl, 'verity_bench_sessions');
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-sessions-'));
const port = await freePort();
const receiver = new Receiver(await freePort());
const env = {
  VERITY_DATA_DIR: dataDir,
  PORT: String(port),
  DATABASE_URL: database.url,
  LOG_LEVEL: 'warn',
  VERITY_RATE_LIMIT_PER_MINUTE: '100000000',
  VERITY_HOSTED_RATE_LIMIT_PER_MINUTE: '100000000',
  VERITY_ALLOW_INSECURE_CALLBACKS: '1',
  VERITY_WEBHOOK_RETRY_BASE_SECONDS: '5',
  VERITY_WARM_MODELS: '0',
};
let instance = await startBuiltVerity(env);
try {
  const demo = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8'));
  const admin = { VERITY_DATA_DIR: dataDir, DATABASE_URL: database.url, VERITY_ALLOW_INSECURE_CALLBACKS: '1' };
  await runBuiltVerity(['admin', 'project', 'topup', '--amount', '10000000'], admin);
  const callback = `http://127.0.0.1:${receiver.port}/hooks`;
  await runBuiltVerity(['admin', 'callback', 'approve', callback], admin);
  const headers = { 'X-API-Key': demo.api_key, 'content-type': 'application/json' };
  const base = instance.url;

  // 1. Throughput of session creation against the authenticated 404 baseline.
  const run = (url: string, body?: unknown) =>
    autocannon({
      url,
      connections: 32,
      duration: seconds,
      headers,
      ...(body ? { method: 'POST' as const, body: JSON.stringify(body) } : {}),
    });
  await run(`${base}/api/v2/nothing`);
  const baseline = await run(`${base}/api/v2/nothing`);
  const creation = await run(`${base}/api/v2/session`, { workflow_id: demo.workflows.location, vendor_data: 'bench' });
  console.log(`\n1. sessions created per second (${seconds} s, 32 connections, PostgreSQL)`);
  console.log('| route | req/s | ratio to auth. 404 | p50 ms | p95 ms | p99 ms | non-2xx |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, result] of [
    ['authenticated 404 (baseline)', baseline],
    ['POST /api/v2/session', creation],
  ] as const) {
    console.log(
      `| ${name} | ${Math.round(result.requests.average)} | ${(result.requests.average / baseline.requests.average).toFixed(2)} | ${result.latency.p50} | ${result.latency.p97_5 ?? '-'} | ${result.latency.p99} | ${result.non2xx} |`,
    );
  }
  summary({
    area: 'sessions',
    what: `POST /api/v2/session req/s (p50 ${creation.latency.p50} ms, p99 ${creation.latency.p99} ms)`,
    verity: Math.round(creation.requests.average),
    unit: 'req/s',
    baseline: { name: 'authenticated 404, same server', value: Math.round(baseline.requests.average) },
  });

  /** When each session's finishing step was answered (its transaction had committed by then). */
  const answered = new Map<string, number>();

  /** Creates a session that reports to the receiver and finishes it (APPROVED) at once. */
  async function finishedSession(vendorData: string): Promise<string> {
    const created = await fetch(`${base}/api/v2/session`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ workflow_id: demo.workflows.location, callback, vendor_data: vendorData }),
    });
    const { data } = (await created.json()) as { data: { session_id: string; session_token: string } };
    const step = await fetch(`${base}/api/hosted/session/steps/location`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Session-Token': data.session_token },
      body: JSON.stringify({ latitude: 40.7, longitude: -74, accuracy: 10 }),
    });
    if (!step.ok) throw new Error(`step failed: ${step.status} ${await step.text()}`);
    answered.set(data.session_id, Date.now());
    return data.session_id;
  }

  async function paced(count: number, perSecond: number, label: string): Promise<string[]> {
    const ids: Promise<string>[] = [];
    const started = Date.now();
    for (let i = 0; i < count; i++) {
      const due = started + (i * 1000) / perSecond;
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
      ids.push(finishedSession(`${label}-${i}`));
    }
    return Promise.all(ids);
  }

  async function waitFor(ids: string[], timeoutMs: number): Promise<number> {
    const started = Date.now();
    while (ids.some((id) => !receiver.arrivals.has(id)) && Date.now() - started < timeoutMs)
      await new Promise((resolve) => setTimeout(resolve, 250));
    return ids.filter((id) => receiver.arrivals.has(id)).length;
  }

  // 2. Terminal state to webhook received, at `rate` sessions per second.
  await receiver.up();
  const steady = await paced(rate * 15, rate, 'steady');
  const arrived = await waitFor(steady, 60_000);
  const latencies = steady
    .filter((id) => receiver.arrivals.has(id))
    .map((id) => {
      const a = receiver.arrivals.get(id)!;
      return a.at - a.occurredAt;
    })
    .sort((a, b) => a - b);
  console.log(
    `\n2. terminal state -> webhook received, ${steady.length} sessions at ${rate}/s: arrived ${arrived}/${steady.length}, p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms, max ${latencies.at(-1)} ms`,
  );
  // The same, split: the session's own step (terminal state to its answer), then the webhook path alone.
  const split = (of: (id: string) => number) =>
    steady
      .filter((id) => receiver.arrivals.has(id))
      .map(of)
      .sort((a, b) => a - b);
  const stepPart = split((id) => answered.get(id)! - receiver.arrivals.get(id)!.occurredAt);
  const hookPart = split((id) => receiver.arrivals.get(id)!.at - answered.get(id)!);
  console.log(
    `   of which terminal state -> step answered p50 ${percentile(stepPart, 50)} ms; step answered -> webhook received p50 ${percentile(hookPart, 50)} ms, p95 ${percentile(hookPart, 95)} ms`,
  );
  summary(
    {
      area: 'webhooks',
      what: `terminal state -> webhook received at ${rate} sessions/s, p50`,
      verity: percentile(latencies, 50),
      unit: 'ms',
    },
    {
      area: 'webhooks',
      what: `terminal state -> webhook received at ${rate} sessions/s, p95`,
      verity: percentile(latencies, 95),
      unit: 'ms',
    },
  );

  // 3. Receiver down, service restarted mid-retry, receiver back: all arrive.
  await receiver.down();
  const outageStarted = Date.now();
  const during = await paced(200, 20, 'outage');
  await new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, (outageSeconds * 1000) / 2 - (Date.now() - outageStarted))),
  );
  await stopProcess(instance.child);
  instance = await startBuiltVerity(env);
  console.log(
    `\n3. outage: ${during.length} sessions finished while the receiver was down; service restarted after ${Math.round((Date.now() - outageStarted) / 1000)} s`,
  );
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageSeconds * 1000 - (Date.now() - outageStarted))));
  await receiver.up();
  const back = Date.now();
  const delivered = await waitFor(during, 10 * 60_000);
  const duplicates = during.reduce((sum, id) => sum + Math.max(0, (receiver.arrivals.get(id)?.count ?? 1) - 1), 0);
  console.log(
    `   receiver back after ${Math.round((back - outageStarted) / 1000)} s down: ${delivered}/${during.length} events arrived within ${Math.round((Date.now() - back) / 1000)} s of its return; lost ${during.length - delivered}; duplicates ${duplicates}`,
  );
  summary({
    area: 'webhooks',
    what: `events delivered after a ${outageSeconds} s receiver outage with a restart mid-retry (of ${during.length})`,
    verity: delivered,
    unit: 'events',
  });
} finally {
  await receiver.down();
  await stopProcess(instance.child);
  await rm(dataDir, { recursive: true, force: true });
  await database.drop();
}
