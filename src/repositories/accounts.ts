import type { Sql } from '../db/pool';
import type { TsigAlgorithm } from '../dns/wire/tsig';
import type { UserRow } from './read-model';
import { KeyPolicy, policyFromRow } from '../auth/policy';

/**
 * Users, API keys and TSIG keys: the writes of the account services and the key lookups of authentication.
 * Plain rows in, plain rows out; the services decide who may do what.
 */

/**
 * Revokes a key once: the update of an active key (its condition is checked again on the row a concurrent
 * revocation left, so of two at once only one is the first), else the key as it is, already revoked; a
 * revoked key keeps its first revocation time. In the caller's transaction.
 */
async function revokeOnce(
  sql: Sql,
  table: 'api_keys' | 'tsig_keys',
  columns: string,
  id: number,
  scopeUserId: number | undefined,
): Promise<(Record<string, any> & { newlyRevoked: boolean }) | undefined> {
  const scope = [id, scopeUserId ?? null];
  const [revoked] = await sql.rows(
    `update ${table} set revoked_at = now() where id = $1 and ($2::bigint is null or user_id = $2) and revoked_at is null returning ${columns}`,
    scope,
  );
  if (revoked) return { ...revoked, newlyRevoked: true };
  const [row] = await sql.rows(`select ${columns} from ${table} where id = $1 and ($2::bigint is null or user_id = $2)`, scope);
  return row ? { ...row, newlyRevoked: false } : undefined;
}

const toUser = (row: any): UserRow => ({ id: Number(row.id), email: row.email, createdAt: new Date(row.created_at) });

export async function insertUser(sql: Sql, email: string): Promise<UserRow> {
  const [row] = await sql.rows('insert into users (email) values ($1) returning id, email, created_at', [email]);
  return toUser(row);
}

/**
 * The user of this e-mail (any letter case), inserted if there is none: concurrent calls make one user (the
 * unique index on lower(email) decides). `created`: this call inserted it.
 */
export async function userOfEmailMade(sql: Sql, email: string): Promise<{ user: UserRow; created: boolean }> {
  const [inserted] = await sql.rows(
    'insert into users (email) values ($1) on conflict (lower(email)) do nothing returning id, email, created_at',
    [email],
  );
  if (inserted) return { user: toUser(inserted), created: true };
  const [row] = await sql.rows('select id, email, created_at from users where lower(email) = lower($1)', [email]);
  return { user: toUser(row), created: false };
}

/** the user's new e-mail; undefined when there is no such user */
export async function updateUserEmail(sql: Sql, id: number, email: string): Promise<UserRow | undefined> {
  const [row] = await sql.rows('update users set email = $2 where id = $1 returning id, email, created_at', [id, email]);
  return row ? toUser(row) : undefined;
}

/** locks the user's row (its deletion follows in the same transaction); false when there is none */
export async function lockUser(sql: Sql, id: number): Promise<boolean> {
  return (await sql.rows('select id from users where id = $1 for update', [id])).length > 0;
}

/** deletes the user; its zones, records and keys go with it (foreign keys cascade) */
export async function deleteUser(sql: Sql, id: number): Promise<void> {
  await sql.rows('delete from users where id = $1', [id]);
}

export interface ApiKeyRow {
  id: number;
  userId: number | null;
  name: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** the key's least-privilege policy (src/auth/policy.ts) */
  policy: KeyPolicy;
  lastUsedAt: Date | null;
  /** when the key first authenticated a request; null while unused */
  firstUsedAt: Date | null;
  /** what the key may do beyond its policy (API_KEY_SCOPES): `propose`, a write to a zone under review proposed */
  scopes: ApiKeyScope[];
}

