/**
 * A steered RRset's and a check's input read and completed (docs/steering.md): the settings with their defaults,
 * octoDNS's names and values, the canonical member values, and the view the API answers of an RRset.
 */
import { createHash } from 'node:crypto';
import type { Sql } from '../../db/pool';
import { parseApiRecord } from '../../dns/record';
import { AllowedTtls, ttlAllowed } from '../../dns/ttl';
import { DomainError, ErrorDetail, errorFromProblems } from '../../errors/catalogue';
import {
  AdminStatus,
  AllDown,
  CheckDefinition,
  CheckRow,
  checksOfZone,
  deleteCheck,
  everyPool,
  RrsetRow,
  rrsetsOfZone,
  SteeringDefaults,
  SteeringPool,
} from '../../repositories/steering';
import type { ZoneChange } from '../write-engine';
import { memberCondition, memberHealthy, type SteeringCondition } from './decision';
import { commitSteered } from './materialise';
import { ruleNetworksText } from './rules';
import { steeringViewNames } from '../../repositories/views';

export interface SteeringCheckInput {
  name: string;
  protocol: string;
  /** none for an external check */
  address?: string | null;
  port?: number | null;
  host?: string | null;
  path?: string | null;
  statusMin?: number | null;
  statusMax?: number | null;
  bodyContains?: string | null;
  verifyTls?: boolean | null;
  intervalSeconds?: number | null;
}

/** a zone's defaults for new members' checks: each field not given (or null) is not set */
export type SteeringDefaultsInput = { [K in keyof Omit<SteeringCheckInput, 'name' | 'address'>]?: SteeringCheckInput[K] | null };

export interface SteeringMemberInput {
  value: string;
  checkId?: number | null;
  admin?: string | null;
  weight?: number | null;
}

export interface SteeringPoolInput {
  minHealthy?: number | null;
  members: SteeringMemberInput[];
}

export interface SteeringRuleInput {
  subnets?: string[] | null;
  geos?: string[] | null;
  pools?: SteeringPoolInput[] | null;
}

export interface SteeredRrsetInput {
  owner: string;
  type: string;
  ttl?: number | null;
  pools: SteeringPoolInput[];
  maxAnswers?: number | null;
  backup?: string[] | null;
  allDown?: string | null;
  /**
   * answers by the asker's network or country, first match first (docs/steering.md, «Rules by network and
   * country»): each rule's subnets and octoDNS geos, and its pools in fallback order; compiled into views
   */
  rules?: SteeringRuleInput[] | null;
}

/** a member as the API shows it: its definition and the live state of the check it follows */
export interface SteeringMemberView {
  value: string;
  checkId: number | null;
  admin: AdminStatus;
  weight: number;
  /**
   * its admin status, then its check's, say it is healthy; never while its check is held (the panic freeze, no
   * sound vantage), though it is still served then (`condition` says why)
   */
  healthy: boolean;
  condition: SteeringCondition;
  check: CheckRow | null;
}

export interface SteeredRrsetView extends Omit<RrsetRow, 'pools' | 'rules'> {
  pools: { minHealthy: number; members: SteeringMemberView[] }[];
  rules: { subnets: string[]; geos: string[]; pools: { minHealthy: number; members: SteeringMemberView[] }[]; view: string | null }[];
}

export const ADMIN_STATUSES: readonly AdminStatus[] = ['up', 'down', 'obey'];
export const ALL_DOWN: readonly AllDown[] = ['backup', 'empty'];
export const PROTOCOLS = ['http', 'https', 'tcp', 'external'] as const;
/** the longest lease a report of an external check may ask for: a day */
export const MAX_LEASE_SECONDS = 86_400;
export const MAX_POOLS = 16;
export const MAX_MEMBERS = 64;
/**
 * the TTL a steered RRset gets when none is given: short, so that resolvers follow a transition within a minute
 * (Route 53 advises 60 s for failover records), or the shortest the request's TTL policy allows (allowedTtlsOf)
 */
export const PREFERRED_TTL = 60;
export function defaultTtl(allowed: AllowedTtls): number {
  if (ttlAllowed(PREFERRED_TTL, allowed)) return PREFERRED_TTL;
  const starts = allowed.map((a) => (typeof a === 'number' ? a : a[0]));
  return Math.min(...starts.filter((t) => t >= PREFERRED_TTL), Math.max(...starts));
}

/** what a check asks and expects, besides its name and address */
export type CheckSettings = Omit<CheckDefinition, 'name' | 'address'>;

/**
 * A check's settings read and completed with their defaults (port 80 or 443 by protocol, path /, status 200–399,
 * no body text, the certificate not verified, STEERING_CHECK_INTERVAL); each problem told to `bad`, by field.
 */
