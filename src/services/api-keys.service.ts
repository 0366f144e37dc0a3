import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { canSeeUser, Principal } from '../auth/principal';
import { ApiKey, User } from '../entities';
import { DomainError } from '../errors/catalogue';
import type { RequestContext } from './context';
import { inTransaction } from './db-errors';

export interface ApiKeyRow { id: number; userId: number | null; name: string; createdAt: Date; revokedAt: Date | null }
export interface CreatedApiKey { apiKey: ApiKeyRow; secret: string }

const ENV_ADMIN_KEY_NAME = 'admin (API_KEY setting)';
const GENERATED_ADMIN_KEY_NAME = 'admin (generated on first start)';

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** 32 random bytes: a key that cannot be guessed, so a fast hash is enough to store it. */
function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

const toRow = (key: ApiKey): ApiKeyRow => ({
  id: key.id,
  userId: key.user?.id ?? null,
  name: key.name,
  createdAt: key.createdAt,
  revokedAt: key.revokedAt ?? null,
});

/**
 * API keys (docs/decisions.md §2): stored as SHA-256 hashes, found by hash and compared in constant time.
 * A short cache keeps authentication off the database on hot paths; revocation clears it in this process,
 * and other processes see a revocation within CACHE_MS.
 */
export class ApiKeysService {
  private static readonly CACHE_MS = 5_000;
  private readonly cache = new Map<string, { principal: Principal | null; until: number }>();

  /** `em`: any EntityManager (the global one will do); a fork of it reads the key when the cache has none */
  async authenticate(em: EntityManager, presented: string | undefined): Promise<Principal | null> {
    if (!presented) return null;
    const hash = hashKey(presented);
    const cached = this.cache.get(hash);
    if (cached && cached.until > Date.now()) return cached.principal;
    const key = await em.fork().findOne(ApiKey, { secretHash: hash, revokedAt: null });
    let principal: Principal | null = null;
    if (key && timingSafeEqual(Buffer.from(key.secretHash, 'hex'), Buffer.from(hash, 'hex'))) {
      principal = key.user ? { kind: 'user', keyId: key.id, keyName: key.name, userId: key.user.id } : { kind: 'admin', keyId: key.id, keyName: key.name };
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, { principal, until: Date.now() + ApiKeysService.CACHE_MS });
    return principal;
  }

  /**
   * At start: the API_KEY setting becomes the admin key (replacing an earlier value of it); without it, an
   * admin key is generated once and returned so that the caller prints it once.
   */
  async ensureAdminKey(em: EntityManager, configured: string | undefined): Promise<string | undefined> {
    return em.fork().transactional(async (tx) => {
      if (configured) {
        const existing = await tx.findOne(ApiKey, { user: null, name: ENV_ADMIN_KEY_NAME });
        if (existing) existing.secretHash = hashKey(configured);
        else tx.persist(tx.create(ApiKey, { user: null, name: ENV_ADMIN_KEY_NAME, secretHash: hashKey(configured) }));
        return undefined;
      }
      // serialise concurrent first starts (several processes over one database)
      await tx.execute('select pg_advisory_xact_lock(7041522)');
      const admin = await tx.count(ApiKey, { user: null, revokedAt: null });
      if (admin > 0) return undefined;
      const secret = newSecret('zk_admin');
      tx.persist(tx.create(ApiKey, { user: null, name: GENERATED_ADMIN_KEY_NAME, secretHash: hashKey(secret) }));
      return secret;
    });
  }

  async list(ctx: RequestContext, userId?: number): Promise<ApiKeyRow[]> {
    const where: { user?: number } = {};
    if (ctx.principal.kind === 'user') where.user = ctx.principal.userId;
    else if (userId !== undefined) where.user = userId;
    const keys = await ctx.em.find(ApiKey, where, { orderBy: { id: 'asc' } });
    return keys.map(toRow);
  }

  /** A key for one user (admin: any user; a user key: its own user). The secret is returned once, never stored. */
  async create(ctx: RequestContext, input: { userId: number; name: string }): Promise<CreatedApiKey> {
    if (!canSeeUser(ctx.principal, input.userId)) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    return inTransaction(ctx.em, async (em) => {
      const user = await em.findOne(User, { id: input.userId });
      if (!user) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
      const secret = newSecret('zk');
      const key = em.create(ApiKey, { user, name: input.name.trim(), secretHash: hashKey(secret) });
      await em.flush();
      return { apiKey: toRow(key), secret };
    });
  }

  /** a deleted user's keys stop working at once in this process (other processes: within CACHE_MS) */
  forgetUser(userId: number): void {
    for (const [hash, entry] of this.cache) {
      if (entry.principal?.kind === 'user' && entry.principal.userId === userId) this.cache.delete(hash);
    }
  }

  async revoke(ctx: RequestContext, id: number): Promise<ApiKeyRow> {
    return inTransaction(ctx.em, async (em) => {
      const key = await em.findOne(ApiKey, { id });
      const visible = key && (ctx.principal.kind === 'admin' || key.user?.id === ctx.principal.userId);
      if (!key || !visible) throw DomainError.notFound('API_KEY_NOT_FOUND', 'id');
      key.revokedAt ??= new Date();
      await em.flush();
      this.cache.delete(key.secretHash);
      return toRow(key);
    });
  }
}
