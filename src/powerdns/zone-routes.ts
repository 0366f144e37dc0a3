import { DomainError } from '../errors/catalogue';
import { parseOwner } from '../dns/name';
import type { Services } from '../services';
import { normaliseZoneName } from '../dns/zone-name';
import type { ApiListedZone, DomainRow } from '../repositories/read-model';
import type { PrimaryAddress } from '../repositories/secondary-zones';
import type { ZoneChangeSpec } from '../services/zones/zone-changes.service';
import type { RrsetCommentsInput } from '../services/zones/rrset-comments.service';
import { PowerDnsRrset, presentRrsets, presentZone, presentZoneJson } from './presenters';
import { ownerToFqdn } from '../dns/name';
import { Utf8Chunk } from '../http/send-stream';
import { luaNotSupported } from '../services/steering/octodns-dynamic';
import type { ProposalAcceptance } from '../services/zones/change-requests.service';
import {
  PowerDnsResult,
  PowerDnsInputs,
  PowerDnsRoute,
  CONTENT_AS_POWERDNS,
  isInputError,
  shown,
  refuse,
  objectBody,
  canonicalName,
  zoneOfPath,
  notFound,
  zoneOf,
  primaryOf,
  SOA_EDIT_API,
  SERVER,
  ZONE,
} from './route-kit';

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

/** the first page of the whole list: small, so that its first byte leaves at once (docs/scale.md) */
const FIRST_ZONE_PAGE = 500;
/**
 * the pages after it: small enough that a page's rows are gone before the next young-generation collection (pages
 * of 10,000 outlived it, and were copied and promoted: a third of the list's CPU went to the collector), large
 * enough that the statements' round trips stay hidden behind the writing (bench/FINDINGS.md)
 */
const ZONE_PAGE = 2_000;
/** about what a zone of the list takes, written (470 octets for a name of 15) */
const ZONE_JSON_BYTES = 512;

/** a page of the whole list: its zones, the primaries of its secondary zones, and whether more may follow */
interface ZoneListPage {
  zones: ApiListedZone[];
  primaries?: Map<number, PrimaryAddress[]>;
  more: boolean;
}

async function zoneListPage(inputs: PowerDnsInputs, first: number, after?: number): Promise<ZoneListPage> {
  const { services, ctx } = inputs;
  const zones = await services.domains.listWithApiFacts(ctx, { first, after });
  const secondaries = zones.filter((zone) => zone.kind === 'secondary');
  const primaries = secondaries.length ? await services.secondaryZones.primariesOf(ctx, secondaries) : undefined;
  return { zones, primaries, more: zones.length === first };
}

/**
 * Every zone the key may read, in id order, as the JSON text of the list, a chunk a page: the list external-dns
 * and octoDNS read whole, written as it is read (docs/scale.md), its memory a page's. Each zone is written as
 * `?zone=` shows it (presentZoneJson), one statement a page. The next page is asked for before this one is
 * written, so that PostgreSQL reads it while this process writes. The first page is FIRST_ZONE_PAGE zones, the
 * others ZONE_PAGE (MAX_PAGE_SIZE when smaller). A zone created or deleted meanwhile is in the list or not, as in
 * a list read page by page; none is listed twice (the cursor is the last id).
 */
