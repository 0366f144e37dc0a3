import net from 'node:net';
import { requireAdmin } from '../../auth/principal';
import { hostPortName, isHostName, parseHostPort, parseServerAddress, Settings } from '../../config/settings';
import { DomainError } from '../../errors/catalogue';
import {
  DEFAULT_SET_ID,
  deleteNameserverSet,
  insertNameserverSet,
  listNameserverSets,
  lockNameserverSet,
  nameserverSetById,
  nameserverSetByName,
  reconcileSetStatusRows,
  updateNameserverSet,
  zoneSetState,
} from '../../repositories/nameserver-sets';
import type { RequestContext } from '../context';
import { inTransaction } from '../db-errors';
import { recordAuditEvent } from '../audit-log';
import type { DomainsService } from '../zones/domains.service';
import type { ZoneChangesService } from '../zones/zone-changes.service';
import { DEFAULT_SET_NAME, effectiveSet, NameserverSetView } from '../zones/nameserver-set-view';
import type { WriteEngine } from '../write-engine';
import { SECONDARY_SOFTWARE, SecondarySoftware, secondaryConfig } from './secondary-config';
import { secondarySizing } from './secondary-sizing';
import { withDnstap } from './dnstap-config';
import { followNs, nsNamesChanged, walkNsFollow } from './nameserver-set-ns-follow';
import type { Database } from '../../db/pool';
import { insertNsFollow, nsFollowOf, NsFollowRow } from '../../repositories/nameserver-set-ns-follows';

/** more would be a fleet for its own install; RFC 1996 NOTIFYs go to each, per change */
const MAX_SET_SECONDARIES = 50;
/** a referral with more NS than this hardly fits a 512-octet answer (RFC 1035 §4.2.1) */
const MAX_NS_NAMES = 13;
const SET_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export interface NameserverSetInput {
  name: string;
  /** `address:port` or an address (port 53) */
  secondaries: string[];
  nsNames: string[];
  catalogZone: string;
}

/** a set's change: its secondaries, its NS names, and whether its zones follow the new names */
export interface NameserverSetUpdate {
  secondaries: string[];
  nsNames: string[];
  /** the zones whose apex NS are exactly the set's names before the change take the new ones (the worker) */
  zonesFollow?: boolean | null;
}

/** a set's zones following its new NS names, as far as they have come (the worker: nameserver-set-ns-follow.ts) */
export type NsFollowView = NsFollowRow & { zonesLeft: number };

/**
 * Nameserver sets: named fleets of secondaries, each with its NS names and its own catalog zone (RFC 9432);
 * a zone is in one. The admin manages them and chooses a zone's set (at creation or by a move); a zone's
 * readers see which set serves it.
 */
export class NameserverSetsService {
  constructor(
    private readonly settings: Settings,
    private readonly domains: DomainsService,
    private readonly zoneChanges: ZoneChangesService,
    /** the write engine every change of a zone goes through (services/index.ts) */
    private readonly engine: WriteEngine,
  ) {}

  async list(ctx: RequestContext): Promise<NameserverSetView[]> {
    requireAdmin(ctx.principal);
    return (await listNameserverSets(ctx.db, true)).map((row) => effectiveSet(row, this.settings));
  }

  async get(ctx: RequestContext, name: string): Promise<NameserverSetView> {
    requireAdmin(ctx.principal);
    return this.byName(ctx, name);
  }

