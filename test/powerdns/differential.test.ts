/**
 * The PowerDNS API edge (src/powerdns) held against PowerDNS itself: Debian's pdns-server 4.7 (gsqlite3) and
 * Zonekeeper (default settings, the admin key as X-API-Key) get the same requests (differential-requests.ts,
 * built from what lego, acme.sh, cert-manager's webhook, external-dns, octoDNS, DNSControl, Terraform's
 * provider, PowerDNS-Admin and the Ansible collection send). For each request: the same status class and the same
 * shape of the answer (JSON keys and types, recursively); after each write on a zone (POST, PUT, PATCH, DELETE)
 * both zones, taken by AXFR, are equal, or both servers refuse the transfer (a zone deleted or never made).
 *
 * What is compared is normalised explicitly, each normalisation named below with its reason; the differences
 * that stay are listed in KEPT_DIFFERENCES with theirs (and in docs/powerdns-api.md, "Differences").
 * Debian packages: pdns-server, pdns-backend-sqlite3, sqlite3, bind9-dnsutils (dig).
 */
import { appendFileSync } from 'node:fs';
import { dig, freePort } from '../propagation/knot';
import { startPowerDns, PowerDnsServer } from '../support/powerdns-server';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../support/fixtures';
import { listRecordTypes } from '../../src/dns/record-types';
import { ACCOUNT, ApiRequest, EVERY_TYPE, REQUESTS } from './differential-requests';

interface Answer {
  status: number;
  /** the parsed JSON body; undefined when the body is empty or not JSON */
  json: unknown;
  text: string;
  contentType: string;
}

/**
 * A difference that stays, with its reason. `request` names the request (its `what`); omitted, the
 * difference is kept wherever it occurs. `difference` matches the difference's text.
 */
interface KeptDifference {
  request?: string;
  difference: RegExp;
  reason: string;
}

