import { DomainError, ERROR_CATALOGUE } from '../errors/catalogue';
import { isIP } from 'node:net';
import { hostPortName, type Settings } from '../config/settings';
import { ownerToFqdn, parseOwner } from '../dns/name';
import { DEFAULT_RECORD_TTL } from '../dns/ttl';
import { parseDnssecAlgorithm } from '../dns/dnssec/algorithms';
import type { Services } from '../services';
import type { RequestContext } from '../services/context';
import { normaliseZoneName } from '../dns/zone-name';
import { parseBase64 } from '../dns/presentation';
import type { DomainRow } from '../repositories/read-model';
import type { ZoneChangeOptions, ZoneChangeSpec } from '../services/zone-changes.service';
import type { RrsetCommentsInput } from '../services/rrset-comments.service';
import {
  absoluteName,
  POWERDNS_VERSION,
  powerDnsContent,
  presentCryptokey,
  presentPrimary,
  presentRrsets,
  presentServer,
  presentTsigKey,
  presentZone,
  SERVER_ID,
} from './presenters';

/**
 * The PowerDNS HTTP API as a table (docs/powerdns-api.md): each path of the part of the API that the PowerDNS
 * clients use (external-dns, cert-manager's webhook, lego, acme.sh, octoDNS, DNSControl, Terraform,
 * PowerDNS-Admin) reads its inputs and calls the services as the key's principal. The services decide;
 * this table only translates PowerDNS's names and shapes to theirs and back.
 */

/** A refusal in PowerDNS's shape: `{"error": message}` with this status. */
export class PowerDnsError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export type PowerDnsResult = { status: number; body: unknown } | { status: number; text: string; contentType: string } | { status: number };

export interface PowerDnsInputs {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  services: Services;
  ctx: RequestContext;
  /** filled by a route that sends a change set: the label of each change (`RRset www.example.com. IN A`), for its errors */
  labels: string[];
  /** likewise, the label of each RRset whose comments the set replaces */
  commentLabels: string[];
  /** what the client's Accept prefers of the two PowerDNS answers in: `json` or `text` (the export) */
  accepts: 'json' | 'text';
}

export interface PowerDnsRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  handle(inputs: PowerDnsInputs): PowerDnsResult | Promise<PowerDnsResult>;
}

/**
 * Record content as PowerDNS takes it: standing alone, names fully qualified and character-strings quoted; an
 * apex SOA gives its fields, its serial Zonekeeper's (PowerDNS's SOA-EDIT-API); ACME clients' TTLs (60, 120)
 * take the nearest allowed
 */
const CONTENT_AS_POWERDNS: ZoneChangeOptions = { rdataNames: 'fullyQualified', ttls: 'nearest', soa: 'fields' };

/** a name or field the services refused as malformed (400 or 422) */
const isInputError = (error: unknown) => error instanceof DomainError && [400, 422].includes(ERROR_CATALOGUE[error.code].status);

/** a client's value in a message, whatever JSON type it came as */
const shown = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

const refuse = (message: string, status = 422) => new PowerDnsError(status, message);

/** the request body as an object of fields, or PowerDNS's 422 */
function objectBody(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw refuse('the request body must be a JSON object');
  return body as Record<string, unknown>;
}

/**
 * A name as PowerDNS takes it in a body: text ending with the root's dot (ws-api.cc apiNameToDNSName: "DNS
 * Name 'www' is not canonical"); any letter case.
 */
function canonicalName(value: unknown, what = 'DNS Name'): string {
  if (typeof value !== 'string' || value === '') throw refuse(`${what} is not specified or not a string`);
  if (!value.endsWith('.')) throw refuse(`${what} '${value}' is not canonical`);
  return value;
}

/** a zone id from the path (`example.com.`, `example.com`; `=2F` is `/`, ws-api.cc apiZoneIdToName) */
const zoneOfPath = (id: string) => id.replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

const notFound = (inputs: PowerDnsInputs) => refuse(`Could not find domain '${inputs.params.zone}'`, 404);

/** a zone the key can see, or 404 as PowerDNS answers for a zone it does not have */
async function zoneOf(inputs: PowerDnsInputs): Promise<DomainRow> {
  try {
    return await inputs.services.domains.get(inputs.ctx, { name: zoneOfPath(inputs.params.zone) });
  } catch (error) {
    if (error instanceof DomainError && (error.code === 'ZONE_NOT_FOUND' || isInputError(error))) throw notFound(inputs);
    throw error;
  }
}

/**
 * Each zone's `account` (the text it was given, else its owner's e-mail), `kind` (as it was given), `dnssec`:
 * a few statements for the whole list
 */
async function presentZones(inputs: PowerDnsInputs, zones: DomainRow[]) {
  const { services, ctx } = inputs;
  const [users, signed, primaries, labels] = await Promise.all([
    services.zoneReads.usersByIds(ctx, [...new Set(zones.map((zone) => zone.userId))]),
    services.dnssec.signedAmong(ctx, zones),
    services.secondaryZones.primariesOf(ctx, zones),
    services.domains.apiLabels(ctx, zones),
  ]);
  const emails = new Map(users.map((user) => [user.id, user.email]));
  return zones.map((zone) => {
    const label = labels.get(zone.id);
    return presentZone(zone, {
      account: label?.account ?? emails.get(zone.userId) ?? '',
      kind: label?.kind ?? undefined,
      dnssec: signed.has(zone.id),
      primaries: primaries.get(zone.id),
      soaEditApi: SOA_EDIT_API[services.settings.serialPolicy],
    });
  });
}

