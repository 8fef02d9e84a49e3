import pino from 'pino';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { externalStore } from '../src/core/db/store.js';
import { digestSecret } from '../src/core/secrets.js';
import { buildService, type Service } from '../src/main.js';
import { renderDocument, renderSpecs } from '../test/helpers/documents.js';
import { markerFaceEngine } from '../test/helpers/face-engine.js';
import { authorizePath, interactionOf, PageDriver, pkce } from '../test/helpers/oidc.js';
import { sql, type TestService } from '../test/helpers/service.js';
import { startInProcess, type InProcessService } from './helpers/in-process.js';
import { OidcFlow } from './helpers/oidc-flow.js';

// Races through the real HTTP interface at high concurrency: many identical requests at once, of
// which exactly one may win. On PostgreSQL when TEST_DATABASE_URL is set (CI: real row locks and
// unique indexes under real parallelism), else on the embedded PGlite.

const AT_ONCE = Number(process.env.RACE_CONCURRENCY ?? 30);

let service: InProcessService;
let http: ReturnType<typeof supertest>;
let flow: OidcFlow;
const key = () => ({ 'X-API-Key': service.demo.api_key });

/** Fires `AT_ONCE` copies of a request together and waits for all of them. */
const together = <T>(request: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: AT_ONCE }, (_, i) => request(i)));
const statuses = (responses: { status: number }[]) => responses.map((r) => r.status).sort((a, b) => a - b);
/**
 * The error codes of the answers that failed: the envelope's `error.code`, or the token endpoint's RFC 6749 `error`
 * (form requests).
 */
const codes = (responses: { status: number; body: { error?: { code: string } | string } }[]) =>
  new Set(
    responses
      .filter((r) => r.status !== 200 && r.status !== 201)
      .map((r) => (typeof r.body.error === 'string' ? r.body.error : r.body.error?.code)),
  );

beforeAll(async () => {
  service = await startInProcess(
    { rateLimitPerMinute: 1e9, hostedRateLimitPerMinute: 1e9 },
    { faceEngine: markerFaceEngine() },
  );
  http = supertest(service.url);
  flow = new OidcFlow(service);
}, 120_000);

afterAll(async () => {
  await service?.close();
});

