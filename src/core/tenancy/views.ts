import { z } from 'zod';
import { ADMIN_ROLES } from '../vocabulary.js';
import type { OidcScope } from './entities.js';
import type {
  AdminTokenRecord,
  ApiKeyRecord,
  CallbackRecord,
  OidcClientRecord,
  OrgAppRecord,
  ProjectRecord,
  WorkflowRecord,
} from './store.js';

// The tenancy objects the admin API returns (GraphQL, tRPC, the CLI), declared once: each view is
// typed by its schema and test/fast/graphql-wire.test.ts checks the GraphQL types against them. No
// view ever carries a secret or its digest.

export const projectWire = z.object({
  id: z.string(),
  name: z.string(),
  defaultCallbackUrl: z.string().nullable().describe('app-level webhook URL'),
  testDefaultCallbackUrl: z
    .string()
    .nullable()
    .describe("test mode's app-level webhook URL; without it test events are kept, not sent"),
  hasTestWebhookSecret: z
    .boolean()
    .describe('test mode has its signing secret (a project made before test webhooks gets one by rotating it)'),
  evidenceRetentionDays: z.number().int(),
  privacyPolicyUrl: z.string().nullable(),
  supportUrl: z
    .string()
    .nullable()
    .describe(
      "where a declined person can ask for help (https:// or mailto:), linked from the hosted page's end screen",
    ),
  hasLogo: z.boolean(),
  balance: z.number().describe('wallet balance in currency units'),
  currency: z.string(),
  isDemo: z.boolean(),
  createdAt: z.string(),
});
export type ProjectView = z.output<typeof projectWire>;

export const projectView = (project: ProjectRecord): ProjectView => ({
  id: project.id,
  name: project.name,
  defaultCallbackUrl: project.defaultCallbackUrl,
  testDefaultCallbackUrl: project.testDefaultCallbackUrl,
  hasTestWebhookSecret: project.hasTestWebhookSecret,
  evidenceRetentionDays: project.evidenceRetentionDays,
  privacyPolicyUrl: project.privacyPolicyUrl,
  supportUrl: project.supportUrl,
  hasLogo: project.hasLogo,
  balance: project.spendableMinor / 100,
  currency: project.currency,
  isDemo: project.isDemo,
  createdAt: project.createdAt.toISOString(),
});

/** An API key without its secret. */
export const apiKeyWire = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  prefix: z.string(),
  mode: z.enum(['live', 'test']),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});
export type ApiKeyView = z.output<typeof apiKeyWire>;

export const apiKeyView = (key: ApiKeyRecord): ApiKeyView => ({
  id: key.id,
  projectId: key.projectId,
  name: key.name,
  prefix: key.prefix,
  mode: key.mode,
  createdAt: key.createdAt.toISOString(),
  revokedAt: key.revokedAt ? key.revokedAt.toISOString() : null,
});

/** A workflow as the admin API shows it (GraphQL Workflow): this view and the ops batch loader are typed by it. */
export const workflowWire = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  features: z.array(z.string()),
  maxStepTries: z
    .number()
    .int()
    .describe('tries the hosted page gives a step that fails for a reason the person can fix'),
  createdAt: z.string(),
});
export type WorkflowView = z.output<typeof workflowWire>;

export const workflowView = (workflow: WorkflowRecord): WorkflowView => ({
  id: workflow.id,
  projectId: workflow.projectId,
  name: workflow.name,
  features: [...workflow.features],
  maxStepTries: workflow.maxStepTries,
  createdAt: workflow.createdAt.toISOString(),
});

/** An approved webhook destination (GraphQL CallbackDestination). */
export const callbackWire = z.object({
  id: z.string(),
  projectId: z.string(),
  url: z.string(),
  mode: z.enum(['live', 'test']).describe('the sessions that may name it: of live keys, or of test keys'),
  active: z.boolean(),
  createdAt: z.string(),
});
export type CallbackView = z.output<typeof callbackWire>;

export const callbackView = (destination: CallbackRecord): CallbackView => ({
  id: destination.id,
  projectId: destination.projectId,
  url: destination.url,
  mode: destination.mode,
  active: destination.active,
  createdAt: destination.createdAt.toISOString(),
});

/** An OIDC client without its secret. */
export const oidcClientWire = z.object({
  clientId: z.string(),
  projectId: z.string(),
  name: z.string(),
  redirectUris: z.array(z.string()),
  scopes: z.array(z.string()),
  organizationId: z.number().int().nullable().describe('organization whose roster members sign in with it'),
  active: z.boolean(),
  requirePkce: z.boolean().describe('authorize requires PKCE (S256); false only for a confidential legacy client'),
  createdAt: z.string(),
});
export type OidcClientView = z.output<typeof oidcClientWire>;

export const oidcClientView = (client: OidcClientRecord): OidcClientView => ({
  clientId: client.clientId,
  projectId: client.projectId,
  name: client.name,
  redirectUris: [...client.redirectUris],
  scopes: [...client.scopes],
  organizationId: client.organizationId,
  active: client.active,
  requirePkce: client.requirePkce,
  createdAt: client.createdAt.toISOString(),
});

/**
 * An OIDC client as the provider reads it on every authorize and token call: a plain record the
 * tenancy service caches (never an entity, so nothing outside tenancy holds its unit of work).
 */
export interface RegisteredClient {
  clientId: string;
  projectId: string;
  /** The organization whose roster members sign in with it, or null. */
  organizationId: number | null;
  name: string;
  clientSecretDigest: string;
  redirectUris: string[];
  scopes: OidcScope[];
  active: boolean;
  /** Authorize refuses a request without a PKCE S256 challenge (the default; RFC 9700 2.1.1). */
  requirePkce: boolean;
}

/** An organization's roster app without its secret. */
export const orgAppWire = z.object({
  clientId: z.string(),
  organizationId: z.number().int(),
  organizationName: z.string().nullable(),
  name: z.string(),
  active: z.boolean(),
  createdAt: z.string(),
});
export type OrgAppView = z.output<typeof orgAppWire>;

export const orgAppView = (app: OrgAppRecord, organizationName: string | null): OrgAppView => ({
  clientId: app.clientId,
  organizationId: app.organizationId,
  organizationName,
  name: app.name,
  active: app.active,
  createdAt: app.createdAt.toISOString(),
});

/**
 * Who calls the admin API (GraphQL Me): the token's role, its project (null: every project) and its id (audits,
 * `admin:<id>`).
 */
export const adminScopeWire = z.object({
  tokenId: z.string(),
  role: z.enum(ADMIN_ROLES),
  projectId: z.string().nullable(),
});
export type AdminScope = z.output<typeof adminScopeWire>;

/** An admin token, never the token itself. */
export const adminTokenWire = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(ADMIN_ROLES),
  projectId: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  active: z.boolean(),
});
export type AdminTokenView = z.output<typeof adminTokenWire>;

export const adminTokenView = (row: AdminTokenRecord, now: Date): AdminTokenView => ({
  id: row.id,
  name: row.name,
  role: row.role,
  projectId: row.projectId,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
  active: !row.revokedAt && (!row.expiresAt || row.expiresAt > now),
});
