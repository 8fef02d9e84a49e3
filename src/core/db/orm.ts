import 'reflect-metadata';
import { type AnyEntity, type EntityClass, MikroORM, ReflectMetadataProvider } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { DomainError } from '../errors.js';
import { ADVISORY_LOCKS, withAdvisoryLock } from './advisory-lock.js';
import { migrations } from './migrations/index.js';
import { holdsNul, preparesNamedStatements } from './prepared.js';

export type Orm = MikroORM<PostgreSqlDriver>;

/**
 * PostgreSQL text cannot hold U+0000 (a query carrying one fails as a protocol error) and jsonb
 * refuses its escape: such a value can only come from a caller, so it is their 400, whichever
 * surface it came through (ids in paths, form fields, JSON, GraphQL arguments).
 */
export function refuseNul(sql: string, params: readonly unknown[]): string {
  // The ORM wraps what is thrown here in a DriverException, which keeps `cause`: fronts answer that.
  if (params.some(holdsNul))
    throw new Error('refused: NUL in a query parameter', {
      cause: new DomainError('validation_error', 'text must not contain NUL (U+0000) characters'),
    });
  return sql;
}

export interface OrmOptions {
  /** The entities the ORM maps: `entities` of src/core/entities.ts (db/ knows no area's tables). */
  entities: readonly EntityClass<AnyEntity>[];
  /** Connections in the pool. The embedded store multiplexes one PGlite connection: keep it at 1. */
  poolMax?: number;
  /**
   * Whether each pooled connection is a session of its own, so statements prepared on it are its
   * own (see preparedQuery). Not for the embedded store: its connections share one PGlite session.
   */
  ownSessions?: boolean;
}

export async function createOrm(clientUrl: string, options: OrmOptions): Promise<Orm> {
  const orm = await MikroORM.init<PostgreSqlDriver>({
    driver: PostgreSqlDriver,
    clientUrl,
    entities: [...options.entities],
    metadataProvider: ReflectMetadataProvider,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    extensions: [Migrator],
    migrations: {
      tableName: 'mikro_orm_migrations',
      migrationsList: migrations,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    pool: { min: 0, max: options.poolMax ?? 10 },
    allowGlobalContext: false,
    onQuery: refuseNul,
    debug: false,
  });
  if (options.ownSessions) preparesNamedStatements(orm);
  return orm;
}

/** Applies committed migrations that are not applied yet; returns their names. */
export async function migrate(orm: Orm): Promise<string[]> {
  // Instances that start together on one database take turns: the first applies, the others
  // then find nothing pending. Without it both ran the same migrations and one failed its start
  // on "already exists".
  const applied = await withAdvisoryLock(orm.config.get('clientUrl'), ADVISORY_LOCKS.migrations, () =>
    orm.getMigrator().up(),
  );
  return applied.map((migration) => migration.name);
}

export async function pendingMigrations(orm: Orm): Promise<string[]> {
  const pending = await orm.getMigrator().getPendingMigrations();
  return pending.map((migration) => migration.name);
}
