import { ArrayType, BigIntType, Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { ADMIN_ROLES, DEFAULT_STEP_TRIES, WORKFLOW_FEATURES } from '../vocabulary.js';

export { WORKFLOW_FEATURES, ADMIN_ROLES };

/** A verification app of an integrator: API keys, webhooks, workflows and a wallet hang off it. */
@Entity({ tableName: 'project' })
export class Project {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  /** Sealed (AES-GCM): we must read it back to sign webhooks, so it cannot be a one-way hash. */
  @Property({ type: 'text' })
  webhookSigningSecretSealed!: string;

  /** After a rotation, the previous secret (sealed) also signs deliveries until the overlap ends. */
  @Property({ type: 'text', nullable: true })
  previousWebhookSecretSealed?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  previousWebhookSecretUntil?: Date | null;

  /**
   * Test mode's own signing secret (sealed), rotated like the live one; null for a project made before test webhooks
   * until it rotates one.
   */
  @Property({ type: 'text', nullable: true })
  testWebhookSigningSecretSealed?: string | null;

  @Property({ type: 'text', nullable: true })
  previousTestWebhookSecretSealed?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  previousTestWebhookSecretUntil?: Date | null;

  /** App-level callback URL for webhooks when a session names no callback of its own. */
  @Property({ type: 'text', nullable: true })
  defaultCallbackUrl?: string | null;

  /** Where test-mode events go when their session names no callback; without it they are kept, not sent. */
  @Property({ type: 'text', nullable: true })
  testDefaultCallbackUrl?: string | null;

  /**
   * Wallet balance in minor units (cents) of `currency`, less what instances hold in open leases (billing's `wallet`
   * view adds them back).
   */
  @Property({ type: new BigIntType('number'), default: 0 })
  balanceMinor: number = 0;

  @Property({ type: 'string', length: 3, default: 'USD' })
  currency: string = 'USD';

  /** Days the review images of a decided session are kept; 0 deletes them at the decision. */
  @Property({ type: 'int', default: 30 })
  evidenceRetentionDays: number = 30;
  /** The privacy policy the hosted page's start screen links to (https only). */
  @Property({ type: 'text', nullable: true })
  privacyPolicyUrl?: string | null;

  /**
   * Where a person whose verification was declined can ask for help (https:// or mailto:); the hosted page's end screen
   * links to it.
   */
  @Property({ type: 'text', nullable: true })
  supportUrl?: string | null;

  /** The hosted page's logo: a PNG we re-encoded from an admin's PNG/JPEG/WebP (logo.ts); read only to serve it. */
  @Property({ type: 'blob', nullable: true, lazy: true })
  logoPng?: Buffer | null;

  @Property({ type: 'boolean', default: false })
  hasLogo: boolean = false;

  /** The seeded demo project; `verity admin` defaults to it. */
  @Property({ type: 'boolean', default: false })
  isDemo: boolean = false;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

export type KeyMode = 'live' | 'test';

@Entity({ tableName: 'api_key' })
export class ApiKey {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  @Index()
  project!: Project;

  @Property({ type: 'string', length: 200, default: '' })
  name: string = '';

  /** First characters of the key, so people can tell keys apart without the secret. */
  @Property({ type: 'string', length: 16 })
  prefix!: string;

  @Property({ type: 'string', length: 64 })
  @Unique()
  secretDigest!: string;

  /** `test` keys (`vk_test_...`) run the real pipeline without charging and see only test data. */
  @Property({ type: 'string', length: 4, default: 'live' })
  mode: KeyMode = 'live';

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null;
}

export type WorkflowFeature = (typeof WORKFLOW_FEATURES)[number];

@Entity({ tableName: 'workflow' })
export class Workflow {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  @Index()
  project!: Project;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: ArrayType })
  features!: WorkflowFeature[];

  /** How many tries the hosted page gives a step that fails for a reason the person can fix. */
  @Property({ type: 'integer', default: DEFAULT_STEP_TRIES })
  maxStepTries: number = DEFAULT_STEP_TRIES;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/** A per-session callback URL the project approved in advance, for the sessions of one mode. */
@Entity({ tableName: 'callback_destination' })
@Unique({ properties: ['project', 'mode', 'url'] })
export class CallbackDestination {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  project!: Project;

  @Property({ type: 'text' })
  url!: string;

  /** Sessions of test keys may name only `test` destinations, live ones only `live` ones. */
  @Property({ type: 'string', length: 4, default: 'live' })
  mode: KeyMode = 'live';

  @Property({ type: 'boolean', default: true })
  active: boolean = true;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

export const OIDC_SCOPES = ['openid', 'profile', 'verifications', 'doctor_license', 'zkp', 'mcp'] as const;
export type OidcScope = (typeof OIDC_SCOPES)[number];

/** A relying party that logs users in through our OpenID Connect provider. */
@Entity({ tableName: 'oidc_client' })
export class OidcClient {
  @PrimaryKey({ type: 'string', length: 64 })
  clientId!: string;

  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  @Index()
  project!: Project;

  @Property({ type: 'string', length: 120 })
  name!: string;

  @Property({ type: 'string', length: 64 })
  clientSecretDigest!: string;

  /** Compared exactly: scheme, host, port and path. */
  @Property({ type: ArrayType })
  redirectUris!: string[];

  @Property({ type: ArrayType })
  scopes!: OidcScope[];

  /**
   * The roster organization whose members sign in with this client: their tokens here end when
   * they are deactivated. An id (the foreign key is in the migration): the roster owns organizations.
   */
  @Property({ type: 'integer', nullable: true })
  @Index()
  organizationId?: number | null;

  @Property({ type: 'boolean', default: true })
  active: boolean = true;

  /**
   * Whether authorize requires PKCE (S256); false only for a confidential legacy client that cannot send it (RFC 9700
   * 2.1.1).
   */
  @Property({ type: 'boolean', default: true })
  requirePkce: boolean = true;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

/** Credentials of the organization roster API (`/api/sdk`), tied to one organization. */
@Entity({ tableName: 'org_app' })
export class OrgApp {
  @PrimaryKey({ type: 'string', length: 64 })
  clientId!: string;

  /** The roster organization it manages (an id: the roster owns organizations; the foreign key is in the migration). */
  @Property({ type: 'integer' })
  @Index()
  organizationId!: number;

  @Property({ type: 'string', length: 120 })
  name!: string;

  @Property({ type: 'string', length: 64 })
  clientSecretDigest!: string;

  @Property({ type: 'boolean', default: true })
  active: boolean = true;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;
}

export type AdminRole = (typeof ADMIN_ROLES)[number];

/** Bearer token of the GraphQL/tRPC admin API. A token scoped to a project sees only that project. */
@Entity({ tableName: 'admin_token' })
export class AdminToken {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @Property({ type: 'string', length: 120, default: '' })
  name: string = '';

  @Enum({ items: () => ADMIN_ROLES, type: 'string', nativeEnumName: undefined })
  role!: AdminRole;

  @ManyToOne(() => Project, { nullable: true, deleteRule: 'cascade' })
  project?: Project | null;

  @Property({ type: 'string', length: 64 })
  @Unique()
  tokenDigest!: string;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null;

  /** After this instant the token no longer authenticates (null: until revoked). */
  @Property({ type: 'timestamptz', nullable: true })
  expiresAt?: Date | null;
}
