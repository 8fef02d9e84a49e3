import { createHash } from 'node:crypto';
import { ES256 } from '@sd-jwt/crypto-nodejs';
import { digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { createLocalJWKSet, decodeJwt, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import { authorizePath, interactionOf, PageDriver, pkce } from './helpers/oidc.js';
import { type ListeningService, startListeningService } from './helpers/service.js';

// An independent holder: the wallet's keys are made here, it gets its credential through the real
// authorization code flow and the OpenID4VCI endpoints, and presents with the SD-JWT library's
// own holder code; the verifier is the integrator's POST /api/v2/credential-presentation.

const clock = new ManualClock(new Date());
let service: ListeningService;
let wallet: { client_id: string; client_secret: string; redirect_uri: string };
const AUDIENCE = 'https://shop.example';
const BIRTH = '1990-04-12';

/** A holder key pair, made in the test. */
async function holderKey() {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { publicKey, privateKey, publicJwk: await exportJWK(publicKey), privateJwk: await exportJWK(privateKey) };
}
type HolderKey = Awaited<ReturnType<typeof holderKey>>;

beforeAll(async () => {
  service = await startListeningService({}, { clock });
  const redirect = 'https://wallet.example/callback';
  const { client, clientSecret } = await service.core.tenancy.createOidcClient({
    projectId: service.demo.project_id,
    name: 'Test wallet',
    redirectUris: [redirect],
    scopes: ['openid', 'profile', 'zkp'],
  });
  wallet = { client_id: client.clientId, client_secret: clientSecret, redirect_uri: redirect };
  const svcId = service.demo.account.svc_id;
  await service.core.accounts.recordVerifiedIdentity({
    svcId,
    fullName: 'Dana Marie Whitfield',
    dateOfBirth: BIRTH,
    documentNumber: 'X1234567',
    documentExpiry: '2031-05-01',
    nationality: 'USA',
  });
  await service.core.accounts.badgeLicense(
    svcId,
    {
      type: 'Registered Nurse',
      number: 'RN-648213',
      status: 'active',
      issuer: 'California Board of Registered Nursing',
      stateCode: 'CA',
      expiresOn: '2031-06-30',
      verifiedFrom: 'California BRN',
      expireAt: new Date('2031-06-30T23:59:59Z'),
    },
    clock.now(),
  );
});
afterAll(async () => {
  await service?.close();
});

/** The authorization code flow a wallet runs (scope `openid zkp` by default): its access token. */
async function accessToken(
  client: { client_id: string; client_secret: string; redirect_uri: string } = wallet,
  scope = 'openid zkp',
): Promise<string> {
  const driver = new PageDriver(service);
  const { verifier, challenge } = pkce();
  let res = await driver.get(
    authorizePath({
      client_id: client.client_id,
      redirect_uri: client.redirect_uri,
      response_type: 'code',
      scope,
      state: 'st-wallet',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
  );
  if (res.text.includes('name="password"'))
    res = await driver.post('/api/auth/oidc/login', {
      interaction: interactionOf(res.text),
      email: service.demo.account.email,
      password: service.demo.account.password,
    });
  if (res.text.includes('value="allow"'))
    res = await driver.post('/api/auth/oidc/consent', { interaction: interactionOf(res.text), decision: 'allow' });
  expect(res.status, res.text).toBe(303);
  const code = new URL(res.headers.location as string).searchParams.get('code')!;
  const tokens = await service.http.post('/api/auth/oidc/token').type('form').send({
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirect_uri,
    code_verifier: verifier,
    client_id: client.client_id,
    client_secret: client.client_secret,
  });
  expect(tokens.status, tokens.text).toBe(200);
  return tokens.body.access_token as string;
}

/** A key proof (OpenID4VCI appendix F.1) over a fresh c_nonce, signed by the holder key. */
async function keyProof(
  holder: HolderKey,
  overrides: { nonce?: string; aud?: string; iat?: number } = {},
): Promise<string> {
  const nonce = overrides.nonce ?? (await service.http.post('/api/auth/oidc/nonce')).body.c_nonce;
  return new SignJWT({ nonce, iss: wallet.client_id })
    .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: holder.publicJwk })
    .setAudience(overrides.aud ?? service.url)
    .setIssuedAt(overrides.iat ?? Math.floor(clock.now().getTime() / 1000))
    .sign(holder.privateKey);
}

const requestCredential = (token: string, proof: string, body: Record<string, unknown> = {}) =>
  service.http
    .post('/api/auth/oidc/credential')
    .set('Authorization', `Bearer ${token}`)
    .send({ credential_configuration_id: 'verity_identity_sd_jwt', proofs: { jwt: [proof] }, ...body });

async function issueCredential(holder: HolderKey, token?: string): Promise<string> {
  const res = await requestCredential(token ?? (await accessToken()), await keyProof(holder));
  expect(res.status, res.text).toBe(200);
  return res.body.credentials[0].credential as string;
}

/** The holder presents what `frame` selects, with a key binding JWT over the integrator's nonce and audience. */
async function present(
  credential: string,
  holder: HolderKey | null,
  frame: Record<string, unknown>,
  kb: { nonce?: string; aud?: string; iat?: number } = {},
) {
  const sdjwt = new SDJwtVcInstance({
    hasher: digest,
    saltGenerator: generateSalt,
    ...(holder ? { kbSigner: await ES256.getSigner(holder.privateJwk), kbSignAlg: 'ES256' } : {}),
  });
  const nonce = kb.nonce ?? 'n-verifier-0001';
  const options = holder
    ? { kb: { payload: { iat: kb.iat ?? Math.floor(clock.now().getTime() / 1000), aud: kb.aud ?? AUDIENCE, nonce } } }
    : undefined;
  return sdjwt.present(credential, frame as never, options);
}

const verify = (presentation: string, nonce = 'n-verifier-0001', audience = AUDIENCE) =>
  service.http
    .post('/api/v2/credential-presentation')
    .set('X-API-Key', service.demo.api_key)
    .send({ presentation, nonce, audience });

describe('issuer metadata', () => {
  it('publishes OpenID4VCI metadata, the credential keys, the type metadata and an offer', async () => {
    const metadata = (await service.http.get('/.well-known/openid-credential-issuer')).body;
    expect(metadata).toMatchObject({
      credential_issuer: service.url,
      authorization_servers: [service.url],
      credential_endpoint: `${service.url}/api/auth/oidc/credential`,
      nonce_endpoint: `${service.url}/api/auth/oidc/nonce`,
    });
    const configuration = metadata.credential_configurations_supported.verity_identity_sd_jwt;
    expect(configuration).toMatchObject({
      format: 'dc+sd-jwt',
      scope: 'zkp',
      vct: `${service.url}/vct/identity`,
      cryptographic_binding_methods_supported: ['jwk'],
    });
    const issuerKeys = (await service.http.get('/.well-known/jwt-vc-issuer')).body;
    expect(issuerKeys.issuer).toBe(service.url);
    for (const key of issuerKeys.jwks.keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(key).not.toHaveProperty('d');
    }
    // The id_token JWKS stays RS256 only.
    expect(
      (await service.http.get('/api/auth/oidc/jwks.json')).body.keys.every(
        (key: { alg: string }) => key.alg === 'RS256',
      ),
    ).toBe(true);
    const type = (await service.http.get('/vct/identity')).body;
    expect(type.vct).toBe(configuration.vct);
    expect(type.claims.map((claim: { path: string[] }) => claim.path[0])).toContain('age_over_18');
    const offer = (await service.http.get('/api/auth/oidc/credential-offer')).body;
    expect(offer).toEqual({
      credential_issuer: service.url,
      credential_configuration_ids: ['verity_identity_sd_jwt'],
      grants: { authorization_code: {} },
    });
  });
});

describe('issuance and presentation', () => {
  let holder: HolderKey;
  let credential: string;

  beforeAll(async () => {
    holder = await holderKey();
    credential = await issueCredential(holder);
  });

  it('issues an SD-JWT VC bound to the holder key, every claim disclosable, no date of birth', async () => {
    const [jwt, ...disclosures] = credential.split('~');
    const payload = decodeJwt(jwt!);
    expect(payload).toMatchObject({
      iss: service.url,
      vct: `${service.url}/vct/identity`,
      cnf: { jwk: { kty: 'EC', x: holder.publicJwk.x, y: holder.publicJwk.y } },
    });
    expect(payload.status).toMatchObject({
      status_list: { uri: expect.stringMatching(/\/api\/auth\/oidc\/status-lists\/\d+$/), idx: expect.any(Number) },
    });
    // Nothing readable in the signed payload but the credential's frame.
    for (const claim of [
      'age_over_18',
      'given_name',
      'family_name',
      'nationality',
      'licenses',
      'birthdate',
      'date_of_birth',
    ])
      expect(payload).not.toHaveProperty(claim);
    expect(JSON.stringify(payload)).not.toContain('Whitfield');
    const sdjwt = new SDJwtVcInstance({ hasher: digest });
    const claims = (await sdjwt.getClaims(credential)) as Record<string, unknown>;
    expect(claims).toMatchObject({
      age_over_18: true,
      age_over_21: true,
      age_over_65: false,
      given_name: 'Dana Marie',
      family_name: 'Whitfield',
      nationality: 'USA',
      document_valid: true,
    });
    expect(claims.licenses).toEqual([
      { type: 'nurse_licenses', state: 'CA', status: 'active', expire_at: '2031-06-30T23:59:59.000Z' },
    ]);
    expect(JSON.stringify(claims)).not.toContain(BIRTH);
    expect(JSON.stringify(claims)).not.toContain('RN-648213');
    expect(disclosures.filter(Boolean).length).toBe(9); // 7 claims + the licence list + one licence (nationality present)
    // Valid 30 days at most.
    expect((payload.exp as number) - (payload.iat as number)).toBeLessThanOrEqual(30 * 24 * 3600);
  });

  it('a presentation of age_over_18 alone tells the verifier that and nothing else', async () => {
    const presentation = await present(credential, holder, { age_over_18: true });
    const res = await verify(presentation);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      verified: true,
      issuer: service.url,
      vct: `${service.url}/vct/identity`,
      status: 'valid',
      key_binding: { audience: AUDIENCE },
    });
    expect(res.body.data.claims).toEqual({ age_over_18: true });
    for (const secret of ['Dana', 'Whitfield', 'USA', BIRTH, 'nurse', 'cnf', 'status_list', holder.publicJwk.x!])
      expect(res.text).not.toContain(secret);
    // The presentation itself carries one disclosure: the verifier could not read more from it either.
    expect(presentation.split('~').slice(1, -1)).toHaveLength(1);
  });

  it('discloses one licence on its own', async () => {
    const res = await verify(await present(credential, holder, { licenses: { 0: true } }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.claims).toEqual({
      licenses: [{ type: 'nurse_licenses', state: 'CA', status: 'active', expire_at: '2031-06-30T23:59:59.000Z' }],
    });
  });

  describe('every tamper case fails with its own code', () => {
    const code = async (presentation: string, nonce?: string, audience?: string) => {
      const res = await verify(presentation, nonce, audience);
      return { status: res.status, code: res.body.error?.code as string };
    };

    it('wrong issuer signature', async () => {
      const presentation = await present(credential, holder, { age_over_18: true });
      const [jwt, ...rest] = presentation.split('~');
      const [header, payload, signature] = jwt!.split('.');
      const flipped = `${signature!.slice(0, 10)}${signature![10] === 'A' ? 'B' : 'A'}${signature!.slice(11)}`;
      expect(await code([`${header}.${payload}.${flipped}`, ...rest].join('~'))).toEqual({
        status: 422,
        code: 'presentation_signature_invalid',
      });
      // A credential signed by a key of the holder's own, claiming to be ours.
      const forger = await holderKey();
      const forged = await new SDJwtVcInstance({
        signer: await ES256.getSigner(forger.privateJwk),
        signAlg: 'ES256',
        hasher: digest,
        saltGenerator: generateSalt,
      }).issue(
        {
          iss: service.url,
          vct: `${service.url}/vct/identity`,
          iat: 1,
          exp: 4102444800,
          cnf: { jwk: holder.publicJwk },
          age_over_18: true,
        },
        { _sd: ['age_over_18'] } as never,
        { header: { kid: 'not-ours' } },
      );
      expect(await code(await present(forged, holder, { age_over_18: true }))).toEqual({
        status: 422,
        code: 'presentation_signature_invalid',
      });
      const foreign = await new SDJwtVcInstance({
        signer: await ES256.getSigner(forger.privateJwk),
        signAlg: 'ES256',
        hasher: digest,
        saltGenerator: generateSalt,
      }).issue(
        {
          iss: 'https://issuer.other.example',
          vct: 'https://issuer.other.example/id',
          iat: 1,
          exp: 4102444800,
          cnf: { jwk: holder.publicJwk },
          age_over_18: true,
        },
        { _sd: ['age_over_18'] } as never,
      );
      expect(await code(await present(foreign, holder, { age_over_18: true }))).toEqual({
        status: 422,
        code: 'credential_issuer_untrusted',
      });
    });

    it('stale or foreign nonce', async () => {
      expect(
        await code(await present(credential, holder, { age_over_18: true }, { nonce: 'n-from-another-exchange' })),
      ).toEqual({ status: 422, code: 'presentation_nonce_stale' });
      const tenMinutesAgo = Math.floor(clock.now().getTime() / 1000) - 600;
      expect(await code(await present(credential, holder, { age_over_18: true }, { iat: tenMinutesAgo }))).toEqual({
        status: 422,
        code: 'presentation_nonce_stale',
      });
    });

    it('another audience', async () => {
      expect(
        await code(await present(credential, holder, { age_over_18: true }, { aud: 'https://other-shop.example' })),
      ).toEqual({ status: 422, code: 'presentation_audience_mismatch' });
    });

    it('tampered disclosure', async () => {
      // age_over_65 is false; a disclosure made up to say true is not one the issuer signed.
      const madeUp = Buffer.from(JSON.stringify([generateSalt(16), 'age_over_65', true])).toString('base64url');
      const [jwt] = credential.split('~');
      // The holder signs the key binding over it (sd_hash fits): only the digest check can catch it.
      const signedOver = `${jwt}~${madeUp}~`;
      const kbJwt = await new SignJWT({
        nonce: 'n-verifier-0001',
        aud: AUDIENCE,
        sd_hash: createHash('sha256').update(signedOver).digest('base64url'),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
        .setIssuedAt(Math.floor(clock.now().getTime() / 1000))
        .sign(holder.privateKey);
      expect(await code(`${signedOver}${kbJwt}`)).toEqual({ status: 422, code: 'disclosure_tampered' });
      // The same disclosure twice.
      const once = (await present(credential, holder, { age_over_18: true })).split('~');
      expect(await code([once[0], once[1], once[1], once.at(-1)].join('~'))).toEqual({
        status: 422,
        code: 'disclosure_tampered',
      });
      // A disclosure dropped after the holder signed: the key binding's sd_hash no longer covers what is presented.
      const both = await present(credential, holder, { age_over_18: true, age_over_21: true });
      const parts = both.split('~');
      expect(await code([parts[0], parts[1], parts.at(-1)].join('~'))).toEqual({
        status: 422,
        code: 'disclosure_tampered',
      });
    });

    it('missing or foreign key binding', async () => {
      expect(await code(await present(credential, null, { age_over_18: true }))).toEqual({
        status: 422,
        code: 'key_binding_missing',
      });
      // The credential copied by someone else, who signs the key binding with their own key.
      const thief = await holderKey();
      expect(await code(await present(credential, thief, { age_over_18: true }))).toEqual({
        status: 422,
        code: 'key_binding_invalid',
      });
    });

    it('not an SD-JWT VC, or malformed input', async () => {
      expect(await code('not-a-presentation')).toEqual({ status: 400, code: 'invalid_presentation' });
      const res = await service.http
        .post('/api/v2/credential-presentation')
        .set('X-API-Key', service.demo.api_key)
        .send({ presentation: 'x~', nonce: 'n-verifier-0001' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(
        (
          await service.http
            .post('/api/v2/credential-presentation')
            .send({ presentation: 'x~', nonce: 'n', audience: 'a' })
        ).status,
      ).toBe(401);
    });
  });
});

describe('the credential endpoint refuses', () => {
  it('a token without the zkp scope', async () => {
    const token = await accessToken(wallet, 'openid profile');
    const res = await requestCredential(token, await keyProof(await holderKey()));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'insufficient_scope' });
    expect(res.headers['www-authenticate']).toContain('scope="zkp"');
    expect(
      (await service.http.post('/api/auth/oidc/credentials/revoke').set('Authorization', `Bearer ${token}`)).status,
    ).toBe(403);
    expect((await requestCredential('vt_not_a_token', 'x')).status).toBe(401);
  });

  it('a reused nonce, a proof for another audience or of another key, and another configuration', async () => {
    const token = await accessToken();
    const holder = await holderKey();
    const { c_nonce } = (await service.http.post('/api/auth/oidc/nonce')).body;
    expect((await requestCredential(token, await keyProof(holder, { nonce: c_nonce }))).status).toBe(200);
    const reused = await requestCredential(token, await keyProof(holder, { nonce: c_nonce }));
    expect([reused.status, reused.body.error]).toEqual([400, 'invalid_nonce']);
    const elsewhere = await requestCredential(token, await keyProof(holder, { aud: 'https://issuer.other.example' }));
    expect([elsewhere.status, elsewhere.body.error]).toEqual([400, 'invalid_proof']);
    // A proof whose jwk header is not the key that signed it.
    const other = await holderKey();
    const nonce = (await service.http.post('/api/auth/oidc/nonce')).body.c_nonce;
    const mismatched = await new SignJWT({ nonce })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: holder.publicJwk })
      .setAudience(service.url)
      .setIssuedAt(Math.floor(clock.now().getTime() / 1000))
      .sign(other.privateKey);
    expect((await requestCredential(token, mismatched)).body.error).toBe('invalid_proof');
    expect(
      (await requestCredential(token, await keyProof(holder), { credential_configuration_id: 'mdl' })).body.error,
    ).toBe('unknown_credential_configuration');
    expect((await requestCredential(token, await keyProof(holder), { proofs: { jwt: [] } })).body.error).toBe(
      'invalid_credential_request',
    );
  });
});

describe('status list and revocation', () => {
  /** The credential's status bit as a verifier reads it from the served list, signature checked. */
  async function statusBit(credential: string): Promise<{ bit: number; cacheControl: string; contentType: string }> {
    const { idx, uri } = (decodeJwt(credential.split('~')[0]!).status as { status_list: { idx: number; uri: string } })
      .status_list;
    const res = await service.http
      .get(new URL(uri).pathname)
      .buffer(true)
      .parse((response, callback) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => callback(null, text));
      });
    expect(res.status).toBe(200);
    const token = res.body as string;
    const keys = createLocalJWKSet((await service.http.get('/.well-known/jwt-vc-issuer')).body.jwks);
    const { payload, protectedHeader } = await jwtVerify(token, keys, {
      typ: 'statuslist+jwt',
      currentDate: clock.now(),
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({ sub: uri, ttl: 300 });
    return {
      bit: getListFromStatusListJWT(token).getStatus(idx),
      cacheControl: res.headers['cache-control'] as string,
      contentType: res.headers['content-type'] as string,
    };
  }

  it('serves the list with caching headers, and the person can revoke', async () => {
    const holder = await holderKey();
    const token = await accessToken();
    const credential = await issueCredential(holder, token);
    expect(await statusBit(credential)).toMatchObject({
      bit: 0,
      cacheControl: 'public, max-age=300',
      contentType: expect.stringContaining('application/statuslist+jwt'),
    });
    const revoked = await service.http
      .post('/api/auth/oidc/credentials/revoke')
      .set('Authorization', `Bearer ${token}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked).toBeGreaterThanOrEqual(1);
    expect((await statusBit(credential)).bit).toBe(1);
    const res = await verify(await present(credential, holder, { age_over_18: true }));
    expect([res.status, res.body.error.code]).toEqual([422, 'credential_revoked']);
    expect((await service.http.get('/api/auth/oidc/status-lists/999999')).status).toBe(404);
    expect((await service.http.get('/api/auth/oidc/status-lists/abc')).status).toBe(404);
    expect((await service.http.get('/api/auth/oidc/status-lists/9999999999')).status).toBe(404);
  });

  it('a licence whose status changes revokes credentials that disclose it', async () => {
    const holder = await holderKey();
    const credential = await issueCredential(holder);
    const svcId = service.demo.account.svc_id;
    const licence = {
      type: 'Registered Nurse',
      number: 'RN-648213',
      issuer: 'California Board of Registered Nursing',
      stateCode: 'CA',
      expiresOn: '2031-06-30',
      verifiedFrom: 'California BRN',
      expireAt: new Date('2031-06-30T23:59:59Z'),
    };
    // The same facts again change nothing.
    await service.core.accounts.badgeLicense(svcId, { ...licence, status: 'active' }, clock.now());
    expect((await statusBit(credential)).bit).toBe(0);
    await service.core.accounts.badgeLicense(svcId, { ...licence, status: 'suspended' }, clock.now());
    expect((await statusBit(credential)).bit).toBe(1);
    await service.core.accounts.badgeLicense(svcId, { ...licence, status: 'active' }, clock.now());
  });

  it('an identity withdrawn revokes, and no credential is issued without one', async () => {
    const holder = await holderKey();
    const token = await accessToken();
    const credential = await issueCredential(holder, token);
    const svcId = service.demo.account.svc_id;
    const withdrawn = await service.core.accounts.withdrawIdentity(svcId);
    expect(withdrawn.revokedCredentials).toBeGreaterThanOrEqual(1);
    expect((await statusBit(credential)).bit).toBe(1);
    const refused = await requestCredential(token, await keyProof(holder));
    expect([refused.status, refused.body.error]).toEqual([400, 'credential_request_denied']);
    await service.core.accounts.recordVerifiedIdentity({
      svcId,
      fullName: 'Dana Marie Whitfield',
      dateOfBirth: BIRTH,
      documentExpiry: '2031-05-01',
      nationality: 'USA',
    });
  });

  it('an expired credential fails with its code', async () => {
    const holder = await holderKey();
    const credential = await issueCredential(holder);
    const exp = decodeJwt(credential.split('~')[0]!).exp as number;
    clock.set(new Date(exp * 1000 + 1000));
    try {
      const res = await verify(await present(credential, holder, { age_over_18: true }));
      expect([res.status, res.body.error.code]).toEqual([422, 'credential_expired']);
    } finally {
      clock.set(new Date());
    }
  });
});

describe('claims hold for the credential life', () => {
  it('a credential of someone turning 21 soon expires on that birthday', async () => {
    const svcId = service.demo.account.svc_id;
    const now = clock.now();
    const birthday = new Date(Date.UTC(now.getUTCFullYear() - 21, now.getUTCMonth(), now.getUTCDate() + 10));
    const dob = birthday.toISOString().slice(0, 10);
    await service.core.accounts.recordVerifiedIdentity({
      svcId,
      fullName: 'Dana Marie Whitfield',
      dateOfBirth: dob,
      documentExpiry: '2031-05-01',
    });
    try {
      const credential = await issueCredential(await holderKey());
      const claims = (await new SDJwtVcInstance({ hasher: digest }).getClaims(credential)) as Record<string, unknown>;
      expect(claims).toMatchObject({ age_over_18: true, age_over_21: false });
      expect(claims).not.toHaveProperty('nationality');
      const exp = decodeJwt(credential.split('~')[0]!).exp as number;
      const turns21 = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 10) / 1000;
      expect(exp).toBe(turns21);
    } finally {
      await service.core.accounts.recordVerifiedIdentity({
        svcId,
        fullName: 'Dana Marie Whitfield',
        dateOfBirth: BIRTH,
        documentExpiry: '2031-05-01',
        nationality: 'USA',
      });
    }
  });
});
