import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type OAuthClientInformationMixed,
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
  type OAuthTokens,
  OpenIdProviderDiscoveryMetadataSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpResource } from '../src/core/oidc/resource-indicators.js';
import { authorizePath, interactionOf, PageDriver, pkce } from './helpers/oidc.js';
import { sql, startListeningService, type ListeningService } from './helpers/service.js';

// The MCP server at /mcp driven by the SDK's own client (Client + StreamableHTTPClientTransport
// with an OAuthClientProvider): discovery from the 401's WWW-Authenticate (RFC 9728), a token
// from a real authorization code flow with PKCE and a resource indicator (RFC 8707) through our
// sign-in and consent pages, each tool, the audit and revocation on the account page, and the
// refusals: no `mcp` scope, another audience, another person.

let service: ListeningService;
let agent: { clientId: string; clientSecret: string; redirectUri: string };
/** The integrator's check of a presentation (the `zkp` verifier), with its API key. */
const verifyPresentation = (presentation: string, nonce: string, audience: string) =>
  service.http
    .post('/api/v2/credential-presentation')
    .set('X-API-Key', service.demo.api_key)
    .send({ presentation, nonce, audience });

const person = { email: 'ada.mcp@example.com', password: 'correct horse battery staple', svcId: '' };
const other = { email: 'bo.mcp@example.com', password: 'another horse battery staple', svcId: '' };

