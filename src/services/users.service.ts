import type { ApiKeysService } from './api-keys.service';
import type { TsigKeysService } from './tsig-keys.service';
import type { Settings } from '../config/settings';
import { canSeeUser, requireAdmin, scopeUserId } from '../auth/principal';
import { DomainError } from '../errors/catalogue';
import { countUsers, listUsers, PageRequest, UserFilter, UserRow } from '../repositories/read-model';
import type { RequestContext } from './context';
import {
  deleteUser,
  insertUser,
  lockUser,
  setUserLimits,
  updateUserEmail,
  userLimits,
  UserLimitsPatch,
  UserLimitsRow,
} from '../repositories/accounts';
import type { RateLimits } from './rate-limits';
import { checkLimitValues } from './quotas';
import { zoneRecords, zoneRowsOfUser } from '../repositories/zone-writes';
import { inTransaction } from './db-errors';
import { journalRecord, journalWholeZone, removeFromCatalog } from './write-engine';

/** a user's limits as the admin set them (null: the default), with the values in force */
export interface UserLimits extends UserLimitsRow {
  effective: { ratePerSecond: number; rateBurst: number; maxZones: number; maxRecordsPerZone: number };
}

/** Users: the accounts that own zones. Creating and deleting users needs the admin key. */
export class UsersService {
  constructor(
    private readonly settings: Settings,
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
    return inTransaction(ctx.db, (sql) => insertUser(sql, input.email.trim()));
  }

  async update(ctx: RequestContext, id: number, input: { email: string }): Promise<UserRow> {
    if (!canSeeUser(ctx.principal, id)) throw DomainError.notFound('USER_NOT_FOUND', 'id');
    const user = await inTransaction(ctx.db, (sql) => updateUserEmail(sql, id, input.email.trim()));
    if (!user) throw DomainError.notFound('USER_NOT_FOUND', 'id');
    return user;
  }

  /** Removes the user with all of its zones and records (foreign keys cascade), and tells the secondaries. */
  async delete(ctx: RequestContext, id: number): Promise<void> {
    requireAdmin(ctx.principal);
    await inTransaction(ctx.db, async (sql) => {
      if (!(await lockUser(sql, id))) throw DomainError.notFound('USER_NOT_FOUND', 'id');
      const domains = await zoneRowsOfUser(sql, id);
      if (domains.length) {
        const records = await zoneRecords(
          sql,
          domains.map((d) => d.id),
        );
        for (const domain of domains) {
          await journalWholeZone(sql, 'zone-deleted', domain, records.filter((r) => r.domainId === domain.id).map(journalRecord));
        }
        await removeFromCatalog(
          sql,
          this.settings,
          domains.map((d) => ({ id: d.id, name: d.name })),
        );
      }
      await deleteUser(sql, id);
    });
    // after the commit: the user's keys (deleted with it, FK cascade) must not outlive it in the key cache
    this.apiKeys.forgetUser(id);
    this.tsigKeys.forgetUser(id);
  }
}
