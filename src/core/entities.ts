import { Account, AccountLicense, AccountLink, SigninThrottle } from './accounts/entities.js';
import { Charge, IdempotencyRecord, RateLimitWindow, SandboxUsage, WalletLease } from './billing/entities.js';
import { CheckRecord, FaceChallenge } from './checks/entities.js';
import { CredentialProvider, CredentialState, LicenseRecord } from './credentials/entities.js';
import { FaceEnrollment } from './faces/entities.js';
import {
  AccessToken,
  AuthorizationCode,
  Consent,
  Interaction,
  LoginSession,
  RefreshToken,
  SigningKey,
} from './oidc/entities.js';
import { MailOutboxMessage } from './mail/entities.js';
import { McpToolCall } from './mcp/entities.js';
import {
  Member,
  Organization,
  RosterAudit,
  RosterInviteWindow,
  RosterInvoice,
  RosterPlan,
  RosterSeat,
} from './roster/entities.js';
import {
  SessionCheck,
  SessionEvent,
  SessionEvidence,
  SessionHandoff,
  SessionStatusCount,
  VerificationSession,
} from './sessions/entities.js';
import { AdminAuditEntry } from './ops/entities.js';
import { CredentialNonce, CredentialStatusList, IssuedCredential } from './vc/entities.js';
import { WebhookAttempt, WebhookDestinationStreak, WebhookEvent } from './webhooks/entities.js';
import { AdminToken, ApiKey, CallbackDestination, OidcClient, OrgApp, Project, Workflow } from './tenancy/entities.js';

/** Every entity, listed explicitly (no folder discovery: the same list serves src/ and dist/). */
export const entities = [
  Project,
  ApiKey,
  Workflow,
  CallbackDestination,
  OidcClient,
  OrgApp,
  AdminToken,
  Organization,
  Account,
  AccessToken,
  CheckRecord,
  Charge,
  IdempotencyRecord,
  AccountLicense,
  SigningKey,
  AuthorizationCode,
  RefreshToken,
  LoginSession,
  Interaction,
  Consent,
  McpToolCall,
  CredentialState,
  CredentialProvider,
  LicenseRecord,
  FaceChallenge,
  FaceEnrollment,
  VerificationSession,
  SessionEvidence,
  SessionCheck,
  SessionEvent,
  SessionHandoff,
  WebhookEvent,
  WebhookAttempt,
  Member,
  RosterSeat,
  RosterPlan,
  RosterInvoice,
  RosterAudit,
  RosterInviteWindow,
  MailOutboxMessage,
  AccountLink,
  SigninThrottle,
  WalletLease,
  RateLimitWindow,
  SandboxUsage,
  SessionStatusCount,
  WebhookDestinationStreak,
  AdminAuditEntry,
  CredentialStatusList,
  IssuedCredential,
  CredentialNonce,
];
