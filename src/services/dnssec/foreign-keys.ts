/**
 * Multi-signer DNSSEC, RFC 8901 model 2 (§2.1.2): the zone is served by two providers, each signing with its
 * own KSK and ZSK. Each publishes the other's ZSK in its DNSKEY RRset, so that a resolver which cached the
 * DNSKEY RRset of one provider validates the signatures the other serves (§3); the parent holds the DS of
 * both KSKs, and the CDS/CDNSKEY name both (§8). That is how a signed zone moves between providers without an
 * insecure moment (docs/dnssec.md, «Moving a signed zone in / out»).
 *
 * The other signer's DNSKEYs are given by value or read from its server (a DNSKEY query to an address the
 * caller names, through the dns-client and the outbound-address guard, DNSSEC_FOREIGN_KEYS_FETCH_ALLOW). They
 * join our DNSKEY RRset (its KSKs too, so that our CDS/CDNSKEY may name them: RFC 9975 §3.1 wants every
 * CDNSKEY in the DNSKEY RRset) and are signed over by our KSK; they never sign here. Adding and removing one is
 * a key step of the signer through the write engine (the DNSKEY, CDS and CDNSKEY RRsets and their signatures
 * change in one serial step), with a `dnssec.foreign_keys_changed` event in the same transaction.
 *
 * Keys read from a server are read again every DNSSEC_FOREIGN_KEYS_REFRESH_INTERVAL seconds by the worker
 * (`refreshForeignKeys`), so that the other signer's key rolls are followed (RFC 8901 §5): a key it pre-publishes
 * joins our DNSKEY RRset before it signs, one it has taken out of its RRset leaves ours.
 */
import type { Principal } from '../../auth/principal';
import { parseServerAddress, type Settings } from '../../config/settings';
import type { Database, Sql } from '../../db/pool';
import { algorithmByNumber } from '../../dns/dnssec/algorithms';
import { DNSKEY_FLAG_SEP, DNSKEY_FLAG_ZONE, dnskeyTag } from '../../dns/dnssec/keys';
import { DNSKEY } from '../../dns/record-types/dnskey';
import { authoritativeRecords, serverName } from '../../dns-client/dns-client';
import { DomainError } from '../../errors/catalogue';
import type { Logger } from '../../logger';
import { dsWithdrawnOf, keysOfZone, parentZoneOf, scheduleDsCheck, setDsSeen, setDsWithdrawn } from '../../repositories/dnssec';
import {
  declinedForeignKeys,
  deleteForeignKey,
  ForeignDnskey,
  foreignKeysOfZone,
  forgetDeclinedForeignKeys,
  insertForeignKeys,
} from '../../repositories/dnssec-foreign-keys';
import { appendEvent } from '../../repositories/events';
import { mayConnect } from '../../outbound/addresses';
import type { ZoneChange } from '../write-engine';
import type { DnssecWriter } from './dnssec-writer';
import { syncBootstrapSignals } from './bootstrap-signals';
import { syncParentDs } from './key-rollover';
import { dsRecordsOf } from './zone-keys';
import { SIGNER, SIGNER_STEP } from './signer-principal';

/** the most foreign DNSKEYs a zone holds: two providers' KSK and ZSK, each with a roll under way, and room */
export const MAX_FOREIGN_KEYS = 8;

/** a foreign key as the API shows it */
export interface ForeignKeyInfo {
  id: number;
  /** KSK: flags 257 (Secure Entry Point); ZSK: 256 */
  role: 'KSK' | 'ZSK';
  keyTag: number;
  algorithm: string;
  dnskey: string;
  /** a KSK's DS for the parent (SHA-256), which our CDS names too; none for a ZSK */
  ds: string[];
  source: 'value' | 'fetched';
  fetchedFrom: string | null;
  createdAt: Date;
}

export function foreignKeyInfo(zone: string, key: ForeignDnskey): ForeignKeyInfo {
  const ksk = (key.flags & DNSKEY_FLAG_SEP) !== 0;
  return {
    id: key.id,
    role: ksk ? 'KSK' : 'ZSK',
    keyTag: key.keyTag,
    algorithm: algorithmByNumber(key.algorithm)?.name ?? String(key.algorithm),
    dnskey: key.dnskey,
    ds: ksk ? [dsRecordsOf(zone, key)[0]] : [],
    source: key.source,
    fetchedFrom: key.fetchedFrom,
    createdAt: key.createdAt,
  };
}

