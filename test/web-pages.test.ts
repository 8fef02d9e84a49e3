import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagePage, resetPasswordPage } from '../src/web/login-pages.js';
import { startTestService, type TestService } from './helpers/service.js';

// The pages as built front-end code (issue 22): every page is HTML from web/templates with its
// script and stylesheets from the web/ build, served from our origin with hashed names.

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

const PAGES = [
  '/',
  '/verify/ses_x',
  '/admin',
  '/activate/not-a-real-invitation',
  '/api/auth/oidc/signup',
  '/api/auth/oidc/forgot-password',
  '/api/auth/oidc/reset-password?token=x',
];
const assetUrls = (html: string) => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);

describe('pages and their assets', () => {
  it('no page carries an inline script or stylesheet; each links a stylesheet of the design system', async () => {
    for (const path of PAGES) {
      const page = await service.http.get(path);
      expect(page.headers['content-type'], path).toMatch(/text\/html/);
      expect(page.text, path).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(page.text, path).not.toMatch(/<style|\sstyle="/);
      expect(
        assetUrls(page.text).some((url) => url.endsWith('.css')),
        path,
      ).toBe(true);
      expect(page.headers['content-security-policy'], path).not.toMatch(/'unsafe-inline'/);
    }
  });

  it('serves every linked asset with a hashed name, the right type and a year of immutable caching', async () => {
    const urls = new Set<string>();
    for (const path of ['/verify/ses_x', '/admin', '/'])
      for (const url of assetUrls((await service.http.get(path)).text)) urls.add(url);
    expect([...urls].some((url) => /\/assets\/hosted-[\w-]{8}\.js$/.test(url))).toBe(true);
    expect([...urls].some((url) => /\/assets\/console-[\w-]{8}\.js$/.test(url))).toBe(true);
    for (const url of urls) {
      const asset = await service.http.get(url);
      expect(asset.status, url).toBe(200);
      expect(asset.headers['content-type'], url).toMatch(url.endsWith('.js') ? /javascript/ : /text\/css/);
      expect(asset.headers['cache-control'], url).toBe('public, max-age=31536000, immutable');
    }
  });

  it('If-None-Match: * is no reason for a 304: every page and API answer made per request comes whole; an asset still answers its own ETag with 304', async () => {
    for (const path of [...PAGES, '/healthz', '/api/auth/oidc/jwks.json']) {
      const page = await service.http.get(path).set('If-None-Match', '*');
      expect(page.status, path).not.toBe(304);
      expect(page.text.length, path).toBeGreaterThan(0);
    }
    const api = await service.http
      .get('/api/v2/session?limit=1')
      .set('X-API-Key', service.demo.api_key)
      .set('If-None-Match', '*');
    expect(api.status).toBe(200);
    // Answers made per request carry no ETag (none could ever match); assets do.
    expect(api.headers.etag).toBeUndefined();
    expect((await service.http.get('/')).headers.etag).toBeUndefined();
    const [asset] = assetUrls((await service.http.get('/')).text);
    const first = await service.http.get(asset!);
    expect(first.headers.etag).toBeDefined();
    expect((await service.http.get(asset!).set('If-None-Match', first.headers.etag)).status).toBe(304);
  });

  it('an unknown asset is a 404 in the error envelope, and the old unhashed script paths are gone', async () => {
    for (const path of ['/assets/nope-12345678.js', '/verify/assets/app.js', '/admin/assets/console.js']) {
      const missing = await service.http.get(path);
      expect(missing.status, path).toBe(404);
      expect(missing.body.error?.code, path).toBe('not_found');
    }
  });

  it('the hosted page is served in the language asked for: ui_locales on the link, else Accept-Language, else English', async () => {
    const language = async (path: string, acceptLanguage?: string) => {
      const request = service.http.get(path);
      const page = await (acceptLanguage ? request.set('Accept-Language', acceptLanguage) : request);
      return [/<html lang="([a-z]+)"/.exec(page.text)?.[1], page.headers['content-language']];
    };
    expect(await language('/verify/ses_x', 'es-ES,es;q=0.9,en;q=0.5')).toEqual(['es', 'es']);
    expect(await language('/verify/ses_x', 'fr-CA')).toEqual(['fr', 'fr']);
    expect(await language('/verify/ses_x?ui_locales=ja%20de-AT', 'es')).toEqual(['de', 'de']);
    expect(await language('/verify/ses_x', 'ja, zh;q=0.8')).toEqual(['en', 'en']);
    expect(await language('/verify/ses_x')).toEqual(['en', 'en']);
  });

  it('templates escape what they are given, in text and in attributes', () => {
    const html = messagePage('<script>alert(1)</script>', '"quoted" & <b>bold</b>');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(html).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt; · Verity</title>');
    expect(html).toContain('<p>&quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt;</p>');
    const form = resetPasswordPage({ token: '"><script>x</script>', csrf: 'c' });
    expect(form).toContain('<input type="hidden" name="token" value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;">');
  });
});
