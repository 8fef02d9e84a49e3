import { AccountService } from './accounts/service.js';
import { systemClock, type Clock } from './clock.js';
import { migrate, pendingMigrations, type Orm } from './db/orm.js';
import { AccessTokenService } from './oidc/tokens.js';
import { Sealer } from './secrets.js';
import { TenancyService } from './tenancy/service.js';

export interface CoreOptions {
  orm: Orm;
  encryptionKey: string;
  clock?: Clock;
  allowInsecureCallbacks?: boolean;
}

/** The domain: every front (REST, GraphQL, tRPC, CLI, pages) calls these services and nothing else. */
export class Core {
  readonly orm: Orm;
  readonly clock: Clock;
  readonly sealer: Sealer;
  readonly tenancy: TenancyService;
  readonly accounts: AccountService;
  readonly accessTokens: AccessTokenService;
  /** Once true it stays true: migrations are never un-applied under a running service. */
  private migrationsApplied = false;

  constructor(options: CoreOptions) {
    this.orm = options.orm;
    this.clock = options.clock ?? systemClock;
    this.sealer = new Sealer(options.encryptionKey);
    const deps = { orm: this.orm, clock: this.clock };
    this.tenancy = new TenancyService({ ...deps, sealer: this.sealer, allowInsecureCallbacks: options.allowInsecureCallbacks ?? false });
    this.accounts = new AccountService(deps);
    this.accessTokens = new AccessTokenService(deps);
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
