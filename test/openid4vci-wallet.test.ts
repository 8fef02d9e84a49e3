import { createHash, randomBytes } from 'node:crypto';
import {
  clientAuthenticationClientSecretPost,
  type HashAlgorithm,
  type JwtSigner,
  setGlobalConfig,
  type SignJwtCallback,
} from '@openid4vc/oauth2';
import { Openid4vciClient } from '@openid4vc/openid4vci';
import { ES256 } from '@sd-jwt/crypto-nodejs';
import { digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interactionOf, PageDriver } from './helpers/oidc.js';
import { type ListeningService, startListeningService } from './helpers/service.js';

// A wallet written by others: OpenID4VC's TypeScript client (`@openid4vc/openid4vci`, the
// OpenID Foundation's oid4vc-ts) resolves our credential offer, validates our issuer and
// authorization server metadata with its own schemas, runs the authorization code flow with PKCE,
// proves its key and receives the credential. Only the person's sign-in and consent pages are
// driven by hand (a wallet shows them in a browser). The holder then shows one claim to an
// integrator. Nothing here uses Verity's own code to build a request.

let service: ListeningService;
let wallet: { clientId: string; clientSecret: string; redirectUri: string };

beforeAll(async () => {
  // The test service listens on http://127.0.0.1; the library refuses plain http unless told.
  setGlobalConfig({ allowInsecureUrls: true });
  service = await startListeningService();
  const redirectUri = 'https://wallet.example/callback';
  const { client, clientSecret } = await service.core.tenancy.createOidcClient({
    projectId: service.demo.project_id,
    name: 'OpenID4VC wallet',
    redirectUris: [redirectUri],
    scopes: ['openid', 'zkp'],
  });
  wallet = { clientId: client.clientId, clientSecret, redirectUri };
  await service.core.accounts.recordVerifiedIdentity({
    svcId: service.demo.account.svc_id,
    fullName: 'Noor Haddad',
    dateOfBirth: '1988-02-09',
    documentNumber: 'P7788123',
    documentExpiry: '2032-08-01',
    nationality: 'JOR',
  });
});
afterAll(async () => {
  setGlobalConfig({ allowInsecureUrls: false });
  await service?.close();
});

/** The wallet's callbacks: hashing, randomness and JWT signing with a key it holds, by jose. */
function walletCallbacks(privateJwk: JWK) {
  const signJwt: SignJwtCallback = async (signer: JwtSigner, { header, payload }) => {
    if (signer.method !== 'jwk') throw new Error(`the test wallet signs with its jwk only, not ${signer.method}`);
    const key = await importJWK(privateJwk, signer.alg);
    const jwt = await new SignJWT(payload as never).setProtectedHeader(header as never).sign(key);
    return { jwt, signerJwk: signer.publicJwk };
  };
  return {
    fetch,
    hash: (data: Uint8Array, alg: HashAlgorithm) =>
      new Uint8Array(createHash(alg.replace('-', '')).update(data).digest()),
    generateRandom: (length: number) => new Uint8Array(randomBytes(length)),
    signJwt,
    clientAuthentication: clientAuthenticationClientSecretPost({
      clientId: wallet.clientId,
      clientSecret: wallet.clientSecret,
    }),
  };
}

/** The person's part: sign in and allow, in the pages the wallet opened; the redirect's code. */
async function personAllows(authorizationRequestUrl: string, state: string): Promise<string> {
  const driver = new PageDriver(service);
  const url = new URL(authorizationRequestUrl);
  let res = await driver.get(`${url.pathname}${url.search}`);
  if (res.text.includes('name="password"'))
    res = await driver.post('/api/auth/oidc/login', {
      interaction: interactionOf(res.text),
      email: service.demo.account.email,
      password: service.demo.account.password,
    });
  expect(res.text).toContain('value="allow"');
  res = await driver.post('/api/auth/oidc/consent', { interaction: interactionOf(res.text), decision: 'allow' });
  expect(res.status, res.text).toBe(303);
  const redirect = new URL(res.headers.location as string);
  expect(redirect.origin + redirect.pathname).toBe(wallet.redirectUri);
  expect(redirect.searchParams.get('state')).toBe(state);
  return redirect.searchParams.get('code')!;
}

