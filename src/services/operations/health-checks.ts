/**
 * What a zone's health check finds (docs/health.md): the zone as resolvers meet it, found by iterative
 * resolution from the root hints (dns-client/iterative-resolver.ts), compared with what the zone holds here.
 *
 * Per zone the check asks: the parent's servers for the zone's NS (the referral: its NS set and glue) and DS,
 * and every nameserver named by the parent or the zone's apex NS, at each of its addresses, for the zone's SOA
 * (with DO when the zone is signed) and, when signed, its DNSKEY. What the parent's parent and above answer is
 * asked once per check round for all zones below them (the resolver keeps it), and so are the addresses of
 * nameservers named outside the zone.
 */
import type { Settings } from '../../config/settings';
import type { Sql } from '../../db/pool';
import { mayConnect, type Outbound } from '../../outbound/addresses';
import { DS, DSValue } from '../../dns/record-types/ds';
import { DNSKEY } from '../../dns/record-types/dnskey';
import { SOA } from '../../dns/record-types/soa';
import { RRSIG } from '../../dns/record-types/signer-types';
import { canonicalNameWire, FLAG, readRdata, type WireRecord } from '../../dns/wire';
import { dsMatchesKey } from '../../dns/dnssec/keys';
import { serialGreaterThan } from '../../dns/serial';
import { isAtOrBelow, ownerOf } from '../../dns/name';
import { bareName, IterativeResolver, rcodeName, serverLabel, type NameServer } from '../../dns-client/iterative-resolver';
import {
  addressesAt,
  apexNsOf,
  serialCommittedAt,
  signingOf,
  storedDelegation,
  type DueZone,
  type HealthState,
  type NewFinding,
  type Severity,
} from '../../repositories/health';

/** every finding's code, its usual severity and what it means (GraphQL's enum and docs/health.md say the same) */
export const FINDING_CODES = {
  PARENT_NS_MISMATCH: "the parent's NS set for the zone differs from the zone's apex NS (critical when they share no name)",
  NOT_DELEGATED:
    'the parent does not delegate the zone (yet): nobody reaches it until the registrar is given its nameservers; a warning, as for a zone just made',
  LAME_DELEGATION:
    'a server named by the parent or the apex NS does not answer authoritatively for the zone: no answer, REFUSED, SERVFAIL, no AA, no SOA, no address, or an address the checker may not ask (critical when no server answers)',
  SERIAL_BEHIND: 'a nameserver serves an older serial than the one committed, for longer than HEALTH_SERIAL_GRACE',
  DS_MISMATCH:
    'the zone is signed and no DS at the parent matches a published KSK or CSK, or the zone is not signed and the parent has DS: validating resolvers fail the zone',
  DS_MISSING: 'the zone is signed and the parent has no DS: validating resolvers treat it as unsigned',
  SIGNATURES_EXPIRING:
    'a nameserver serves an RRSIG over the SOA or DNSKEY that expires within HEALTH_SIGNATURE_THRESHOLD (critical once expired)',
  GLUE_MISMATCH: 'the glue at the parent differs from the addresses of the in-zone NS names',
  PARENT_UNREACHABLE:
    'no server of the parent (or of a zone above it, below the root) answered: the delegation and the DS could not be read',
} as const;
export type FindingCode = keyof typeof FINDING_CODES;

/**
 * The rule for addresses learned from the DNS (a zone's owner chooses its NS names and their addresses): the
 * outbound rule (src/outbound/addresses.ts), opened by HEALTH_ALLOW_NETWORKS. Answers the refusal's reason.
 */
export function mayAskAddress(health: Settings['health']): (address: string) => Outbound {
  return (address) => mayConnect(address, health.allowNetworks);
}

/** the worst severity among the findings: the zone's state */
export function stateOf(findings: readonly NewFinding[]): Exclude<HealthState, 'unknown'> {
  if (findings.some((f) => f.severity === 'critical')) return 'critical';
  if (findings.some((f) => f.severity === 'warning')) return 'warning';
  return 'ok';
}

const absolute = (name: string) => (name === '' ? '.' : `${name}.`);
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const sorted = (items: Iterable<string>) => [...new Set(items)].sort();
const list = (items: readonly string[]) => (items.length ? items.join(', ') : 'none');

