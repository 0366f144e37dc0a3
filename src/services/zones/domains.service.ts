import type { Settings } from '../../config/settings';
import { canSeeUser, requireAdmin, scopeUserId } from '../../auth/principal';
import { nameserverSetByName } from '../../repositories/nameserver-sets';
import { DEFAULT_SET_NAME, effectiveSet, NameserverSetView } from './nameserver-set-view';
import { readRulesOf, requireAllowed, requireFlag, seesZone } from '../../auth/policy';
import { parseOwner, parseZoneNamePrefix } from '../../dns/name';
import { normaliseZoneName } from '../../dns/zone-name';
import { initialSerial, nextSerial, serialGreaterThan } from '../../dns/serial';
import { DEFAULT_RECORD_TTL } from '../../dns/ttl';
import { DomainError, ERROR_CATALOGUE, errorFromProblems, type ErrorDetail } from '../../errors/catalogue';
import {
  existingZoneNames,
  findZoneRow,
  insertZone,
  insertZones,
  lastSerialsOfNames,
  setZoneApiLabels,
  ZoneApiLabels,
  zoneApiLabels,
  zoneRecords,
} from '../../repositories/zone-rows';
import { withSerial } from '../../dns/zone-rules';
import { userLimits } from '../../repositories/accounts';
import { lockZoneNames, zoneOfAnotherUserNests, zonesOfAnotherUserNest } from '../../repositories/zone-names';
import { isPublicSuffix, selfAndAncestors } from '../../dns/public-suffix';
import {
  countDomains,
  DomainFilter,
  DomainOrder,
  DomainRow,
  domainExists,
  listDomains,
  listDomainsWithOwnersAndFacts,
  listDomainsWithApiFacts,
  type ApiListedZone,
  type ListedZone,
  nestedListBounds,
  PageRequest,
} from '../../repositories/read-model';
import { allowedTtlsOf, type RequestContext } from '../context';
import type { Sql } from '../../db/pool';
import { recordAuditEvent } from '../audit-log';
import { journalRecord, type WriteEngine } from '../write-engine';
import { quotaExceeded } from '../write-engine/quotas';
import type { CanonicalRecord } from '../../dns/record';
import type { ZoneKind } from '../../entities/domain.entity';
import { insertSecondary } from '../../repositories/secondary-zones';
import { serverEntries } from './server-entries';
import { DEFAULT_TEMPLATE_NAME, DEFAULT_WWW_OWNER, RecordTemplatesService } from './record-templates.service';

/** a secondary zone's primaries: tried in order, so a few */
const MAX_PRIMARIES = 10;
/** the most zones `createMany` takes in one call: as many as the catalog admits in one step (catalog.ts) */
export const MAX_ZONES_PER_CALL = 5000;

/** a zone to create (`create`, and each of `createMany`'s) */
export interface NewZoneInput {
  /** the owning user; omitted: the key's own (an admin key names one) */
  userId?: number;
  zone: string;
  template?: string | null;
  records?: CanonicalRecord[];
  /** secondary: taken by transfer from `primaries` (docs/transfers.md); default primary */
  kind?: ZoneKind;
  primaries?: { address: string; port?: number | null; tsigKeyName?: string | null }[];
  /** the nameserver set it is served by (docs/transfers.md); the admin's choice, `default` when omitted */
  nameserverSet?: string | null;
  /** what the PowerDNS API was told of it (`account`, `kind`), read back as told (docs/powerdns-api.md) */
  apiLabels?: ZoneApiLabels;
  /** the SOA's fields other than its serial (which is the zone's), instead of `defaultSoa`'s; with `records` */
  soa?: CanonicalRecord;
}

