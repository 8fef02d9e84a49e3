import { randomBytes } from 'node:crypto';
import type { Express, RequestHandler, Response } from 'express';

/**
 * The page policy when a page sets none of its own: our origin only, no framing, forms only to
 * us, inline scripts only with this response's nonce, stylesheets from us only.
 * `formTargets` widens form-action for the sign-in and consent pages, whose form posts end in a
 * redirect to the client (browsers apply form-action to the redirects that follow a submission).
 */
const defaultPolicy = (nonce: string, formTargets: string[] = []) =>
  `default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; script-src 'self' 'nonce-${nonce}'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action ${["'self'", ...formTargets].join(' ')}`;

/**
 * Lets this page's forms end at `redirectUri` (a registered redirect URI of the client): its origin
 * for http(s), its scheme for an app's custom scheme.
 */
export function allowFormRedirect(res: Response, redirectUri: string): void {
  const url = new URL(redirectUri);
  res.locals.formTargets = [url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol];
}

const API_PATH = /^\/api\//i;

/**
 * Headers on every response: no MIME sniffing, no referrer leaving our pages (links carry tokens),
 * HSTS when the issuer is https, `Cache-Control: no-store` on the API (check results, decisions,
 * tokens and userinfo hold personal data; routes that may be cached, like the JWKS, say so
 * themselves). The CSP of HTML pages is `pagePolicyAsHeadIsWritten`'s.
 */
export function securityHeaders(https: boolean): RequestHandler {
  return (req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    // No page of ours is meant to be framed (clickjacking); CSP frame-ancestors says the same to newer browsers.
    res.setHeader('X-Frame-Options', 'DENY');
    if (https) res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    // Any spelling: routing is case-sensitive, so `/API/...` is a 404, but that answer is no-store too.
    if (API_PATH.test(req.path)) res.setHeader('Cache-Control', 'no-store');
    next();
  };
}

/**
 * A CSP with a fresh nonce on every HTML page that did not set its own, added as the head is
 * written (only then is the content type known). Set once on the app's response prototype, not
 * wrapped around each response: a wrapper and a getter per request were a tenth of a cheap
 * request's cost, for the few that are pages.
 */
export function pagePolicyAsHeadIsWritten(app: Express): void {
  const writeHead = app.response.writeHead;
  app.response.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
    if (
      !this.getHeader('Content-Security-Policy') &&
      /^text\/html/i.test(String(this.getHeader('Content-Type') ?? ''))
    ) {
      this.setHeader(
        'Content-Security-Policy',
        defaultPolicy(randomBytes(16).toString('base64'), this.locals.formTargets as string[] | undefined),
      );
    }
    return writeHead.apply(this, args);
  } as Response['writeHead'];
}

/**
 * `If-None-Match: *` on a GET asks "is there any representation?", and Express answers any 200 to
 * it with 304 Not Modified, whatever the body: a page or an API answer made for this request
 * (no-store, a fresh CSP nonce) would come back empty, to a client with nothing cached. The
 * wildcard is dropped; an `If-None-Match` naming ETags still gets its 304 where one matches.
 */
export const ignoreWildcardIfNoneMatch: RequestHandler = (req, _res, next) => {
  if (req.headers['if-none-match']?.trim() === '*') delete req.headers['if-none-match'];
  next();
};