  /**
   * The configuration of a secondary of the set for `software` (docs/scale.md, «Every secondary in step»): the
   * set's catalog from the primary as the secondary reaches it (`primary`: address or address:port), TSIG_KEY's
   * name when it is set (its secret is the operator's, never printed), and the limits sized for the set's zones,
   * each with its reason (secondary-sizing.ts).
   */
  async secondaryConfig(ctx: RequestContext, name: string, primary: string, software: SecondarySoftware = 'bind'): Promise<string> {
    if (!SECONDARY_SOFTWARE.includes(software))
      throw DomainError.invalid('software', `software: one of ${SECONDARY_SOFTWARE.join(', ')} (got ${JSON.stringify(software)})`);
    const set = await this.get(ctx, name);
    const at = parseServerAddress(primary);
    if (!at) throw DomainError.invalid('primary', `primary: ${JSON.stringify(primary)} is not an address or address:port`);
    const key = this.settings.tsigKey;
    const config = secondaryConfig(software, {
      name: set.name,
      key: key ? { name: key.name, algorithm: key.algorithm } : undefined,
      catalog: set.catalogZone.replace(/\.$/, ''),
      host: at.host,
      port: at.port,
      sizing: secondarySizing(set.zoneCount),
    });
    // the secondary sends its answers to the query analytics' collector where one listens
    return withDnstap(software, config, this.settings.analytics.dnstapListen);
  }

  /** the set a zone is in (whoever may read the zone) */
  async ofZone(ctx: RequestContext, zone: { id: number }): Promise<NameserverSetView> {
    const state = await zoneSetState(ctx.db, zone.id);
    const row = await nameserverSetById(ctx.db, state?.setId ?? DEFAULT_SET_ID);
    return effectiveSet(row!, this.settings);
  }

  async create(ctx: RequestContext, input: NameserverSetInput): Promise<NameserverSetView> {
    requireAdmin(ctx.principal);
    const name = String(input.name ?? '')
      .trim()
      .toLowerCase();
    if (!SET_NAME.test(name))
      throw DomainError.invalid('name', 'name: a nameserver set is named by lower-case letters, digits and inner hyphens (63 at most)');
    if (name === DEFAULT_SET_NAME)
      throw new DomainError('NAMESERVER_SET_FROM_SETTINGS', 'The default nameserver set comes from the settings', [
        { field: 'name', code: 'NAMESERVER_SET_FROM_SETTINGS', message: 'name: "default" is the settings\' set' },
      ]);
    const catalogZone = String(input.catalogZone ?? '')
      .trim()
      .toLowerCase()
      .replace(/\.$/, '');
    if (!isHostName(`${catalogZone}.`))
      throw DomainError.invalid('catalogZone', `catalogZone: ${JSON.stringify(input.catalogZone)} is not a domain name`);
    if (catalogZone === this.settings.catalogZone)
      throw new DomainError('DUPLICATE_NAMESERVER_SET', undefined, [
        {
          field: 'catalogZone',
          code: 'DUPLICATE_NAMESERVER_SET',
          message: "catalogZone: that is the default set's catalog (CATALOG_ZONE)",
        },
      ]);
    const fields = this.checked(input);
    const row = await inTransaction(ctx.db, async (sql) => {
      const created = await insertNameserverSet(sql, { name, catalogZone, ...fields });
      await recordAuditEvent(sql, {
        kind: 'nameserver-set-created',
        actor: ctx.principal,
        subject: `nameserver-set:${name}`,
        detail: { catalogZone, ...fields },
      });
      return created;
    });
    return effectiveSet(row, this.settings);
  }