/** a zone with its rrsets (those the key may read), as the zone's GET and its creation answer */
async function zoneWithRrsets(inputs: PowerDnsInputs, zone: DomainRow, filter: { owner?: string; type?: string } = {}) {
  const [presented] = await presentZones(inputs, [zone]);
  // a secondary zone never taken (serial 0) holds only a placeholder SOA, not served: no rrsets, as PowerDNS shows it
  if (zone.kind === 'secondary' && presented.serial === 0) return { ...presented, rrsets: [] };
  const records = [];
  // PowerDNS shows an ALIAS, not what it resolves to: the records as written, as the export writes them
  for await (const page of inputs.services.records.pages(inputs.ctx, { domainId: zone.id, ...filter, asWritten: true }, 10_000))
    records.push(...page);
  const comments = await inputs.services.rrsetComments.list(inputs.ctx, zone, filter);
  const disabled = await inputs.services.disabledRecords.list(inputs.ctx, zone, filter);
  return { ...presented, rrsets: presentRrsets(zone.name, records, comments, disabled) };
}

const flag = (value: unknown, name: string, fallback: boolean): boolean => {
  if (value === undefined) return fallback;
  if (value === 'true' || value === true) return true;
  if (value === 'false' || value === false) return false;
  throw refuse(`'${name}' request parameter value '${shown(value)}' is not supported`);
};

/** an rrset's records: each one's content, and `disabled` (kept, not served; absent is false, as in PowerDNS) */
function contentsOf(rrset: Record<string, unknown>, label: string): { content: string; disabled: boolean }[] {
  return recordsOf(rrset, label).map((record: unknown) => ({ content: contentOf(record, label), disabled: disabledOf(record, label) }));
}

/** an rrset's `records`, a list */
function recordsOf(rrset: Record<string, unknown>, label: string): unknown[] {
  if (!Array.isArray(rrset.records)) throw refuse(`${label}: records is not an array`);
  return rrset.records;
}

/** one record's content; its `disabled` (absent is false) */
function contentOf(record: unknown, label: string): string {
  const content = record && typeof record === 'object' ? (record as Record<string, unknown>).content : undefined;
  if (typeof content !== 'string') throw refuse(`${label}: a record's content is not specified or not a string`);
  return content;
}
function disabledOf(record: unknown, label: string): boolean {
  const disabled = record && typeof record === 'object' ? (record as Record<string, unknown>).disabled : undefined;
  if (disabled !== undefined && typeof disabled !== 'boolean') throw refuse(`${label}: a record's disabled is not a boolean`);
  return disabled === true;
}

/**
 * An rrset's TTL: a whole number of seconds, needed when it brings records. PowerDNS 4.7 takes it written as
 * digits in a string too (the Ansible collection sends `"ttl": "86400"`), and so does this edge.
 */
function ttlOf(rrset: Record<string, unknown>, label: string): number {
  const ttl = typeof rrset.ttl === 'string' && /^[0-9]{1,10}$/.test(rrset.ttl) ? Number(rrset.ttl) : rrset.ttl;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0) throw refuse(`${label}: ttl is not specified or not a whole number`);
  return ttl;
}

const CHANGE_KINDS: Record<string, ZoneChangeSpec['kind']> = {
  REPLACE: 'REPLACE_RRSET',
  DELETE: 'REPLACE_RRSET',
  EXTEND: 'EXTEND_RRSET',
  PRUNE: 'PRUNE_RRSET',
};

/**
 * An rrset's `comments` as PowerDNS reads them (ws-auth.cc gatherComments): each with its `content` and
 * `account`, and `modified_at` (seconds since 1970) or now.
 */
function commentsOf(rrset: Record<string, unknown>, label: string): RrsetCommentsInput['comments'] {
  return (rrset.comments as unknown[]).map((item: unknown) => {
    const comment = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    for (const field of ['content', 'account'])
      if (typeof comment[field] !== 'string') throw refuse(`${label}: a comment's ${field} is not specified or not a string`);
    const modifiedAt = comment.modified_at;
    if (modifiedAt !== undefined && (typeof modifiedAt !== 'number' || !Number.isInteger(modifiedAt) || modifiedAt < 0))
      throw refuse(`${label}: a comment's modified_at is not a whole number of seconds`);
    return {
      content: comment.content as string,
      account: comment.account as string,
      modifiedAt: modifiedAt === undefined ? undefined : new Date(modifiedAt * 1000),
    };
  });
}

/**
 * A PATCH's rrsets as one change set: REPLACE (an empty `records` list deletes the RRset), DELETE, and
 * PowerDNS 4.9's EXTEND and PRUNE (one record each). Fields the change does not need (lego's `kind`,
 * Terraform's `set-ptr`) are ignored. As in PowerDNS, a REPLACE with `comments` replaces the RRset's comments
 * (with only `comments`, its records stay), one without leaves them, and a DELETE deletes them too.
 */
function changesOfPatch(
  body: Record<string, unknown>,
  labels: string[],
  commentLabels: string[],
): { changes: ZoneChangeSpec[]; comments: RrsetCommentsInput[] } {
  const rrsets = body.rrsets;
  if (!Array.isArray(rrsets)) throw refuse('No rrsets given in update request');
  const seen = new Set<string>();
  const changes: ZoneChangeSpec[] = [];
  const comments: RrsetCommentsInput[] = [];
  for (const item of rrsets) {
    const rrset = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    const name = canonicalName(rrset.name);
    if (typeof rrset.type !== 'string' || rrset.type === '') throw refuse(`RRset ${name}: type is not specified or not a string`);
    const type = rrset.type.toUpperCase();
    const label = `RRset ${name} IN ${type}`;
    const changetype = typeof rrset.changetype === 'string' ? rrset.changetype.toUpperCase() : '';
    const kind = CHANGE_KINDS[changetype];
    if (!kind) throw refuse(`Changetype '${shown(rrset.changetype ?? '')}' is not a valid value`);
    if (changetype === 'REPLACE' || changetype === 'DELETE') {
      const key = `${name.toLowerCase()} ${type} ${changetype === 'DELETE' ? 'REPLACE' : changetype}`;
      if (seen.has(key)) throw refuse(`Duplicate RRset ${name} IN ${type} with changetype: ${changetype}`);
      seen.add(key);
    }
    // PowerDNS replaces the records or the comments of a REPLACE that gives them as a list (ws-auth.cc patchZone)
    if (changetype === 'DELETE' || (changetype === 'REPLACE' && Array.isArray(rrset.comments))) {
      commentLabels.push(label);
      comments.push({ owner: name, type, comments: changetype === 'DELETE' ? [] : commentsOf(rrset, label) });
    }
    if (changetype === 'REPLACE' && !Array.isArray(rrset.records)) {
      if (Array.isArray(rrset.comments)) continue;
      throw refuse(`No change for ${label}`);
    }
    const records = changetype === 'DELETE' ? [] : recordsOf(rrset, label);
    // each record's content and state, read (and refused) in order as it is put in its list: no object for each
    // record first
    const served: string[] = [];
    const disabled: string[] = [];
    for (const r of records) {
      const content = contentOf(r, label);
      (disabledOf(r, label) ? disabled : served).push(content);
    }
    if ((changetype === 'EXTEND' || changetype === 'PRUNE') && records.length !== 1)
      throw refuse(
        records.length
          ? 'Exactly one record should be provided for PRUNE or EXTEND operation'
          : 'No record provided for PRUNE or EXTEND operation',
      );
    const ttl = records.length ? ttlOf(rrset, label) : undefined;
    labels.push(label);
    // a REPLACE (or DELETE) replaces the rrset's disabled records too; EXTEND brings its record in the state given
    // (PRUNE takes it in either state)
    if (kind === 'REPLACE_RRSET') changes.push({ kind, owner: name, type, ttl, rdatas: served, disabledRdatas: disabled });
    else changes.push({ kind, owner: name, type, ttl, rdatas: disabled.length ? disabled : served, disabled: disabled.length > 0 });
  }
  return { changes, comments };
}