async function* zoneListText(inputs: PowerDnsInputs): AsyncIterable<Uint8Array> {
  const { settings } = inputs.services;
  const soaEditApi = SOA_EDIT_API[settings.serialPolicy];
  let next: Promise<ZoneListPage> | undefined = zoneListPage(inputs, Math.min(FIRST_ZONE_PAGE, settings.maxPageSize));
  let count = 0;
  while (next) {
    const { zones, primaries, more }: ZoneListPage = await next;
    next = more ? zoneListPage(inputs, Math.min(ZONE_PAGE, settings.maxPageSize), zones[zones.length - 1].id) : undefined;
    // a client gone before this page is written leaves the next one unread: its failure is no one's to hear
    next?.catch(() => undefined);
    const text = new Utf8Chunk(ZONE_JSON_BYTES * zones.length + 2);
    if (count === 0) text.add('[');
    for (const zone of zones) {
      if (count++) text.add(',');
      text.add(
        presentZoneJson(zone, {
          account: zone.account,
          kind: zone.apiKind ?? undefined,
          dnssec: zone.signed,
          primaries: primaries?.get(zone.id),
          soaEditApi,
        }),
      );
    }
    if (!next) text.add(']');
    yield text.bytes();
  }
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
  return { ...presented, rrsets: await withLuaRrsets(inputs, zone, presentRrsets(zone.name, records, comments, disabled), filter) };
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
export function changesOfPatch(
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

/** a `LUA` rrset of a PATCH or a new zone: an octoDNS dynamic record written (one content) or deleted (none) */
interface LuaChange {
  name: string;
  ttl: number;
  /** the content as written; undefined: the rrset is deleted */
  content?: string;
}

/**
 * Takes the `LUA` rrsets out of a body's `rrsets` (the rest go the ordinary way): octoDNS's dynamic records,
 * which the steering service decodes and decides (docs/steering.md). A LUA rrset is one record (octodns-powerdns
 * writes one), replaced or deleted; anything else of LUA is refused with what is taken.
 */
function takeLuaRrsets(body: Record<string, unknown>): { body: Record<string, unknown>; lua: LuaChange[] } {
  if (!Array.isArray(body.rrsets)) return { body, lua: [] };
  const lua: LuaChange[] = [];
  const rest: unknown[] = [];
  for (const item of body.rrsets) {
    const rrset = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    if (typeof rrset.type !== 'string' || rrset.type.toUpperCase() !== 'LUA') {
      rest.push(item);
      continue;
    }
    const name = canonicalName(rrset.name);
    const label = `RRset ${name} IN LUA`;
    const changetype = typeof rrset.changetype === 'string' ? rrset.changetype.toUpperCase() : 'REPLACE';
    if (changetype === 'DELETE') {
      lua.push({ name, ttl: 0 });
      continue;
    }
    if (changetype !== 'REPLACE')
      throw refuse(`${label}: ${luaNotSupported(`${changetype} of a LUA rrset is not taken (REPLACE or DELETE it whole)`).message}`);
    const records = recordsOf(rrset, label);
    if (records.length === 0) {
      lua.push({ name, ttl: 0 });
      continue;
    }
    if (records.length !== 1 || disabledOf(records[0], label))
      throw refuse(`${label}: ${luaNotSupported('an octoDNS dynamic record is one enabled LUA record').message}`);
    lua.push({ name, ttl: ttlOf(rrset, label), content: contentOf(records[0], label) });
  }
  return { body: { ...body, rrsets: rest }, lua };
}

/** the LUA rrsets' changes through the steering service: deletions first (octoDNS deletes before it replaces) */
async function applyLuaChanges(inputs: PowerDnsInputs, zone: string, lua: LuaChange[], which: 'deletions' | 'writes'): Promise<void> {
  for (const change of lua) {
    const label = `RRset ${change.name} IN LUA`;
    try {
      if (which === 'deletions' && change.content === undefined)
        await inputs.services.steering.deleteOctodnsDynamic(inputs.ctx, zone, change.name);
      if (which === 'writes' && change.content !== undefined)
        await inputs.services.steering.writeOctodnsDynamic(inputs.ctx, zone, change.name, change.ttl, change.content);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'ZONE_NOT_FOUND') throw notFound(inputs);
      // the message names the rrset, as PowerDNS's do
      if (error instanceof DomainError && error.details[0]) error.details[0].message = `${label}: ${error.details[0].message}`;
      throw error;
    }
  }
}

/**
 * The steered RRsets written as LUA records, shown as they were written: their LUA rrset in place of the records
 * they serve, so that octoDNS reads back the dynamic record it wrote (and not a second, static one beside it)
 */
async function withLuaRrsets(
  inputs: PowerDnsInputs,
  zone: DomainRow,
  rrsets: PowerDnsRrset[],
  filter: { owner?: string; type?: string },
): Promise<PowerDnsRrset[]> {
  const lua = (await inputs.services.steering.luaRrsetsOfZone(inputs.ctx, zone)).filter((r) => !filter.owner || r.owner === filter.owner);
  if (!lua.length) return rrsets;
  const steered = new Set(lua.map((r) => `${ownerToFqdn(r.owner, zone.name)} ${r.type}`));
  const shown = rrsets.filter((set) => !steered.has(`${set.name} ${set.type}`));
  if (!filter.type || filter.type === 'LUA')
    shown.push(
      ...lua.map((r) => ({
        name: ownerToFqdn(r.owner, zone.name),
        type: 'LUA',
        ttl: r.ttl,
        records: [{ content: r.luaContent as string, disabled: false }],
        comments: [],
      })),
    );
  return shown.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
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

/** the zones: listed, created (primary or secondary), read, changed (PATCH of rrsets), deleted, notified, exported */
export const ZONE_ROUTES: PowerDnsRoute[] = [
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
      return { status: 200, chunks: zoneListText(inputs), contentType: 'application/json' };
    },
  },
  {
    method: 'post',
    path: `${SERVER}/zones`,
    async handle(inputs) {
      const { services, ctx, labels } = inputs;
      // octoDNS's dynamic records (LUA) are taken once the zone is there, through the steering service
      const { body, lua } = takeLuaRrsets(objectBody(inputs.body));
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
      await applyLuaChanges(inputs, zone, lua, 'writes');
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
      // octoDNS's dynamic records (LUA) go to the steering service, the other rrsets the ordinary way
      const { body, lua } = takeLuaRrsets(objectBody(inputs.body));
      const { changes, comments } = changesOfPatch(body, inputs.labels, inputs.commentLabels);
      // `"rrsets": []` changes nothing: 204 for a zone the key can see, as PowerDNS answers it
      if (changes.length === 0 && comments.length === 0 && lua.length === 0) {
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
      // a LUA rrset's change is a change of its own (one serial each): deletions before the other rrsets, writes
      // after them, so that a static A made dynamic (DELETE A, REPLACE LUA) and back again both go through
      await applyLuaChanges(inputs, zone, lua, 'deletions');
      if (changes.length || comments.length) {
        const outcome = await inputs.services.changeRequests
          .writeOrPropose(inputs.ctx, {
            write: () => inputs.services.zoneChanges.apply(inputs.ctx, { zone, changes, comments }, CONTENT_AS_POWERDNS),
            proposal: () => ({ zone, changes, options: CONTENT_AS_POWERDNS }),
            accepts: () => proposalAcceptance(inputs, changes, { comments: commentsBeyondDeletes(changes, comments), lua: lua.length }),
          })
          .catch((error: unknown) => {
            if (error instanceof DomainError && error.code === 'ZONE_NOT_FOUND') throw notFound(inputs);
            throw error;
          });
        if (outcome.outcome === 'proposed') {
          const request = outcome.changeRequest;
          return {
            status: 202,
            body: {
              zone: request.zone,
              change_request: { id: request.id, status: request.status, required_approvals: request.requiredApprovals },
            },
          };
        }
      }
      await applyLuaChanges(inputs, zone, lua, 'writes');
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
];

/**
 * How many of a PATCH's comment changes are more than a DELETE's own (a DELETE clears the RRset's comments, as
 * PowerDNS does): a proposal carries records only, and an RRset deleted by one leaves no comment that is served.
 */
function commentsBeyondDeletes(changes: readonly ZoneChangeSpec[], comments: readonly RrsetCommentsInput[]): number {
  const deleted = new Set(
    changes.filter((c) => c.kind === 'REPLACE_RRSET' && !c.rdatas?.length && !c.disabledRdatas?.length).map((c) => `${c.owner} ${c.type}`),
  );
  return comments.filter((c) => c.comments.length > 0 || !deleted.has(`${c.owner} ${c.type}`)).length;
}

/**
 * Whether a PATCH to a zone that requires approvals (docs/powerdns-api.md, «Zones under review») is proposed: from
 * a key with the `propose` scope (ApiKey.scopes PROPOSE_CHANGES), its rrsets become one change request, nothing
 * written, answered 202 with the request (`{"change_request": {"id", "status", "required_approvals"}}`): a GitOps
 * pipeline proposes, a person approves. PowerDNS has no such answer; a client that reads only the status sees its
 * PATCH taken, which is so. Any other key is refused 422 (router.ts: ZONE_UNDER_REVIEW, as PowerDNS refuses a
 * change it will not make), the message naming the policy and how to propose (octoDNS logs it: `_apply:
 * status=422, text={"error": …}`). Comments and dynamic (LUA) rrsets are not proposed: such a PATCH is refused whole.
 */
async function proposalAcceptance(
  inputs: PowerDnsInputs,
  changes: readonly ZoneChangeSpec[],
  besides: { comments: number; lua: number },
): Promise<ProposalAcceptance> {
  if (!(await inputs.services.apiKeys.hasScope(inputs.ctx, 'propose')))
    return {
      refusal:
        'or by this API: a PATCH from a key with the scope PROPOSE_CHANGES (createApiKey scopes, zonekeeper key create --may-propose) becomes a change request, answered 202',
    };
  if (besides.comments || besides.lua || !changes.length)
    return { refusal: 'a PATCH proposed as a change request carries rrsets only (no comments, no LUA records)' };
  return true;
}
