import { createHash, randomBytes } from 'node:crypto';
import type { TestService } from './service.js';

/** Drives the sign-in and consent pages with plain HTTP (the browser test does it with Chromium). */
export class PageDriver {
  /** The browser session cookie (`verity_session=...`), '' when signed out. */
  cookie = '';
  /** The CSRF cookie's value: the forms' hidden `csrf` field carries it, as a browser's would. */
  csrf = '';

  constructor(private readonly service: TestService) {}

  private remember(res: { headers: Record<string, unknown> }) {
    const set = res.headers['set-cookie'] as string[] | undefined;
    for (const line of set ?? []) {
      const [pair] = line.split(';');
      if (pair!.startsWith('verity_session=')) this.cookie = pair!.endsWith('=') ? '' : pair!;
      if (pair!.startsWith('verity_csrf=')) this.csrf = pair!.slice('verity_csrf='.length);
    }
  }

  private cookies(): string {
    return [this.cookie, this.csrf && `verity_csrf=${this.csrf}`].filter(Boolean).join('; ');
  }

  async get(path: string) {
    const res = await this.service.http.get(path).set('Cookie', this.cookies());
    this.remember(res);
    return res;
  }

  /** Posts a form as the page would: with the hidden csrf field unless the caller sets one. */
  async post(path: string, form: Record<string, string>) {
    const res = await this.service.http
      .post(path)
      .type('form')
      .set('Cookie', this.cookies())
      .send({ csrf: this.csrf, ...form });
    this.remember(res);
    return res;
  }
}

export const interactionOf = (html: string) => /name="interaction" value="([^"]+)"/.exec(html)?.[1] ?? '';

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizePath(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined) as [string, string][]);
  return `/api/auth/oidc/authorize?${query}`;
}
