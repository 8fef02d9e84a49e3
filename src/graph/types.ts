import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import type { z } from 'zod';
import type { AdminOperations } from '../core/admin.js';
import type { setPlanInput } from '../core/roster/inputs.js';
import type {
  brandingInput,
  callbackUrlInput,
  createAdminTokenInput,
  createApiKeyInput,
  createOidcClientInput,
  createOrgAppInput,
  createProjectInput,
  createWorkflowInput,
  defaultCallbackInput,
  evidenceRetentionInput,
  oidcClientActiveInput,
  oidcClientPkceInput,
  oidcClientRefInput,
  orgAppActiveInput,
  orgAppRefInput,
  revokeAdminTokenInput,
  revokeApiKeyInput,
  rotateWebhookSecretInput,
  setCallbackActiveInput,
} from '../core/tenancy/inputs.js';
import type { AdminResult } from '../core/admin.js';
import type { ChargeView } from '../core/billing/views.js';
import type { CheckRecordView } from '../core/ops/views.js';
import type {
  AdminTokenView,
  ApiKeyView,
  CallbackView,
  OidcClientView,
  OrgAppView,
  ProjectView,
  WorkflowView,
} from '../core/tenancy/views.js';
import type { Mirror, MirrorInput } from './wire.js';

// GraphQL shapes of the tenancy views and inputs. Each object type implements Mirror of the wire
// (or core result) it describes (./wire.ts), so it follows that declaration at compile time. Inputs
// are validated again by core's zod schemas (the same ones tRPC uses), so these classes only describe the wire.

@ObjectType('Project')
export class ProjectType implements Mirror<ProjectType, ProjectView> {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true, description: 'App-level webhook URL' }) defaultCallbackUrl!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "Test mode's app-level webhook URL; without it test events are kept, not sent",
  })
  testDefaultCallbackUrl!: string | null;
  @Field(() => Boolean, {
    description: 'Test mode has its own signing secret (a project made before test webhooks gets one by rotating it)',
  })
  hasTestWebhookSecret!: boolean;
  @Field(() => Int, { description: "Days a decided session's review images are kept (0: deleted at the decision)" })
  evidenceRetentionDays!: number;
  @Field(() => String, {
    nullable: true,
    description: "Privacy policy linked from the hosted page's start screen (https)",
  })
  privacyPolicyUrl!: string | null;
  @Field(() => String, {
    nullable: true,
    description:
      "Where a declined person can ask for help (https:// or mailto:), linked from the hosted page's end screen",
  })
  supportUrl!: string | null;
  @Field(() => Boolean, { description: 'A logo is shown on the hosted page' }) hasLogo!: boolean;
  @Field(() => Float, { description: 'Wallet balance in currency units' }) balance!: number;
  @Field(() => String) currency!: string;
  @Field(() => Boolean) isDemo!: boolean;
  @Field(() => String, { description: 'ISO 8601 UTC' }) createdAt!: string;
}

@ObjectType('ApiKey', { description: 'An API key without its secret; the secret is shown once at creation' })
export class ApiKeyType implements Mirror<ApiKeyType, ApiKeyView> {
  @Field(() => ID) id!: string;
  @Field(() => String) projectId!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'First characters of the key' }) prefix!: string;
  @Field(() => String, { description: 'live, or test (vk_test_...: never charged, sees only test data)' })
  mode!: string;
  @Field(() => String) createdAt!: string;
  @Field(() => String, { nullable: true }) revokedAt!: string | null;
}

@ObjectType('Workflow')
export class WorkflowType implements Mirror<WorkflowType, WorkflowView> {
  @Field(() => ID) id!: string;
  @Field(() => String) projectId!: string;
  @Field(() => String) name!: string;
  @Field(() => [String]) features!: string[];
  @Field(() => Int, { description: 'Tries the hosted page gives a step that fails for a reason the person can fix' })
  maxStepTries!: number;
  @Field(() => String) createdAt!: string;
}

@ObjectType('CallbackDestination')
export class CallbackDestinationType implements Mirror<CallbackDestinationType, CallbackView> {
  @Field(() => ID) id!: string;
  @Field(() => String) projectId!: string;
  @Field(() => String) url!: string;
  @Field(() => String, { description: 'live or test: sessions of keys of this mode may name it' }) mode!: string;
  @Field(() => Boolean) active!: boolean;
  @Field(() => String) createdAt!: string;
}

