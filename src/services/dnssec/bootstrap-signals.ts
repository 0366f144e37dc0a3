/**
 * Authenticated DNSSEC bootstrapping (RFC 9615), the child operator's side: for each signed zone Z here whose
 * apex NS names a nameserver N in a zone S that Zonekeeper hosts and signs, the signer publishes in S, at
 * `_dsboot.<Z>._signal.<N>`, a copy of Z's CDS and CDNSKEY RRsets (§4.1), signed with S's keys (§3.2). A parent that follows RFC 9615
 * validates them through S's chain of trust and takes Z's first DS with no person between.
 *
 * Kept in step with Z (§4.1: identical to the RRsets at the child's apex; §4.2 has the parent abort otherwise): written through the write engine
 * as a change of S by the signer (the `bootstrap` writer, write-engine/writers.ts), which signs it in S's serial step; rewritten when Z's
 * keys step (key-rollover.ts, dnssec.service.ts), and removed when Z stops publishing CDS/CDNSKEY (a double-DS
 * roll's middle steps: no CDS can say the DS wanted then), starts going unsigned (its CDS asks for deletion,
 * which is no bootstrap), is unsigned or deleted, or no longer names N. A sweep by the worker reconciles every
 * signal at DNSSEC_BOOTSTRAP_SWEEP_INTERVAL: it catches what no key step tells (Z's NS edited, S signed later,
 * Z deleted).
 *
 * Not published: for N inside Z itself (in-domain, §4.1), for N in another account's zone unless N is one of
 * the service's own nameserver names (DEFAULT_NS, the nameserver sets: RFC 9615 §5, consent), for N in a zone
 * not hosted here or not signed (S unsigned, or being unsigned: the signal would not validate), and when the
 * signalling name would be over 255 octets (§4.4), which is logged: the operator learns why that zone cannot be
 * bootstrapped through N.
 */
import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import type { JournalRecord } from '../../entities/change.entity';
import { nameserverInChild, signalingName, SIGNAL_TYPES } from '../../dns/dnssec/bootstrap-signal';
import { isAtOrBelow, ownerOf } from '../../dns/name';
import { CDS_DELETE } from '../../dns/record-types/cds';
import { logger } from '../../logger';
import { nameserverSetNames, publishedSignals, signalSources, SignalSource, zonesByName } from '../../repositories/dnssec-signals';
import type { DnssecWriter } from './dnssec-writer';
import { SIGNER } from './signer-principal';
import { CDNSKEY_DELETE } from './zone-keys';

/** one signalling zone's wanted records, by owner */
interface SignalZone {
  id: number;
  name: string;
  records: JournalRecord[];
}

/** why a nameserver of a signed zone carries no signal (the sweep logs these; the docs list them) */
export type SignalSkip = 'in-domain' | 'not-hosted' | 'unsigned' | 'other-account' | 'name-too-long';

export interface SignalPlan {
  /** per signalling zone id: the records it should hold for these children */
  zones: Map<number, SignalZone>;
  skipped: { child: string; nameserver: string; why: SignalSkip }[];
}

/**
 * What the signalling zones should hold for `sources` (pure, given the zones that hold the nameserver names):
 * each child's CDS/CDNSKEY at `_dsboot.<child>._signal.<ns>` in the zone holding `ns`, the child signed and
 * publishing a CDS that is not the DS-delete one (RFC 8078 §4).
 */
export function planSignals(
  sources: readonly SignalSource[],
  hosting: readonly { id: number; name: string; userId: number; signed: boolean }[],
  serviceNameservers: ReadonlySet<string>,
): SignalPlan {
  const zones = new Map<number, SignalZone>();
  const skipped: SignalPlan['skipped'] = [];
  // the zone that holds a name: the longest hosted suffix (a zone delegated below another holds its own names)
  const holder = (name: string) => hosting.filter((zone) => isAtOrBelow(name, zone.name)).sort((a, b) => b.name.length - a.name.length)[0];
  for (const child of sources) {
    const copies = child.cds.filter((r) => SIGNAL_TYPES.has(r.type) && r.rdata !== CDS_DELETE && r.rdata !== CDNSKEY_DELETE);
    if (child.state !== 'signed' || !copies.length) continue;
    for (const nameserver of new Set(child.nameservers.map(bare))) {
      const skip = (why: SignalSkip) => skipped.push({ child: child.name, nameserver, why });
      if (nameserverInChild(child.name, nameserver)) {
        skip('in-domain');
        continue;
      }
      const zone = holder(nameserver);
      if (!zone) {
        skip('not-hosted');
        continue;
      }
      if (!zone.signed) {
        skip('unsigned');
        continue;
      }
      // a signal vouches for the child's keys (RFC 9615 §5: not without consent): the service's own nameservers
      // (DEFAULT_NS, the nameserver sets) vouch as the DNS operator of every zone here; another nameserver only
      // for the zones of the account that holds it, never into another account's zone
      if (!serviceNameservers.has(nameserver) && zone.userId !== child.userId) {
        skip('other-account');
        continue;
      }
      const name = signalingName(child.name, nameserver);
      if (!name) {
        skip('name-too-long');
        continue;
      }
      const owner = ownerOf(name, zone.name)!;
      let entry = zones.get(zone.id);
      if (!entry) zones.set(zone.id, (entry = { id: zone.id, name: zone.name, records: [] }));
      for (const copy of copies) entry.records.push({ owner, type: copy.type, ttl: copy.ttl, rdata: copy.rdata });
    }
  }
  return { zones, skipped };
}

