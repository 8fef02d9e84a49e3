import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { runAdminOperation, type AdminOperationName } from '../core/admin.js';
import type { Core } from '../core/index.js';
import type { AdminCaller } from '../core/ops/service.js';
import type { OpsLoaders } from './ops-resolvers.js';
import {
  AdminTokenType,
  RevokeAdminTokenInput,
  RotateWebhookSecretInput,
  RotatedWebhookSecretType,
  OidcClientActiveInput,
  OidcClientPkceInput,
  OidcClientRefInput,
  OrgAppActiveInput,
  OrgAppRefInput,
  ApiKeyType,
  CallbackDestinationType,
  CallbackUrlInput,
  CreateAdminTokenInput,
  CreateAdminTokenPayload,
  CreateApiKeyInput,
  CreateApiKeyPayload,
  CreateOidcClientInput,
  CreateOidcClientPayload,
  CreateOrgAppInput,
  CreateOrgAppPayload,
  CreateProjectInput,
  CreateProjectPayload,
  CreateWorkflowInput,
  DefaultCallbackInput,
  EvidenceRetentionInput,
  ProjectBrandingInput,
  OidcClientType,
  OrgAppType,
  ProjectType,
  RevokeApiKeyInput,
  SetCallbackActiveInput,
  WorkflowType,
  ChargeType,
  TopUpWalletInput,
  RosterPlanType,
  SetPlanInput,
} from './types.js';

export interface GraphContext {
  core: Core;
  scope: AdminCaller;
  loaders: OpsLoaders;
}

// type-graphql hands input objects over as class instances; core wants plain data.
const plain = (input: object) => Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
export const run = (ctx: GraphContext, name: AdminOperationName, input: object = {}) =>
  runAdminOperation(ctx.core, ctx.scope, name, plain(input));

@Resolver()
export class TenancyResolver {
  @Query(() => [ProjectType], { description: 'Projects the token can see' })
  projects(@Ctx() ctx: GraphContext) {
    return run(ctx, 'projects');
  }

  @Query(() => ProjectType)
  project(@Arg('projectId', () => String) projectId: string, @Ctx() ctx: GraphContext) {
    return run(ctx, 'project', { projectId });
  }

  @Query(() => [ApiKeyType], { description: 'API keys of a project, never their secrets' })
  apiKeys(@Arg('projectId', () => String) projectId: string, @Ctx() ctx: GraphContext) {
    return run(ctx, 'apiKeys', { projectId });
  }

  @Query(() => [WorkflowType])
  workflows(@Arg('projectId', () => String) projectId: string, @Ctx() ctx: GraphContext) {
    return run(ctx, 'workflows', { projectId });
  }

  @Query(() => [CallbackDestinationType])
  callbackDestinations(@Arg('projectId', () => String) projectId: string, @Ctx() ctx: GraphContext) {
    return run(ctx, 'callbackDestinations', { projectId });
  }

  @Query(() => [OidcClientType])
  oidcClients(@Arg('projectId', () => String) projectId: string, @Ctx() ctx: GraphContext) {
    return run(ctx, 'oidcClients', { projectId });
  }

  @Query(() => [OrgAppType])
  orgApps(@Ctx() ctx: GraphContext) {
    return run(ctx, 'orgApps');
  }

