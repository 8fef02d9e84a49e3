import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { DomainError } from '../../core/errors.js';
import type { Core } from '../../core/index.js';
import { discoveryDocument } from '../../core/oidc/discovery.js';
import {
  discoveryWire,
  introspectionWire,
  jwksWire,
  licensesWire,
  revocationWire,
  tokenResponseWire,
  userinfoWire,
  verificationsWire,
} from '../../core/oidc/views.js';
import { issueCsrf, requireCsrf } from '../../web/csrf.js';
import { clearSessionCookie, sessionCookie } from '../../web/browser-session.js';
import { messagePage, signOutPage } from '../../web/login-pages.js';
import { renderAuthorizeStep } from '../../web/sign-in-pages.js';
import { bearer, requireAccessToken, type TokenCaller } from '../auth.js';
import { allowFormRedirect } from '../../http/security-headers.js';
import { toDomainError } from '../errors.js';
import { sendData } from '../../http/envelope.js';
import type { ApiDocs, BodyMediaType } from '../../http/openapi.js';
import { jsonBody } from '../../http/input.js';
import { caseSensitiveRouter } from '../../http/router.js';

/** `Authorization: Basic` with URL-encoded client id and secret (RFC 6749 2.3.1). */
function basicCredentials(req: Request): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.get('authorization') ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new DomainError('invalid_client', 'malformed Basic credentials');
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    throw new DomainError('invalid_client', 'malformed Basic credentials');
  }
}

/**
 * The RFC 6749 error for what failed: a malformed body, or input the service refuses as a whole
 * (a NUL, a lone surrogate: `validation_error` elsewhere), is `invalid_request` here.
 */
function oauthError(error: unknown): DomainError | undefined {
  if ((error as { type?: string })?.type === 'entity.parse.failed')
    return new DomainError('invalid_request', 'malformed JSON body');
  const known = toDomainError(error);
  return known?.code === 'validation_error' ? new DomainError('invalid_request', known.message) : known;
}

/**
 * Token errors in the client's dialect. A form-encoded request (what RFC 6749 requires, so every
 * standard relying party) gets RFC 6749 section 5.2's `{ error, error_description }`; a JSON
 * request gets the spec's envelope. A body that does not parse is `invalid_request` either way,
 * and a failed HTTP Basic authentication carries `WWW-Authenticate: Basic`.
 */
function tokenError(error: unknown, req: Request, res: Response, next: NextFunction): void {
  const known = oauthError(error);
  if (!known) {
    next(error);
    return;
  }
  if (known.code === 'invalid_client' && req.get('authorization'))
    res.setHeader('WWW-Authenticate', 'Basic realm="verity"');
  if (!req.is('application/x-www-form-urlencoded')) {
    next(known);
    return;
  }
  res.setHeader('Cache-Control', 'no-store');
  res.status(known.status).json({ error: known.code, error_description: known.message });
}

/**
 * RFC 6750 section 3 on the bearer routes: every 401 and 403 says how to authenticate. No token
 * sent: the realm only; a bad one: `error="invalid_token"`; too narrow: `error="insufficient_scope"`
 * and the `scope` it needs.
 */
function bearerChallenge(error: unknown, req: Request, res: Response, next: NextFunction): void {
  const known = toDomainError(error);
  if (known?.code === 'invalid_token' || known?.code === 'insufficient_scope')
    res.setHeader('WWW-Authenticate', bearerChallengeHeader(known, bearer(req) !== undefined));
  next(error);
}

