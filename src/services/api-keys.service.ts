import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/pool';
import { canSeeUser, Principal, requireAdmin } from '../auth/principal';
import { checkLimitValues } from './quotas';
import {
  activeApiKeyByHash,
  apiKeyRate,
  ApiKeyRow,
  setApiKeyRate,
  insertApiKey,
  insertFirstAdminKey,
  listApiKeys,
  revokeApiKey,
  setConfiguredAdminKey,
} from '../repositories/accounts';
import { DomainError } from '../errors/catalogue';
import type { RequestContext } from './context';
import { inTransaction } from './db-errors';

export type { ApiKeyRow } from '../repositories/accounts';
export interface CreatedApiKey {
  apiKey: ApiKeyRow;
  secret: string;
}

const ENV_ADMIN_KEY_NAME = 'admin (API_KEY setting)';
const GENERATED_ADMIN_KEY_NAME = 'admin (generated on first start)';

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** 32 random bytes: a key that cannot be guessed, so a fast hash is enough to store it. */
function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * API keys (docs/decisions.md §2): stored as SHA-256 hashes, found by hash and compared in constant time.
 * A short cache keeps authentication off the database on hot paths; revocation clears it in this process,
 * and other processes see a revocation within CACHE_MS.
 */
export class ApiKeysService {
  private static readonly CACHE_MS = 5_000;
  private readonly cache = new Map<string, { principal: Principal | null; until: number }>();

  /** `onLimitsChanged`: told when the admin changes a key's rate (the rate limits read their values again) */
  constructor(private readonly onLimitsChanged?: () => void) {}

  /** the key presented, read through `db` when the cache has none */
  async authenticate(db: Database, presented: string | undefined): Promise<Principal | null> {
    if (!presented) return null;
    const hash = hashKey(presented);
    const cached = this.cache.get(hash);
    if (cached && cached.until > Date.now()) return cached.principal;
    const key = await activeApiKeyByHash(db, hash);
    let principal: Principal | null = null;
    if (key && timingSafeEqual(Buffer.from(key.secretHash, 'hex'), Buffer.from(hash, 'hex'))) {
      principal =
        key.userId !== null
          ? { kind: 'user', keyId: key.id, keyName: key.name, userId: key.userId }
          : { kind: 'admin', keyId: key.id, keyName: key.name };
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, { principal, until: Date.now() + ApiKeysService.CACHE_MS });
    return principal;
  }

  /**
   * At start: the API_KEY setting becomes the admin key (replacing an earlier value of it); without it, an
   * admin key is generated once and returned so that the caller prints it once.
   */
  async ensureAdminKey(db: Database, configured: string | undefined): Promise<string | undefined> {
    return db.transaction(async (sql) => {
      if (configured) {
        await setConfiguredAdminKey(sql, ENV_ADMIN_KEY_NAME, hashKey(configured));
        return undefined;
      }
      const secret = newSecret('zk_admin');
      return (await insertFirstAdminKey(sql, GENERATED_ADMIN_KEY_NAME, hashKey(secret))) ? secret : undefined;
    });
  }

  /** a user key sees its own user's keys; the admin key sees every key, or one user's */
  async list(ctx: RequestContext, userId?: number): Promise<ApiKeyRow[]> {
    return listApiKeys(ctx.db, ctx.principal.kind === 'user' ? ctx.principal.userId : userId);
  }

  /** a new key of a user; the secret is returned once and only its hash is stored */
  async create(ctx: RequestContext, input: { userId: number; name: string }): Promise<CreatedApiKey> {
    if (!canSeeUser(ctx.principal, input.userId)) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    const secret = newSecret('zk');
    const key = await inTransaction(ctx.db, (sql) =>
      insertApiKey(sql, { userId: input.userId, name: input.name.trim(), secretHash: hashKey(secret) }),
    );
    if (!key) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    return { apiKey: key, secret };
  }

  /** A key's own rate (admin key only): a value replaces the key's, null returns it to the default, absent leaves it. */
  async setRate(
    ctx: RequestContext,
    id: number,
    patch: { ratePerSecond?: number | null; rateBurst?: number | null },
  ): Promise<{ ratePerSecond: number | null; rateBurst: number | null }> {
    requireAdmin(ctx.principal);
    checkLimitValues(patch);
    const row = await inTransaction(ctx.db, (sql) => setApiKeyRate(sql, id, patch));
    if (!row) throw DomainError.notFound('API_KEY_NOT_FOUND', 'id');
    this.onLimitsChanged?.();
    return row;
  }

  /** a key's own rate values (null: the default); a user key sees its own user's keys only */
  async rate(ctx: RequestContext, key: ApiKeyRow): Promise<{ ratePerSecond: number | null; rateBurst: number | null }> {
    if (ctx.principal.kind === 'user' && key.userId !== ctx.principal.userId) throw DomainError.notFound('API_KEY_NOT_FOUND', 'id');
    return (await apiKeyRate(ctx.db, key.id)) ?? { ratePerSecond: null, rateBurst: null };
  }

  forgetUser(userId: number): void {
    for (const [hash, entry] of this.cache) {
      if (entry.principal?.kind === 'user' && entry.principal.userId === userId) this.cache.delete(hash);
    }
  }

  async revoke(ctx: RequestContext, id: number): Promise<ApiKeyRow> {
    const key = await inTransaction(ctx.db, (sql) =>
      revokeApiKey(sql, id, ctx.principal.kind === 'user' ? ctx.principal.userId : undefined),
    );
    if (!key) throw DomainError.notFound('API_KEY_NOT_FOUND', 'id');
    this.cache.delete(key.secretHash);
    const { secretHash: _hash, ...row } = key;
    return row;
  }
}