/** a foreign key before it is stored */
type NewForeignKey = Pick<ForeignDnskey, 'flags' | 'algorithm' | 'keyTag' | 'dnskey' | 'source' | 'fetchedFrom'>;

const invalid = (field: string, code: string, message: string) => new DomainError('INVALID_INPUT', message, [{ field, code, message }]);

/**
 * A DNSKEY as the other provider shows it: its RDATA (`257 3 13 base64…`) or a whole record in presentation
 * form (`example.com. 3600 IN DNSKEY 257 3 13 base64…`, as `dig`, `keymgr` or a provider's console print it);
 * a comment after `;` is dropped.
 */
export function parseForeignDnskey(zone: string, text: string, field: string): NewForeignKey {
  const plain = text.replace(/;.*$/s, '').trim();
  const at = plain.search(/(^|\s)DNSKEY\s/i);
  const rdata =
    at >= 0
      ? plain
          .slice(at)
          .trim()
          .replace(/^DNSKEY\s+/i, '')
      : plain;
  const parsed = DNSKEY.parse(rdata, zone);
  if (!parsed.ok) throw invalid(field, 'DNSSEC_FOREIGN_KEY_INVALID', `${field}: not a DNSKEY: ${parsed.problems[0]?.message ?? rdata}`);
  const value = parsed.value;
  // a zone key, with or without the Secure Entry Point bit; a revoked key (RFC 5011) or a non-zone key is not one
  if (value.flags !== DNSKEY_FLAG_ZONE && value.flags !== (DNSKEY_FLAG_ZONE | DNSKEY_FLAG_SEP))
    throw invalid(field, 'DNSSEC_FOREIGN_KEY_INVALID', `${field}: flags must be 256 (ZSK) or 257 (KSK), got ${value.flags}`);
  return {
    flags: value.flags,
    algorithm: value.algorithm,
    keyTag: dnskeyTag(value),
    dnskey: DNSKEY.format(value),
    source: 'value',
    fetchedFrom: null,
  };
}

/**
 * The other signer's DNSKEY RRset, asked of its server at `address` (an IP address, port 53 unless given),
 * with authority. The caller names the address: the outbound guard refuses loopback, private and the service's
 * own addresses unless DNSSEC_FOREIGN_KEYS_FETCH_ALLOW opens them.
 */
export async function fetchForeignDnskeys(settings: Settings, zone: string, address: string): Promise<NewForeignKey[]> {
  const server = parseServerAddress(address);
  if (!server)
    throw invalid(
      'fetchFrom',
      'INVALID_ADDRESS',
      'fetchFrom: an IP address, with a port if not 53 (192.0.2.1, 192.0.2.1:5300, [2001:db8::1]:53)',
    );
  const outbound = mayConnect(server.host, settings.dnssecForeignKeysFetchAllow);
  if (!outbound.ok) {
    const message = `fetchFrom: ${outbound.reason}; the DNSSEC_FOREIGN_KEYS_FETCH_ALLOW setting lets the operator allow it`;
    throw new DomainError('ADDRESS_NOT_ALLOWED', message, [{ field: 'fetchFrom', code: 'ADDRESS_NOT_ALLOWED', message }]);
  }
  // over TCP: what is read here goes into the zone's DNSKEY RRset and its KSKs into the CDS a parent may follow
  // (RFC 8078), so a UDP answer forged off the path must not be taken; the caller compares the key tags with
  // what the other provider shows (docs/dnssec.md)
  const found = await authoritativeRecords(server, zone, DNSKEY, 3000, { tcp: true });
  const unreadable = (why: string) => {
    const message = `fetchFrom: ${why}`;
    return new DomainError('DNSSEC_FOREIGN_KEYS_UNREADABLE', message, [
      { field: 'fetchFrom', code: 'DNSSEC_FOREIGN_KEYS_UNREADABLE', message },
    ]);
  };
  if (!found.ok) throw unreadable(found.reason);
  const keys = found.values.filter((v) => v.flags === DNSKEY_FLAG_ZONE || v.flags === (DNSKEY_FLAG_ZONE | DNSKEY_FLAG_SEP));
  if (!keys.length) throw unreadable(`${serverName(server)} answered no DNSKEY of ${zone}`);
  return keys.map((value) => ({
    flags: value.flags,
    algorithm: value.algorithm,
    keyTag: dnskeyTag(value),
    dnskey: DNSKEY.format(value),
    source: 'fetched' as const,
    fetchedFrom: serverName(server),
  }));
}

