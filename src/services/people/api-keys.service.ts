import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from '../../db/pool';
import { canSeeUser, Principal, requireAdmin, scopeUserId } from '../../auth/principal';
import {
  buildPolicy,
  exceedsCreator,
  forbidden,
  isRestricted,
  KeyPolicy,
  PolicyInput,
  requireFlag,
  Unusable,
  unusable,
  UNRESTRICTED,
} from '../../auth/policy';
import { checkLimitValues } from '../write-engine/quotas';
import {
  activeApiKeyByHash,
  apiKeyRate,
  ApiKeyRow,
  type ApiKeyScope,
  apiKeyScopes,
  setApiKeyRate,
  insertApiKey,
  insertFirstAdminKey,
  listApiKeys,
  lockActiveApiKey,
  updateApiKey,
  revokeApiKey,
  setConfiguredAdminKey,
  touchKey,
} from '../../repositories/accounts';
import { DomainError } from '../../errors/catalogue';
import type { RequestContext } from '../context';
import { inTransaction } from '../db-errors';
import { FailedAuthentications, KeyLimitRefusals, recordAuditEvent } from '../audit-log';
import { logger } from '../../logger';
import { markKeyFirstUsed } from '../../repositories/audit-events';

export type { ApiKeyRow } from '../../repositories/accounts';

/** a scope as the API names it (GraphQL's ApiKeyScope) */
const SCOPE_NAMES: Record<ApiKeyScope, string> = { propose: 'PROPOSE_CHANGES' };
export interface CreatedApiKey {
  apiKey: ApiKeyRow;
  secret: string;
}

/** what a new key's policy is made of: rules and limits, or a preset (and its zone) — see src/auth/policy.ts */
export interface KeyPolicyRequest {
  policy?: PolicyInput | null;
  preset?: string | null;
  zone?: string | null;
  /**
   * no policy given, the creator's own: a client that names none (the PowerDNS API's TSIG keys) gets a key that
   * can do what its creator can, no more (unrestricted only from an unrestricted creator)
   */
  asCreator?: boolean;
}

/**
 * The idle limit's clock: a key's `last_used_at` is written at most once a minute per key and process, so a
 * busy key costs one UPDATE a minute, not one per request (idleness is counted in days).
 */
export class UsageClock {
  private static readonly EVERY_MS = 60_000;
  private readonly written = new Map<number, number>();

  constructor(private readonly table: 'api_keys' | 'tsig_keys') {}

  /** the key was used now: written unless it was written in the last minute; a failed write is forgotten (the next use tries again) */
  note(db: Database, keyId: number): void {
    const now = Date.now();
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < UsageClock.EVERY_MS) return;
    if (this.written.size > 10_000) this.written.clear();
    this.written.set(keyId, now);
    touchKey(db, this.table, keyId).catch(() => this.written.delete(keyId));
  }
}

/**
 * The policy of a key a caller makes (`requested`), checked against the caller's own key: a restricted key
 * needs mayManageKeys, and never makes a key that could do more than it can (FORBIDDEN_BY_POLICY).
 */
/** a restricted key acts only on keys (revoking them) that can do no more than itself */
export function requireWithin(actor: Principal, target: KeyPolicy, what: string): void {
  const exceeds = exceedsCreator(target, actor.policy);
  if (exceeds)
    throw forbidden(`this key may not ${what} a key with more rights than its own (${exceeds.replace(/^the new key/, 'that key')})`, 'id');
}

/** does the request give a policy (a whole new one), or leave the key's as it is? */
export function givesPolicy(requested: KeyPolicyRequest): boolean {
  return [requested.policy, requested.preset, requested.zone].some((v) => v !== undefined && v !== null);
}

/**
 * What a change of a key changed, field by field (`{ expiresAt: { before, after } }`), for the audit log's
 * `*-key-changed` events: names, rules, flags and limits, never a secret.
 */
