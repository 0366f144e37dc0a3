import { DatabaseError } from 'pg';
import type { Database, Sql } from '../db/pool';
import { DomainError, ErrorCode } from '../errors/catalogue';

/** The database is the last guard of the rules that must hold under concurrency; its refusals become domain errors. */
const UNIQUE_CONSTRAINTS: Record<string, { code: ErrorCode; field: string }> = {
  users_email_lower_unique: { code: 'DUPLICATE_EMAIL', field: 'email' },
  domains_name_unique: { code: 'DUPLICATE_ZONE', field: 'zone' },
  records_identity_unique: { code: 'DUPLICATE_RECORD', field: 'rdata' },
  tsig_keys_active_name_unique: { code: 'DUPLICATE_TSIG_KEY', field: 'name' },
  record_templates_owner_name_unique: { code: 'DUPLICATE_TEMPLATE', field: 'name' },
  nameserver_sets_name_unique: { code: 'DUPLICATE_NAMESERVER_SET', field: 'name' },
  nameserver_sets_catalog_zone_unique: { code: 'DUPLICATE_NAMESERVER_SET', field: 'catalogZone' },
};

const FOREIGN_KEYS: Record<string, { code: 'USER_NOT_FOUND' | 'ZONE_NOT_FOUND'; field: string }> = {
  domains_user_id_foreign: { code: 'USER_NOT_FOUND', field: 'user_id' },
  records_domain_id_foreign: { code: 'ZONE_NOT_FOUND', field: 'zone' },
  api_keys_user_id_foreign: { code: 'USER_NOT_FOUND', field: 'user_id' },
  tsig_keys_user_id_foreign: { code: 'USER_NOT_FOUND', field: 'userId' },
};

function constraintOf(error: DatabaseError): string {
  const named = (error as { constraint?: string }).constraint;
  if (named) return named;
  return /constraint "([^"]+)"/.exec(error.message)?.[1] ?? '';
}

/** unique_violation 23505 and foreign_key_violation 23503 (PostgreSQL, Appendix A), as pg reports them */
const isPgError = (error: unknown, sqlState: string): error is DatabaseError => error instanceof DatabaseError && error.code === sqlState;

export function mapDatabaseError(error: unknown): unknown {
  if (isPgError(error, '23505')) {
    const known = UNIQUE_CONSTRAINTS[constraintOf(error)];
    if (known) {
      const { message } = new DomainError(known.code);
      return new DomainError(known.code, message, [{ field: known.field, code: known.code, message }]);
    }
  }
  if (isPgError(error, '23503')) {
    const known = FOREIGN_KEYS[constraintOf(error)];
    if (known) return DomainError.notFound(known.code, known.field);
  }
  return error;
}

/** Runs a unit of work in one transaction, turning constraint violations into domain errors. */
export async function inTransaction<T>(db: Database, work: (sql: Sql) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(work);
  } catch (error) {
    throw mapDatabaseError(error);
  }
}
