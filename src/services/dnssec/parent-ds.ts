/**
 * The parent's DS checked at its servers (a parent outside Zonekeeper; docs/dnssec.md): the worker asks every
 * server of DNSSEC_PARENT_DS_SERVERS for the zone's DS RRset, for each zone that waits for the parent (DNSSEC
 * enabled: the DS should appear; a KSK roll: the new DS beside the old, RFC 7583 §3.3.2; disabling: the DS
 * should be gone, RFC 8078 §4). When every server answers what is awaited, the zone moves on as the operator's
 * confirmation would move it (RFC 7344 §4.1: the parent's servers are where the DS is seen published).
 * The last answer is kept and shown in the zone's status.
 */
import type { Settings } from '../../config/settings';
import { hostPortName, HostPort } from '../../config/settings';
import type { Database } from '../../db/pool';
import { DS } from '../../dns/record-types/ds';
import { FLAG, readRdata } from '../../dns/wire';
import { logger } from '../../logger';
import { keysOfZone, leaseZonesDueForDsCheck, policyOf, recordDsCheck, StoredDnssecKey } from '../../repositories/dnssec';
import { query, RCODE_NAMES } from '../../dns-client/dns-client';
import { confirmDsPublished, confirmDsRemoved } from './key-rollover';
import { SIGNER } from './signer-principal';
import type { DnssecWriter } from './dnssec-writer';
import { dsRecordsOf, inParentDs } from './zone-keys';

/** what one server answered for the zone's DS */
export interface ServerDsAnswer {
  server: string;
  /** the server answered with authority (NOERROR or NXDOMAIN) */
  ok: boolean;
  ds: string[];
  /** the DS RRset's TTL, when it had one */
  ttl?: number;
  transport?: 'udp' | 'tcp';
  error?: string;
}

export interface DsCheck {
  at: string;
  /** what the zone waits for: its DS at the parent, or none there */
  want: 'present' | 'absent';
  /** the DS (SHA-256) of each key the parent must serve; empty when the DS must be gone */
  expected: string[];
  /** every server answered what is awaited */
  confirmed: boolean;
  servers: ServerDsAnswer[];
}

/** asks one server for the DS RRset of `zone` (no recursion: the parent's own servers, which answer with AA) */
export async function askDs(server: HostPort, zone: string, timeoutMs: number): Promise<ServerDsAnswer> {
  const name = hostPortName(server);
  try {
    const answer = await query(server, `${zone}.`, DS.code, timeoutMs);
    // RFC 4035 §3.1.4.1: the parent is authoritative for the DS at a delegation; NXDOMAIN is no DS either
    if (answer.rcode !== 0 && answer.rcode !== 3)
      return { server: name, ok: false, ds: [], error: `answered ${RCODE_NAMES[answer.rcode] ?? `RCODE ${answer.rcode}`}` };
    if (!(answer.message.flags & FLAG.AA))
      return { server: name, ok: false, ds: [], error: 'answer without authority (not a server of the parent zone?)' };
    const records = answer.message.answers.filter(
      (r) => r.type === DS.code && r.name.toLowerCase().replace(/\.$/, '') === zone.toLowerCase(),
    );
    const ds = records.map((r) => DS.format(readRdata(answer.raw, r, DS)));
    const ttl = records.length ? Math.max(...records.map((r) => r.ttl)) : undefined;
    return { server: name, ok: true, ds, ...(ttl !== undefined ? { ttl } : {}), transport: answer.transport };
  } catch (error) {
    return { server: name, ok: false, ds: [], error: (error as Error).message };
  }
}

/**
 * The parent serves the DS of every key in `keys` (by any digest it accepts: SHA-256 or SHA-384). A DS of
 * another key beside them does not matter to validation (RFC 4035 §5.2: one DS that matches suffices).
 */
export function dsPresent(zone: string, keys: readonly Pick<StoredDnssecKey, 'dnskey'>[], served: readonly string[]): boolean {
  const have = new Set(served.map((d) => d.toUpperCase()));
  return keys.length > 0 && keys.every((key) => dsRecordsOf(zone, key).some((d) => have.has(d.toUpperCase())));
}