function duration(seconds: number): string {
  if (seconds >= 86400) return `${Math.floor(seconds / 86400)} d ${Math.floor((seconds % 86400) / 3600)} h`;
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min`;
  return `${seconds} s`;
}

/**
 * Checks one zone with the round's resolver; answers its findings. When the root hints do not answer
 * (`resolver.rootReachable` false: the checker's own reach, a fresh install without outside network), what
 * depends on resolution from the root is not found at all rather than found against every zone: the caller does
 * not store such a check as the zone's (health.service.ts, `checkAndRecord`).
 */
/** what a zone's check found, and the NS set its parent lists as the check read it (null: it read no delegation) */
export interface ZoneCheck {
  findings: NewFinding[];
  parentNs: string[] | null;
}

export async function checkZone(db: Sql, resolver: IterativeResolver, health: Settings['health'], zone: DueZone): Promise<ZoneCheck> {
  const findings: NewFinding[] = [];
  const add = (code: FindingCode, severity: Severity, server: string | null, message: string) =>
    findings.push({ code, severity, server, message });
  const name = bareName(zone.name);
  const [apexRows, signing] = await Promise.all([apexNsOf(db, zone.id), signingOf(db, zone.id)]);
  const apexNs = sorted(apexRows.map(bareName));
  const signed = signing.state === 'signed';

  // the delegation, as the parent's servers give it
  const delegation = await resolver.delegationOf(name);
  let parentNs: string[] = [];
  let glue = new Map<string, string[]>();
  const blind = () => resolver.rootReachable === false;
  if (delegation.kind === 'unreachable') {
    // the root itself out of reach is the checker's state (blind), not the zone's fault
    if (delegation.parent !== '' || !blind())
      add('PARENT_UNREACHABLE', 'critical', null, `the delegation of ${name} could not be read: ${delegation.reason}`);
  } else if (delegation.kind === 'not-delegated')
    // a zone made here before its registrar is told: what to do is the next step, not an outage to page for
    add(
      'NOT_DELEGATED',
      'warning',
      null,
      `${absolute(delegation.parent)} does not delegate ${name} yet (${delegation.reason}): give the registrar the zone's nameservers, ${list(apexNs)}`,
    );
  else {
    parentNs = delegation.ns;
    glue = delegation.glue;
    if (delegation.seen === 'served') {
      // the parent's servers serve the zone too and answer from it: the parent's own delegation records do not show
      // in the DNS. A parent held here: its stored delegation is what those servers hold in the parent zone.
      const stored = await storedDelegation(db, delegation.parent, ownerOf(name, delegation.parent)!);
      if (stored) {
        parentNs = sorted(stored.ns.map(bareName));
        glue = new Map();
        for (const { owner, rdata } of stored.addresses) {
          const host = `${owner}.${delegation.parent}`;
          glue.set(host, sorted([...(glue.get(host) ?? []), rdata]));
        }
      }
    }
    if (!sameSet(parentNs, apexNs)) {
      const shared = parentNs.some((ns) => apexNs.includes(ns));
      add(
        'PARENT_NS_MISMATCH',
        shared ? 'warning' : 'critical',
        null,
        `${absolute(delegation.parent)} delegates ${name} to ${list(parentNs)}; the zone's apex NS is ${list(apexNs)}`,
      );
    }
  }

  // the addresses of the in-zone NS names, as the zone holds them (glue must match them, RFC 9471)
  const names = sorted([...parentNs, ...apexNs]);
  const inZone = names.filter((ns) => isAtOrBelow(ns, name));
  const ours = await addressesAt(
    db,
    zone.id,
    inZone.map((ns) => ownerOf(ns, name)!),
  );
  if (delegation.kind === 'delegated')
    for (const ns of parentNs.filter((n) => isAtOrBelow(n, name))) {
      const held = sorted(ours.get(ownerOf(ns, name)!) ?? []);
      const given = sorted(glue.get(ns) ?? []);
      if (!sameSet(held, given))
        add(
          'GLUE_MISMATCH',
          'warning',
          ns,
          `${absolute(delegation.parent)} gives ${ns} the glue ${list(given)}; the zone holds ${list(held)} for it`,
        );
    }

  // the DS at the parent, against the zone's keys
  if (delegation.kind === 'delegated') {
    const ds = await dsAtParent(resolver, delegation.parentServers, name);
    if (!ds.ok)
      add('PARENT_UNREACHABLE', 'warning', null, `the DS of ${name} could not be read from ${absolute(delegation.parent)}: ${ds.reason}`);
    else checkDs(add, name, delegation.parent, signing, ds.ds);
  }

  // every nameserver named by the parent or the apex, at each of its addresses
  let committedAt: Promise<Date | undefined> | undefined;
  const committed = () => (committedAt ??= serialCommittedAt(db, name, zone.serial));
  let answered = 0;
  /** servers whose addresses could not be found because the root does not answer: not known to be lame */
  let unseen = 0;
  const lame: NewFinding[] = [];
  const addLame = (server: string, message: string) => {
    const finding: NewFinding = { code: 'LAME_DELEGATION', severity: 'warning', server, message };
    lame.push(finding);
    findings.push(finding);
  };
  await Promise.all(
    names.map(async (ns) => {
      let addresses: string[];
      if (isAtOrBelow(ns, name)) addresses = sorted([...(glue.get(ns) ?? []), ...(ours.get(ownerOf(ns, name)!) ?? [])]);
      else {
        const resolved = await resolver.addressesOf(ns);
        if (!resolved.ok && blind()) {
          unseen++;
          return;
        }
        if (!resolved.ok) return addLame(ns, `the addresses of ${ns} could not be resolved: ${resolved.reason}`);
        addresses = resolved.addresses;
      }
      addresses = addresses.filter((a) => health.ipv6 || !a.includes(':'));
      if (!addresses.length) return addLame(ns, `${ns} has no address${health.ipv6 ? '' : ' (IPv4: HEALTH_IPV6 is off)'}`);
      await Promise.all(
        addresses.map(async (address) => {
          const server: NameServer = { host: address, port: 53, name: ns };
          const label = serverLabel(server);
          const outbound = resolver.mayAsk(address);
          if (!outbound.ok) return addLame(label, `not asked: ${outbound.reason} (HEALTH_ALLOW_NETWORKS lets the checker ask it)`);
          const result = await checkServer(resolver, server, name, signed);
          if (!result.ok) return addLame(label, result.reason);
          answered++;
          if (serialGreaterThan(zone.serial, result.serial)) {
            const at = await committed();
            const behindFor = at ? (Date.now() - at.getTime()) / 1000 : Infinity;
            if (behindFor > health.serialGrace)
              add(
                'SERIAL_BEHIND',
                'warning',
                label,
                `serves serial ${result.serial}; the zone is at ${zone.serial}${at ? `, committed ${duration(Math.round(behindFor))} ago` : ''}`,
              );
          }
          const expiring = result.signatures
            .filter((s) => s.remaining < health.signatureThreshold)
            .sort((a, b) => a.remaining - b.remaining);
          if (expiring.length) {
            const first = expiring[0];
            const expires = new Date(Date.now() + first.remaining * 1000).toISOString();
            add(
              'SIGNATURES_EXPIRING',
              first.remaining <= 0 ? 'critical' : 'warning',
              label,
              first.remaining <= 0
                ? `serves an RRSIG over ${first.covers} that expired at ${expires}: validating resolvers fail the zone there`
                : `serves an RRSIG over ${first.covers} that expires at ${expires}, in ${duration(first.remaining)} (HEALTH_SIGNATURE_THRESHOLD ${duration(health.signatureThreshold)})`,
            );
          }
        }),
      );
    }),
  );
  // no server answers for the zone at all: resolvers cannot resolve it (not known while some could not be looked up)
  if (!answered && !unseen) for (const finding of lame) finding.severity = 'critical';
  // the parent's NS set is kept with the findings: a change of the apex NS is compared with it (APEX_NS_NOT_AT_PARENT)
  return { findings, parentNs: delegation.kind === 'delegated' ? parentNs : null };
}