/** a new zone checked, its reads made: what is left is to write it (DomainsService.prepare) */
interface PreparedZone {
  input: NewZoneInput;
  name: string;
  userId: number;
  secondary: boolean;
  /** the name rules of a user's zone apply (refuseNestingWithOthers) */
  checkNames: boolean;
  kind: ZoneKind;
  nameserverSet: number;
  apiLabels?: ZoneApiLabels;
  primaries: Awaited<ReturnType<typeof serverEntries>>;
  /** its records, the SOA at `serial` */
  recordsAt: (serial: number) => ReturnType<typeof journalRecord>[];
}

/** a zone-name prefix for the search (parseZoneNamePrefix), or the request's 400 naming the field */
export function normaliseZoneNamePrefix(input: string, field = 'nameStartsWith'): string {
  const parsed = parseZoneNamePrefix(input, field);
  if (!parsed.ok) throw errorFromProblems(parsed.problems);
  return parsed.name;
}

/** a glob over zone names (`*` any run, `?` one character: PowerDNS's search): lower case, no final dot, at most 255 */
export function normaliseZoneNameGlob(input: string, field = 'nameMatches'): string {
  const glob = input.trim().toLowerCase().replace(/\.$/, '');
  if (glob.length > 255) throw DomainError.invalid(field, `${field}: at most 255 characters`);
  return glob;
}

/** a zone of `createMany` whose name is taken (DUPLICATE_ZONE, as a single create's unique name answers) */
function duplicateZone(why: string): ErrorDetail {
  return { field: 'zone', code: 'DUPLICATE_ZONE', message: `zone: ${ERROR_CATALOGUE.DUPLICATE_ZONE.message}: ${why}` };
}

/** `createMany`'s refusal: none was created; `details` names each zone refused and why, in the order of the input */
function zonesNotCreated(found: ErrorDetail[]): DomainError {
  const place = (detail: ErrorDetail) => Number(/^input\[(\d+)\]/.exec(detail.field)?.[1] ?? 0);
  const refusals = [...found].sort((a, b) => place(a) - place(b));
  return new DomainError(
    'ZONES_NOT_CREATED',
    `${ERROR_CATALOGUE.ZONES_NOT_CREATED.message}: ${refusals.length} refused, the first ${refusals[0].zone}: ${refusals[0].message.replace(/^[\w[\].]+: [^:]+: /, '')}`,
    refusals,
  );
}

/** a user's zone would nest with another user's (refuseNestingWithOthers) */
function nestsWithAnother(name: string): DomainError {
  return zoneNameRefused('ZONE_OWNED_BY_ANOTHER_USER', `zone: ${name} would be inside, or would contain, a zone of another user`);
}

function zoneNameRefused(
  code: 'ZONE_IS_PUBLIC_SUFFIX' | 'ZONE_IS_SINGLE_LABEL' | 'ZONE_OWNED_BY_ANOTHER_USER',
  message: string,
): DomainError {
  return new DomainError(code, undefined, [{ field: 'zone', code, message }]);
}

/** Zones (domains): creation with the default records, lookups, and deletion with everything in them. */
export class DomainsService {
  constructor(
    private readonly settings: Settings,
    /** the write engine every change of a zone goes through (services/index.ts) */
    private readonly engine: WriteEngine,
    private readonly templates: RecordTemplatesService = new RecordTemplatesService(settings),
  ) {}

  list(ctx: RequestContext, filter: Omit<DomainFilter, 'scopeUserId'>, page?: PageRequest, order?: DomainOrder): Promise<DomainRow[]> {
    return this.pageOfZones(ctx, page, order, () => listDomains(ctx.db, this.scoped(ctx, filter), page, order));
  }

  /**
   * the same page of zones, each with its owner, its facts and its health state (the console's zone list shows
   * them), and with `propagation` what its propagation is made of
   */
  listWithOwnersAndFacts(
    ctx: RequestContext,
    filter: Omit<DomainFilter, 'scopeUserId'>,
    page?: PageRequest,
    order?: DomainOrder,
    also: { propagation?: boolean } = {},
  ): Promise<ListedZone[]> {
    return this.pageOfZones(ctx, page, order, () => listDomainsWithOwnersAndFacts(ctx.db, this.scoped(ctx, filter), page, order, also));
  }

