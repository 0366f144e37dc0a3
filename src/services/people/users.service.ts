import type { Settings } from '../../config/settings';
import type { ApiKeysService } from './api-keys.service';
import type { TsigKeysService } from './tsig-keys.service';
import { canSeeUser, requireAdmin, scopeUserId } from '../../auth/principal';
import { requireFlag } from '../../auth/policy';
import { DomainError } from '../../errors/catalogue';
import { countUsers, listUsers, PageRequest, UserFilter, UserRow } from '../../repositories/read-model';
import type { RequestContext } from '../context';
import {
  deleteUser,
  insertUser,
  userOfEmailMade,
  lockUser,
  setUserLimits,
  updateUserEmail,
  userLimits,
  UserLimitsPatch,
  UserLimitsRow,
} from '../../repositories/accounts';
import type { RateLimits } from '../rate-limits';
import { checkLimitValues } from '../write-engine/quotas';
import { zoneRowsOfUser } from '../../repositories/zone-rows';
import { inTransaction } from '../db-errors';
import type { DomainsService } from '../zones/domains.service';
import { recordAuditEvent } from '../audit-log';

/** how many times a user's deletion deletes zones created for the user meanwhile before it gives up (409) */
const DELETE_USER_ROUNDS = 3;

/** a user's limits as the admin set them (null: the default), with the values in force */
export interface UserLimits extends UserLimitsRow {
  effective: { ratePerSecond: number; rateBurst: number; maxZones: number; maxRecordsPerZone: number };
}

/** Users: the accounts that own zones. Creating and deleting users needs the admin key. */
export class UsersService {
  constructor(
    private readonly settings: Settings,
    private readonly domains: DomainsService,
    private readonly apiKeys: ApiKeysService,
    private readonly tsigKeys: TsigKeysService,
    private readonly rateLimits: RateLimits,
  ) {}

  /** The user's limits and quotas: the admin's values (null: the default) and what is in force. */
  async limits(ctx: RequestContext, id: number): Promise<UserLimits> {
    if (!canSeeUser(ctx.principal, id)) throw DomainError.notFound('USER_NOT_FOUND', 'id');
    const row = await userLimits(ctx.db, id);
    if (!row) throw DomainError.notFound('USER_NOT_FOUND', 'id');
    return this.present(row);
  }

  /**
   * Sets a user's limits and quotas (admin key only): a value given replaces the user's, null returns it to the
   * setting's default, a value not given is left. A quota lowered below what the user has refuses further
   * growth and removes nothing. This process uses the new rate at once, the others within 5 s.
   */
  async setLimits(ctx: RequestContext, id: number, patch: UserLimitsPatch): Promise<UserLimits> {
    requireAdmin(ctx.principal);
    checkLimitValues(patch);
    const row = await inTransaction(ctx.db, (sql) => setUserLimits(sql, id, patch));
    if (!row) throw DomainError.notFound('USER_NOT_FOUND', 'id');
    this.rateLimits.forget();
    return this.present(row);
  }

  private present(row: UserLimitsRow): UserLimits {
    const { settings } = this;
    return {
      ...row,
      effective: {
        ratePerSecond: row.ratePerSecond ?? settings.rateLimit.user.perSecond,
        rateBurst: row.rateBurst ?? settings.rateLimit.user.burst,
        maxZones: row.maxZones ?? settings.quotas.maxZones,
        maxRecordsPerZone: row.maxRecordsPerZone ?? settings.quotas.maxRecordsPerZone,
      },
    };
  }

  list(ctx: RequestContext, filter: Omit<UserFilter, 'scopeUserId'>, page?: PageRequest): Promise<UserRow[]> {
    return listUsers(ctx.db, { ...filter, scopeUserId: scopeUserId(ctx.principal) }, page);
  }

  count(ctx: RequestContext, filter: Omit<UserFilter, 'scopeUserId'>): Promise<number> {
    return countUsers(ctx.db, { ...filter, scopeUserId: scopeUserId(ctx.principal) });
  }