export const KEPT_DIFFERENCES: KeptDifference[] = [
  {
    request: 'a DSYNC rrset',
    difference:
      /^(status: PowerDNS 422 .*DSYNC: unknown type given.* vs Zonekeeper 204 |axfr dsync\.test\.: only Zonekeeper has _dsync\.dsync\.test\. 300 DSYNC )/,
    reason: 'DSYNC (RFC 9859, 2025) came after PowerDNS 4.7, which refuses it as an unknown type; Zonekeeper takes it by its name',
  },
  {
    difference: /^shape: only Zonekeeper has \$(\[\])?\.(type|presigned): (string|boolean)$/,
    reason: 'a zone\'s `type: "Zone"` and `presigned` are in PowerDNS\'s swagger and its later answers; 4.7 leaves them out',
  },
  {
    difference:
      /^shape: only Zonekeeper has \$\[\]\.((api_rectify|nsec3narrow|nsec3param|soa_edit|soa_edit_api): (string|boolean)|slave_tsig_key_ids\[\]: string)$/,
    reason: 'the zone list carries the same zone object as GET of one zone (PowerDNS 4.7 leaves these out of its list)',
  },
  {
    difference: /^shape: only PowerDNS has \$\.privatekey: string$/,
    reason: 'a new cryptokey comes back without its private key: private keys never leave the key vault',
  },
  {
    difference: /^shape: only Zonekeeper has \$(\[\])?\.algorithm_number: number$/,
    reason: "a cryptokey also carries its algorithm's number (the DNSKEY's third field), beside PowerDNS's name",
  },
  {
    request: 'a zone of a kind PowerDNS does not know',
    difference:
      /^(status: PowerDNS 201 .* vs Zonekeeper 422 .*kind|axfr oddkind\.test\.: PowerDNS \[.*\] vs Zonekeeper "transfer refused"$)/,
    reason:
      'PowerDNS 4.7 makes a zone of an unknown kind (`Mastr`) a Native zone without a word; Zonekeeper refuses it naming `kind`, so that a typo is not a zone of another kind',
  },
  {
    request: 'a DELETE of the SOA rrset',
    difference:
      /^(status: PowerDNS 204 .* vs Zonekeeper 422 .*RRset tfsoa\.test\. IN SOA: a zone keeps its SOA|axfr tfsoa\.test\.: PowerDNS "transfer refused" vs Zonekeeper \[.*\]$)/,
    reason:
      'a zone keeps its SOA (RFC 1035 §5.2): Zonekeeper refuses its DELETE naming the rrset; PowerDNS 4.7 deletes it and leaves a zone it no longer serves or transfers',
  },
  {
    request: 'a TXT of two quoted strings two spaces apart',
    difference:
      /^(status: PowerDNS 422 .*Not in expected format.* vs Zonekeeper 204 |axfr zeta\.test\.: only (PowerDNS has two\.zeta\.test\. 300 TXT "a" "b"|Zonekeeper has two\.zeta\.test\. 300 TXT "a" "c"))/,
    reason:
      'PowerDNS 4.7 wants content exactly as it would write it (one space between strings) and keeps the rrset it had; Zonekeeper reads the two strings the content holds and stores them as PowerDNS would write them, `"a" "c"`',
  },
  {
    request: 'an MX whose fields are two spaces apart',
    difference:
      /^(status: PowerDNS 422 .*Not in expected format.* vs Zonekeeper 204 |axfr zeta\.test\.: only Zonekeeper has mx2\.zeta\.test\. 300 MX 10 mail\.example\.net\.)/,
    reason:
      'as the TXT before it: Zonekeeper reads the fields the content holds and stores them as PowerDNS writes them, `10 mail.example.net.`',
  },
  {
    request: 'the zone of every type, read back',
    difference:
      /^contents: only (PowerDNS has cut\.types\.test\. TXT "a{255}" "b{40}"|Zonekeeper has cut\.types\.test\. TXT "a{255}b{40}")$/,
    reason:
      'a TXT value cut by its client at 255 octets is the RDATA PowerDNS makes of one string of 295 octets; Zonekeeper keeps the RDATA, not the text, and reads a string of 255 octets with the one after it, as PowerDNS cut it (octoDNS and DNSControl read the strings joined)',
  },
  {
    request: 'the zone of every type, read back',
    difference:
      /^contents: only (PowerDNS has escaped\.types\.test\. TXT "v=DKIM1\\; k=rsa"|Zonekeeper has escaped\.types\.test\. TXT "v=DKIM1; k=rsa"|PowerDNS has utf8\.types\.test\. TXT "café"|Zonekeeper has utf8\.types\.test\. TXT "caf\\195\\169")$/,
    reason:
      "PowerDNS keeps a character-string's text as its client wrote it (`\\;`, raw UTF-8); Zonekeeper keeps its octets and writes them canonically (`;`, `\\195\\169`): the same RDATA (octoDNS escapes `;` itself when it reads a TXT)",
  },
  {
    request: 'the zone of every type, read back',
    difference:
      /^contents: only (PowerDNS has upper\.types\.test\. (MX 10 MAIL\.Example\.COM\.|CAA 0 ISSUE "letsencrypt\.org")|Zonekeeper has upper\.types\.test\. (MX 10 mail\.example\.com\.|CAA 0 issue "letsencrypt\.org"))$/,
    reason:
      "names in RDATA and CAA tags are kept in lower case (RFC 4343: the same names; a CAA tag is matched in any case); PowerDNS keeps its client's letter case",
  },
  {
    request: 'a disabled CNAME beside an A',
    difference: /^status: PowerDNS 422 .*Conflicts with pre-existing RRset.* vs Zonekeeper 204 /,
    reason:
      'a disabled record is not in the zone, so the zone rules (CNAME exclusivity, RFC 1034 §3.6.2) meet it when it is enabled; PowerDNS 4.7 checks an incoming rrset disabled or not, yet counts only the served records already there',
  },
  {
    request: 'a DELETE of the apex NS rrset (a zone left without NS)',
    difference:
      /^(status: PowerDNS 204 .* vs Zonekeeper 422 .*RRset gamma\.test\. IN NS: .*no NS record at the apex|axfr gamma\.test\.: only Zonekeeper has gamma\.test\. 3600 NS ns[12]\.example\.net\.$)/,
    reason:
      'a zone keeps NS at its apex (RFC 1034 §4.2.1; DNS UPDATE never deletes the last either, RFC 2136 §3.4.2.4): Zonekeeper refuses the DELETE naming the rrset; PowerDNS 4.7 leaves a zone without NS, which no secondary or parent can use',
  },
  {
    request: "Ansible: a TSIG key of the module's default algorithm, hmac-md5",
    difference: /^status: PowerDNS 201 .* vs Zonekeeper 422 .*algorithm: \\"hmac-md5\\" is not one of/,
    reason:
      'RFC 8945 §6: HMAC-MD5 MUST NOT be used; Zonekeeper makes hmac-sha256, -384 and -512 keys (the Ansible tsigkey module defaults to hmac-md5: give it `algorithm: hmac-sha256`)',
  },
  {
    request: 'clean-up: the hmac-md5 key, if it was made',
    difference: /^status: PowerDNS 204 .* vs Zonekeeper 404 .*ansible-md5/,
    reason: 'the hmac-md5 key was made by PowerDNS only (the request before)',
  },
  {
    request: 'a TSIG key of a secret without its padding',
    difference: /^status: PowerDNS 201 .* vs Zonekeeper 422 .*key: the secret is not base64/,
    reason:
      'Zonekeeper takes base64 as RFC 4648 §4 writes it, padded (as tsig-keygen, pdnsutil and keymgr write secrets); PowerDNS 4.7 takes some unpadded texts (`YWJjZA`) and refuses others (`YQ`)',
  },
  {
    request: 'clean-up: the TSIG key unpadded.',
    difference: /^status: PowerDNS 204 .* vs Zonekeeper 404 /,
    reason: 'the unpadded key was made by PowerDNS only (above)',
  },
  {
    request: 'the key after the refused PUTs',
    difference: /^values: only (PowerDNS has key=\S+ algorithm=hmac-sha256|Zonekeeper has key=\S+ algorithm=hmac-sha512)$/,
    reason:
      "PowerDNS 4.7's PUT of another algorithm answers it but adds a second row for the key (its tsigkeys are unique by name and algorithm) and reads back the first, the old algorithm; Zonekeeper's key has the algorithm it was given",
  },
  {
    request: 'PUT: the key renamed',
    difference: /^status: PowerDNS 200 .* vs Zonekeeper 422 .*name: a TSIG key keeps its name/,
    reason:
      'a TSIG key is named on the wire by its name (RFC 8945 §4.2): a secondary holding it under the old name stops working, so a new name is a new key (make it and delete the old); PowerDNS 4.7 renames, and over a key of that name overwrites it',
  },
  {
    request: 'clean-up: the TSIG key moved-512.',
    difference: /^status: PowerDNS 404 .* vs Zonekeeper 204 /,
    reason: 'PowerDNS renamed the key (above): its old name is gone there',
  },
  {
    request: 'clean-up: the TSIG key renamed-512.',
    difference: /^status: PowerDNS 204 .* vs Zonekeeper 404 /,
    reason: 'only PowerDNS has the key under its new name (above)',
  },
  {
    request: 'search-data: a name server target with its final dot',
    difference:
      /^(shape: only PowerDNS has \$: \[\]|shape: only Zonekeeper has \$\[\]\.\w+: \w+|values: only Zonekeeper has .*ns1\.srch-sub\.example)$/,
    reason:
      'a final dot of `q` is dropped, so that a name pasted whole (`ns1.example.net.`) finds what it names; PowerDNS 4.7 matches names and contents as stored, without their final dot, and so finds nothing',
  },
  {
    request: 'POST of an ALSO-NOTIFY on a zone without secondaries',
    difference: /^status: PowerDNS 201 .* vs Zonekeeper 422 .*ALSO-NOTIFY: each secondary of a zone here transfers with a TSIG key/,
    reason:
      "ALSO-NOTIFY is the zone's extra secondaries, each NOTIFYed and allowed to transfer with a TSIG key of the zone's user (docs/transfers.md): a zone's first secondaries are set with their keys (setZoneSecondaries, `zonekeeper secondaries set`), after which ALSO-NOTIFY changes their addresses; PowerDNS keeps addresses alone",
  },
  {
    request: 'a secondary zone without primaries',
    difference: /^status: PowerDNS 201 .* vs Zonekeeper 422 .*masters: a secondary zone needs at least one primary/,
    reason:
      'a secondary zone is taken from its primaries: PowerDNS 4.7 makes one without any, which never gets a record; Zonekeeper refuses it naming `masters`',
  },
  {
    request: 'a new zone whose rrset comment has a modified_at after 2038 (over 2^31 - 1)',
    difference:
      /^(status: PowerDNS 201 .* vs Zonekeeper 422 .*RRset www\.iota\.test\. IN A: a comment's modified_at is at most 2\^31 - 1|axfr iota\.test\.: PowerDNS \[.*\] vs Zonekeeper "transfer refused"$)/,
    reason:
      'PowerDNS 4.7 reads modified_at into a 32-bit int: 4102444800 (2100) is stored and shown as -2147483648; Zonekeeper refuses a time it cannot keep as given (422 naming the rrset, the zone not made)',
  },
];

let powerDns: PowerDnsServer;
let app: TestApp;
let zonekeeperDnsPort: number;
const keptSeen = new Set<KeptDifference>();

async function send(
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, contentType: res.headers.get('content-type') ?? '' };
}