  /**
   * a page of the zones the caller may see in id order, each with what the PowerDNS API shows of it (the account
   * it was told, else the owner's e-mail; the kind it was told; signed or not): the PowerDNS API's list of every zone
   */
  listWithApiFacts(ctx: RequestContext, page: PageRequest): Promise<ApiListedZone[]> {
    return listDomainsWithApiFacts(ctx.db, this.scoped(ctx, {}), page);
  }

  /** a page of zones `read` reads; a page after a deleted zone's cursor in an order by a fact is CURSOR_GONE */
  private async pageOfZones<T>(
    ctx: RequestContext,
    page: PageRequest | undefined,
    order: DomainOrder | undefined,
    read: () => Promise<T[]>,
  ): Promise<T[]> {
    const rows = await read();
    // in name order the cursor's zone gives the place to start: once deleted, say so rather than end the list
    if (order === undefined || order === 'created' || rows.length > 0) return rows;
    for (const argument of ['after', 'before'] as const) {
      const id = page?.[argument];
      if (id !== undefined && !(await domainExists(ctx.db, id)))
        throw DomainError.invalid(argument, `${argument}: the zone of this cursor was deleted; list again from the start`, 'CURSOR_GONE');
    }
    return rows;
  }

  count(ctx: RequestContext, filter: Omit<DomainFilter, 'scopeUserId'>): Promise<number> {
    return countDomains(ctx.db, this.scoped(ctx, filter));
  }

  /**
   * What a nested list without `first` can return per parent for this key now (GraphQL's cost, limits.ts):
   * zones per user and records per zone, over the key's user (an admin key: every user)
   */
  nestedListBounds(ctx: RequestContext): Promise<{ zonesPerUser: number; recordsPerZone: number }> {
    return nestedListBounds(ctx.db, scopeUserId(ctx.principal));
  }

  /** the filter with its names normalised and the key's scope (its user's zones, its rules' zones) added */
  private scoped(ctx: RequestContext, filter: Omit<DomainFilter, 'scopeUserId'>): DomainFilter {
    const name = filter.name === undefined ? undefined : normaliseZoneName(filter.name);
    const nameStartsWith = filter.nameStartsWith === undefined ? undefined : normaliseZoneNamePrefix(filter.nameStartsWith);
    const nameMatches = filter.nameMatches === undefined ? undefined : normaliseZoneNameGlob(filter.nameMatches);
    return {
      ...filter,
      name,
      nameStartsWith,
      nameMatches,
      ...this.reach(ctx),
    };
  }

  /** the zones the caller may see (its user's, or every user's for the admin; a restricted key's rules' zones) */
  reach(ctx: RequestContext): Pick<DomainFilter, 'scopeUserId' | 'readRules'> {
    return { scopeUserId: scopeUserId(ctx.principal), readRules: readRulesOf(ctx.principal.policy) };
  }

  async get(ctx: RequestContext, by: { id?: number; name?: string }): Promise<DomainRow> {
    const domain = await this.find(ctx, by);
    if (!domain) throw DomainError.notFound('ZONE_NOT_FOUND', by.id !== undefined ? 'id' : 'zone');
    return domain;
  }

  /** one zone the caller may see by id or name, or null when there is none (`get` refuses that with ZONE_NOT_FOUND) */
  async find(ctx: RequestContext, by: { id?: number; name?: string }): Promise<DomainRow | null> {
    if (by.id === undefined && by.name === undefined) throw DomainError.invalid('zone', 'zone id or name is required');
    const [domain] = await this.list(ctx, by, { first: 1 });
    return domain ?? null;
  }

  /** what the PowerDNS API was told of these zones (already read by the caller), by zone id: docs/powerdns-api.md */
  apiLabels(ctx: RequestContext, zones: readonly { id: number }[]): Promise<Map<number, ZoneApiLabels>> {
    return zoneApiLabels(
      ctx.db,
      zones.map((zone) => zone.id),
    );
  }

