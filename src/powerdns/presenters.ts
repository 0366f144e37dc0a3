import { ownerToFqdn } from '../dns/name';
import { algorithmByNumber } from '../dns/dnssec/algorithms';
import { getRecordType } from '../dns/record-types';
import type { DomainRow, RecordRow } from '../repositories/read-model';
import type { RrsetComments } from '../repositories/rrset-comments';
import type { DisabledRecord } from '../repositories/disabled-records';
import type { DnssecKeyInfo, DnssecStatus } from '../services/dnssec/dnssec.service';
import type { TsigKeyRow } from '../services/people/tsig-keys.service';

/**
 * PowerDNS's JSON shapes (its docs/http-api/ and swagger file), filled from the services' rows. The edge
 * shows what Zonekeeper has; fields PowerDNS has and Zonekeeper does not are given PowerDNS's neutral values
 * (docs/powerdns-api.md says which).
 */

/**
 * The version the server claims: octoDNS parses it as x.y.z and needs at least 4.3, lego needs API v1; it is
 * the PowerDNS release whose API this edge follows (the one Debian ships, which the differential runs).
 */
export const POWERDNS_VERSION = '4.7.4';
export const SERVER_ID = 'localhost';
const SERVER_URL = `/api/v1/servers/${SERVER_ID}`;

export function presentServer() {
  return {
    type: 'Server',
    id: SERVER_ID,
    daemon_type: 'authoritative',
    version: POWERDNS_VERSION,
    url: SERVER_URL,
    config_url: `${SERVER_URL}/config{/config_setting}`,
    zones_url: `${SERVER_URL}/zones{/zone}`,
    autoprimaries_url: `${SERVER_URL}/autoprimaries{/autoprimary}`,
  };
}

/** a zone name as PowerDNS writes it: absolute, with its final dot */
export const absoluteName = (zone: string) => `${zone}.`;

/**
 * A zone's id in PowerDNS's URLs is its absolute name with `/` written `=2F` (ws-api.cc apiNameToId); the
 * names Zonekeeper takes hold no `/`, so the id is the name.
 */
export const zoneId = (zone: string) => absoluteName(zone);

export interface ZoneFacts {
  /** the owner's e-mail: the zone's `account` (PowerDNS's account is free text; ours is the user owning it) */
  account: string;
  /** a primary zone's kind as the API was told it (`Native` or `Master`); unset: `Master` */
  kind?: string;
  dnssec: boolean;
  /** PowerDNS's name of the serial each change gives (SERIAL_POLICY); `DEFAULT` when not given */
  soaEditApi?: string;
  /** a secondary zone's primaries, in order, each with its TSIG key's name; `transferred` false while never taken */
  primaries?: readonly { address: string; port: number; tsigKeyName?: string | null; transferred?: boolean }[];
}

/** a primary as PowerDNS writes one of a zone's `masters`: the address, with `:port` unless it is 53, IPv6 in brackets */
export function presentPrimary(primary: { address: string; port: number }): string {
  if (primary.port === 53) return primary.address;
  return primary.address.includes(':') ? `[${primary.address}]:${primary.port}` : `${primary.address}:${primary.port}`;
}

/**
 * A zone as the list and the zone answers give it. A zone written here is a primary whose secondaries are
 * NOTIFYed on each change, whatever its kind reads: the kind it was created or set with through this API
 * (`Native`, or `Master` for `Master` and `Primary`: Terraform compares it at every plan), else `Master`, which
 * lego needs to send its notify (PowerDNS 4.7 still writes it so); a secondary zone (taken by transfer,
 * docs/transfers.md) is `Slave`, as PowerDNS 4.7 names it.
 * `notified_serial` and `edited_serial` are the serial: every committed serial is the one served and notified.
 */
