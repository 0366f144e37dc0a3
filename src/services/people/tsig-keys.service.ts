import { randomBytes } from 'node:crypto';
import type { Database, Sql } from '../../db/pool';
import { canSeeUser, Principal, requireAdmin, scopeUserId } from '../../auth/principal';
import { Settings } from '../../config/settings';
import { TSIG_ALGORITHMS, TsigAlgorithm, TsigKey } from '../../dns/wire/tsig';
import { parseZoneName } from '../../dns/name';
import {
  activeTsigKeyByName,
  activeTsigKeySecret,
  insertTsigKey,
  listTsigKeys,
  lockActiveTsigKey,
  rekeyTsigKey,
  revokeTsigKey,
  TsigKeyRow,
  updateTsigKey,
} from '../../repositories/accounts';
import { isRestricted, requireFlag, unusable } from '../../auth/policy';
import { auditKeyRefusal, givesPolicy, KeyPolicyRequest, keyChanges, newKeyPolicy, requireWithin, UsageClock } from './api-keys.service';
import { DomainError } from '../../errors/catalogue';
import type { RequestContext } from '../context';
import { inTransaction } from '../db-errors';
import { KeyLimitRefusals, recordAuditEvent } from '../audit-log';
import { markKeyFirstUsed } from '../../repositories/audit-events';

export type { TsigKeyRow } from '../../repositories/accounts';
export interface CreatedTsigKey {
  tsigKey: TsigKeyRow;
  secret: string;
}

/** secret length = the hash's output length (RFC 2104 §3: keys shorter than L are discouraged) */
const SECRET_OCTETS: Record<TsigAlgorithm, number> = { 'hmac-sha256': 32, 'hmac-sha384': 48, 'hmac-sha512': 64 };

/**
 * The longest secret taken from a client (an existing key brought over: `pdnsutil import-tsig-key`, a move from
 * PowerDNS or BIND): eight times the longest hash's block (RFC 2104 §2 hashes a longer key down to one output, so
 * more octets add nothing), and far more than any tool makes
 */
export const MAX_IMPORTED_SECRET_OCTETS = 1024;

/** an existing secret given by a client: one octet at least (as PowerDNS and BIND take them), at most the bound */
function importedSecret(secret: Buffer, field: string): Buffer {
  if (secret.length === 0) throw DomainError.invalid(field, `${field}: an empty secret`, 'INVALID_TSIG_SECRET');
  if (secret.length > MAX_IMPORTED_SECRET_OCTETS)
    throw DomainError.invalid(field, `${field}: at most ${MAX_IMPORTED_SECRET_OCTETS} octets once decoded`, 'INVALID_TSIG_SECRET');
  return secret;
}

/** an algorithm's name as TSIG writes it (`HMAC-SHA256.` is `hmac-sha256`), or INVALID_INPUT naming `algorithm` */
function algorithmOf(given: unknown): TsigAlgorithm {
  const algorithm = String(given ?? 'hmac-sha256')
    .toLowerCase()
    .replace(/\.$/, '');
  if (!(TSIG_ALGORITHMS as readonly string[]).includes(algorithm))
    throw DomainError.invalid(
      'algorithm',
      `algorithm: ${JSON.stringify(given)} is not one of ${TSIG_ALGORITHMS.join(', ')}`,
      'UNKNOWN_TSIG_ALGORITHM',
    );
  return algorithm as TsigAlgorithm;
}

/**
 * TSIG keys for DNS UPDATE (RFC 2136, RFC 8945), one set per user. A user's key updates only that user's
 * zones, an admin key (no user) any zone. The secret is made here, returned once as base64 (the form
 * `nsupdate -y`, certbot and external-dns take) and never logged. A revoked key stops working at once in the
 * process that revoked it, and within CACHE_MS in the others.
 */