  @Query(() => [ChargeType], { description: 'Wallet charges of a project, newest first' })
  charges(
    @Arg('projectId', () => String) projectId: string,
    @Arg('limit', () => Int, { nullable: true }) limit: number | undefined,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'charges', { projectId, limit: limit ?? undefined });
  }

  @Mutation(() => ProjectType, { description: 'Add money to a project wallet' })
  topUpWallet(@Arg('input', () => TopUpWalletInput) input: TopUpWalletInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'topUpWallet', input);
  }

  @Mutation(() => CreateProjectPayload)
  createProject(@Arg('input', () => CreateProjectInput) input: CreateProjectInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'createProject', input);
  }

  @Mutation(() => CreateApiKeyPayload)
  createApiKey(@Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'createApiKey', input);
  }

  @Mutation(() => ApiKeyType)
  revokeApiKey(@Arg('input', () => RevokeApiKeyInput) input: RevokeApiKeyInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'revokeApiKey', input);
  }

  @Mutation(() => WorkflowType)
  createWorkflow(@Arg('input', () => CreateWorkflowInput) input: CreateWorkflowInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'createWorkflow', input);
  }

  @Mutation(() => CallbackDestinationType, { description: 'Approve an HTTPS destination for per-session callbacks' })
  approveCallback(@Arg('input', () => CallbackUrlInput) input: CallbackUrlInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'approveCallback', input);
  }

  @Mutation(() => CallbackDestinationType, { description: 'Disable or enable an approved destination' })
  setCallbackActive(
    @Arg('input', () => SetCallbackActiveInput) input: SetCallbackActiveInput,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'setCallbackActive', input);
  }

  @Mutation(() => ProjectType, {
    description: "Set how many days a decided session's review images are kept (0: deleted at the decision)",
  })
  setEvidenceRetention(
    @Arg('input', () => EvidenceRetentionInput) input: EvidenceRetentionInput,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'setEvidenceRetention', input);
  }

  @Mutation(() => ProjectType, { description: 'Set or clear the app-level callback URL' })
  setDefaultCallback(@Arg('input', () => DefaultCallbackInput) input: DefaultCallbackInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'setDefaultCallback', input);
  }

  @Mutation(() => ProjectType, { description: "Set or clear the hosted page's privacy policy link and logo" })
  setProjectBranding(@Arg('input', () => ProjectBrandingInput) input: ProjectBrandingInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'setProjectBranding', input);
  }

  @Mutation(() => CreateOidcClientPayload)
  createOidcClient(@Arg('input', () => CreateOidcClientInput) input: CreateOidcClientInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'createOidcClient', input);
  }

  @Mutation(() => CreateOrgAppPayload)
  createOrgApp(@Arg('input', () => CreateOrgAppInput) input: CreateOrgAppInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'createOrgApp', input);
  }

  @Mutation(() => OidcClientType, { description: 'Deactivate (or reactivate) an OIDC client' })
  setOidcClientActive(
    @Arg('input', () => OidcClientActiveInput) input: OidcClientActiveInput,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'setOidcClientActive', input);
  }

  @Mutation(() => CreateOidcClientPayload, {
    description: 'A new client secret (shown once); the old one stops working at once',
  })
  rotateOidcClientSecret(@Arg('input', () => OidcClientRefInput) input: OidcClientRefInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'rotateOidcClientSecret', input);
  }

  @Mutation(() => OidcClientType, {
    description:
      'Whether the client must use PKCE (S256) at authorize (default true; turn off only for a confidential legacy client)',
  })
  setOidcClientPkce(@Arg('input', () => OidcClientPkceInput) input: OidcClientPkceInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'setOidcClientPkce', input);
  }

  @Mutation(() => OrgAppType, { description: 'Deactivate (or reactivate) an organization app' })
  setOrgAppActive(@Arg('input', () => OrgAppActiveInput) input: OrgAppActiveInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'setOrgAppActive', input);
  }

  @Mutation(() => CreateOrgAppPayload, {
    description: 'A new organization app secret (shown once); the old one stops working at once',
  })
  rotateOrgAppSecret(@Arg('input', () => OrgAppRefInput) input: OrgAppRefInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'rotateOrgAppSecret', input);
  }

  @Mutation(() => RotatedWebhookSecretType, {
    description: 'A new webhook signing secret; the old one keeps signing alongside for the overlap',
  })
  rotateWebhookSecret(
    @Arg('input', () => RotateWebhookSecretInput) input: RotateWebhookSecretInput,
    @Ctx() ctx: GraphContext,
  ) {
    return run(ctx, 'rotateWebhookSecret', input);
  }

  @Mutation(() => CreateAdminTokenPayload)
  createAdminToken(@Arg('input', () => CreateAdminTokenInput) input: CreateAdminTokenInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'createAdminToken', input);
  }

  @Mutation(() => AdminTokenType, { description: 'Revoke an admin token at once (admin, unscoped)' })
  revokeAdminToken(@Arg('input', () => RevokeAdminTokenInput) input: RevokeAdminTokenInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'revokeAdminToken', input);
  }

  @Query(() => [AdminTokenType], {
    description: 'Admin tokens, newest first, never the tokens themselves (admin, unscoped)',
  })
  adminTokens(@Ctx() ctx: GraphContext) {
    return run(ctx, 'adminTokens', {});
  }

  @Mutation(() => RosterPlanType, {
    description: "Set an organization's roster plan (price per seat, currency, trial)",
  })
  setPlan(@Arg('input', () => SetPlanInput) input: SetPlanInput, @Ctx() ctx: GraphContext) {
    return run(ctx, 'setPlan', input);
  }
}
