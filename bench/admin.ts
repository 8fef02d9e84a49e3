// The ops API and console on a large project, against a built `verity serve` on PostgreSQL:
//   1. 100,000 sessions (BENCH_SESSIONS) over the last 30 days are bulk-inserted with SQL into the
//      demo project, with their checks, webhook events and attempts (a fresh database);
//   2. p50/p95 through GraphQL over HTTP of the first page of sessions (unfiltered, by status, by
//      workflow and status, by vendor_data) and of each aggregate (BENCH_REPEATS each);
//   3. the console's first load in Chromium: from navigation (signed in) to the dashboard's charts.
//   npm run bench:admin     (BENCH_DATABASE_URL, default the machine's loopback PostgreSQL)
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { chromiumAvailable, launchChromium } from '../test/helpers/browser.js';
import { freePort, freshDatabase, percentile, startBuiltVerity, stopProcess } from '../test/helpers/processes.js';
import { summary, timeCalls } from './summary.js';

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const sessions = Number(process.env.BENCH_SESSIONS ?? 100_000);
const repeats = Number(process.env.BENCH_REPEATS ?? 40);

const database = await freshDatabase(serverUrl, 'verity_bench_admin');
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'verity-bench-admin-'));
const port = await freePort();
const instance = await startBuiltVerity({
  VERITY_DATA_DIR: dataDir,
  PORT: String(port),
  DATABASE_URL: database.url,
  LOG_LEVEL: 'warn',
  VERITY_WARM_MODELS: '0',
  VERITY_SEED_LICENSES: '0',
});