export class TsigKeysService {
  /** as API keys (api-keys.service.ts): revocation clears this process's cache; other processes see it within CACHE_MS */
  private static readonly CACHE_MS = 5_000;
  private readonly cache = new Map<
    string,
    { found: { key: TsigKey; principal: Principal; lastUsedAt: Date } | undefined; until: number }
  >();
  private readonly usage = new UsageClock('tsig_keys');

  /** ids of keys whose first use is recorded (noteUsed) */
  private readonly used = new Set<number>();

  constructor(
    private readonly settings: Settings,
    private readonly keyLimits: KeyLimitRefusals,
  ) {}

  async list(ctx: RequestContext, userId?: number): Promise<TsigKeyRow[]> {
    requireFlag(ctx.principal.policy, 'mayManageKeys');
    return listTsigKeys(ctx.db, ctx.principal.kind === 'user' ? ctx.principal.userId : userId);
  }

  /**
   * `userId` null or absent: an admin key (admin API key only). With a policy or preset the key is restricted
   * (src/auth/policy.ts), as an API key; a restricted caller never makes a key that could do more than itself.
   * `secret`: an existing key's secret, taken as given (the secondaries that hold it keep working); without it
   * the service makes one.
   */
  async create(
    ctx: RequestContext,
    input: {
      userId?: number | null;
      name: string;
      algorithm?: string | null;
      secret?: { value: Buffer; field: string };
    } & KeyPolicyRequest,
  ): Promise<CreatedTsigKey> {
    const userId = input.userId ?? null;
    if (userId === null) requireAdmin(ctx.principal);
    else if (!canSeeUser(ctx.principal, userId)) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    const policy = newKeyPolicy(ctx.principal, input);
    const name = parseZoneName(input.name, 'name');
    if (!name.ok)
      throw DomainError.invalid('name', name.problems[0].message.replace(/the zone name/g, 'the key name'), name.problems[0].code);
    const algorithm = algorithmOf(input.algorithm);
    const secret = input.secret ? importedSecret(input.secret.value, input.secret.field) : randomBytes(SECRET_OCTETS[algorithm]);
    // the transfer key (TSIG_KEY) is found by name first: a user's key under its name would never be used
    if (name.name === this.settings.tsigKey?.name) throw duplicateName();
    const key = await inTransaction(ctx.db, async (sql) => {
      const created = await insertTsigKey(sql, { userId, name: name.name, algorithm, secret, policy });
      if (created) {
        await recordAuditEvent(sql, {
          kind: 'tsig-key-created',
          actor: ctx.principal,
          subject: `tsig-key:${created.id}`,
          detail: { name: created.name, algorithm: created.algorithm, userId: created.userId, ...(input.secret ? { imported: true } : {}) },
        });
      }
      return created;
    });
    if (!key) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    // a message signed with this name before the key existed left "no such key" in the cache
    this.cache.delete(name.name);
    return { tsigKey: key, secret: secret.toString('base64') };
  }

  async revoke(ctx: RequestContext, id: number): Promise<TsigKeyRow> {
    requireFlag(ctx.principal.policy, 'mayManageKeys');
    if (isRestricted(ctx.principal.policy)) {
      const target = (await listTsigKeys(ctx.db, scopeUserId(ctx.principal))).find((k) => k.id === id);
      if (target) requireWithin(ctx.principal, target.policy, 'revoke');
    }
    const key = await inTransaction(ctx.db, async (sql) => {
      const revoked = await revokeTsigKey(sql, id, ctx.principal.kind === 'user' ? ctx.principal.userId : undefined);
      if (revoked?.newlyRevoked) {
        await recordAuditEvent(sql, {
          kind: 'tsig-key-revoked',
          actor: ctx.principal,
          subject: `tsig-key:${revoked.id}`,
          detail: { name: revoked.name, userId: revoked.userId },
        });
      }
      return revoked;
    });
    if (!key) throw DomainError.notFound('TSIG_KEY_NOT_FOUND', 'id');
    this.cache.delete(key.name);
    const { newlyRevoked: _newly, ...row } = key;
    return row;
  }

