import type { Database } from '../../db/pool';
import { Principal, scopeUserId } from '../../auth/principal';
import { dataVersion } from '../../repositories/data-version';
import { normaliseZoneName } from '../../dns/zone-name';

/**
 * The version of everything `principal` can read (its user's data, or all of it for the admin), for
 * conditional GETs: an answer computed after this version was read is at least as new as the version, so
 * a client that holds the answer labelled with an unchanged version holds the current answer. With `zone`, the
 * read shows that zone only, and its version is the zone's (repositories/data-version.ts, zoneVersion).
 */
export function readVersion(db: Database, principal: Principal, withPropagation: boolean, zone?: string): Promise<string> {
  // a zone named by id (digits) or by name, as the REST paths name it
  const scopeZone = zone === undefined ? undefined : /^\d{1,15}$/.test(zone) ? { id: Number(zone) } : { name: zoneNameOrAsGiven(zone) };
  return dataVersion(db, { userId: scopeUserId(principal), withPropagation, zone: scopeZone });
}

/** a zone name as stored; one the model refuses is looked up as given (it matches no zone: the answer is a 4xx) */
function zoneNameOrAsGiven(zone: string): string {
  try {
    return normaliseZoneName(zone);
  } catch {
    return zone.toLowerCase();
  }
}