/** a zone's `account`: free text in PowerDNS (`""` for none), kept as given; absent or not text, none (PowerDNS 4.7 ignores it too) */
function accountOf(account: unknown): string | null {
  return typeof account === 'string' ? account : null;
}

/**
 * The user a zone is created for: a user's key creates for its user (`account` is then a label, shown back as
 * given). The admin key's `account` names a user by e-mail or id; PowerDNS's account is free text and most
 * clients send none or `""` (octoDNS, DNSControl, Terraform, external-dns, PowerDNS-Admin), so a zone whose
 * account names no user belongs to the operator's user (OPERATOR_ACCOUNT, made on first need), as a
 * Zonekeeper zone always belongs to a user.
 */
async function ownerOfNewZone(inputs: PowerDnsInputs, account: string | null): Promise<number> {
  const { ctx, services } = inputs;
  if (ctx.principal.kind === 'user') return ctx.principal.userId;
  const text = account?.trim() ?? '';
  if (text !== '') {
    const by = /^\d+$/.test(text) ? { id: Number(text) } : { email: text };
    try {
      return (await services.users.get(ctx, by)).id;
    } catch (error) {
      if (!(error instanceof DomainError && (error.code === 'USER_NOT_FOUND' || isInputError(error)))) throw error;
    }
  }
  return (await services.users.operator(ctx)).id;
}

/**
 * PowerDNS kinds Zonekeeper's zones are, and the kind each reads back as: every zone written here is a primary
 * that NOTIFYs its secondaries, `Native` (PowerDNS's zone replicated by other means) shown as asked (Terraform
 * compares `kind` at every plan), `Master` and `Primary` as `Master` (PowerDNS 4.7's name)
 */
const PRIMARY_KINDS: Record<string, 'Native' | 'Master'> = { native: 'Native', master: 'Master', primary: 'Master' };
/** PowerDNS's names of a secondary zone's kind (taken from its primaries, docs/transfers.md) */
const SECONDARY_KINDS = ['slave', 'secondary'];
/** a primary kind as it is kept and read back, or 422; `required`: a new zone names its kind, as PowerDNS wants */
function primaryKind(kind: unknown, required: boolean): 'Native' | 'Master' | undefined {
  if ((kind === undefined || kind === null) && !required) return undefined;
  if (typeof kind !== 'string') throw refuse("Key 'kind' not present or not a String");
  const found = PRIMARY_KINDS[kind.toLowerCase()];
  if (SECONDARY_KINDS.includes(kind.toLowerCase()))
    throw refuse('kind: a zone written here stays a primary zone; a secondary zone is created as one, with its masters');
  if (!found) throw refuse(`kind: ${JSON.stringify(kind)} is not one of Native, Master, Primary, Slave, Secondary`);
  return found;
}

/**
 * A primary of PowerDNS's `masters` as Zonekeeper's primaries take it: an IP address, with `:port` (an IPv6
 * address in brackets for that: `[2001:db8::53]:5300`); 53 without one. The services check the address itself.
 */
function primaryOf(text: unknown, field = 'masters'): { address: string; port?: number } {
  if (typeof text !== 'string' || text === '') throw refuse(`${field}: each server is an IP address, as a string`);
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  const v4 = /^([0-9.]+):(\d{1,5})$/.exec(text);
  const [address, port] = bracketed ? [bracketed[1], bracketed[2]] : v4 ? [v4[1], v4[2]] : [text, undefined];
  if (!isIP(address))
    throw refuse(field === 'masters' ? `Master (${text}) is not an IP address` : `${field}: ${text} is not an IP address`);
  return { address, ...(port === undefined ? {} : { port: Number(port) }) };
}

/**
 * A secondary zone as PowerDNS makes one (`kind` Slave or Secondary, `masters`, `slave_tsig_key_ids`: the key its
 * SOA queries and transfers are signed with, PowerDNS's AXFR-MASTER-TSIG): Zonekeeper's secondary zone, taken by
 * transfer from those primaries (docs/transfers.md), made by the service GraphQL's createDomain uses, under its
 * rules (a user's key names no primary on this host or the link). Its records are its primaries': `rrsets`,
 * `nameservers` and `dnssec` are refused, as the zone would not keep them.
 */
