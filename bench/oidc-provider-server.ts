// The baseline for the token-endpoint bench: panva's oidc-provider (certified) with its own
// in-memory adapter, or with a PostgreSQL one when given a database URL (the like-for-like
// baseline: a provider whose tokens survive a restart), configured for the same flow as ours
// (code + PKCE S256, rotating refresh tokens, client_secret_post). It mints codes and refresh
// tokens through its own models and prints them with its URL, so the bench can spend them on
// the token endpoint.
//   node --import @swc-node/register/esm-register bench/oidc-provider-server.ts <port> <codes> <chains> [database URL]
import { createHash, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';
import { postgresAdapter } from './oidc-provider-pg-adapter.js';

const port = Number(process.argv[2]);
const codes = Number(process.argv[3]);
const chains = Number(process.argv[4]);
const databaseUrl = process.argv[5];
const issuer = `http://127.0.0.1:${port}`;
const client = {
  client_id: 'bench',
  client_secret: 'bench-secret-bench-secret-bench-secret',
  redirect_uris: ['http://127.0.0.1/cb'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_post',
};

// Its memory adapter over a store that holds every token of the run: the default one keeps 1000
// entries, and a code or token it evicted failed fast, which counted as (quick) answers.
const store = new LRU({ maxSize: 10_000_000 });

const provider = new Provider(issuer, {
  adapter: databaseUrl ? await postgresAdapter(databaseUrl) : (model: string) => new MemoryAdapter(model, store),
  clients: [client],
  findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
  pkce: { required: () => true },
  issueRefreshToken: async () => true,
  rotateRefreshToken: () => true,
  ttl: {
    AccessToken: 900,
    AuthorizationCode: 120,
    IdToken: 900,
    RefreshToken: 30 * 24 * 3600,
    Grant: 30 * 24 * 3600,
    Session: 3600,
    Interaction: 600,
  },
  features: { devInteractions: { enabled: false } },
});
provider.proxy = false;

const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');
const clientModel = await provider.Client.find(client.client_id);

async function mintCode(): Promise<string> {
  const grant = new provider.Grant({ accountId: 'user-1', clientId: client.client_id });
  grant.addOIDCScope('openid offline_access');
  const grantId = await grant.save();
  const code = new provider.AuthorizationCode({
    accountId: 'user-1',
    client: clientModel!,
    grantId,
    redirectUri: client.redirect_uris[0],
    scope: 'openid offline_access',
    codeChallenge: challenge,
    codeChallengeMethod: 'S256',
    authTime: Math.floor(Date.now() / 1000),
    nonce: 'n',
  });
  return code.save();
}

const minted: string[] = [];
for (let i = 0; i < codes + chains; i += 1) minted.push(await mintCode());
provider.listen(port, '127.0.0.1', () => {
  process.stdout.write(
    `${JSON.stringify({ issuer, client, verifier, codes: minted.slice(0, codes), chainCodes: minted.slice(codes) })}\n`,
  );
});