/** the DS RRset of `zone` at the first of the parent's servers (up to three) that answers with authority */
async function dsAtParent(
  resolver: IterativeResolver,
  servers: readonly NameServer[],
  zone: string,
): Promise<{ ok: true; ds: DSValue[] } | { ok: false; reason: string }> {
  const reasons: string[] = [];
  for (const server of servers.slice(0, 3)) {
    const asked = await resolver.ask(server, zone, DS.code);
    if (!asked.ok) {
      reasons.push(`${serverLabel(server)}: ${asked.reason}`);
      continue;
    }
    const { answer } = asked;
    // RFC 4035 §3.1.4.1: the parent answers the DS at a delegation with authority; NXDOMAIN is no DS either
    if ((answer.rcode !== 0 && answer.rcode !== 3) || !(answer.message.flags & FLAG.AA)) {
      reasons.push(`${serverLabel(server)}: ${answer.rcode ? rcodeName(answer.rcode) : 'answer without authority'}`);
      continue;
    }
    const ds = answer.message.answers
      .filter((r) => r.type === DS.code && bareName(r.name) === zone)
      .map((r) => readRdata(answer.raw, r, DS));
    return { ok: true, ds };
  }
  return { ok: false, reason: reasons.join('; ') || 'no server to ask' };
}

