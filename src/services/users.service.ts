import type { ApiKeysService } from './api-keys.service';
import type { TsigKeysService } from './tsig-keys.service';
import type { Settings } from '../config/settings';
import { canSeeUser, requireAdmin, scopeUserId } from '../auth/principal';
import { Domain, Record, User } from '../entities';
import { DomainError } from '../errors/catalogue';
import { countUsers, listUsers, PageRequest, UserFilter, UserRow } from '../repositories/read-model';
import type { RequestContext } from './context';
import { inTransaction } from './db-errors';
import { journalRecord, journalWholeZone, removeFromCatalog } from './write-engine';

const toRow = (user: User): UserRow => ({ id: user.id, email: user.email, createdAt: user.createdAt });

/** Users: the accounts that own zones. Creating and deleting users needs the admin key. */
export class UsersService {
  constructor(
    private readonly settings: Settings,
    private readonly apiKeys: ApiKeysService,
    private readonly tsigKeys: TsigKeysService,
  ) {}

  list(ctx: RequestContext, filter: Omit<UserFilter, 'scopeUserId'>, page?: PageRequest): Promise<UserRow[]> {
    return listUsers(ctx.em, { ...filter, scopeUserId: scopeUserId(ctx.principal) }, page);
  }

  count(ctx: RequestContext, filter: Omit<UserFilter, 'scopeUserId'>): Promise<number> {
    return countUsers(ctx.em, { ...filter, scopeUserId: scopeUserId(ctx.principal) });
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
    return inTransaction(ctx.em, async (em) => {
      const user = em.create(User, { email: input.email.trim() });
      await em.flush();
      return toRow(user);
    });
  }

  async update(ctx: RequestContext, id: number, input: { email: string }): Promise<UserRow> {
    return inTransaction(ctx.em, async (em) => {
      const user = await em.findOne(User, { id });
      if (!user || !canSeeUser(ctx.principal, user.id)) throw DomainError.notFound('USER_NOT_FOUND', 'id');
      user.email = input.email.trim();
      await em.flush();
      return toRow(user);
    });
  }

  /** Removes the user with all of its zones and records (foreign keys cascade), and tells the secondaries. */
  async delete(ctx: RequestContext, id: number): Promise<void> {
    requireAdmin(ctx.principal);
    await inTransaction(ctx.em, async (em) => {
      const user = await em.findOne(User, { id });
      if (!user) throw DomainError.notFound('USER_NOT_FOUND', 'id');
      const domains = await em.find(Domain, { user: id }, { orderBy: { id: 'asc' } });
      if (domains.length) {
        const records = await em.find(Record, { domain: { $in: domains.map((d) => d.id) } }, { orderBy: { id: 'asc' } });
        for (const domain of domains) {
          journalWholeZone(em, 'zone-deleted', domain, records.filter((r) => r.domain.id === domain.id).map(journalRecord));
        }
        await removeFromCatalog(em, this.settings, domains.map((d) => ({ id: d.id, name: d.name })));
      }
      em.remove(user);
      await em.flush();
    });
    // after the commit: the user's keys (deleted with it, FK cascade) must not outlive it in the key cache
    this.apiKeys.forgetUser(id);
    this.tsigKeys.forgetUser(id);
  }
}