  /**
   * Keeps what the PowerDNS API was told of a zone the caller can see (its `account` text, its `kind`), to read
   * it back as told. Labels, not the zone's data or owner: a key that may write the zone's apex SOA sets them.
   */
  async setApiLabels(ctx: RequestContext, zone: DomainRow, labels: ZoneApiLabels): Promise<void> {
    requireAllowed(ctx.principal.policy, { zone: zone.name, owner: '@', type: 'SOA', access: 'write' }, 'zone');
    await setZoneApiLabels(ctx.db, zone.id, labels);
  }

  /**
   * Creates a zone with the records of a template (docs/templates-and-alias.md): `template` names the zone
   * owner's template or an admin-wide one; without it (or `default`) the settings' default records: SOA at
   * the apex, one NS per DEFAULT_NS name, and (unless DEFAULT_WWW_CNAME=off) `www` CNAME to the apex, all with
   * TTL 3600. One statement; then adds the zone to the catalog.
   */
  /**
   * `records`: the zone's records besides its SOA, instead of a template's (PowerDNS's zone creation with
   * `nameservers` and `rrsets`): built by the caller from ZoneChangesService.parseInitialRecords, which checked
   * them against the SOA from `defaultSoa`, so the zone is created whole or not at all.
   */
  async create(ctx: RequestContext, input: NewZoneInput): Promise<DomainRow> {
    const zone = await this.prepare(ctx, input, new Map());
    return this.engine.writeZone(ctx.db, this.settings, ctx.principal, {
      kind: 'create-zone',
      transaction: zone.checkNames || zone.secondary,
      insert: async (sql) => {
        if (zone.checkNames) await this.refuseNestingWithOthers(sql, zone.name, zone.userId);
        const initial = initialSerial(this.settings.serialPolicy, new Date());
        const defaultMaxZones = this.defaultMaxZones(ctx);
        const insert = (serial: number, onlyWithoutHistory: boolean) =>
          insertZone(sql, {
            userId: zone.userId,
            name: zone.name,
            serial,
            records: zone.recordsAt(serial),
            onlyWithoutHistory,
            defaultMaxZones,
            kind: zone.kind,
            nameserverSet: zone.nameserverSet,
            apiLabels: zone.apiLabels,
          });
        let result = await insert(initial, true);
        if ('history' in result) result = await insert(this.firstSerial(initial, result.history), false);
        if ('quota' in result) throw quotaExceeded('maxZones', result.quota, 'zones');
        if (!('zone' in result)) throw DomainError.notFound('USER_NOT_FOUND', 'user_id');
        if (zone.secondary) await insertSecondary(sql, result.zone.id, zone.primaries);
        return result.zone;
      },
    });
  }

