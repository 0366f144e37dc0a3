/**
 * Signatures are refreshed before they expire (RFC 6781 §4.4.2): a zone whose earliest RRSIG expires within
 * DNSSEC_SIGNATURE_REFRESH is re-signed, the due RRsets only, in bounded batches, each batch one step of the
 * signer (`zone-signed`) through the write engine, so secondaries take the new signatures by IXFR. The zone's
 * next due time is then its earliest remaining expiration less the margin; the jitter of each signature's
 * validity (`signatureWindow`) spreads the zones and their RRsets over time, so 100,000 zones signed the same
 * day do not fall due in the same minute.
 */
import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { canonicalRdata } from '../../dns/dnssec/canonical-rdata';
import { coveredTypeOf } from '../../dns/dnssec/signer-records';
import { signatures } from '../../dns/dnssec/zone-signer';
import { typeMnemonic, getServedRecordType } from '../../dns/record-types';
import {
  earliestExpiration,
  keysOfZone,
  leaseZonesDueForRefresh,
  rrsetAt,
  setRefreshDue,
  signaturesExpiringBefore,
  signerRecordsAt,
} from '../../repositories/dnssec';
import type { DnssecWriter } from './dnssec-writer';
import { SIGNER, SIGNER_STEP } from './signer-principal';
import { signatureWindow, signerRemovals, signerRows } from './zone-signing';
import { zoneKeysOf } from './zone-keys';

/** the most signatures re-made in one step: one step stays a small IXFR and a short transaction */
const REFRESH_BATCH = 2000;
/** a zone being refreshed is leased this long; a worker that dies leaves it to another after that */
const LEASE_SECONDS = 300;

/** Refreshes the zones that are due (at most `limit`); answers how many signatures were re-made. */
export async function refreshDueZones(writer: DnssecWriter, db: Database, settings: Settings, limit = 20): Promise<number> {
  let remade = 0;
  for (const zoneId of await leaseZonesDueForRefresh(db, limit, LEASE_SECONDS)) remade += await refreshZone(writer, db, settings, zoneId);
  return remade;
}

/** Re-signs a zone's RRsets whose signatures expire within the refresh margin, batch by batch. */
export async function refreshZone(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  zoneId: number,
  now = Date.now(),
): Promise<number> {
  const horizon = new Date(now + settings.dnssecSignatureRefresh * 1000);
  let remade = 0;
  for (;;) {
    const done = await writer.engine.changeZone(
      db,
      settings,
      SIGNER,
      { zone: { id: zoneId }, owner: '@', writer: SIGNER_STEP },
      async (change) => {
        if (!change.zone.dnssec) return { remade: 0, more: false };
        const sql = change.connection;
        const zone = change.zone.name;
        const due = await signaturesExpiringBefore(sql, zoneId, horizon, REFRESH_BATCH);
        // the RRsets behind the due signatures; the SOA's is re-made by the signing step (its serial moves)
        const rrsets = new Map<string, { owner: string; type: string }>();
        for (const rrsig of due) {
          const covered = coveredTypeOf(zone, rrsig);
          if (covered === undefined) continue;
          const type = typeMnemonic(covered);
          if (!(rrsig.owner === '@' && type === 'SOA')) rrsets.set(`${rrsig.owner}\u0000${type}`, { owner: rrsig.owner, type });
        }
        const keys = zoneKeysOf(zone, await keysOfZone(sql, zoneId), writer.keys.vault());
        const window = signatureWindow(settings, now);
        const removed = [];
        const added = [];
        for (const { owner, type } of rrsets.values()) {
          const records = await rrsetAt(sql, zoneId, owner, type);
          const code = getServedRecordType(type)?.code;
          removed.push(...(await signerRecordsAt(sql, zoneId, owner)).filter((r) => r.type === 'RRSIG' && coveredTypeOf(zone, r) === code));
          if (!records.length || code === undefined) continue;
          added.push(...signatures(zone, { owner, type, code, ttl: records[0].ttl, records }, keys, window, canonicalRdata));
        }
        change.stageSigner(signerRemovals(removed), signerRows(zone, added));
        await change.commit();
        return { remade: added.length, more: due.length === REFRESH_BATCH };
      },
    );
    remade += done.remade;
    if (!done.more) break;
  }
  const earliest = await earliestExpiration(db, zoneId);
  if (earliest) await setRefreshDue(db, zoneId, new Date(earliest.getTime() - settings.dnssecSignatureRefresh * 1000));
  return remade;
}
