import type { DemoTenant } from '../../src/core/seed.js';
import { authorizePath, interactionOf, pkce } from '../../test/helpers/oidc.js';
import { percentile } from '../../test/helpers/processes.js';

// A mixed load of what integrators do most, through the real HTTP interface: hosted sessions
// (create, then the location step that decides them), age checks, token refreshes and roster
// reads. Every answer is recorded with its latency, status and error code, so a test can say
// what failed, how, and how fast the rest was.

export type Kind = 'session.create' | 'session.step' | 'age' | 'refresh' | 'roster';

export interface Outcome {
  kind: Kind;
  /** Epoch ms when the request was sent. */
  start: number;
  ms: number;
  /** null: no answer (refused, reset, or no answer within the timeout). */
  status: number | null;
  /** The envelope's error code, or the network failure ('timeout', 'network'). */
  code: string | null;
  /** A non-2xx answer in the envelope with a code. */
  enveloped: boolean;
  /** The body looks like it carries a stack trace. */
  stack: boolean;
}

export interface LoadTarget {
  url: () => string;
  demo: DemoTenant;
  /** Approved callback for the sessions' webhooks (none: they are kept as no_destination). */
  callback?: string;
  /**
   * One refresh-token chain per worker (see signIn); without them there are no refreshes. Kept
   * up to date as tokens rotate, so a later run goes on from where this one left off.
   */
  refreshTokens?: string[];
}

export interface LoadOptions {
  workers: number;
  durationMs: number;
  kinds: Kind[];
  /** A request without an answer by then counts as a hang. */
  timeoutMs?: number;
}

async function call(
  kind: Kind,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<{ outcome: Outcome; body: any }> {
  const start = Date.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: recorded as not enveloped
    }
    const ok = res.status >= 200 && res.status < 300;
    const code = ok ? null : typeof body?.error?.code === 'string' ? body.error.code : null;
    return {
      outcome: {
        kind,
        start,
        ms: Date.now() - start,
        status: res.status,
        code,
        enveloped: !ok && body?.success === false && code !== null,
        stack: /\n\s+at /.test(text),
      },
      body,
    };
  } catch (error) {
    const code = (error as Error).name === 'TimeoutError' ? 'timeout' : 'network';
    return {
      outcome: { kind, start, ms: Date.now() - start, status: null, code, enveloped: false, stack: false },
      body: null,
    };
  }
}

const json = (headers: Record<string, string>, body: unknown): RequestInit => ({
  method: 'POST',
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Runs `workers` loops for `durationMs`, each going round the kinds; every answer recorded. */
export async function runLoad(target: LoadTarget, options: LoadOptions): Promise<Outcome[]> {
  const { demo } = target;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const outcomes: Outcome[] = [];
  const deadline = Date.now() + options.durationMs;
  const apiKey = { 'X-API-Key': demo.api_key };
  const orgApp = { 'X-Client-Id': demo.org.client_id, 'X-Client-Secret': demo.org.client_secret };
  const tokens = target.refreshTokens ?? [];
  const kinds = options.kinds.filter((kind) => kind !== 'session.step' && (kind !== 'refresh' || tokens.length));

  const once = async (worker: number, kind: Kind) => {
    const base = target.url();
    const run = async (which: Kind, path: string, init: RequestInit = {}) => {
      const result = await call(which, `${base}${path}`, init, timeoutMs);
      outcomes.push(result.outcome);
      return result;
    };
    switch (kind) {
      case 'session.create': {
        const created = await run(
          'session.create',
          '/api/v2/session',
          json(apiKey, {
            workflow_id: demo.workflows.location,
            vendor_data: `load-${worker}`,
            ...(target.callback ? { callback: target.callback } : {}),
          }),
        );
        const token = created.body?.data?.session_token;
        if (created.outcome.status === 201 && token) {
          await run(
            'session.step',
            '/api/hosted/session/steps/location',
            json({ 'X-Session-Token': token }, { latitude: 48.85, longitude: 2.35, accuracy: 10 }),
          );
        }
        return;
      }
      case 'age':
        await run('age', '/api/v2/age-verification', json(apiKey, { dob: '1990-05-01', bands: ['18', '21+'] }));
        return;
      case 'roster':
        await run('roster', '/api/sdk/members', { headers: orgApp });
        return;
      case 'refresh': {
        const form = new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens[worker % tokens.length]!,
          client_id: demo.oidc.client_id,
          client_secret: demo.oidc.client_secret,
        });
        const refreshed = await run('refresh', '/api/auth/oidc/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form,
        });
        if (refreshed.outcome.status === 200) tokens[worker % tokens.length] = refreshed.body.refresh_token;
        return;
      }
      default:
        return;
    }
  };

  await Promise.all(
    Array.from({ length: options.workers }, async (_, worker) => {
      for (let turn = worker; Date.now() < deadline; turn += 1) await once(worker, kinds[turn % kinds.length]!);
    }),
  );
  return outcomes;
}

