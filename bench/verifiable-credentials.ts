// Verifiable credentials (scope zkp) over HTTP on loopback: latency of issuance (a nonce, then
// POST /api/auth/oidc/credential with a key proof) and of POST /api/v2/credential-presentation
// (p50, p95), a status list fetch, and the size of a credential and of presentations.
//   npm run bench:vc                      (embedded PGlite)
//   TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:vc
import { digest, ES256, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { percentile } from '../test/helpers/processes.js';
import { startListeningService } from '../test/helpers/service.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 200);
const ms = (value: number) => Math.round(value * 100) / 100;
const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** p50 and p95 of `times` (milliseconds), as printed. */
function spread(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  return `p50 ${ms(percentile(sorted, 50))} ms, p95 ${ms(percentile(sorted, 95))} ms`;
}

const service = await startListeningService();
try {
  const { core, demo, url } = service;
  const svcId = demo.account.svc_id;
  await core.accounts.recordVerifiedIdentity({
    svcId,
    fullName: 'Dana Marie Whitfield',
    dateOfBirth: '1990-04-12',
    documentExpiry: '2031-05-01',
    nationality: 'USA',
  });
  await core.accounts.badgeLicense(
    svcId,
    {
      type: 'Registered Nurse',
      number: 'RN-648213',
      status: 'active',
      issuer: 'California BRN',
      stateCode: 'CA',
      expiresOn: '2031-06-30',
      verifiedFrom: 'California BRN',
      expireAt: new Date('2031-06-30T23:59:59Z'),
    },
    new Date(),
  );
  const { client } = await core.tenancy.createOidcClient({
    projectId: demo.project_id,
    name: 'Bench wallet',
    redirectUris: ['https://wallet.example/cb'],
    scopes: ['openid', 'zkp'],
  });
  // The authorization code flow is measured by bench:oidc; here the token is issued directly.
  const { token } = await core.accessTokens.issue(svcId, client.clientId, ['openid', 'zkp']);
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const holder = new SDJwtVcInstance({
    hasher: digest,
    saltGenerator: generateSalt,
    kbSigner: await ES256.getSigner(await exportJWK(privateKey)),
    kbSignAlg: 'ES256',
  });

  async function issue(): Promise<string> {
    const nonce = (
      (await (await fetch(`${url}/api/auth/oidc/nonce`, { method: 'POST' })).json()) as { c_nonce: string }
    ).c_nonce;
    const proof = await new SignJWT({ nonce })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: publicJwk })
      .setAudience(url)
      .setIssuedAt()
      .sign(privateKey);
    const res = await fetch(`${url}/api/auth/oidc/credential`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ credential_configuration_id: 'verity_identity_sd_jwt', proofs: { jwt: [proof] } }),
    });
    if (res.status !== 200) throw new Error(`issuance answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { credentials: { credential: string }[] }).credentials[0]!.credential;
  }

  const present = (credential: string, frame: Record<string, unknown>, nonce: string) =>
    holder.present(credential, frame as never, {
      kb: { payload: { iat: Math.floor(Date.now() / 1000), aud: 'https://shop.example', nonce } },
    });

  async function verify(presentation: string, nonce: string): Promise<void> {
    const res = await fetch(`${url}/api/v2/credential-presentation`, {
      method: 'POST',
      headers: { 'x-api-key': demo.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ presentation, nonce, audience: 'https://shop.example' }),
    });
    if (res.status !== 200) throw new Error(`verification answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }

  // Warm-up: keys read and imported, statements prepared.
  const credential = await issue();
  await verify(await present(credential, { age_over_18: true }, 'n-warm-up-0'), 'n-warm-up-0');

  const issuing: number[] = [];
  const nonceAndIssuing: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const started = performance.now();
    const nonce = (
      (await (await fetch(`${url}/api/auth/oidc/nonce`, { method: 'POST' })).json()) as { c_nonce: string }
    ).c_nonce;
    const proof = await new SignJWT({ nonce })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: publicJwk })
      .setAudience(url)
      .setIssuedAt()
      .sign(privateKey);
    const sent = performance.now();
    const res = await fetch(`${url}/api/auth/oidc/credential`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ credential_configuration_id: 'verity_identity_sd_jwt', proofs: { jwt: [proof] } }),
    });
    await res.arrayBuffer();
    issuing.push(performance.now() - sent);
    nonceAndIssuing.push(performance.now() - started);
  }

  const verifying: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const nonce = `n-bench-${i}-${Math.random().toString(36).slice(2)}`;
    const presentation = await present(credential, { age_over_18: true }, nonce);
    const started = performance.now();
    await verify(presentation, nonce);
    verifying.push(performance.now() - started);
  }

  const statusUri = (
    JSON.parse(Buffer.from(credential.split('~')[0]!.split('.')[1]!, 'base64url').toString()) as {
      status: { status_list: { uri: string } };
    }
  ).status.status_list.uri;
  const listing: number[] = [];
  let listToken = '';
  for (let i = 0; i < 50; i += 1) {
    const started = performance.now();
    listToken = await (await fetch(statusUri)).text();
    listing.push(performance.now() - started);
  }

  const onlyAge = await present(credential, { age_over_18: true }, 'n-size-0001');
  const everything = await present(
    credential,
    {
      age_over_18: true,
      age_over_21: true,
      age_over_65: true,
      given_name: true,
      family_name: true,
      nationality: true,
      document_valid: true,
      licenses: { 0: true },
    },
    'n-size-0002',
  );
  console.log(
    `store: ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; ${rounds} rounds, one at a time`,
  );
  console.log(`issuance, POST /api/auth/oidc/credential: ${spread(issuing)}`);
  console.log(`issuance with its nonce request and key proof: ${spread(nonceAndIssuing)}`);
  console.log(`verification, POST /api/v2/credential-presentation (age_over_18): ${spread(verifying)}`);
  console.log(`status list fetch (32768 entries): ${spread(listing)}, ${bytes(listToken)} bytes`);
  console.log(`credential (all 9 disclosures): ${bytes(credential)} bytes`);
  console.log(`presentation of age_over_18 with key binding: ${bytes(onlyAge)} bytes`);
  console.log(`presentation of every claim with key binding: ${bytes(everything)} bytes`);
} finally {
  await service.close();
}
