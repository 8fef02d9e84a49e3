import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { digestSecret } from '../src/core/secrets.js';
import { HANDOFF_TTL_MS } from '../src/core/sessions/service.js';
import { sql, startTestService, type TestService } from './helpers/service.js';

// "Continue on your phone" over HTTP: the hosted page asks for a one-time link, a phone claims it
// once for a session token of its own; used, expired and unknown links are refused.

let service: TestService;
const clock = new ManualClock(new Date('2026-11-27T10:00:00Z'));

const hosted = (token: string | undefined, path: string, body?: object) => {
  const request =
    body === undefined ? service.http.get(`/api/hosted${path}`) : service.http.post(`/api/hosted${path}`).send(body);
  return token === undefined ? request : request.set('X-Session-Token', token);
};

async function openSession(): Promise<{ session_id: string; session_token: string }> {
  const workflow = await service.core.tenancy.createWorkflow({
    projectId: service.demo.project_id,
    name: 'location',
    features: ['location'],
  });
  const response = await service.http
    .post('/api/v2/session')
    .set('X-API-Key', service.demo.api_key)
    .send({ workflow_id: workflow.id });
  expect(response.status).toBe(201);
  return response.body.data;
}

/** The link's code, from the fragment of the URL the page shows as a QR code. */
async function handoffCode(token: string): Promise<string> {
  const response = await hosted(token, '/session/handoff', {});
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return new URL(response.body.data.url).hash.slice(1);
}

beforeAll(async () => {
  service = await startTestService({}, { clock });
}, 120_000);
afterAll(async () => {
  await service?.close();
});

describe('continue on your phone', () => {
  it('the link opens the same session on the phone with its own token, and works once; only digests are stored', async () => {
    const session = await openSession();
    const response = await hosted(session.session_token, '/session/handoff', {});
    expect(response.body.data.url).toMatch(new RegExp(`/verify/${session.session_id}#shl_`));
    expect(Date.parse(response.body.data.expires_at) - clock.now().getTime()).toBe(HANDOFF_TTL_MS);
    const code = new URL(response.body.data.url).hash.slice(1);

    const claimed = await hosted(code, '/handoff/claim', {});
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body.data.session_id).toBe(session.session_id);
    const phoneToken = claimed.body.data.session_token as string;
    expect(phoneToken).not.toBe(session.session_token);
    // The phone moves the session; the laptop's token still reads it.
    expect((await hosted(phoneToken, '/session/start', {})).body.data.status).toBe('IN_PROGRESS');
    expect((await hosted(session.session_token, '/session')).body.data.status).toBe('IN_PROGRESS');

    const again = await hosted(code, '/handoff/claim', {});
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('invalid_token');
    // The code is not a session token either.
    expect((await hosted(code, '/session')).status).toBe(401);

    const [row] = await sql<{ link_digest: string; phone_token_digest: string }>(
      service,
      'select link_digest, phone_token_digest from session_handoff where session_id = ?',
      [session.session_id],
    );
    expect(row).toEqual({ link_digest: digestSecret(code), phone_token_digest: digestSecret(phoneToken) });
  });

  it('two phones claiming one link at once: exactly one wins', async () => {
    const session = await openSession();
    const code = await handoffCode(session.session_token);
    const answers = await Promise.all([
      hosted(code, '/handoff/claim', {}),
      hosted(code, '/handoff/claim', {}),
      hosted(code, '/handoff/claim', {}),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401]);
  });

  it('an expired link is refused', async () => {
    const session = await openSession();
    const code = await handoffCode(session.session_token);
    clock.advance(HANDOFF_TTL_MS + 1000);
    try {
      const claimed = await hosted(code, '/handoff/claim', {});
      expect(claimed.status).toBe(401);
      expect(claimed.body.error.code).toBe('invalid_token');
    } finally {
      clock.advance(-(HANDOFF_TTL_MS + 1000));
    }
  });

  it('asking for a link needs the session token, a closed session gives none, and a claim needs a code', async () => {
    expect((await hosted(undefined, '/session/handoff', {})).body.error.code).toBe('token_missing');
    expect((await hosted('sst_not-a-token', '/session/handoff', {})).body.error.code).toBe('invalid_token');
    expect((await hosted(undefined, '/handoff/claim', {})).body.error.code).toBe('token_missing');
    expect((await hosted('shl_unknown', '/handoff/claim', {})).body.error.code).toBe('invalid_token');
    const session = await openSession();
    await sql(service, `update verification_session set status = 'APPROVED' where id = ?`, [session.session_id]);
    const refused = await hosted(session.session_token, '/session/handoff', {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('session_closed');
  });
});

describe("the hosted page's per-session limit", () => {
  it('is one allowance for the session, however many continue-on-phone tokens it has', async () => {
    const limited = await startTestService({ hostedRateLimitPerMinute: 6 });
    try {
      const workflow = await limited.core.tenancy.createWorkflow({
        projectId: limited.demo.project_id,
        name: 'location',
        features: ['location'],
      });
      const session = (
        await limited.http
          .post('/api/v2/session')
          .set('X-API-Key', limited.demo.api_key)
          .send({ workflow_id: workflow.id })
      ).body.data as { session_token: string };
      const call = (token: string, path: string, method: 'get' | 'post' = 'get') =>
        (method === 'get'
          ? limited.http.get(`/api/hosted${path}`)
          : limited.http.post(`/api/hosted${path}`).send({})
        ).set('X-Session-Token', token);
      // Two phones (two calls of the session); claiming counts against the address only.
      const phones: string[] = [];
      for (let i = 0; i < 2; i++) {
        const link = await call(session.session_token, '/session/handoff', 'post');
        expect(link.status).toBe(200);
        const claimed = await call(new URL(link.body.data.url).hash.slice(1), '/handoff/claim', 'post');
        phones.push(claimed.body.data.session_token);
      }
      // Four more calls fit the session's six; the next ones are refused whichever token sends them.
      const tokens = [session.session_token, ...phones, session.session_token, ...phones];
      const statuses: number[] = [];
      for (const token of tokens) statuses.push((await call(token, '/session')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await limited.close();
    }
  });
});
