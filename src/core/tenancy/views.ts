import { z } from 'zod';
import type { ApiKey, CallbackDestination, OidcClient, OrgApp, Project, Workflow } from './entities.js';

// Plain objects the fronts return. No view ever carries a secret or its digest.

export const projectView = (project: Project) => ({
  id: project.id,
  name: project.name,
  defaultCallbackUrl: project.defaultCallbackUrl ?? null,
  evidenceRetentionDays: project.evidenceRetentionDays,
  privacyPolicyUrl: project.privacyPolicyUrl ?? null,
  hasLogo: project.hasLogo,
  balance: project.balanceMinor / 100,
  currency: project.currency,
  isDemo: project.isDemo,
  createdAt: project.createdAt.toISOString(),
});
export type ProjectView = ReturnType<typeof projectView>;

export const apiKeyView = (key: ApiKey) => ({
  id: key.id,
  projectId: key.project.id,
  name: key.name,
  prefix: key.prefix,
  mode: key.mode,
  createdAt: key.createdAt.toISOString(),
  revokedAt: key.revokedAt ? key.revokedAt.toISOString() : null,
});
export type ApiKeyView = ReturnType<typeof apiKeyView>;

/** A workflow as the admin API shows it (GraphQL Workflow): this view and the ops batch loader are typed by it. */
export const workflowWire = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  features: z.array(z.string()),
  maxStepTries: z.number().int().describe('tries the hosted page gives a step that fails for a reason the person can fix'),
  createdAt: z.string(),
});
export type WorkflowView = z.output<typeof workflowWire>;

export const workflowView = (workflow: Workflow): WorkflowView => ({
  id: workflow.id,
  projectId: workflow.project.id,
  name: workflow.name,
  features: [...workflow.features],
  maxStepTries: workflow.maxStepTries,
  createdAt: workflow.createdAt.toISOString(),
});

export const callbackView = (destination: CallbackDestination) => ({
  id: destination.id,
  projectId: destination.project.id,
  url: destination.url,
  active: destination.active,
  createdAt: destination.createdAt.toISOString(),
});
export type CallbackView = ReturnType<typeof callbackView>;

export const oidcClientView = (client: OidcClient) => ({
  clientId: client.clientId,
  projectId: client.project.id,
  name: client.name,
  redirectUris: [...client.redirectUris],
  scopes: [...client.scopes],
  organizationId: client.organization?.id ?? null,
  active: client.active,
  createdAt: client.createdAt.toISOString(),
});
export type OidcClientView = ReturnType<typeof oidcClientView>;

export const orgAppView = (app: OrgApp) => ({
  clientId: app.clientId,
  organizationId: app.organization.id,
  organizationName: app.organization.name ?? null,
  name: app.name,
  active: app.active,
  createdAt: app.createdAt.toISOString(),
});
export type OrgAppView = ReturnType<typeof orgAppView>;
