import { AccountService } from './accounts/service.js';
import { AccountRecovery } from './accounts/recovery.js';
import { IdempotencyService, PgIdempotencyStore } from './billing/idempotency.js';
import { LoginThrottle } from './accounts/login-throttle.js';
import { TokenIntrospection } from './oidc/introspection.js';
import { RateLimits, type RateLimitOptions } from './billing/rate-limit.js';
import { SandboxQuota } from './billing/sandbox-quota.js';
import { DEFAULT_SANDBOX_DAILY_CHECKS } from './checks/sandbox.js';
import { BillingService, DEFAULT_PRICES_MINOR, type WalletLeaseOptions } from './billing/service.js';
import { ageCheck } from './checks/age.js';
import { locationCheck } from './checks/location.js';
import { CheckPipeline } from './checks/pipeline.js';
import { idVerificationCheck } from './checks/id-document.js';
import { faceMatchCheck } from './checks/face-match.js';
import { livenessCheck } from './checks/liveness.js';
import { antispoofCheck } from './checks/antispoof.js';
import { PgChallengeStore } from './checks/challenge-store.js';
import { ChallengeService } from './checks/challenge.js';
import { faceIdentityCheck } from './checks/face-identity.js';
import { faceUniquenessCheck } from './checks/face-uniqueness.js';
import { modelFaceEngine, type FaceEngine } from './face-engine.js';
import { FaceIndex } from './faces/face-index.js';
import { kycCredentialCheck } from './credentials/kyc.js';
import { lazyModels, timedModels, type Models } from './models.js';
import { credentialCheck } from './credentials/check.js';
import { CredentialRegistry } from './credentials/registry.js';
import { systemClock, type Clock } from './clock.js';
import { migrate, pendingMigrations, type Orm } from './db/orm.js';
import { AccessTokenService } from './oidc/tokens.js';
import { PgGrantStore } from './oidc/grant-store.js';
import { PgAccountStore } from './accounts/store.js';
import { PgTenancyStore } from './tenancy/store.js';
import { PgWebhookStore } from './webhooks/store.js';
import { SigningKeys } from './oidc/keys.js';
import { OidcProvider } from './oidc/provider.js';
import { Sealer } from './secrets.js';
import { TenancyService } from './tenancy/service.js';
import type { ChangeFeed } from './db/notifications.js';
import { PgEvidenceStore } from './sessions/evidence.js';
import { PgSessionStore } from './sessions/store.js';
import { SessionService } from './sessions/service.js';
import { AgentTools } from './mcp/agent.js';
import { McpAudit } from './mcp/audit.js';
import { ServiceMetrics } from './metrics.js';
import { DEFAULT_RETRY_POLICY, WebhookService, type RetryPolicy, type WebhookLogger } from './webhooks/service.js';
import { preparedQuery, type StatementRunner } from './db/prepared.js';
import type { JobQueue } from './jobs.js';
import type { Gesture } from './faces/burst.js';
import { MailService, type MailOptions } from './mail/index.js';
import { faceActivationCheck } from './roster/activation.js';
import { RosterService } from './roster/service.js';
import { PgRosterStore } from './roster/store.js';
import { OpsService } from './ops/service.js';
import { CREDENTIAL_MAX_TTL_SECONDS } from './vc/claims.js';
import { CredentialIssuer } from './vc/issuer.js';
import { PgCredentialStore } from './vc/store.js';
import { PresentationVerifier } from './vc/verifier.js';

