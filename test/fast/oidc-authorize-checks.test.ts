import { describe, expect, it } from 'vitest';
import {
  AUTHORIZE_CHECKS,
  checkAuthorizeRequest,
  type AuthorizeClient,
  type AuthorizeContext,
} from '../../src/core/oidc/authorization/index.js';
import {
  checkClientId,
  checkCodeChallengeFormat,
  checkCodeChallengeMethod,
  checkMaxAge,
  checkPkceRequired,
  checkPromptNoneAlone,
  checkPromptValues,
  checkRedirectUri,
  checkResource,
  checkScopesEnabled,
  loadClient,
  rejectRequestObject,
} from '../../src/core/oidc/authorization/checks.js';

// The authorize rules one at a time: no database, no HTTP. The whole endpoint is tested through
// HTTP in oidc.test.ts; here each named check is called alone on a context built by hand.

const CLIENT: AuthorizeClient = {
  clientId: 'cli_1',
  name: 'Demo',
  active: true,
  redirectUris: ['https://app.test/cb'],
  scopes: ['openid', 'profile'],
  requirePkce: true,
};
const findClient = async (clientId: string) => (clientId === CLIENT.clientId ? CLIENT : null);

/** A context as the checks before `check` would have left it. */
const ctx = (query: Record<string, unknown>, established: Partial<AuthorizeContext> = {}): AuthorizeContext => ({
  query,
  findClient,
  clientId: CLIENT.clientId,
  client: CLIENT,
  redirectUri: 'https://app.test/cb',
  state: 's',
  scopes: ['openid'],
  ...established,
});