export function presentZone(zone: Pick<DomainRow, 'name' | 'serial' | 'kind'>, facts: ZoneFacts) {
  // a secondary zone never taken has no SOA of its primary's yet: serial 0, as PowerDNS shows one
  const serial = facts.primaries?.some((primary) => primary.transferred === false) ? 0 : zone.serial;
  return {
    id: zoneId(zone.name),
    name: absoluteName(zone.name),
    type: 'Zone',
    url: `${SERVER_URL}/zones/${zoneId(zone.name)}`,
    kind: zone.kind === 'secondary' ? 'Slave' : (facts.kind ?? 'Master'),
    serial,
    notified_serial: serial,
    edited_serial: serial,
    masters: (facts.primaries ?? []).map(presentPrimary),
    dnssec: facts.dnssec,
    nsec3param: '',
    nsec3narrow: false,
    presigned: false,
    soa_edit: '',
    soa_edit_api: facts.soaEditApi ?? 'DEFAULT',
    api_rectify: false,
    account: facts.account,
    catalog: '',
    last_check: 0,
    master_tsig_key_ids: [] as string[],
    // the key a secondary zone signs its SOA queries and transfers with (PowerDNS's AXFR-MASTER-TSIG), by its id
    slave_tsig_key_ids: [...new Set((facts.primaries ?? []).flatMap((p) => (p.tsigKeyName ? [absoluteName(p.tsigKeyName)] : [])))],
  };
}

/** the text of a listed zone's JSON after its name, up to its url's path, which ends with the zone's id */
const ZONE_JSON_URL = `,"type":"Zone","url":"${SERVER_URL}/zones/`;
const ZONE_JSON_FIXED = ',"nsec3param":"","nsec3narrow":false,"presigned":false,"soa_edit":"","soa_edit_api":';
const ZONE_JSON_END = ',"catalog":"","last_check":0,"master_tsig_key_ids":[],"slave_tsig_key_ids":[]}';

/**
 * presentZone's answer as JSON text, byte for byte JSON.stringify(presentZone(zone, facts)) (the presenters'
 * test holds them equal), written without the object between: the list of every zone writes 100,000 of them
 * (docs/scale.md), and an object a zone with its arrays, then JSON.stringify's walk over each, were most of that
 * list's time. A zone with primaries (a secondary zone, a few of a list) is written from presentZone's object.
 */
export function presentZoneJson(zone: Pick<DomainRow, 'name' | 'serial' | 'kind'>, facts: ZoneFacts): string {
  if (facts.primaries?.length) return JSON.stringify(presentZone(zone, facts));
  // the id is the name (zoneId), written once
  const id = JSON.stringify(zoneId(zone.name));
  const kind = zone.kind === 'secondary' ? 'Slave' : (facts.kind ?? 'Master');
  const serial = String(zone.serial);
  const account = JSON.stringify(facts.account);
  const soaEditApi = JSON.stringify(facts.soaEditApi ?? 'DEFAULT');
  // the url is a JSON string of the path's start (nothing in it to escape) and the id: the id's text as written
  // in its own string, less its opening quote
  return (
    `{"id":${id},"name":${id}${ZONE_JSON_URL}${id.slice(1)},"kind":${JSON.stringify(kind)},` +
    `"serial":${serial},"notified_serial":${serial},"edited_serial":${serial},"masters":[],"dnssec":${facts.dnssec}` +
    `${ZONE_JSON_FIXED}${soaEditApi},"api_rectify":false,"account":${account}${ZONE_JSON_END}`
  );
}

/**
 * A record's content as PowerDNS 4.7 reads it back: the type's `powerDns.present` where it has one (digests in
 * lower case, LOC's `1.00m`, SVCB's `alpn=h2,h3`, a TXT string PowerDNS cut read as one: the record-type files
 * say), else the stored canonical form, which is PowerDNS's too. Other edges show the canonical form.
 */
export function powerDnsContent(zone: string, type: string, rdata: string): string {
  const definition = getRecordType(type);
  const present = definition?.powerDns?.present;
  if (!present || definition.powerDns?.differs?.(rdata) === false) return rdata;
  const parsed = definition.parse(rdata, zone);
  return parsed.ok ? present(parsed.value) : rdata;
}

export interface PowerDnsComment {
  content: string;
  account: string;
  modified_at: number;
}

export interface PowerDnsRrset {
  name: string;
  type: string;
  ttl: number;
  records: { content: string; disabled: boolean }[];
  comments: PowerDnsComment[];
}

/**
 * A zone's records as PowerDNS's rrsets: one per owner and type, sorted by name then type as PowerDNS sorts
 * them (by name, then type, then content). The RRset's TTL is the lowest of its records' (RFC 2181 §5.2 wants
 * one TTL per RRset; PowerDNS shows the lowest too). Each RRset carries its comments, in their order; an RRset
 * with comments and no records is shown with `records: []` and a TTL of 0, as PowerDNS shows it.
 */