  /**
   * Creates many zones in one call (docs/scale.md, «Bulk creation»), each as `create` would (its template's or
   * the default records, its kind, set and primaries), all or none: every zone is checked first, and when any
   * is refused none is made, the error's `details` naming each refused zone (`input[i].zone`, its own code and
   * message) — as a Route 53 change batch is refused whole, so that a client fixes the zones named and sends
   * the same list again, never having to learn which half was made. Then one transaction writes them all
   * (one statement for the zones, their records, journal rows and events) and the catalog admits them in one
   * step after its commit. At most MAX_ZONES_PER_CALL zones: the catalog admits that many in one step.
   */
  async createMany(ctx: RequestContext, inputs: readonly NewZoneInput[]): Promise<DomainRow[]> {
    // a key that may create no zone is refused as a whole, before any zone is looked at (authorise first)
    requireFlag(ctx.principal.policy, 'mayCreateZones');
    if (inputs.length === 0) return [];
    if (inputs.length > MAX_ZONES_PER_CALL)
      throw DomainError.invalid('input', `input: at most ${MAX_ZONES_PER_CALL} zones in one call (got ${inputs.length})`, 'TOO_MANY_ZONES');
    const refusals: ErrorDetail[] = [];
    const refuse = (index: number, zone: string, problems: readonly ErrorDetail[]) => {
      for (const problem of problems) {
        const field = `input[${index}].${problem.field === 'user_id' ? 'userId' : problem.field}`;
        refusals.push({ ...problem, field, zone, message: `${field}: ${zone}: ${problem.message.replace(/^[\w[\].]+: /, '')}` });
      }
    };
    // the reads every zone shares (its set, its template) are made once per name in the call
    const shared = new Map<string, Promise<unknown>>();
    const prepared: (PreparedZone | undefined)[] = [];
    for (const [index, input] of inputs.entries()) {
      try {
        prepared.push(await this.prepare(ctx, input, shared));
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        refuse(
          index,
          String(input.zone),
          error.details.length ? error.details : [{ field: 'zone', code: error.code, message: error.message }],
        );
        prepared.push(undefined);
      }
    }
    const seen = new Map<string, number>();
    for (const [index, zone] of prepared.entries()) {
      if (!zone) continue;
      const first = seen.get(zone.name);
      if (first !== undefined) refuse(index, zone.name, [duplicateZone(`the call names it twice (input[${first}] too)`)]);
      else seen.set(zone.name, index);
    }
    const zones = prepared.filter((zone): zone is PreparedZone => zone !== undefined);
    const refuseExisting = async () => {
      const existing = await existingZoneNames(
        ctx.db,
        zones.map((zone) => zone.name),
      );
      for (const [index, zone] of prepared.entries())
        if (zone && existing.has(zone.name) && seen.get(zone.name) === index)
          refuse(index, zone.name, [duplicateZone('a zone of that name exists')]);
    };
    await refuseExisting();
    if (refusals.length) throw zonesNotCreated(refusals);
    try {
      return await this.engine.writeZone(ctx.db, this.settings, ctx.principal, {
        kind: 'create-zones',
        insert: (sql) =>
          this.insertMany(ctx, sql, zones, (index, problems) => refuse(inputs.indexOf(zones[index].input), zones[index].name, problems)),
      });
    } catch (error) {
      // a zone of one of the names committed meanwhile (the unique name decided): say which
      if (error instanceof DomainError && error.code === 'DUPLICATE_ZONE' && !refusals.length) await refuseExisting();
      if (refusals.length) throw zonesNotCreated(refusals);
      throw error;
    }
  }

  /** `createMany`'s write, in its transaction: the names' rules (a user's key), the serials, one statement for all */
  private async insertMany(
    ctx: RequestContext,
    sql: Sql,
    zones: readonly PreparedZone[],
    refuse: (index: number, problems: readonly ErrorDetail[]) => void,
  ): Promise<DomainRow[]> {
    const checked = zones.filter((zone) => zone.checkNames);
    if (checked.length) {
      const ancestry = checked.map((zone) => ({ name: zone.name, ancestors: selfAndAncestors(zone.name).slice(1), userId: zone.userId }));
      await lockZoneNames(
        sql,
        [...new Set(checked.flatMap((zone) => selfAndAncestors(zone.name)))].filter((n) => !isPublicSuffix(n)),
      );
      const nesting = await zonesOfAnotherUserNest(sql, ancestry);
      for (const [index, zone] of zones.entries()) if (nesting.has(zone.name)) refuse(index, nestsWithAnother(zone.name).details);
      if (nesting.size) throw new DomainError('ZONE_OWNED_BY_ANOTHER_USER');
    }
    const initial = initialSerial(this.settings.serialPolicy, new Date());
    const previous = await lastSerialsOfNames(
      sql,
      zones.map((zone) => zone.name),
    );
    const serialOf = (zone: PreparedZone) => {
      const before = previous.get(zone.name);
      return before === undefined ? initial : this.firstSerial(initial, before);
    };
    const written = await insertZones(
      sql,
      zones.map((zone) => {
        const serial = serialOf(zone);
        return {
          userId: zone.userId,
          name: zone.name,
          serial,
          records: zone.recordsAt(serial),
          kind: zone.kind,
          nameserverSet: zone.nameserverSet,
          apiLabels: zone.apiLabels,
        };
      }),
      this.defaultMaxZones(ctx),
    );
    for (const [index, zone] of zones.entries()) {
      if (written.missingUsers.has(zone.userId)) refuse(index, DomainError.notFound('USER_NOT_FOUND', 'userId').details);
      const quota = written.overQuota.get(zone.userId);
      if (quota) refuse(index, quotaExceeded('maxZones', quota, 'zones').details);
    }
    if (written.missingUsers.size || written.overQuota.size) throw new DomainError('QUOTA_EXCEEDED');
    const byName = new Map(zones.map((zone) => [zone.name, zone]));
    for (const zone of written.zones) {
      const made = byName.get(zone.name)!;
      if (made.secondary) await insertSecondary(sql, zone.id, made.primaries);
    }
    return written.zones;
  }

