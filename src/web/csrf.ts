import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { safeEqual } from '../core/secrets.js';
import { messagePage } from './login-pages.js';

// Cross-site request forgery on the sign-in, sign-up, consent and activation forms (double
// submit): every page that shows one of these forms makes sure the browser holds a random
// `verity_csrf` cookie and puts the same value in a hidden `csrf` field; a post is taken only
// when the two agree. An attacker's page can make a victim's browser post a form, but cannot
// read or set our cookie, so it cannot sign the victim in to the attacker's account (login
// CSRF), nor consent or join a roster on their behalf.

const CSRF_COOKIE = 'verity_csrf';
const TOKEN = /^[A-Za-z0-9_-]{32}$/;

function csrfCookie(req: Request): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === CSRF_COOKIE && value && TOKEN.test(value)) return value;
  }
  return undefined;
}

/**
 * Middleware for the routes that render these forms: the browser's token in `res.locals.csrf`, set as a cookie when it
 * has none.
 */
export function issueCsrf(secure: boolean) {
  return (req: Request, res: Response, next: NextFunction) => {
    let token = csrfCookie(req);
    if (!token) {
      token = randomBytes(24).toString('base64url');
      res.append('Set-Cookie', `${CSRF_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
    }
    res.locals.csrf = token;
    next();
  };
}

/** Middleware for the form posts (after the body parser): 403 page unless the hidden field matches the cookie. */
export function requireCsrf(req: Request, res: Response, next: NextFunction): void {
  const cookie = csrfCookie(req);
  const sent = typeof req.body?.csrf === 'string' ? req.body.csrf : '';
  if (cookie && sent && safeEqual(sent, cookie)) {
    next();
    return;
  }
  res.status(403).setHeader('Cache-Control', 'no-store');
  res
    .type('html')
    .send(
      messagePage(
        'Form not accepted',
        'This form was not sent from this site, or your browser refused our cookie. Go back, reload the page and try again.',
      ),
    );
}
