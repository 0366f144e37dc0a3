import type { Settings } from '../config/settings';
import { canSeeUser, scopeUserId } from '../auth/principal';
import { readRulesOf, requireFlag, seesZone } from '../auth/policy';
import { parseOwner, parseZoneName, parseZoneNamePrefix } from '../dns/name';
import { initialSerial, nextSerial, serialGreaterThan } from '../dns/serial';
import { DomainError, errorFromProblems } from '../errors/catalogue';
import { findZoneRow, insertZone, zoneRecords } from '../repositories/zone-writes';
import { lockZoneNames, zoneOfAnotherUserNests } from '../repositories/zone-names';
import { isPublicSuffix, selfAndAncestors } from '../dns/public-suffix';
import { countDomains, DomainFilter, DomainRow, listDomains, PageRequest } from '../repositories/read-model';
import type { RequestContext } from './context';
import type { Sql } from '../db/pool';
import { recordAuditEvent } from './audit-log';
import { journalRecord, journalWholeZone, writeZone } from './write-engine';
import { quotaExceeded } from './quotas';

const DEFAULT_RECORD_TTL = 3600;

/** A zone name from a client, normalised (lower-case, no trailing dot, punycode) or refused with the reasons. */
export function normaliseZoneName(input: string, field = 'zone'): string {
  const parsed = parseZoneName(input, field);
  if (!parsed.ok) throw errorFromProblems(parsed.problems);
  return parsed.name;
}

/** a zone-name prefix for the search (parseZoneNamePrefix), or the request's 400 naming the field */
export function normaliseZoneNamePrefix(input: string, field = 'nameStartsWith'): string {
  const parsed = parseZoneNamePrefix(input, field);
  if (!parsed.ok) throw errorFromProblems(parsed.problems);
  return parsed.name;
}

function zoneNameRefused(code: 'ZONE_IS_PUBLIC_SUFFIX' | 'ZONE_OWNED_BY_ANOTHER_USER', message: string): DomainError {
  return new DomainError(code, undefined, [{ field: 'zone', code, message }]);
}

/** the owner of the default CNAME to the apex (RESTKnot's default records; DEFAULT_WWW_CNAME turns it off) */
const DEFAULT_WWW_OWNER = 'www';

/** Zones (domains): creation with the default records, lookups, and deletion with everything in them. */
export class DomainsService {
  constructor(private readonly settings: Settings) {}

  list(ctx: RequestContext, filter: Omit<DomainFilter, 'scopeUserId'>, page?: PageRequest): Promise<DomainRow[]> {
    return listDomains(ctx.db, this.scoped(ctx, filter), page);
  }

  count(ctx: RequestContext, filter: Omit<DomainFilter, 'scopeUserId'>): Promise<number> {
    return countDomains(ctx.db, this.scoped(ctx, filter));
  }

  /** the filter with its names normalised and the key's scope (its user's zones, its rules' zones) added */
  private scoped(ctx: RequestContext, filter: Omit<DomainFilter, 'scopeUserId'>): DomainFilter {
    const name = filter.name === undefined ? undefined : normaliseZoneName(filter.name);
    const nameStartsWith = filter.nameStartsWith === undefined ? undefined : normaliseZoneNamePrefix(filter.nameStartsWith);
    return { ...filter, name, nameStartsWith, scopeUserId: scopeUserId(ctx.principal), readRules: readRulesOf(ctx.principal.policy) };
  }

  async get(ctx: RequestContext, by: { id?: number; name?: string }): Promise<DomainRow> {
    if (by.id === undefined && by.name === undefined) throw DomainError.invalid('zone', 'zone id or name is required');
    const [domain] = await this.list(ctx, by, { first: 1 });
    if (!domain) throw DomainError.notFound('ZONE_NOT_FOUND', by.id !== undefined ? 'id' : 'zone');
    return domain;
  }