export function presentRrsets(
  zone: string,
  records: Iterable<RecordRow>,
  comments: readonly RrsetComments[] = [],
  disabled: readonly DisabledRecord[] = [],
): PowerDnsRrset[] {
  const sets = new Map<string, PowerDnsRrset>();
  const setOf = (owner: string, type: string, ttl: number) => {
    const key = `${owner}\u0000${type}`;
    let set = sets.get(key);
    if (!set) {
      set = { name: ownerToFqdn(owner, zone), type, ttl, records: [], comments: [] };
      sets.set(key, set);
    }
    return set;
  };
  for (const record of records) {
    const set = setOf(record.owner, record.type, record.ttl);
    set.ttl = Math.min(set.ttl, record.ttl);
    set.records.push({ content: powerDnsContent(zone, record.type, record.rdata), disabled: false });
  }
  // a disabled record is shown in its rrset; an rrset of disabled records only, with their TTL (as PowerDNS)
  for (const record of disabled) {
    const set = setOf(record.owner, record.type, record.ttl);
    if (set.records.every((r) => r.disabled)) set.ttl = Math.min(set.ttl, record.ttl);
    set.records.push({ content: powerDnsContent(zone, record.type, record.rdata), disabled: true });
  }
  for (const commented of comments) {
    setOf(commented.owner, commented.type, 0).comments.push(
      ...commented.comments.map((c) => ({
        content: c.content,
        account: c.account,
        modified_at: Math.floor(c.modifiedAt.getTime() / 1000),
      })),
    );
  }
  const byName = (a: PowerDnsRrset, b: PowerDnsRrset) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.type < b.type ? -1 : a.type > b.type ? 1 : 0;
  const list = [...sets.values()].sort(byName);
  for (const set of list) set.records.sort((a, b) => (a.content < b.content ? -1 : a.content > b.content ? 1 : 0));
  return list;
}

/** PowerDNS's key types: a KSK, a ZSK, or one combined signing key (csk) */
const KEY_TYPES: Record<DnssecKeyInfo['role'], string> = { KSK: 'ksk', ZSK: 'zsk', CSK: 'csk' };

/**
 * A DNSSEC key as a PowerDNS cryptokey. `published`: its DNSKEY is in the zone; `active`: it signs, and goes on
 * signing: a zone whose signing is being turned off (`disabling`, until the parent's DS is gone) shows its keys
 * inactive, so a client that turns DNSSEC off by deleting the active keys (DNSControl's AUTODNSSEC) sees it done
 * and does not send the delete again at every run. The DS
 * (and so `ds`) is given for the keys that sign the DNSKEY RRset (KSK, CSK), as PowerDNS does.
 */
export function presentCryptokey(key: DnssecKeyInfo, status: DnssecStatus) {
  const [flags, , algorithmNumber, ...publicKey] = key.dnskey.split(/\s+/);
  const bits = algorithmByNumber(Number(algorithmNumber))?.keyBits(Buffer.from(publicKey.join(''), 'base64'));
  const signsKeys = key.role !== 'ZSK';
  const tag = ` ${key.keyTag} `;
  return {
    type: 'Cryptokey',
    id: key.id,
    keytype: KEY_TYPES[key.role],
    active: key.state === 'active' && status.state !== 'disabling',
    published: key.state !== 'generated' && key.state !== 'removed',
    dnskey: key.dnskey,
    flags: Number(flags),
    algorithm: key.algorithm,
    algorithm_number: Number(algorithmNumber),
    ...(bits === undefined ? {} : { bits }),
    ...(signsKeys ? { ds: status.ds.filter((ds) => ds.startsWith(`${key.keyTag} `) || ds.includes(tag)) } : {}),
  };
}

/** a TSIG key as PowerDNS shows it; the secret only once, when it is made (Zonekeeper keeps no readable copy) */
export function presentTsigKey(key: TsigKeyRow, secret = '') {
  return { type: 'TSIGKey', id: absoluteName(key.name), name: absoluteName(key.name), algorithm: key.algorithm, key: secret };
}