/** an API key's scopes: `propose` makes its PowerDNS-API writes to a zone under review change requests (docs/powerdns-api.md) */
export const API_KEY_SCOPES = ['propose'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
/** the policy's columns, the same on both key tables */
const POLICY_COLUMNS =
  'rules, preset, may_create_zones, may_delete_zones, may_manage_keys, expires_at, idle_days, allowed_networks, last_used_at';
const API_KEY_COLUMNS = `id, user_id, name, created_at, revoked_at, first_used_at, scopes, ${POLICY_COLUMNS}`;
const toApiKey = (row: any): ApiKeyRow => ({
  id: Number(row.id),
  userId: row.user_id === null ? null : Number(row.user_id),
  name: row.name,
  createdAt: new Date(row.created_at),
  revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  policy: policyFromRow(row),
  lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
  firstUsedAt: row.first_used_at === null ? null : new Date(row.first_used_at),
  scopes: row.scopes ?? [],
});

/** a policy as the statement parameters of its columns, in POLICY_INSERT's order */
function policyValues(policy: KeyPolicy): unknown[] {
  return [
    policy.rules === null ? null : JSON.stringify(policy.rules),
    policy.preset,
    policy.rules !== null && policy.mayCreateZones,
    policy.rules !== null && policy.mayDeleteZones,
    policy.rules !== null && policy.mayManageKeys,
    policy.expiresAt,
    policy.idleDays,
    policy.allowedNetworks,
  ];
}
const POLICY_INSERT = 'rules, preset, may_create_zones, may_delete_zones, may_manage_keys, expires_at, idle_days, allowed_networks';

/** notes that a key was used now (the idle limit's clock); the caller writes it at most once a minute per key */
export async function touchKey(sql: Sql, table: 'api_keys' | 'tsig_keys', id: number): Promise<void> {
  await sql.rows(`update ${table} set last_used_at = now() where id = $1`, [id]);
}

/** the scopes of an API key (none for a key of another kind or none at all) */
export async function apiKeyScopes(sql: Sql, id: number): Promise<ApiKeyScope[]> {
  const [row] = await sql.rows<{ scopes: ApiKeyScope[] }>('select scopes from api_keys where id = $1', [id]);
  return row?.scopes ?? [];
}

/** an active key by the hash of its secret, with its hash (compared again by the caller) */
export async function activeApiKeyByHash(sql: Sql, hash: string): Promise<(ApiKeyRow & { secretHash: string }) | undefined> {
  const [row] = await sql.rows(`select ${API_KEY_COLUMNS}, secret_hash from api_keys where secret_hash = $1 and revoked_at is null`, [
    hash,
  ]);
  return row ? { ...toApiKey(row), secretHash: row.secret_hash } : undefined;
}

/** the keys of one user, or every key (`userId` undefined), in id order */
export async function listApiKeys(sql: Sql, userId?: number): Promise<ApiKeyRow[]> {
  const rows = await sql.rows(`select ${API_KEY_COLUMNS} from api_keys where ($1::bigint is null or user_id = $1) order by id`, [
    userId ?? null,
  ]);
  return rows.map(toApiKey);
}

/** a new key; undefined when the user does not exist */
export async function insertApiKey(
  sql: Sql,
  key: { userId: number | null; name: string; secretHash: string; policy: KeyPolicy; scopes?: readonly ApiKeyScope[] },
): Promise<ApiKeyRow | undefined> {
  const [row] = await sql.rows(
    `insert into api_keys (user_id, name, secret_hash, ${POLICY_INSERT}, scopes)
     select $1::bigint, $2, $3, $4::jsonb, $5, $6, $7, $8, $9::timestamptz, $10::int, $11::text[], $12::text[]
      where $1::bigint is null or exists (select 1 from users where id = $1)
     returning ${API_KEY_COLUMNS}`,
    [key.userId, key.name, key.secretHash, ...policyValues(key.policy), key.scopes ?? []],
  );
  return row ? toApiKey(row) : undefined;
}

/** revokes a key (a revoked one keeps its first revocation time); undefined when there is none the scope may see */
export async function revokeApiKey(
  sql: Sql,
  id: number,
  scopeUserId?: number,
): Promise<(ApiKeyRow & { secretHash: string; newlyRevoked: boolean }) | undefined> {
  const row = await revokeOnce(sql, 'api_keys', `${API_KEY_COLUMNS}, secret_hash`, id, scopeUserId);
  return row ? { ...toApiKey(row), secretHash: row.secret_hash, newlyRevoked: row.newlyRevoked } : undefined;
}

/** the admin key API_KEY sets: its hash replaced, or the key created */
export async function setConfiguredAdminKey(sql: Sql, name: string, secretHash: string): Promise<void> {
  const updated = await sql.affected('update api_keys set secret_hash = $2 where user_id is null and name = $1', [name, secretHash]);
  if (!updated) await sql.rows('insert into api_keys (user_id, name, secret_hash) values (null, $1, $2)', [name, secretHash]);
}

/**
 * Creates the generated admin key unless an active admin key exists; false when one does. The advisory lock
 * serialises concurrent first starts (several processes over one database), until the transaction ends.
 */
export async function insertFirstAdminKey(sql: Sql, name: string, secretHash: string): Promise<boolean> {
  await sql.rows('select pg_advisory_xact_lock(7041522)');
  const [row] = await sql.rows<{ n: number }>('select count(*)::int as n from api_keys where user_id is null and revoked_at is null');
  if (row.n > 0) return false;
  await sql.rows('insert into api_keys (user_id, name, secret_hash) values (null, $1, $2)', [name, secretHash]);
  return true;
}

export interface TsigKeyRow {
  id: number;
  userId: number | null;
  name: string;
  algorithm: TsigAlgorithm;
  createdAt: Date;
  revokedAt: Date | null;
  policy: KeyPolicy;
  lastUsedAt: Date | null;
  /** when the key first signed a request that verified; null while unused */
  firstUsedAt: Date | null;
}
const TSIG_KEY_COLUMNS = `id, user_id, name, algorithm, created_at, revoked_at, first_used_at, ${POLICY_COLUMNS}`;
const toTsigKey = (row: any): TsigKeyRow => ({
  id: Number(row.id),
  userId: row.user_id === null ? null : Number(row.user_id),
  name: row.name,
  algorithm: row.algorithm,
  createdAt: new Date(row.created_at),
  revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  policy: policyFromRow(row),
  lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
  firstUsedAt: row.first_used_at === null ? null : new Date(row.first_used_at),
});

export async function listTsigKeys(sql: Sql, userId?: number): Promise<TsigKeyRow[]> {
  const rows = await sql.rows(`select ${TSIG_KEY_COLUMNS} from tsig_keys where ($1::bigint is null or user_id = $1) order by id`, [
    userId ?? null,
  ]);
  return rows.map(toTsigKey);
}

/** a new key; undefined when the user does not exist */
export async function insertTsigKey(
  sql: Sql,
  key: { userId: number | null; name: string; algorithm: TsigAlgorithm; secret: Buffer; policy: KeyPolicy },
): Promise<TsigKeyRow | undefined> {
  const [row] = await sql.rows(
    `insert into tsig_keys (user_id, name, algorithm, secret, ${POLICY_INSERT})
     select $1::bigint, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10::timestamptz, $11::int, $12::text[]
      where $1::bigint is null or exists (select 1 from users where id = $1)
     returning ${TSIG_KEY_COLUMNS}`,
    [key.userId, key.name, key.algorithm, key.secret, ...policyValues(key.policy)],
  );
  return row ? toTsigKey(row) : undefined;
}

export async function revokeTsigKey(
  sql: Sql,
  id: number,
  scopeUserId?: number,
): Promise<(TsigKeyRow & { newlyRevoked: boolean }) | undefined> {
  const row = await revokeOnce(sql, 'tsig_keys', TSIG_KEY_COLUMNS, id, scopeUserId);
  return row ? { ...toTsigKey(row), newlyRevoked: row.newlyRevoked } : undefined;
}

/** the active key of that name, with its secret (the DNS primary verifies and signs with it) */
export async function activeTsigKeyByName(sql: Sql, name: string): Promise<(TsigKeyRow & { secret: Buffer }) | undefined> {
  const [row] = await sql.rows(`select ${TSIG_KEY_COLUMNS}, secret from tsig_keys where name = $1 and revoked_at is null`, [name]);
  return row ? { ...toTsigKey(row), secret: Buffer.from(row.secret) } : undefined;
}

/** the admin's rate values for a key and its user (null: the setting's default) */
export interface KeyRateLimits {
  keyPerSecond: number | null;
  keyBurst: number | null;
  userPerSecond: number | null;
  userBurst: number | null;
}

const nullableInt = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** the rate values of an API key (its own and its user's) or of a TSIG key (its user's; a TSIG key has none of its own) */
export async function keyRateLimits(
  sql: Sql,
  key: { apiKeyId: number } | { tsigKeyId: number } | { userId: number },
): Promise<KeyRateLimits> {
  const [row] =
    'userId' in key
      ? await sql.rows(
          `select null as key_rate, null as key_burst, u.rate_per_second as user_rate, u.rate_burst as user_burst from users u where u.id = $1`,
          [key.userId],
        )
      : 'apiKeyId' in key
        ? await sql.rows(
            `select k.rate_per_second as key_rate, k.rate_burst as key_burst, u.rate_per_second as user_rate, u.rate_burst as user_burst
             from api_keys k left join users u on u.id = k.user_id where k.id = $1`,
            [key.apiKeyId],
          )
        : await sql.rows(
            `select null as key_rate, null as key_burst, u.rate_per_second as user_rate, u.rate_burst as user_burst
             from tsig_keys t left join users u on u.id = t.user_id where t.id = $1`,
            [key.tsigKeyId],
          );
  return {
    keyPerSecond: nullableInt(row?.key_rate),
    keyBurst: nullableInt(row?.key_burst),
    userPerSecond: nullableInt(row?.user_rate),
    userBurst: nullableInt(row?.user_burst),
  };
}

/** what the admin set for a user (null: the setting's default), and the zones the user has */
export interface UserLimitsRow {
  ratePerSecond: number | null;
  rateBurst: number | null;
  maxZones: number | null;
  maxRecordsPerZone: number | null;
  zoneCount: number;
}
export type UserLimitsPatch = Partial<Omit<UserLimitsRow, 'zoneCount'>>;

const USER_LIMIT_COLUMNS: Record<keyof UserLimitsPatch, string> = {
  ratePerSecond: 'rate_per_second',
  rateBurst: 'rate_burst',
  maxZones: 'max_zones',
  maxRecordsPerZone: 'max_records_per_zone',
};
const toUserLimits = (row: any): UserLimitsRow => ({
  ratePerSecond: nullableInt(row.rate_per_second),
  rateBurst: nullableInt(row.rate_burst),
  maxZones: nullableInt(row.max_zones),
  maxRecordsPerZone: nullableInt(row.max_records_per_zone),
  zoneCount: Number(row.zone_count),
});

export async function userLimits(sql: Sql, userId: number): Promise<UserLimitsRow | undefined> {
  const [row] = await sql.rows('select rate_per_second, rate_burst, max_zones, max_records_per_zone, zone_count from users where id = $1', [
    userId,
  ]);
  return row ? toUserLimits(row) : undefined;
}

/** sets the values given (null: back to the default), leaves the others; undefined when there is no such user */
export async function setUserLimits(sql: Sql, userId: number, patch: UserLimitsPatch): Promise<UserLimitsRow | undefined> {
  const values: unknown[] = [userId];
  const sets = (Object.keys(USER_LIMIT_COLUMNS) as (keyof UserLimitsPatch)[])
    .filter((field) => patch[field] !== undefined)
    .map((field) => {
      values.push(patch[field]);
      return `${USER_LIMIT_COLUMNS[field]} = $${values.length}::int`;
    });
  const [row] = await sql.rows(
    `update users set ${sets.length ? sets.join(', ') : 'id = id'} where id = $1
     returning rate_per_second, rate_burst, max_zones, max_records_per_zone, zone_count`,
    values,
  );
  return row ? toUserLimits(row) : undefined;
}

/** an API key's own rate values (null: the default); undefined when there is no such key */
export async function setApiKeyRate(
  sql: Sql,
  keyId: number,
  patch: { ratePerSecond?: number | null; rateBurst?: number | null },
): Promise<{ ratePerSecond: number | null; rateBurst: number | null } | undefined> {
  const [row] = await sql.rows(
    `update api_keys set rate_per_second = case when $2 then $3::int else rate_per_second end,
                         rate_burst = case when $4 then $5::int else rate_burst end
      where id = $1 returning rate_per_second, rate_burst`,
    [keyId, patch.ratePerSecond !== undefined, patch.ratePerSecond ?? null, patch.rateBurst !== undefined, patch.rateBurst ?? null],
  );
  return row ? { ratePerSecond: nullableInt(row.rate_per_second), rateBurst: nullableInt(row.rate_burst) } : undefined;
}

/** an API key's own rate values; undefined when there is no such key */
export async function apiKeyRate(sql: Sql, keyId: number): Promise<{ ratePerSecond: number | null; rateBurst: number | null } | undefined> {
  const [row] = await sql.rows('select rate_per_second, rate_burst from api_keys where id = $1', [keyId]);
  return row ? { ratePerSecond: nullableInt(row.rate_per_second), rateBurst: nullableInt(row.rate_burst) } : undefined;
}

/**
 * The active key as it is, locked until the transaction ends (a change compares before and after); undefined
 * when the scope sees no active key of that id.
 */
/** a key's row as selected: read by toApiKey / toTsigKey */
type KeyRecord = Record<string, unknown>;

async function lockActiveKey(
  sql: Sql,
  table: 'api_keys' | 'tsig_keys',
  columns: string,
  id: number,
  scopeUserId?: number,
): Promise<KeyRecord | undefined> {
  const [row] = await sql.rows<KeyRecord>(
    `select ${columns} from ${table} where id = $1 and ($2::bigint is null or user_id = $2) and revoked_at is null for update`,
    [id, scopeUserId ?? null],
  );
  return row;
}

/**
 * Changes a key's name and/or policy (a policy replaces the whole one). A new policy clears the marks of its
 * recorded expiry and idleness (`markKeyLimitAudited`): the key refused again under its new limits is
 * recorded again.
 */
async function updateKey(
  sql: Sql,
  table: 'api_keys' | 'tsig_keys',
  columns: string,
  id: number,
  change: { name?: string; policy?: KeyPolicy },
): Promise<KeyRecord> {
  const sets: string[] = [];
  const values: unknown[] = [id];
  if (change.name !== undefined) {
    values.push(change.name);
    sets.push(`name = $${values.length}`);
  }
  if (change.policy !== undefined) {
    const casts = ['jsonb', 'text', 'boolean', 'boolean', 'boolean', 'timestamptz', 'int', 'text[]'];
    POLICY_INSERT.split(', ').forEach((column, i) => {
      values.push(policyValues(change.policy!)[i]);
      sets.push(`${column} = $${values.length}::${casts[i]}`);
    });
    sets.push('expiry_audited_at = null', 'idle_audited_at = null');
  }
  const [row] = await sql.rows<KeyRecord>(`update ${table} set ${sets.join(', ')} where id = $1 returning ${columns}`, values);
  return row;
}

/** an active API key of the scope, locked for a change; undefined when there is none */
export async function lockActiveApiKey(
  sql: Sql,
  id: number,
  scopeUserId?: number,
): Promise<(ApiKeyRow & { secretHash: string }) | undefined> {
  const row = await lockActiveKey(sql, 'api_keys', `${API_KEY_COLUMNS}, secret_hash`, id, scopeUserId);
  return row ? { ...toApiKey(row), secretHash: String(row.secret_hash) } : undefined;
}

export async function updateApiKey(sql: Sql, id: number, change: { name?: string; policy?: KeyPolicy }): Promise<ApiKeyRow> {
  return toApiKey(await updateKey(sql, 'api_keys', API_KEY_COLUMNS, id, change));
}

/** an active TSIG key of the scope, locked for a change; undefined when there is none */
export async function lockActiveTsigKey(sql: Sql, id: number, scopeUserId?: number): Promise<TsigKeyRow | undefined> {
  const row = await lockActiveKey(sql, 'tsig_keys', TSIG_KEY_COLUMNS, id, scopeUserId);
  return row ? toTsigKey(row) : undefined;
}

export async function updateTsigKey(sql: Sql, id: number, change: { policy?: KeyPolicy }): Promise<TsigKeyRow> {
  return toTsigKey(await updateKey(sql, 'tsig_keys', TSIG_KEY_COLUMNS, id, change));
}

/** a key's algorithm and secret, each kept when not given (the key's row locked by the caller) */
export async function rekeyTsigKey(sql: Sql, id: number, change: { algorithm?: TsigAlgorithm; secret?: Buffer }): Promise<TsigKeyRow> {
  const [row] = await sql.rows(
    `update tsig_keys set algorithm = coalesce($2, algorithm), secret = coalesce($3, secret) where id = $1 returning ${TSIG_KEY_COLUMNS}`,
    [id, change.algorithm ?? null, change.secret ?? null],
  );
  return toTsigKey(row);
}

/** an active key's secret, in the caller's scope (its user's keys; undefined: every key) */
export async function activeTsigKeySecret(
  sql: Sql,
  id: number,
  scopeUserId?: number,
): Promise<(TsigKeyRow & { secret: Buffer }) | undefined> {
  const [row] = await sql.rows(
    `select ${TSIG_KEY_COLUMNS}, secret from tsig_keys where id = $1 and revoked_at is null and ($2::bigint is null or user_id = $2)`,
    [id, scopeUserId ?? null],
  );
  return row ? { ...toTsigKey(row), secret: Buffer.from(row.secret) } : undefined;
}
