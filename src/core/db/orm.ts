import 'reflect-metadata';
import { MikroORM, ReflectMetadataProvider } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { entities } from './entities.js';
import { migrations } from './migrations/index.js';

export type Orm = MikroORM<PostgreSqlDriver>;

export interface OrmOptions {
  /** Connections in the pool. The embedded store multiplexes one PGlite connection: keep it at 1. */
  poolMax?: number;
}

export async function createOrm(clientUrl: string, options: OrmOptions = {}): Promise<Orm> {
  return MikroORM.init<PostgreSqlDriver>({
    driver: PostgreSqlDriver,
    clientUrl,
    entities,
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
    debug: false,
  });
}

/** Applies committed migrations that are not applied yet; returns their names. */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((migration) => migration.name);
}

export async function pendingMigrations(orm: Orm): Promise<string[]> {
  const pending = await orm.getMigrator().getPendingMigrations();
  return pending.map((migration) => migration.name);
}