export interface CoreOptions {
  orm: Orm;
  encryptionKey: string;
  clock?: Clock;
  allowInsecureCallbacks?: boolean;
  /** How instances lease blocks of a wallet (defaults: DEFAULT_WALLET_LEASE). */
  walletLease?: Partial<WalletLeaseOptions>;
  /** Price per billable item in minor units (defaults: DEFAULT_PRICES_MINOR). */
  prices?: Record<string, number>;
  rateLimit?: RateLimitOptions;
  /** Requests per minute per verification session on the hosted page's API (ten times that per address). */
  hostedRateLimitPerMinute?: number;
  /** Test calls with real models per project and UTC day (default DEFAULT_SANDBOX_DAILY_CHECKS). */
  sandboxDailyChecks?: number;
  /** The models checks call (default: the real ones, loaded on first use). */
  models?: Models;
  /**
   * What checks ask of faces (default: an adapter over `models`); tests not about the models pass a deterministic one.
   */
  faceEngine?: FaceEngine;
  /** The OpenID Connect issuer: the public base URL. */
  issuer?: string;
  /** Gestures the liveness challenge may ask for (default all). */
  challengeGestures?: readonly Gesture[];
  /** Webhook retry schedule and timeout (defaults: DEFAULT_RETRY_POLICY). */
  webhookRetry?: Partial<RetryPolicy>;
  /** pino in the service: webhook failures warn, session moves inform. */
  logger?: WebhookLogger & { info(object: object, message: string): void };
  /** SMTP for invitations; without it mail goes to the development outbox. */
  mail?: MailOptions;
  /** Seconds from `rotate-keys` until the new key signs (default 300, the JWKS max-age). */
  keyActivationSeconds?: number;
  /**
   * What instances tell each other: LISTEN/NOTIFY on PostgreSQL, the sole-instance feed on the embedded store; without
   * one nothing is cached that another process could change.
   */
  notifications?: ChangeFeed;
  /**
   * Connections of the webhook dispatcher's own (PostgreSQL only): its claims and outcome writes
   * never wait behind the API's requests for a pooled connection. Without it, the ORM's pool.
   */
  webhookStatements?: StatementRunner;
  /** Project ids as metric label values (default off: one series over every project). */
  metricsProjectLabels?: boolean;
}

/** The domain: every front (REST, GraphQL, tRPC, CLI, pages) calls these services and nothing else. */
export class Core {
  readonly orm: Orm;
  readonly clock: Clock;
  readonly sealer: Sealer;
  readonly tenancy: TenancyService;
  readonly accounts: AccountService;
  readonly accessTokens: AccessTokenService;
  readonly billing: BillingService;
  readonly idempotency: IdempotencyService;
  readonly rateLimits: RateLimits;
  /** The daily allowance of test calls that run real models. */
  readonly sandboxQuota: SandboxQuota;
  /** The hosted page's API: per session token and per client address. */
  readonly hostedRateLimits: { perSession: RateLimits; perAddress: RateLimits };
  readonly pipeline: CheckPipeline;
  /**
   * Prometheus metrics of the core (verdicts, webhooks, queue, sessions, wallets, pool); the HTTP front adds its own to
   * the same registry.
   */
  readonly metrics: ServiceMetrics;
  /** The standalone checks, each run through `pipeline`. */
  readonly models: Models;
  readonly faceEngine: FaceEngine;
  /** Gesture challenges for anti-spoof bursts. */
  readonly challenges: ChallengeService;
  /** Enrolled face descriptors (uniqueness register, identity clusters). */
  readonly faceIndex: FaceIndex;
  readonly signingKeys: SigningKeys;
  /** ES256 keys beside the RS256 ones: they sign verifiable credentials and their status lists. */
  readonly credentialKeys: SigningKeys;
  /** SD-JWT VC issuance over OpenID4VCI (scope `zkp`) and the status lists that revoke. */
  readonly vc: CredentialIssuer;
  /** Presented SD-JWT VCs checked for integrators. */
  readonly presentations: PresentationVerifier;
  /** Failed sign-ins per account and address (the sign-in and activation pages). */
  readonly loginThrottle: LoginThrottle;
  readonly oidc: OidcProvider;
  /** Token revocation (RFC 7009) and introspection (RFC 7662). */
  readonly tokenIntrospection: TokenIntrospection;
  readonly credentials: CredentialRegistry;
  readonly webhooks: WebhookService;
  readonly sessions: SessionService;
  /** The MCP tools an agent calls for a person (docs/mcp.md), and their audit. */
  readonly mcpAudit: McpAudit;
  readonly agentTools: AgentTools;
  /** MCP calls per agent and person: 120 a minute, shared between instances like the API keys' limit. */
  readonly mcpRateLimits: RateLimits;
  /** Background jobs; attached by the running service (`startJobs`), absent in CLI commands. */
  jobs?: JobQueue;
  readonly mail: MailService;
  /** Sign-up from the login pages, email verification and password reset (links by mail). */
  readonly accountRecovery: AccountRecovery;
  readonly roster: RosterService;
  /** Read models and aggregates of the admin API and console. */
  readonly ops: OpsService;
  readonly checks: {
    age: ReturnType<typeof ageCheck>;
    location: typeof locationCheck;
    idVerification: ReturnType<typeof idVerificationCheck>;
    credential: ReturnType<typeof credentialCheck>;
    faceMatch: ReturnType<typeof faceMatchCheck>;
    liveness: ReturnType<typeof livenessCheck>;
    kycCredential: ReturnType<typeof kycCredentialCheck>;
    antispoof: ReturnType<typeof antispoofCheck>;
    faceIdentity: ReturnType<typeof faceIdentityCheck>;
    faceUniqueness: ReturnType<typeof faceUniquenessCheck>;
  };
  /** Once true it stays true: migrations are never un-applied under a running service. */
  private migrationsApplied = false;

