import { AccountService } from './accounts/service.js';
import { IdempotencyService } from './billing/idempotency.js';
import { RateLimits, type RateLimitOptions } from './billing/rate-limit.js';
import { BillingService, DEFAULT_PRICES_MINOR } from './billing/service.js';
import { ageCheck } from './checks/age.js';
import { locationCheck } from './checks/location.js';
import { CheckPipeline } from './checks/pipeline.js';
import { idVerificationCheck } from './checks/id-document.js';
import { faceMatchCheck } from './checks/face-match.js';
import { livenessCheck } from './checks/liveness.js';
import { kycCredentialCheck } from './credentials/kyc.js';
import { lazyModels, type Models } from './models.js';
import { credentialCheck } from './credentials/check.js';
import { CredentialRegistry } from './credentials/registry.js';
import { systemClock, type Clock } from './clock.js';
import { migrate, pendingMigrations, type Orm } from './db/orm.js';
import { AccessTokenService } from './oidc/tokens.js';
import { SigningKeys } from './oidc/keys.js';
import { OidcProvider } from './oidc/provider.js';
import { Sealer } from './secrets.js';
import { TenancyService } from './tenancy/service.js';

export interface CoreOptions {
  orm: Orm;
  encryptionKey: string;
  clock?: Clock;
  allowInsecureCallbacks?: boolean;
  /** Price per billable item in minor units (defaults: DEFAULT_PRICES_MINOR). */
  prices?: Record<string, number>;
  rateLimit?: RateLimitOptions;
  /** The models checks call (default: the real ones, loaded on first use). */
  models?: Models;
  /** The OpenID Connect issuer: the public base URL. */
  issuer?: string;
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
  readonly pipeline: CheckPipeline;
  /** The standalone checks, each run through `pipeline`. */
  readonly models: Models;
  readonly signingKeys: SigningKeys;
  readonly oidc: OidcProvider;
  readonly credentials: CredentialRegistry;
  readonly checks: {
    age: ReturnType<typeof ageCheck>;
    location: typeof locationCheck;
    idVerification: ReturnType<typeof idVerificationCheck>;
    credential: ReturnType<typeof credentialCheck>;
    faceMatch: ReturnType<typeof faceMatchCheck>;
    liveness: ReturnType<typeof livenessCheck>;
    kycCredential: ReturnType<typeof kycCredentialCheck>;
  };
  /** Once true it stays true: migrations are never un-applied under a running service. */
  private migrationsApplied = false;

  constructor(options: CoreOptions) {
    this.orm = options.orm;
    this.clock = options.clock ?? systemClock;
    this.sealer = new Sealer(options.encryptionKey);
    const deps = { orm: this.orm, clock: this.clock };
    this.tenancy = new TenancyService({ ...deps, sealer: this.sealer, allowInsecureCallbacks: options.allowInsecureCallbacks ?? false });
    this.accessTokens = new AccessTokenService(deps);
    this.accounts = new AccountService({ ...deps, sealer: this.sealer, accessTokens: this.accessTokens });
    this.billing = new BillingService({ ...deps, prices: options.prices ?? DEFAULT_PRICES_MINOR });
    this.idempotency = new IdempotencyService({ ...deps, sealer: this.sealer });
    this.rateLimits = new RateLimits(this.orm, options.rateLimit ?? { points: 600, windowSeconds: 60, store: 'memory' });
    this.pipeline = new CheckPipeline({ ...deps, billing: this.billing, idempotency: this.idempotency, accounts: this.accounts });
    this.models = options.models ?? lazyModels();
    this.signingKeys = new SigningKeys({ ...deps, sealer: this.sealer });
    this.oidc = new OidcProvider({ ...deps, keys: this.signingKeys, accounts: this.accounts, accessTokens: this.accessTokens, issuer: options.issuer ?? 'http://localhost:8080' });
    this.credentials = new CredentialRegistry(this.orm);
    this.checks = {
      age: ageCheck(this.accounts),
      location: locationCheck,
      idVerification: idVerificationCheck(this.models, this.accounts),
      credential: credentialCheck({ orm: this.orm, registry: this.credentials, accounts: this.accounts }),
      faceMatch: faceMatchCheck(this.models, this.accounts),
      liveness: livenessCheck(this.models),
      kycCredential: kycCredentialCheck({ orm: this.orm, models: this.models, accounts: this.accounts, registry: this.credentials }),
    };
  }

  /** Housekeeping that runs every few minutes: expired idempotency records and rate counters. */
  async purgeExpired(): Promise<{ idempotency: number; rateLimits: number }> {
    return { idempotency: await this.idempotency.purgeExpired(), rateLimits: await this.rateLimits.purgeExpired(this.orm) };
  }

  migrate(): Promise<string[]> {
    return migrate(this.orm);
  }

  /** Ready when the database answers and no committed migration is pending. */
  async readiness(): Promise<{ database: boolean; migrations: boolean }> {
    try {
      await this.orm.em.getConnection().execute('select 1');
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