@ObjectType('OidcClient')
export class OidcClientType implements Mirror<OidcClientType, OidcClientView> {
  @Field(() => ID) clientId!: string;
  @Field(() => String) projectId!: string;
  @Field(() => String) name!: string;
  @Field(() => [String]) redirectUris!: string[];
  @Field(() => [String]) scopes!: string[];
  @Field(() => Int, { nullable: true, description: 'Organization whose roster members sign in with it' })
  organizationId!: number | null;
  @Field(() => Boolean) active!: boolean;
  @Field(() => Boolean, { description: 'Authorize requires PKCE (S256); false only for a confidential legacy client' })
  requirePkce!: boolean;
  @Field(() => String) createdAt!: string;
}

@ObjectType('OrgApp')
export class OrgAppType implements Mirror<OrgAppType, OrgAppView> {
  @Field(() => ID) clientId!: string;
  @Field(() => Int) organizationId!: number;
  @Field(() => String, { nullable: true }) organizationName!: string | null;
  @Field(() => String) name!: string;
  @Field(() => Boolean) active!: boolean;
  @Field(() => String) createdAt!: string;
}

@ObjectType('CreateProjectPayload')
export class CreateProjectPayload implements Mirror<CreateProjectPayload, AdminResult<'createProject'>> {
  @Field(() => ProjectType) project!: ProjectType;
  @Field(() => ApiKeyType) apiKey!: ApiKeyType;
  @Field(() => String, { description: 'Shown once' }) key!: string;
  @Field(() => String, { description: 'Shown once' }) webhookSigningSecret!: string;
  @Field(() => String, { description: 'Signs test-mode events; shown once' }) testWebhookSigningSecret!: string;
}

@ObjectType('CreateApiKeyPayload')
export class CreateApiKeyPayload implements Mirror<CreateApiKeyPayload, AdminResult<'createApiKey'>> {
  @Field(() => ApiKeyType) apiKey!: ApiKeyType;
  @Field(() => String, { description: 'Shown once' }) key!: string;
}

@ObjectType('CreateOidcClientPayload')
export class CreateOidcClientPayload implements Mirror<CreateOidcClientPayload, AdminResult<'createOidcClient'>> {
  @Field(() => OidcClientType) client!: OidcClientType;
  @Field(() => String, { description: 'Shown once' }) clientSecret!: string;
}

@ObjectType('CreateOrgAppPayload')
export class CreateOrgAppPayload implements Mirror<CreateOrgAppPayload, AdminResult<'createOrgApp'>> {
  @Field(() => OrgAppType) app!: OrgAppType;
  @Field(() => String, { description: 'Shown once' }) clientSecret!: string;
}

@ObjectType('CreateAdminTokenPayload')
export class CreateAdminTokenPayload implements Mirror<CreateAdminTokenPayload, AdminResult<'createAdminToken'>> {
  @Field(() => ID) id!: string;
  @Field(() => String) role!: string;
  @Field(() => String, { nullable: true }) projectId!: string | null;
  @Field(() => String, { description: 'Shown once' }) token!: string;
  @Field(() => String, { nullable: true }) expiresAt!: string | null;
}

@ObjectType('AdminToken', { description: 'An admin token, never the token itself' })
export class AdminTokenType implements Mirror<AdminTokenType, AdminTokenView> {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) role!: string;
  @Field(() => String, { nullable: true }) projectId!: string | null;
  @Field(() => String) createdAt!: string;
  @Field(() => String, { nullable: true }) expiresAt!: string | null;
  @Field(() => String, { nullable: true }) revokedAt!: string | null;
  @Field(() => Boolean) active!: boolean;
}

@InputType()
export class RevokeAdminTokenInput
  implements MirrorInput<RevokeAdminTokenInput, z.input<typeof revokeAdminTokenInput>>
{
  @Field(() => String) tokenId!: string;
}

@InputType()
export class CreateProjectInput implements MirrorInput<CreateProjectInput, z.input<typeof createProjectInput>> {
  @Field(() => String) name!: string;
  @Field(() => Float, { nullable: true }) balance?: number;
}

@InputType()
export class CreateApiKeyInput implements MirrorInput<CreateApiKeyInput, z.input<typeof createApiKeyInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => String, { nullable: true, description: 'live (default) or test' }) mode?: string;
}

@InputType()
export class RevokeApiKeyInput implements MirrorInput<RevokeApiKeyInput, z.input<typeof revokeApiKeyInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String) apiKeyId!: string;
}