  constructor(options: CoreOptions) {
    this.orm = options.orm;
    this.clock = options.clock ?? systemClock;
    this.sealer = new Sealer(options.encryptionKey);
    const deps = { orm: this.orm, clock: this.clock };
    this.metrics = new ServiceMetrics(this.orm, { projectLabels: options.metricsProjectLabels });
    this.tenancy = new TenancyService({
      store: new PgTenancyStore(this.orm),
      clock: deps.clock,
      sealer: this.sealer,
      allowInsecureCallbacks: options.allowInsecureCallbacks ?? false,
      notifications: options.notifications,
      // The roster is made after tenancy (it needs accounts, which need tenancy): asked at call time.
      organizations: {
        exists: (organizationId) => this.roster.organizationExists(organizationId),
        create: (name) => this.roster.createOrganization(name),
        names: (organizationIds) => this.roster.organizationNames(organizationIds),
      },
    });
    const grants = new PgGrantStore(this.orm);
    this.accessTokens = new AccessTokenService({ grants, clock: deps.clock });
    const accountStore = new PgAccountStore(this.orm);
    this.accounts = new AccountService({
      store: accountStore,
      clock: deps.clock,
      sealer: this.sealer,
      accessTokens: this.accessTokens,
      tenancy: this.tenancy,
      // The issuer is made after accounts (it reads them): asked at call time.
      revokeCredentials: (svcId, reason, tx) => this.vc.revokeAll(svcId, reason, tx),
    });
    this.billing = new BillingService({
      ...deps,
      prices: options.prices ?? DEFAULT_PRICES_MINOR,
      lease: options.walletLease,
      logger: options.logger,
    });
    this.idempotency = new IdempotencyService({
      store: new PgIdempotencyStore(deps.orm),
      clock: deps.clock,
      sealer: this.sealer,
    });
    this.rateLimits = new RateLimits(
      this.orm,
      options.rateLimit ?? { points: 600, windowSeconds: 60, store: 'memory' },
    );
    const hosted = {
      points: options.hostedRateLimitPerMinute ?? 120,
      windowSeconds: 60,
      store: options.rateLimit?.store ?? 'memory',
    } as const;
    this.hostedRateLimits = {
      perSession: new RateLimits(this.orm, { ...hosted, keyPrefix: 'hosted_session', per: 'verification session' }),
      // One address may be many people (an office, a carrier's NAT): ten sessions' worth.
      perAddress: new RateLimits(this.orm, {
        ...hosted,
        points: 10 * hosted.points,
        keyPrefix: 'hosted_address',
        per: 'address',
      }),
    };
    this.sandboxQuota = new SandboxQuota(deps, options.sandboxDailyChecks ?? DEFAULT_SANDBOX_DAILY_CHECKS);
    this.pipeline = new CheckPipeline({
      ...deps,
      billing: this.billing,
      idempotency: this.idempotency,
      accounts: this.accounts,
      sandboxQuota: this.sandboxQuota,
      metrics: this.metrics,
    });
    this.models = timedModels(options.models ?? lazyModels(), (model, seconds) =>
      this.metrics.inferenceSeconds.observe({ model }, seconds),
    );
    this.faceEngine = options.faceEngine ?? modelFaceEngine(this.models);
    this.challenges = new ChallengeService({
      store: new PgChallengeStore(deps.orm),
      clock: deps.clock,
      gestures: options.challengeGestures,
    });
    this.faceIndex = new FaceIndex({ ...deps, sealer: this.sealer });
    this.signingKeys = new SigningKeys({
      ...deps,
      sealer: this.sealer,
      activationDelaySeconds: options.keyActivationSeconds,
    });
    // A retired credential key stays published while credentials it signed may live.
    this.credentialKeys = new SigningKeys({
      ...deps,
      sealer: this.sealer,
      activationDelaySeconds: options.keyActivationSeconds,
      alg: 'ES256',
      retiredGraceSeconds: CREDENTIAL_MAX_TTL_SECONDS + 120,
    });
    // A lock is worth an ops line: a person locked out calls support, a spike is an attack.
    this.loginThrottle = new LoginThrottle(
      { orm: this.orm, store: options.rateLimit?.store ?? 'memory', clock: deps.clock },
      (lock) =>
        options.logger?.warn(
          { event: 'signin_locked', key: lock.key, seconds: lock.seconds, failures: lock.failures },
          'sign-in locked after failed passwords',
        ),
    );
    this.oidc = new OidcProvider({
      ...deps,
      grants,
      clients: (clientId) => this.tenancy.oidcClient(clientId),
      // The roster is made after the provider (it revokes through it): asked at call time.
      memberDeactivated: (organizationId, svcId) => this.roster.isDeactivated(organizationId, svcId),
      keys: this.signingKeys,
      accounts: this.accounts,
      accessTokens: this.accessTokens,
      throttle: this.loginThrottle,
      issuer: options.issuer ?? 'http://localhost:8080',
    });
    this.vc = new CredentialIssuer({
      store: new PgCredentialStore(this.orm),
      keys: this.credentialKeys,
      accounts: this.accounts,
      clock: deps.clock,
      sealer: this.sealer,
      issuer: this.oidc.issuer,
    });
    this.presentations = new PresentationVerifier({ keys: this.credentialKeys, issuer: this.vc, clock: deps.clock });
    this.tokenIntrospection = new TokenIntrospection({ grants, clock: deps.clock, issuer: this.oidc.issuer });
    this.credentials = new CredentialRegistry(this.orm);
    this.mail = new MailService({ ...deps, sealer: this.sealer }, options.mail);
    this.accountRecovery = new AccountRecovery({
      ...deps,
      accounts: this.accounts,
      store: accountStore,
      mail: this.mail,
      baseUrl: this.oidc.issuer,
      afterPasswordReset: (account) => this.oidc.endEverySignIn(account),
    });
    this.roster = new RosterService({
      ...deps,
      store: new PgRosterStore(deps.orm),
      accounts: this.accounts,
      mail: this.mail,
      baseUrl: this.oidc.issuer,
      revokeLogins: async (svcId, organizationId) =>
        this.oidc.revokeForClients(svcId, await this.tenancy.oidcClientIdsOfOrganization(organizationId)),
      faceCheck: faceActivationCheck(this.faceEngine, this.accounts),
    });
    this.checks = {
      age: ageCheck(this.accounts),
      location: locationCheck,
      idVerification: idVerificationCheck(this.models, this.faceEngine, this.accounts),
      credential: credentialCheck({ registry: this.credentials, accounts: this.accounts }),
      faceMatch: faceMatchCheck(this.faceEngine, this.accounts),
      liveness: livenessCheck(this.faceEngine),
      kycCredential: kycCredentialCheck({
        orm: this.orm,
        models: this.models,
        faces: this.faceEngine,
        accounts: this.accounts,
        registry: this.credentials,
      }),
      antispoof: antispoofCheck({ engine: this.faceEngine, challenges: this.challenges, accounts: this.accounts }),
      faceIdentity: faceIdentityCheck({
        engine: this.faceEngine,
        index: this.faceIndex,
        challenges: this.challenges,
        accounts: this.accounts,
      }),
      faceUniqueness: faceUniquenessCheck({ engine: this.faceEngine, index: this.faceIndex, accounts: this.accounts }),
    };
    this.webhooks = new WebhookService({
      store: new PgWebhookStore(deps.orm, options.webhookStatements),
      clock: deps.clock,
      tenancy: this.tenancy,
      policy: { ...DEFAULT_RETRY_POLICY, ...options.webhookRetry },
      logger: options.logger,
      metrics: this.metrics,
      allowPrivateDestinations: options.allowInsecureCallbacks ?? false,
      notifications: options.notifications,
    });
    this.sessions = new SessionService({
      clock: deps.clock,
      store: new PgSessionStore(deps.orm),
      evidence: new PgEvidenceStore(deps.orm, this.sealer),
      sealer: this.sealer,
      idempotency: this.idempotency,
      tenancy: this.tenancy,
      accounts: this.accounts,
      billing: this.billing,
      webhooks: this.webhooks,
      checks: this.checks,
      challenges: this.challenges,
      sandboxQuota: this.sandboxQuota,
      baseUrl: options.issuer ?? 'http://localhost:8080',
      logger: options.logger,
    });
    this.ops = new OpsService({ ...deps, sealer: this.sealer, accounts: this.accounts });
    this.mcpAudit = new McpAudit(deps.orm, grants);
    this.mcpRateLimits = new RateLimits(this.orm, {
      points: 120,
      windowSeconds: 60,
      store: options.rateLimit?.store ?? 'memory',
      keyPrefix: 'mcp',
      per: 'agent and person',
    });
    this.agentTools = new AgentTools({
      accounts: this.accounts,
      sessions: this.sessions,
      tenancy: this.tenancy,
      credentials: this.vc,
      audit: this.mcpAudit,
      clock: deps.clock,
      issuer: this.oidc.issuer,
    });
  }