  /**
   * Changes a key's policy (given whole, as at creation: rules, flags, limits, or a preset); one
   * `tsig-key-changed` event says what changed. The name stays: it is how clients name the key on the wire
   * (RFC 8945 §4.2), so a new name is a new key. As for API keys, a restricted caller changes only a key that
   * can do no more than itself, and gives it no more than itself.
   */
  async update(ctx: RequestContext, id: number, input: KeyPolicyRequest): Promise<TsigKeyRow> {
    requireFlag(ctx.principal.policy, 'mayManageKeys');
    if (!givesPolicy(input)) throw DomainError.invalid('input', 'input: give the policy (policy, preset) to change', 'NOTHING_TO_CHANGE');
    const policy = newKeyPolicy(ctx.principal, input);
    const key = await this.changeKey(ctx, id, async (sql, before) => {
      const after = await updateTsigKey(sql, id, { policy });
      return { after, changes: keyChanges(before, after) };
    });
    this.keyLimits.forget('tsig', id);
    return key;
  }

  /**
   * One change of an active key, in a transaction: the key locked (TSIG_KEY_NOT_FOUND when it is not the
   * caller's to change), held to a restricted caller's reach, written by `write`, what changed in one
   * `tsig-key-changed` audit event; then the DNS edge's cache of the key forgotten in this process (the others
   * follow within CACHE_MS).
   */
  private async changeKey(
    ctx: RequestContext,
    id: number,
    write: (sql: Sql, before: TsigKeyRow) => Promise<{ after: TsigKeyRow; changes: Record<string, unknown> }>,
  ): Promise<TsigKeyRow> {
    const key = await inTransaction(ctx.db, async (sql) => {
      const before = await lockActiveTsigKey(sql, id, scopeUserId(ctx.principal));
      if (!before) return undefined;
      if (isRestricted(ctx.principal.policy)) requireWithin(ctx.principal, before.policy, 'change');
      const { after, changes } = await write(sql, before);
      if (Object.keys(changes).length)
        await recordAuditEvent(sql, {
          kind: 'tsig-key-changed',
          actor: ctx.principal,
          subject: `tsig-key:${id}`,
          detail: { name: after.name, userId: after.userId, changes },
        });
      return after;
    });
    if (!key) throw DomainError.notFound('TSIG_KEY_NOT_FOUND', 'id');
    this.cache.delete(key.name);
    return key;
  }

  /**
   * An active key's secret, to whoever may manage the key (the PowerDNS API's `GET …/tsigkeys/{id}`, as PowerDNS
   * answers it): `mayManageKeys`, the key in the caller's reach (its user's keys; the admin key: every key), and a
   * restricted caller only a key that can do no more than itself. Each read is in the audit log
   * (`tsig-key-secret-read`): the secret signs transfers and updates of the key's zones.
   */
  async secret(ctx: RequestContext, id: number): Promise<{ tsigKey: TsigKeyRow; secret: string }> {
    requireFlag(ctx.principal.policy, 'mayManageKeys');
    return inTransaction(ctx.db, async (sql) => {
      const found = await activeTsigKeySecret(sql, id, scopeUserId(ctx.principal));
      if (!found) throw DomainError.notFound('TSIG_KEY_NOT_FOUND', 'id');
      if (isRestricted(ctx.principal.policy)) requireWithin(ctx.principal, found.policy, 'read the secret of');
      await recordAuditEvent(sql, {
        kind: 'tsig-key-secret-read',
        actor: ctx.principal,
        subject: `tsig-key:${id}`,
        detail: { name: found.name, userId: found.userId },
      });
      const { secret, ...tsigKey } = found;
      return { tsigKey, secret: secret.toString('base64') };
    });
  }

