import { z } from 'zod';
import { ADMIN_ROLES, OIDC_SCOPES, WORKFLOW_FEATURES } from './entities.js';

// Input schemas of the tenancy operations, shared by the CLI, GraphQL, tRPC and the OpenAPI document.

const name = z.string().trim().min(1).max(200);
export const projectId = z.string().min(1).max(40);

export const createProjectInput = z.object({
  name,
  /** Opening wallet balance, in currency units. */
  balance: z.number().nonnegative().max(1e9).optional(),
});

/** Live or test: of an API key, and of the webhook settings its sessions' events use (default live). */
const mode = z.enum(['live', 'test']).default('live');

export const createApiKeyInput = z.object({ projectId, name: z.string().trim().max(200).optional(), mode });
export const revokeApiKeyInput = z.object({ projectId, apiKeyId: z.string().min(1).max(40) });

export const createWorkflowInput = z.object({
  projectId,
  name,
  features: z
    .array(z.enum(WORKFLOW_FEATURES))
    .min(1)
    .refine((list) => new Set(list).size === list.length, 'features must not repeat'),
  maxStepTries: z.number().int().min(1).max(10).nullish(),
});

export const callbackUrlInput = z.object({ projectId, url: z.string().trim().min(1).max(2000), mode });
export const defaultCallbackInput = z.object({ projectId, url: z.string().trim().min(1).max(2000).nullable(), mode });
/** Days a decided session's review images are kept; 0 deletes them at the decision; at most 10 years. */
export const evidenceRetentionInput = z.object({ projectId, days: z.number().int().min(0).max(3650) });
/** An https:// URL (the privacy policy a person reads before consenting). */
const httpsUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => URL.canParse(value) && new URL(value).protocol === 'https:', 'must be an https:// URL');
/** Where a person can ask for help: an https:// page or a mailto: address. */
const supportUrl = z
  .string()
  .trim()
  .max(2000)
  .refine(
    (value) => URL.canParse(value) && ['https:', 'mailto:'].includes(new URL(value).protocol),
    'must be an https:// or mailto: URL',
  );
/** Branding of the hosted page: omitted fields stay, null clears. The logo is base64 (or a data URL). */
export const brandingInput = z.object({
  projectId,
  privacyPolicyUrl: httpsUrl.nullable().optional(),
  supportUrl: supportUrl.nullable().optional(),
  logo: z.string().max(800_000).nullable().optional(),
});
export const setCallbackActiveInput = z.object({
  projectId,
  url: z.string().min(1).max(2000),
  active: z.boolean(),
  mode,
});

const redirectUri = z
  .string()
  .max(2000)
  .refine((value) => {
    try {
      const url = new URL(value);
      return !url.hash && !['javascript:', 'data:', 'file:'].includes(url.protocol);
    } catch {
      return false;
    }
  }, 'redirect URI must be an absolute URL without a fragment');

export const createOidcClientInput = z.object({
  projectId,
  name: z.string().trim().min(1).max(120),
  redirectUris: z.array(redirectUri).min(1).max(20),
  scopes: z
    .array(z.enum(OIDC_SCOPES))
    .min(1)
    .refine((list) => list.includes('openid'), 'scopes must include openid')
    .default(['openid', 'profile']),
  /** The organization whose roster members sign in with this client (optional). */
  organizationId: z.number().int().positive().optional(),
  /** PKCE (S256) at authorize; false only for a confidential legacy client that cannot send it. */
  requirePkce: z.boolean().default(true),
});

export const createOrgAppInput = z
  .object({
    organizationId: z.number().int().positive().optional(),
    organizationName: name.optional(),
    name: z.string().trim().min(1).max(120).default('Roster API'),
  })
  .refine((input) => input.organizationId !== undefined || input.organizationName !== undefined, {
    message: 'give organizationId or organizationName',
    path: ['organizationId'],
  });

export const createAdminTokenInput = z.object({
  role: z.enum(ADMIN_ROLES),
  projectId: projectId.nullable().optional(),
  name: z.string().trim().max(120).optional(),
  /** Days until the token stops working (default: until revoked). */
  expiresInDays: z.number().int().min(1).max(3650).nullable().optional(),
});
export const revokeAdminTokenInput = z.object({ tokenId: z.string().min(1).max(40) });

/** An OIDC client of a project: deactivate or reactivate it, or rotate its secret. */
export const oidcClientActiveInput = z.object({ projectId, clientId: z.string().min(1).max(64), active: z.boolean() });
export const oidcClientRefInput = z.object({ projectId, clientId: z.string().min(1).max(64) });
/** Whether an OIDC client must use PKCE (S256) at authorize: the opt-out of a confidential legacy client. */
export const oidcClientPkceInput = z.object({
  projectId,
  clientId: z.string().min(1).max(64),
  requirePkce: z.boolean(),
});
/** An organization app (roster API credentials): deactivate or reactivate it, or rotate its secret. */
export const orgAppActiveInput = z.object({ clientId: z.string().min(1).max(64), active: z.boolean() });
export const orgAppRefInput = z.object({ clientId: z.string().min(1).max(64) });
/** Rotate a project's webhook signing secret of a mode; the old one keeps signing for `overlapHours` (default 24). */
export const rotateWebhookSecretInput = z.object({
  projectId,
  overlapHours: z.number().int().min(0).max(720).default(24),
  mode,
});