@InputType()
export class CreateWorkflowInput implements MirrorInput<CreateWorkflowInput, z.input<typeof createWorkflowInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String) name!: string;
  @Field(() => [String], { description: 'id_verification, liveness, face_match, age, credential, location' })
  features!: string[];
  @Field(() => Int, {
    nullable: true,
    description: 'Tries (1 to 10, default 3) for a hosted step that fails for a reason the person can fix',
  })
  maxStepTries?: number;
}

@InputType()
export class CallbackUrlInput implements MirrorInput<CallbackUrlInput, z.input<typeof callbackUrlInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String) url!: string;
  @Field(() => String, { nullable: true, description: 'live (default) or test: the sessions that may name it' })
  mode?: string;
}

@InputType()
export class SetCallbackActiveInput
  implements MirrorInput<SetCallbackActiveInput, z.input<typeof setCallbackActiveInput>>
{
  @Field(() => String) projectId!: string;
  @Field(() => String) url!: string;
  @Field(() => Boolean) active!: boolean;
  @Field(() => String, { nullable: true, description: 'live (default) or test' }) mode?: string;
}

@InputType()
export class EvidenceRetentionInput
  implements MirrorInput<EvidenceRetentionInput, z.input<typeof evidenceRetentionInput>>
{
  @Field(() => String) projectId!: string;
  @Field(() => Int, { description: '0 to 3650; 0 deletes the images at the decision' }) days!: number;
}

@InputType()
export class DefaultCallbackInput implements MirrorInput<DefaultCallbackInput, z.input<typeof defaultCallbackInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String, { nullable: true, description: 'null clears it' }) url!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "live (default) or test: test mode's URL, used by test-mode events only",
  })
  mode?: string;
}

@InputType({ description: 'Hosted page branding: an omitted field stays, null clears it' })
export class ProjectBrandingInput implements MirrorInput<ProjectBrandingInput, z.input<typeof brandingInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String, { nullable: true, description: 'https:// URL of the privacy policy' }) privacyPolicyUrl?:
    | string
    | null;
  @Field(() => String, {
    nullable: true,
    description: 'https:// or mailto: URL where a declined person can ask for help',
  })
  supportUrl?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'PNG, JPEG or WebP as base64 (or a data URL), at most 512 KB; re-encoded as PNG, SVG refused',
  })
  logo?: string | null;
}

@InputType()
export class CreateOidcClientInput
  implements MirrorInput<CreateOidcClientInput, z.input<typeof createOidcClientInput>>
{
  @Field(() => String) projectId!: string;
  @Field(() => String) name!: string;
  @Field(() => [String]) redirectUris!: string[];
  @Field(() => [String], { nullable: true }) scopes?: string[];
  @Field(() => Int, { nullable: true, description: 'Organization whose roster members sign in with it' })
  organizationId?: number;
  @Field(() => Boolean, {
    nullable: true,
    description:
      'PKCE (S256) at authorize, default true; false only for a confidential legacy client that cannot send it',
  })
  requirePkce?: boolean;
}

@InputType()
export class CreateOrgAppInput implements MirrorInput<CreateOrgAppInput, z.input<typeof createOrgAppInput>> {
  @Field(() => Int, { nullable: true }) organizationId?: number;
  @Field(() => String, { nullable: true }) organizationName?: string;
  @Field(() => String, { nullable: true }) name?: string;
}

@InputType()
export class CreateAdminTokenInput
  implements MirrorInput<CreateAdminTokenInput, z.input<typeof createAdminTokenInput>>
{
  @Field(() => String, { description: 'viewer, reviewer or admin' }) role!: string;
  @Field(() => String, { nullable: true, description: 'Scope the token to one project' }) projectId?: string | null;
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => Int, { nullable: true, description: 'Days until the token stops working (default: until revoked)' })
  expiresInDays?: number | null;
}

@ObjectType('Charge', { description: 'One debit of a project wallet for one billable call' })
export class ChargeType implements Mirror<ChargeType, ChargeView> {
  @Field(() => ID) id!: string;
  @Field(() => String) projectId!: string;
  @Field(() => String, { description: 'What was bought, e.g. check:age' }) item!: string;
  @Field(() => String, { nullable: true, description: 'The check record it paid for (its session_id)' }) checkId!:
    | string
    | null;
  @Field(() => Float) amount!: number;
  @Field(() => String) currency!: string;
  @Field(() => Boolean, { description: 'Given back because the call failed without a verdict' }) refunded!: boolean;
  @Field(() => String) createdAt!: string;
}