  /** the user's zone quota binds the user's keys; the admin creates zones for anyone (README "Quotas") */
  private defaultMaxZones(ctx: RequestContext): number | undefined {
    return ctx.principal.kind === 'user' ? this.settings.quotas.maxZones : undefined;
  }

  /**
   * A new zone checked and its reads made (its set, its template, its primaries), ready to be written: what
   * `create` and `createMany` share. `shared` keeps the reads that depend on a name only (a set, a template of
   * a user) for the other zones of the same call.
   */
  private async prepare(ctx: RequestContext, input: NewZoneInput, shared: Map<string, Promise<unknown>>): Promise<PreparedZone> {
    const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
      if (!shared.has(key)) shared.set(key, read());
      return shared.get(key) as Promise<T>;
    };
    const userId = input.userId ?? ownUserId(ctx);
    const name = normaliseZoneName(input.zone);
    const secondary = input.kind === 'secondary';
    if (!secondary && input.primaries?.length)
      throw DomainError.invalid('primaries', 'primaries: only a SECONDARY zone has primaries', 'PRIMARIES_OF_PRIMARY_ZONE');
    if (secondary && !input.primaries?.length)
      throw DomainError.invalid('primaries', 'primaries: a SECONDARY zone needs at least one primary', 'PRIMARIES_REQUIRED');
    if ((input.primaries?.length ?? 0) > MAX_PRIMARIES)
      throw DomainError.invalid('primaries', `primaries: at most ${MAX_PRIMARIES}`, 'TOO_MANY_PRIMARIES');
    // the default records must fit too: `www.<zone>` is four octets longer than the zone's name (RFC 1035
    // §2.3.4: 255 octets), and a zone whose own records fail validation could never be exported
    const usesDefault = (input.template ?? DEFAULT_TEMPLATE_NAME) === DEFAULT_TEMPLATE_NAME && !input.records && !secondary;
    const www = usesDefault && this.settings.defaultWwwCname ? parseOwner(DEFAULT_WWW_OWNER, name, 'zone') : undefined;
    if (www && !www.ok) {
      throw errorFromProblems(
        www.problems.map((p) => ({
          ...p,
          message: `zone: the name leaves no room for the default ${DEFAULT_WWW_OWNER} record: ${p.message.replace(/^zone: /, '')}`,
        })),
      );
    }
    if (!canSeeUser(ctx.principal, userId)) throw DomainError.notFound('USER_NOT_FOUND', 'user_id');
    requireFlag(ctx.principal.policy, 'mayCreateZones');
    // the name rules bind users; the admin key may create any zone for anyone (a registry's suffix, a zone
    // split across users), and does so without the locks and the lookup
    const checkNames = ctx.principal.kind === 'user';
    if (checkNames && isPublicSuffix(name))
      throw zoneNameRefused('ZONE_IS_PUBLIC_SUFFIX', `zone: ${name} is a public suffix (publicsuffix.org)`);
    // a single label (`example`, `singlelabel`; a listed one is a public suffix, above) is a top-level domain:
    // a registry's zone, which the admin key may create; no resolver is ever sent to a user's (only the root
    // delegates a TLD)
    if (checkNames && !name.includes('.'))
      throw zoneNameRefused(
        'ZONE_IS_SINGLE_LABEL',
        `zone: ${name} is a single label (a top-level domain); a zone of a user has at least two`,
      );
    if (secondary && (input.records || input.template))
      throw DomainError.invalid(
        input.records ? 'records' : 'template',
        'a SECONDARY zone takes its records from its primaries',
        'RECORDS_OF_SECONDARY_ZONE',
      );
    if (input.records && input.template)
      throw DomainError.invalid('template', 'template: a zone created with its records takes no template', 'TEMPLATE_WITH_RECORDS');
    // the records it is created with (the SOA with them) count against the user's record quota as a change
    // set's would (README "Quotas"); the admin creates zones for anyone. Nobody else writes a zone not yet made
    if (input.records && ctx.principal.kind === 'user') {
      const limits = await userLimits(ctx.db, userId);
      const limit = limits?.maxRecordsPerZone ?? this.settings.quotas.maxRecordsPerZone;
      if (limit !== 0 && input.records.length + 1 > limit)
        throw quotaExceeded('maxRecordsPerZone', { limit, current: 0 }, `records in zone ${name}`);
    }
    const nsSet = await once(`set ${input.nameserverSet ?? ''}`, () => this.nameserverSetFor(ctx, input.nameserverSet));
    const primaries = secondary
      ? await serverEntries(ctx.db, userId, input.primaries!, 'primaries', {
          keyRequired: false,
          namedBy: ctx.principal,
          allow: this.settings.transferServersAllow,
        })
      : [];
    const template =
      secondary || input.records
        ? undefined
        : await once(`template ${userId} ${input.template ?? ''}`, () =>
            this.templates.templateFor(ctx.db, { userId: userId, template: input.template }),
          );
    const templateAt = template
      ? this.templates.expand(template, { zone: name, template: input.template, allowedTtls: allowedTtlsOf(ctx, this.settings) })
      : undefined;
    const recordsAt = (serial: number) => {
      // a secondary zone starts with an SOA alone, not served until its first transfer replaces it: its REFRESH
      // and RETRY are how soon its primaries are asked again while none answers (worker/secondary-zones.ts)
      if (secondary) return [journalRecord(this.defaultSoa(serial, { refresh: 60, retry: 10 }))];
      if (input.records)
        return [input.soa ? { ...input.soa, rdata: withSerial(input.soa.rdata, serial) } : this.defaultSoa(serial), ...input.records].map(
          journalRecord,
        );
      return withSetNs(templateAt!(serial), this.settings.defaultNs, nsSet.nsNames).map(journalRecord);
    };
    return {
      input,
      name,
      userId: userId,
      secondary,
      checkNames,
      kind: input.kind ?? 'primary',
      nameserverSet: nsSet.id,
      apiLabels: input.apiLabels,
      primaries,
      recordsAt,
    };
  }

  /** the nameserver set a new zone goes in: `default` unless the admin names another (docs/transfers.md) */
  private async nameserverSetFor(ctx: RequestContext, name: string | null | undefined): Promise<NameserverSetView> {
    const wanted = (name ?? DEFAULT_SET_NAME).trim().toLowerCase();
    if (wanted !== DEFAULT_SET_NAME) requireAdmin(ctx.principal);
    const row = await nameserverSetByName(ctx.db, wanted);
    if (!row) throw DomainError.notFound('NAMESERVER_SET_NOT_FOUND', 'nameserverSet');
    return effectiveSet(row, this.settings);
  }

  /**
   * The apex NS a new zone is made with when its creator names them apart from its records (the PowerDNS API's
   * `nameservers`): those, or DEFAULT_NS when none are named, as a zone needs NS at its apex (RFC 1034 §4.2.1);
   * at DEFAULT_RECORD_TTL.
   */
  apexNameservers(named: readonly string[]): { rdata: string; ttl: number }[] {
    return (named.length ? named : this.settings.defaultNs).map((rdata) => ({ rdata, ttl: DEFAULT_RECORD_TTL }));
  }

  /** the SOA a new zone starts with (DEFAULT_SOA_MNAME, DEFAULT_SOA_RNAME) at `serial` */
  defaultSoa(serial: number, timers = { refresh: 3600, retry: 1800 }): CanonicalRecord {
    const { defaultSoaMname, defaultSoaRname } = this.settings;
    // RFC 1035 §3.3.13: MNAME RNAME SERIAL REFRESH RETRY EXPIRE MINIMUM
    return {
      owner: '@',
      type: 'SOA',
      rdata: `${defaultSoaMname} ${defaultSoaRname} ${serial} ${timers.refresh} ${timers.retry} 604800 86400`,
      ttl: DEFAULT_RECORD_TTL,
    };
  }

  /**
   * A user's zone may neither lie inside another user's zone nor contain one: whoever holds `example.com`
   * could otherwise be shadowed, or delegate around, by a stranger's `www.example.com` (and the other way
   * round). Locks the names that a nested zone would share with this one (lockZoneNames), so that of two
   * users creating `example.com` and `a.example.com` at once, the second sees the first. Names that are
   * public suffixes are left out of the locks: no user holds one, and every create under `com` would
   * otherwise wait on one lock. The answer does not say whose zone it is, nor which.
   */
  async refuseNestingWithOthers(sql: Sql, name: string, userId: number): Promise<void> {
    const names = selfAndAncestors(name);
    await lockZoneNames(
      sql,
      names.filter((n) => !isPublicSuffix(n)),
    );
    if (await zoneOfAnotherUserNests(sql, { name, ancestors: names.slice(1), userId })) throw nestsWithAnother(name);
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
    await this.engine.writeZone(ctx.db, this.settings, ctx.principal, {
      kind: 'delete-zone',
      zone: by.id !== undefined ? { id: by.id } : { name: name! },
      remove: async (sql) => {
        const domain = await findZoneRow(sql, { id: by.id, name, scopeUserId: scopeUserId(ctx.principal) });
        if (!domain || !seesZone(ctx.principal.policy, domain.name))
          throw DomainError.notFound('ZONE_NOT_FOUND', by.id !== undefined ? 'id' : 'zone');
        requireFlag(ctx.principal.policy, 'mayDeleteZones');
        const records = await zoneRecords(sql, [domain.id]);
        await this.engine.journalWholeZone(sql, 'zone-deleted', domain, records.map(journalRecord));
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

/**
 * A template's records with its apex NS replaced by a nameserver set's names when they are exactly the
 * default ones (DEFAULT_NS): a zone created in another set is delegated to that set's servers. NS a template
 * names on purpose stay.
 */
function withSetNs(records: CanonicalRecord[], defaultNs: string[], setNs: string[]): CanonicalRecord[] {
  const apexNs = records.filter((r) => r.owner === '@' && r.type === 'NS');
  const names = apexNs.map((r) => r.rdata.toLowerCase()).sort();
  const defaults = [...defaultNs].sort();
  if (names.length !== defaults.length || names.some((n, i) => n !== defaults[i]) || setNs.join() === defaultNs.join()) return records;
  const ttl = apexNs[0].ttl;
  return [
    ...records.filter((r) => !(r.owner === '@' && r.type === 'NS')),
    ...setNs.map((ns) => ({ owner: '@', type: 'NS', rdata: ns, ttl })),
  ];
}

/** the user a zone is made for when the caller names none: a user's key's own; an admin key must name one */
function ownUserId(ctx: RequestContext): number {
  const own = scopeUserId(ctx.principal);
  if (own === undefined) throw DomainError.invalid('userId', 'userId: an admin key names the user the zone is for', 'REQUIRED');
  return own;
}