/** A pre-registered agent (docs/mcp.md: no dynamic registration) driven like an MCP host would. */
class AgentProvider implements OAuthClientProvider {
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(private readonly registered: { clientId: string; clientSecret: string; redirectUri: string }) {}
  get redirectUrl() {
    return this.registered.redirectUri;
  }
  get clientMetadata() {
    return { client_name: 'Test agent', redirect_uris: [this.registered.redirectUri] };
  }
  state() {
    return randomBytes(16).toString('base64url');
  }
  clientInformation(): OAuthClientInformationMixed {
    return { client_id: this.registered.clientId, client_secret: this.registered.clientSecret };
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The person follows the authorization URL through our pages: signs in, reads the consent, allows. The code. */
async function personAllows(
  url: URL,
  who: { email: string; password: string },
): Promise<{ code: string; consentText: string }> {
  const browser = new PageDriver(service);
  let res = await browser.get(`${url.pathname}${url.search}`);
  res = await browser.post('/api/auth/oidc/login', {
    interaction: interactionOf(res.text),
    email: who.email,
    password: who.password,
  });
  const consentText = res.text;
  if (res.text.includes('value="allow"'))
    res = await browser.post('/api/auth/oidc/consent', { interaction: interactionOf(res.text), decision: 'allow' });
  expect(res.status, res.text).toBe(303);
  const callback = new URL(res.headers.location as string);
  expect(callback.searchParams.get('error')).toBeNull();
  return { code: callback.searchParams.get('code')!, consentText };
}

/** An SDK client connected after the OAuth flow ran to the end for `who`, and the provider holding its tokens. */
async function connectedAgent(who: { email: string; password: string }, registered = agent) {
  const provider = new AgentProvider(registered);
  const endpoint = new URL(`${service.url}/mcp`);
  const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
  await expect(new Client({ name: 'test-agent', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  const { code, consentText } = await personAllows(provider.authorizationUrl!, who);
  await first.finishAuth(code);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
  return { client, provider, consentText };
}

/** An SDK client sending a fixed bearer token (no OAuth provider): what a refused token meets. */
async function clientWithToken(token: string) {
  const client = new Client({ name: 'fixed-token', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** Another pre-registered agent of the demo project (same redirect URI). */
async function newAgent(name: string) {
  const redirectUris = [agent.redirectUri];
  const created = await service.core.tenancy.createOidcClient({
    projectId: service.demo.project_id,
    name,
    redirectUris,
    scopes: ['openid', 'mcp'],
  });
  return { clientId: created.client.clientId, clientSecret: created.clientSecret, redirectUri: agent.redirectUri };
}

const structured = (result: unknown) => (result as { structuredContent: Record<string, unknown> }).structuredContent;

beforeAll(async () => {
  service = await startListeningService();
  const redirectUri = `${service.url}/agent/callback`;
  const created = await service.core.tenancy.createOidcClient({
    projectId: service.demo.project_id,
    name: 'Helpful Agent',
    redirectUris: [redirectUri],
    scopes: ['openid', 'mcp'],
  });
  agent = { clientId: created.client.clientId, clientSecret: created.clientSecret, redirectUri };
  person.svcId = (await service.core.accounts.createAccount({ email: person.email, password: person.password })).svcId;
  other.svcId = (await service.core.accounts.createAccount({ email: other.email, password: other.password })).svcId;
  // Ada is verified (born 1990) and holds a verified nursing licence; Bo has nothing on file.
  await service.core.accounts.recordVerifiedIdentity({
    svcId: person.svcId,
    fullName: 'Ada Lovelace',
    dateOfBirth: '1990-04-02',
    documentNumber: 'X1234567',
    humanVerified: true,
  });
  const now = new Date();
  await service.core.accounts.badgeLicense(
    person.svcId,
    {
      type: 'Registered Nurse',
      number: 'RN-998877',
      status: 'active',
      issuer: 'Board of Nursing',
      stateCode: 'CA',
      expiresOn: '2030-01-01',
      verifiedFrom: 'Board of Nursing (CA)',
      expireAt: new Date(now.getTime() + 86_400_000),
    },
    now,
  );
});
afterAll(async () => {
  await service?.close();
});

describe('MCP discovery', () => {
  it('publishes RFC 9728 metadata at both well-known paths, pointing at the issuer', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await service.http.get(path).expect(200);
      // Valid by the SDK's own schema (RFC 9728), and exactly this document.
      expect(OAuthProtectedResourceMetadataSchema.safeParse(res.body).error).toBeUndefined();
      expect(res.body).toEqual({
        resource: `${service.url}/mcp`,
        authorization_servers: [service.url],
        scopes_supported: ['openid', 'mcp'],
        bearer_methods_supported: ['header'],
        resource_name: expect.any(String),
        resource_documentation: expect.any(String),
      });
    }
    const discovery = await service.http.get('/.well-known/openid-configuration').expect(200);
    // Valid as OpenID Connect discovery and as RFC 8414 metadata, by the SDK's own schemas.
    expect(OpenIdProviderDiscoveryMetadataSchema.safeParse(discovery.body).error).toBeUndefined();
    expect(OAuthMetadataSchema.safeParse(discovery.body).error).toBeUndefined();
    expect(discovery.body).toMatchObject({ issuer: service.url, code_challenge_methods_supported: ['S256'] });
    expect(discovery.body.scopes_supported).toContain('mcp');
    // RFC 8414's path, where MCP clients look first: the same document
    expect((await service.http.get('/.well-known/oauth-authorization-server').expect(200)).body).toEqual(
      discovery.body,
    );
  });

  it('answers a call without a token 401 with WWW-Authenticate naming the resource metadata and scope', async () => {
    const res = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${service.url}/.well-known/oauth-protected-resource/mcp", scope="openid mcp"`,
    );
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_token');
  });
});

describe('MCP with a token from the authorization code flow', () => {
  let ada: Awaited<ReturnType<typeof connectedAgent>>;
  beforeAll(async () => {
    ada = await connectedAgent(person);
  });

  it('got a token bound to the MCP resource, after a consent page naming what the agent may do', async () => {
    expect(ada.consentText).toContain('Helpful Agent');
    expect(ada.consentText).toContain('present proofs of your age or a licence');
    expect(ada.provider.saved?.scope).toBe('openid mcp');
    const [row] = await sql<{ resource: string; scopes: string[] }>(
      service,
      'select resource, scopes from access_token where client_id = ? and account_id = ?',
      [agent.clientId, person.svcId],
    );
    expect(row).toEqual({ resource: mcpResource(service.url), scopes: ['openid', 'mcp'] });
    // bound to /mcp, it is no key to the account endpoints
    await service.http
      .get('/api/auth/oidc/userinfo')
      .set('Authorization', `Bearer ${ada.provider.saved!.access_token}`)
      .expect(401);
    // a refresh keeps the binding: the new access token is for /mcp too
    const refreshed = await service.http.post('/api/auth/oidc/token').type('form').send({
      grant_type: 'refresh_token',
      refresh_token: ada.provider.saved!.refresh_token,
      client_id: agent.clientId,
      client_secret: agent.clientSecret,
    });
    expect(refreshed.status).toBe(200);
    ada.provider.saveTokens(refreshed.body);
    const resources = await sql<{ resource: string }>(
      service,
      'select resource from access_token where client_id = ?',
      [agent.clientId],
    );
    expect(resources.map((row) => row.resource)).toEqual([mcpResource(service.url), mcpResource(service.url)]);
  });

  it('lists the three tools', async () => {
    const { tools } = await ada.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'get_verification_status',
      'present_proof',
      'start_verification_session',
    ]);
  });

  it('reads the verification status and licences: proofs only', async () => {
    const result = await ada.client.callTool({ name: 'get_verification_status', arguments: {} });
    expect(structured(result)).toEqual({
      id_verified: true,
      human_verified: true,
      licences: [
        {
          type: 'nurse_licenses',
          status: 'active',
          verified: true,
          verified_from: 'Board of Nursing (CA)',
          expires_on: '2030-01-01',
        },
      ],
    });
    const text = JSON.stringify(result);
    for (const raw of ['1990', 'X1234567', 'RN-998877', 'Lovelace']) expect(text).not.toContain(raw);
  });

  it('presents a proof of age to a named verifier through the zkp credential: for that audience and nonce, the claim only', async () => {
    const result = await ada.client.callTool({
      name: 'present_proof',
      arguments: { verifier: 'https://shop.example/checkout', claim: 'age_over_21', nonce: 'n-verifier-42' },
    });
    const answer = structured(result) as { presentation: string; verifier: string; format: string; nonce: string };
    expect(answer).toMatchObject({ verifier: 'https://shop.example', format: 'dc+sd-jwt', nonce: 'n-verifier-42' });
    // one disclosure (the claim) between the credential and the key-binding JWT
    expect(answer.presentation.split('~')).toHaveLength(3);
    // what the verifier does: the integrator's check, with its nonce and its own origin
    const checked = await verifyPresentation(answer.presentation, 'n-verifier-42', 'https://shop.example');
    expect(checked.status).toBe(200);
    expect(checked.body.data).toMatchObject({ verified: true, issuer: service.url, status: 'valid' });
    expect(checked.body.data.claims).toEqual({ age_over_21: true });
    // shown to another verifier, or with another nonce, it is refused
    expect(
      (await verifyPresentation(answer.presentation, 'n-verifier-42', 'https://other.example')).body.error.code,
    ).toBe('presentation_audience_mismatch');
    expect(
      (await verifyPresentation(answer.presentation, 'n-verifier-43', 'https://shop.example')).body.error.code,
    ).toBe('presentation_nonce_stale');
  });

  it('presents a verified licence; refuses what the account cannot prove, and a verifier not on https', async () => {
    const licence = structured(
      await ada.client.callTool({
        name: 'present_proof',
        arguments: { verifier: 'https://hospital.example', claim: 'licence', license_type: 'nurse_licenses' },
      }),
    );
    expect(licence.claims).toEqual({
      licence: {
        type: 'nurse_licenses',
        status: 'active',
        verified: true,
        verified_from: 'Board of Nursing (CA)',
        expires_on: '2030-01-01',
      },
    });
    const checked = await verifyPresentation(
      licence.presentation as string,
      licence.nonce as string,
      'https://hospital.example',
    );
    expect(checked.body.data.claims).toMatchObject({
      licenses: [{ type: 'nurse_licenses', state: 'CA', status: 'active' }],
    });
    expect(Object.keys(checked.body.data.claims)).toEqual(['licenses']);
    const none = await ada.client.callTool({
      name: 'present_proof',
      arguments: { verifier: 'https://hospital.example', claim: 'licence', license_type: 'physician' },
    });
    expect(none.isError).toBe(true);
    expect(structured(none)).toMatchObject({ error: 'not_verified' });
    const plain = await ada.client.callTool({
      name: 'present_proof',
      arguments: { verifier: 'http://shop.example', claim: 'age_over_18' },
    });
    expect(structured(plain)).toMatchObject({ error: 'validation_error' });
  });

  it('starts a verification session bound to the person and gives its link', async () => {
    const result = structured(await ada.client.callTool({ name: 'start_verification_session', arguments: {} }));
    expect(result.url).toMatch(new RegExp(`^${service.url}/verify/ses_[A-Za-z0-9_-]+#`));
    const [row] = await sql<{ svc_id: string; project_id: string }>(
      service,
      'select svc_id, project_id from verification_session where id = ?',
      [result.session_id],
    );
    expect(row).toEqual({ svc_id: person.svcId, project_id: service.demo.project_id });
    // a workflow of another project is not found
    const foreign = await ada.client.callTool({
      name: 'start_verification_session',
      arguments: { workflow_id: 'wf_not_ours' },
    });
    expect(foreign.isError).toBe(true);
  });

  it("keeps another person's data out of reach: Bo's agent sees Bo only, and proves nothing for Bo", async () => {
    const bo = await connectedAgent(other);
    expect(structured(await bo.client.callTool({ name: 'get_verification_status', arguments: {} }))).toEqual({
      id_verified: false,
      human_verified: false,
      licences: [],
    });
    const proof = await bo.client.callTool({
      name: 'present_proof',
      arguments: { verifier: 'https://shop.example', claim: 'age_over_18' },
    });
    expect(structured(proof)).toMatchObject({ error: 'not_verified' });
    // no tool takes an account: an argument naming Ada is refused or ignored, never read
    const sneaky = await bo.client.callTool({ name: 'get_verification_status', arguments: { svc_id: person.svcId } });
    expect(JSON.stringify(sneaky)).not.toContain('nurse_licenses');
    const calls = await sql<{ account_id: string }>(
      service,
      'select distinct account_id from mcp_tool_call where client_id = ?',
      [agent.clientId],
    );
    expect(calls.map((row) => row.account_id).sort()).toEqual([person.svcId, other.svcId].sort());
    await bo.client.close();
  });

  it('audits every call on the account page, and Revoke ends the agent there', async () => {
    const browser = new PageDriver(service);
    let page = await browser.get('/account/agents');
    expect(page.text).toContain('Sign in');
    page = await browser.post('/account/agents/signin', { email: person.email, password: person.password });
    expect(page.status).toBe(303);
    page = await browser.get('/account/agents');
    expect(page.text).toContain('Helpful Agent');
    for (const tool of ['get_verification_status', 'present_proof', 'start_verification_session'])
      expect(page.text).toContain(tool);
    expect(page.text).toContain('verifier: https://shop.example');
    expect(page.text).toContain('not_verified');
    const audited = await sql<{ n: string }>(service, 'select count(*) as n from mcp_tool_call where account_id = ?', [
      person.svcId,
    ]);
    expect(Number(audited[0]!.n)).toBe(7);
    // without the CSRF token nothing is revoked
    expect((await browser.post('/account/agents/revoke', { client_id: agent.clientId, csrf: 'forged' })).status).toBe(
      403,
    );
    expect((await browser.post('/account/agents/revoke', { client_id: agent.clientId })).status).toBe(303);
    await expect(ada.client.callTool({ name: 'get_verification_status', arguments: {} })).rejects.toThrow();
    expect(
      await sql(service, 'select 1 from oidc_consent where account_id = ? and client_id = ?', [
        person.svcId,
        agent.clientId,
      ]),
    ).toEqual([]);
    expect((await browser.get('/account/agents')).text).toContain('No assistant is connected');
  });
});

describe('MCP refusals', () => {
  it('refuses a token without the mcp scope with 403 insufficient_scope', async () => {
    const { token } = await service.core.accessTokens.issue(
      person.svcId,
      agent.clientId,
      ['openid'],
      900,
      mcpResource(service.url),
    );
    const res = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    await expect(clientWithToken(token)).rejects.toThrow();
  });

  it('answers 429 rate_limited beyond 120 calls a minute for one agent and person', async () => {
    // an agent of its own: the limit counts per agent and person
    const busy = await newAgent('Busy Agent');
    const { token } = await service.core.accessTokens.issue(
      other.svcId,
      busy.clientId,
      ['openid', 'mcp'],
      900,
      mcpResource(service.url),
    );
    const ping = () =>
      fetch(`${service.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 121; i++) statuses.push((await ping()).status);
    expect(statuses.slice(0, 120).every((status) => status === 200)).toBe(true);
    const limited = await ping();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses a token for another audience (the account endpoints) with 401 invalid_token', async () => {
    const { token } = await service.core.accessTokens.issue(person.svcId, agent.clientId, ['openid', 'mcp']);
    const res = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", .*resource_metadata=/);
    await expect(clientWithToken(token)).rejects.toThrow();
  });

  it('refuses an unknown resource on authorize, and at the token endpoint one the code was not asked for', async () => {
    const browser = new PageDriver(service);
    const { challenge, verifier } = pkce();
    const params = {
      client_id: agent.clientId,
      redirect_uri: agent.redirectUri,
      response_type: 'code',
      scope: 'openid mcp',
      state: 's1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const refused = await browser.get(authorizePath({ ...params, resource: 'https://elsewhere.example/mcp' }));
    expect(new URL(refused.headers.location as string).searchParams.get('error')).toBe('invalid_target');
    // a code asked for no resource cannot become a token for /mcp
    let res = await browser.get(authorizePath(params));
    res = await browser.post('/api/auth/oidc/login', {
      interaction: interactionOf(res.text),
      email: other.email,
      password: other.password,
    });
    if (res.text.includes('value="allow"'))
      res = await browser.post('/api/auth/oidc/consent', { interaction: interactionOf(res.text), decision: 'allow' });
    const code = new URL(res.headers.location as string).searchParams.get('code')!;
    const token = await service.http
      .post('/api/auth/oidc/token')
      .type('form')
      .send({
        grant_type: 'authorization_code',
        code,
        redirect_uri: agent.redirectUri,
        code_verifier: verifier,
        client_id: agent.clientId,
        client_secret: agent.clientSecret,
        resource: mcpResource(service.url),
      });
    expect(token.status).toBe(400);
    expect(token.body.error).toBe('invalid_target');
  });
});

// The figure in docs/mcp.md: `MCP_LATENCY=1 npx vitest run test/mcp.test.ts` prints it (not a
// pass/fail rule: the machine is shared).
describe.runIf(process.env.MCP_LATENCY)('MCP tool call latency', () => {
  it('measures each tool through the SDK client', async () => {
    // n calls of one kind, from an agent of its own (the limit counts per agent and person)
    const ms = async (call: (client: Client) => Promise<unknown>, n = 50) => {
      const { client } = await connectedAgent(person, await newAgent('Timed Agent'));
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = performance.now();
        await call(client);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
      return `n=${n} p50 ${at(0.5)} ms, p95 ${at(0.95)} ms`;
    };
    const proof = { verifier: 'https://shop.example', claim: 'age_over_18' };
    const figures = {
      get_verification_status: await ms((client) =>
        client.callTool({ name: 'get_verification_status', arguments: {} }),
      ),
      present_proof: await ms((client) => client.callTool({ name: 'present_proof', arguments: proof })),
      tools_list: await ms((client) => client.listTools()),
    };
    console.log(JSON.stringify(figures, null, 2));
  });
});