export function keyChanges(
  before: { name: string; policy: KeyPolicy },
  after: { name: string; policy: KeyPolicy },
): Record<string, { before: unknown; after: unknown }> {
  const plain = (key: { name: string; policy: KeyPolicy }): Record<string, unknown> => ({
    name: key.name,
    ...key.policy,
    expiresAt: key.policy.expiresAt?.toISOString() ?? null,
  });
  const [a, b] = [plain(before), plain(after)];
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const field of Object.keys(b)) {
    if (JSON.stringify(a[field]) !== JSON.stringify(b[field])) changes[field] = { before: a[field] ?? null, after: b[field] ?? null };
  }
  return changes;
}

/**
 * A key refused for its limits, recorded in the audit log (services/audit-log.ts `KeyLimitRefusals`); the
 * record failing does not change the answer, which is a refusal either way.
 */
export async function auditKeyRefusal(
  keyLimits: KeyLimitRefusals,
  db: Database,
  principal: Principal,
  refusal: Unusable,
  address: string | undefined,
): Promise<void> {
  await keyLimits
    .note(db, principal, refusal, address)
    .catch((error: unknown) => logger.warn({ err: error }, `audit: a refused key (${refusal.limit}) could not be recorded`));
}

export function newKeyPolicy(creator: Principal, requested: KeyPolicyRequest) {
  requireFlag(creator.policy, 'mayManageKeys');
  const given = requested.policy !== undefined && requested.policy !== null;
  if (requested.asCreator && !given && !requested.preset) return { ...(creator.policy ?? UNRESTRICTED), preset: null };
  const policy = buildPolicy(requested);
  const exceeds = exceedsCreator(policy, creator.policy);
  if (exceeds) throw forbidden(exceeds, 'policy');
  return policy;
}

const ENV_ADMIN_KEY_NAME = 'admin (API_KEY setting)';
const GENERATED_ADMIN_KEY_NAME = 'admin (generated on first start)';

/**
 * Where a key came from: created through the API for a user, or one of the start's admin keys (the API has no
 * other way to make an admin key): the API_KEY setting's, which each start finds by its name
 * (setConfiguredAdminKey), or the one generated at the first start and printed once.
 */
export type ApiKeyOrigin = 'CREATED' | 'API_KEY_SETTING' | 'GENERATED_AT_FIRST_START';
export function apiKeyOrigin(key: { userId: number | null; name: string }): ApiKeyOrigin {
  if (key.userId !== null) return 'CREATED';
  return key.name === ENV_ADMIN_KEY_NAME ? 'API_KEY_SETTING' : 'GENERATED_AT_FIRST_START';
}

/**
 * The key's SHA-256, as stored; also what the cache of verified keys is keyed by, so it runs on every request:
 * the one-shot `crypto.hash` is the same digest without a Hash object per call (createHash took ~20 µs of a
 * request's CPU under load, bench/FINDINGS.md, «Edges: the work around the write»).
 */
