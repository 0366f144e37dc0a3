/**
 * Views (docs/views.md): split horizon as overlays on one zone, served to standard secondaries by a TSIG key per
 * view. The operator keeps the views (a name, the client networks, a precedence, the key, the secondaries to
 * NOTIFY) and a zone's overlays: per view and RRset, `replace` (the view's own records) or `hide` (absent in the
 * view). A view's zone is the base zone with its overlay applied, checked by the zone's rules as any zone is;
 * each overlay change is written through the write engine in its zone's turn, with its view's serial step.
 */
import { parseServerAddress, type Settings } from '../../config/settings';
import { changeAuthor, requireAdmin } from '../../auth/principal';
import { parseCidr } from '../../dns/ip';
import { parseApiRecord } from '../../dns/record';
import { parseOwner } from '../../dns/name';
import { normaliseZoneName } from '../../dns/zone-name';
import { checkOwnerData } from '../../dns/zone-rules';
import { SIGNER_OWNED_TYPES } from '../../dns/dnssec/signer-records';
import { DomainError, errorFromProblems } from '../../errors/catalogue';
import { allowedTtlsOf, type RequestContext } from '../context';
import type { AllowedTtls } from '../../dns/ttl';
import { inTransaction } from '../db-errors';
import type { WriteEngine } from '../write-engine';
import { withDnstap } from '../transfers/dnstap-config';
import { applyOverlay } from '../../dns/view-overlay';
import { DEFAULT_SET_ID, nameserverSetById } from '../../repositories/nameserver-sets';
import { SECONDARY_SOFTWARE, SecondarySoftware, secondaryConfig } from '../transfers/secondary-config';
import { secondarySizing } from '../transfers/secondary-sizing';
import {
  baseRecordsAt,
  deleteView,
  insertView,
  isOperatorTsigKey,
  listViews,
  lockZoneForOverlay,
  OverlayAction,
  type OverlayRow,
  overlaysAt,
  overlaysOfZone,
  Rr,
  updateView,
  viewById,
  viewChanges,
  ViewChangeRow,
  viewByName,
  ViewFields,
  ViewRow,
  viewSerial,
  writeOverlay,
  zoneByName,
  baseRecords,
} from '../../repositories/views';

export type { ViewRow } from '../../repositories/views';

export interface ViewInput {
  name?: string;
  networks?: string[];
  precedence?: number;
  tsigKeyId?: number;
  notify?: string[];
}

export interface OverlayInput {
  zone: string;
  view: string;
  owner: string;
  type: string;
  /** undefined: the overlay of that RRset is cleared (the view sees the base's again) */
  action?: OverlayAction;
  /** replace: the view's records of the RRset (one TTL, RFC 2181 §5.2) */
  records?: { rdata: string; ttl?: number }[];
}

/** a record of a view's zone, and what the view's overlay does to its RRset */
export interface ViewRecord extends Rr {
  /** `base`: the base zone's; `replace`: the view's own; `hide`: the base's, hidden in the view */
  overlay: 'base' | OverlayAction;
}

/** an RRset a view's overlay covers: the base's records of it and the view's (none where the view hides it) */
export interface ViewRrsetDiff {
  owner: string;
  type: string;
  action: OverlayAction;
  base: { ttl: number; rdata: string }[];
  view: { ttl: number; rdata: string }[];
}

const VIEW_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** an address of a view's secondary: IPv4 or IPv6 (bracketed with a port), or host:port */
const NOTIFY_TARGET = /^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-f:]+\](:\d{1,5})?|[0-9a-f:]+)$/i;
/** the apex SOA is the zone's own, every view's serial aside: a view cannot change or hide it */
const NOT_OVERLAID = new Set(['SOA']);

/**
 * Whether setting `action` with `records` leaves the view's overlay of the RRset as `current` has it: the same
 * action with the same records (one TTL, RDATA in canonical form, in any order), or a clear of no overlay
 */
function overlayUnchanged(
  current: OverlayRow | undefined,
  action: OverlayAction | undefined,
  records: readonly { ttl: number; rdata: string }[],
): boolean {
  if (!action || !current) return !action && !current;
  if (current.action !== action || current.records.length !== records.length) return false;
  const key = (r: { ttl: number; rdata: string }) => `${r.ttl} ${r.rdata}`;
  const held = new Set(current.records.map(key));
  return records.every((r) => held.has(key(r)));
}

