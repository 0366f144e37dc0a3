import type { EntityManager } from '@mikro-orm/postgresql';
import { Principal, scopeUserId } from '../auth/principal';
import { dataVersion } from '../repositories/data-version';
import { withSqlConnection } from '../repositories/sql';

/**
 * The version of everything `principal` can read (its user's data, or all of it for the admin), for
 * conditional GETs: an answer computed after this version was read is at least as new as the version, so
 * a client that holds the answer labelled with an unchanged version holds the current answer.
 */
export function readVersion(em: EntityManager, principal: Principal, withPropagation: boolean): Promise<string> {
  return withSqlConnection(em, (sql) => dataVersion(sql, { userId: scopeUserId(principal), withPropagation }));
}
