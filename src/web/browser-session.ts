import type { Request, Response } from 'express';
import { DomainError } from '../core/errors.js';
import type { Core } from '../core/index.js';
import type { BrowserSession } from '../core/oidc/provider.js';

// The person's browser session with the login: its cookie, and signing in from a page's form.
// Shared by the login pages, the account pages and the roster activation page.

const COOKIE = 'verity_session';

/** The browser session secret from the request's cookie (login pages and the roster activation page). */
export function sessionCookie(req: Request): string | undefined {
  const header = req.get('cookie') ?? '';
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === COOKIE) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/** The session cookie's header: HttpOnly, SameSite=Lax, Secure on an https issuer, living `maxAgeSeconds`. */
const sessionCookieHeader = (value: string, maxAgeSeconds: number, secure: boolean) =>
  `${COOKIE}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;

/** Starts the browser session, for 12 hours. */
export function setSessionCookie(res: Response, value: string, secure: boolean): void {
  res.append('Set-Cookie', sessionCookieHeader(value, 43200, secure));
}

/** Ends the browser session: the same cookie, emptied and expired. */
export function clearSessionCookie(res: Response, secure: boolean): void {
  res.append('Set-Cookie', sessionCookieHeader('', 0, secure));
}

export type SignInAttempt =
  | { signedIn: { cookie: string; session: BrowserSession } }
  | { signedIn: null; status: 401 | 429; message: string };

/**
 * Signs a person in from a page's form: the session, or why not (a wrong email or password, 401;
 * too many failed attempts, 429 with Retry-After already set; see LoginThrottle).
 */
export async function signInFromPage(
  oidc: Core['oidc'],
  email: string,
  password: string,
  req: Request,
  res: Response,
): Promise<SignInAttempt> {
  try {
    const signedIn = await oidc.signIn(email, password, req.socket.remoteAddress ?? 'unknown');
    return signedIn ? { signedIn } : { signedIn: null, status: 401, message: 'Wrong email or password.' };
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'rate_limited') throw error;
    const seconds = error.retryAfterSeconds ?? 60;
    res.setHeader('Retry-After', String(seconds));
    return {
      signedIn: null,
      status: 429,
      message: `Too many failed sign-ins. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`,
    };
  }
}