@ObjectType('CheckRecord', { description: 'The stored record of a standalone check call; never raw identity data' })
export class CheckRecordType implements Mirror<CheckRecordType, CheckRecordView> {
  @Field(() => ID) sessionId!: string;
  @Field(() => String) projectId!: string;
  @Field(() => String) type!: string;
  @Field(() => String) status!: string;
  @Field(() => String, { description: 'fresh or account' }) mode!: string;
  @Field(() => String, { nullable: true }) svcId!: string | null;
  @Field(() => String, { nullable: true }) reason!: string | null;
  @Field(() => Int) durationMs!: number;
  @Field(() => String) createdAt!: string;
}

@InputType()
export class TopUpWalletInput
  implements MirrorInput<TopUpWalletInput, z.input<AdminOperations['topUpWallet']['input']>>
{
  @Field(() => String) projectId!: string;
  @Field(() => Float, { description: 'Currency units to add' }) amount!: number;
}

@ObjectType('RosterPlan', {
  description: "An organization's roster plan: price per active seat per month and the trial",
})
export class RosterPlanType implements Mirror<RosterPlanType, AdminResult<'setPlan'>> {
  @Field(() => Int) organizationId!: number;
  @Field(() => String) plan!: string;
  @Field(() => Float, { description: 'Currency units per active seat per month' }) pricePerSeat!: number;
  @Field(() => String) currency!: string;
  @Field(() => String, { nullable: true, description: 'ISO 8601; null without a trial' }) trialEndsAt!: string | null;
  @Field(() => String, { description: 'Billing starts with the month this falls in' }) startedAt!: string;
}

@InputType()
export class SetPlanInput implements MirrorInput<SetPlanInput, z.input<typeof setPlanInput>> {
  @Field(() => Int) organizationId!: number;
  @Field(() => String) plan!: string;
  @Field(() => Float, { description: 'Currency units per active seat per month' }) pricePerSeat!: number;
  @Field(() => String, { nullable: true, description: 'ISO 4217, default USD' }) currency?: string;
  @Field(() => Int, { nullable: true, description: 'Free days from the first plan, default 0' }) trialDays?: number;
}

@InputType()
export class OidcClientActiveInput
  implements MirrorInput<OidcClientActiveInput, z.input<typeof oidcClientActiveInput>>
{
  @Field(() => String) projectId!: string;
  @Field(() => String) clientId!: string;
  @Field(() => Boolean) active!: boolean;
}

@InputType()
export class OidcClientRefInput implements MirrorInput<OidcClientRefInput, z.input<typeof oidcClientRefInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String) clientId!: string;
}

@InputType()
export class OidcClientPkceInput implements MirrorInput<OidcClientPkceInput, z.input<typeof oidcClientPkceInput>> {
  @Field(() => String) projectId!: string;
  @Field(() => String) clientId!: string;
  @Field(() => Boolean, {
    description: 'false only for a confidential legacy client that cannot send a code_challenge',
  })
  requirePkce!: boolean;
}

@InputType()
export class OrgAppActiveInput implements MirrorInput<OrgAppActiveInput, z.input<typeof orgAppActiveInput>> {
  @Field(() => String) clientId!: string;
  @Field(() => Boolean) active!: boolean;
}

@InputType()
export class OrgAppRefInput implements MirrorInput<OrgAppRefInput, z.input<typeof orgAppRefInput>> {
  @Field(() => String) clientId!: string;
}

@InputType()
export class RotateWebhookSecretInput
  implements MirrorInput<RotateWebhookSecretInput, z.input<typeof rotateWebhookSecretInput>>
{
  @Field(() => String) projectId!: string;
  @Field(() => Int, {
    nullable: true,
    description: 'Hours the old secret keeps signing alongside (default 24, at most 720)',
  })
  overlapHours?: number;
  @Field(() => String, {
    nullable: true,
    description: "live (default) or test: test mode's secret signs test-mode events only",
  })
  mode?: string;
}

@ObjectType('RotatedWebhookSecret')
export class RotatedWebhookSecretType implements Mirror<RotatedWebhookSecretType, AdminResult<'rotateWebhookSecret'>> {
  @Field(() => String) projectId!: string;
  @Field(() => String, { description: 'live or test' }) mode!: string;
  @Field(() => String, { description: 'Shown once' }) webhookSigningSecret!: string;
  @Field(() => String, { description: 'Until then deliveries also carry X-Svc-Signature-Previous' })
  previousValidUntil!: string;
}