export function parseCheckSettings(input: Omit<SteeringCheckInput, 'name'>, bad: (field: string, message: string) => void): CheckSettings {
  const protocol = String(input.protocol ?? '').toLowerCase() as CheckDefinition['protocol'];
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) bad('protocol', `one of ${PROTOCOLS.join(', ')}`);
  const intervalSeconds = input.intervalSeconds ?? null;
  if (intervalSeconds !== null && (!Number.isInteger(intervalSeconds) || intervalSeconds < 1 || intervalSeconds > 300))
    bad('intervalSeconds', '1 to 300 seconds (none: STEERING_CHECK_INTERVAL)');
  if (protocol === 'external') {
    for (const field of ['port', 'host', 'bodyContains'] as const)
      if (input[field] != null && input[field] !== '') bad(field, 'an external check probes nothing: its status is reported');
    return {
      protocol,
      port: 0,
      host: null,
      path: '/',
      statusMin: 200,
      statusMax: 399,
      bodyContains: null,
      verifyTls: false,
      intervalSeconds,
    };
  }
  const port = input.port ?? (protocol === 'https' ? 443 : protocol === 'http' ? 80 : undefined);
  if (port === undefined || !Number.isInteger(port) || port < 1 || port > 65535) bad('port', 'a port 1–65535 (a TCP check names one)');
  const http = protocol !== 'tcp';
  const host = input.host?.trim().replace(/\.$/, '') || null;
  if (host !== null && (!http || !/^[A-Za-z0-9_.-]{1,253}$/.test(host)))
    bad('host', 'an HTTP(S) check’s host name (the Host header and the TLS server name)');
  const path = input.path?.trim() || '/';
  if (!path.startsWith('/') || path.length > 1024 || /\s/.test(path))
    bad('path', 'an absolute path without spaces, at most 1024 characters');
  const statusMin = input.statusMin ?? 200;
  const statusMax = input.statusMax ?? 399;
  if (!Number.isInteger(statusMin) || !Number.isInteger(statusMax) || statusMin < 100 || statusMax > 599 || statusMin > statusMax)
    bad('statusMin', 'the expected status range lies within 100–599, its first not above its last');
  const bodyContains = input.bodyContains ?? null;
  if (bodyContains !== null && (!http || bodyContains.length < 1 || bodyContains.length > 255))
    bad('bodyContains', 'an HTTP(S) check’s text of 1 to 255 characters');
  return {
    protocol,
    port: port as number,
    host: http ? host : null,
    path: http ? path : '/',
    statusMin,
    statusMax,
    bodyContains: http ? bodyContains : null,
    verifyTls: protocol === 'https' && input.verifyTls === true,
    intervalSeconds,
  };
}

/** octoDNS's default health check (octodns/record/base.py: healthcheck protocol, path; its port 443 is HTTPS's) */
export const OCTODNS_HEALTHCHECK = { protocol: 'https', path: '/_dns' } as const;

/**
 * What the check made for a new member of an octoDNS dynamic record asks and expects: the zone's defaults, then
 * octoDNS's default health check with the record's name as Host and TLS server name. octodns-powerdns does not
 * send the YAML's `octodns.healthcheck` (its marker holds pools and rules only), so these are set here.
 */
export function memberCheckSettings(defaults: SteeringDefaults, recordName: string): Omit<SteeringCheckInput, 'name'> {
  const protocol = defaults.protocol ?? OCTODNS_HEALTHCHECK.protocol;
  return {
    protocol,
    port: defaults.port,
    host: defaults.host ?? (protocol === 'tcp' ? null : recordName),
    path: defaults.path ?? OCTODNS_HEALTHCHECK.path,
    statusMin: defaults.statusMin,
    statusMax: defaults.statusMax,
    bodyContains: defaults.bodyContains,
    verifyTls: defaults.verifyTls,
    intervalSeconds: defaults.intervalSeconds,
  };
}

/**
 * A zone's defaults as given, checked as the check they lead to is (a TCP default names its port, a status range
 * holds together with the default's other end); what is not given stays unset.
 */
export function parseSteeringDefaults(input: SteeringDefaultsInput): SteeringDefaults {
  const problems: ErrorDetail[] = [];
  const bad = (field: string, message: string) => problems.push({ field, code: 'INVALID_VALUE', message: `${field}: ${message}` });
  const given = <T>(value: T | null | undefined): T | null => (value === undefined || value === '' ? null : value);
  const protocol = given(input.protocol)?.toLowerCase() ?? null;
  if (protocol === 'external') bad('protocol', 'http, https or tcp: a member’s check probes the member’s address');
  const defaults: SteeringDefaults = {
    protocol: protocol as SteeringDefaults['protocol'],
    port: given(input.port),
    host: given(input.host),
    path: given(input.path),
    statusMin: given(input.statusMin),
    statusMax: given(input.statusMax),
    bodyContains: given(input.bodyContains),
    verifyTls: given(input.verifyTls),
    intervalSeconds: given(input.intervalSeconds),
  };
  // a record's name stands for the Host the check would take from it
  const settings = parseCheckSettings(memberCheckSettings(defaults, 'www.example'), bad);
  // what a check of another protocol would drop is refused here, not kept to apply to nothing
  if (defaults.path !== null && settings.protocol === 'tcp') bad('path', 'an HTTP(S) check’s path: a TCP check asks for none');
  if (defaults.verifyTls === true && settings.protocol !== 'https') bad('verifyTls', 'an HTTPS check’s: only HTTPS has a certificate');
  if (problems.length) throw errorFromProblems(problems);
  return {
    ...defaults,
    host: defaults.host === null ? null : settings.host,
    path: defaults.path === null ? null : settings.path,
  };
}