async function createSecondary(inputs: PowerDnsInputs, body: Record<string, unknown>, name: string): Promise<PowerDnsResult> {
  const { services, ctx } = inputs;
  const zone = normaliseZoneName(name, 'name');
  if (!Array.isArray(body.masters) || body.masters.length === 0)
    throw refuse('masters: a secondary zone needs at least one primary to take it from');
  for (const field of ['rrsets', 'nameservers'])
    if (Array.isArray(body[field]) && (body[field] as unknown[]).length)
      throw refuse(`${field}: a secondary zone takes its records from its primaries`);
  if (body.dnssec === true) throw refuse('dnssec: a secondary zone is signed, or not, by its primary');
  const keys = body.slave_tsig_key_ids ?? [];
  if (!Array.isArray(keys) || keys.some((key) => typeof key !== 'string')) throw refuse('slave_tsig_key_ids: a list of TSIG key ids');
  if (keys.length > 1) throw refuse('slave_tsig_key_ids: one key signs the transfers from every primary');
  const tsigKeyName = keys.length ? (keys[0] as string) : null;
  const account = accountOf(body.account);
  const created = await services.domains.create(ctx, {
    userId: await ownerOfNewZone(inputs, account),
    zone,
    kind: 'secondary',
    primaries: body.masters.map((text) => ({ ...primaryOf(text), tsigKeyName })),
    apiLabels: { account: account ?? '' },
  });
  return { status: 201, body: await zoneWithRrsets(inputs, created) };
}

/** the zone's records at creation (PowerDNS's `rrsets` and `nameservers`), one change each, with its label */
function initialChanges(
  services: Services,
  zone: string,
  body: Record<string, unknown>,
  labels: string[],
): { records: ZoneChangeSpec[]; nameservers: ZoneChangeSpec[] } {
  const changes: ZoneChangeSpec[] = [];
  if (body.rrsets !== undefined && !Array.isArray(body.rrsets)) throw refuse('rrsets is not a list');
  let apexNs = false;
  for (const item of (body.rrsets as unknown[] | undefined) ?? []) {
    const rrset = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    const name = canonicalName(rrset.name);
    const type = typeof rrset.type === 'string' ? rrset.type.toUpperCase() : '';
    const label = `RRset ${name} IN ${type}`;
    if (type === 'NS' && name.toLowerCase() === `${zone}.`) apexNs = true;
    const contents = contentsOf(rrset, label);
    const ttl = contents.length ? ttlOf(rrset, label) : 0;
    for (const { content: rdata, disabled } of contents) {
      labels.push(label);
      changes.push({ kind: 'ADD', owner: name, type, ttl, rdata, disabled });
    }
  }
  if (body.nameservers !== undefined && !Array.isArray(body.nameservers)) throw refuse('Nameservers is not a list');
  const nameservers = (body.nameservers as unknown[] | undefined) ?? [];
  if (nameservers.length && apexNs) throw refuse('Nameservers list MUST NOT be mixed with zone-level NS in rrsets');
  for (const ns of nameservers) {
    if (typeof ns !== 'string' || ns === '') throw refuse('Nameservers must be non-empty strings');
    if (!ns.endsWith('.')) throw refuse(`Nameserver is not canonical: '${ns}'`);
  }
  // the apex NS named in `nameservers`, or the service's defaults when neither they nor `rrsets` name any
  const nsChanges: ZoneChangeSpec[] = [];
  for (const { rdata, ttl } of apexNs ? [] : services.domains.apexNameservers(nameservers as string[])) {
    labels.push(`RRset ${zone}. IN NS`);
    nsChanges.push({ kind: 'ADD', owner: `${zone}.`, type: 'NS', ttl, rdata });
  }
  return { records: changes, nameservers: nsChanges };
}

/** the comments of a new zone's `rrsets`, those that have any, with their labels */
function commentsOfNewZone(body: Record<string, unknown>, commentLabels: string[]): RrsetCommentsInput[] {
  const comments: RrsetCommentsInput[] = [];
  for (const item of Array.isArray(body.rrsets) ? body.rrsets : []) {
    const rrset = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    if (!Array.isArray(rrset.comments) || rrset.comments.length === 0) continue;
    const name = canonicalName(rrset.name);
    const type = typeof rrset.type === 'string' ? rrset.type.toUpperCase() : '';
    const label = `RRset ${name} IN ${type}`;
    commentLabels.push(label);
    comments.push({ owner: name, type, comments: commentsOf(rrset, label) });
  }
  return comments;
}

/** a TSIG key's name as TSIG compares it: any letter case, with or without the final dot */
const sameKeyName = (a: string, b: string) => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

/** the active TSIG key named by the path's id (its name, as PowerDNS's ids), among the caller's keys, or 404 */
async function tsigKeyOfPath({ services, ctx, params }: PowerDnsInputs) {
  const key = (await services.tsigKeys.list(ctx)).find((k) => !k.revokedAt && sameKeyName(k.name, params.id));
  if (!key) throw refuse(`TSIG key with name '${params.id}' not found`, 404);
  return key;
}

/**
 * A TSIG secret as PowerDNS takes it, in base64 (RFC 4648 §4, padded as every tool writes it). The secret is not
 * echoed in the refusal: errors may be logged.
 */
function tsigSecretOf(text: string): { value: Buffer; field: string } {
  const value = parseBase64(text, 'the secret', []);
  if (!value) throw refuse('key: the secret is not base64 (RFC 4648 §4, with its padding)');
  return { value, field: 'key' };
}

/** PowerDNS's names of SERIAL_POLICY: what a zone's SOA-EDIT-API reads (the serial each change gives) */
const SOA_EDIT_API: Record<Settings['serialPolicy'], string> = { date: 'DEFAULT', increment: 'INCREASE', unixtime: 'EPOCH' };

const METADATA_KINDS_TAKEN =
  "Zonekeeper writes ALSO-NOTIFY (the zone's extra secondaries); SOA-EDIT-API (SERIAL_POLICY), ALLOW-AXFR-FROM and TSIG-ALLOW-AXFR (the extra secondaries' addresses and keys) and AXFR-MASTER-TSIG (a secondary zone's transfer key, its slave_tsig_key_ids) are read from what the zone holds; other kinds are not kept";

const presentMetadata = (kind: string, metadata: string[]) => ({ type: 'Metadata', kind, metadata });