  /**
   * Replaces a set's secondaries and NS names; its zones' status rows follow its secondaries at once. With
   * `zonesFollow`, the zones whose apex NS are exactly the set's names before the change take the new ones, in the
   * background (the worker, nameserver-set-ns-follow.ts; `nsFollow` says how far): one follow at a time per set
   * (NS_FOLLOW_IN_PROGRESS), so that every zone follows from names it can be told to have had.
   */
  async update(ctx: RequestContext, name: string, input: NameserverSetUpdate): Promise<NameserverSetView> {
    const set = await this.get(ctx, name);
    if (set.isDefault) throw this.fromSettings();
    const fields = this.checked(input);
    let follow = false;
    const row = await inTransaction(ctx.db, async (sql) => {
      // the names replaced are those of the row as locked: another change of the set waits for this one
      const locked = await lockNameserverSet(sql, set.id);
      if (!locked) return undefined; // deleted meanwhile
      const before = locked.nsNames ?? [];
      follow = Boolean(input.zonesFollow) && nsNamesChanged(before, fields.nsNames);
      if (follow) {
        const started = await insertNsFollow(sql, {
          setId: set.id,
          fromNames: before,
          toNames: fields.nsNames,
          actor: ctx.principal.keyName ?? `key ${ctx.principal.keyId}`,
        });
        if (!started)
          throw new DomainError('NS_FOLLOW_IN_PROGRESS', undefined, [
            {
              field: 'input.zonesFollow',
              code: 'NS_FOLLOW_IN_PROGRESS',
              message: `input.zonesFollow: the zones of nameserver set ${set.name} still follow its last change of NS names (nsFollow); change them again once that ends`,
            },
          ]);
      }
      const updated = await updateNameserverSet(sql, set.id, fields);
      if (updated) {
        await reconcileSetStatusRows(sql, set.id, fields.secondaries);
        await recordAuditEvent(sql, {
          kind: 'nameserver-set-changed',
          actor: ctx.principal,
          subject: `nameserver-set:${set.name}`,
          detail: { ...fields, zonesFollow: follow },
        });
      }
      return updated;
    });
    if (!row) throw DomainError.notFound('NAMESERVER_SET_NOT_FOUND', 'name');
    return this.byName(ctx, row.name);
  }

  /** deletes a set no zone is in (nor still leaves) */
  async delete(ctx: RequestContext, name: string): Promise<boolean> {
    const set = await this.get(ctx, name);
    if (set.isDefault) throw this.fromSettings();
    const outcome = await inTransaction(ctx.db, async (sql) => {
      const deleted = await deleteNameserverSet(sql, set.id);
      if (deleted === 'deleted')
        await recordAuditEvent(sql, { kind: 'nameserver-set-deleted', actor: ctx.principal, subject: `nameserver-set:${set.name}` });
      return deleted;
    });
    if (outcome === 'in-use')
      throw new DomainError('NAMESERVER_SET_IN_USE', undefined, [
        { field: 'name', code: 'NAMESERVER_SET_IN_USE', message: `name: nameserver set ${set.name} has zones` },
      ]);
    if (outcome === 'missing') throw DomainError.notFound('NAMESERVER_SET_NOT_FOUND', 'name');
    return true;
  }

  /**
   * Moves a zone to another set (docs/transfers.md, «Nameserver sets»): it joins the new set's catalog at once
   * and leaves the old one's once the new set's secondaries serve it (the worker). Its apex NS records become
   * the new set's NS names when they were exactly the old set's (one change set: serial, journal, NOTIFY);
   * otherwise they stay, with a warning (NS_KEPT_ON_MOVE).
   */
  async moveZone(ctx: RequestContext, zoneName: string, setName: string): Promise<NameserverSetView> {
    requireAdmin(ctx.principal);
    const zone = await this.domains.get(ctx, { name: zoneName });
    const target = await this.byName(ctx, setName.trim().toLowerCase(), 'nameserverSet');
    const state = await zoneSetState(ctx.db, zone.id);
    if (!state) throw DomainError.notFound('ZONE_NOT_FOUND', 'zone');
    if (state.setId === target.id) return target;
    if (state.leaving !== null) throw new DomainError('ZONE_MOVE_IN_PROGRESS');
    const source = effectiveSet((await nameserverSetById(ctx.db, state.setId))!, this.settings);
    const moved = await inTransaction(ctx.db, async (sql) => {
      const done = await this.engine.moveToSet(sql, this.settings, {
        domainId: zone.id,
        name: zone.name,
        from: source.id,
        to: target.id,
        servers: target.secondaries,
      });
      if (done)
        await recordAuditEvent(sql, {
          kind: 'zone-moved-to-nameserver-set',
          actor: ctx.principal,
          subject: `zone:${zone.name}`,
          detail: { from: source.name, to: target.name },
        });
      return done;
    });
    if (!moved) throw new DomainError('ZONE_MOVE_IN_PROGRESS', 'The zone changed nameserver set meanwhile; read it again');
    // a secondary zone's NS are its primary's, taken by transfer (docs/transfers.md)
    if (zone.kind !== 'secondary') await this.followNs(ctx, zone.name, source, target);
    return target;
  }