function checkDs(
  add: (code: FindingCode, severity: Severity, server: string | null, message: string) => void,
  zone: string,
  parent: string,
  signing: { state: string | undefined; ksks: string[] },
  ds: DSValue[],
): void {
  const shown = ds.map((d) => DS.format(d)).join('; ');
  if (signing.state === 'signed') {
    if (!ds.length) {
      add(
        'DS_MISSING',
        'warning',
        null,
        `${zone} is signed and ${absolute(parent)} publishes no DS for it: validating resolvers treat it as unsigned (give the parent a DS of the zone's DNSSEC status)`,
      );
      return;
    }
    const apex = canonicalNameWire(`${zone}.`);
    const keys = signing.ksks.flatMap((text) => {
      const parsed = DNSKEY.parse(text, zone);
      return parsed.ok ? [parsed.value] : [];
    });
    if (!ds.some((d) => keys.some((key) => dsMatchesKey(apex, key, d))))
      add(
        'DS_MISMATCH',
        'critical',
        null,
        `no DS at ${absolute(parent)} (${shown}) matches a KSK or CSK of ${zone}: validating resolvers fail the zone (SERVFAIL)`,
      );
  } else if (signing.state === undefined && ds.length)
    add(
      'DS_MISMATCH',
      'critical',
      null,
      `${absolute(parent)} publishes DS for ${zone} (${shown}), which is not signed: validating resolvers fail the zone (SERVFAIL)`,
    );
}

type ServerCheck = { ok: true; serial: number; signatures: { covers: string; remaining: number }[] } | { ok: false; reason: string };

/** one nameserver's answers for the zone: the SOA with authority, and the RRSIGs over SOA and DNSKEY when signed */
async function checkServer(resolver: IterativeResolver, server: NameServer, zone: string, signed: boolean): Promise<ServerCheck> {
  const asked = await resolver.ask(server, zone, SOA.code, signed);
  if (!asked.ok) return { ok: false, reason: `no answer for ${zone} SOA: ${asked.reason}` };
  const { answer } = asked;
  if (answer.rcode !== 0) return { ok: false, reason: `answered ${rcodeName(answer.rcode)} for ${zone} SOA` };
  if (!(answer.message.flags & FLAG.AA))
    return { ok: false, reason: `answers ${zone} SOA without authority (no AA): it does not serve the zone` };
  const soa = answer.message.answers.find((r) => r.type === SOA.code && bareName(r.name) === zone);
  if (!soa) return { ok: false, reason: `no SOA of ${zone} in its answer` };
  const serial = readRdata(answer.raw, soa, SOA).serial;
  const signatures: { covers: string; remaining: number }[] = [];
  if (signed) {
    signatures.push(...signaturesOver(answer.raw, answer.message.answers, zone, SOA.code, 'SOA'));
    const keys = await resolver.ask(server, zone, DNSKEY.code, true);
    if (keys.ok && keys.answer.rcode === 0)
      signatures.push(...signaturesOver(keys.answer.raw, keys.answer.message.answers, zone, DNSKEY.code, 'DNSKEY'));
  }
  return { ok: true, serial, signatures };
}

/** the seconds left to each RRSIG over `type` at the apex (RFC 4034 §3.1.5: serial number arithmetic, modulo 2^32) */
function signaturesOver(raw: Buffer, records: readonly WireRecord[], zone: string, type: number, covers: string) {
  const now = Math.floor(Date.now() / 1000);
  return records
    .filter((r) => r.type === RRSIG.code && bareName(r.name) === zone)
    .map((r) => readRdata(raw, r, RRSIG))
    .filter((sig) => sig.typeCovered === type)
    .map((sig) => ({ covers, remaining: (sig.expiration - now) | 0 }));
}