/**
 * The shape of a JSON value: object keys with their shapes, an array as the union of its elements' shapes
 * (order and length aside), scalars by type. Flattened to `path: type` lines so that differences read.
 */
function shapeLines(value: unknown, path = '$'): string[] {
  if (value === null) return [`${path}: null`];
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${path}: []`];
    return [...new Set(value.flatMap((element) => shapeLines(element, `${path}[]`)))].sort();
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return [`${path}: {}`];
    return entries.flatMap(([key, inner]) => shapeLines(inner, `${path}.${key}`)).sort();
  }
  return [`${path}: ${typeof value}`];
}

/**
 * The answer's shape. Normalisation "plain-text errors": PowerDNS answers some errors (404 Not Found, 409
 * Conflict, 400 Bad Request) from its web server with a text/plain body instead of `{"error": …}`; every
 * client reads the status there, so such a body counts as `{"error": string}`. Normalisation "empty arrays":
 * an empty list inside an object has the shape of any list (PowerDNS and Zonekeeper may hold different
 * numbers of comments or keys), so `[]` there matches a list of anything. An answer that is an empty list
 * (`$: []`) matches only an empty list: what a list or a search finds is compared.
 */
function answerShape(answer: Answer): string[] {
  if (answer.status >= 400 && answer.json === undefined) return ['$.error: string'];
  if (answer.json === undefined) return answer.text ? ['text'] : ['empty'];
  return shapeLines(answer.json);
}

function shapeDifferences(powerDnsShape: string[], zonekeeperShape: string[]): string[] {
  const emptyLists = (lines: string[]) => lines.filter((l) => l.endsWith(': []') && l !== '$: []').map((l) => l.slice(0, -': []'.length));
  const covered = (line: string, emptyIn: string[]) => emptyIn.some((prefix) => line.startsWith(`${prefix}[]`) || line === `${prefix}: []`);
  const pdnsEmpty = emptyLists(powerDnsShape);
  const zkEmpty = emptyLists(zonekeeperShape);
  const zk = new Set(zonekeeperShape);
  const pdns = new Set(powerDnsShape);
  return [
    ...powerDnsShape
      .filter((l) => !zk.has(l) && !covered(l, zkEmpty) && !(l.endsWith(': []') && l !== '$: []'))
      .map((l) => `shape: only PowerDNS has ${l}`),
    ...zonekeeperShape
      .filter((l) => !pdns.has(l) && !covered(l, pdnsEmpty) && !(l.endsWith(': []') && l !== '$: []'))
      .map((l) => `shape: only Zonekeeper has ${l}`),
  ];
}

/**
 * A zone's records as compared, one normalised line each, sorted. Normalisations:
 * - "SOA serial": the serials count different histories (PowerDNS's SOA-EDIT-API DEFAULT, our serial policy);
 * - "name case": owner names and names in RDATA compared case-insensitively (RFC 4343): PowerDNS compresses
 *   names on the wire against earlier ones and so lends them their case (`ns1.Example.NET.` after a CNAME to
 *   `Target.Example.NET.`); TXT strings keep their case;
 * - "DNSSEC records aside": DNSKEY, RRSIG, NSEC, NSEC3, NSEC3PARAM, CDS and CDNSKEY come from each server's own
 *   keys and choices (NSEC or NSEC3, its algorithm's random signatures): what is compared is the data signed.
 * TTLs are compared as they are: both keep any TTL by default (lego's 120, acme.sh's 60; ALLOWED_TTLS_BEYOND_REST).
 */
const DNSSEC_TYPES = new Set(['DNSKEY', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'CDS', 'CDNSKEY']);

function normaliseRecords(lines: string[], origin?: string): string[] {
  const out = new Set<string>();
  for (const line of lines) {
    const [owner, ttl, klass, type, ...rest] = line.trim().split(/\s+/);
    if (!type || klass !== 'IN' || DNSSEC_TYPES.has(type)) continue;
    const name = absolute(owner, origin);
    let rdata = rest.join(' ');
    if (type === 'SOA') rdata = rdata.replace(/^(\S+ \S+) \d+ /, '$1 <serial> ');
    if (type !== 'TXT') rdata = rdata.toLowerCase();
    out.add(`${name.toLowerCase()} ${Number(ttl)} ${type} ${rdata}`);
  }
  return [...out].sort();
}

/**
 * Normalisation "relative owners" (the export only): a zone file may name owners relative to its origin
 * (RFC 1035 §5.1); Zonekeeper's export does (`@`, `www`), PowerDNS's writes every name out.
 */
function absolute(owner: string, origin: string | undefined): string {
  if (origin === undefined || owner.endsWith('.')) return owner;
  return owner === '@' ? origin : `${owner}.${origin}`;
}

/**
 * A zone by AXFR, or `transfer refused` when the server answers that it has no such zone (dig's "Transfer
 * failed.": REFUSED or NOTAUTH, each server's rcode for a zone it does not serve; normalisation "any refusal"). A
 * server that does not answer at all is no outcome to compare: the test fails there, with dig's words.
 */
async function axfr(port: number, zone: string): Promise<string[] | string> {
  const result = await dig(['@127.0.0.1', '-p', String(port), '+norec', '+onesoa', '+nocmd', '+nostats', zone, 'AXFR']);
  if (/Transfer failed/i.test(result.stdout)) return 'transfer refused';
  if (result.lines.length === 0) throw new Error(`AXFR of ${zone} from port ${port}: no answer (${result.stdout.trim()})`);
  return normaliseRecords(result.lines);
}

function listDifferences(label: string, powerDnsLines: string[] | string, zonekeeperLines: string[] | string): string[] {
  if (typeof powerDnsLines === 'string' || typeof zonekeeperLines === 'string') {
    return powerDnsLines === zonekeeperLines
      ? []
      : [`${label}: PowerDNS ${JSON.stringify(powerDnsLines)} vs Zonekeeper ${JSON.stringify(zonekeeperLines)}`];
  }
  const zk = new Set(zonekeeperLines);
  const pdns = new Set(powerDnsLines);
  return [
    ...powerDnsLines.filter((l) => !zk.has(l)).map((l) => `${label}: only PowerDNS has ${l}`),
    ...zonekeeperLines.filter((l) => !pdns.has(l)).map((l) => `${label}: only Zonekeeper has ${l}`),
  ];
}

/**
 * A zone answer's records as `<name> <type> <content>` lines, sorted, the content as read back; normalisation
 * "SOA serial" only (each server counts its own history).
 */
function rrsetContents(zone: unknown): string[] {
  const rrsets = (zone as { rrsets?: { name: string; type: string; records: { content: string }[] }[] }).rrsets ?? [];
  return rrsets
    .flatMap((set) =>
      set.records.map(
        (r) => `${set.name} ${set.type} ${set.type === 'SOA' ? r.content.replace(/^(\S+ \S+) \d+ /, '$1 <serial> ') : r.content}`,
      ),
    )
    .sort();
}

/** the zone named in a path …/zones/<zone>/… (with its final dot) */
function zoneOf(path: string): string {
  const zone = decodeURIComponent(/\/zones\/([^/?]+)/.exec(path)![1]).toLowerCase();
  return zone.endsWith('.') ? zone : `${zone}.`;
}

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

/**
 * The values of `fields` in an answer (an object, or each element of a list), one line per object, sorted: what
 * a search found, the secret a key reads back with. Normalisation "names as names" for text: compared in any
 * letter case (RFC 4343) and without a final dot (PowerDNS 4.7 lists a TSIG key's name without it); secrets are
 * base64, whose case counts, so `key` is compared as it is.
 */
function sameFieldValues(json: unknown, fields: string[]): string[] {
  const objects = (Array.isArray(json) ? json : [json]).filter((o): o is Record<string, unknown> => !!o && typeof o === 'object');
  const value = (field: string, v: unknown) =>
    typeof v === 'string' && field !== 'key' ? v.toLowerCase().replace(/\.$/, '') : JSON.stringify(v ?? null);
  return objects.map((o) => fields.map((f) => `${f}=${value(f, o[f])}`).join(' ')).sort();
}

/**
 * Normalisation "names as names" (finding an id only): a text compared case-insensitively and without its final
 * dot. PowerDNS 4.7 lists a TSIG key's `name` without the dot (`ansible-key`), Zonekeeper with it (`ansible-key.`);
 * the `id`s are alike.
 */
const sameValue = (found: unknown, wanted: unknown) =>
  typeof found === 'string' && typeof wanted === 'string'
    ? found.toLowerCase().replace(/\.$/, '') === wanted.toLowerCase().replace(/\.$/, '')
    : found === wanted;

/**
 * The path with `{id}` made one server's: the `id` of the first entry of `idFrom.list` (read with the same key)
 * whose fields equal `idFrom.match`, as the clients find it (DNSControl's active key, Ansible's TSIG key by name);
 * without one, `{id}` stays `none` and the difference is told.
 */
async function pathOn(server: 'PowerDNS' | 'Zonekeeper', step: ApiRequest, differences: string[]): Promise<string> {
  if (!step.idFrom) return step.path;
  const [baseUrl, key] = server === 'PowerDNS' ? [powerDns.baseUrl, powerDns.apiKey] : [app.baseUrl, ADMIN_KEY];
  const { list, match } = step.idFrom;
  const answer = await send(baseUrl, key, 'GET', list, undefined);
  const entries = Array.isArray(answer.json) ? (answer.json as Record<string, unknown>[]) : [];
  const found = entries.find((entry) => Object.entries(match).every(([field, value]) => sameValue(entry[field], value)));
  const id = found && (typeof found.id === 'string' || typeof found.id === 'number') ? String(found.id) : 'none';
  if (id === 'none') differences.push(`id: ${server}'s ${list} has no entry with ${JSON.stringify(match)} and an id`);
  return step.path.replace('{id}', encodeURIComponent(id));
}