/** a view of steering's own is its rules': what it serves, its name, networks and key follow them */
function viewSteered(field: string, view: ViewRow): DomainError {
  const message = `${field}: view ${view.name} is steering's own, for the rules by network and country on ${view.steeringNetworks}: its name, networks, key and overlays follow those rules, and it goes when no rule names them (docs/steering.md)`;
  return new DomainError('VIEW_STEERED', message, [{ field, code: 'VIEW_STEERED', message }]);
}

export class ViewsService {
  constructor(
    private readonly settings: Settings,
    private readonly engine: WriteEngine,
  ) {}

  async list(ctx: RequestContext): Promise<ViewRow[]> {
    requireAdmin(ctx.principal);
    return ctx.db.connection((sql) => listViews(sql));
  }

  async get(ctx: RequestContext, name: string): Promise<ViewRow> {
    requireAdmin(ctx.principal);
    const view = await ctx.db.connection((sql) => viewByName(sql, name));
    if (!view) throw DomainError.notFound('VIEW_NOT_FOUND', 'view');
    return view;
  }

  async create(ctx: RequestContext, input: ViewInput): Promise<ViewRow> {
    requireAdmin(ctx.principal);
    const fields = this.fields(input);
    return inTransaction(ctx.db, async (sql) => {
      await this.refuseTaken(sql, fields);
      const id = await insertView(sql, fields);
      return (await viewById(sql, id))!;
    });
  }

