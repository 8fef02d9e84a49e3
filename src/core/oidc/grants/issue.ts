import { createHash } from 'node:crypto';
import type { Orm } from '../../db/orm.js';
import { preparedQuery, sqlDate } from '../../db/prepared.js';
import { digestSecret, newId, newSecret } from '../../secrets.js';
import type { RegisteredClient } from '../../tenancy/views.js';
import type { OidcDeps } from '../context.js';
import { ACCESS_TOKEN_TTL_SECONDS, ID_TOKEN_TTL_SECONDS, newRefreshToken } from '../tokens.js';

const REFRESH_TTL_MS = 30 * 24 * 3600_000;

export interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** `at_hash`: the left half of the SHA-256 of the access token, base64url (OIDC Core 3.1.3.6). */
export function atHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}

/** A new access and refresh token: the secrets (answered once) and the rows that store their digests. */
export interface MintedTokens {
  accessToken: string;
  refreshToken: string;
  access: { id: string; digest: string; expiresAt: Date };
  refresh: { id: string; digest: string; expiresAt: Date };
  now: Date;
}

/**
 * New tokens; a rotation's refresh token names the row of the sign-in it rotates (`refreshRowId`), a first one a new
 * row.
 */
export function mintTokens(now: Date, refreshRowId?: string): MintedTokens {
  const accessToken = newSecret('vt');
  const refresh = newRefreshToken(refreshRowId);
  return {
    accessToken,
    refreshToken: refresh.token,
    access: {
      id: newId('at'),
      digest: digestSecret(accessToken),
      expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000),
    },
    refresh: { id: refresh.id, digest: refresh.digest, expiresAt: new Date(now.getTime() + REFRESH_TTL_MS) },
    now,
  };
}

/** What the issuing statement reads back for the id_token (one row per grant made). */
export interface IssuedRow {
  /** Which request of the statement's input the row answers (from 1). */
  ord: number | string;
  account_id: string;
  scopes: string[];
  auth_time: Date | string;
  nonce: string | null;
  email: string;
  email_verified_at: Date | string | null;
  display_name: string | null;
  member_id: string | null;
}

/** One grant asked of an issuing statement: its client and the tokens minted for it. */
export interface IssueRequest {
  client: RegisteredClient;
  minted: MintedTokens;
}

/**
 * How the token endpoint's statements batch (StatementBatch): one in flight at a time, so the
 * grants arriving meanwhile wait for it and go together in the next. Against two in flight,
 * statements held twice the rows and a refresh cost a tenth less CPU here and a quarter less in
 * PostgreSQL (`bench:oidc`); an idle instance still sends each grant at once.
 */
export const ISSUING_BATCH = { maxRows: 64, maxInFlight: 1 };

/** The columns of `input` that NEW_REFRESH_ROW and NEW_ACCESS_TOKEN read, in the order of `issueParams`. */
const ISSUE_COLUMNS: readonly [string, string][] = [
  ['now', 'timestamptz'],
  ['client_id', 'varchar'],
  ['organization_id', 'int'],
  ['refresh_id', 'varchar'],
  ['refresh_digest', 'varchar'],
  ['refresh_expires_at', 'timestamptz'],
  ['access_id', 'varchar'],
  ['access_digest', 'varchar'],
  ['access_expires_at', 'timestamptz'],
];

/**
 * The CTE `input`: one row per request, numbered by `ord` from 1, from one array parameter per
 * column ($1 onwards): ISSUE_COLUMNS, then the grant's own `extra` columns (name and type).
 * One statement answers many requests (see StatementBatch), or one.
 */
export function issueInput(extra: readonly [string, string][]): string {
  const columns = [...ISSUE_COLUMNS, ...extra];
  const arrays = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  return `input as (select * from unnest(${arrays}) with ordinality as i(${columns.map(([name]) => name).join(', ')}, ord))`;
}

/** The parameters of ISSUE_COLUMNS for `requests`, one array per column. */
export function issueParams(requests: readonly IssueRequest[]): unknown[][] {
  const column = (read: (request: IssueRequest) => unknown) => requests.map(read);
  return [
    column((r) => r.minted.now),
    column((r) => r.client.clientId),
    column((r) => r.client.organizationId),
    column((r) => r.minted.refresh.id),
    column((r) => r.minted.refresh.digest),
    column((r) => r.minted.refresh.expiresAt),
    column((r) => r.minted.access.id),
    column((r) => r.minted.access.digest),
    column((r) => r.minted.access.expiresAt),
  ];
}

/**
 * The tail of a grant's one statement. The grant's own CTEs end in `granted (ord, account_id,
 * scopes, grant_id, auth_time, nonce, resource)`, a row for each request of `input` that earned tokens;
 * the grant store's NEW_ACCESS_TOKEN stores a new access token for each (and NEW_REFRESH_ROW, for a
 * first sign-in, the row its refresh tokens rotate in), and `ISSUED_SELECT` reads what the id_token
 * says about the account. Everything commits as one statement: a concurrent replay waits on the row
 * lock until the tokens exist, so its revocation also revokes them (the winner's included).
 */
/**
 * IssuedRow for each granted request. An active roster member of the client's organization is told apart by their
 * member id.
 */
export const ISSUED_SELECT = `select g.ord, g.account_id, g.scopes, g.auth_time, g.nonce, a.email, a.email_verified_at, a.display_name, m.member_id
  from granted g join input i using (ord) join account a on a.id = g.account_id
  left join member m on m.organization_id = i.organization_id and m.svc_id = g.account_id and m.status = 'active'`;

/** The tokens answered for an issued row: the minted secrets and an id_token signed now. */
export async function signTokens(
  deps: Pick<OidcDeps, 'keys' | 'issuer'>,
  client: RegisteredClient,
  minted: MintedTokens,
  row: IssuedRow,
): Promise<Tokens> {
  const claims = {
    iss: deps.issuer,
    sub: row.account_id,
    aud: client.clientId,
    auth_time: Math.floor(sqlDate(row.auth_time).getTime() / 1000),
    at_hash: atHash(minted.accessToken),
    ...(row.nonce != null ? { nonce: row.nonce } : {}),
    svc_id: row.account_id,
    ...(row.member_id ? { svc_org_member_id: row.member_id } : {}),
    ...(row.scopes.includes('profile')
      ? { email: row.email, email_verified: row.email_verified_at != null, name: row.display_name ?? row.email }
      : {}),
  };
  const idToken = await deps.keys.sign(claims, ID_TOKEN_TTL_SECONDS);
  return {
    access_token: minted.accessToken,
    refresh_token: minted.refreshToken,
    id_token: idToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    scope: row.scopes.join(' '),
  };
}

/**
 * Runs an issuing statement (`issueInput`'s parameters, then `extra`) for `requests` and answers
 * each request's row, in order, or null where the statement answered none.
 */
export async function runIssuing<Row extends { ord: number | string }>(
  orm: Orm,
  name: string,
  text: string,
  requests: readonly IssueRequest[],
  extra: unknown[][],
): Promise<(Row | null)[]> {
  const rows = await preparedQuery<Row>(orm, name, text, [...issueParams(requests), ...extra]);
  const byOrd = new Map(rows.map((row) => [Number(row.ord), row]));
  return requests.map((_, i) => byOrd.get(i + 1) ?? null);
}