  /**
   * A key's algorithm and secret changed (the PowerDNS API's `PUT …/tsigkeys/{id}`: a secret rotated on the
   * secondaries first, then here); each kept when not given. Who may: as `update`. The name stays (see
   * `update`). One `tsig-key-changed` event says what changed, the secret as `changed`, never its value.
   */
  async rekey(
    ctx: RequestContext,
    id: number,
    input: { algorithm?: string | null; secret?: { value: Buffer; field: string } },
  ): Promise<{ tsigKey: TsigKeyRow; secret: string }> {
    requireFlag(ctx.principal.policy, 'mayManageKeys');
    const algorithm = input.algorithm === undefined || input.algorithm === null ? undefined : algorithmOf(input.algorithm);
    const secret = input.secret ? importedSecret(input.secret.value, input.secret.field) : undefined;
    await this.changeKey(ctx, id, async (sql, before) => {
      const after = await rekeyTsigKey(sql, id, { algorithm, secret });
      const changes: Record<string, { before: unknown; after: unknown }> = {};
      if (after.algorithm !== before.algorithm) changes.algorithm = { before: before.algorithm, after: after.algorithm };
      if (secret) changes.secret = { before: 'kept', after: 'changed' };
      return { after, changes };
    });
    return this.secret(ctx, id);
  }

  /**
   * For the DNS edge, after a request signed with the key verified: its first use is recorded once
   * (`first_used_at`, a `tsig-key-first-used` event). Known-used keys are remembered in this process, so
   * that only a key's first requests here reach the database.
   */
  async noteUsed(db: Database, principal: Principal, from: string): Promise<void> {
    if (principal.via !== 'tsig' || this.used.has(principal.keyId)) return;
    await db.transaction(async (sql) => {
      if (await markKeyFirstUsed(sql, 'tsig', principal.keyId)) {
        await recordAuditEvent(sql, {
          kind: 'tsig-key-first-used',
          actor: principal,
          subject: `tsig-key:${principal.keyId}`,
          sourceAddress: from,
        });
      }
    });
    if (this.used.size > 100_000) this.used.clear();
    this.used.add(principal.keyId);
  }

  /**
   * For the DNS edge: the active key of this wire name (canonical, no final dot), with the principal it acts
   * as; undefined for a name no active key has. Cached for CACHE_MS (an UPDATE's look-up cost as much as the
   * update itself).
   */
  async findActive(db: Database, name: string): Promise<{ key: TsigKey; principal: Principal; lastUsedAt: Date } | undefined> {
    const cached = this.cache.get(name);
    if (cached && cached.until > Date.now()) return cached.found;
    const row = await activeTsigKeyByName(db, name);
    let found: { key: TsigKey; principal: Principal; lastUsedAt: Date } | undefined;
    if (row) {
      const key: TsigKey = { name: row.name, algorithm: row.algorithm, secret: row.secret };
      const principal: Principal =
        row.userId !== null
          ? { kind: 'user', keyId: row.id, keyName: row.name, userId: row.userId, via: 'tsig', policy: row.policy }
          : { kind: 'admin', keyId: row.id, keyName: row.name, via: 'tsig', policy: row.policy };
      found = { key, principal, lastUsedAt: row.lastUsedAt ?? row.createdAt };
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(name, { found, until: Date.now() + TsigKeysService.CACHE_MS });
    return found;
  }

  /**
   * For the DNS edge, once a message's TSIG verified: why the key may not be used now from `address` (expired,
   * idle, outside its allowedNetworks), or undefined, and then the use is noted (the idle limit's clock). A
   * refusal is recorded in the audit log (`key-expired`, `key-idle` once per key; `key-wrong-network` per key
   * and minute), as for API keys.
   */
  async admitUse(db: Database, found: { principal: Principal; lastUsedAt: Date }, address: string): Promise<string | undefined> {
    const refused = unusable(found.principal.policy, { address, lastUsedAt: found.lastUsedAt });
    if (!refused) {
      this.usage.note(db, found.principal.keyId);
      return undefined;
    }
    await auditKeyRefusal(this.keyLimits, db, found.principal, refused, address);
    return refused.message;
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
