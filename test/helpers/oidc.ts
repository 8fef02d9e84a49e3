import { createHash, randomBytes } from 'node:crypto';
import type { TestService } from './service.js';

/** Drives the sign-in and consent pages with plain HTTP (the browser test does it with Chromium). */
export class PageDriver {
  cookie = '';

  constructor(private readonly service: TestService) {}

  private remember(res: { headers: Record<string, unknown> }) {
    const set = res.headers['set-cookie'] as string[] | undefined;
    for (const line of set ?? []) {
      const [pair] = line.split(';');
      if (pair!.startsWith('verity_session=')) this.cookie = pair!.endsWith('=') ? '' : pair!;
    }
  }

  async get(path: string) {
    const res = await this.service.http.get(path).set('Cookie', this.cookie);
    this.remember(res);
    return res;
  }

  async post(path: string, form: Record<string, string>) {
    const res = await this.service.http.post(path).type('form').set('Cookie', this.cookie).send(form);
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