/**
 * what a signed zone waits for of its parent now, if anything. A zone that withdrew its own DS (multi-signer,
 * withdrawDnssecDs) waits for none of it to appear; disabling, for ours to be gone (the other signer's stays).
 */
export function awaitedOfParent(
  policy: { state: 'signed' | 'disabling'; dsSeenAt: Date | null; disableAt: Date | null; dsWithdrawnAt?: Date | null },
  keys: readonly StoredDnssecKey[],
): 'present' | 'absent' | undefined {
  if (policy.state === 'disabling') return policy.disableAt ? undefined : 'absent';
  if (policy.dsWithdrawnAt) return undefined;
  if (!policy.dsSeenAt || keys.some((k) => k.nextEvent === 'await-ds')) return 'present';
  return undefined;
}

/**
 * The worker's turn: the zones whose check is due are leased (workers share them), their parent's servers
 * asked, the answer recorded, and a zone whose awaited DS state every server shows moves on. Answers the
 * number of zones that moved on.
 */
export async function checkParentDs(writer: DnssecWriter, db: Database, settings: Settings, limit = 20): Promise<number> {
  const zones = await leaseZonesDueForDsCheck(db, limit, settings.dnssecParentDsCheckInterval);
  let moved = 0;
  for (const zone of zones) {
    try {
      if (await checkZone(writer, db, settings, zone)) moved++;
    } catch (error) {
      // the lease brings the zone back after the interval
      logger.warn({ err: error, zone: zone.name }, `dnssec: checking the parent's DS of ${zone.name} failed; it is tried again`);
    }
  }
  return moved;
}

async function checkZone(writer: DnssecWriter, db: Database, settings: Settings, zone: { id: number; name: string }): Promise<boolean> {
  const servers = settings.dnssecParentDsServers;
  const interval = settings.dnssecParentDsCheckInterval;
  const policy = await policyOf(db, zone.id);
  if (!policy) return false;
  const keys = await keysOfZone(db, zone.id);
  const want = awaitedOfParent(policy, keys);
  if (!want || !servers.length) {
    await recordDsCheck(db, zone.id, policy.dsCheck ?? null, null);
    return false;
  }
  const expectedKeys = want === 'present' ? keys.filter(inParentDs) : [];
  const answers = await Promise.all(servers.map((server) => askDs(server, zone.name, 2000)));
  // gone: no DS at all; a zone that withdrew its own DS (multi-signer), none of ours (the other signer's stays)
  const ours = new Set(keys.filter((k) => k.role !== 'ZSK').flatMap((k) => dsRecordsOf(zone.name, k).map((d) => d.toUpperCase())));
  const gone = (served: readonly string[]) => (policy.dsWithdrawnAt ? !served.some((d) => ours.has(d.toUpperCase())) : served.length === 0);
  const confirmed = answers.every((a) => a.ok && (want === 'present' ? dsPresent(zone.name, expectedKeys, a.ds) : gone(a.ds)));
  const check: DsCheck = {
    at: new Date().toISOString(),
    want,
    expected: expectedKeys.map((k) => dsRecordsOf(zone.name, k)[0]),
    confirmed,
    servers: answers,
  };
  logger.info(
    { zone: zone.name, want, confirmed, servers: answers.map((a) => ({ server: a.server, ds: a.ds.length, error: a.error })) },
    `dnssec: the parent's DS of ${zone.name} ${confirmed ? (want === 'present' ? 'is published' : 'is gone') : 'is not yet as awaited'}`,
  );
  await recordDsCheck(db, zone.id, check, confirmed ? null : new Date(Date.now() + interval * 1000));
  if (!confirmed) return false;
  // the TTL the servers gave the DS: resolvers may hold it that long (the last check's, when it is gone now)
  const ttls = [...answers, ...((policy.dsCheck as DsCheck | null)?.servers ?? [])].map((a) => a.ttl ?? 0);
  const dsTtl = Math.max(0, ...ttls);
  // seen served by the parent's own servers: the swap it lets run says so (ds-seen), not an operator's word
  if (want === 'present') await confirmDsPublished(writer, db, settings, SIGNER, { id: zone.id }, { reason: 'ds-seen', dsTtl });
  else await confirmDsRemoved(writer, db, settings, SIGNER, { id: zone.id }, dsTtl);
  return true;
}
