import type { Settings } from '../config/settings';
import { canSeeUser, scopeUserId } from '../auth/principal';
import { parseOwner, parseZoneName } from '../dns/name';
import { initialSerial, nextSerial, serialGreaterThan } from '../dns/serial';
import { DomainError, errorFromProblems } from '../errors/catalogue';
import { findZoneRow, insertZone, zoneRecords } from '../repositories/zone-writes';
import { countDomains, DomainFilter, DomainRow, listDomains, PageRequest } from '../repositories/read-model';
import type { RequestContext } from './context';
import { journalRecord, journalWholeZone, writeZone } from './write-engine';
import { quotaExceeded } from './quotas';

const DEFAULT_RECORD_TTL = 3600;

/** A zone name from a client, normalised (lower-case, no trailing dot, punycode) or refused with the reasons. */
export function normaliseZoneName(input: string, field = 'zone'): string {
  const parsed = parseZoneName(input, field);
  if (!parsed.ok) throw errorFromProblems(parsed.problems);
  return parsed.name;
}

/** the owner of the default CNAME to the apex (RESTKnot's default records; DEFAULT_WWW_CNAME turns it off) */
const DEFAULT_WWW_OWNER = 'www';

/** Zones (domains): creation with the default records, lookups, and deletion with everything in them. */
export class DomainsService {
  constructor(private readonly settings: Settings) {}

  list(ctx: RequestContext, filter: Omit<DomainFilter, 'scopeUserId'>, page?: PageRequest): Promise<DomainRow[]> {
    const name = filter.name === undefined ? undefined : normaliseZoneName(filter.name);
    return listDomains(ctx.db, { ...filter, name, scopeUserId: scopeUserId(ctx.principal) }, page);
  }

  count(ctx: RequestContext, filter: Omit<DomainFilter, 'scopeUserId'>): Promise<number> {
    const name = filter.name === undefined ? undefined : normaliseZoneName(filter.name);
    return countDomains(ctx.db, { ...filter, name, scopeUserId: scopeUserId(ctx.principal) });
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
      insert: async (sql) => {
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
   * A new zone starts at the policy's first serial, or above the last serial the name had if it was deleted
   * before: a secondary that still holds the old zone must see the new one as newer (serials never go back).
   */
  private firstSerial(initial: number, previous: number): number {
    return serialGreaterThan(initial, previous) ? initial : nextSerial(previous, this.settings.serialPolicy, new Date());
  }

  /** Deletes a zone and all its records in one transaction, which also removes it from the catalog (the write engine). */
  async delete(ctx: RequestContext, by: { id?: number; name?: string }): Promise<void> {
    const name = by.name === undefined ? undefined : normaliseZoneName(by.name);
    if (by.id === undefined && name === undefined) throw DomainError.invalid('zone', 'zone is required');
    await writeZone(ctx.db, this.settings, ctx.principal, {
      kind: 'delete-zone',
      zone: by.id !== undefined ? { id: by.id } : { name: name! },
      remove: async (sql) => {
        const domain = await findZoneRow(sql, { id: by.id, name, scopeUserId: scopeUserId(ctx.principal) });
        if (!domain) throw DomainError.notFound('ZONE_NOT_FOUND', by.id !== undefined ? 'id' : 'zone');
        const records = await zoneRecords(sql, [domain.id]);
        await journalWholeZone(sql, 'zone-deleted', domain, records.map(journalRecord));
        return { id: domain.id, name: domain.name };
      },
    });
  }
}