/** the prefix of the checks made for octoDNS's dynamic records: they go when no RRset follows them */
export const OCTODNS_CHECK_PREFIX = 'octodns_';

/** a check's name for an address of a record: readable where it fits the 63 characters a name has, else a digest */
export function octodnsCheckName(host: string, type: string, value: string): string {
  const readable = `${OCTODNS_CHECK_PREFIX}${host}_${type}_${value.replace(/:/g, '-')}`;
  if (readable.length <= 63) return readable;
  return `${OCTODNS_CHECK_PREFIX}${createHash('sha256').update(`${host} ${type} ${value}`).digest('hex').slice(0, 40)}`;
}

/** the checks made for octoDNS's dynamic records that no steered RRset of the zone follows any more */
export async function deleteUnfollowedOctodnsChecks(sql: Sql, domainId: number): Promise<void> {
  const followed = new Set(
    (await rrsetsOfZone(sql, domainId)).flatMap((r) => everyPool(r).flatMap((p) => p.members.map((m) => m.checkId))),
  );
  for (const check of await checksOfZone(sql, domainId))
    if (check.name.startsWith(OCTODNS_CHECK_PREFIX) && !followed.has(check.id)) await deleteCheck(sql, check.id);
}

/** stages the zone's steered RRsets as decided now and commits when they moved (with their events) */
export async function commitServed(change: ZoneChange): Promise<void> {
  await commitSteered(change);
}

export async function refuseDuplicateCheck(sql: Sql, domainId: number, name: string): Promise<void> {
  if ((await checksOfZone(sql, domainId)).some((c) => c.name === name)) {
    const message = `name: the zone has a check named ${name}`;
    throw new DomainError('DUPLICATE_STEERING', message, [{ field: 'name', code: 'DUPLICATE_STEERING', message }]);
  }
}

/** a zone not there for the caller, reached through one of its checks or RRsets: that check or RRset is not there */
export async function notFoundAs(code: 'STEERING_CHECK_NOT_FOUND' | 'STEERED_RRSET_NOT_FOUND', work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'ZONE_NOT_FOUND') throw DomainError.notFound(code, 'id');
    throw error;
  }
}

/**
 * a member's or backup value in its canonical presentation (an address, or a CNAME's absolute target); the
 * RRset's TTL was held to the policy when the RRset was read (parseOwner), so none is applied here
 */
export function canonicalValue(zone: string, rrset: { owner: string; type: string; ttl: number }, value: string, field: string): string {
  const parsed = parseApiRecord(zone, { owner: rrset.owner, type: rrset.type, ttl: rrset.ttl, rdata: String(value ?? '') }, []);
  if (!parsed.ok) {
    const message = `${field}: ${parsed.problems.map((p) => p.message).join('; ')}`;
    throw DomainError.invalid(field, message);
  }
  return parsed.record.rdata;
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw DomainError.invalid(field, `${field}: one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`, 'INVALID_CHOICE');
}

export function viewOf(rrset: RrsetRow, checks: Map<number, CheckRow>, views: Map<string, string>): SteeredRrsetView {
  const statusOf = (id: number) => checks.get(id)?.status;
  const poolsOf = (pools: SteeringPool[]) =>
    pools.map((pool) => ({
      minHealthy: pool.minHealthy,
      members: pool.members.map((m) => {
        const check = m.checkId === null ? null : (checks.get(m.checkId) ?? null);
        return {
          ...m,
          healthy: memberHealthy(m, statusOf) && (m.admin !== 'obey' || !check?.held),
          condition: memberCondition(m, check),
          check,
        };
      }),
    }));
  return {
    ...rrset,
    pools: poolsOf(rrset.pools),
    rules: (rrset.rules ?? []).map((rule) => ({
      subnets: rule.subnets,
      geos: rule.geos,
      pools: poolsOf(rule.pools),
      view: views.get(ruleNetworksText(rule)) ?? null,
    })),
  };
}

/** the views of steering's own by their networks' text, to name each rule's view */
export async function ruleViewNames(sql: Sql): Promise<Map<string, string>> {
  return new Map((await steeringViewNames(sql)).map((v) => [v.steeringNetworks, v.name]));
}