function bearerChallengeHeader(error: DomainError, tokenSent: boolean): string {
  if (!tokenSent) return 'Bearer realm="verity"';
  const quoted = (value: string) => value.replace(/["\\]/g, '');
  const scope = (error.data as { scope?: string } | undefined)?.scope;
  return `Bearer realm="verity", error="${error.code}", error_description="${quoted(error.message)}"${scope ? `, scope="${quoted(scope)}"` : ''}`;
}

// The OAuth endpoints' requests, for the document only: the grants read the fields themselves
// (core/oidc/grants) so that each error is the one RFC 6749 names.
const OAUTH_BODY: BodyMediaType[] = ['application/x-www-form-urlencoded', 'application/json'];
const clientCredentials = {
  client_id: z
    .string()
    .optional()
    .describe('client_secret_post; or send both in Authorization: Basic (client_secret_basic)'),
  client_secret: z.string().optional().describe('client_secret_post; or Authorization: Basic'),
};
const tokenRequest = z.object({
  grant_type: z.enum(['authorization_code', 'refresh_token']),
  code: z.string().optional().describe('authorization_code: the code from the redirect (single use, 60 s)'),
  redirect_uri: z
    .string()
    .optional()
    .describe('authorization_code: the redirect_uri of the authorization request, exactly'),
  code_verifier: z.string().optional().describe('authorization_code: the PKCE S256 verifier (43 to 128 characters)'),
  refresh_token: z
    .string()
    .optional()
    .describe('refresh_token: the current refresh token (rotated: the answer carries its successor)'),
  scope: z.string().optional().describe('refresh_token: a narrower scope than granted (optional)'),
  resource: z
    .string()
    .optional()
    .describe(
      'authorization_code: the resource the authorization request named (RFC 8707), e.g. the MCP endpoint or the credential issuer; another is invalid_target',
    ),
  ...clientCredentials,
});
const tokenLookup = z.object({
  token: z.string().describe('an access or refresh token issued to this client'),
  token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
  ...clientCredentials,
});

/**
 * The authorization request's parameters (OIDC Core 3.1.2.1), for the document: core/oidc/authorization checks them one
 * rule at a time.
 */
const authorizeQuery = z.object({
  client_id: z
    .string()
    .describe("your OIDC client's id")
    .meta({ examples: ['vc_5f2b9c0d1e3a4b6c7d8e9f01'] }),
  redirect_uri: z
    .string()
    .describe('one of the redirect URIs registered for the client, exactly')
    .meta({ examples: ['https://staff.example/callback'] }),
  response_type: z.literal('code'),
  scope: z
    .string()
    .describe('space-separated; must include openid: openid, profile, verifications, doctor_license, zkp, mcp')
    .meta({ examples: ['openid profile verifications'] }),
  state: z
    .string()
    .describe('your CSRF value, echoed unchanged on the redirect: compare it before using the code')
    .meta({ examples: ['af0ifjsldkj'] }),
  nonce: z
    .string()
    .max(512)
    .optional()
    .describe('echoed in the id token: compare it')
    .meta({ examples: ['n-0S6_WzA2Mj'] }),
  code_challenge: z
    .string()
    .describe('PKCE: BASE64URL(SHA-256(code_verifier)); required unless the client is registered without PKCE')
    .meta({ examples: ['E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'] }),
  code_challenge_method: z.literal('S256'),
  prompt: z.string().optional().describe('none, login or consent'),
  max_age: z.string().optional().describe('seconds: ask the person to sign in again when their sign-in is older'),
  ui_locales: z.string().optional().describe('space-separated languages for the pages (en, es, fr, de)'),
  resource: z
    .string()
    .optional()
    .describe(
      'RFC 8707: the resource the token is for: the MCP endpoint ({issuer}/mcp) or the credential issuer ({issuer}, which OpenID4VCI wallets send), else invalid_target',
    ),
});

/** RP-initiated logout's parameters (OIDC RP-Initiated Logout 1.0, section 2). */
const logoutQuery = z.object({
  id_token_hint: z.string().describe('an id token issued to your client for the person (an expired one is accepted)'),
  post_logout_redirect_uri: z
    .string()
    .optional()
    .describe('one of your registered redirect URIs, exactly')
    .meta({ examples: ['https://staff.example/signed-out'] }),
  state: z
    .string()
    .optional()
    .describe('echoed on the redirect')
    .meta({ examples: ['xyz-7781'] }),
});

/** The discovery document of the issuer the examples use. */
const DISCOVERY_EXAMPLE = discoveryDocument('https://verity.example');

const USERINFO_EXAMPLE = {
  sub: 'svc_8d2f4a6b1c3e5f7091a2b3c4',
  svc_id: 'svc_8d2f4a6b1c3e5f7091a2b3c4',
  preferred_username: 'dana.whitfield@example.com',
  email: 'dana.whitfield@example.com',
  email_verified: true,
  name: 'Dana Whitfield',
  id_verified: true,
};

/**
 * The protocol endpoints under /api/auth/oidc (the pages are in src/web/sign-in-pages.ts), discovery at both
 * well-known paths.
 */
export function oidcRouter(core: Core, docs: ApiDocs) {
  const router = caseSensitiveRouter();
  const oidc = core.oidc;
  const secure = oidc.issuer.startsWith('https:');
  const form = express.urlencoded({ extended: false, limit: '64kb' });
  const body = [form, ...jsonBody('64kb')];
  const clearCookie = (res: Response) => clearSessionCookie(res, secure);

  const discovery = (_req: Request, res: Response) => {
    res.json(oidc.discovery());
  };
  router.get('/.well-known/openid-configuration', discovery);
  router.get('/api/.well-known/openid-configuration', discovery);

  router.get('/api/auth/oidc/jwks.json', async (_req, res) => {
    res.setHeader('Cache-Control', `public, max-age=${core.signingKeys.jwksMaxAgeSeconds}`);
    res.json(await core.signingKeys.jwks());
  });

  // The authorization endpoint may show the sign-in or consent form: it gives the browser its CSRF token.
  router.use('/api/auth/oidc/authorize', issueCsrf(secure));

  // OIDC Core 3.1.2.1: the authorization endpoint takes GET (query) and POST (form body) alike.
  const authorize = async (req: Request, res: Response, parameters: Record<string, unknown>) => {
    const checked = await oidc.checkAuthorize(parameters);
    if ('step' in checked) return renderAuthorizeStep(res, checked.step);
    allowFormRedirect(res, checked.request.redirectUri);
    renderAuthorizeStep(res, await oidc.nextStep(checked.request, await oidc.session(sessionCookie(req))));
  };
  router.get('/api/auth/oidc/authorize', (req, res) => authorize(req, res, req.query));
  router.post('/api/auth/oidc/authorize', form, (req, res) => authorize(req, res, req.body ?? {}));

  router.post('/api/auth/oidc/token', ...body, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    res.json(await oidc.token(req.body ?? {}, basicCredentials(req)));
  });
  // RFC 7009 and RFC 7662: the client authenticates as at the token endpoint and reaches only its own tokens.
  router.post('/api/auth/oidc/revoke', ...body, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    await core.tokenIntrospection.revoke(
      await oidc.authenticateClient(req.body ?? {}, basicCredentials(req)),
      req.body ?? {},
    );
    res.status(200).json({});
  });
  router.post('/api/auth/oidc/introspect', ...body, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(
      await core.tokenIntrospection.introspect(
        await oidc.authenticateClient(req.body ?? {}, basicCredentials(req)),
        req.body ?? {},
      ),
    );
  });
  router.use(['/api/auth/oidc/token', '/api/auth/oidc/revoke', '/api/auth/oidc/introspect'], tokenError);

  // RP-initiated logout: at once for the browser's own sign-in, else after the person confirms
  // on a page whose form posts the same parameters back (CSRF-protected like the other forms).
  const logout = async (req: Request, res: Response, parameters: Record<string, unknown>, confirmed: boolean) => {
    res.setHeader('Cache-Control', 'no-store');
    const outcome = await oidc.logout(parameters, await oidc.session(sessionCookie(req)), confirmed);
    switch (outcome.kind) {
      case 'error_page':
        res.status(400).type('html').send(messagePage('Sign-out request not valid', outcome.message));
        return;
      case 'confirm': {
        if (outcome.postLogoutRedirectUri) allowFormRedirect(res, outcome.postLogoutRedirectUri);
        const fields = (['id_token_hint', 'post_logout_redirect_uri', 'state'] as const).flatMap((name) => {
          const value = typeof parameters[name] === 'string' ? parameters[name] : undefined;
          return value === undefined ? [] : [{ name, value }];
        });
        res.type('html').send(signOutPage({ clientName: outcome.clientName, fields, csrf: String(res.locals.csrf) }));
        return;
      }
    }
    await oidc.endSession(sessionCookie(req));
    clearCookie(res);
    if (outcome.kind === 'redirect') return void res.redirect(303, outcome.url);
    res.type('html').send(messagePage('Signed out', 'You are signed out of Verity.'));
  };
  router.get('/api/auth/oidc/logout', issueCsrf(secure), (req, res) => logout(req, res, req.query, false));
  router.post('/api/auth/oidc/logout', form, requireCsrf, (req, res) => logout(req, res, req.body ?? {}, true));

  const tokenAuth = requireAccessToken(core);
  const userinfo = async (_req: Request, res: Response) => {
    res.json(await oidc.userinfo(res.locals.token as TokenCaller));
  };
  router.get('/api/auth/oidc/userinfo', tokenAuth, userinfo);
  router.post('/api/auth/oidc/userinfo', tokenAuth, userinfo);
  router.get('/api/auth/oidc/licenses', tokenAuth, async (_req, res) => {
    sendData(res, await oidc.licenses(res.locals.token));
  });
  router.get('/api/auth/oidc/verifications', tokenAuth, async (_req, res) => {
    sendData(res, await oidc.verifications(res.locals.token));
  });
  router.use(['/api/auth/oidc/userinfo', '/api/auth/oidc/licenses', '/api/auth/oidc/verifications'], bearerChallenge);

  docs.add(
    {
      method: 'get',
      path: '/.well-known/openid-configuration',
      summary: 'OpenID Connect discovery',
      description:
        "The provider's metadata: issuer, the endpoints (authorization, token, userinfo, JWKS, end session, revocation, introspection), and what they support (scopes, `code` response type, PKCE `S256`, RS256 id tokens, client authentication by `client_secret_post` or `client_secret_basic`). Point your relying-party library at it and it configures itself. The same document is at `/api/.well-known/openid-configuration`.",
      tag: 'login',
      security: 'none',
      bare: true,
      response: discoveryWire,
      examples: { response: DISCOVERY_EXAMPLE },
    },
    {
      method: 'get',
      path: '/api/.well-known/openid-configuration',
      operationId: 'getApiWellKnownOpenidConfiguration',
      summary: 'OpenID Connect discovery (under /api)',
      description:
        'The same discovery document as `/.well-known/openid-configuration`, for clients configured with the `/api` prefix.',
      tag: 'login',
      security: 'none',
      bare: true,
      response: discoveryWire,
      examples: { response: DISCOVERY_EXAMPLE },
    },
    {
      method: 'get',
      path: '/api/auth/oidc/jwks.json',
      summary: 'Signing keys (JWKS)',
      description:
        "The public RSA keys that sign id tokens (RS256). Validate an id token's signature with the key whose `kid` matches its header, then its `iss`, `aud` (your client id), `exp` and `nonce`. Keys rotate: a new key is published before it signs, and a retired one stays listed until the tokens it signed have expired. Cache the set as `Cache-Control` says, and fetch it again when a token names an unknown `kid`.",
      tag: 'login',
      security: 'none',
      bare: true,
      response: jwksWire,
      examples: {
        response: {
          keys: [
            {
              kty: 'RSA',
              n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
              e: 'AQAB',
              kid: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
              alg: 'RS256',
              use: 'sig',
            },
          ],
        },
      },
    },
    {
      method: 'get',
      path: '/api/auth/oidc/authorize',
      summary: 'Start a login (browser)',
      description:
        "Send the person's browser here to log in: they sign in (or sign up), consent to the scopes on first use, and come back to your `redirect_uri` with `code` and your `state` (and `iss`). Your server then exchanges the code at the token endpoint.\n\n- `redirect_uri` must exactly match one registered for the client (scheme, host, port, path); an unknown client or redirect URI is an error page, never a redirect.\n- `scope` must include `openid`; each scope must be enabled for the client (`invalid_scope` otherwise).\n- PKCE is required: `code_challenge` (S256 of a random `code_verifier` you keep) with `code_challenge_method=S256`.\n- Compare the returned `state` with the one you stored before using the code, and the id token's `nonce` with yours.\n\nA request the client could have made wrongly (a missing scope, no PKCE) comes back to `redirect_uri` with `error` and `error_description` instead of a code.",
      tag: 'login',
      security: 'none',
      browser: true,
      query: authorizeQuery,
      examples: {
        redirect:
          'https://staff.example/callback?code=Yx3vQ0c9bXo2mWkqL7sJtA&state=af0ifjsldkj&iss=https%3A%2F%2Fverity.example',
      },
    },
    {
      method: 'post',
      path: '/api/auth/oidc/authorize',
      summary: 'Start a login with a form post (browser)',
      description:
        'The same authorization request as `GET /api/auth/oidc/authorize`, its parameters sent as a form post (OIDC Core 3.1.2.1).',
      tag: 'login',
      security: 'none',
      browser: true,
      body: authorizeQuery,
      bodyTypes: ['application/x-www-form-urlencoded'],
      examples: {
        request: {
          client_id: 'vc_5f2b9c0d1e3a4b6c7d8e9f01',
          redirect_uri: 'https://staff.example/callback',
          response_type: 'code',
          scope: 'openid profile',
          state: 'af0ifjsldkj',
          nonce: 'n-0S6_WzA2Mj',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        },
        redirect:
          'https://staff.example/callback?code=Yx3vQ0c9bXo2mWkqL7sJtA&state=af0ifjsldkj&iss=https%3A%2F%2Fverity.example',
      },
    },
    {
      method: 'post',
      path: '/api/auth/oidc/token',
      summary: 'Exchange a code or refresh token for tokens',
      description:
        'Your server exchanges what the login redirect brought back for tokens.\n\n- **`authorization_code`**: `code` (single use, valid about 60 seconds), the same `redirect_uri` as the authorization request, and the PKCE `code_verifier`. Answers an access token (about 15 minutes), a refresh token and the id token (RS256, with your `nonce`).\n- **`refresh_token`**: the current refresh token. Refresh tokens rotate: the answer carries a new one and the one you sent stops working. Sending a rotated-away token again revokes every refresh token of that sign-in (a stolen token is then useless).\n\nAuthenticate the client with `client_id` and `client_secret` in the body (`client_secret_post`) or in `Authorization: Basic` (`client_secret_basic`); never from a browser. Form-encoded bodies (what OAuth libraries send) get OAuth errors (`{ error, error_description }`), JSON bodies the envelope. Parameters a request does not need are ignored, as OAuth 2.0 requires.',
      tag: 'login',
      security: 'none',
      bare: true,
      body: tokenRequest,
      bodyTypes: OAUTH_BODY,
      response: tokenResponseWire,
      errors: [
        'invalid_request',
        'invalid_client',
        'invalid_grant',
        'unsupported_grant_type',
        'invalid_scope',
        'invalid_target',
      ],
      examples: {
        request: {
          grant_type: 'authorization_code',
          code: 'Yx3vQ0c9bXo2mWkqL7sJtA',
          redirect_uri: 'https://staff.example/callback',
          code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
          client_id: 'vc_5f2b9c0d1e3a4b6c7d8e9f01',
          client_secret: 'vcs_Zm9yRXhhbXBsZU9ubHlOb3RBUmVhbFNlY3JldDA',
        },
        response: {
          access_token: 'vt_Qm9Xb2R5c0dQd2p2a1hWbE9yN2tzTjJjWXh4cUFm',
          token_type: 'Bearer',
          expires_in: 900,
          refresh_token: 'vr_T2hSbmV2ZXJMb29rc0xpa2VBUmVhbFRva2VuMTIz',
          id_token: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJzdmNfMTIzIn0.c2lnbmF0dXJl',
          scope: 'openid profile',
        },
      },
    },
    {
      method: 'post',
      path: '/api/auth/oidc/revoke',
      summary: 'Revoke a token',
      description:
        "Revokes one of your client's access or refresh tokens (RFC 7009), e.g. when the person signs out of your app. Revoking a refresh token also revokes the access tokens of its sign-in. The answer is 200 whatever the token was (unknown, expired, another client's: nothing happens), so it reveals nothing. The client authenticates as at the token endpoint.",
      tag: 'login',
      security: 'none',
      bare: true,
      body: tokenLookup,
      bodyTypes: OAUTH_BODY,
      response: revocationWire,
      errors: ['invalid_request', 'invalid_client'],
      examples: {
        request: {
          token: 'vr_T2hSbmV2ZXJMb29rc0xpa2VBUmVhbFRva2VuMTIz',
          token_type_hint: 'refresh_token',
          client_id: 'vc_5f2b9c0d1e3a4b6c7d8e9f01',
          client_secret: 'vcs_Zm9yRXhhbXBsZU9ubHlOb3RBUmVhbFNlY3JldDA',
        },
        response: {},
      },
    },
    {
      method: 'post',
      path: '/api/auth/oidc/introspect',
      summary: 'Introspect a token',
      description:
        "Says whether one of your client's tokens is active now (RFC 7662), with its `scope`, `client_id`, `sub`, `exp`, `iat` and `token_type`. A token that is expired, revoked, unknown or another client's answers only `{ active: false }`. The client authenticates as at the token endpoint.",
      tag: 'login',
      security: 'none',
      bare: true,
      body: tokenLookup,
      bodyTypes: OAUTH_BODY,
      response: introspectionWire,
      errors: ['invalid_request', 'invalid_client'],
      examples: {
        request: {
          token: 'vt_Qm9Xb2R5c0dQd2p2a1hWbE9yN2tzTjJjWXh4cUFm',
          client_id: 'vc_5f2b9c0d1e3a4b6c7d8e9f01',
          client_secret: 'vcs_Zm9yRXhhbXBsZU9ubHlOb3RBUmVhbFNlY3JldDA',
        },
        response: {
          active: true,
          token_type: 'Bearer',
          scope: 'openid profile verifications',
          client_id: 'vc_5f2b9c0d1e3a4b6c7d8e9f01',
          sub: 'svc_8d2f4a6b1c3e5f7091a2b3c4',
          iss: 'https://verity.example',
          exp: 1795843800,
          iat: 1795842900,
        },
      },
    },
    {
      method: 'get',
      path: '/api/auth/oidc/logout',
      summary: 'Log the person out (browser)',
      description:
        "Send the person's browser here to sign them out (OIDC RP-initiated logout): `id_token_hint` (their id token; an expired one is accepted) proves who, `post_logout_redirect_uri` (exactly one of your registered redirect URIs) is where they return, with your `state`. Their refresh and access tokens for your client are revoked and the browser's sign-in ends. When this browser is not signed in as the hint's person, a page asks them to confirm first.",
      tag: 'login',
      security: 'none',
      browser: true,
      query: logoutQuery,
      examples: { redirect: 'https://staff.example/signed-out?state=xyz-7781' },
    },
    {
      method: 'post',
      path: '/api/auth/oidc/logout',
      summary: 'Log out: the confirmation form (browser)',
      description:
        "What the sign-out confirmation page posts (the parameters of the logout request, and its CSRF token): revokes the person's tokens for the client, ends the browser's sign-in and redirects to `post_logout_redirect_uri`. Not called by your server.",
      tag: 'login',
      security: 'none',
      browser: true,
      body: logoutQuery.extend({ csrf: z.string().describe("the confirmation page's CSRF token") }),
      bodyTypes: ['application/x-www-form-urlencoded'],
      examples: {
        request: {
          id_token_hint: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJzdmNfMTIzIn0.c2lnbmF0dXJl',
          post_logout_redirect_uri: 'https://staff.example/signed-out',
          state: 'xyz-7781',
          csrf: 'c3JmLXRva2VuLWV4YW1wbGU',
        },
        redirect: 'https://staff.example/signed-out?state=xyz-7781',
      },
    },
    {
      method: 'get',
      path: '/api/auth/oidc/userinfo',
      summary: "The person's claims",
      description:
        "The signed-in person's claims for the scopes granted: `sub`, `svc_id`, `preferred_username`, `email`, `email_verified`, `name` and `id_verified`, as top-level JSON. Needs an access token with the `profile` scope (403 `insufficient_scope` otherwise, with `WWW-Authenticate` saying so). Never returns raw identity data (date of birth, document number, address).",
      tag: 'account',
      security: 'accessToken',
      bare: true,
      response: userinfoWire,
      errors: ['invalid_token', 'insufficient_scope'],
      examples: { response: USERINFO_EXAMPLE },
    },
    {
      method: 'post',
      path: '/api/auth/oidc/userinfo',
      summary: "The person's claims (POST)",
      description:
        'The same claims as `GET /api/auth/oidc/userinfo`, for clients that call userinfo with POST (OIDC Core 5.3.1).',
      tag: 'account',
      security: 'accessToken',
      bare: true,
      response: userinfoWire,
      examples: { response: USERINFO_EXAMPLE },
      errors: ['invalid_token', 'insufficient_scope'],
    },
    {
      method: 'get',
      path: '/api/auth/oidc/licenses',
      summary: "The person's licences",
      description:
        "The professional licences on the person's account (verified against the issuing boards): type, number, status, expiry and issuer. Needs an access token; no particular scope.",
      tag: 'account',
      security: 'accessToken',
      response: licensesWire,
      errors: ['invalid_token', 'insufficient_scope'],
      examples: {
        response: {
          licenses: [
            {
              type: 'nurse_licenses',
              number: 'RN-648213',
              status: 'active',
              expires_on: '2027-06-30',
              issuer: 'California Board of Registered Nursing',
            },
          ],
        },
      },
    },
    {
      method: 'get',
      path: '/api/auth/oidc/verifications',
      summary: "The person's verification status",
      description:
        'Whether the person is verified (`id_verified`: their identity document was verified in an approved session; `human_verified`: a liveness check proved a live person, or `id_verified` when none is on file) and which licences were verified, from where and until when. Needs the `verifications` scope. Proofs only: no raw identity data.',
      tag: 'account',
      security: 'accessToken',
      response: verificationsWire,
      errors: ['invalid_token', 'insufficient_scope'],
      examples: {
        response: {
          verifications: {
            human_verified: true,
            id_verified: true,
            licenses: [
              {
                license_type: 'Registered Nurse',
                verified: true,
                verified_from: 'California Board of Registered Nursing',
                expire_at: '2027-06-30T23:59:59.000Z',
              },
            ],
          },
        },
      },
    },
  );
  return router;
}