const notSigned = () =>
  new DomainError('DNSSEC_NOT_ENABLED', undefined, [
    { field: 'zone', code: 'DNSSEC_NOT_ENABLED', message: 'zone: the zone is not signed' },
  ]);
const disabling = () => {
  const message = 'zone: the zone is being unsigned; it publishes no other signer’s keys';
  return new DomainError('DNSSEC_DISABLING', message, [{ field: 'zone', code: 'DNSSEC_DISABLING', message }]);
};

/**
 * A change of a signed zone that is not being unsigned, under the zone row's lock (the multi-signer state is read
 * and written in one transaction): `work` gets the change and its transaction.
 */
function changeSignedZone<T>(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  principal: Principal,
  zone: { id: number },
  work: (change: ZoneChange, sql: Sql) => Promise<T>,
): Promise<T> {
  return writer.engine.changeZone(db, settings, principal, { zone: { id: zone.id }, owner: '@', writer: SIGNER_STEP }, async (change) => {
    const policy = change.zone.dnssec;
    if (!policy) throw notSigned();
    if (policy.state === 'disabling') throw disabling();
    change.requireLock();
    return work(change, change.connection);
  });
}

/**
 * Adds the other signer's keys to the zone (those it holds already, and our own keys the other signer
 * publishes back, are passed over): one key step, the event in its transaction; then the parent's DS (a
 * Zonekeeper parent) and the RFC 9615 signals follow the CDS. `fromServer`: the keys were read from the other
 * signer's server, so ours among them are expected, not an error. Answers the keys added.
 */
export async function addForeignKeys(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  principal: Principal,
  zone: { id: number; name: string },
  keys: readonly NewForeignKey[],
  fromServer: boolean,
): Promise<ForeignDnskey[]> {
  const added = await changeSignedZone(writer, db, settings, principal, zone, async (change, sql) => {
    const own = await keysOfZone(sql, change.zone.id);
    const ownDnskeys = new Set(own.map((k) => k.dnskey));
    // RFC 8901 §4 and RFC 4035 §2.2: every algorithm of the DNSKEY RRset signs every RRset of each provider's
    // copy, so both providers use the same algorithm: a key of another cannot be published here
    const algorithms = new Set(own.map((k) => k.algorithm));
    const wanted: NewForeignKey[] = [];
    keys.forEach((key, i) => {
      const field = fromServer ? 'fetchFrom' : `dnskeys[${i}]`;
      if (ownDnskeys.has(key.dnskey)) {
        if (fromServer) return;
        throw invalid(field, 'DNSSEC_FOREIGN_KEY_OWN', `${field}: key ${key.keyTag} is one of this zone's own keys`);
      }
      if (!algorithms.has(key.algorithm)) {
        const ours = [...algorithms].map((a) => algorithmByNumber(a)?.name ?? String(a)).join(', ');
        throw invalid(
          field,
          'DNSSEC_FOREIGN_KEY_ALGORITHM',
          `${field}: key ${key.keyTag} is of algorithm ${algorithmByNumber(key.algorithm)?.name ?? key.algorithm}; both signers must use the zone's (${ours}) (RFC 8901 §4)`,
        );
      }
      wanted.push(key);
    });
    const held = await foreignKeysOfZone(sql, change.zone.id);
    const heldDnskeys = new Set(held.map((k) => k.dnskey));
    const fresh = wanted.filter((k, i) => !heldDnskeys.has(k.dnskey) && wanted.findIndex((w) => w.dnskey === k.dnskey) === i);
    if (held.length + fresh.length > MAX_FOREIGN_KEYS) {
      const message = `${fromServer ? 'fetchFrom' : 'dnskeys'}: a zone holds at most ${MAX_FOREIGN_KEYS} foreign DNSKEYs (it holds ${held.length})`;
      throw new DomainError('INVALID_INPUT', message, [
        { field: fromServer ? 'fetchFrom' : 'dnskeys', code: 'TOO_MANY_FOREIGN_KEYS', message, limit: MAX_FOREIGN_KEYS },
      ]);
    }
    if (!fresh.length) return [];
    const inserted = await insertForeignKeys(sql, change.zone.id, fresh);
    await commitForeignChange(change, { keys: [...held, ...inserted], added: inserted, removed: [] });
    return inserted;
  });
  if (added.length) await afterForeignChange(writer, db, settings, zone);
  return added;
}