/** Bulk data: sessions spread over 30 days, 4 workflows, a realistic mix of outcomes, checks and webhooks. */
async function seed(projectId: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const started = Date.now();
    const workflows = ['bench_wf_a', 'bench_wf_b', 'bench_wf_c', 'bench_wf_d'];
    await client.query(
      `insert into workflow (id, project_id, name, features, created_at) select unnest($1::text[]), $2, unnest($1::text[]), '{liveness,location}', now() - interval '31 days'`,
      [workflows, projectId],
    );
    await client.query(
      `
      insert into verification_session (id, project_id, workflow_id, status, features, token_digest, vendor_data, svc_id, decision, decided_at, decided_by, started_at, expires_at, created_at, updated_at)
      select 'ses_bench_' || i, $1, ($2::text[])[1 + i % 4], s.status, '{liveness,location}', md5('t' || i) || md5('u' || i), 'user-' || (i % 20000), null,
        case when s.status in ('APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED') then s.status end,
        case when s.status in ('APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED') then c.at + (30 + (i % 600)) * interval '1 second' end,
        case when s.status in ('APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED') then 'system' end,
        c.at + interval '5 seconds', c.at + interval '1 hour', c.at, c.at
      from generate_series(1, $3) as i
      cross join lateral (select now() - (random() * 30) * interval '1 day' as at) c
      cross join lateral (select (array['APPROVED','APPROVED','APPROVED','APPROVED','APPROVED','DECLINED','DECLINED','IN_REVIEW','EXPIRED','ABANDONED','IN_PROGRESS','NOT_STARTED'])[1 + (i * 7) % 12] as status) s`,
      [projectId, workflows, sessions],
    );
    // Checks: liveness for every started session, location for finished ones; failures carry reasons.
    await client.query(
      `
      insert into session_check (session_id, type, status, score, detail_sealed, reason, created_at)
      select id, 'liveness', case when status = 'DECLINED' and right(id, 1) < '5' then 'failed' else 'passed' end, null, 'sealed', case when status = 'DECLINED' and right(id, 1) < '5' then 'spoof' end, created_at + interval '10 seconds'
      from verification_session where project_id = $1 and status <> 'NOT_STARTED'`,
      [projectId],
    );
    await client.query(
      `
      insert into session_check (session_id, type, status, score, detail_sealed, reason, created_at)
      select id, 'location', case when status = 'DECLINED' and right(id, 1) >= '5' then 'failed' when status = 'IN_REVIEW' then 'review' else 'passed' end, null, 'sealed',
        case when status = 'DECLINED' and right(id, 1) >= '5' then 'outside_geofence' when status = 'IN_REVIEW' then 'low_accuracy' end, created_at + interval '20 seconds'
      from verification_session where project_id = $1 and status in ('APPROVED', 'DECLINED', 'IN_REVIEW')`,
      [projectId],
    );
    await client.query(
      `
      insert into webhook_event (id, project_id, session_id, type, body, url, state, attempts, next_attempt_at, delivered_at, created_at)
      select 'evt_' || id, project_id, id, 'verification.' || lower(status), '{}', 'https://hooks.example.com/verity',
        (array['delivered','delivered','delivered','delivered','delivered','delivered','delivered','delivered','failed','pending'])[1 + abs(hashtext(id)) % 10], 1, decided_at, decided_at, decided_at
      from verification_session where project_id = $1 and decided_at is not null`,
      [projectId],
    );
    await client.query(
      `
      insert into webhook_attempt (id, event_id, attempt, at, http_status, latency_ms, error)
      select 'wat_' || id, id, 1, created_at, case when state = 'delivered' then 200 else 503 end, 40 + abs(hashtext(id)) % 200, null from webhook_event where project_id = $1`,
      [projectId],
    );
    await client.query(
      `
      insert into check_record (id, project_id, type, status, mode, reason, duration_ms, created_at)
      select 'chk_bench_' || i, $1, 'location', case when i % 4 = 0 then 'failed' else 'passed' end, 'fresh', case when i % 4 = 0 then 'permission_denied' end, 5, now() - (random() * 30) * interval '1 day'
      from generate_series(1, $2 / 10) as i`,
      [projectId, sessions],
    );
    await client.query('vacuum analyze');
    console.log(
      `seeded ${sessions} sessions (with checks, webhook events and attempts) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return workflows;
  } finally {
    await client.end();
  }
}

const time = (label: string, run: () => Promise<void>) => timeCalls(label, run, { repeats });

try {
  const demo = JSON.parse(await readFile(path.join(dataDir, 'demo.json'), 'utf8')) as {
    project_id: string;
    admin_token: string;
  };
  const workflows = await seed(demo.project_id);
  const gql = async (query: string, variables: Record<string, unknown>) => {
    const response = await fetch(`${instance.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${demo.admin_token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { errors?: unknown[] };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
  };
  const p = demo.project_id;
  const page = `query($p: String!, $f: SessionFilterInput) { sessions(projectId: $p, filter: $f, first: 25) { edges { cursor node { id status vendorData createdAt workflow { name } } } pageInfo { hasNextPage endCursor } } }`;
  const results = [
    await time('sessions, first page (no filter)', () => gql(page, { p })),
    await time('sessions, first page (status=IN_REVIEW)', () => gql(page, { p, f: { status: 'IN_REVIEW' } })),
    await time('sessions, first page (workflow + status)', () =>
      gql(page, { p, f: { workflowId: workflows[1], status: 'DECLINED' } }),
    ),
    await time('sessions, first page (vendor_data)', () => gql(page, { p, f: { vendorData: 'user-4242' } })),
    await time('sessions, first page (created in one day)', () =>
      gql(page, {
        p,
        f: {
          createdFrom: new Date(Date.now() - 10 * 86_400_000).toISOString(),
          createdTo: new Date(Date.now() - 9 * 86_400_000).toISOString(),
        },
      }),
    ),
    await time('review queue, first page', () =>
      gql(
        `query($p: String!) { reviewQueue(projectId: $p, first: 25) { edges { node { id createdAt checks { type status reason } } } } }`,
        { p },
      ),
    ),
  ];
  const aggregates = [
    ['sessionsPerDay', 'day status count'],
    ['approvalRates', 'workflowId approvalRate'],
    ['timeToDecision', 'medianSeconds p90Seconds'],
    ['checkFailureReasons', 'type reason count'],
    ['webhookStats', 'successRate backlog attemptSuccessRate'],
  ] as const;
  for (const [name, fields] of aggregates)
    results.push(
      await time(`aggregate ${name} (30 days)`, () =>
        gql(`query($p: String!) { ${name}(projectId: $p) { ${fields} } }`, { p }),
      ),
    );

  // 3. The console's first load: a fresh browser context, signed in, until the dashboard charts show.
  let loads: number[] = [];
  if (chromiumAvailable) {
    const browser = await launchChromium();
    try {
      for (let i = 0; i < 6; i++) {
        const context = await browser.newContext();
        await context.addInitScript(
          `sessionStorage.setItem('verity-admin-token', ${JSON.stringify(demo.admin_token)})`,
        );
        const tab = await context.newPage();
        const started = performance.now();
        await tab.goto(`${instance.url}/admin#/dashboard`);
        await tab.getByRole('img', { name: 'Sessions per day by status' }).waitFor();
        await tab.getByText('Check failure reasons').waitFor();
        loads.push(performance.now() - started);
        await context.close();
      }
    } finally {
      await browser.close();
    }
    loads = loads.slice(1).sort((a, b) => a - b);
    console.log(
      `console first load (dashboard with charts)     p50 ${percentile(loads, 50).toFixed(0)} ms   max ${loads.at(-1)!.toFixed(0)} ms (${loads.length} cold contexts)`,
    );
  }
  summary(
    ...results.map((r) => ({ area: 'admin', what: `${r.label} p50`, verity: Math.round(r.p50 * 10) / 10, unit: 'ms' })),
    ...results.map((r) => ({ area: 'admin', what: `${r.label} p95`, verity: Math.round(r.p95 * 10) / 10, unit: 'ms' })),
    ...(loads.length
      ? [
          {
            area: 'admin',
            what: 'console first load (dashboard) p50',
            verity: Math.round(percentile(loads, 50)),
            unit: 'ms',
          },
        ]
      : []),
  );
} finally {
  await stopProcess(instance.child);
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
}
