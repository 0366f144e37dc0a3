import type { ApiKeysService } from './api-keys.service';
import type { TsigKeysService } from './tsig-keys.service';
import type { Settings } from '../config/settings';
import { canSeeUser, requireAdmin, scopeUserId } from '../auth/principal';
import { DomainError } from '../errors/catalogue';
import { countUsers, listUsers, PageRequest, UserFilter, UserRow } from '../repositories/read-model';
import type { RequestContext } from './context';
import { deleteUser, insertUser, lockUser, updateUserEmail } from '../repositories/accounts';
import { zoneRecords, zoneRowsOfUser } from '../repositories/zone-writes';
import { inTransaction } from './db-errors';
import { recordAuditEvent } from './audit-log';
import { journalRecord, journalWholeZone, removeFromCatalog } from './write-engine';

/** Users: the accounts that own zones. Creating and deleting users needs the admin key. */
export class UsersService {
  constructor(
    private readonly settings: Settings,
    private readonly apiKeys: ApiKeysService,
    private readonly tsigKeys: TsigKeysService,
  ) {}

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
      await recordAuditEvent(sql, {
        kind: 'user-deleted',
        actor: ctx.principal,
        subject: `user:${id}`,
        detail: { zones: domains.map((d) => d.name) },
      });
    });
    // after the commit: the user's keys (deleted with it, FK cascade) must not outlive it in the key cache
    this.apiKeys.forgetUser(id);
    this.tsigKeys.forgetUser(id);
  }
}