/**
 * A zone's metadata in PowerDNS's kinds, from what the zone holds (no store of its own): SOA-EDIT-API is the
 * serial policy; the zone's extra secondaries (docs/transfers.md) are its ALSO-NOTIFY (each `address[:port]`,
 * NOTIFYed), ALLOW-AXFR-FROM (their addresses, which may transfer it) and TSIG-ALLOW-AXFR (their keys); a
 * secondary zone's AXFR-MASTER-TSIG is the key its transfers from its primaries are signed with.
 */
async function metadataOf(inputs: PowerDnsInputs, zone: DomainRow): Promise<Map<string, string[]>> {
  const { services, ctx } = inputs;
  const [secondaries, primaries] = await Promise.all([
    services.zoneSecondaries.list(ctx, zone),
    services.secondaryZones.primariesOf(ctx, [zone]),
  ]);
  const unique = (values: string[]) => [...new Set(values)];
  return new Map([
    ['ALLOW-AXFR-FROM', unique(secondaries.map((s) => s.address))],
    ['ALSO-NOTIFY', secondaries.map((s) => presentPrimary(s))],
    ['AXFR-MASTER-TSIG', unique((primaries.get(zone.id) ?? []).flatMap((p) => (p.tsigKeyName ? [absoluteName(p.tsigKeyName)] : [])))],
    ['SOA-EDIT-API', [SOA_EDIT_API[services.settings.serialPolicy]]],
    ['TSIG-ALLOW-AXFR', unique(secondaries.map((s) => absoluteName(s.tsigKeyName)))],
  ]);
}

const SERVER = `/servers/${SERVER_ID}`;
const ZONE = `${SERVER}/zones/:zone`;