describe(`${AT_ONCE} identical requests at once`, () => {
  it('refreshes of one refresh token: one new token pair, the rest invalid_grant, and the sign-in must start again', async () => {
    const tokens = await flow.tokens();
    const [{ grant_id: grant }] = await sql<{ grant_id: string }>(
      service,
      'select grant_id from refresh_token where token_digest = ?',
      [digestSecret(tokens.refresh_token)],
    );
    const answers = await together(() => flow.refresh(tokens.refresh_token));
    expect(statuses(answers).filter((s) => s === 200)).toHaveLength(1);
    expect(codes(answers)).toEqual(new Set(['invalid_grant']));
    // The sign-in's one row rotated exactly once: it holds the winner's token.
    const winner = answers.find((a) => a.status === 200)!.body;
    const rows = await sql<{ token_digest: string }>(
      service,
      'select token_digest from refresh_token where grant_id = ?',
      [grant],
    );
    expect(rows.map((row) => row.token_digest)).toEqual([digestSecret(winner.refresh_token)]);
    // The losers replayed a rotated token: every token of this user and client is revoked, the winner's too.
    expect((await flow.refresh(winner.refresh_token)).body.error).toBe('invalid_grant');
    expect(await flow.userinfoStatus(winner.access_token)).toBe(401);
  });

  it('exchanges of one authorization code: one token pair, and the replay revokes it', async () => {
    const { code, verifier } = await flow.code();
    const answers = await together(() => flow.exchange(code, verifier));
    expect(statuses(answers).filter((s) => s === 200)).toHaveLength(1);
    expect(codes(answers)).toEqual(new Set(['invalid_grant']));
    const winner = answers.find((a) => a.status === 200)!.body;
    expect(await flow.userinfoStatus(winner.access_token)).toBe(401);
    expect((await flow.refresh(winner.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('review decisions on one IN_REVIEW session, over REST and GraphQL: exactly one decides', async () => {
    // A document read without its machine-readable zone needs a person: the session goes to IN_REVIEW.
    const workflow = await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'review race',
      features: ['id_verification'],
    });
    const created = (await http.post('/api/v2/session').set(key()).send({ workflow_id: workflow.id })).body.data;
    const card = await renderDocument({
      ...renderSpecs(2)[1]!,
      layout: 'TD1',
      rotation: 0,
      skew: 0,
      blur: 0,
      jpegQuality: null,
    });
    const read = await http
      .post('/api/hosted/session/steps/document')
      .set('X-Session-Token', created.session_token)
      .send({ front_image: card.bytes.toString('base64') });
    expect(read.body.data?.status, JSON.stringify(read.body)).toBe('IN_REVIEW');

    const viaGraphql = (status: string) =>
      http
        .post('/graphql')
        .set('Authorization', `Bearer ${service.demo.admin_token}`)
        .send({
          query: 'mutation ($input: ReviewSessionInput!) { reviewSession(input: $input) { status } }',
          variables: {
            input: { projectId: service.demo.project_id, sessionId: created.session_id, status, note: 'race' },
          },
        });
    const answers = await together((i) => {
      const status = i % 2 ? 'DECLINED' : 'APPROVED';
      return i % 3 === 0
        ? viaGraphql(status)
        : http.patch(`/api/v2/session/${created.session_id}/status`).set(key()).send({ status });
    });
    // APPROVED is refused whatever the order (no liveness or face match to approve on); one DECLINED wins.
    const won = answers.filter((a) => (a.status === 200 && !a.body.errors) || a.body.data?.reviewSession);
    expect(won).toHaveLength(1);
    const lost = answers
      .filter((a) => !won.includes(a))
      .map((a) => a.body.error?.code ?? a.body.errors?.[0]?.extensions?.code);
    expect(new Set(lost).size).toBeGreaterThan(0);
    for (const code of lost) expect(['session_closed', 'required_face_checks_incomplete']).toContain(code);
    const moves = await sql<{ to_status: string }>(
      service,
      "select to_status from session_event where session_id = ? and from_status = 'IN_REVIEW'",
      [created.session_id],
    );
    expect(moves).toEqual([{ to_status: 'DECLINED' }]);
    const events = await sql<{ type: string }>(
      service,
      'select type from webhook_event where session_id = ? order by type',
      [created.session_id],
    );
    expect(events.map((e) => e.type)).toEqual(['verification.declined', 'verification.in_review']);
  });

  it('bulk adds of the same address (in any case) on the roster: one member, the rest skipped as duplicates', async () => {
    const email = `race.${Date.now()}@corp.example`;
    const answers = await together((i) =>
      http
        .post('/api/sdk/members')
        .set('X-Client-Id', service.demo.org.client_id)
        .set('X-Client-Secret', service.demo.org.client_secret)
        .send({
          members: [{ email: i % 2 ? email.toUpperCase() : email }, { email: `other.${i}.${email}` }],
          notify: false,
        }),
    );
    expect(statuses(answers).every((s) => s === 201)).toBe(true);
    const created = answers
      .flatMap((a) => a.body.data.created)
      .filter((m: { email: string }) => m.email.toLowerCase() === email);
    expect(created).toHaveLength(1);
    const skipped = answers.flatMap((a) => a.body.data.skipped);
    expect(skipped).toHaveLength(AT_ONCE - 1);
    for (const entry of skipped) expect(entry.reason).toBe('duplicate');
    const rows = await sql(service, 'select id from member where organization_id = ? and lower(email) = ?', [
      service.demo.org.id,
      email,
    ]);
    expect(rows).toHaveLength(1);
  });

  it('retries with one Idempotency-Key: one execution, one charge, one record; the others replay it or wait', async () => {
    const balance = async () =>
      Number(
        (
          await sql<{ balance_minor: string }>(service, 'select balance_minor from wallet where project_id = ?', [
            service.demo.project_id,
          ])
        )[0]!.balance_minor,
      );
    const records = async () =>
      Number(
        (
          await sql<{ n: string }>(
            service,
            "select count(*) as n from check_record where project_id = ? and type = 'location'",
            [service.demo.project_id],
          )
        )[0]!.n,
      );
    const [balanceBefore, recordsBefore] = [await balance(), await records()];
    const body = { latitude: 48.8566, longitude: 2.3522, accuracy: 10 };
    const answers = await together(() =>
      http.post('/api/v2/location').set(key()).set('Idempotency-Key', `race-${balanceBefore}`).send(body),
    );
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((a) => a.body.data.session_id)).size).toBe(1);
    expect(ok.filter((a) => a.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    expect(codes(answers).size === 0 || [...codes(answers)].every((code) => code === 'idempotency_in_progress')).toBe(
      true,
    );
    expect(await records()).toBe(recordsBefore + 1);
    expect(await balance()).toBe(balanceBefore - 2); // location costs 2 cents, charged once
  });

  it('sign-ins with wrong passwords for one account, half of them through a second instance: five are checked, the rest 429, and then the right password waits too', async () => {
    const account = { email: `guessed.${Date.now()}@example.com`, password: 'the right password, at last' };
    await service.core.accounts.createAccount(account);
    // A second instance on the same PostgreSQL (the embedded store is one process: one instance only).
    let second: Service | undefined;
    if (process.env.TEST_DATABASE_URL)
      second = await buildService(
        { ...service.config, seedDemo: false },
        { store: { ...externalStore(service.store.url), close: async () => {} }, logger: pino({ level: 'silent' }) },
      );
    try {
      const browsers = [http, second ? supertest(second.app) : http].map(
        (client) => new PageDriver({ http: client } as unknown as TestService),
      );
      const redirectUri = service.demo.oidc.redirect_uris[0]!;
      const page = await browsers[0]!.get(
        authorizePath({
          client_id: service.demo.oidc.client_id,
          redirect_uri: redirectUri,
          response_type: 'code',
          scope: 'openid',
          state: 'guess',
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        }),
      );
      const interaction = interactionOf(page.text);
      browsers[1]!.csrf = browsers[0]!.csrf;
      const signIn = (i: number, password: string) =>
        browsers[i % 2]!.post('/api/auth/oidc/login', { interaction, email: account.email, password });
      const answers = await together((i) => signIn(i, `guess number ${i}`));
      // Counted before the password is checked, in PostgreSQL: the five failures the account may make before its lock,
      // however the guesses are spread.
      expect(statuses(answers).filter((s) => s === 401)).toHaveLength(5);
      expect(statuses(answers).filter((s) => s === 429)).toHaveLength(AT_ONCE - 5);
      for (const i of [0, 1]) {
        const right = await signIn(i, account.password);
        expect(right.status).toBe(429);
        expect(String(right.headers['set-cookie'] ?? '')).not.toContain('verity_session=');
      }
    } finally {
      await second?.close();
    }
  });

  it('submissions of one hosted-page step: one check recorded, the rest 409 conflict', async () => {
    const workflow = await service.core.tenancy.createWorkflow({
      projectId: service.demo.project_id,
      name: 'step race',
      features: ['location', 'liveness'],
    });
    const created = (await http.post('/api/v2/session').set(key()).send({ workflow_id: workflow.id })).body.data;
    const answers = await together(() =>
      http
        .post('/api/hosted/session/steps/location')
        .set('X-Session-Token', created.session_token)
        .send({ latitude: 1, longitude: 2, accuracy: 5 }),
    );
    expect(statuses(answers).filter((s) => s === 200)).toHaveLength(1);
    expect(codes(answers)).toEqual(new Set(['conflict']));
    const checks = await sql<{ type: string }>(service, 'select type from session_check where session_id = ?', [
      created.session_id,
    ]);
    expect(checks).toEqual([{ type: 'location' }]);
  });
});