  /**
   * Runs the background work on `jobs`: webhook attempts, a sweep every minute that expires
   * sessions past their deadline and re-queues webhook events whose job was lost, and the daily
   * close of finished billing periods.
   */
  async startJobs(jobs: JobQueue): Promise<void> {
    this.jobs = jobs;
    this.webhooks.jobs = jobs;
    // Retries (queued with their delay) and jobs queued before an upgrade; first attempts go through the dispatcher.
    await jobs.work('webhook.deliver', async (data) => this.webhooks.deliver(String(data.eventId)), { batchSize: 20 });
    // Events committed while no dispatcher ran here (a restart) are due already.
    this.webhooks.wake();
    await jobs.work('maintenance.sweep', () => this.sweep());
    await jobs.schedule('maintenance.sweep', '* * * * *');
    // Daily, so a missed run (all instances down at midnight on the 1st) closes the month the next day.
    await jobs.work('billing.close-periods', async () => {
      await this.roster.closeBillingPeriods();
    });
    await jobs.schedule('billing.close-periods', '5 0 * * *');
  }

  /**
   * The minute's maintenance (the `maintenance.sweep` job): sessions past their deadline, review
   * images past retention, lost webhook jobs, unsettled charges and dead wallet leases. Each step
   * takes a bounded batch, so a backlog is worked off over several minutes, never in one long run.
   */
  async sweep(): Promise<void> {
    await this.sessions.expireDue();
    await this.sessions.purgeEvidence();
    await this.webhooks.rescue();
    await this.billing.refundAbandoned();
    await this.billing.returnExpiredLeases();
  }

  /** Housekeeping that runs every few minutes: expired idempotency records and rate counters. */
  async purgeExpired(): Promise<{
    idempotency: number;
    rateLimits: number;
    signInCounts: number;
    credentialNonces: number;
  }> {
    return {
      idempotency: await this.idempotency.purgeExpired(),
      rateLimits: await this.rateLimits.purgeExpired(this.orm),
      signInCounts: await this.loginThrottle.purgeExpired(),
      credentialNonces: await this.vc.purgeNonces(),
    };
  }

  migrate(): Promise<string[]> {
    return migrate(this.orm);
  }

  /** Ready when the database answers and no committed migration is pending. */
  async readiness(): Promise<{ database: boolean; migrations: boolean }> {
    try {
      await preparedQuery(this.orm, 'readiness', 'select 1', []);
    } catch {
      return { database: false, migrations: false };
    }
    if (!this.migrationsApplied) {
      try {
        this.migrationsApplied = (await pendingMigrations(this.orm)).length === 0;
      } catch {
        this.migrationsApplied = false;
      }
    }
    return { database: true, migrations: this.migrationsApplied };
  }
}
