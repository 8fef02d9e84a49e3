import { DomainError } from '../errors.js';
import { digestSecret, safeEqual } from '../secrets.js';
import type { RegisteredClient } from '../tenancy/views.js';
import { one, type OidcDeps } from './context.js';

/** client_secret_basic (URL-decoded per RFC 6749 2.3.1) or client_secret_post. */
export async function authenticateClient(
  deps: Pick<OidcDeps, 'clients'>,
  body: Record<string, unknown>,
  basic: { id: string; secret: string } | undefined,
): Promise<RegisteredClient> {
  const clientId = basic?.id ?? one(body.client_id);
  const secret = basic?.secret ?? one(body.client_secret);
  if (basic && one(body.client_id) !== undefined && one(body.client_id) !== basic.id)
    throw new DomainError('invalid_request', 'client_id in the body differs from the Basic credentials');
  const client = clientId ? await deps.clients(clientId) : null;
  const presented = digestSecret(secret ?? '');
  if (!client || !secret || !safeEqual(presented, client.clientSecretDigest))
    throw new DomainError('invalid_client', 'client authentication failed');
  if (!client.active) throw new DomainError('invalid_client', 'the application is not active');
  return client;
}