async function compare(step: ApiRequest): Promise<string[]> {
  const differences: string[] = [];
  const [pdnsPath, zkPath] = await Promise.all([pathOn('PowerDNS', step, differences), pathOn('Zonekeeper', step, differences)]);
  // both servers at once: they are independent, and the sequence's order holds per server
  const [pdnsAnswer, zkAnswer] = await Promise.all([
    send(powerDns.baseUrl, powerDns.apiKey, step.method, pdnsPath, step.powerDns ? step.powerDns.body : step.body, step.headers),
    send(app.baseUrl, ADMIN_KEY, step.method, zkPath, step.body, step.headers),
  ]);
  // DIFFERENTIAL_TRACE=1: each request's two answers, to read the sequence against both servers
  if (process.env.DIFFERENTIAL_TRACE)
    process.stdout.write(
      `${step.method} ${pdnsPath}${zkPath === pdnsPath ? '' : ` (Zonekeeper: ${zkPath})`} | PowerDNS ${pdnsAnswer.status} ${pdnsAnswer.text.slice(0, 200)} | Zonekeeper ${zkAnswer.status} ${zkAnswer.text.slice(0, 200)}\n`,
    );
  if (statusClass(pdnsAnswer.status) !== statusClass(zkAnswer.status))
    differences.push(
      `status: PowerDNS ${pdnsAnswer.status} ${pdnsAnswer.text.slice(0, 160)} vs Zonekeeper ${zkAnswer.status} ${zkAnswer.text.slice(0, 160)}`,
    );
  else differences.push(...shapeDifferences(answerShape(pdnsAnswer), answerShape(zkAnswer)));
  if (step.sameCount && Array.isArray(pdnsAnswer.json) && Array.isArray(zkAnswer.json) && pdnsAnswer.json.length !== zkAnswer.json.length)
    differences.push(`count: PowerDNS ${pdnsAnswer.json.length} vs Zonekeeper ${zkAnswer.json.length}`);
  if (step.sameFields && statusClass(pdnsAnswer.status) === '2xx' && statusClass(zkAnswer.status) === '2xx')
    differences.push(
      ...listDifferences('values', sameFieldValues(pdnsAnswer.json, step.sameFields), sameFieldValues(zkAnswer.json, step.sameFields)),
    );
  // the export is a zone file (in JSON's `zone` when asked as JSON): its records compared as the AXFR's are
  const zoneFile = (answer: Answer) => {
    const inJson = (answer.json as { zone?: unknown } | undefined)?.zone;
    return typeof inJson === 'string' ? inJson : answer.text;
  };
  if (step.path.endsWith('/export') && pdnsAnswer.status === 200 && zkAnswer.status === 200)
    differences.push(
      ...listDifferences(
        'export',
        normaliseRecords(zoneFile(pdnsAnswer).split('\n')),
        normaliseRecords(zoneFile(zkAnswer).split('\n'), zoneOf(step.path)),
      ),
    );
  // the rrsets' contents as each server reads them back, text for text: what a client that syncs a zone compares
  if (step.contents && pdnsAnswer.status === 200 && zkAnswer.status === 200)
    differences.push(...listDifferences('contents', rrsetContents(pdnsAnswer.json), rrsetContents(zkAnswer.json)));
  if (step.axfr) {
    const [pdnsZone, zkZone] = await Promise.all([axfr(powerDns.dnsPort, step.axfr), axfr(zonekeeperDnsPort, step.axfr)]);
    differences.push(...listDifferences(`axfr ${step.axfr}`, pdnsZone, zkZone));
  }
  return differences;
}

