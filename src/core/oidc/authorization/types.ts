import type { UiLocale } from '../ui-locales.js';

/** The authorization request once its client and redirect URI are trusted. */
export interface AuthorizeRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  scopes: string[];
  state: string;
  nonce?: string;
  codeChallenge?: string;
  prompt?: string;
  maxAge?: number;
  /** The pages' language, picked from `ui_locales` (see ui-locales.ts). */
  uiLocale?: UiLocale;
  /** The resource the token is for (RFC 8707), or undefined for the account endpoints. */
  resource?: string;
}

export type AuthorizeStep =
  | { kind: 'error_page'; message: string }
  | { kind: 'redirect'; url: string }
  | { kind: 'login'; interaction: string; clientName: string; error?: string; locale?: UiLocale }
  | { kind: 'consent'; interaction: string; clientName: string; scopes: string[]; locale?: UiLocale };

export interface BrowserSession {
  accountId: string;
  authTime: Date;
}

/**
 * The prompt values a request may list (space-separated, OIDC Core 3.1.2.1); select_account is accepted and means
 * nothing here (one account per browser).
 */
export const PROMPT_VALUES = ['none', 'login', 'consent', 'select_account'];

export const promptsOf = (prompt: string | undefined): string[] => (prompt ?? '').split(' ').filter(Boolean);

/**
 * `uri` with `params` appended to its query, percent-encoded (RFC 3986, `%20` for a space), never
 * form-encoded (`+`): `state` must come back exactly as the client encoded it. The URI's own query
 * is kept byte for byte.
 */
export function withQueryParams(uri: string, params: Record<string, string | undefined>): string {
  const added = Object.entries(params)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value!)}`);
  // Registered redirect URIs carry no fragment (RFC 6749 3.1.2); drop one all the same.
  const base = uri.split('#')[0]!;
  if (!added.length) return base;
  const joiner = !base.includes('?') ? '?' : /[?&]$/.test(base) ? '' : '&';
  return `${base}${joiner}${added.join('&')}`;
}

/** The client's `redirectUri` with `params` and `iss` (RFC 9207) added. */
export function redirectWith(issuer: string, redirectUri: string, params: Record<string, string | undefined>): string {
  return withQueryParams(redirectUri, { ...params, iss: issuer });
}

/** An error sent back to the client: `error`, `error_description`, `state` and `iss`. */
export function errorRedirect(
  issuer: string,
  redirectUri: string,
  error: string,
  description: string,
  state?: string,
): AuthorizeStep {
  return { kind: 'redirect', url: redirectWith(issuer, redirectUri, { error, error_description: description, state }) };
}
