import supertest from 'supertest';
import { authorizePath, interactionOf, PageDriver, pkce } from '../../test/helpers/oidc.js';
import type { TestService } from '../../test/helpers/service.js';
import type { InProcessService } from './in-process.js';

// The authorization-code flow over real HTTP, as test/oidc.test.ts drives it (sign-in and
// consent pages, then the token endpoint), for tests that need real codes and token pairs.

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  id_token: string;
}

export class OidcFlow {
  private readonly http: ReturnType<typeof supertest>;

  constructor(
    readonly service: InProcessService,
    readonly client = service.demo.oidc,
    readonly user = service.demo.account,
  ) {
    this.http = supertest(service.url);
  }

  /**
   * Signs the user in (or, with `signUp`, creates that account on the sign-up page and signs it in) and consents;
   * returns the code and its PKCE verifier.
   */
  async code(
    scope = 'openid profile verifications',
    signUp?: { email: string; password: string; name: string },
  ): Promise<{ code: string; verifier: string }> {
    const driver = new PageDriver({ http: this.http } as unknown as TestService);
    const { verifier, challenge } = pkce();
    const redirectUri = this.client.redirect_uris[0]!;
    let res = await driver.get(
      authorizePath({
        client_id: this.client.client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope,
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    if (signUp) {
      // Sign-up never signs in (it must answer a taken address the same): it shows the sign-in form.
      const interaction = interactionOf(res.text);
      res = await driver.post('/api/auth/oidc/signup', { interaction, ...signUp });
      res = await driver.post('/api/auth/oidc/login', { interaction, email: signUp.email, password: signUp.password });
    } else if (res.text.includes('name="password"'))
      res = await driver.post('/api/auth/oidc/login', {
        interaction: interactionOf(res.text),
        email: this.user.email,
        password: this.user.password,
      });
    if (res.text.includes('value="allow"'))
      res = await driver.post('/api/auth/oidc/consent', { interaction: interactionOf(res.text), decision: 'allow' });
    const code = res.headers.location ? new URL(res.headers.location as string).searchParams.get('code') : null;
    if (!code) throw new Error(`sign-in did not end with a code: ${res.status} ${res.text.slice(0, 200)}`);
    return { code, verifier };
  }

  exchange(code: string, verifier: string) {
    return this.token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.client.redirect_uris[0]!,
      code_verifier: verifier,
    });
  }

  refresh(refreshToken: string) {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  token(body: Record<string, string>) {
    return this.http
      .post('/api/auth/oidc/token')
      .type('form')
      .send({ client_id: this.client.client_id, client_secret: this.client.client_secret, ...body });
  }

  /** A fresh sign-in's token pair. */
  async tokens(scope?: string, signUp?: { email: string; password: string; name: string }): Promise<TokenPair> {
    const { code, verifier } = await this.code(scope, signUp);
    const res = await this.exchange(code, verifier);
    if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as TokenPair;
  }

  /** GET userinfo with an access token: 200 while it is live. */
  async userinfoStatus(accessToken: string): Promise<number> {
    return (await this.http.get('/api/auth/oidc/userinfo').set('Authorization', `Bearer ${accessToken}`)).status;
  }
}
