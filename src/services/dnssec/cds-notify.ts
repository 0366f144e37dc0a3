/**
 * NOTIFY(CDS) to a parent outside Zonekeeper (RFC 9859): when a signed zone's CDS/CDNSKEY change, the parent's
 * operator learns it at once instead of at its next scan. The parent says where it listens in a DSYNC record
 * (type 66): at `<child labels>._dsync.<parent>`, else `_dsync.<parent>` for all its children (§4.1), of type
 * CDS and scheme NOTIFY. Both are asked of DNSSEC_PARENT_DS_SERVERS (the parent's own servers, as for its DS:
 * parent-ds.ts), and so are the target's addresses; each address passes the outbound guard
 * (src/outbound/addresses.ts; DNSSEC_CDS_NOTIFY_ALLOW opens ranges) before the NOTIFY goes, through the dns-client.
 *
 * Nothing is sent for a parent held here (the service writes the DS itself: key-rollover.ts), nor without
 * DNSSEC_PARENT_DS_SERVERS. The outcome is logged; the zone's DS still waits for the parent as before (its
 * servers asked by the worker, or the operator's word), the `dnssec.ds_required` event being what says a person
 * may be needed.
 */
import type { Settings } from '../../config/settings';
import { hostPortName, type HostPort } from '../../config/settings';
import type { Database } from '../../db/pool';
import { ownerOf } from '../../dns/name';
import { A } from '../../dns/record-types/a';
import { AAAA } from '../../dns/record-types/aaaa';
import { DSYNC, DSYNC_SCHEME_NOTIFY } from '../../dns/record-types/dsync';
import { SOA } from '../../dns/record-types/soa';
import { authoritativeRecords, sendCdsNotify } from '../../dns-client/dns-client';
import { logger } from '../../logger';
import { parentZoneOf } from '../../repositories/dnssec';
import { mayConnect } from '../../outbound/addresses';

const CDS_CODE = 59;

export interface CdsNotifyOutcome {
  /** the DSYNC owner the endpoint came from */
  dsync?: string;
  target?: string;
  /** each address tried, and what came of it */
  sent: { server: string; ok: boolean; reason?: string }[];
  /** why nothing was sent */
  skipped?: string;
}

/**
 * the DSYNC names of a child under its parent zone (RFC 9859 §4.1): the child's own, then the parent's;
 * undefined when `parent` is not strictly above the child (the child's own apex is no parent)
 */
export function dsyncNames(child: string, parent: string): string[] | undefined {
  const relative = ownerOf(child, parent);
  if (relative === undefined || relative === '@') return undefined;
  return [`${relative}._dsync.${parent}`, `_dsync.${parent}`];
}

/** Looks up the parent's NOTIFY(CDS) endpoint of `zone` and notifies it (see the module's comment). */
export async function notifyParentOfCds(db: Database, settings: Settings, zone: { name: string }): Promise<CdsNotifyOutcome> {
  const servers = settings.dnssecParentDsServers;
  if (await parentZoneOf(db, zone.name)) return { sent: [], skipped: 'the parent zone is held here: its DS is written by the service' };
  if (!servers.length) return { sent: [], skipped: 'DNSSEC_PARENT_DS_SERVERS is empty: no parent server to ask for its DSYNC' };
  const [server] = servers;
  // the parent zone: the owner of the SOA its servers answer for the child's parent name (RFC 9859 §4.1)
  const above = zone.name.slice(zone.name.indexOf('.') + 1);
  const soa = await authoritativeRecords(server, above, SOA);
  if (!soa.ok || !soa.soaOwner) return { sent: [], skipped: `no parent zone found: ${soa.ok ? 'no SOA in the answer' : soa.reason}` };
  const parent = soa.soaOwner;
  const names = dsyncNames(zone.name, parent);
  if (!names) return { sent: [], skipped: `${parent} is not above ${zone.name}` };
  for (const name of names) {
    const found = await authoritativeRecords(server, name, DSYNC);
    if (!found.ok) return { sent: [], skipped: `DSYNC ${name}: ${found.reason}` };
    const endpoints = found.values.filter((v) => v.rrtype === CDS_CODE && v.scheme === DSYNC_SCHEME_NOTIFY);
    if (!endpoints.length) continue;
    const outcome: CdsNotifyOutcome = { dsync: name, sent: [] };
    for (const endpoint of endpoints) {
      outcome.target = endpoint.target;
      for (const address of await addressesOf(servers, endpoint.target)) {
        const target: HostPort = { host: address, port: endpoint.port };
        // the parent's DNS data names this address: the guard of what the service connects to on another's word
        const outbound = mayConnect(address, settings.dnssecCdsNotifyAllow);
        if (!outbound.ok) {
          outcome.sent.push({ server: hostPortName(target), ok: false, reason: `refused: ${outbound.reason} (DNSSEC_CDS_NOTIFY_ALLOW)` });
          continue;
        }
        const sent = await sendCdsNotify(target, zone.name);
        outcome.sent.push({ server: hostPortName(target), ...(sent.ok ? { ok: true } : { ok: false, reason: sent.reason }) });
      }
    }
    return outcome;
  }
  return { sent: [], skipped: `${parent} publishes no DSYNC for CDS with scheme NOTIFY` };
}

/** the target's addresses, as the parent's servers answer them (the endpoint is usually the parent operator's) */
async function addressesOf(servers: readonly HostPort[], target: string): Promise<string[]> {
  for (const server of servers) {
    const [a, aaaa] = await Promise.all([authoritativeRecords(server, target, A), authoritativeRecords(server, target, AAAA)]);
    const values = [...(a.ok ? a.values.map((v) => A.format(v)) : []), ...(aaaa.ok ? aaaa.values.map((v) => AAAA.format(v)) : [])];
    if (values.length) return values;
  }
  return [];
}

/**
 * After a zone's CDS/CDNSKEY may have changed (a key step, enabling, disabling): its parent's endpoint is
 * notified when the RRsets differ from those last notified by this process, in the background (the change
 * that caused it has committed; a failure is logged, and the worker's checks of the parent go on regardless).
 * One per process, made with the services (dnssec-writer.ts): another process notifies its own changes.
 */
export class CdsNotifications {
  /** the CDS/CDNSKEY last notified per zone id */
  private readonly lastNotified = new Map<number, string>();

  changed(db: Database, settings: Settings, zone: { id: number; name: string }, cds: readonly string[]): void {
    const text = [...cds].sort().join('\n');
    if (this.lastNotified.get(zone.id) === text) return;
    this.lastNotified.set(zone.id, text);
    if (this.lastNotified.size > 100_000) this.lastNotified.clear();
    void notifyParentOfCds(db, settings, zone)
      .then((outcome) => {
        if (outcome.skipped) logger.debug({ zone: zone.name, reason: outcome.skipped }, `dnssec: no NOTIFY(CDS) for ${zone.name}`);
        else
          logger.info(
            { zone: zone.name, dsync: outcome.dsync, target: outcome.target, sent: outcome.sent },
            `dnssec: NOTIFY(CDS) for ${zone.name} to ${outcome.target} (${outcome.sent.filter((s) => s.ok).length} of ${outcome.sent.length} answered)`,
          );
      })
      .catch((error: unknown) => logger.warn({ err: error, zone: zone.name }, `dnssec: NOTIFY(CDS) for ${zone.name} failed`));
  }
}
