// The rows bench/seed.ts loads (and test/query-plans.test.ts, a few thousand of them): a year of
// a service's history by set-based SQL, in the shapes the service writes. See bench/seed.ts.
import type pg from 'pg';
import type { DemoTenant } from '../src/core/seed.js';
import {
  RECOUNT_SESSION_STATUSES,
  STREAKS_FROM_ATTEMPTS,
} from '../src/core/db/migrations/Migration20261204090000_growth.js';
import { newId, type Sealer } from '../src/core/secrets.js';
import { DESCRIPTOR_DIMENSIONS, FACE_DESCRIPTOR_KIND } from '../src/ml/faces/match.js';

/** How much history: sessions over projects, and the rest beside them. */
export interface GrowthSizes {
  sessions: number;
  projects: number;
  attempts: number;
  accounts: number;
  faces: number;
}
/** The tables bulk-loaded here: their indexes and constraints are rebuilt once, after the load. */
const BULK_TABLES = [
  'verification_session',
  'session_check',
  'session_evidence',
  'webhook_event',
  'webhook_attempt',
  'charge',
  'account',
  'face_enrollment',
];

export type Log = (message: string) => void;

async function step<T>(log: Log, label: string, run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await run();
  log(`${label} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return result;
}

/** Sealed values in the shapes the service writes, a few of each (rows cycle through them). */
function sealedSamples(sealer: Sealer) {
  const seal = (value: unknown) => sealer.seal(JSON.stringify(value));
  const names = [
    ['ANNA', 'MARIA', 'SCHMIDT'],
    ['JOHN', 'PAUL', 'SMITH'],
    ['LEA', 'NOOR', 'HASSAN'],
    ['MATEO', 'LUIS', 'GARCIA'],
  ];
  const checkDetails = names.map(([first, middle, last], i) =>
    seal({
      data: {
        document_type: 'passport',
        issuing_country: ['DEU', 'GBR', 'NLD', 'ESP'][i],
        first_name: `${first} ${middle}`,
        last_name: last,
        date_of_birth: `19${80 + i}-0${i + 1}-1${i}`,
        document_number: `C0${i}X${4000 + i}7`,
        expiry_date: `203${i}-06-30`,
        mrz_checksums_valid: true,
      },
      error: null,
    }),
  );
  const work = names.map(([first, middle, last], i) =>
    seal({
      stepsDone: ['document'],
      portrait: 'x'.repeat(400),
      fullName: `${first} ${middle} ${last}`,
      firstName: `${first} ${middle}`,
      lastName: last,
      dateOfBirth: `19${80 + i}-01-01`,
      country: 'DEU',
    }),
  );
  const identities = names.map(([first, middle, last], i) =>
    seal({
      fullName: `${first} ${middle} ${last}`,
      dateOfBirth: `19${80 + i}-01-01`,
      documentNumber: `C0${i}X${4000 + i}7`,
      documentExpiry: `203${i}-06-30`,
      nationality: 'DEU',
    }),
  );
  // A review image: a small JPEG-sized blob (real ones are tens of KB; the purge does not read them).
  const images = [0, 1, 2].map((i) => sealer.sealBytes(Buffer.alloc(1500, i + 1)));
  return { checkDetails, work, identities, images };
}

/** Index and constraint definitions of a table, to drop before the load and rebuild after it. */
async function setAside(db: pg.Client, table: string): Promise<string[]> {
  const { rows: constraints } = await db.query<{ name: string; def: string; type: string }>(
    `select conname as name, pg_get_constraintdef(oid) as def, contype as type from pg_constraint where conrelid = $1::regclass and contype in ('p', 'u', 'f') order by contype = 'f', conname`,
    [table],
  );
  const { rows: indexes } = await db.query<{ name: string; def: string }>(
    `select i.relname as name, pg_get_indexdef(i.oid) as def from pg_index x join pg_class i on i.oid = x.indexrelid
     where x.indrelid = $1::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.oid)`,
    [table],
  );
  // Foreign keys of other tables that point at this one go too (their target's key is rebuilt).
  const { rows: incoming } = await db.query<{ name: string; def: string; source: string }>(
    `select conname as name, pg_get_constraintdef(oid) as def, conrelid::regclass::text as source from pg_constraint where confrelid = $1::regclass and contype = 'f'`,
    [table],
  );
  for (const fk of incoming) await db.query(`alter table ${fk.source} drop constraint if exists ${fk.name}`);
  for (const c of constraints.filter((c) => c.type === 'f'))
    await db.query(`alter table ${table} drop constraint ${c.name}`);
  for (const c of constraints.filter((c) => c.type !== 'f'))
    await db.query(`alter table ${table} drop constraint ${c.name}`);
  for (const i of indexes) await db.query(`drop index ${i.name}`);
  return [
    ...constraints.filter((c) => c.type !== 'f').map((c) => `alter table ${table} add constraint ${c.name} ${c.def}`),
    ...indexes.map((i) => i.def),
    ...constraints.filter((c) => c.type === 'f').map((c) => `alter table ${table} add constraint ${c.name} ${c.def}`),
    ...incoming.map((fk) => `alter table ${fk.source} add constraint ${fk.name} ${fk.def}`),
  ];
}

/**
 * A project-like row for each of `count` new ids, copied from the demo's with overrides (jsonb keys are column names).
 */
const cloneSql = (table: string, where: string, overrides: string) =>
  `insert into ${table} select (jsonb_populate_record(null::${table}, to_jsonb(d) || ${overrides})).* from ${table} d cross join generate_series(1, $1::int - 1) as i where ${where}`;

async function seedTenants(
  db: pg.Client,
  projects: number,
  demoProjectId: string,
): Promise<{ projectIds: string[]; workflowIds: string[] }> {
  // Projects 2..n: the demo's settings (sealed webhook secrets included), their own ids and callback.
  await db.query(
    cloneSql(
      'project',
      'd.id = $2',
      `jsonb_build_object('id', 'prj_' || substr(md5('prj' || i), 1, 24), 'name', 'Tenant ' || i, 'is_demo', false, 'default_callback_url', 'https://hooks.tenant' || i || '.example.com/verity', 'created_at', now() - interval '400 days')`,
    ),
    [projects, demoProjectId],
  );
  await db.query(`update project set default_callback_url = 'https://hooks.demo.example.com/verity' where id = $1`, [
    demoProjectId,
  ]);
  const { rows } = await db.query<{ id: string }>(`select id from project order by is_demo desc, id`);
  const projectIds = rows.map((row) => row.id);
  // Each project's live callback destination (the demo gets one like the others).
  await db.query(
    `insert into callback_destination (id, project_id, url, active, created_at, mode)
     select 'cbd_' || substr(md5(p.id), 1, 24), p.id, p.default_callback_url, true, p.created_at, 'live' from project p
     where not exists (select 1 from callback_destination c where c.project_id = p.id and c.url = p.default_callback_url)`,
  );
  // One KYC workflow per project: the demo keeps its own (the first of its workflows by name).
  await db.query(
    `insert into workflow (id, project_id, name, features, created_at, max_step_tries)
     select 'wf_' || substr(md5('wf' || p.id), 1, 24), p.id, 'kyc', '{id_verification,liveness,face_match}', p.created_at, 3 from project p where p.id <> $1`,
    [demoProjectId],
  );
  const { rows: workflows } = await db.query<{ project_id: string; id: string }>(
    `select distinct on (project_id) project_id, id from workflow where name = 'kyc' order by project_id, created_at`,
  );
  const workflowOf = new Map(workflows.map((w) => [w.project_id, w.id]));
  return { projectIds, workflowIds: projectIds.map((id) => workflowOf.get(id)!) };
}

async function seedAccounts(db: pg.Client, accounts: number, demoSvcId: string, identities: string[]) {
  // The demo account's password hash (an scrypt hash as sign-up writes it) for every account.
  await db.query(
    `insert into account (id, email, password_hash, display_name, created_at, identity_sealed, id_verified, human_verified, identity_verified_at, email_verified_at)
     select 'svc_' || substr(md5('svc' || i), 1, 24), 'person' || i || '@mail.example', d.password_hash, 'Person ' || i, c.at,
       case when i % 3 = 0 then ($3::text[])[1 + i % 4] end, i % 3 = 0, case when i % 3 = 0 then true end,
       case when i % 3 = 0 then c.at + interval '1 day' end, c.at + interval '10 minutes'
     from account d cross join generate_series(1, $2::int) as i
     cross join lateral (select now() - (i % 365) * interval '1 day' - (i % 86400) * interval '1 second' as at) c
     where d.id = $1`,
    [demoSvcId, accounts, identities],
  );
}

/** Sessions `from`..`to` (1-based); project and time come from the number, the status from the time. */
async function seedSessions(
  db: pg.Client,
  from: number,
  to: number,
  accounts: number,
  tenants: { projectIds: string[]; workflowIds: string[] },
  work: string[],
) {
  await db.query(
    `insert into verification_session (id, project_id, workflow_id, status, features, token_digest, redirect_url, callback, vendor_data, livemode, metadata, svc_id, work_sealed,
       decision, decided_at, decided_by, started_at, data_erased_at, expires_at, created_at, updated_at)
     select 'ses_' || substr(md5('ses' || i), 1, 24), ($3::text[])[h.project], ($4::text[])[h.project], s.status, '{id_verification,liveness,face_match}',
       encode(sha256(convert_to('tok' || i, 'UTF8')), 'hex'), case when i % 2 = 0 then 'https://app.example.com/verified' end, null,
       'user-' || (i / 3) % 1000000, h.live, null,
       case when i % 10 = 0 and $6::int > 0 then 'svc_' || substr(md5('svc' || (1 + (i / 10) % $6::int)), 1, 24) end,
       case when s.status = 'IN_PROGRESS' then ($7::text[])[1 + i % 4] end,
       case when s.final then s.status end, case when s.final then d.at end,
       case when not s.final then null when s.status in ('APPROVED', 'DECLINED') and i % 20 = 1 then 'review:adm_' || substr(md5('adm'), 1, 24) else 'system' end,
       case when s.status not in ('NOT_STARTED', 'EXPIRED') then c.at + (5 + i % 120) * interval '1 second' end,
       case when s.final and i % 500 = 0 then c.at + interval '2 days' end,
       c.at + interval '1 hour', c.at,
       case when s.final then d.at when s.status <> 'NOT_STARTED' then c.at + (5 + i % 120) * interval '1 second' else c.at end
     from generate_series($1::int, $2::int) as i
     -- the project and mode drawn from a hash: no project's sessions share a remainder of i
     cross join lateral (select 1 + abs(hashtext('p' || i)) % $5 as project, abs(hashtext('m' || i)) % 20 <> 0 as live) h
     -- created over the last year; about one in 5,000 in the last hour (still open)
     cross join lateral (select now() - case when i % 5000 = 7 then (i % 3600) * interval '1 second' else interval '1 hour' + ((i::bigint * 7919) % 31536000) * interval '1 second' end as at) c
     cross join lateral (
       select st as status, st in ('APPROVED', 'DECLINED', 'EXPIRED', 'ABANDONED') as final from (select
         case
           when c.at > now() - interval '1 hour' then (array['NOT_STARTED', 'IN_PROGRESS', 'IN_PROGRESS', 'APPROVED'])[1 + (i / 5000) % 4]
           -- reviewers clear the queue within days; a few cases wait longer
           when c.at > now() - interval '3 days' and i % 16 = 3 then 'IN_REVIEW'
           when i % 2000 = 11 then 'IN_REVIEW'
           else (array['APPROVED', 'APPROVED', 'APPROVED', 'APPROVED', 'APPROVED', 'APPROVED', 'DECLINED', 'DECLINED', 'EXPIRED', 'ABANDONED'])[1 + (i / 7) % 10]
         end as st) x
     ) s
     cross join lateral (select least(now(), c.at + (30 + i % 7200) * interval '1 second') as at) d`,
    [from, to, tenants.projectIds, tenants.workflowIds, tenants.projectIds.length, accounts, work],
  );
}

async function seedChecks(db: pg.Client, details: string[]) {
  // One recorded check a started session: the document's (its verdict follows the session's end).
  await db.query(
    `insert into session_check (session_id, type, status, score, detail_sealed, reason, created_at)
     select s.id, 'id_verification', v.status, v.score, ($1::text[])[1 + abs(hashtext(s.id)) % 4], v.reason, s.started_at + interval '20 seconds'
     from verification_session s
     cross join lateral (select case when s.status = 'DECLINED' then 'failed' when s.status = 'IN_REVIEW' then 'review' else 'passed' end as status) r
     cross join lateral (select r.status, case r.status when 'passed' then 0.97 when 'review' then 0.71 else 0.32 end as score,
       case r.status when 'failed' then (array['document_expired', 'mrz_checksum', 'spoof', 'face_mismatch'])[1 + abs(hashtext(s.id)) % 4] when 'review' then 'low_confidence' end as reason) v
     where s.started_at is not null`,
    [details],
  );
}

async function seedEvidence(db: pg.Client, images: Buffer[]) {
  // A selfie kept for review: sessions under review, and those decided in the last 40 days (the
  // last 10 days past a 30-day retention are the purge's backlog).
  // purge_after is set here as the keep trigger would, set-based (it looks the session up row by row).
  await db.query('alter table session_evidence disable trigger session_evidence_purge_after_on_keep');
  await db.query(
    `insert into session_evidence (session_id, kind, sealed, attempt, created_at, purge_after)
     select s.id, 'selfie', ($1::bytea[])[1 + abs(hashtext(s.id)) % 3], 1, s.started_at + interval '30 seconds',
       s.decided_at + make_interval(days => p.evidence_retention_days)
     from verification_session s join project p on p.id = s.project_id
     where s.started_at is not null and s.data_erased_at is null and (s.status = 'IN_REVIEW' or s.decided_at > now() - interval '40 days')`,
    [images],
  );
  await db.query('alter table session_evidence enable trigger session_evidence_purge_after_on_keep');
}

async function seedWebhooks(db: pg.Client, attempts: number) {
  const announced = "s.status in ('APPROVED', 'DECLINED', 'IN_REVIEW', 'EXPIRED', 'ABANDONED')";
  const { rows } = await db.query<{ n: string }>(`select count(*) as n from verification_session s where ${announced}`);
  // Attempts per event spread evenly over 1 .. 2k - 1 (k the mean that gives --attempts); the last
  // one is the 2xx of a delivered event, the others failed (timeouts, 5xx), minutes apart.
  const spread = Math.max(1, Math.round((2 * attempts) / Math.max(1, Number(rows[0]!.n))) - 1);
  // One event a session that reached a state announced to the integrator, to its project's callback.
  await db.query(
    `insert into webhook_event (id, project_id, session_id, type, body, url, state, attempts, next_attempt_at, lease_until, delivered_at, created_at, livemode)
     select 'evt_' || substr(md5('evt' || s.id), 1, 24), s.project_id, s.id, 'verification.' || lower(s.status),
       json_build_object('event_id', 'evt_' || substr(md5('evt' || s.id), 1, 24), 'type', 'verification.' || lower(s.status), 'session_id', s.id, 'status', s.status,
         'vendor_data', s.vendor_data, 'decision', lower(s.status), 'occurred_at', to_char(e.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'livemode', s.livemode)::text,
       p.default_callback_url, e.state, case when e.state = 'pending' then 1 else 1 + abs(hashtext('a' || s.id)) % $1::int end,
       e.at, null, case when e.state = 'delivered' then e.at + interval '1 second' end, e.at, s.livemode
     from verification_session s join project p on p.id = s.project_id
     cross join lateral (select coalesce(s.decided_at, s.updated_at) as at) t
     cross join lateral (select t.at, case when abs(hashtext(s.id)) % 50 = 0 then 'failed' when t.at > now() - interval '10 minutes' and abs(hashtext(s.id)) % 4 = 0 then 'pending' else 'delivered' end as state) e
     where ${announced}`,
    [spread],
  );
  await db.query(
    `insert into webhook_attempt (id, event_id, attempt, at, http_status, latency_ms, error, response_snippet)
     select 'wat_' || substr(md5(e.id || n), 1, 24), e.id, n, e.created_at + (n - 1) * (n - 1) * interval '30 seconds',
       case when last then 200 when n % 3 = 0 then null else 503 end,
       case when n % 3 = 0 and not last then 10000 else 40 + abs(hashtext(e.id)) % 400 end,
       case when n % 3 = 0 and not last then 'timeout after 10000 ms' end,
       case when last then '{"ok":true}' when n % 3 <> 0 then 'Service Unavailable' end
     from webhook_event e
     cross join lateral generate_series(1, e.attempts) as n
     cross join lateral (select e.state = 'delivered' and n = e.attempts as last) k`,
  );
}

/** Synthetic unit descriptors of the real dimension, sealed as enrolment seals them, in batches. */
async function seedFaces(db: pg.Client, faces: number, projectId: string, sealer: Sealer) {
  const batch = 5000;
  for (let done = 0; done < faces; done += batch) {
    const n = Math.min(batch, faces - done);
    const ids: string[] = [];
    const sealed: string[] = [];
    for (let i = 0; i < n; i++) {
      const v = new Float32Array(DESCRIPTOR_DIMENSIONS);
      let norm = 0;
      for (let d = 0; d < v.length; d++) {
        // Sum of uniforms: near-normal, cheap.
        const x = Math.random() + Math.random() + Math.random() - 1.5;
        v[d] = x;
        norm += x * x;
      }
      for (let d = 0; d < v.length; d++) v[d]! /= Math.sqrt(norm);
      ids.push(newId('fce'));
      sealed.push(sealer.seal(Buffer.from(v.buffer).toString('base64')));
    }
    await db.query(
      `insert into face_enrollment (id, project_id, purpose, livemode, reference, descriptor_sealed, descriptor_kind, created_at)
       select f.id, $1, 'uniqueness', true, 'user-' || ($4::int + f.n), f.sealed, $5, now() - ($4::int + f.n) % 365 * interval '1 day'
       from unnest($2::text[], $3::text[]) with ordinality as f(id, sealed, n)`,
      [projectId, ids, sealed, done, FACE_DESCRIPTOR_KIND],
    );
  }
}

/** What each live session cost its project, as billing records it (paid for by the session). */
async function seedCharges(db: pg.Client) {
  await db.query(
    `insert into charge (id, project_id, item, check_id, amount_minor, currency, refunded, created_at, lease_id)
     select 'chg_' || substr(md5('chg' || s.id), 1, 24), s.project_id, 'session', s.id, 150, 'USD', s.status = 'EXPIRED' and abs(hashtext(s.id)) % 10 = 0, s.created_at, null
     from verification_session s where s.livemode`,
  );
}

/** Everything after the service's first start on the database (its demo tenant is project one). */
export async function seedHistory(
  db: pg.Client,
  sizes: GrowthSizes,
  demo: DemoTenant,
  sealer: Sealer,
  log: Log,
): Promise<void> {
  const samples = sealedSamples(sealer);
  // A bulk load: nothing here needs to survive a crash of the server mid-way.
  await db.query(
    `set synchronous_commit = off; set maintenance_work_mem = '1GB'; set work_mem = '256MB'; select setseed(0.42)`,
  );
  const tenants = await step(log, `${sizes.projects} projects with a workflow and callback each`, () =>
    seedTenants(db, sizes.projects, demo.project_id),
  );
  const rebuild: string[] = [];
  for (const table of BULK_TABLES) rebuild.push(...(await setAside(db, table)));
  // The status counts are taken once after the load, not row by row.
  await db.query('alter table verification_session disable trigger session_status_count_row');
  await step(log, `${sizes.accounts} accounts`, () =>
    seedAccounts(db, sizes.accounts, demo.account.svc_id, samples.identities),
  );
  const chunk = 1_000_000;
  for (let from = 1; from <= sizes.sessions; from += chunk) {
    const to = Math.min(sizes.sessions, from + chunk - 1);
    await step(log, `sessions ${from}..${to}`, () => seedSessions(db, from, to, sizes.accounts, tenants, samples.work));
  }
  await db.query('alter table verification_session enable trigger session_status_count_row');
  await db.query(RECOUNT_SESSION_STATUSES);
  await step(log, 'session checks', () => seedChecks(db, samples.checkDetails));
  await step(log, 'charges', () => seedCharges(db));
  await step(log, 'review images', () => seedEvidence(db, samples.images));
  await step(log, 'webhook events and attempts', () => seedWebhooks(db, sizes.attempts));
  await db.query(STREAKS_FROM_ATTEMPTS);
  await step(log, `${sizes.faces} enrolled faces`, () => seedFaces(db, sizes.faces, demo.project_id, sealer));
  await step(log, `indexes and constraints rebuilt (${rebuild.length})`, async () => {
    for (const statement of rebuild) await db.query(statement);
  });
  // Sequences behind bigserial ids continue after the loaded rows.
  for (const table of ['session_check', 'session_evidence'])
    await db.query(`select setval(pg_get_serial_sequence('${table}', 'id'), coalesce(max(id), 1)) from ${table}`);
  await step(log, 'vacuum analyze', () => db.query('vacuum analyze'));
}

/** Charges for a database seeded before they were (bench/seed.ts --only charges). */
export async function addCharges(db: pg.Client, log: Log): Promise<void> {
  await db.query(`set synchronous_commit = off; set maintenance_work_mem = '1GB'`);
  const rebuild = await setAside(db, 'charge');
  await step(log, 'charges', () => seedCharges(db));
  await step(log, 'charge indexes rebuilt', async () => {
    for (const statement of rebuild) await db.query(statement);
  });
  await db.query('vacuum analyze charge');
}
