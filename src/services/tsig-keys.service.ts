import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { canSeeUser, Principal, requireAdmin } from '../auth/principal';
import { Settings, TSIG_ALGORITHMS, TsigAlgorithm, TsigKey } from '../config/settings';
import { parseZoneName } from '../dns/name';
import { TsigKeyEntity, User } from '../entities';
import { DomainError } from '../errors/catalogue';
import type { RequestContext } from './context';
import { inTransaction } from './db-errors';

export interface TsigKeyRow { id: number; userId: number | null; name: string; algorithm: TsigAlgorithm; createdAt: Date; revokedAt: Date | null }
export interface CreatedTsigKey { tsigKey: TsigKeyRow; secret: string }

/** secret length = the hash's output length (RFC 2104 §3: keys shorter than L are discouraged) */
const SECRET_OCTETS: Record<TsigAlgorithm, number> = { 'hmac-sha256': 32, 'hmac-sha384': 48, 'hmac-sha512': 64 };

const toRow = (key: TsigKeyEntity): TsigKeyRow => ({
  id: key.id,
  userId: key.user?.id ?? null,
  name: key.name,
  algorithm: key.algorithm,
  createdAt: key.createdAt,
  revokedAt: key.revokedAt ?? null,
});

/**
 * TSIG keys for DNS UPDATE (RFC 2136, RFC 8945), one set per user. A user's key updates only that user's
 * zones, an admin key (no user) any zone. The secret is made here, returned once as base64 (the form
 * `nsupdate -y`, certbot and external-dns take) and never logged. A revoked key stops working at once in the
 * process that revoked it, and within CACHE_MS in the others.
 */
export class TsigKeysService {
  /** as API keys (api-keys.service.ts): revocation clears this process's cache; other processes see it within CACHE_MS */
  private static readonly CACHE_MS = 5_000;
  private readonly cache = new Map<string, { found: { key: TsigKey; principal: Principal } | undefined; until: number }>();

  constructor(private readonly settings: Settings) {}

  async list(ctx: RequestContext, userId?: number): Promise<TsigKeyRow[]> {
    const where: { user?: number } = {};
    if (ctx.principal.kind === 'user') where.user = ctx.principal.userId;
    else if (userId !== undefined) where.user = userId;
    const keys = await ctx.em.find(TsigKeyEntity, where, { orderBy: { id: 'asc' } });
    return keys.map(toRow);
  }

  /** `userId` null or absent: an admin key (admin API key only). */
  async create(ctx: RequestContext, input: { userId?: number | null; name: string; algorithm?: string | null }): Promise<CreatedTsigKey> {
    const userId = input.userId ?? null;
    if (userId === null) requireAdmin(ctx.principal);
    else if (!canSeeUser(ctx.principal, userId)) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    const name = parseZoneName(input.name, 'name');
    if (!name.ok) throw DomainError.invalid('name', name.problems[0].message.replace(/the zone name/g, 'the key name'), name.problems[0].code);
    const algorithm = String(input.algorithm ?? 'hmac-sha256').toLowerCase().replace(/\.$/, '');
    if (!(TSIG_ALGORITHMS as readonly string[]).includes(algorithm)) {
      throw DomainError.invalid('algorithm', `algorithm: ${JSON.stringify(input.algorithm)} is not one of ${TSIG_ALGORITHMS.join(', ')}`, 'UNKNOWN_TSIG_ALGORITHM');
    }
    // the transfer key (TSIG_KEY) is found by name first: a user's key under its name would never be used
    if (name.name === this.settings.tsigKey?.name) throw duplicateName();
    const secret = randomBytes(SECRET_OCTETS[algorithm as TsigAlgorithm]);
    return inTransaction(ctx.em, async (em) => {
      const user = userId === null ? null : await em.findOne(User, { id: userId });
      if (userId !== null && !user) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
      const key = em.create(TsigKeyEntity, { user, name: name.name, algorithm: algorithm as TsigAlgorithm, secret });
      await em.flush();
      // a message signed with this name before the key existed left "no such key" in the cache
      this.cache.delete(name.name);
      return { tsigKey: toRow(key), secret: secret.toString('base64') };
    });
  }

  async revoke(ctx: RequestContext, id: number): Promise<TsigKeyRow> {
    return inTransaction(ctx.em, async (em) => {
      const key = await em.findOne(TsigKeyEntity, { id });
      const visible = key && (ctx.principal.kind === 'admin' || key.user?.id === ctx.principal.userId);
      if (!key || !visible) throw DomainError.notFound('TSIG_KEY_NOT_FOUND', 'id');
      key.revokedAt ??= new Date();
      await em.flush();
      this.cache.delete(key.name);
      return toRow(key);
    });
  }

  /**
   * For the DNS edge: the active key of this wire name (canonical, no final dot), with the principal it acts
   * as; undefined for a name no active key has. Cached for CACHE_MS (an UPDATE's look-up cost as much as the
   * update itself).
   */
  async findActive(em: EntityManager, name: string): Promise<{ key: TsigKey; principal: Principal } | undefined> {
    const cached = this.cache.get(name);
    if (cached && cached.until > Date.now()) return cached.found;
    const row = await em.fork().findOne(TsigKeyEntity, { name, revokedAt: null }, { populate: ['secret'] });
    let found: { key: TsigKey; principal: Principal } | undefined;
    if (row) {
      const key: TsigKey = { name: row.name, algorithm: row.algorithm, secret: Buffer.from(row.secret) };
      const principal: Principal = row.user
        ? { kind: 'user', keyId: row.id, keyName: row.name, userId: row.user.id, via: 'tsig' }
        : { kind: 'admin', keyId: row.id, keyName: row.name, via: 'tsig' };
      found = { key, principal };
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(name, { found, until: Date.now() + TsigKeysService.CACHE_MS });
    return found;
  }

  /** a deleted user's TSIG keys stop working at once in this process (other processes: within CACHE_MS) */
  forgetUser(userId: number): void {
    for (const [name, entry] of this.cache) {
      if (entry.found?.principal.kind === 'user' && entry.found.principal.userId === userId) this.cache.delete(name);
    }
  }
}

function duplicateName(): DomainError {
  const { message } = new DomainError('DUPLICATE_TSIG_KEY');
  return new DomainError('DUPLICATE_TSIG_KEY', message, [{ field: 'name', code: 'DUPLICATE_TSIG_KEY', message }]);
}