  /** the zone's apex NS become the new set's names if they were the old set's, as one change set */
  private async followNs(ctx: RequestContext, zone: string, from: NameserverSetView, to: NameserverSetView): Promise<void> {
    if ((await followNs(this.zoneChanges, ctx, zone, from.nsNames, to.nsNames)) === 'kept')
      ctx.warnings?.push({
        field: 'zone',
        code: 'NS_KEPT_ON_MOVE',
        message: `zone: the apex NS records of ${zone} were not nameserver set ${from.name}'s NS names, so they were kept; set them to ${to.nsNames.join(', ')} if they should follow`,
      });
  }

  /** the worker's walk of one follow of a set's NS names by its zones (nameserver-set-ns-follow.ts); false: none to walk */
  walkNsFollow(db: Database, signal: AbortSignal): Promise<boolean> {
    return walkNsFollow(this.zoneChanges, db, signal);
  }

  /** the set's zones following its last change of NS names, as far as they have come; undefined when none follow */
  async nsFollow(ctx: RequestContext, set: { id: number }): Promise<NsFollowView | undefined> {
    requireAdmin(ctx.principal);
    return nsFollowOf(ctx.db, set.id);
  }

  private async byName(ctx: RequestContext, name: string, field = 'name'): Promise<NameserverSetView> {
    const row = await nameserverSetByName(ctx.db, name, true);
    if (!row) throw DomainError.notFound('NAMESERVER_SET_NOT_FOUND', field);
    return effectiveSet(row, this.settings);
  }

  private fromSettings(): DomainError {
    return new DomainError('NAMESERVER_SET_FROM_SETTINGS', undefined, [
      {
        field: 'name',
        code: 'NAMESERVER_SET_FROM_SETTINGS',
        message: 'name: the default set is SECONDARIES, DEFAULT_NS and CATALOG_ZONE; change the settings',
      },
    ]);
  }

  /** the secondaries (each `address[:port]`, once) and NS names (host names, made absolute), checked */
  private checked(input: { secondaries: string[]; nsNames: string[] }): { secondaries: string[]; nsNames: string[] } {
    if (input.secondaries.length > MAX_SET_SECONDARIES)
      throw DomainError.invalid('secondaries', `secondaries: at most ${MAX_SET_SECONDARIES}`, 'TOO_MANY_SECONDARIES');
    const secondaries: string[] = [];
    for (const [i, raw] of input.secondaries.entries()) {
      const item = String(raw).trim();
      const server = net.isIP(item.replace(/^\[|\]$/g, '')) ? { host: item.replace(/^\[|\]$/g, ''), port: 53 } : parseHostPort(item);
      if (!server || !net.isIP(server.host))
        throw DomainError.invalid(`secondaries[${i}]`, `secondaries[${i}]: ${JSON.stringify(raw)} is not address:port`, 'INVALID_ADDRESS');
      const name = hostPortName(server);
      if (secondaries.includes(name))
        throw DomainError.invalid(`secondaries[${i}]`, `secondaries[${i}]: ${name} is given twice`, 'DUPLICATE_SERVER');
      secondaries.push(name);
    }
    if (!input.nsNames.length || input.nsNames.length > MAX_NS_NAMES)
      throw DomainError.invalid('nsNames', `nsNames: 1 to ${MAX_NS_NAMES} names`, 'INVALID_NS_NAMES');
    const nsNames: string[] = [];
    for (const [i, raw] of input.nsNames.entries()) {
      const name = String(raw).trim().toLowerCase();
      const absolute = name.endsWith('.') ? name : `${name}.`;
      if (!isHostName(absolute)) throw DomainError.invalid(`nsNames[${i}]`, `nsNames[${i}]: ${JSON.stringify(raw)} is not a host name`);
      if (!nsNames.includes(absolute)) nsNames.push(absolute);
    }
    return { secondaries, nsNames };
  }
}
