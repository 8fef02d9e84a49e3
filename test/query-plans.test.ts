import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESCRIPTOR_DIMENSIONS } from '../src/ml/faces/match.js';
import { QUERIES } from '../web/console/queries.js';
import { seedHistory } from '../bench/growth-data.js';
import { startTestService, type TestService } from './helpers/service.js';

// The statements behind what must stay fast as the history grows (docs/growth.md), taken from the
// service while it answers (every statement its connections send is recorded), then explained on
// a few thousand rows of seeded history with sequential scans off: a big table that is read by
// a sequential scan, or by an index scan with no condition on the index's first column (the whole
// index, in order or filtered as it goes), has no index that fits the statement. PostgreSQL only (EXPLAIN of the
// server's planner).

/** Tables that grow with the history: each read of them must seek an index. */
const GROWING = [
  'verification_session',
  'session_check',
  'session_evidence',
  'webhook_event',
  'webhook_attempt',
  'charge',
  'face_enrollment',
  'account',
];
const mentionsGrowing = new RegExp(`\\b(${GROWING.join('|')})\\b`);

interface Statement {
  text: string;
  values: unknown[];
}

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
};

/** Every statement the service's connections send while `run` runs. */
async function statementsOf(run: () => Promise<unknown>): Promise<Statement[]> {
  const seen: Statement[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, values?: unknown, ...rest: unknown[]) {
    const text = typeof config === 'string' ? config : (config as { text?: string } | null)?.text;
    const bound = typeof config === 'string' ? values : ((config as { values?: unknown[] }).values ?? values);
    if (text) seen.push({ text, values: Array.isArray(bound) ? bound : [] });
    return (original as (...args: unknown[]) => unknown).call(this, config, values, ...rest);
  } as typeof original;
  try {
    await run();
  } finally {
    pg.Client.prototype.query = original;
  }
  return seen.filter(
    (statement) =>
      /^\s*(select|with|insert|update|delete)\b/i.test(statement.text) && mentionsGrowing.test(statement.text),
  );
}

/**
 * Scans of growing tables that read all of it: sequential, or an index walked without a
 * condition on its first column (the whole index, in order or filtered as it goes).
 */
function fullScans(
  node: PlanNode,
  indexes: Map<string, { table: string; first: string }>,
  found: string[] = [],
): string[] {
  if (node['Relation Name'] && GROWING.includes(node['Relation Name']) && node['Node Type'] === 'Seq Scan')
    found.push(`Seq Scan on ${node['Relation Name']}`);
  // Bitmap index scans name no table: the index says which.
  const index = indexes.get(node['Index Name'] ?? '');
  if (index && !new RegExp(`\\b${index.first}\\b`).test(node['Index Cond'] ?? '')) {
    found.push(
      `${node['Node Type']} on ${index.table} using ${node['Index Name']} without a condition on ${index.first}`,
    );
  }
  for (const child of node.Plans ?? []) fullScans(child, indexes, found);
  return found;
}

describe.runIf(process.env.TEST_DATABASE_URL)('query plans of what must stay flat as the history grows', () => {
  let service: TestService;
  let db: pg.Client;

  beforeAll(async () => {
    service = await startTestService();
    db = new pg.Client({ connectionString: service.store.url });
    await db.connect();
    // Sizes where the planner's statistics say "many rows" (seedHistory ends with ANALYZE).
    await seedHistory(
      db,
      { sessions: 6000, projects: 20, attempts: 18_000, accounts: 600, faces: 300 },
      service.demo,
      service.core.sealer,
      () => {},
    );
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await service?.close();
  });

  /** The full scans of growing tables in the plans of every statement `run` sends; fails when it sends none. */
  async function fullScansOf(run: () => Promise<unknown>): Promise<string[]> {
    const statements = await statementsOf(run);
    expect(statements.length).toBeGreaterThan(0);
    const found: string[] = [];
    const { rows } = await db.query<{ index: string; table: string; first: string }>(
      `select i.relname as index, x.indrelid::regclass::text as table, a.attname as first from pg_index x join pg_class i on i.oid = x.indexrelid
       join pg_attribute a on a.attrelid = x.indrelid and a.attnum = x.indkey[0] where x.indrelid::regclass::text = any($1)`,
      [GROWING],
    );
    const indexes = new Map(rows.map((row) => [row.index, row]));
    await db.query('set enable_seqscan = off');
    try {
      for (const statement of statements) {
        const plan = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
          text: `explain (format json) ${statement.text}`,
          values: statement.values,
        });
        for (const scan of fullScans(plan.rows[0]!['QUERY PLAN'][0].Plan, indexes))
          found.push(`${scan}: ${statement.text.replace(/\s+/g, ' ').slice(0, 160)}`);
      }
    } finally {
      await db.query('reset enable_seqscan');
    }
    return found;
  }

  const api = () => ({ Authorization: `Bearer ${service.demo.api_key}` });
  const graphql = async (query: string, variables: Record<string, unknown>) => {
    const response = await service.http
      .post('/graphql')
      .set({ Authorization: `Bearer ${service.demo.admin_token}` })
      .send({ query, variables });
    expect(response.body.errors).toBeUndefined();
  };
  const liveSession = async (order: 'asc' | 'desc') =>
    (
      await db.query<{ id: string; created_at: Date }>(
        `select id, created_at from verification_session where project_id = $1 and livemode order by created_at ${order} limit 1`,
        [service.demo.project_id],
      )
    ).rows[0]!;

  it('GET /api/v2/session/{id}', async () => {
    const { id } = await liveSession('desc');
    expect(
      await fullScansOf(async () =>
        expect((await service.http.get(`/api/v2/session/${id}`).set(api())).status).toBe(200),
      ),
    ).toEqual([]);
  });

  it('the session list with a cursor deep in the history', async () => {
    const oldest = await liveSession('asc');
    const cursor = Buffer.from(
      `${new Date(oldest.created_at.getTime() + 86_400_000).toISOString()}|${oldest.id}`,
    ).toString('base64url');
    expect(
      await fullScansOf(async () =>
        expect((await service.http.get(`/api/v2/session?limit=20&cursor=${cursor}`).set(api())).status).toBe(200),
      ),
    ).toEqual([]);
  });

  it("the console's review queue and dashboard (webhook health of the project included)", async () => {
    expect(await fullScansOf(() => graphql(QUERIES.reviewQueue, { p: service.demo.project_id }))).toEqual([]);
    expect(await fullScansOf(() => graphql(QUERIES.dashboard, { p: service.demo.project_id }))).toEqual([]);
  });

  it('the /metrics scrape (session counts, every destination’s health)', async () => {
    expect(await fullScansOf(async () => expect((await service.http.get('/metrics')).status).toBe(200))).toEqual([]);
  });

  it('the minute sweep, and the evidence purge in it', async () => {
    expect(await fullScansOf(() => service.core.sweep())).toEqual([]);
    expect(await fullScansOf(() => service.core.sessions.purgeEvidence())).toEqual([]);
  });

  it('a face uniqueness search of the register', async () => {
    const probe = Float32Array.from({ length: DESCRIPTOR_DIMENSIONS }, (_, i) => Math.sin(i));
    expect(
      await fullScansOf(() =>
        service.core.faceIndex.search(
          { projectId: service.demo.project_id, purpose: 'uniqueness', livemode: true },
          probe,
        ),
      ),
    ).toEqual([]);
  });
});