describe('an independent OpenID4VCI wallet', () => {
  it('validates our offer and metadata, receives a credential, and shows one claim to a verifier', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const privateJwk = await exportJWK(privateKey);
    const client = new Openid4vciClient({ callbacks: walletCallbacks(privateJwk) });

    // The offer as a wallet scans it: by reference, then resolved and schema-checked.
    const offerUri = `${service.url}/api/auth/oidc/credential-offer`;
    const offer = await client.resolveCredentialOffer(
      `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(offerUri)}`,
    );
    expect(offer.credential_configuration_ids).toEqual(['verity_identity_sd_jwt']);
    // Our issuer metadata and our authorization server metadata, through the library's schemas.
    const issuerMetadata = await client.resolveIssuerMetadata(offer.credential_issuer);
    expect(issuerMetadata.credentialIssuer.credential_issuer).toBe(service.url);
    expect(issuerMetadata.authorizationServers.map((server) => server.issuer)).toEqual([service.url]);
    expect(issuerMetadata.authorizationServers[0]!.code_challenge_methods_supported).toContain('S256');

    const authorization = await client.createAuthorizationRequestUrlFromOffer({
      credentialOffer: offer,
      issuerMetadata,
      clientId: wallet.clientId,
      redirectUri: wallet.redirectUri,
      scope: 'openid zkp',
    });
    expect(authorization.pkce?.codeVerifier).toBeTruthy();
    // OpenID4VCI: the request names the credential issuer as its resource (RFC 8707).
    expect(new URL(authorization.authorizationRequestUrl).searchParams.get('resource')).toBe(service.url);
    // The contract requires `state` on every authorization request; oid4vc-ts's request builder
    // drops it (its own `state` option overrides any extra), so the wallet adds it to the URL.
    const state = randomBytes(16).toString('base64url');
    const requestUrl = new URL(authorization.authorizationRequestUrl);
    requestUrl.searchParams.set('state', state);
    const code = await personAllows(requestUrl.href, state);

    const { accessTokenResponse } = await client.retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer: offer,
      issuerMetadata,
      authorizationCode: code,
      pkceCodeVerifier: authorization.pkce!.codeVerifier,
      redirectUri: wallet.redirectUri,
    });
    expect(accessTokenResponse.scope?.split(' ')).toContain('zkp');
    // Bound to the credential issuer (RFC 8707): refused at the account endpoints and at /mcp.
    const bearer = `Bearer ${accessTokenResponse.access_token}`;
    const userinfo = await service.http.get('/api/auth/oidc/userinfo').set('Authorization', bearer);
    expect(userinfo.status).toBe(401);
    const mcp = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: bearer,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(mcp.status).toBe(401);

    const { c_nonce } = await client.requestNonce({ issuerMetadata });
    const proof = await client.createCredentialRequestJwtProof({
      issuerMetadata,
      credentialConfigurationId: 'verity_identity_sd_jwt',
      signer: { method: 'jwk', alg: 'ES256', publicJwk: publicJwk as never },
      nonce: c_nonce,
      clientId: wallet.clientId,
    });
    const { credentialResponse } = await client.retrieveCredentials({
      issuerMetadata,
      accessToken: accessTokenResponse.access_token,
      credentialConfigurationId: 'verity_identity_sd_jwt',
      proofs: { jwt: [proof.jwt] },
    });
    const [issued] = credentialResponse.credentials ?? [];
    const credential = (issued as { credential: string }).credential;
    expect(typeof credential).toBe('string');

    // The holder shows age_over_18 alone, bound to the verifier's nonce and audience.
    const sdjwt = new SDJwtVcInstance({
      hasher: digest,
      saltGenerator: generateSalt,
      kbSigner: await ES256.getSigner(privateJwk),
      kbSignAlg: 'ES256',
    });
    const nonce = randomBytes(16).toString('base64url');
    const presentation = await sdjwt.present(credential, { age_over_18: true } as never, {
      kb: { payload: { iat: Math.floor(Date.now() / 1000), aud: 'https://bar.example', nonce } },
    });
    const verified = await service.http
      .post('/api/v2/credential-presentation')
      .set('X-API-Key', service.demo.api_key)
      .send({ presentation, nonce, audience: 'https://bar.example' });
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.data.claims).toEqual({ age_over_18: true });
    expect(JSON.stringify(verified.body)).not.toMatch(/Noor|Haddad|1988|JOR|P7788123/);
  });
});
