// A V8 CPU profile of one `verity serve` (the build, on PostgreSQL) under 32 connections of one
// billed route, with the functions that took the most of its busy time.
//   npm run build && node --import @swc-node/register/esm-register bench/profile-route.ts
//   BENCH_PROFILE_KEEP=<file.cpuprofile> keeps the profile (for Chrome's DevTools or a finer summary)
// BENCH_ROUTE=session BENCH_SECONDS=10 BENCH_TOP=40 ...   (routes: age, location, session, get-session, not-found,
// healthz)
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort, freshDatabase, runBuiltVerity, startBuiltVerity, stopProcess } from '../test/helpers/processes.js';
import { selfTimes } from './cpu-profile.js';

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const top = Number(process.env.BENCH_TOP ?? 30);

/** A route to load: POST with `body`, or GET without one (`get-session` polls a session created first). */
const routes: Record<
  string,
  (demo: { workflows: Record<string, string> }, sessionId: string) => { path: string; body?: unknown }
> = {
  age: () => ({ path: '/api/v2/age-verification', body: { dob: '1990-05-01', bands: [18, '21+'] } }),
  location: () => ({
    path: '/api/v2/location',
    body: {
      latitude: 48.8566,
      longitude: 2.3522,
      accuracy: 10,
      expected_latitude: 48.8584,
      expected_longitude: 2.2945,
      radius_m: 5000,
    },
  }),
  session: (demo) => ({ path: '/api/v2/session', body: { workflow_id: demo.workflows.location } }),
  'get-session': (_demo, sessionId) => ({ path: `/api/v2/session/${sessionId}` }),
  'not-found': () => ({ path: '/api/v2/nothing' }),
  // What every request pays before its route: the app-wide middleware (tracing, request id, access log, headers).
  healthz: () => ({ path: '/healthz' }),
};
const route = routes[process.env.BENCH_ROUTE ?? 'age'];
if (!route) throw new Error(`BENCH_ROUTE must be one of ${Object.keys(routes).join(', ')}`);

const profiles = await mkdtemp(path.join(os.tmpdir(), 'verity-profile-'));
const database = await freshDatabase(serverUrl, 'verity_profile');
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-profile-data-'));
const port = await freePort();
process.env.BENCH_CPU_PROF = profiles;
const instance = await startBuiltVerity({
  VERITY_DATA_DIR: dataDir,
  PORT: String(port),
  DATABASE_URL: database.url,
  LOG_LEVEL: 'info',
  VERITY_RATE_LIMIT_PER_MINUTE: '100000000',
});
delete process.env.BENCH_CPU_PROF;
try {
  const demo = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8'));
  await runBuiltVerity(['admin', 'project', 'topup', '--amount', '1000000'], {
    VERITY_DATA_DIR: dataDir,
    DATABASE_URL: database.url,
  });
  const headers = { 'X-API-Key': demo.api_key, 'content-type': 'application/json' };
  const created = await fetch(`http://127.0.0.1:${port}/api/v2/session`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ workflow_id: demo.workflows.location }),
  });
  const sessionId = ((await created.json()) as { data: { session_id: string } }).data.session_id;
  const { path: routePath, body } = route(demo, sessionId);
  const method = body === undefined ? ('GET' as const) : ('POST' as const);
  const options = {
    url: `http://127.0.0.1:${port}${routePath}`,
    connections: 32,
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
  await autocannon({ ...options, duration: 3 });
  const result = await autocannon({ ...options, duration: seconds });
  console.log(
    `${method} ${routePath}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`,
  );
} finally {
  await stopProcess(instance.child);
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
}
const [file] = await readdir(profiles);
const times = selfTimes(JSON.parse(await readFile(path.join(profiles, file!), 'utf8')));
if (process.env.BENCH_PROFILE_KEEP) await copyFile(path.join(profiles, file!), process.env.BENCH_PROFILE_KEEP);
await rm(profiles, { recursive: true, force: true });
const busy = times.filter((time) => !time.name.startsWith('(idle)'));
const busyMs = busy.reduce((sum, time) => sum + time.ms, 0);
console.log(
  `busy ${Math.round(busyMs)} ms of ${Math.round(times.reduce((sum, time) => sum + time.ms, 0))} ms (start-up included); share of busy time:`,
);
for (const time of busy.slice(0, top))
  console.log(`${((100 * time.ms) / busyMs).toFixed(1).padStart(5)}%  ${time.name}`);