  async update(ctx: RequestContext, id: number, input: ViewInput): Promise<ViewRow> {
    requireAdmin(ctx.principal);
    return inTransaction(ctx.db, async (sql) => {
      const current = await viewById(sql, id);
      if (!current) throw DomainError.notFound('VIEW_NOT_FOUND', 'id');
      const fields = this.fields({ ...current, ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) });
      if (current.steeringNetworks !== null) {
        // its secondaries to NOTIFY and its precedence are the operator's; its name, networks and key its rules'
        if (fields.name !== current.name) throw viewSteered('name', current);
        if (fields.networks.join(' ') !== current.networks.join(' ')) throw viewSteered('networks', current);
        if (fields.tsigKeyId !== current.tsigKeyId) throw viewSteered('tsigKeyId', current);
      }
      await this.refuseTaken(sql, fields, id);
      await updateView(sql, id, fields);
      return (await viewById(sql, id))!;
    });
  }

  /** the view and its overlays go; its secondaries then read the base zones (their serials are the base's) */
  async delete(ctx: RequestContext, id: number): Promise<boolean> {
    requireAdmin(ctx.principal);
    const view = await ctx.db.connection((sql) => viewById(sql, id));
    if (view?.steeringNetworks != null) throw viewSteered('id', view);
    const deleted = await ctx.db.connection((sql) => deleteView(sql, id));
    if (!deleted) throw DomainError.notFound('VIEW_NOT_FOUND', 'id');
    return true;
  }

  /** a zone's overlays, of one view or of all */
  async overlays(ctx: RequestContext, zoneName: string, viewName?: string) {
    requireAdmin(ctx.principal);
    return ctx.db.connection(async (sql) => {
      const zone = await zoneByName(sql, normaliseZoneName(zoneName));
      if (!zone) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
      const views = await listViews(sql);
      const view = viewName === undefined ? undefined : views.find((v) => v.name === viewName);
      if (viewName !== undefined && !view) throw DomainError.notFound('VIEW_NOT_FOUND', 'view');
      const rows = await overlaysOfZone(sql, zone.id, view?.id);
      return rows.map((o) => ({ ...o, zone: zone.name, view: views.find((v) => v.id === o.viewId)!.name }));
    });
  }

  /**
   * A view's serial of a zone: its own once it has overlaid the zone, else the base's (the view serves the base
   * zone, serial and all, until its first overlay of it).
   */
  async serialOf(ctx: RequestContext, zoneName: string, viewId: number): Promise<number> {
    requireAdmin(ctx.principal);
    return ctx.db.connection(async (sql) => {
      const zone = await zoneByName(sql, normaliseZoneName(zoneName));
      if (!zone) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
      return (await viewSerial(sql, zone.id, viewId)) ?? zone.serial;
    });
  }

  /**
   * A zone's records as a view serves them: the base's, the view's own RRsets (`replace`) in place of the base's,
   * and the base's RRsets the view hides listed as `hide` (not served in the view); with the view's serial.
   */
  async recordsInView(
    ctx: RequestContext,
    zoneName: string,
    viewName: string,
  ): Promise<{ serial: number; records: ViewRecord[]; diff: ViewRrsetDiff[] }> {
    requireAdmin(ctx.principal);
    return ctx.db.transaction(async (sql) => {
      const zone = await zoneByName(sql, normaliseZoneName(zoneName));
      if (!zone) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
      const view = await viewByName(sql, viewName);
      if (!view) throw DomainError.notFound('VIEW_NOT_FOUND', 'view');
      const serial = (await viewSerial(sql, zone.id, view.id)) ?? zone.serial;
      const base = await baseRecords(sql, zone.id);
      const overlays = await overlaysOfZone(sql, zone.id, view.id);
      const action = new Map(overlays.map((o) => [`${o.owner} ${o.type}`, o.action]));
      const records: ViewRecord[] = [];
      for (const r of base) {
        const a = action.get(`${r.owner} ${r.type}`);
        if (a === undefined) records.push({ ...r, overlay: 'base' });
        else if (a === 'hide') records.push({ ...r, overlay: 'hide' });
      }
      for (const o of overlays)
        if (o.action === 'replace') for (const r of o.records) records.push({ owner: o.owner, type: o.type, ...r, overlay: 'replace' });
      // the view against the base: only the RRsets its overlay covers, the base's records before, the view's after
      const diff = overlays.map((o) => ({
        owner: o.owner,
        type: o.type,
        action: o.action,
        base: base.filter((r) => r.owner === o.owner && r.type === o.type).map(({ ttl, rdata }) => ({ ttl, rdata })),
        view: o.action === 'replace' ? o.records : [],
      }));
      return { serial, records, diff };
    }, 'repeatable read, read only');
  }

  /**
   * A view's history of a zone, newest first: its overlay changes, each as its `view.changed` event told it (who,
   * when, the RRset, the action, a replace's records, the view's serial it stepped to). An overlay change writes
   * no journal row (the journal is the base zone's, which IXFR serves), so its event is its record; it is kept
   * as long as the events are (HISTORY_KEEP_DAYS).
   */
  async history(
    ctx: RequestContext,
    zoneName: string,
    viewName: string,
    page: { first: number; beforeId?: number },
  ): Promise<ViewChangeRow[]> {
    requireAdmin(ctx.principal);
    if (!Number.isInteger(page.first) || page.first < 1 || page.first > 100) throw DomainError.invalid('first', 'first: 1 to 100');
    return ctx.db.connection(async (sql) => {
      const zone = await zoneByName(sql, normaliseZoneName(zoneName));
      if (!zone) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
      const view = await viewByName(sql, viewName);
      if (!view) throw DomainError.notFound('VIEW_NOT_FOUND', 'view');
      return viewChanges(sql, zone.id, view, { limit: page.first, beforeId: page.beforeId });
    });
  }

  /**
   * Sets (or clears) a view's overlay of one RRset in a zone, through the write engine in the zone's turn: the
   * view's zone at that owner is checked by the zone's rules (a CNAME beside base data is CNAME_CONFLICT), the view's
   * serial of the zone steps in the same transaction, and a signed zone's view is signed again for it.
   * A write that changes nothing writes nothing (docs/views.md): the same overlay set again, or a clear of an
   * overlay that is not there, answers the view's serial as it is, with no event, NOTIFY or transfer.
   */
  async setOverlay(ctx: RequestContext, input: OverlayInput): Promise<{ serial: number }> {
    requireAdmin(ctx.principal);
    const zoneName = normaliseZoneName(input.zone);
    const owner = parseOwner(input.owner, zoneName);
    if (!owner.ok) throw errorFromProblems(owner.problems);
    const type = String(input.type ?? '')
      .trim()
      .toUpperCase();
    if (NOT_OVERLAID.has(type)) throw DomainError.invalid('type', `type: a view cannot change or hide the zone's ${type}`);
    if (type === 'NS' && owner.name === '@' && input.action !== undefined)
      throw DomainError.invalid('type', "type: the apex NS set is the zone's in every view (the parent sees one zone)");
    const records = this.overlayRecords(zoneName, owner.name, type, input, allowedTtlsOf(ctx, this.settings));
    return this.engine.writeZone(ctx.db, this.settings, ctx.principal, {
      kind: 'view-overlay',
      zone: { name: zoneName },
      write: async (sql, views) => {
        const zone = await lockZoneForOverlay(sql, zoneName);
        if (!zone) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
        if (zone.kind !== 'primary')
          throw DomainError.invalid('zone', `zone: ${zone.name} is a secondary zone here; its data is its primary's`);
        // the signer's records are its own in every view's zone of a signed zone, as in the base (RFC 4035 §2)
        if (zone.dnssec && SIGNER_OWNED_TYPES.has(type)) {
          const message = `type: the signer keeps ${type} records in a signed zone, in every view`;
          throw new DomainError('DNSSEC_RECORD_MANAGED', message, [{ field: 'type', code: 'DNSSEC_RECORD_MANAGED', message }]);
        }
        const view = await viewByName(sql, input.view);
        if (!view) throw DomainError.notFound('VIEW_NOT_FOUND', 'view');
        if (view.steeringNetworks !== null) throw viewSteered('view', view);
        const atOwner = await overlaysAt(sql, zone.id, [owner.name], view.id);
        if (
          overlayUnchanged(
            atOwner.find((o) => o.type === type),
            input.action,
            records,
          )
        )
          return { serial: (await viewSerial(sql, zone.id, view.id)) ?? zone.serial };
        // the view's zone at that owner as it would be: the base's records under the view's overlays, this one set
        const others = atOwner.filter((o) => o.type !== type);
        const next = input.action ? [{ viewId: view.id, owner: owner.name, type, action: input.action, records }] : [];
        const viewRecords = applyOverlay(await baseRecordsAt(sql, zone.id, [owner.name]), [...others, ...next]);
        const problems = checkOwnerData(zone.name, viewRecords);
        if (problems.length) throw errorFromProblems(problems);
        const serial = await writeOverlay(sql, {
          domainId: zone.id,
          viewId: view.id,
          view: view.name,
          owner: owner.name,
          type,
          action: input.action,
          records,
          author: changeAuthor(ctx.principal),
        });
        // a signed zone's view is signed again for its new serial, in this transaction (docs/views.md, «DNSSEC»)
        if (zone.dnssec) await views.sign(zone, zone.dnssec, [{ viewId: view.id, serial }]);
        return { serial };
      },
    });
  }

  /**
   * The configuration of a secondary of the view for `software` (docs/views.md, «Configuring BIND», «Knot DNS,
   * NSD and PowerDNS»): the view's key, the primary reached with it, the view's catalog zone, the limits sized for
   * the zones it holds (the default set's, whose catalog the view serves: BIND holds them once per view, the others
   * once per instance). BIND holds every view in one server; Knot, NSD and PowerDNS run one instance per view. The
   * key's secret is not printed: it was shown once, when the key was made.
   */
  async secondaryConfig(ctx: RequestContext, viewName: string, primary: string, software: SecondarySoftware = 'bind'): Promise<string> {
    if (!SECONDARY_SOFTWARE.includes(software))
      throw DomainError.invalid('software', `software: one of ${SECONDARY_SOFTWARE.join(', ')} (got ${JSON.stringify(software)})`);
    const view = await this.get(ctx, viewName);
    const at = parseServerAddress(primary);
    if (!at) throw DomainError.invalid('primary', `primary: ${JSON.stringify(primary)} is not an address or address:port`);
    const zones = (await nameserverSetById(ctx.db, DEFAULT_SET_ID, true))?.zoneCount ?? 0;
    const views = software === 'bind' ? (await listViews(ctx.db)).length : 1;
    const config = secondaryConfig(software, {
      name: view.name,
      view: { networks: view.networks },
      key: { name: view.tsigKeyName, algorithm: view.tsigKeyAlgorithm },
      catalog: this.settings.catalogZone,
      host: at.host,
      port: at.port,
      sizing: secondarySizing(zones * views),
    });
    // the secondary sends its answers to the query analytics' collector where one listens
    return withDnstap(software, config, this.settings.analytics.dnstapListen);
  }

  /** a BIND `view` block for a secondary of the view */
  bindConfig(ctx: RequestContext, viewName: string, primary: string): Promise<string> {
    return this.secondaryConfig(ctx, viewName, primary, 'bind');
  }

  /** a replace's records read as the record API reads them (canonical RDATA, the request's TTLs), one TTL for the set */
  private overlayRecords(
    zone: string,
    owner: string,
    type: string,
    input: OverlayInput,
    allowedTtls: AllowedTtls,
  ): { ttl: number; rdata: string }[] {
    if (input.action !== 'replace') return [];
    const given = input.records ?? [];
    if (!given.length) throw DomainError.invalid('records', 'records: a replace holds one record at least (hide takes none)');
    const parsed = given.map((r, i) => {
      const result = parseApiRecord(zone, { owner: owner === '@' ? '@' : owner, type, rdata: r.rdata, ttl: r.ttl ?? 3600 }, allowedTtls);
      if (!result.ok)
        throw errorFromProblems(
          result.problems.map((p) => ({ ...p, field: `records[${i}].${p.field}` })),
          type,
        );
      return { ttl: result.record.ttl, rdata: result.record.rdata };
    });
    const ttl = parsed[0].ttl;
    const unique = [...new Map(parsed.map((r) => [r.rdata, { ttl, rdata: r.rdata }])).values()];
    return unique;
  }

  private fields(input: ViewInput): ViewFields {
    const name = String(input.name ?? '').trim();
    if (!VIEW_NAME.test(name)) throw DomainError.invalid('name', 'name: 1 to 63 of a-z, 0-9, - and _, starting with a letter or digit');
    const networks = (input.networks ?? []).map((n, i) => {
      const cidr = parseCidr(n.trim());
      if (!cidr) throw DomainError.invalid(`networks[${i}]`, `networks[${i}]: ${JSON.stringify(n)} is not an address or a CIDR network`);
      return `${cidr.address}/${cidr.prefix}`;
    });
    const precedence = input.precedence ?? 0;
    if (!Number.isInteger(precedence) || precedence < 0 || precedence > 1_000_000)
      throw DomainError.invalid('precedence', 'precedence: a whole number from 0 to 1000000 (lower first)');
    if (input.tsigKeyId === undefined) throw DomainError.invalid('tsigKeyId', "tsigKeyId: a view needs a TSIG key of the operator's");
    const notify = (input.notify ?? []).map((n, i) => {
      const target = n.trim();
      if (!NOTIFY_TARGET.test(target))
        throw DomainError.invalid(`notify[${i}]`, `notify[${i}]: ${JSON.stringify(n)} is not an address (with a port)`);
      return target;
    });
    return { name, networks, precedence, tsigKeyId: input.tsigKeyId, notify };
  }

  private async refuseTaken(sql: Parameters<typeof listViews>[0], fields: ViewFields, id?: number): Promise<void> {
    if (!(await isOperatorTsigKey(sql, fields.tsigKeyId)))
      throw DomainError.invalid(
        'tsigKeyId',
        "tsigKeyId: no active TSIG key of the operator's (no user) with that id: a view's transfers read every zone",
      );
    const taken = (await listViews(sql)).find((v) => v.id !== id && (v.name === fields.name || v.tsigKeyId === fields.tsigKeyId));
    if (taken) {
      const field = taken.name === fields.name ? 'name' : 'tsigKeyId';
      const message = field === 'name' ? `name: a view ${fields.name} exists` : `tsigKeyId: the key is view ${taken.name}'s already`;
      throw new DomainError('VIEW_EXISTS', message, [{ field, code: 'VIEW_EXISTS', message }]);
    }
  }
}
