import { ArrayType, Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/core';

/** A bearer access token issued to a client for an account. Only its digest is stored. */
@Entity({ tableName: 'access_token' })
export class AccessToken {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 64 })
  @Unique()
  tokenDigest!: string;

  /** The account's id (a foreign key in the migration; the entity holds no other area's entity). */
  @Property({ type: 'string', length: 40 })
  @Index()
  accountId!: string;

  /** The OIDC client's id (a foreign key in the migration). */
  @Property({ type: 'string', length: 64 })
  clientId!: string;

  @Property({ type: ArrayType })
  scopes!: string[];

  /** The authorization code this descends from: a replayed code revokes everything it issued. */
  @Property({ type: 'string', length: 40, nullable: true })
  @Index()
  grantId?: string | null;

  /** The resource the grant is for (RFC 8707 `resource`; the MCP endpoint), or null for the account endpoints. */
  @Property({ type: 'text', nullable: true })
  resource?: string | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null;
}

/**
 * An RS256 key pair; the private half sealed (AES-GCM). Published from creation; signs from
 * `activatesAt` until the next key's `activatesAt`; published a while longer (see SigningKeys).
 */
@Entity({ tableName: 'signing_key' })
export class SigningKey {
  @PrimaryKey({ type: 'string', length: 64 })
  kid!: string;

  @Property({ type: 'json' })
  publicJwk!: Record<string, unknown>;

  @Property({ type: 'text' })
  privateKeySealed!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  activatesAt!: Date;

  /** RS256 (id_tokens) or ES256 (verifiable credentials): each algorithm's keys rotate on their own. */
  @Property({ type: 'string', length: 10, default: 'RS256' })
  alg!: string;
}

/** A one-time authorization code (about 2 minutes), bound to client, redirect URI and PKCE challenge. */
@Entity({ tableName: 'authorization_code' })
export class AuthorizationCode {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 64 })
  @Unique()
  codeDigest!: string;

  @Property({ type: 'string', length: 64 })
  clientId!: string;

  @Property({ type: 'string', length: 40 })
  accountId!: string;

  @Property({ type: 'text' })
  redirectUri!: string;

  @Property({ type: ArrayType })
  scopes!: string[];

  @Property({ type: 'text', nullable: true })
  nonce?: string | null;

  @Property({ type: 'string', length: 128, nullable: true })
  codeChallenge?: string | null;

  /** The resource the grant is for (RFC 8707 `resource`; the MCP endpoint), or null for the account endpoints. */
  @Property({ type: 'text', nullable: true })
  resource?: string | null;

  @Property({ type: 'timestamptz' })
  authTime!: Date;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  usedAt?: Date | null;
}

/**
 * A sign-in's refresh tokens: one row, named by its tokens, holding the current token's digest
 * and its last few predecessors'; each use rotates it in place (see newRefreshToken). The digest is not indexed, so a
 * rotation
 * is a HOT update.
 */
@Entity({ tableName: 'refresh_token' })
@Index({ properties: ['accountId', 'clientId'] })
export class RefreshToken {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 64 })
  tokenDigest!: string;

  /**
   * The digests of the tokens it replaced, newest first (REFRESH_DIGESTS_KEPT): a replay of one is told from a guess.
   */
  @Property({ type: ArrayType, default: [] })
  previousDigests: string[] = [];

  @Property({ type: 'string', length: 64 })
  clientId!: string;

  @Property({ type: 'string', length: 40 })
  accountId!: string;

  @Property({ type: ArrayType })
  scopes!: string[];

  @Property({ type: 'string', length: 40 })
  @Index()
  grantId!: string;

  /** The resource the grant is for (RFC 8707 `resource`; the MCP endpoint), or null for the account endpoints. */
  @Property({ type: 'text', nullable: true })
  resource?: string | null;

  @Property({ type: 'timestamptz' })
  authTime!: Date;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  rotatedAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null;
}

/** A person signed in to our pages in one browser (cookie holds the secret; we keep its digest). */
@Entity({ tableName: 'login_session' })
export class LoginSession {
  @PrimaryKey({ type: 'string', length: 64 })
  digest!: string;

  @Property({ type: 'string', length: 40 })
  accountId!: string;

  @Property({ type: 'timestamptz' })
  authTime!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;
}

/** An authorization request waiting for the person to sign in or consent (10 minutes). */
@Entity({ tableName: 'oidc_interaction' })
export class Interaction {
  @PrimaryKey({ type: 'string', length: 64 })
  digest!: string;

  @Property({ type: 'json' })
  request!: Record<string, unknown>;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;
}

/** What a person allowed a client to read, remembered so they are not asked again each login. */
@Entity({ tableName: 'oidc_consent' })
export class Consent {
  @PrimaryKey({ type: 'string', length: 40 })
  accountId!: string;

  @PrimaryKey({ type: 'string', length: 64 })
  clientId!: string;

  @Property({ type: ArrayType })
  scopes!: string[];

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}