beforeAll(async () => {
  zonekeeperDnsPort = await freePort();
  // default settings on purpose (the TTL policies among them): what a new user points the tools at
  [powerDns, app] = await Promise.all([startPowerDns(), startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${zonekeeperDnsPort}` })]);
  await createUser(app, ACCOUNT);
}, 90_000);

afterAll(async () => {
  await Promise.all([powerDns?.stop(), app?.close()]);
});

test('the sequence is long enough and every write on a zone is followed by an AXFR comparison', () => {
  expect(REQUESTS.length).toBeGreaterThanOrEqual(185);
  expect(new Set(REQUESTS.map((r) => r.what)).size).toBe(REQUESTS.length);
  const writes = REQUESTS.filter((r) => r.method !== 'GET');
  const onZones = (r: ApiRequest) => /\/zones(\/|\?|$)/.test(r.path);
  // POST, PUT, PATCH and DELETE on zones: always the AXFR (of the zone deleted or refused too: both refuse it)
  expect(writes.filter((r) => onZones(r) && (!r.axfr || r.noAxfr)).map((r) => r.what)).toEqual([]);
  // the exemptions: writes on no zone (TSIG keys), each with its reason
  expect(writes.filter((r) => !onZones(r) && (r.axfr || !r.noAxfr)).map((r) => r.what)).toEqual([]);
  expect(writes.filter((r) => !onZones(r)).every((r) => r.path.includes('/tsigkeys'))).toBe(true);
});

test('the zone of every type holds every type of the DNS model (a new type is compared as it comes)', () => {
  const written = new Set(EVERY_TYPE.map(([, type]) => type));
  // the SOA is the zone's own, compared in every zone; ALIAS has its own test (alias.test.ts); PowerDNS 4.7
  // does not know DSYNC (RFC 9859): its own request, a kept difference
  expect(
    listRecordTypes()
      .map((t) => t.type)
      .filter((type) => type !== 'SOA' && type !== 'DSYNC' && !written.has(type)),
  ).toEqual([]);
});

test.each(REQUESTS.map((request, index) => [`${String(index + 1).padStart(3, '0')} ${request.method} ${request.what}`, request] as const))(
  '%s',
  async (_label, step) => {
    const differences = await compare(step);
    // DIFFERENTIAL_REPORT=<file>: every difference, kept or not, one line each (to review the kept list)
    if (process.env.DIFFERENTIAL_REPORT)
      appendFileSync(process.env.DIFFERENTIAL_REPORT, differences.map((d) => `${step.what}\t${d}\n`).join(''));
    const left = differences.filter((difference) => {
      const kept = KEPT_DIFFERENCES.find((k) => (k.request === undefined || k.request === step.what) && k.difference.test(difference));
      if (kept) keptSeen.add(kept);
      return !kept;
    });
    expect({ request: `${step.method} ${step.path}`, differences: left }).toEqual({
      request: `${step.method} ${step.path}`,
      differences: [],
    });
  },
  30_000,
);

test('every kept difference still occurs (a fixed one leaves the list and the docs)', () => {
  expect(KEPT_DIFFERENCES.filter((k) => !keptSeen.has(k)).map((k) => `${k.request ?? '*'} ${k.difference}`)).toEqual([]);
});
