import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/pool';
import { canSeeUser, Principal } from '../auth/principal';
import {
  activeApiKeyByHash,
  ApiKeyRow,
  insertApiKey,
  insertFirstAdminKey,
  listApiKeys,
  revokeApiKey,
  setConfiguredAdminKey,
} from '../repositories/accounts';
import { DomainError } from '../errors/catalogue';
import type { RequestContext } from './context';
import { inTransaction } from './db-errors';
import { FailedAuthentications, recordAuditEvent } from './audit-log';
import { markKeyFirstUsed } from '../repositories/audit-events';

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

  constructor(private readonly failures: FailedAuthentications) {}

  /**
   * The key presented, read through `db` when the cache has none. `from`: the client's address, when this
   * is a request's authentication (not a re-check of a subscription's key): a key presented and refused is
   * counted as a failed authentication from there (audit log, summarised per address and minute). A key's
   * first use is recorded once (`first_used_at` and an `api-key-first-used` event).
   */
  async authenticate(db: Database, presented: string | undefined, from?: string): Promise<Principal | null> {
    if (!presented) return null;
    const hash = hashKey(presented);
    const cached = this.cache.get(hash);
    if (cached && cached.until > Date.now()) {
      if (!cached.principal && from !== undefined) this.failures.note(db, from);
      return cached.principal;
    }
    const key = await activeApiKeyByHash(db, hash);
    let principal: Principal | null = null;
    if (key && timingSafeEqual(Buffer.from(key.secretHash, 'hex'), Buffer.from(hash, 'hex'))) {
      principal =
        key.userId !== null
          ? { kind: 'user', keyId: key.id, keyName: key.name, userId: key.userId }
          : { kind: 'admin', keyId: key.id, keyName: key.name };
      if (key.firstUsedAt === null) await this.noteFirstUse(db, principal, from);
    } else if (from !== undefined) {
      this.failures.note(db, from);
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, { principal, until: Date.now() + ApiKeysService.CACHE_MS });
    return principal;
  }

  /** once per key, whichever process sees it first (markKeyFirstUsed lets one through) */
  private async noteFirstUse(db: Database, principal: Principal, from: string | undefined): Promise<void> {
    await db.transaction(async (sql) => {
      if (await markKeyFirstUsed(sql, 'api', principal.keyId)) {
        await recordAuditEvent(sql, {
          kind: 'api-key-first-used',
          actor: principal,
          subject: `api-key:${principal.keyId}`,
          sourceAddress: from,
        });
      }
    });
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
    const key = await inTransaction(ctx.db, async (sql) => {
      const created = await insertApiKey(sql, { userId: input.userId, name: input.name.trim(), secretHash: hashKey(secret) });
      if (created) {
        await recordAuditEvent(sql, {
          kind: 'api-key-created',
          actor: ctx.principal,
          subject: `api-key:${created.id}`,
          detail: { name: created.name, userId: created.userId },
        });
      }
      return created;
    });
    if (!key) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    return { apiKey: key, secret };
  }

  forgetUser(userId: number): void {
    for (const [hash, entry] of this.cache) {
      if (entry.principal?.kind === 'user' && entry.principal.userId === userId) this.cache.delete(hash);
    }
  }

  async revoke(ctx: RequestContext, id: number): Promise<ApiKeyRow> {
    const key = await inTransaction(ctx.db, async (sql) => {
      const revoked = await revokeApiKey(sql, id, ctx.principal.kind === 'user' ? ctx.principal.userId : undefined);
      if (revoked?.newlyRevoked) {
        await recordAuditEvent(sql, {
          kind: 'api-key-revoked',
          actor: ctx.principal,
          subject: `api-key:${revoked.id}`,
          detail: { name: revoked.name, userId: revoked.userId },
        });
      }
      return revoked;
    });
    if (!key) throw DomainError.notFound('API_KEY_NOT_FOUND', 'id');
    this.cache.delete(key.secretHash);
    const { secretHash: _hash, newlyRevoked: _newly, ...row } = key;
    return row;
  }
}