  /**
   * Creates a zone with its default records: SOA at the apex, one NS per DEFAULT_NS name, and (unless
   * DEFAULT_WWW_CNAME=off) `www` CNAME to the apex, all with TTL 3600, in one statement; then adds it to the
   * catalog.
   */
  async create(ctx: RequestContext, input: { userId: number; zone: string }): Promise<DomainRow> {
    const name = normaliseZoneName(input.zone);
    // the default records must fit too: `www.<zone>` is four octets longer than the zone's name (RFC 1035
    // §2.3.4: 255 octets), and a zone whose own records fail validation could never be exported
    const www = this.settings.defaultWwwCname ? parseOwner(DEFAULT_WWW_OWNER, name, 'zone') : undefined;
    if (www && !www.ok) {
      throw errorFromProblems(
        www.problems.map((p) => ({
          ...p,
          message: `zone: the name leaves no room for the default ${DEFAULT_WWW_OWNER} record: ${p.message.replace(/^zone: /, '')}`,
        })),
      );
    }
    if (!canSeeUser(ctx.principal, input.userId)) throw DomainError.notFound('USER_NOT_FOUND', 'user_id');
    requireFlag(ctx.principal.policy, 'mayCreateZones');
    // the name rules bind users; the admin key may create any zone for anyone (a registry's suffix, a zone
    // split across users), and does so without the locks and the lookup
    const checkNames = ctx.principal.kind === 'user';
    if (checkNames && isPublicSuffix(name))
      throw zoneNameRefused('ZONE_IS_PUBLIC_SUFFIX', `zone: ${name} is a public suffix (publicsuffix.org)`);
    const { defaultSoaMname, defaultSoaRname, defaultNs } = this.settings;
    // the zone commits on its own (one statement), then joins the catalog (the write engine admits it); the
    // answer waits for both
    const recordsAt = (serial: number) =>
      [
        // RFC 1035 §3.3.13: MNAME RNAME SERIAL REFRESH RETRY EXPIRE MINIMUM
        { owner: '@', type: 'SOA', rdata: `${defaultSoaMname} ${defaultSoaRname} ${serial} 3600 1800 604800 86400` },
        ...defaultNs.map((ns) => ({ owner: '@', type: 'NS', rdata: ns })),
        ...(www ? [{ owner: DEFAULT_WWW_OWNER, type: 'CNAME', rdata: `${name}.` }] : []),
      ].map((r) => journalRecord({ ...r, ttl: DEFAULT_RECORD_TTL }));
    return writeZone(ctx.db, this.settings, ctx.principal, {
      kind: 'create-zone',
      transaction: checkNames,
      insert: async (sql) => {
        if (checkNames) await this.refuseNestingWithOthers(sql, name, input.userId);
        const initial = initialSerial(this.settings.serialPolicy, new Date());
        // the user's zone quota binds the user's keys; the admin creates zones for anyone (README "Quotas")
        const defaultMaxZones = ctx.principal.kind === 'user' ? this.settings.quotas.maxZones : undefined;
        let result = await insertZone(sql, {
          userId: input.userId,
          name,
          serial: initial,
          records: recordsAt(initial),
          onlyWithoutHistory: true,
          defaultMaxZones,
        });
        if ('history' in result) {
          const serial = this.firstSerial(initial, result.history);
          result = await insertZone(sql, {
            userId: input.userId,
            name,
            serial,
            records: recordsAt(serial),
            onlyWithoutHistory: false,
            defaultMaxZones,
          });
        }
        if ('quota' in result) throw quotaExceeded('maxZones', result.quota, 'zones');
        if (!('zone' in result)) throw DomainError.notFound('USER_NOT_FOUND', 'user_id');
        return result.zone;
      },
    });
  }

  /**
   * A user's zone may neither lie inside another user's zone nor contain one: whoever holds `example.com`
   * could otherwise be shadowed, or delegate around, by a stranger's `www.example.com` (and the other way
   * round). Locks the names that a nested zone would share with this one (lockZoneNames), so that of two
   * users creating `example.com` and `a.example.com` at once, the second sees the first. Names that are
   * public suffixes are left out of the locks: no user holds one, and every create under `com` would
   * otherwise wait on one lock. The answer does not say whose zone it is, nor which.
   */
  private async refuseNestingWithOthers(sql: Sql, name: string, userId: number): Promise<void> {
    const names = selfAndAncestors(name);
    await lockZoneNames(
      sql,
      names.filter((n) => !isPublicSuffix(n)),
    );
    if (await zoneOfAnotherUserNests(sql, { name, ancestors: names.slice(1), userId })) {
      throw zoneNameRefused('ZONE_OWNED_BY_ANOTHER_USER', `zone: ${name} would be inside, or would contain, a zone of another user`);
    }
  }

  /**
   * A new zone starts at the policy's first serial, or above the last serial the name had if it was deleted
   * before: a secondary that still holds the old zone must see the new one as newer (serials never go back).
   */
  private firstSerial(initial: number, previous: number): number {
    return serialGreaterThan(initial, previous) ? initial : nextSerial(previous, this.settings.serialPolicy, new Date());
  }

  /** Deletes a zone and all its records in one transaction, which also removes it from the catalog (the write engine). */
  /**
   * `withUser`: the zone goes with its user (UsersService.delete), whose own audit event names it; the zone's
   * deletion is then not an admin action of its own
   */
  async delete(ctx: RequestContext, by: { id?: number; name?: string }, options: { withUser?: boolean } = {}): Promise<void> {
    const name = by.name === undefined ? undefined : normaliseZoneName(by.name);
    if (by.id === undefined && name === undefined) throw DomainError.invalid('zone', 'zone is required');
    await writeZone(ctx.db, this.settings, ctx.principal, {
      kind: 'delete-zone',
      zone: by.id !== undefined ? { id: by.id } : { name: name! },
      remove: async (sql) => {
        const domain = await findZoneRow(sql, { id: by.id, name, scopeUserId: scopeUserId(ctx.principal) });
        if (!domain || !seesZone(ctx.principal.policy, domain.name))
          throw DomainError.notFound('ZONE_NOT_FOUND', by.id !== undefined ? 'id' : 'zone');
        requireFlag(ctx.principal.policy, 'mayDeleteZones');
        const records = await zoneRecords(sql, [domain.id]);
        await journalWholeZone(sql, 'zone-deleted', domain, records.map(journalRecord));
        // a user deleting its own zone is in the change history; the admin deleting a user's zone is an admin action
        if (ctx.principal.kind === 'admin' && !options.withUser) {
          await recordAuditEvent(sql, {
            kind: 'zone-deleted-by-admin',
            actor: ctx.principal,
            subject: `zone:${domain.name}`,
            detail: { zoneId: domain.id, userId: domain.userId, records: records.length },
          });
        }
        return { id: domain.id, name: domain.name };
      },
    });
  }
}
