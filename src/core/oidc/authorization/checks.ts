import { one } from '../context.js';
import { pickUiLocale, type UiLocale } from '../ui-locales.js';
import { PROMPT_VALUES, promptsOf } from './types.js';

/** What a check needs to know about the client (a RegisteredClient, or a plain object in tests). */
export interface AuthorizeClient {
  clientId: string;
  name: string;
  active: boolean;
  redirectUris: string[];
  scopes: readonly string[];
  /**
   * Whether a request must carry a PKCE S256 challenge (every client, unless opted out as a confidential legacy one).
   */
  requirePkce: boolean;
}

/**
 * One authorization request while it is checked: the raw query, and what the checks so far have
 * established. Each check reads what earlier ones set and adds its own.
 */
export interface AuthorizeContext {
  readonly query: Record<string, unknown>;
  /** Finds a client by id: the only I/O any check does. */
  readonly findClient: (clientId: string) => Promise<AuthorizeClient | null>;
  /** The resource identifiers a request may name in `resource` (RFC 8707); none when absent. */
  readonly resources?: readonly string[];
  clientId?: string;
  client?: AuthorizeClient;
  /** Set once it is one of the client's registered URIs exactly: from then on errors go back there. */
  redirectUri?: string;
  state?: string;
  scopes: string[];
  codeChallenge?: string;
  prompt?: string;
  maxAge?: number;
  nonce?: string;
  uiLocale?: UiLocale;
  resource?: string;
}

/**
 * What a check found wrong: `page` before the redirect URI is trusted (shown to the person, never
 * redirected: that would be an open redirect), `error` after it (sent back to the client).
 */
export type CheckFailure = { page: string } | { error: string; description: string };

/** One rule of the authorization endpoint. Returns nothing when the request passes it. */
export type AuthorizeCheck = (ctx: AuthorizeContext) => CheckFailure | undefined | Promise<CheckFailure | undefined>;

const invalidRequest = (description: string): CheckFailure => ({ error: 'invalid_request', description });

// ---- before the redirect URI is trusted: failures are shown on a page ----

export const checkClientId: AuthorizeCheck = (ctx) => {
  ctx.clientId = one(ctx.query.client_id);
  return ctx.clientId ? undefined : { page: 'client_id is missing.' };
};

export const loadClient: AuthorizeCheck = async (ctx) => {
  const client = await ctx.findClient(ctx.clientId!);
  if (!client || !client.active) return { page: 'This application is unknown or not active.' };
  ctx.client = client;
  return undefined;
};

export const checkRedirectUri: AuthorizeCheck = (ctx) => {
  const redirectUri = one(ctx.query.redirect_uri);
  if (!redirectUri || !ctx.client!.redirectUris.includes(redirectUri))
    return { page: 'The redirect_uri is not registered for this application.' };
  ctx.redirectUri = redirectUri;
  ctx.state = one(ctx.query.state);
  return undefined;
};

// ---- after: failures go back to the client with error, state and iss ----

/** Request objects are not supported (discovery says so); OIDC Core 6 names the error. */
export const rejectRequestObject: AuthorizeCheck = (ctx) =>
  ctx.query.request !== undefined
    ? {
        error: 'request_not_supported',
        description: 'request objects are not supported: send the parameters themselves',
      }
    : undefined;

export const rejectRequestUri: AuthorizeCheck = (ctx) =>
  ctx.query.request_uri !== undefined
    ? {
        error: 'request_uri_not_supported',
        description: 'request_uri is not supported: send the parameters themselves',
      }
    : undefined;

export const checkResponseType: AuthorizeCheck = (ctx) =>
  one(ctx.query.response_type) !== 'code'
    ? { error: 'unsupported_response_type', description: 'only response_type=code is supported' }
    : undefined;

export const checkState: AuthorizeCheck = (ctx) => (ctx.state ? undefined : invalidRequest('state is required'));

export const checkOpenidScope: AuthorizeCheck = (ctx) => {
  ctx.scopes = [...new Set((one(ctx.query.scope) ?? '').split(' ').filter(Boolean))];
  return ctx.scopes.includes('openid')
    ? undefined
    : { error: 'invalid_scope', description: 'the openid scope is required' };
};

export const checkScopesEnabled: AuthorizeCheck = (ctx) => {
  const notEnabled = ctx.scopes.filter((scope) => !ctx.client!.scopes.includes(scope));
  return notEnabled.length
    ? { error: 'invalid_scope', description: `scope not enabled for this application: ${notEnabled.join(' ')}` }
    : undefined;
};

export const checkCodeChallengeMethod: AuthorizeCheck = (ctx) => {
  ctx.codeChallenge = one(ctx.query.code_challenge);
  if (ctx.codeChallenge !== undefined && (one(ctx.query.code_challenge_method) ?? 'plain') !== 'S256')
    return invalidRequest('code_challenge_method must be S256');
  return undefined;
};

export const checkCodeChallengeFormat: AuthorizeCheck = (ctx) =>
  ctx.codeChallenge !== undefined && !/^[A-Za-z0-9_-]{43,128}$/.test(ctx.codeChallenge)
    ? invalidRequest('code_challenge is malformed')
    : undefined;

/**
 * PKCE for every client (RFC 9700 2.1.1: it binds the code to the session that asked for it, so
 * a code stolen or injected on the way back is worth nothing), unless the client is registered
 * without it (`requirePkce` false: a confidential legacy client, whose secret then guards the code).
 */
export const checkPkceRequired: AuthorizeCheck = (ctx) =>
  ctx.codeChallenge === undefined && ctx.client!.requirePkce
    ? invalidRequest('code_challenge is required: this application must use PKCE with code_challenge_method=S256')
    : undefined;

export const checkMaxAge: AuthorizeCheck = (ctx) => {
  const text = one(ctx.query.max_age);
  ctx.maxAge = text === undefined ? undefined : Number(text);
  if (ctx.maxAge !== undefined && (!Number.isInteger(ctx.maxAge) || ctx.maxAge < 0))
    return invalidRequest('max_age must be a non-negative integer');
  return undefined;
};

export const checkPromptValues: AuthorizeCheck = (ctx) => {
  ctx.prompt = one(ctx.query.prompt);
  return promptsOf(ctx.prompt).some((value) => !PROMPT_VALUES.includes(value))
    ? invalidRequest('unsupported prompt value')
    : undefined;
};

export const checkPromptNoneAlone: AuthorizeCheck = (ctx) => {
  const prompts = promptsOf(ctx.prompt);
  return prompts.includes('none') && prompts.length > 1
    ? invalidRequest('prompt=none cannot be combined with another value')
    : undefined;
};

export const checkNonce: AuthorizeCheck = (ctx) => {
  ctx.nonce = one(ctx.query.nonce);
  return ctx.nonce !== undefined && ctx.nonce.length > 512 ? invalidRequest('nonce is too long') : undefined;
};

/**
 * RFC 8707: `resource` names the one resource the token is for (its audience), exactly one the
 * provider knows (the MCP endpoint, the credential issuer); anything else is `invalid_target`.
 * Without it the token is for the account endpoints.
 */
export const checkResource: AuthorizeCheck = (ctx) => {
  const value = ctx.query.resource;
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(ctx.resources ?? []).includes(value))
    return {
      error: 'invalid_target',
      description: 'resource must be the URL of a resource this provider serves (one)',
    };
  ctx.resource = value;
  return undefined;
};

/** Never fails: the pages' language from `ui_locales`, English when none is written. */
export const pickLocale: AuthorizeCheck = (ctx) => {
  ctx.uiLocale = pickUiLocale(one(ctx.query.ui_locales));
  return undefined;
};