const bare = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/** every suffix of a name that could be a zone holding it ("ns1.example.net" → itself, "example.net", "net") */
const suffixes = (name: string) => {
  const labels = bare(name).split('.');
  return labels.map((_, i) => labels.slice(i).join('.'));
};

/**
 * Brings the signalling records to what the signed zones publish: of `children` (zone ids; after a key step or
 * a change of signing), or of every zone (the sweep). Answers the number of signalling zones changed.
 */
export async function syncBootstrapSignals(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  children?: readonly { id: number; name: string }[],
): Promise<number> {
  const sources = await signalSources(
    db,
    children?.map((c) => c.id),
  );
  const names = new Set(sources.flatMap((s) => s.nameservers.flatMap(suffixes)));
  const serviceNameservers = new Set([...settings.defaultNs, ...(await nameserverSetNames(db))].map(bare));
  const plan = planSignals(sources, await zonesByName(db, [...names]), serviceNameservers);
  for (const skip of plan.skipped.filter((s) => s.why === 'name-too-long'))
    logger.warn(
      { zone: skip.child, nameserver: skip.nameserver },
      `dnssec: no RFC 9615 signal for ${skip.child} under ${skip.nameserver}: _dsboot.${skip.child}._signal.${skip.nameserver} would be over 255 octets (RFC 9615 §4.4)`,
    );
  // the zones holding signals now: those of these children (their names: a deleted zone's too), or all
  const published = await publishedSignals(
    db,
    children ? [...new Set([...children.map((c) => c.name), ...sources.map((s) => s.name)])] : undefined,
  );
  const owners = new Map<number, Set<string>>();
  for (const { domainId, owner } of published) (owners.get(domainId) ?? owners.set(domainId, new Set()).get(domainId)!).add(owner);
  for (const zone of plan.zones.values())
    for (const r of zone.records) (owners.get(zone.id) ?? owners.set(zone.id, new Set()).get(zone.id)!).add(r.owner);
  // RFC 9859: a parent elsewhere that publishes a DSYNC endpoint hears of each child's changed CDS (cds-notify.ts)
  if (children)
    for (const source of sources)
      if (source.state)
        writer.cdsNotifications.changed(
          db,
          settings,
          source,
          source.cds.map((r) => `${r.type} ${r.rdata}`),
        );
  let changed = 0;
  for (const [zoneId, touched] of owners) {
    try {
      if (await writeSignals(writer, db, settings, zoneId, [...touched], plan.zones.get(zoneId)?.records ?? [])) changed++;
    } catch (error) {
      // the next key step or sweep tries again
      logger.warn({ err: error, zoneId }, 'dnssec: writing the RFC 9615 signalling records failed; the next sweep tries again');
    }
  }
  return changed;
}

/** one signalling zone: its records at `owners` become `wanted` (the signer's change; none when they are already) */
async function writeSignals(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  zoneId: number,
  owners: string[],
  wanted: JournalRecord[],
): Promise<boolean> {
  return writer.engine.changeZone(
    db,
    settings,
    SIGNER,
    {
      zone: { id: zoneId },
      touching: { owners, recordIds: [] },
      writer: { kind: 'bootstrap', note: 'RFC 9615 signalling records (CDS/CDNSKEY of the zones served by its nameservers)' },
    },
    async (change) => {
      const at = new Set(owners);
      const current = change.zone.sameOwner.filter((r) => at.has(r.owner) && SIGNAL_TYPES.has(r.type));
      // a signalling zone no longer signed keeps none: they would not validate (RFC 9615 §4.1)
      const want = change.zone.dnssec?.state === 'signed' ? wanted : [];
      const key = (r: JournalRecord) => `${r.owner} ${r.type} ${r.ttl} ${r.rdata}`;
      const wantedKeys = new Set(want.map(key));
      const currentKeys = new Set(current.map(key));
      const stale = current.filter((r) => !wantedKeys.has(key(r)));
      const fresh = want.filter((r) => !currentKeys.has(key(r)));
      if (!stale.length && !fresh.length) return false;
      for (const row of stale) change.remove(row);
      for (const record of fresh) change.insert(record);
      await change.commit();
      return true;
    },
  );
}