/** removes one of the zone's foreign keys (the move is over, or a key given by mistake): one key step */
export async function removeForeignKey(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  principal: Principal,
  zone: { id: number; name: string },
  id: number,
): Promise<ForeignDnskey> {
  const removed = await writer.engine.changeZone(
    db,
    settings,
    principal,
    { zone: { id: zone.id }, owner: '@', writer: SIGNER_STEP },
    async (change) => {
      if (!change.zone.dnssec) throw notSigned();
      change.requireLock();
      const sql = change.connection;
      // one read from a server is declined, not forgotten: the worker's next reading must not add it back
      const key = await deleteForeignKey(sql, change.zone.id, id, true);
      if (!key) throw DomainError.notFound('DNSSEC_FOREIGN_KEY_NOT_FOUND', 'id');
      await keepOwnDsIfAlone(sql, change.zone.id);
      await commitForeignChange(change, { added: [], removed: [key] });
      return key;
    },
  );
  await afterForeignChange(writer, db, settings, zone);
  return removed;
}

/** the CDS changed: a Zonekeeper parent's DS follows it, and so do the RFC 9615 signals that copy it */
async function afterForeignChange(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  zone: { id: number; name: string },
): Promise<void> {
  await syncParentDs(writer, db, settings, zone);
  await syncBootstrapSignals(writer, db, settings, [zone]);
}

const eventKey = (zone: string, key: ForeignDnskey) => ({
  keyTag: key.keyTag,
  role: key.flags & DNSKEY_FLAG_SEP ? 'KSK' : 'ZSK',
  algorithm: algorithmByNumber(key.algorithm)?.name ?? String(key.algorithm),
  dnskey: key.dnskey,
  ...(key.flags & DNSKEY_FLAG_SEP ? { ds: dsRecordsOf(zone, key)[0] } : {}),
});

/**
 * A change of the zone's foreign keys ends the same way wherever it comes from (added, removed by hand, read
 * again from their server): the DNSKEY RRset re-signed in the key step, committed, and one
 * `dnssec.foreign_keys_changed` event in the same transaction naming the keys held after it (`keys`: read again
 * unless the caller knows them) and what moved.
 */
async function commitForeignChange(
  change: ZoneChange,
  moved: { keys?: ForeignDnskey[]; added: ForeignDnskey[]; removed: ForeignDnskey[]; refreshedFrom?: string },
): Promise<void> {
  const sql = change.connection;
  change.signKeys();
  await change.commit();
  const zone = change.zone.name;
  const keys = moved.keys ?? (await foreignKeysOfZone(sql, change.zone.id));
  await appendEvent(sql, {
    type: 'dnssec.foreign_keys_changed',
    domainId: change.zone.id,
    data: {
      zone,
      serial: change.serialAfter ?? null,
      keys: keys.map((k) => eventKey(zone, k)),
      added: moved.added.map((k) => eventKey(zone, k)),
      removed: moved.removed.map((k) => eventKey(zone, k)),
      ...(moved.refreshedFrom === undefined ? {} : { refreshedFrom: moved.refreshedFrom }),
    },
  });
}

