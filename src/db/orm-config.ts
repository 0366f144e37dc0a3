import path from 'node:path';
import { DataloaderType } from '@mikro-orm/core';
import { defineConfig, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ENTITIES } from '../entities';
import { logger } from '../logger';
import { noteDatabaseFailure } from './availability';

export interface OrmConfigOptions {
  clientUrl: string;
  /** run the TypeScript migrations (tests) instead of the compiled ones */
  preferTs?: boolean;
  poolMax?: number;
  debug?: boolean;
  logger?: (message: string) => void;
  /**
   * write the schema snapshot (src/migrations/.snapshot-zonekeeper.json) after migrating: only for
   * `migration:create`, which diffs the entities against it; a start or a test that applied the migrations would
   * otherwise rewrite the committed file with its own database's schema
   */
  keepSnapshot?: boolean;
}

const projectRoot = path.resolve(__dirname, '..', '..', __dirname.includes(`${path.sep}dist${path.sep}`) ? '..' : '');

/**
 * The one MikroORM configuration, shared by the service's start (the migrations, src/db/database.ts), the CLI
 * (mikro-orm.config.ts) and the tests. MikroORM holds the schema (the entities) and runs the migrations; the
 * running service's statements go through its Database (src/db/pool.ts), not through MikroORM.
 */
export function makeOrmConfig(options: OrmConfigOptions) {
  return defineConfig({
    driver: PostgreSqlDriver,
    clientUrl: options.clientUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    preferTs: options.preferTs ?? false,
    dataloader: DataloaderType.ALL,
    forceUtcTimezone: true,
    // checked once, by the migrator, before the migrations run (openDatabase), not again at connect
    ensureDatabase: false,
    // a connection that cannot be had within 4 s fails the request with 503 (availability.ts), within the
    // contract's 5 s; a refused connection fails at once
    pool: { min: 0, max: options.poolMax ?? 20, acquireTimeoutMillis: 4000 },
    // knex prints every lost connection with console.log ("Connection Error: …"); an outage is logged once by
    // availability.ts instead, and anything else goes to the service's logger
    driverOptions: {
      log: {
        warn: (message: string) => {
          if (!noteDatabaseFailure(new Error(message), 'database connection')) logger.warn(`knex: ${message}`);
        },
        error: (message: string) => logger.error(`knex: ${message}`),
        deprecate: () => undefined,
        debug: () => undefined,
      },
    },
    debug: options.debug ?? false,
    logger: options.logger,
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: true },
    migrations: {
      tableName: 'mikro_orm_migrations',
      silent: true, // the service logs what was applied itself
      path: path.join(projectRoot, 'dist', 'src', 'migrations'),
      pathTs: path.join(projectRoot, 'src', 'migrations'),
      glob: '!(*.d).{js,ts}',
      transactional: true,
      allOrNothing: true,
      snapshot: options.keepSnapshot ?? false,
      snapshotName: '.snapshot-zonekeeper',
      emit: 'ts',
    },
  });
}