export interface KindFigures {
  kind: Kind;
  requests: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  non2xx: number;
}

/** Throughput and latency percentiles per kind (and all together) over `seconds`. */
export function figures(outcomes: Outcome[], seconds: number): KindFigures[] {
  const groups = new Map<string, Outcome[]>();
  for (const outcome of outcomes) groups.set(outcome.kind, [...(groups.get(outcome.kind) ?? []), outcome]);
  groups.set('all', outcomes);
  return [...groups].map(([kind, list]) => {
    const sorted = list.map((outcome) => outcome.ms).sort((a, b) => a - b);
    return {
      kind: kind as Kind,
      requests: list.length,
      perSecond: Math.round((list.length / seconds) * 10) / 10,
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      non2xx: list.filter((outcome) => outcome.status === null || outcome.status < 200 || outcome.status >= 300).length,
    };
  });
}

export function figuresTable(rows: KindFigures[]): string {
  return [
    '| kind | requests | req/s | p50 ms | p95 ms | p99 ms | non-2xx |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.kind} | ${row.requests} | ${row.perSecond} | ${row.p50} | ${row.p95} | ${row.p99} | ${row.non2xx} |`,
    ),
  ].join('\n');
}

/** Cookies a browser would keep, from `Set-Cookie` lines. */
function keepCookies(jar: Map<string, string>, res: Response): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    jar.set(pair!.slice(0, at), pair!.slice(at + 1));
  }
}

/**
 * Signs the demo account in to the demo OIDC client through the real pages (sign-in form,
 * consent) and exchanges the code: a refresh token for the load's refresh chains.
 */
export async function signIn(baseUrl: string, demo: DemoTenant): Promise<string> {
  const jar = new Map<string, string>();
  const send = async (path: string, form?: Record<string, string>) => {
    const res = await fetch(`${baseUrl}${path}`, {
      redirect: 'manual',
      ...(form ? { method: 'POST', body: new URLSearchParams({ csrf: jar.get('verity_csrf') ?? '', ...form }) } : {}),
      headers: {
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
    });
    keepCookies(jar, res);
    return { res, text: await res.text() };
  };
  const redirectUri = demo.oidc.redirect_uris[0]!;
  const { verifier, challenge } = pkce();
  let page = await send(
    authorizePath({
      client_id: demo.oidc.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid profile',
      state: 'load',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
  );
  if (page.text.includes('name="password"'))
    page = await send('/api/auth/oidc/login', {
      interaction: interactionOf(page.text),
      email: demo.account.email,
      password: demo.account.password,
    });
  if (page.text.includes('value="allow"'))
    page = await send('/api/auth/oidc/consent', { interaction: interactionOf(page.text), decision: 'allow' });
  const code = new URL(page.res.headers.get('location') ?? 'about:blank').searchParams.get('code');
  if (!code) throw new Error(`sign-in did not end with a code: ${page.res.status} ${page.text.slice(0, 300)}`);
  const token = await fetch(`${baseUrl}/api/auth/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: demo.oidc.client_id,
      client_secret: demo.oidc.client_secret,
    }),
  });
  const body = (await token.json()) as { refresh_token?: string };
  if (!body.refresh_token) throw new Error(`no refresh token: ${JSON.stringify(body)}`);
  return body.refresh_token;
}

/** Adds `count` roster members (no invitations sent) so roster reads return a real page. */
export async function addMembers(baseUrl: string, demo: DemoTenant, count: number): Promise<void> {
  const members = Array.from({ length: count }, (_, i) => ({
    email: `load-member-${i}@example.com`,
    first_name: 'Load',
    last_name: `Member ${i}`,
  }));
  const res = await fetch(
    `${baseUrl}/api/sdk/members`,
    json({ 'X-Client-Id': demo.org.client_id, 'X-Client-Secret': demo.org.client_secret }, { members, notify: false }),
  );
  if (res.status !== 201) throw new Error(`adding members: ${res.status} ${await res.text()}`);
}