describe('authorize checks, each alone', () => {
  it('lists every check once, client and redirect URI first', () => {
    expect(new Set(AUTHORIZE_CHECKS).size).toBe(AUTHORIZE_CHECKS.length);
    expect(AUTHORIZE_CHECKS.slice(0, 3)).toEqual([checkClientId, loadClient, checkRedirectUri]);
  });

  it('checkClientId: a missing client_id is a page, never a redirect', () => {
    expect(checkClientId(ctx({}))).toEqual({ page: 'client_id is missing.' });
    const passed = ctx({ client_id: ['cli_1', 'cli_2'] }, { clientId: undefined });
    expect(checkClientId(passed)).toBeUndefined();
    expect(passed.clientId).toBe('cli_1');
  });

  it('loadClient: an unknown or inactive client is a page', async () => {
    expect(await loadClient(ctx({}, { clientId: 'nope', client: undefined }))).toEqual({
      page: 'This application is unknown or not active.',
    });
    const inactive = ctx({}, { client: undefined, findClient: async () => ({ ...CLIENT, active: false }) });
    expect(await loadClient(inactive)).toEqual({ page: 'This application is unknown or not active.' });
  });

  it('checkRedirectUri: only an exactly registered URI is trusted', () => {
    const open = ctx({ redirect_uri: 'https://app.test/cb/../evil' }, { redirectUri: undefined });
    expect(checkRedirectUri(open)).toEqual({ page: 'The redirect_uri is not registered for this application.' });
    expect(open.redirectUri).toBeUndefined();
    const good = ctx(
      { redirect_uri: 'https://app.test/cb', state: 'xyz' },
      { redirectUri: undefined, state: undefined },
    );
    expect(checkRedirectUri(good)).toBeUndefined();
    expect(good).toMatchObject({ redirectUri: 'https://app.test/cb', state: 'xyz' });
  });

  it('rejectRequestObject: a request object is request_not_supported', () => {
    expect(rejectRequestObject(ctx({ request: 'eyJ...' }))).toMatchObject({ error: 'request_not_supported' });
    expect(rejectRequestObject(ctx({}))).toBeUndefined();
  });

  it('checkScopesEnabled: names the scopes the client does not have', () => {
    expect(checkScopesEnabled(ctx({}, { scopes: ['openid', 'zkp', 'mcp'] }))).toEqual({
      error: 'invalid_scope',
      description: 'scope not enabled for this application: zkp mcp',
    });
    expect(checkScopesEnabled(ctx({}, { scopes: ['openid', 'profile'] }))).toBeUndefined();
  });

  it('PKCE: S256 only, and a challenge of the right form', () => {
    expect(checkCodeChallengeMethod(ctx({ code_challenge: 'a'.repeat(43) }))).toMatchObject({
      error: 'invalid_request',
      description: 'code_challenge_method must be S256',
    });
    expect(
      checkCodeChallengeMethod(ctx({ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' })),
    ).toMatchObject({ error: 'invalid_request' });
    expect(
      checkCodeChallengeMethod(ctx({ code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' })),
    ).toBeUndefined();
    expect(checkCodeChallengeMethod(ctx({}))).toBeUndefined();
    expect(checkCodeChallengeFormat(ctx({}, { codeChallenge: 'short' }))).toEqual({
      error: 'invalid_request',
      description: 'code_challenge is malformed',
    });
    expect(checkCodeChallengeFormat(ctx({}, { codeChallenge: 'a'.repeat(43) }))).toBeUndefined();
  });

  it('checkPkceRequired: a challenge from every client, but one registered without PKCE (a confidential legacy client)', () => {
    expect(checkPkceRequired(ctx({}, { codeChallenge: undefined }))).toEqual({
      error: 'invalid_request',
      description: 'code_challenge is required: this application must use PKCE with code_challenge_method=S256',
    });
    expect(checkPkceRequired(ctx({}, { codeChallenge: 'a'.repeat(43) }))).toBeUndefined();
    expect(
      checkPkceRequired(ctx({}, { codeChallenge: undefined, client: { ...CLIENT, requirePkce: false } })),
    ).toBeUndefined();
  });

  it('checkMaxAge: a non-negative integer', () => {
    for (const bad of ['-1', '1.5', 'soon'])
      expect(checkMaxAge(ctx({ max_age: bad }))).toMatchObject({ error: 'invalid_request' });
    const good = ctx({ max_age: '0' });
    expect(checkMaxAge(good)).toBeUndefined();
    expect(good.maxAge).toBe(0);
  });

  it('prompt: a list of known values, none alone', () => {
    expect(checkPromptValues(ctx({ prompt: 'login consent' }))).toBeUndefined();
    expect(checkPromptValues(ctx({ prompt: 'login bogus' }))).toEqual({
      error: 'invalid_request',
      description: 'unsupported prompt value',
    });
    expect(checkPromptNoneAlone(ctx({}, { prompt: 'none login' }))).toMatchObject({ error: 'invalid_request' });
    expect(checkPromptNoneAlone(ctx({}, { prompt: 'none' }))).toBeUndefined();
  });
});

describe('the ordered list', () => {
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  const query = {
    client_id: 'cli_1',
    redirect_uri: 'https://app.test/cb',
    response_type: 'code',
    scope: 'openid profile',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };

  it('turns the first failure after the redirect URI into a redirect with error, state and iss', async () => {
    const result = await checkAuthorizeRequest(
      { ...query, response_type: 'token', request: 'x' },
      findClient,
      'https://op.test',
    );
    expect('step' in result && result.step.kind).toBe('redirect');
    const url = new URL((result as { step: { url: string } }).step.url);
    // request comes before response_type in the list, so it answers.
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      error: 'request_not_supported',
      state: 'st',
      iss: 'https://op.test',
    });
  });

  it('gives the trusted request when every check passes', async () => {
    const result = await checkAuthorizeRequest(
      { ...query, nonce: 'n', ui_locales: 'fr en' },
      findClient,
      'https://op.test',
    );
    expect(result).toEqual({
      request: {
        clientId: 'cli_1',
        clientName: 'Demo',
        redirectUri: 'https://app.test/cb',
        scopes: ['openid', 'profile'],
        state: 'st',
        nonce: 'n',
        codeChallenge: challenge,
        prompt: undefined,
        maxAge: undefined,
        uiLocale: 'en',
      },
    });
  });

  it('runs the checks it is given: a list without a rule does not apply it', async () => {
    const withoutState = AUTHORIZE_CHECKS.filter((check) => check.name !== 'checkState');
    expect(
      await checkAuthorizeRequest({ ...query, state: undefined }, findClient, 'https://op.test', withoutState),
    ).toHaveProperty('request');
  });

  it('refuses a request without PKCE, or with the plain method, as invalid_request back at the client', async () => {
    for (const change of [
      { code_challenge: undefined, code_challenge_method: undefined },
      { code_challenge: challenge, code_challenge_method: 'plain' },
    ]) {
      const result = await checkAuthorizeRequest({ ...query, ...change }, findClient, 'https://op.test');
      const url = new URL((result as { step: { kind: 'redirect'; url: string } }).step.url);
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        error: 'invalid_request',
        state: 'st',
        iss: 'https://op.test',
      });
    }
  });

  it('takes a resource (RFC 8707) only when it is one the provider serves, exactly', async () => {
    const resources = ['https://op.test/mcp'];
    const named = ctx({ resource: 'https://op.test/mcp' }, { resources });
    expect(checkResource(named)).toBeUndefined();
    expect(named.resource).toBe('https://op.test/mcp');
    expect(checkResource(ctx({}, { resources }))).toBeUndefined();
    for (const resource of [
      'https://op.test/mcp/',
      'https://evil.test/mcp',
      ['https://op.test/mcp', 'https://op.test/mcp'],
    ]) {
      expect(checkResource(ctx({ resource }, { resources }))).toMatchObject({ error: 'invalid_target' });
    }
    const result = await checkAuthorizeRequest(
      { ...query, resource: 'https://op.test/mcp' },
      findClient,
      'https://op.test',
    );
    expect(result).toMatchObject({ request: { resource: 'https://op.test/mcp' } });
  });
});
