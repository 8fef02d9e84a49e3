import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoTenant } from '../src/core/seed.js';
import { freshDatabase } from '../test/helpers/processes.js';
import { sessionInvariants, violations } from './helpers/invariants.js';
import { addMembers, figures, figuresTable, runLoad, signIn } from './helpers/load.js';
import { DedicatedPostgres, dedicatedPostgresUnavailable } from './helpers/postgres.js';
import { VerityProcess, verityEnv } from '../test/helpers/verity-process.js';

// A bounded load run against one `verity serve` on loopback: hosted sessions (created, then
// decided by their location step), age checks, OIDC token refreshes and roster reads, mixed, for
// a fixed time. Proves no answer is a 5xx (or missing) under load, that the sessions written under
// load are whole, and prints throughput and p50/p95/p99 per kind. PostgreSQL: a fresh database
// on TEST_DATABASE_URL's server, else the suite's own server (initdb in a temp dir).

const WORKERS = Number(process.env.RELIABILITY_LOAD_WORKERS ?? 16);
const WARMUP_MS = 3_000;
const DURATION_MS = Number(process.env.RELIABILITY_LOAD_SECONDS ?? 20) * 1000;

const noPostgres = process.env.TEST_DATABASE_URL ? null : dedicatedPostgresUnavailable();
if (noPostgres)
  console.info(`skipping the load run: no TEST_DATABASE_URL and no PostgreSQL of our own (${noPostgres})`);

let server: DedicatedPostgres | undefined;
let database: { url: string; drop: () => Promise<void> };
let verity: VerityProcess;
let demo: DemoTenant;
let refreshTokens: string[];

describe.skipIf(noPostgres)('load', () => {
  beforeAll(async () => {
    if (!process.env.TEST_DATABASE_URL) server = await DedicatedPostgres.create();
    database = await freshDatabase(process.env.TEST_DATABASE_URL ?? server!.url, 'verity_load');
    verity = await VerityProcess.start(verityEnv(database.url));
    demo = await verity.demo();
    await verity.trpc(demo.admin_token, 'topUpWallet', { projectId: demo.project_id, amount: 10_000_000 });
    await addMembers(verity.url, demo, 50);
    // One refresh-token chain per worker: refreshes of one chain never race each other.
    refreshTokens = [];
    for (let i = 0; i < WORKERS; i++) refreshTokens.push(await signIn(verity.url, demo));
  }, 240_000);

  afterAll(async () => {
    await verity?.destroy();
    await database?.drop();
    await server?.destroy();
  });

  it('mixes sessions, age checks, token refreshes and roster reads with no 5xx', async () => {
    const target = { url: () => verity.url, demo, refreshTokens };
    const kinds = ['session.create', 'age', 'refresh', 'roster'] as const;
    const warmup = await runLoad(target, { workers: WORKERS, durationMs: WARMUP_MS, kinds: [...kinds] });
    const outcomes = await runLoad(target, { workers: WORKERS, durationMs: DURATION_MS, kinds: [...kinds] });

    const table = figures(outcomes, DURATION_MS / 1000);
    console.info(
      `\nload: ${WORKERS} workers for ${DURATION_MS / 1000} s against verity serve (PostgreSQL ${server ? 'of the suite' : 'TEST_DATABASE_URL'})\n${figuresTable(table)}\n`,
    );

    const failures = outcomes.filter((outcome) => outcome.status === null || outcome.status >= 500);
    expect(failures.slice(0, 5), `${failures.length} answers were 5xx or missing`).toEqual([]);
    // Everything the load does is valid: each kind ran, and every answer was a success.
    for (const kind of ['session.create', 'session.step', 'age', 'refresh', 'roster'])
      expect(table.find((row) => row.kind === kind)?.requests, kind).toBeGreaterThan(0);
    const refused = outcomes.filter((outcome) => outcome.status! >= 300);
    expect(refused.slice(0, 5).map((outcome) => `${outcome.kind} ${outcome.status} ${outcome.code}`)).toEqual([]);

    const found = await sessionInvariants(database.url);
    expect(violations(found)).toEqual([]);
    // Every session whose step was answered is decided, warm-up included; no other is.
    expect(found.terminal).toBe(
      [...warmup, ...outcomes].filter((outcome) => outcome.kind === 'session.step' && outcome.status === 200).length,
    );
  });
});