export function hashKey(secret: string): string {
  return hash('sha256', secret, 'hex');
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
  private readonly cache = new Map<string, { principal: Principal | null; lastUsedAt: Date; unused: boolean; until: number }>();
  private readonly usage = new UsageClock('api_keys');

  /**
   * The key presented, read through `db` when the cache has none; null for no valid key. A valid key that may
   * not be used now (expired, idle, or from outside its allowedNetworks: `address` is the client's) is refused
   * with FORBIDDEN_BY_POLICY saying which.
   */
  /** `onLimitsChanged`: told when the admin changes a key's rate (the rate limits read their values again) */
  constructor(
    private readonly audit: { failedAuthentications: FailedAuthentications; keyLimits: KeyLimitRefusals },
    private readonly onLimitsChanged?: () => void,
  ) {}

  /**
   * `address`, when this is a request's authentication (not a re-check of a subscription's key), is the
   * client's: a key presented and refused is counted as a failed authentication from there (audit log,
   * summarised per address and minute), and a key's first use is recorded once (`first_used_at` and an
   * `api-key-first-used` event), and a key refused for its limits is recorded too (`key-expired`, `key-idle`
   * once per key, `key-wrong-network` per key and minute).
   */
  async authenticate(db: Database, presented: string | undefined, address?: string): Promise<Principal | null> {
    if (!presented) return null;
    const hash = hashKey(presented);
    let entry = this.cache.get(hash);
    if (!entry || entry.until <= Date.now()) {
      const key = await activeApiKeyByHash(db, hash);
      let principal: Principal | null = null;
      if (key && timingSafeEqual(Buffer.from(key.secretHash, 'hex'), Buffer.from(hash, 'hex'))) {
        principal =
          key.userId !== null
            ? { kind: 'user', keyId: key.id, keyName: key.name, userId: key.userId, policy: key.policy }
            : { kind: 'admin', keyId: key.id, keyName: key.name, policy: key.policy };
      }
      if (this.cache.size > 10_000) this.cache.clear();
      entry = {
        principal,
        lastUsedAt: key?.lastUsedAt ?? key?.createdAt ?? new Date(),
        unused: key?.firstUsedAt === null,
        until: Date.now() + ApiKeysService.CACHE_MS,
      };
      this.cache.set(hash, entry);
    }
    const principal = entry.principal;
    if (!principal) {
      if (address !== undefined) this.audit.failedAuthentications.note(db, address);
      return null;
    }
    const refused = unusable(principal.policy, { address, lastUsedAt: entry.lastUsedAt });
    if (refused) {
      if (address !== undefined) await auditKeyRefusal(this.audit.keyLimits, db, principal, refused, address);
      throw forbidden(refused.message);
    }
    // a key refused for its limits was not used: its first use is the first request it is let through for
    if (entry.unused) {
      entry.unused = false;
      await this.noteFirstUse(db, principal, address);
    }
    this.usage.note(db, principal.keyId);
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

  /** a user key sees its own user's keys; the admin key sees every key, or one user's (a restricted key: with mayManageKeys) */
  async list(ctx: RequestContext, userId?: number): Promise<ApiKeyRow[]> {
    requireFlag(ctx.principal.policy, 'mayManageKeys');
    return listApiKeys(ctx.db, ctx.principal.kind === 'user' ? ctx.principal.userId : userId);
  }

  /**
   * A new key of a user, unrestricted or with a policy (rules, flags, limits, or a preset); the secret is
   * returned once and only its hash is stored. A restricted caller needs mayManageKeys and makes no key that
   * could do more than itself.
   */
  async create(
    ctx: RequestContext,
    input: { userId: number; name: string; scopes?: ApiKeyScope[] | null } & KeyPolicyRequest,
  ): Promise<CreatedApiKey> {
    if (!canSeeUser(ctx.principal, input.userId)) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    const policy = newKeyPolicy(ctx.principal, input);
    const scopes = [...new Set(input.scopes ?? [])];
    // a key gives no scope it has not itself ("a key can never get more than the key that made it")
    const p = ctx.principal;
    if (scopes.length && p.kind === 'user' && p.via === undefined) {
      const own = await apiKeyScopes(ctx.db, p.keyId);
      const missing = scopes.find((scope) => !own.includes(scope));
      if (missing) throw forbidden(`the new key may not get the scope ${SCOPE_NAMES[missing]}: this key does not have it`, 'scopes');
    }
    const secret = newSecret('zk');
    const key = await inTransaction(ctx.db, async (sql) => {
      const created = await insertApiKey(sql, {
        userId: input.userId,
        name: input.name.trim(),
        secretHash: hashKey(secret),
        policy,
        scopes,
      });
      if (created) {
        await recordAuditEvent(sql, {
          kind: 'api-key-created',
          actor: ctx.principal,
          subject: `api-key:${created.id}`,
          detail: { name: created.name, userId: created.userId, ...(scopes.length ? { scopes } : {}) },
        });
      }
      return created;
    });
    if (!key) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    return { apiKey: key, secret };
  }

  /** whether the caller is an API key with this scope (a session or a TSIG key has none) */
  async hasScope(ctx: RequestContext, scope: ApiKeyScope): Promise<boolean> {
    return ctx.principal.via === undefined && (await apiKeyScopes(ctx.db, ctx.principal.keyId)).includes(scope);
  }

  /** A key's own rate (admin key only): a value replaces the key's, null returns it to the default, absent leaves it. */
  async setRate(
    ctx: RequestContext,
    id: number,
    patch: { ratePerSecond?: number | null; rateBurst?: number | null },
  ): Promise<{ ratePerSecond: number | null; rateBurst: number | null }> {
    requireAdmin(ctx.principal);
    checkLimitValues(patch);
    const row = await inTransaction(ctx.db, async (sql) => {
      const before = await apiKeyRate(sql, id);
      const after = await setApiKeyRate(sql, id, patch);
      if (!before || !after) return undefined;
      const changes: Record<string, { before: number | null; after: number | null }> = {};
      for (const field of ['ratePerSecond', 'rateBurst'] as const) {
        if (before[field] !== after[field]) changes[field] = { before: before[field], after: after[field] };
      }
      if (Object.keys(changes).length)
        await recordAuditEvent(sql, { kind: 'api-key-changed', actor: ctx.principal, subject: `api-key:${id}`, detail: { changes } });
      return after;
    });
    if (!row) throw DomainError.notFound('API_KEY_NOT_FOUND', 'id');
    this.onLimitsChanged?.();
    return row;
  }

  /** a key's own rate values (null: the default); a user key sees its own user's keys only */
  async rate(ctx: RequestContext, key: ApiKeyRow): Promise<{ ratePerSecond: number | null; rateBurst: number | null }> {
    if (ctx.principal.kind === 'user' && key.userId !== ctx.principal.userId) throw DomainError.notFound('API_KEY_NOT_FOUND', 'id');
    return (await apiKeyRate(ctx.db, key.id)) ?? { ratePerSecond: null, rateBurst: null };
  }

  /**
   * Changes a key's name and/or policy (given whole, as at creation: rules, flags, limits, or a preset); one
   * `api-key-changed` event says what changed. A restricted caller needs mayManageKeys, may change only a key
   * that can do no more than itself, and gives it no more than itself. A revoked key is not changed.
   */
  async update(ctx: RequestContext, id: number, input: { name?: string | null } & KeyPolicyRequest): Promise<ApiKeyRow> {
    requireFlag(ctx.principal.policy, 'mayManageKeys');
    const name = input.name === undefined || input.name === null ? undefined : input.name.trim();
    if (name === '') throw DomainError.invalid('name', 'name must be 1 to 100 characters', 'INVALID_LENGTH');
    const policy = givesPolicy(input) ? newKeyPolicy(ctx.principal, input) : undefined;
    if (name === undefined && policy === undefined)
      throw DomainError.invalid('input', 'input: give the name or the policy (policy, preset) to change', 'NOTHING_TO_CHANGE');
    const changed = await inTransaction(ctx.db, async (sql) => {
      const before = await lockActiveApiKey(sql, id, scopeUserId(ctx.principal));
      if (!before) return undefined;
      if (isRestricted(ctx.principal.policy)) requireWithin(ctx.principal, before.policy, 'change');
      const after = await updateApiKey(sql, id, { name, policy });
      const changes = keyChanges(before, after);
      if (Object.keys(changes).length)
        await recordAuditEvent(sql, {
          kind: 'api-key-changed',
          actor: ctx.principal,
          subject: `api-key:${id}`,
          detail: { name: after.name, userId: after.userId, changes },
        });
      return { after, secretHash: before.secretHash };
    });
    if (!changed) throw DomainError.notFound('API_KEY_NOT_FOUND', 'id');
    this.cache.delete(changed.secretHash);
    this.audit.keyLimits.forget('api', id);
    return changed.after;
  }

  forgetUser(userId: number): void {
    for (const [hash, entry] of this.cache) {
      if (entry.principal?.kind === 'user' && entry.principal.userId === userId) this.cache.delete(hash);
    }
  }

  async revoke(ctx: RequestContext, id: number): Promise<ApiKeyRow> {
    requireFlag(ctx.principal.policy, 'mayManageKeys');
    if (isRestricted(ctx.principal.policy)) {
      const target = (await listApiKeys(ctx.db, scopeUserId(ctx.principal))).find((k) => k.id === id);
      if (target) requireWithin(ctx.principal, target.policy, 'revoke');
    }
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