/**
 * The other signer's key rolls followed (RFC 8901 §5): every server a signed zone's foreign keys were read from
 * is asked again (over TCP, behind the same guard as `addForeignDnskeys`); the keys it now publishes that the
 * zone lacks are added, and the keys read from it that it no longer publishes are removed, in one key step with
 * one `dnssec.foreign_keys_changed` event (`refreshedFrom` names the server). Keys given by value, and keys read
 * from another server, are left alone. A server that cannot be read, or whose answer holds none of the other
 * signer's keys, changes nothing (it is logged, and asked again next time): a failed read never empties the
 * RRset. Keys of another algorithm than the zone's are passed over. Answers how many zones changed.
 */
export async function refreshForeignKeys(writer: DnssecWriter, db: Database, settings: Settings, log?: Logger): Promise<number> {
  const sources = await db.rows<{ domain_id: string; name: string; fetched_from: string }>(
    `select distinct f.domain_id, d.name, f.fetched_from
       from dnssec_foreign_keys f
       join domains d on d.id = f.domain_id
       join dnssec_zones z on z.domain_id = f.domain_id
      where f.source = 'fetched' and f.fetched_from is not null and f.removed_at is null and z.state <> 'disabling'
      order by f.domain_id, f.fetched_from`,
  );
  let changed = 0;
  for (const source of sources) {
    const zone = { id: Number(source.domain_id), name: source.name };
    let published: NewForeignKey[];
    try {
      published = await fetchForeignDnskeys(settings, zone.name, source.fetched_from);
    } catch (error) {
      log?.warn({ zone: zone.name, server: source.fetched_from, err: error }, 'dnssec: the other signer’s DNSKEYs could not be read again');
      continue;
    }
    try {
      if (await followForeignKeys(writer, db, settings, zone, source.fetched_from, published, log)) changed++;
    } catch (error) {
      log?.warn({ zone: zone.name, server: source.fetched_from, err: error }, 'dnssec: following the other signer’s DNSKEYs failed');
    }
  }
  return changed;
}

/** one zone's keys from one server brought to what the server publishes now (see refreshForeignKeys) */
async function followForeignKeys(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  zone: { id: number; name: string },
  server: string,
  published: readonly NewForeignKey[],
  log?: Logger,
): Promise<boolean> {
  const changed = await writer.engine.changeZone(
    db,
    settings,
    SIGNER,
    { zone: { id: zone.id }, owner: '@', writer: SIGNER_STEP },
    async (change) => {
      const policy = change.zone.dnssec;
      if (!policy || policy.state === 'disabling') return false;
      change.requireLock();
      const sql = change.connection;
      const own = await keysOfZone(sql, change.zone.id);
      const ownDnskeys = new Set(own.map((k) => k.dnskey));
      const algorithms = new Set(own.map((k) => k.algorithm));
      const theirs = published.filter((k) => !ownDnskeys.has(k.dnskey) && algorithms.has(k.algorithm));
      if (!theirs.length) {
        log?.warn({ zone: change.zone.name, server }, 'dnssec: the other signer’s server publishes none of its keys; nothing followed');
        return false;
      }
      const held = await foreignKeysOfZone(sql, change.zone.id);
      const declined = await declinedForeignKeys(sql, change.zone.id, server);
      const heldDnskeys = new Set([...held, ...declined].map((k) => k.dnskey));
      const publishedDnskeys = new Set(theirs.map((k) => k.dnskey));
      const gone = held.filter((k) => k.source === 'fetched' && k.fetchedFrom === server && !publishedDnskeys.has(k.dnskey));
      const fresh = theirs.filter((k, i) => !heldDnskeys.has(k.dnskey) && theirs.findIndex((t) => t.dnskey === k.dnskey) === i);
      // a declined key the server no longer publishes is forgotten (should it come back, it is a key to follow)
      await forgetDeclinedForeignKeys(
        sql,
        change.zone.id,
        declined.filter((k) => !publishedDnskeys.has(k.dnskey)).map((k) => k.id),
      );
      if (!gone.length && !fresh.length) return false;
      if (held.length - gone.length + fresh.length > MAX_FOREIGN_KEYS) {
        log?.warn(
          { zone: change.zone.name, server },
          `dnssec: the other signer publishes more keys than a zone holds (${MAX_FOREIGN_KEYS}); nothing followed`,
        );
        return false;
      }
      const removed: ForeignDnskey[] = [];
      for (const key of gone) {
        const deleted = await deleteForeignKey(sql, change.zone.id, key.id);
        if (deleted) removed.push(deleted);
      }
      const inserted = await insertForeignKeys(sql, change.zone.id, fresh);
      await keepOwnDsIfAlone(sql, change.zone.id);
      await commitForeignChange(change, { added: inserted, removed, refreshedFrom: server });
      return true;
    },
  );
  if (changed) await afterForeignChange(writer, db, settings, zone);
  return changed;
}