  /** One user by id and/or e-mail (both must match when both are given). */
  async get(ctx: RequestContext, by: { id?: number; email?: string }): Promise<UserRow> {
    if (by.id === undefined && by.email === undefined) throw DomainError.invalid('id', 'id or email is required');
    const [user] = await this.list(ctx, by, { first: 1 });
    if (!user) throw DomainError.notFound('USER_NOT_FOUND', by.id !== undefined ? 'id' : 'email');
    return user;
  }

  async create(ctx: RequestContext, input: { email: string }): Promise<UserRow> {
    requireAdmin(ctx.principal);
    return inTransaction(ctx.db, async (sql) => {
      const user = await insertUser(sql, input.email.trim());
      // the e-mail address stays out of the event: its line goes to the log, which holds no e-mail addresses
      await recordAuditEvent(sql, { kind: 'user-created', actor: ctx.principal, subject: `user:${user.id}` });
      return user;
    });
  }

  /**
   * The operator's user (OPERATOR_ACCOUNT), made on first need (admin key only): the owner of the zones the admin
   * key creates through the PowerDNS API without naming a user (docs/powerdns-api.md). Idempotent: every call,
   * however many at once, finds the one user.
   */
  async operator(ctx: RequestContext): Promise<UserRow> {
    requireAdmin(ctx.principal);
    return inTransaction(ctx.db, async (sql) => {
      const { user, created } = await userOfEmailMade(sql, this.settings.operatorAccount);
      if (created) await recordAuditEvent(sql, { kind: 'user-created', actor: ctx.principal, subject: `user:${user.id}` });
      return user;
    });
  }

  async update(ctx: RequestContext, id: number, input: { email: string }): Promise<UserRow> {
    if (!canSeeUser(ctx.principal, id)) throw DomainError.notFound('USER_NOT_FOUND', 'id');
    // the account is what keys are made for: a restricted key changes it only with mayManageKeys (docs/least-privilege.md)
    requireFlag(ctx.principal.policy, 'mayManageKeys');
    const user = await inTransaction(ctx.db, (sql) => updateUserEmail(sql, id, input.email.trim()));
    if (!user) throw DomainError.notFound('USER_NOT_FOUND', 'id');
    return user;
  }

  /**
   * Removes the user with all of its zones and records, and tells the secondaries. Each zone goes as a zone's
   * deletion does (`DomainsService.delete`, the write engine's `delete-zone`): in its zone's queue, journalled
   * with its records and taken out of the catalog in its own transaction, one zone at a time; then the user
   * row goes (its keys with it, foreign keys cascade). A failure part-way leaves the user with the zones not
   * yet deleted, each of them whole.
   *
   * A zone created for the user while its zones are being deleted would go with the user row (the cascade)
   * without a journal row: the user row is locked before it is deleted, which holds off any new zone of the
   * user (its insert takes the row's key-share lock), and if one came in before the lock, the zones are
   * deleted again, up to DELETE_USER_ROUNDS times.
   */
  async delete(ctx: RequestContext, id: number): Promise<void> {
    requireAdmin(ctx.principal);
    await this.get(ctx, { id });
    const zones: string[] = [];
    for (let round = 1; ; round++) {
      for (const zone of await zoneRowsOfUser(ctx.db, id)) {
        await this.domains.delete(ctx, { id: zone.id }, { withUser: true }).catch((error: unknown) => {
          // deleted meanwhile by someone else: gone as asked
          if (!(error instanceof DomainError && error.code === 'ZONE_NOT_FOUND')) throw error;
        });
        zones.push(zone.name);
      }
      const deleted = await inTransaction(ctx.db, async (sql) => {
        if (!(await lockUser(sql, id))) throw DomainError.notFound('USER_NOT_FOUND', 'id');
        if ((await zoneRowsOfUser(sql, id)).length) return false;
        await deleteUser(sql, id);
        await recordAuditEvent(sql, { kind: 'user-deleted', actor: ctx.principal, subject: `user:${id}`, detail: { zones } });
        return true;
      });
      if (deleted) break;
      if (round === DELETE_USER_ROUNDS) throw new DomainError('USER_HAS_NEW_ZONES');
    }
    // after the commit: the user's keys (deleted with it, FK cascade) must not outlive it in the key cache
    this.apiKeys.forgetUser(id);
    this.tsigKeys.forgetUser(id);
  }
}