export const POWERDNS_ROUTES: PowerDnsRoute[] = [
  // the API's root: its features (none of PowerDNS's optional ones) and where its servers are, as PowerDNS answers
  { method: 'get', path: '/', handle: () => ({ status: 200, body: [{ api_features: [], server_url: '/api/v1/servers{/server}' }] }) },
  { method: 'get', path: '/servers', handle: () => ({ status: 200, body: [presentServer()] }) },
  { method: 'get', path: SERVER, handle: () => ({ status: 200, body: presentServer() }) },
  {
    // what octoDNS and PowerDNS-Admin read of the configuration: the settings that describe this server
    method: 'get',
    path: `${SERVER}/config`,
    handle: ({ services }) => ({
      status: 200,
      body: [
        ['api', 'yes'],
        ['daemon', 'no'],
        ['default-soa-edit', ''],
        ['default-ttl', String(DEFAULT_RECORD_TTL)],
        ['dnssec', 'yes'],
        ['primary', 'yes'],
        ['secondary', 'no'],
        ['version-string', POWERDNS_VERSION],
        ['local-address', services.settings.dnsListen ? hostPortName(services.settings.dnsListen) : ''],
      ].map(([name, value]) => ({ type: 'ConfigSetting', name, value })),
    }),
  },
  { method: 'get', path: `${SERVER}/statistics`, handle: () => ({ status: 200, body: [] }) },
  // no autoprimaries: Zonekeeper is the primary, not a secondary that provisions zones from a primary's NOTIFY
  { method: 'get', path: `${SERVER}/autoprimaries`, handle: () => ({ status: 200, body: [] }) },
  {
    // `?zone=` is an exact lookup (acme.sh asks for each candidate name), never a scan of every zone
    method: 'get',
    path: `${SERVER}/zones`,
    async handle(inputs) {
      const { query, services, ctx } = inputs;
      if (query.zone !== undefined) {
        // a name as PowerDNS takes it: with its final dot (`?zone=example.com` is 422, "not canonical")
        const name = canonicalName(query.zone);
        let zones: DomainRow[];
        try {
          zones = await services.domains.list(ctx, { name }, { first: 1 });
        } catch (error) {
          // a name that cannot be a zone is a zone PowerDNS does not have
          if (isInputError(error)) zones = [];
          else throw error;
        }
        return { status: 200, body: await presentZones(inputs, zones) };
      }
      const zones: DomainRow[] = [];
      const first = services.settings.maxPageSize;
      for (let after: number | undefined; ;) {
        const page = await services.domains.list(ctx, {}, { first, after });
        zones.push(...page);
        if (page.length < first) break;
        after = page[page.length - 1].id;
      }
      return { status: 200, body: await presentZones(inputs, zones) };
    },
  },
  {
    method: 'post',
    path: `${SERVER}/zones`,
    async handle(inputs) {
      const { services, ctx, labels } = inputs;
      const body = objectBody(inputs.body);
      const name = canonicalName(body.name, 'Zone Name');
      if (typeof body.kind === 'string' && SECONDARY_KINDS.includes(body.kind.toLowerCase())) return createSecondary(inputs, body, name);
      const kind = primaryKind(body.kind, true);
      if (Array.isArray(body.masters) && body.masters.length)
        throw refuse('masters: only a secondary zone (kind Slave or Secondary) has primaries');
      const zone = normaliseZoneName(name, 'name');
      const account = accountOf(body.account);
      // the SOA given in rrsets gives its fields (its serial is Zonekeeper's), as PowerDNS's SOA-EDIT-API does
      const initial = initialChanges(services, zone, body, labels);
      const { records, soa } = services.zoneChanges.parseInitialRecords(
        ctx,
        zone,
        services.domains.defaultSoa(0),
        initial,
        CONTENT_AS_POWERDNS,
      );
      // the rrsets' comments, checked before the zone is written and kept right after it (a second step, as `dnssec`)
      const comments = commentsOfNewZone(body, inputs.commentLabels);
      services.rrsetComments.requireValid(zone, comments);
      if (body.dnssec === true) services.dnssec.requireControl(ctx, zone);
      const userId = await ownerOfNewZone(inputs, account);
      const created = await services.domains.create(ctx, { userId, zone, records, soa, apiLabels: { account: account ?? '', kind } });
      // disabled records (checked with the rest, not created with them) are kept right after, with the comments
      const disabled = initial.records.filter((change) => change.disabled);
      labels.splice(0, labels.length, ...initial.records.flatMap((change, i) => (change.disabled ? [labels[i]] : [])));
      if (comments.length || disabled.length)
        await services.zoneChanges.apply(ctx, { zone, changes: disabled, comments }, CONTENT_AS_POWERDNS);
      if (body.dnssec === true) await services.dnssec.enable(ctx, { zone });
      return { status: 201, body: await zoneWithRrsets(inputs, await services.domains.get(ctx, { id: created.id })) };
    },
  },
  {
    method: 'get',
    path: ZONE,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const { query } = inputs;
      if (!flag(query.rrsets, 'rrsets', true)) return { status: 200, body: (await presentZones(inputs, [zone]))[0] };
      // PowerDNS 4.8's rrset_name / rrset_type (joeig/go-powerdns, cert-manager's webhook): one RRset's records
      const filter: { owner?: string; type?: string } = {};
      if (typeof query.rrset_name === 'string') {
        const owner = parseOwner(query.rrset_name, zone.name, 'rrset_name');
        // a name outside the zone has no records in it
        if (!owner.ok) return { status: 200, body: { ...(await presentZones(inputs, [zone]))[0], rrsets: [] } };
        filter.owner = owner.name;
        if (typeof query.rrset_type === 'string') filter.type = query.rrset_type.toUpperCase();
      }
      return { status: 200, body: await zoneWithRrsets(inputs, zone, filter) };
    },
  },
  {
    // the zone's own settings: DNSSEC on or off follows `dnssec`; `kind`: a primary zone stays one (`Native` or
    // `Master`, read back as set), a secondary zone made `Master`/`Native` is promoted (it keeps its records and
    // stops taking them from its primaries, as PowerDNS's kind change does: promoteZone); `account` is kept as
    // the zone's label (its owner stays); the others (soa_edit_api, nsec3param, api_rectify) are Zonekeeper's own
    // business and are ignored
    method: 'put',
    path: ZONE,
    async handle(inputs) {
      let zone = await zoneOf(inputs);
      const body = objectBody(inputs.body);
      const kindText = typeof body.kind === 'string' ? body.kind.toLowerCase() : undefined;
      let kind: 'Native' | 'Master' | undefined;
      if (zone.kind === 'secondary' && kindText !== undefined && !SECONDARY_KINDS.includes(kindText)) {
        kind = primaryKind(body.kind, false);
        zone = await inputs.services.secondaryZones.promote(inputs.ctx, zone.name);
      } else if (zone.kind !== 'secondary') kind = primaryKind(body.kind, false);
      const account = typeof body.account === 'string' ? body.account : undefined;
      if (kind !== undefined || account !== undefined)
        await inputs.services.domains.setApiLabels(inputs.ctx, zone, { kind, ...(account === undefined ? {} : { account }) });
      if (typeof body.dnssec === 'boolean') {
        const [signed] = await inputs.services.dnssec.signedAmong(inputs.ctx, [zone]).then((ids) => [ids.has(zone.id)]);
        if (body.dnssec && !signed) await inputs.services.dnssec.enable(inputs.ctx, { zone: zone.name });
        if (!body.dnssec && signed) await inputs.services.dnssec.disable(inputs.ctx, zone.name);
      }
      return { status: 204 };
    },
  },
  {
    method: 'delete',
    path: ZONE,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      await inputs.services.domains.delete(inputs.ctx, { id: zone.id });
      return { status: 204 };
    },
  },
  {
    method: 'patch',
    path: ZONE,
    async handle(inputs) {
      const { changes, comments } = changesOfPatch(objectBody(inputs.body), inputs.labels, inputs.commentLabels);
      // `"rrsets": []` changes nothing: 204 for a zone the key can see, as PowerDNS answers it
      if (changes.length === 0 && comments.length === 0) {
        await zoneOf(inputs);
        return { status: 204 };
      }
      // one change set: one serial step, one journal row naming the key, NOTIFY and IXFR (none if nothing
      // changed). The set reads the zone itself (a zone the key cannot see is not found there): no read before it
      let zone: string;
      try {
        zone = normaliseZoneName(zoneOfPath(inputs.params.zone));
      } catch {
        throw notFound(inputs);
      }
      try {
        await inputs.services.zoneChanges.apply(inputs.ctx, { zone, changes, comments }, CONTENT_AS_POWERDNS);
      } catch (error) {
        if (error instanceof DomainError && error.code === 'ZONE_NOT_FOUND') throw notFound(inputs);
        throw error;
      }
      return { status: 204 };
    },
  },
  {
    // every committed change is NOTIFYed to the secondaries by the worker already; the call is answered as
    // PowerDNS answers it, for the zones the key can see
    method: 'put',
    path: `${ZONE}/notify`,
    async handle(inputs) {
      await zoneOf(inputs);
      return { status: 200, body: { result: 'Notification queued' } };
    },
  },
  {
    // the primary's NSEC/NSEC3 chain is kept with every change: nothing to rectify
    method: 'put',
    path: `${ZONE}/rectify`,
    async handle(inputs) {
      await zoneOf(inputs);
      return { status: 200, body: { result: 'Rectified' } };
    },
  },
  {
    method: 'get',
    path: `${ZONE}/export`,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const text = await inputs.services.zoneFiles.export(inputs.ctx, { id: zone.id });
      // PowerDNS answers the zone file in JSON, `{"zone": "…"}`, to a client that accepts JSON
      if (inputs.accepts === 'json') return { status: 200, body: { zone: text } };
      return { status: 200, text, contentType: 'text/plain' };
    },
  },
  {
    method: 'get',
    path: `${ZONE}/cryptokeys`,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const status = await inputs.services.dnssec.status(inputs.ctx, { id: zone.id });
      const live = status.keys.filter((key) => key.state !== 'removed');
      return { status: 200, body: live.map((key) => presentCryptokey(key, status)) };
    },
  },
  {
    method: 'get',
    path: `${ZONE}/cryptokeys/:id`,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const status = await inputs.services.dnssec.status(inputs.ctx, { id: zone.id });
      const key = status.keys.find((k) => String(k.id) === inputs.params.id && k.state !== 'removed');
      if (!key) throw refuse('Not Found', 404);
      return { status: 200, body: presentCryptokey(key, status) };
    },
  },
  {
    // the first key signs the zone (DNSControl's AUTODNSSEC, PowerDNS-Admin's DNSSEC page): a csk gives one
    // combined key, ksk or zsk a KSK and a ZSK. A signed zone's keys are rolled by Zonekeeper, not added by hand.
    method: 'post',
    path: `${ZONE}/cryptokeys`,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const body = objectBody(inputs.body);
      const keytype = typeof body.keytype === 'string' ? body.keytype.toLowerCase() : '';
      if (!['ksk', 'zsk', 'csk'].includes(keytype)) throw refuse(`Invalid keytype ${shown(body.keytype ?? '')}`);
      if (body.privatekey !== undefined) throw refuse('privatekey: Zonekeeper makes its keys itself; importing one is not supported');
      // PowerDNS's names and numbers (ecdsap256sha256, ecdsa256, 13), read as every edge reads them
      const algorithm = body.algorithm === undefined ? 'ECDSAP256SHA256' : parseDnssecAlgorithm(shown(body.algorithm))?.name;
      if (!algorithm) throw refuse(`Unknown algorithm: ${shown(body.algorithm)}`);
      const { services, ctx } = inputs;
      if ((await services.dnssec.signedAmong(ctx, [zone])).has(zone.id))
        throw refuse('the zone is signed already; Zonekeeper rolls its keys itself (docs/dnssec.md), a key is not added by hand', 409);
      const status = await services.dnssec.enable(ctx, { zone: zone.name, algorithm, keyLayout: keytype === 'csk' ? 'CSK' : 'KSK_ZSK' });
      const role = keytype.toUpperCase();
      const key = status.keys.find((k) => k.role === role) ?? status.keys[0];
      return { status: 201, body: presentCryptokey(key, status) };
    },
  },
  {
    // a zone's keys go together: deleting one stops signing the zone (DNSControl's AUTODNSSEC off deletes each)
    method: 'delete',
    path: `${ZONE}/cryptokeys/:id`,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const status = await inputs.services.dnssec.status(inputs.ctx, { id: zone.id });
      if (!status.keys.some((k) => String(k.id) === inputs.params.id && k.state !== 'removed')) throw refuse('Not Found', 404);
      if (status.state === 'signed') await inputs.services.dnssec.disable(inputs.ctx, zone.name);
      return { status: 204 };
    },
  },
  {
    method: 'put',
    path: `${ZONE}/cryptokeys/:id`,
    handle() {
      throw refuse('Zonekeeper activates and retires keys itself as it rolls them (docs/dnssec.md)');
    },
  },
  {
    // the zone's metadata, as PowerDNS lists it: the kinds that have values, read from what the zone holds
    method: 'get',
    path: `${ZONE}/metadata`,
    async handle(inputs) {
      const held = await metadataOf(inputs, await zoneOf(inputs));
      return { status: 200, body: [...held].filter(([, values]) => values.length).map(([kind, values]) => presentMetadata(kind, values)) };
    },
  },
  {
    method: 'get',
    path: `${ZONE}/metadata/:kind`,
    async handle(inputs) {
      const kind = inputs.params.kind.toUpperCase();
      const zone = await zoneOf(inputs);
      // PowerDNS 4.7 shows SOA-EDIT-API in the list only: the zone's `soa_edit_api` is where it is read alone
      if (kind === 'SOA-EDIT-API') throw refuse(`Unsupported metadata kind '${kind}': the zone's soa_edit_api gives it`);
      const held = await metadataOf(inputs, zone);
      return { status: 200, body: presentMetadata(kind, held.get(kind) ?? []) };
    },
  },
  ...(['post', 'put', 'delete'] as const).map((method): PowerDnsRoute => ({
    // ALSO-NOTIFY: the zone's extra secondaries' addresses (POST adds, PUT replaces, DELETE removes them)
    method,
    path: method === 'post' ? `${ZONE}/metadata` : `${ZONE}/metadata/:kind`,
    async handle(inputs) {
      const zone = await zoneOf(inputs);
      const body = method === 'delete' ? {} : objectBody(inputs.body);
      const given = method === 'post' ? body.kind : inputs.params.kind;
      const kind = (typeof given === 'string' ? given : '').toUpperCase();
      if (kind !== 'ALSO-NOTIFY') throw refuse(`Unsupported metadata kind '${kind}': ${METADATA_KINDS_TAKEN}`);
      const values = method === 'delete' ? [] : body.metadata;
      if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) throw refuse('metadata: a list of strings');
      const { services, ctx } = inputs;
      const current = await services.zoneSecondaries.list(ctx, zone);
      const wanted = [...(method === 'post' ? current.map((s) => presentPrimary(s)) : []), ...(values as string[])];
      const keys = [...new Set(current.map((s) => s.tsigKeyName))];
      if (wanted.length && keys.length !== 1)
        throw refuse(
          `ALSO-NOTIFY: each secondary of a zone here transfers with a TSIG key of the zone's user: ${keys.length ? 'its secondaries have several keys' : 'it has no secondaries yet'}; set them with their keys through GraphQL's setZoneSecondaries or \`zonekeeper secondaries set\`, then ALSO-NOTIFY changes their addresses`,
        );
      const servers = [...new Map(wanted.map((text) => [text, primaryOf(text, 'ALSO-NOTIFY')])).values()];
      const set = await services.zoneSecondaries.set(
        ctx,
        zone.name,
        servers.map((server) => ({ ...server, tsigKeyName: keys[0] })),
      );
      if (method === 'delete') return { status: 204 };
      return {
        status: method === 'post' ? 201 : 200,
        body: presentMetadata(
          kind,
          set.map((s) => presentPrimary(s)),
        ),
      };
    },
  })),
  {
    method: 'get',
    path: `${SERVER}/tsigkeys`,
    async handle({ services, ctx }) {
      const keys = await services.tsigKeys.list(ctx);
      return { status: 200, body: keys.filter((key) => !key.revokedAt).map((key) => presentTsigKey(key)) };
    },
  },
  {
    // the key with its secret, as PowerDNS answers it, to whoever may manage the key (TsigKeysService.secret)
    method: 'get',
    path: `${SERVER}/tsigkeys/:id`,
    async handle(inputs) {
      const { tsigKey, secret } = await inputs.services.tsigKeys.secret(inputs.ctx, (await tsigKeyOfPath(inputs)).id);
      return { status: 200, body: presentTsigKey(tsigKey, secret) };
    },
  },
  {
    // a key of the caller's user (the admin key: a server-wide key, as PowerDNS's are), able to do what the caller
    // can; its secret is the one given (`pdnsutil import-tsig-key`, a key moved from PowerDNS or BIND: the
    // secondaries that hold it keep working), else made here
    method: 'post',
    path: `${SERVER}/tsigkeys`,
    async handle({ services, ctx, body }) {
      const fields = objectBody(body);
      if (typeof fields.name !== 'string' || fields.name === '') throw refuse('name: is not specified or not a string');
      const userId = ctx.principal.kind === 'user' ? ctx.principal.userId : null;
      const created = await services.tsigKeys.create(ctx, {
        userId,
        name: fields.name,
        algorithm: typeof fields.algorithm === 'string' ? fields.algorithm : undefined,
        // PowerDNS makes a secret when `key` is absent, empty or not text, and so does this edge
        secret: typeof fields.key === 'string' && fields.key !== '' ? tsigSecretOf(fields.key) : undefined,
        // PowerDNS's keys carry no policy: the new key can do what the caller can (an admin's, an ONE_ZONE key's)
        asCreator: true,
      });
      return { status: 201, body: presentTsigKey(created.tsigKey, created.secret) };
    },
  },
  {
    method: 'delete',
    path: `${SERVER}/tsigkeys/:id`,
    async handle(inputs) {
      await inputs.services.tsigKeys.revoke(inputs.ctx, (await tsigKeyOfPath(inputs)).id);
      return { status: 204 };
    },
  },
  {
    // a new secret or algorithm (a secret rotated on the secondaries first); the name stays: it is how clients
    // name the key on the wire (RFC 8945 §4.2), so a new name is a new key
    method: 'put',
    path: `${SERVER}/tsigkeys/:id`,
    async handle(inputs) {
      const key = await tsigKeyOfPath(inputs);
      const fields = objectBody(inputs.body);
      if (fields.name !== undefined && (typeof fields.name !== 'string' || !sameKeyName(fields.name, key.name)))
        throw refuse('name: a TSIG key keeps its name (the name signs on the wire): make a new key and delete the old');
      if (fields.algorithm !== undefined && typeof fields.algorithm !== 'string') throw refuse('algorithm: not a string');
      if (fields.key !== undefined && (typeof fields.key !== 'string' || fields.key === ''))
        throw refuse('key: give the new secret in base64 (RFC 4648 §4)');
      const { tsigKey, secret } = await inputs.services.tsigKeys.rekey(inputs.ctx, key.id, {
        algorithm: typeof fields.algorithm === 'string' ? fields.algorithm : undefined,
        secret: typeof fields.key === 'string' ? tsigSecretOf(fields.key) : undefined,
      });
      return { status: 200, body: presentTsigKey(tsigKey, secret) };
    },
  },
  {
    /**
     * PowerDNS-Admin's search (ws-api.cc apiServerSearchData): `q` (`*` any run, `?` one character) matched whole,
     * in any letter case, against zone names, then records' names and contents (as PowerDNS stores them: names
     * without their final dot, an MX's or SRV's priority apart), up to `max` zones and `max` records. Zones by
     * the zone list (DomainsService, `nameMatches`), records by the search across zones (RecordSearchService),
     * both over what the key may read (docs/powerdns-api.md)
     */
    method: 'get',
    path: `${SERVER}/search-data`,
    async handle({ services, ctx, query }) {
      const q = typeof query.q === 'string' ? query.q.trim() : '';
      if (!q) throw refuse("Query q can't be blank");
      const max = query.max === undefined ? 100 : Number(query.max);
      if (!Number.isInteger(max) || max <= 0) throw refuse('Maximum entries must be larger than 0');
      const objectType = typeof query.object_type === 'string' ? query.object_type : 'all';
      if (!['all', 'zone', 'record', 'comment'].includes(objectType))
        throw refuse('object_type must be one of the following options: all, zone, record, comment');
      if (q.length > 255) throw refuse('q: at most 255 characters');
      const limit = Math.min(max, services.settings.maxPageSize);
      const results: Record<string, unknown>[] = [];
      if (objectType === 'all' || objectType === 'zone') {
        // the part before the first wildcard is a prefix (one range of the names' index); the match is the service's
        const prefix = q.toLowerCase().split(/[*?]/)[0].replace(/\.$/, '');
        let found: DomainRow[] = [];
        try {
          found = await services.domains.list(ctx, { nameStartsWith: prefix, nameMatches: q }, { first: limit });
        } catch (error) {
          if (!isInputError(error)) throw error;
        }
        for (const zone of found) results.push({ object_type: 'zone', name: absoluteName(zone.name), zone_id: absoluteName(zone.name) });
      }
      // `max` bounds each kind apart, as PowerDNS bounds its zones and its records' query
      if (objectType === 'all' || objectType === 'record') {
        const records = await services.search.search(ctx, { query: q, mode: 'glob', field: 'q' }, { first: limit });
        for (const record of records)
          results.push({
            object_type: 'record',
            name: ownerToFqdn(record.owner, record.zone),
            type: record.type,
            ttl: record.ttl,
            content: powerDnsContent(record.zone, record.type, record.rdata),
            disabled: false,
            zone: absoluteName(record.zone),
            zone_id: absoluteName(record.zone),
          });
      }
      // comments (PowerDNS-Admin's rrset comments) are not searched: object_type=comment answers []
      return { status: 200, body: results };
    },
  },
];