/**
 * A zone that withdrew its own DS keeps that only while it holds a KSK of the other signer: with the last one
 * gone, its DS is wanted at the parent again (the CDS names our KSK; a parent here gets our DS back), so the
 * parent is never left with no DS (insecure).
 */
async function keepOwnDsIfAlone(sql: Sql, domainId: number): Promise<void> {
  if (!(await dsWithdrawnOf(sql, domainId))) return;
  if ((await foreignKeysOfZone(sql, domainId)).some((k) => k.flags & DNSKEY_FLAG_SEP)) return;
  await setDsWithdrawn(sql, domainId, null);
}

const dsWithdrawnRefused = (code: 'DNSSEC_NO_FOREIGN_KSK' | 'DNSSEC_ROLL_IN_PROGRESS', message: string) =>
  new DomainError(code, message, [{ field: 'zone', code, message }]);

/**
 * Moving a multi-signer zone out (docs/dnssec.md «Moving a signed zone in / out», step 4): the zone withdraws
 * its own DS while it still signs. `withdraw`: its CDS/CDNSKEY name the other signer's KSKs alone (RFC 7344 §4.1,
 * RFC 8078: the DS RRset the parent should hold), our DNSKEYs and signatures stay (a resolver still holding our
 * DS keeps validating), and a parent held here follows at once: its DS RRset is theirs alone (`dnssec.ds_updated`).
 * Refused (DNSSEC_NO_FOREIGN_KSK) when the zone holds no KSK of the other signer: the parent would be left with no
 * DS, the zone insecure; and while a roll of our KSK or of the algorithm runs (its DS is the parent's business
 * then). `restore`: the reverse; the CDS names both again and a parent here holds both DS; a parent elsewhere is
 * awaited (DS_PUBLICATION). One key step (the apex's CDS/CDNSKEY and their RRSIGs); nothing when the zone is so
 * already. Answers whether it changed.
 */
export async function setOwnDsWithdrawn(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  principal: Principal,
  zone: { id: number; name: string },
  withdraw: boolean,
): Promise<boolean> {
  const changed = await changeSignedZone(writer, db, settings, principal, zone, async (change, sql) => {
    if ((await dsWithdrawnOf(sql, change.zone.id)) === withdraw) return false;
    const parentHere = !!(await parentZoneOf(sql, change.zone.name));
    if (withdraw) {
      const theirs = (await foreignKeysOfZone(sql, change.zone.id)).filter((k) => k.flags & DNSKEY_FLAG_SEP);
      if (!theirs.length)
        throw dsWithdrawnRefused(
          'DNSSEC_NO_FOREIGN_KSK',
          `zone: ${change.zone.name} holds no KSK of another signer (addForeignDnskeys): withdrawing its DS would leave the parent none, the zone insecure`,
        );
      const own = await keysOfZone(sql, change.zone.id);
      if (own.some((k) => k.role !== 'ZSK' && k.state !== 'active' && k.state !== 'removed'))
        throw dsWithdrawnRefused(
          'DNSSEC_ROLL_IN_PROGRESS',
          `zone: a roll of ${change.zone.name}'s KSK or algorithm is under way; withdraw its DS after it`,
        );
      await setDsWithdrawn(sql, change.zone.id, new Date());
    } else {
      await setDsWithdrawn(sql, change.zone.id, null);
      // a parent elsewhere must be given our DS again: the zone waits for it (its servers asked, when set)
      if (!parentHere) {
        await setDsSeen(sql, change.zone.id, null);
        if (settings.dnssecParentDsServers.length) await scheduleDsCheck(sql, change.zone.id, new Date());
      }
    }
    change.signKeys();
    await change.commit();
    return true;
  });
  if (changed) await afterForeignChange(writer, db, settings, zone);
  return changed;
}
