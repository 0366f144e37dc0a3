/**
 * The least-privilege matrix (docs/least-privilege.md): every REST route of the table (src/rest/routes.ts) and
 * every GraphQL Query, Mutation and Subscription field of the served schema, tried with a key of each preset and
 * of hand-written rules, on targets the key may touch and targets it may not. The expected answer of each call is
 * derived from what the key's policy says (each profile below states, in plain predicates, what its rules
 * grant), never from what the service answered; every refused call is checked to have changed nothing (the
 * zones, records, keys, users and DNSSEC rows read straight from the database before and after). A route or
 * field added without a row here fails the completeness tests at the end. The PowerDNS API's routes that its
 * clients use to list, read, write, create and delete zones (docs/powerdns-api.md) have rows too, each with the
 * expectation of the REST or GraphQL operation it amounts to; its errors carry no code, so they are told apart
 * by status (404 not there for the key, 401/403 refused).
 *
 * One service and one database for the whole file; rows are set up once, a write that succeeds is undone with
 * the admin key.
 */
import 'reflect-metadata';
import { Client } from 'pg';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { ROUTES } from '../../src/rest/routes';
import { POWERDNS_ROUTES } from '../../src/powerdns/routes';
import { waitUntil } from '../support/wait-for';
import { startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createZone } from '../support/fixtures';
import { personGql, sessionHeaders, signIn } from '../support/people';

const A = 'pm-a.test';
const B = 'pm-b.test';
/** a zone of another user: no user key of ours may ever see it */
const C = 'pm-c.test';
/** a zone made and deleted during the run (zone creation and deletion) */
const SPARE = 'pm-spare.test';

/** `ok`, or the error code the call must answer */
type Outcome = string;

interface Point {
  zone: string;
  owner: string;
  type: string;
}

/**
 * A key and what its policy grants, stated as the documentation states it (docs/least-privilege.md, «Presets»,
 * «Rules», «What a restricted key sees and may do»): the zones it sees, the zones it may read whole (zone files,
 * checks), and whether it may read or write one record; the three flags.
 */
interface Profile {
  name: string;
  input: Record<string, unknown>;
  sees: string[];
  readsWhole: string[];
  read(zone: string, owner: string, type: string): boolean;
  write(zone: string, owner: string, type: string): boolean;
  manageKeys: boolean;
  /** a person signed in with this role in the user's account (docs/people.md), instead of a key */
  person?: { role: 'owner' | 'admin' | 'editor' | 'viewer'; zones?: string[] };
  createZones: boolean;
  deleteZones: boolean;
}

/** a role as the API names it (the MemberRole enum) */
const apiRole = (role: string) => role.toUpperCase();
const underLabel = (label: string) => (owner: string) => owner === label || owner.startsWith(`${label}.`);
const underAcme = underLabel('_acme-challenge');
const underApp = underLabel('app');
const NO_FLAGS = { manageKeys: false, createZones: false, deleteZones: false };
/** an owner's and an admin's role: every zone of the account, all three flags; no rule (docs/people.md) */
const EVERYTHING = {
  input: {},
  sees: [] as string[],
  readsWhole: [] as string[],
  read: (zone: string) => zone !== C,
  write: (zone: string) => zone !== C,
  manageKeys: true,
  createZones: true,
  deleteZones: true,
};

const PROFILES: Profile[] = [
  {
    // {zone: every zone, access: read}
    name: 'READ_ONLY',
    input: { preset: 'READ_ONLY' },
    sees: [A, B, SPARE],
    readsWhole: [A, B, SPARE],
    read: (zone) => zone !== C,
    write: () => false,
    ...NO_FLAGS,
  },
  {
    // {zone: A, access: write}
    name: 'ONE_ZONE(A)',
    input: { preset: 'ONE_ZONE', zone: A },
    sees: [A],
    readsWhole: [A],
    read: (zone) => zone === A,
    write: (zone) => zone === A,
    ...NO_FLAGS,
  },
  {
    // {zone: A, owner: _acme-challenge.*, types: [TXT], access: write}
    name: 'ACME(A)',
    input: { preset: 'ACME', zone: A },
    sees: [A],
    readsWhole: [],
    read: (zone, owner, type) => zone === A && underAcme(owner) && type === 'TXT',
    write: (zone, owner, type) => zone === A && underAcme(owner) && type === 'TXT',
    ...NO_FLAGS,
  },
  {
    name: 'rules: read every zone, write TXT and A under app.* of A',
    input: {
      policy: {
        rules: [{ access: 'READ' }, { zone: A, owner: 'app.*', types: ['TXT', 'A'], access: 'WRITE' }],
      },
    },
    sees: [A, B, SPARE],
    readsWhole: [A, B, SPARE],
    read: (zone) => zone !== C,
    write: (zone, owner, type) => zone === A && underApp(owner) && (type === 'TXT' || type === 'A'),
    ...NO_FLAGS,
  },
  {
    // a rule naming another user's zone grants nothing there: a rule reaches only its key's user's zones
    name: "rules: write another user's zone, write TXT under app.* of A",
    input: {
      policy: {
        rules: [
          { zone: C, access: 'WRITE' },
          { zone: A, owner: 'app.*', types: ['TXT'], access: 'WRITE' },
        ],
      },
    },
    sees: [A],
    readsWhole: [],
    read: (zone, owner, type) => zone === A && underApp(owner) && type === 'TXT',
    write: (zone, owner, type) => zone === A && underApp(owner) && type === 'TXT',
    ...NO_FLAGS,
  },
  {
    name: 'rules with flags: write under app.* of A and all of the spare zone; manage keys, create and delete zones',
    input: {
      policy: {
        rules: [
          { zone: A, owner: 'app.*', access: 'WRITE' },
          { zone: SPARE, access: 'WRITE' },
        ],
        mayCreateZones: true,
        mayDeleteZones: true,
        mayManageKeys: true,
      },
    },
    sees: [A, SPARE],
    readsWhole: [SPARE],
    read: (zone, owner) => (zone === A && underApp(owner)) || zone === SPARE,
    write: (zone, owner) => (zone === A && underApp(owner)) || zone === SPARE,
    manageKeys: true,
    createZones: true,
    deleteZones: true,
  },
  // people signed in, by role (docs/people.md): the role's rules in the same engine. An owner's rules are an
  // admin's; they differ in managing owners (inviteMember) and in zone transfers (the ownerOnly rows)
  { ...EVERYTHING, name: 'person: owner', sees: [A, B, SPARE], readsWhole: [A, B, SPARE], person: { role: 'owner' } },
  { ...EVERYTHING, name: 'person: admin', sees: [A, B, SPARE], readsWhole: [A, B, SPARE], person: { role: 'admin' } },
  {
    // an editor without named zones: the records of every zone of the account, no zone made or deleted, no keys
    name: 'person: editor of every zone',
    input: {},
    person: { role: 'editor' },
    sees: [A, B, SPARE],
    readsWhole: [A, B, SPARE],
    read: (zone) => zone !== C,
    write: (zone) => zone !== C,
    ...NO_FLAGS,
  },
  {
    name: 'person: editor of A',
    input: {},
    person: { role: 'editor', zones: [A] },
    sees: [A],
    readsWhole: [A],
    read: (zone) => zone === A,
    write: (zone) => zone === A,
    ...NO_FLAGS,
  },
  {
    name: 'person: viewer',
    input: {},
    person: { role: 'viewer' },
    sees: [A, B, SPARE],
    readsWhole: [A, B, SPARE],
    read: (zone) => zone !== C,
    write: () => false,
    ...NO_FLAGS,
  },
];

/** the targets of record operations: each profile may touch some of them and not others */
const POINTS: Point[] = [
  { zone: A, owner: '_acme-challenge.mx', type: 'TXT' },
  { zone: A, owner: '_acme-challenge.mx', type: 'A' },
  { zone: A, owner: 'app.mx', type: 'A' },
  { zone: A, owner: 'app.mx', type: 'AAAA' },
  { zone: A, owner: 'mx', type: 'TXT' },
  { zone: B, owner: '_acme-challenge.mx', type: 'TXT' },
  { zone: B, owner: 'app.mx', type: 'A' },
  { zone: C, owner: 'app.mx', type: 'A' },
];
const ZONES = [A, B, C];

// ---- what the policy says, per kind of question ----

const sees = (p: Profile, zone: string) => p.sees.includes(zone);
/** a new record at a point (create, a change set's ADD, an import's line) */
const writeNew = (p: Profile, t: Point): Outcome =>
  !sees(p, t.zone) ? 'ZONE_NOT_FOUND' : !p.write(t.zone, t.owner, t.type) ? 'FORBIDDEN_BY_POLICY' : 'ok';
/** an existing record named by id (edit, delete): one it may not read is not there for it */
const touchExisting = (p: Profile, t: Point): Outcome =>
  !sees(p, t.zone) || !p.read(t.zone, t.owner, t.type)
    ? 'RECORD_NOT_FOUND'
    : !p.write(t.zone, t.owner, t.type)
      ? 'FORBIDDEN_BY_POLICY'
      : 'ok';
const readRecord = (p: Profile, t: Point): Outcome => (sees(p, t.zone) && p.read(t.zone, t.owner, t.type) ? 'ok' : 'RECORD_NOT_FOUND');
const readZone = (p: Profile, zone: string): Outcome => (sees(p, zone) ? 'ok' : 'ZONE_NOT_FOUND');
const readWholeZone = (p: Profile, zone: string): Outcome =>
  !sees(p, zone) ? 'ZONE_NOT_FOUND' : p.readsWhole.includes(zone) ? 'ok' : 'FORBIDDEN_BY_POLICY';
/**
 * a change of the whole zone at once (its extra secondaries, a promotion, an import by transfer): write every
 * name and type of it, which the apex SOA and any other name stand for in these profiles
 */
const writeWholeZone = (p: Profile, zone: string, allowed: Outcome = 'ok'): Outcome =>
  !sees(p, zone) ? 'ZONE_NOT_FOUND' : p.write(zone, '@', 'SOA') && p.write(zone, 'mx', 'TXT') ? allowed : 'FORBIDDEN_BY_POLICY';
/** DNSSEC rewrites the apex's DNSKEY and every signature: write DNSKEY at @ */
const controlDnssec = (p: Profile, zone: string): Outcome =>
  !sees(p, zone) ? 'ZONE_NOT_FOUND' : p.write(zone, '@', 'DNSKEY') ? 'ok' : 'FORBIDDEN_BY_POLICY';
const flag = (has: boolean): Outcome => (has ? 'ok' : 'FORBIDDEN_BY_POLICY');
/** an owner or admin has no rules: nothing is beyond its rights within its account */
const unrestricted = (p: Profile) => p.person?.role === 'owner' || p.person?.role === 'admin';
const beyond = (p: Profile): Outcome => (unrestricted(p) ? 'ok' : 'FORBIDDEN_BY_POLICY');
/**
 * an unrestricted key (made, changed or revoked): the owner's alone. An admin's rights are a rule over every
 * zone, so what an admin makes is restricted and acts as an admin, never as the account's owner (roles.ts)
 */
const unrestrictedKey = (p: Profile): Outcome => (p.person?.role === 'owner' ? 'ok' : 'FORBIDDEN_BY_POLICY');
/** managing members: a person by role (owner, admin), a key by mayManageKeys (docs/people.md) */
const managesMembers = (p: Profile): Outcome => (p.person ? (unrestricted(p) ? 'ok' : 'FORBIDDEN_BY_ROLE') : flag(p.manageKeys));
const signedIn = (p: Profile): Outcome => (p.person ? 'ok' : 'NOT_SIGNED_IN');
/**
 * what only the account's owner may (zone transfers, docs/people.md): a person by the owner role, a key when
 * unrestricted; a restricted key is an admin with mayManageKeys, else refused by its policy
 */
const ownsAccount = (p: Profile): Outcome =>
  p.person ? (p.person.role === 'owner' ? 'ok' : 'FORBIDDEN_BY_ROLE') : p.manageKeys ? 'FORBIDDEN_BY_ROLE' : 'FORBIDDEN_BY_POLICY';
/** a zone's key events tell what its DNSKEY RRset holds: read DNSKEY at @ (docs/least-privilege.md, «DNSSEC») */
const readDnssecEvents = (p: Profile, zone: string): Outcome =>
  !sees(p, zone) ? 'ZONE_NOT_FOUND' : p.read(zone, '@', 'DNSKEY') ? 'ok' : 'FORBIDDEN_BY_POLICY';

// ---- the service, its database, the admin's helpers ----

let app: TestApp;
let db: Client;
let userId: string;
let otherUserId: string;
/** a viewer of the user's account, and a member of the other user's: the targets of member management */
const targetEmail = 'pm-target@example.org';
let targetToken: string;
let targetId: string;
let otherMemberId: string;
const keys = new Map<string, { secret: string; id: string; email?: string }>();
let serial = 0;
const next = () => ++serial;

function rdataFor(type: string, n = next()): string {
  if (type === 'TXT') return `"pm-${n}"`;
  if (type === 'A') return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  if (type === 'AAAA') return `2001:db8::${n.toString(16)}`;
  throw new Error(`no rdata for ${type}`);
}

async function admin(query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await app.gql(query, variables);
  if (res.errors) throw new Error(`admin: ${JSON.stringify(res.errors)}`);
  return res.data;
}

async function adminAdd(t: Point, rdata = rdataFor(t.type)): Promise<{ id: string; rdata: string }> {
  const data = await admin(CREATE_RECORD, { input: { zone: t.zone, owner: t.owner, type: t.type, rdata, ttl: 300 } });
  return { id: data.createRecord.id, rdata };
}

/** the id of the record (zone, owner, type, rdata), as the database holds it, or undefined */
async function findRecord(t: Point, rdata: string): Promise<string | undefined> {
  const { rows } = await db.query(
    `select r.id from records r join domains d on d.id = r.domain_id where d.name = $1 and r.owner = $2 and r.type = $3 and r.rdata = $4`,
    [t.zone, t.owner, t.type, rdata],
  );
  return rows[0]?.id === undefined ? undefined : String(rows[0].id);
}

async function recordRdata(id: string): Promise<string | undefined> {
  const { rows } = await db.query(`select rdata from records where id = $1`, [id]);
  return rows[0]?.rdata;
}

async function adminDeleteIfThere(id: string | undefined): Promise<void> {
  if (id === undefined || (await recordRdata(id)) === undefined) return;
  await admin(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id });
}

async function zoneSerial(zone: string): Promise<number> {
  const { rows } = await db.query(`select serial from domains where name = $1`, [zone]);
  return Number(rows[0].serial);
}

async function zoneId(zone: string): Promise<string> {
  const { rows } = await db.query(`select id from domains where name = $1`, [zone]);
  return String(rows[0].id);
}

/** every record of the zones, as the database holds them */
async function allRecords(): Promise<{ id: string; zone: string; owner: string; type: string }[]> {
  const { rows } = await db.query(`select r.id, d.name as zone, r.owner, r.type from records r join domains d on d.id = r.domain_id`);
  return rows.map((r: any) => ({ id: String(r.id), zone: r.zone, owner: r.owner, type: r.type }));
}

/** the records a search finds for a profile: those it may read, as written (not derived from an ALIAS) */
async function searchableRecords(p: Profile) {
  const { rows } = await db.query(`select r.id, r.rdata from records r where r.derived_from is null`);
  const written = new Map(rows.map((r: any) => [String(r.id), r.rdata as string]));
  return (await readableRecords(p)).filter((r) => written.has(r.id)).map((r) => ({ ...r, rdata: written.get(r.id) as string }));
}

const ownerFqdn = (r: { zone: string; owner: string }) => (r.owner === '@' ? `${r.zone}.` : `${r.owner}.${r.zone}.`);

/** the records a profile may read among those of the zones named */
async function readableRecords(p: Profile, zones?: string[]) {
  return (await allRecords()).filter((r) => (zones ?? p.sees).includes(r.zone) && sees(p, r.zone) && p.read(r.zone, r.owner, r.type));
}

/**
 * Everything a call could change: zones, records, keys, users, people and DNSSEC state (its key events included), whole
 * rows (a key's first and last use, and the marks of its expiry and idleness being audited, left out: using a key
 * writes them, docs/least-privilege.md, docs/audit-log.md). A trigger on each of these tables, in the matrix's
 * own database, logs every row inserted, deleted or changed (an update that leaves the row as it was, but for
 * those marks, is no change): a call wrote nothing exactly when the log grew by no entry, and what it wrote is
 * named table by table. Each check is one index lookup, where reading every table whole around each of the
 * matrix's thousands of calls took most of its time.
 */
const WATCHED_TABLES = [
  'domains',
  'records',
  'api_keys',
  'tsig_keys',
  'users',
  'dnssec_zones',
  'dnssec_keys',
  'dnssec_records',
  'dnssec_key_events',
  'dnssec_foreign_keys',
  'memberships',
  'invitations',
  'record_templates',
  // a person's operator grant (docs/people.md, «The operator»)
  'people',
  // review and scheduled changes (docs/changes.md)
  'change_requests',
  'change_request_reviews',
  // RRsets' comments (docs/changes.md, «Comments»): a refused write comments nothing either
  'rrset_comments',
];
const USE_MARKS = ['last_used_at', 'first_used_at', 'expiry_audited_at', 'idle_audited_at'];

async function logWrites(): Promise<void> {
  const withoutMarks = (row: string) => `(to_jsonb(${row})${USE_MARKS.map((c) => ` - '${c}'`).join('')})`;
  await db.query(`create table policy_matrix_writes (id bigserial primary key, table_name text not null, operation text not null)`);
  await db.query(`create function policy_matrix_log_write() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and ${withoutMarks('old')} = ${withoutMarks('new')} then
        return null;
      end if;
      insert into policy_matrix_writes (table_name, operation) values (tg_table_name, tg_op);
      return null;
    end $$`);
  for (const table of WATCHED_TABLES)
    await db.query(
      `create trigger policy_matrix_writes after insert or update or delete on ${table} for each row execute function policy_matrix_log_write()`,
    );
}

/** where the write log stands: every write after it has a greater id */
async function snapshot(): Promise<string> {
  const { rows } = await db.query(`select coalesce(max(id), 0)::text as last from policy_matrix_writes`);
  return rows[0].last;
}

/** the writes logged since a snapshot, by table and kind (`{}`: none) */
async function writesSince(since: string): Promise<Record<string, number>> {
  const { rows } = await db.query(
    `select table_name || ' ' || operation as write, count(*)::int as n from policy_matrix_writes where id > $1 group by 1 order by 1`,
    [since],
  );
  return Object.fromEntries(rows.map((r: any) => [r.write, r.n]));
}

/** the ids of a zone's key events, newest first, as the database holds them */
async function keyEventIds(zone: string): Promise<string[]> {
  const { rows } = await db.query(
    `select e.id from dnssec_key_events e join domains d on d.id = e.domain_id where d.name = $1 order by e.id desc`,
    [zone],
  );
  return rows.map((r: any) => String(r.id));
}

async function dnssecState(zone: string): Promise<string> {
  const data = await admin(`query($z: String) { domain(name: $z) { dnssec { state } } }`, { z: zone });
  return data.domain.dnssec.state;
}
async function dnssecEnabled(zone: string): Promise<boolean> {
  return (await dnssecState(zone)) !== 'unsigned';
}
/** a zone signed and not disabling (a key's unforced disable leaves it disabling: RFC 8078) */
async function adminEnableDnssec(zone: string): Promise<void> {
  if ((await dnssecState(zone)) === 'disabling') await adminDisableDnssec(zone);
  if (!(await dnssecEnabled(zone))) await admin(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: zone });
}
/** another signer's KSK (multi-signer, RFC 8901): any 64 octets pass as an ECDSA P-256 DNSKEY here */
const FOREIGN_DNSKEY = `257 3 13 ${Buffer.alloc(64, 7).toString('base64')}`;
/** signed, with the other signer's KSK published (multi-signer) */
async function adminAddForeignKey(zone: string): Promise<void> {
  await adminEnableDnssec(zone);
  await admin(`mutation($i: AddForeignDnskeysInput!) { addForeignDnskeys(input: $i) { enabled } }`, {
    i: { zone, dnskeys: [FOREIGN_DNSKEY] },
  });
}
/** signed, with the other signer's KSK published, and its own DS withdrawn (multi-signer, moving out) */
async function adminWithdrawDs(zone: string): Promise<void> {
  await adminAddForeignKey(zone);
  await admin(`mutation($z: String!) { withdrawDnssecDs(zone: $z) { enabled } }`, { z: zone });
}
/** the id of the zone's first foreign key (0: none; a caller refused earlier gets no further) */
async function foreignKeyId(zone: string): Promise<string> {
  const data = await admin(`query($z: String) { domain(name: $z) { dnssec { foreignKeys { id } } } }`, { z: zone });
  return data.domain.dnssec.foreignKeys[0]?.id ?? '0';
}
/** unsigned now, whatever the parent holds (force) */
async function adminDisableDnssec(zone: string): Promise<void> {
  if (await dnssecEnabled(zone)) await admin(`mutation($z: String!) { disableDnssec(zone: $z, force: true) { enabled } }`, { z: zone });
}
/**
 * disabling: signed, with the DS-delete CDS/CDNSKEY, waiting for the parent's DS to go (RFC 8078 §4); the DS is
 * said published first (a zone whose DS never was is unsigned at once: nothing to wait for)
 */
async function adminStartDisable(zone: string): Promise<void> {
  await adminEnableDnssec(zone);
  // DNSSEC_NOTHING_TO_CONFIRM when it was said already
  await app.gql(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { state } }`, { z: zone });
  await admin(`mutation($z: String!) { disableDnssec(zone: $z) { state } }`, { z: zone });
}

/** a KSK roll waiting for its new DS at the parent (the zones' parents are outside Zonekeeper) */
async function adminAwaitNewDs(zone: string): Promise<void> {
  await adminEnableDnssec(zone);
  await admin(`mutation($z: String!) { rollDnssecKey(zone: $z, role: KSK) { enabled } }`, { z: zone });
}

// ---- calls and their checks ----

interface Answer {
  via: 'rest' | 'graphql' | 'powerdns';
  status: number;
  code?: string;
  body: any;
  data?: any;
}

async function rest(
  key: string,
  method: 'get' | 'post' | 'put' | 'delete',
  path: string,
  options: { query?: Record<string, unknown>; body?: Record<string, unknown> } = {},
): Promise<Answer> {
  let req = app.http[method](`/api${path}`).set(isSession(key) ? sessionHeaders(key) : { 'X-API-Key': key });
  if (options.query) req = req.query(options.query);
  const res = options.body ? await req.send(options.body) : await req;
  const ok = res.status >= 200 && res.status < 300;
  return { via: 'rest', status: res.status, code: ok ? undefined : res.body?.error, body: res.body ?? res.text, data: res.body };
}

/** the PowerDNS API's server (docs/powerdns-api.md) */
const PDNS = '/api/v1/servers/localhost';

/**
 * A call to the PowerDNS API with the key (X-API-Key) or the person's session (the cookie, with the CSRF gate's
 * X-Requested-With: the same gate as REST, src/http/request-gates.ts). Its error bodies are `{"error": "…"}`
 * without a code: `code` is the status, and expectOutcome compares statuses.
 */
async function pdns(
  key: string,
  method: 'get' | 'post' | 'put' | 'patch' | 'delete',
  path: string,
  body?: Record<string, unknown>,
): Promise<Answer> {
  return pdnsAt(key, method, `${PDNS}${path}`, body);
}

/** a call to any path of the PowerDNS API (`/api/v1/servers`, outside the server's) */
async function pdnsAt(
  key: string,
  method: 'get' | 'post' | 'put' | 'patch' | 'delete',
  path: string,
  body?: Record<string, unknown>,
): Promise<Answer> {
  const req = app.http[method](path).set(isSession(key) ? sessionHeaders(key) : { 'X-API-Key': key });
  const res = body ? await req.send(body) : await req;
  const ok = res.status >= 200 && res.status < 300;
  const data = res.type === 'text/plain' ? res.text : res.body;
  return { via: 'powerdns', status: res.status, code: ok ? undefined : `HTTP ${res.status}`, body: res.body ?? res.text, data };
}

/**
 * what the PowerDNS API answers for an outcome: 2xx, 404 for what is not there for the key, 401/403 refused;
 * `HTTP <status>` that status (a request refused once the policy let it through: a metadata write)
 */
const powerDnsAnswer = (outcome: Outcome) =>
  outcome === 'ok'
    ? 'ok'
    : outcome.startsWith('HTTP ')
      ? outcome
      : outcome.endsWith('_NOT_FOUND')
        ? 'not found (404)'
        : 'refused (401/403)';
const powerDnsAnswerOf = (status: number) =>
  status >= 200 && status < 300
    ? 'ok'
    : status === 404
      ? 'not found (404)'
      : status === 401 || status === 403
        ? 'refused (401/403)'
        : `HTTP ${status}`;

/** a person's credential is a session token (sent as the cookie), a key's its secret (X-API-Key) */
const isSession = (key: string) => key.startsWith('zk_session_');

async function gql(key: string, query: string, variables: Record<string, unknown> = {}): Promise<Answer> {
  const res = isSession(key) ? await personGql(app, key, query, variables) : await app.gql(query, variables, key);
  return { via: 'graphql', status: res.status, code: res.errors?.[0]?.extensions?.code, body: res.body, data: res.data };
}

const tally = { calls: 0, allowed: 0, refused: 0 };
/** op id → the profiles it ran for, and whether it met an allowed and a refused target */
const coverage = new Map<string, { profiles: Set<string>; allowed: number; refused: number }>();
let current: { op: string; profile: string } | undefined;

function expectOutcome(answer: Answer, expected: Outcome, label: string): void {
  if (answer.via === 'powerdns') {
    const got = powerDnsAnswerOf(answer.status);
    const want = powerDnsAnswer(expected);
    expect({ label, got, body: got === want ? undefined : answer.body }).toEqual({ label, got: want, body: undefined });
  } else {
    const ok = answer.via === 'rest' ? answer.status >= 200 && answer.status < 300 : !answer.body?.errors && answer.data !== undefined;
    const got = ok ? 'ok' : (answer.code ?? 'error');
    expect({ label, got, body: got === expected ? undefined : answer.body }).toEqual({ label, got: expected, body: undefined });
  }
  if (answer.via === 'rest') {
    const status = expected === 'ok' ? [200, 201, 204] : expected.endsWith('_NOT_FOUND') ? [404] : [403];
    if (!status.includes(answer.status)) expect({ label, status: answer.status }).toEqual({ label, status: status[0] });
  }
  tally.calls++;
  if (expected === 'ok') tally.allowed++;
  else tally.refused++;
  if (current) {
    const c = coverage.get(current.op)!;
    if (expected === 'ok') c.allowed++;
    else c.refused++;
  }
}

/** a call whose answer the policy decides; a refused call (and any read) must leave every row as it was */
async function attempt(label: string, expected: Outcome, call: () => Promise<Answer>, options: { reads?: boolean } = {}): Promise<Answer> {
  const before = await snapshot();
  const answer = await call();
  expectOutcome(answer, expected, label);
  if (expected !== 'ok' || options.reads) expect({ label, written: await writesSince(before) }).toEqual({ label, written: {} });
  return answer;
}

/** every (zone, owner, type) object in an answer: what a list showed */
function recordsIn(value: unknown, zone?: string, found: { zone?: string; owner: string; type: string }[] = []) {
  if (Array.isArray(value)) for (const item of value) recordsIn(item, zone, found);
  else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const here = typeof o.zone === 'string' ? o.zone : typeof o.name === 'string' && 'records' in o ? o.name : zone;
    if (typeof o.owner === 'string' && typeof o.type === 'string') found.push({ zone: here, owner: o.owner, type: o.type });
    for (const v of Object.values(o)) recordsIn(v, here, found);
  }
  return found;
}

function expectOnlyReadable(p: Profile, label: string, value: unknown, zone?: string): void {
  const shown = recordsIn(value, zone);
  const unreadable = shown.filter((r) => !r.zone || !sees(p, r.zone) || !p.read(r.zone, r.owner, r.type));
  expect({ label, unreadable }).toEqual({ label, unreadable: [] });
}

/** a passkey row of a person, as a registration writes it (the matrix asks who may list and remove it, not WebAuthn) */
async function insertPasskey(email: string): Promise<string> {
  const { rows } = await db.query(
    `insert into passkeys (person_id, credential_id, public_key, counter) select id, $2, $3, 0 from people where email = $1 returning id`,
    [email, `pm-${email}-${Date.now()}-${Math.random()}`, Buffer.from([1, 2, 3])],
  );
  expect(rows).toHaveLength(1);
  return String(rows[0].id);
}

async function passkeyExists(id: string): Promise<boolean> {
  return (await db.query(`select 1 from passkeys where id = $1`, [id])).rowCount === 1;
}

// ---- the matrix: one row per REST route and GraphQL field ----

interface Op {
  id: string;
  /** only the admin key may: no user key has an allowed target */
  adminOnly?: true;
  /** only an account's owner (or the admin key) may: of the profiles here, the owner row (zone-transfer.test.ts has more) */
  ownerOnly?: true;
  /** a list: what the key may not read is left out of it and of its counts, never refused */
  list?: true;
  run(p: Profile, key: string): Promise<void>;
}

const REST_RECORD = (t: Point, rdata: string) => ({ zone: t.zone, owner: t.owner, rtype: t.type, rdata, ttl: 300 });
const GQL_RECORD = (t: Point, rdata: string) => ({ zone: t.zone, owner: t.owner, type: t.type, rdata, ttl: 300 });
const label = (t: Point) => `${t.type} at ${t.owner}.${t.zone}`;

/** create one record at each point */
function createRecordOp(id: string, call: (key: string, t: Point, rdata: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const t of POINTS) {
        const rdata = rdataFor(t.type);
        const expected = writeNew(p, t);
        await attempt(`create ${label(t)}`, expected, () => call(key, t, rdata));
        const made = await findRecord(t, rdata);
        expect({ t, made: made !== undefined }).toEqual({ t, made: expected === 'ok' });
        await adminDeleteIfThere(made);
      }
    },
  };
}

/** edit a record in place at each point, and move one from an _acme-challenge TXT to another owner */
function editRecordOp(id: string, call: (key: string, recordId: string, t: Point, rdata: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const t of POINTS) {
        const seeded = await adminAdd(t);
        const rdata = rdataFor(t.type);
        const expected = touchExisting(p, t);
        await attempt(`edit ${label(t)}`, expected, () => call(key, seeded.id, t, rdata));
        expect({ t, rdata: await recordRdata(seeded.id) }).toEqual({ t, rdata: expected === 'ok' ? rdata : seeded.rdata });
        await adminDeleteIfThere(seeded.id);
      }
      const from: Point = { zone: A, owner: '_acme-challenge.mx', type: 'TXT' };
      const to: Point = { zone: A, owner: 'mx', type: 'TXT' };
      const seeded = await adminAdd(from);
      const rdata = rdataFor('TXT');
      const readable = touchExisting(p, from);
      const expected = readable !== 'ok' ? readable : p.write(to.zone, to.owner, to.type) ? 'ok' : 'FORBIDDEN_BY_POLICY';
      await attempt(`move ${label(from)} to ${label(to)}`, expected, () => call(key, seeded.id, to, rdata));
      await adminDeleteIfThere(seeded.id);
    },
  };
}

function deleteRecordOp(id: string, call: (key: string, recordId: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const t of POINTS) {
        const seeded = await adminAdd(t);
        const expected = touchExisting(p, t);
        await attempt(`delete ${label(t)}`, expected, () => call(key, seeded.id));
        expect({ t, left: (await recordRdata(seeded.id)) !== undefined }).toEqual({ t, left: expected !== 'ok' });
        await adminDeleteIfThere(seeded.id);
      }
    },
  };
}

function readRecordOp(id: string, call: (key: string, recordId: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const t of POINTS) {
        const seeded = await adminAdd(t);
        const answer = await attempt(`read ${label(t)}`, readRecord(p, t), () => call(key, seeded.id), { reads: true });
        if (readRecord(p, t) === 'ok') expect(JSON.stringify(answer.data)).toContain(t.owner);
        await adminDeleteIfThere(seeded.id);
      }
    },
  };
}

/** a change set: an ADD at each point, and a REMOVE by id of a record at each point */
function changeSetOp(id: string, call: (key: string, zone: string, changes: unknown[]) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const t of POINTS) {
        const rdata = rdataFor(t.type);
        const expected = writeNew(p, t);
        await attempt(`change set ADD ${label(t)}`, expected, () =>
          call(key, t.zone, [{ kind: 'ADD', owner: t.owner, type: t.type, rdata, ttl: 300 }]),
        );
        await adminDeleteIfThere(await findRecord(t, rdata));
        const seeded = await adminAdd(t);
        const remove = !sees(p, t.zone) ? 'ZONE_NOT_FOUND' : touchExisting(p, t);
        await attempt(`change set REMOVE ${label(t)}`, remove, () => call(key, t.zone, [{ kind: 'REMOVE', id: seeded.id }]));
        expect({ t, left: (await recordRdata(seeded.id)) !== undefined }).toEqual({ t, left: remove !== 'ok' });
        await adminDeleteIfThere(seeded.id);
        // the RRset's comment alone (docs/changes.md, «Comments»): written where the key may write the RRset
        const comment = `pm comment ${next()}`;
        await attempt(`change set COMMENT ${label(t)}`, expected, () =>
          call(key, t.zone, [{ kind: 'COMMENT', owner: t.owner, type: t.type, comment }]),
        );
        expect({ t, commented: (await commentAt(t)) === comment }).toEqual({ t, commented: expected === 'ok' });
        if (expected === 'ok') await admin(CLEAR_COMMENT, { z: t.zone, o: t.owner, t: t.type });
      }
    },
  };
}

/** the comment of the RRset at a point, as the database holds it (undefined: none) */
async function commentAt(t: Point): Promise<string | undefined> {
  const { rows } = await db.query(
    `select string_agg(c.content, E'\\n' order by c.position) as text from rrset_comments c join domains d on d.id = c.domain_id
      where d.name = $1 and c.owner = $2 and c.type = $3`,
    [t.zone, t.owner, t.type],
  );
  return rows[0].text ?? undefined;
}
const CLEAR_COMMENT = `mutation($z: String!, $o: String!, $t: String!) {
  applyZoneChanges(zone: $z, changes: [{ kind: COMMENT, owner: $o, type: $t, comment: "" }]) { serial } }`;

function importOp(id: string, call: (key: string, zone: string, text: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const t of POINTS) {
        const rdata = rdataFor(t.type);
        const expected = writeNew(p, t);
        await attempt(`import ${label(t)}`, expected, () => call(key, t.zone, `${t.owner} 300 IN ${t.type} ${rdata}\n`));
        const made = await findRecord(t, rdata);
        expect({ t, made: made !== undefined }).toEqual({ t, made: expected === 'ok' });
        await adminDeleteIfThere(made);
      }
    },
  };
}

/** an operation over one zone: A, B (same user) and C (another user's) */
// ---- steering (docs/steering.md): a steered RRset is its owner and type's records; a check is the zone's ----

/** the points whose type may be steered (A, AAAA) */
const STEERABLE = POINTS.filter((t) => t.type === 'A' || t.type === 'AAAA');
/** a public address (no probe is sent: the matrix's service has no worker role) */
const STEERED_VALUE = (type: string) => (type === 'A' ? '8.8.8.8' : '2001:4860:4860::8888');
const STEERED_INPUT = (t: Point) => ({ owner: t.owner, type: t.type, pools: [{ members: [{ value: STEERED_VALUE(t.type) }] }] });
const CHECK_INPUT = () => ({ name: `pm-${next()}`, protocol: 'tcp', address: '8.8.8.8', port: 443 });
/** a check is written where the key may write some record of the zone (every RRset following it too: none here) */
const writesSomeOf = (p: Profile, zone: string): boolean =>
  ['@', 'mx', 'app.mx', '_acme-challenge.mx', 'x.app.mx'].some((owner) =>
    ['A', 'AAAA', 'TXT', 'SOA'].some((type) => p.write(zone, owner, type)),
  );
const writeCheck = (p: Profile, zone: string, unseen: Outcome): Outcome =>
  !sees(p, zone) ? unseen : writesSomeOf(p, zone) ? 'ok' : 'FORBIDDEN_BY_POLICY';
/** a steered RRset named by id: one the key may not read is not there for it */
const touchSteered = (p: Profile, t: Point): Outcome => {
  const outcome = touchExisting(p, t);
  return outcome === 'RECORD_NOT_FOUND' ? 'STEERED_RRSET_NOT_FOUND' : outcome;
};

async function steeredIdAt(t: Point): Promise<string | undefined> {
  const { rows } = await db.query(
    `select s.id from steered_rrsets s join domains d on d.id = s.domain_id where d.name = $1 and s.owner = $2 and s.type = $3`,
    [t.zone, t.owner, t.type],
  );
  return rows[0] ? String(rows[0].id) : undefined;
}

async function adminSteer(t: Point): Promise<string> {
  const data = await admin(`mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`, {
    z: t.zone,
    i: STEERED_INPUT(t),
  });
  return data.createSteeredRrset.id;
}

/**
 * the steered RRset at the point undone (its served records go with it), and the records the point held before it
 * was steered put back: the other rows of the matrix find each point as it was seeded
 */
async function adminUnsteer(t: Point, held: string[]): Promise<void> {
  const id = await steeredIdAt(t);
  if (id !== undefined) await admin(`mutation($id: ID!) { deleteSteeredRrset(id: $id) }`, { id });
  const now = await rdatasAt(t);
  for (const rdata of held) if (!now.includes(rdata)) await adminAdd(t, rdata);
}

async function checkIdNamed(zone: string, name: string): Promise<string | undefined> {
  const { rows } = await db.query(
    `select c.id from steering_checks c join domains d on d.id = c.domain_id where d.name = $1 and c.name = $2`,
    [zone, name],
  );
  return rows[0] ? String(rows[0].id) : undefined;
}

async function adminCheck(zone: string, input: { name: string } = CHECK_INPUT()): Promise<{ id: string; name: string }> {
  const data = await admin(`mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id } }`, {
    z: zone,
    i: input,
  });
  return { id: data.createSteeringCheck.id, name: input.name };
}

async function adminDeleteCheck(id: string): Promise<void> {
  if ((await db.query(`select 1 from steering_checks where id = $1`, [id])).rowCount)
    await admin(`mutation($id: ID!) { deleteSteeringCheck(id: $id) }`, { id });
}

/** steer the RRset at each steerable point */
function createSteeredOp(id: string, call: (key: string, t: Point) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const t of STEERABLE) {
        const held = await rdatasAt(t);
        const expected = writeNew(p, t);
        await attempt(`steer ${label(t)}`, expected, () => call(key, t));
        expect({ t, made: (await steeredIdAt(t)) !== undefined }).toEqual({ t, made: expected === 'ok' });
        await adminUnsteer(t, held);
      }
    },
  };
}

/**
 * change or delete the steered RRset at each steerable point, named by its id (GraphQL) or by its zone, owner and
 * type (REST: a zone the key does not see is `unseen`, ZONE_NOT_FOUND, as on every REST path that names its zone)
 */
function touchSteeredOp(
  id: string,
  call: (key: string, steeredId: string, t: Point) => Promise<Answer>,
  deletes = false,
  unseen: Outcome = 'STEERED_RRSET_NOT_FOUND',
): Op {
  return {
    id,
    async run(p, key) {
      for (const t of STEERABLE) {
        const held = await rdatasAt(t);
        const steered = await adminSteer(t);
        const expected = sees(p, t.zone) ? touchSteered(p, t) : unseen;
        await attempt(`${id} ${label(t)}`, expected, () => call(key, steered, t));
        if (deletes) expect({ t, left: (await steeredIdAt(t)) !== undefined }).toEqual({ t, left: expected !== 'ok' });
        await adminUnsteer(t, held);
      }
    },
  };
}

// ---- protected RRsets (docs/changes.md): an owner or admin, or a key that may write the RRset ----

/** lock or unlock an RRset: the zone seen, a person an owner or admin, the RRset (the apex SOA: the zone's setting) writable */
const guardOutcome = (p: Profile, zone: string, owner: string, type: string): Outcome =>
  !sees(p, zone)
    ? 'ZONE_NOT_FOUND'
    : p.person && !unrestricted(p)
      ? 'FORBIDDEN_BY_ROLE'
      : !p.write(zone, owner, type)
        ? 'FORBIDDEN_BY_POLICY'
        : 'ok';

async function lockedAt(t: Point): Promise<boolean> {
  const rows = await db.query(
    `select 1 from protected_rrsets p join domains d on d.id = p.domain_id where d.name = $1 and p.owner = $2 and p.type = $3`,
    [t.zone, t.owner, t.type],
  );
  return (rows.rowCount ?? 0) > 0;
}

/** lock (or, with `unlocks`, unlock one the admin locked) the RRset at each point; each point left unlocked */
function guardOp(id: string, call: (key: string, t: Point) => Promise<Answer>, unlocks = false): Op {
  return {
    id,
    async run(p, key) {
      for (const t of POINTS) {
        const variables = { z: t.zone, o: t.owner, t: t.type };
        if (unlocks)
          await admin(`mutation($z: String!, $o: String!, $t: String!) { lockRrset(zone: $z, owner: $o, type: $t) { owner } }`, variables);
        const expected = guardOutcome(p, t.zone, t.owner, t.type);
        await attempt(`${id} ${label(t)}`, expected, () => call(key, t));
        expect({ t, locked: await lockedAt(t) }).toEqual({ t, locked: unlocks ? expected !== 'ok' : expected === 'ok' });
        await admin(`mutation($z: String!, $o: String!, $t: String!) { unlockRrset(zone: $z, owner: $o, type: $t) }`, variables);
      }
    },
  };
}

/** create a check in each zone */
function createCheckOp(id: string, call: (key: string, zone: string, input: ReturnType<typeof CHECK_INPUT>) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const zone of ZONES) {
        const input = CHECK_INPUT();
        const expected = writeCheck(p, zone, 'ZONE_NOT_FOUND');
        await attempt(`${id} ${zone}`, expected, () => call(key, zone, input));
        const made = await checkIdNamed(zone, input.name);
        expect({ zone, made: made !== undefined }).toEqual({ zone, made: expected === 'ok' });
        if (made) await adminDeleteCheck(made);
      }
    },
  };
}

/** change or delete a check of each zone, named by its id */
function touchCheckOp(
  id: string,
  call: (key: string, checkId: string, zone: string, name: string) => Promise<Answer>,
  deletes = false,
  input: () => { name: string } = CHECK_INPUT,
  unseen: Outcome = 'STEERING_CHECK_NOT_FOUND',
): Op {
  return {
    id,
    async run(p, key) {
      for (const zone of ZONES) {
        const check = await adminCheck(zone, input());
        const expected = writeCheck(p, zone, unseen);
        await attempt(`${id} ${zone}`, expected, () => call(key, check.id, zone, check.name));
        if (deletes)
          expect({ zone, left: (await checkIdNamed(zone, check.name)) !== undefined }).toEqual({ zone, left: expected !== 'ok' });
        await adminDeleteCheck(check.id);
      }
    },
  };
}

/** set a zone's steering defaults (its new members' checks): written where a check of the zone may be */
function steeringDefaultsOp(id: string, call: (key: string, zone: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const zone of ZONES) {
        const expected = writeCheck(p, zone, 'ZONE_NOT_FOUND');
        await attempt(`${id} ${zone}`, expected, () => call(key, zone));
        const { rowCount } = await db.query(`select 1 from steering_defaults s join domains d on d.id = s.domain_id where d.name = $1`, [
          zone,
        ]);
        expect({ zone, set: (rowCount ?? 0) > 0 }).toEqual({ zone, set: expected === 'ok' });
        await admin(`mutation($z: String!) { setSteeringDefaults(zone: $z, input: {}) { port } }`, { z: zone });
      }
    },
  };
}

// ---- change requests (docs/changes.md, «Review»): a request is its zone's; a review is a person's ----

/** a review (approve, reject, cancel) of a request of the zone: a person of the account whose role writes it */
const reviewChange = (p: Profile, zone: string): Outcome =>
  !sees(p, zone) ? 'CHANGE_REQUEST_NOT_FOUND' : !p.person ? 'NOT_SIGNED_IN' : p.person.role === 'viewer' ? 'NOT_AN_APPROVER' : 'ok';
/** the approvals a zone requires: its owner or an admin of its account */
const setApprovals = (p: Profile, zone: string): Outcome =>
  !sees(p, zone) ? 'ZONE_NOT_FOUND' : p.person?.role === 'owner' || p.person?.role === 'admin' ? 'ok' : 'FORBIDDEN_BY_ROLE';
const MX_TXT = (zone: string): Point => ({ zone, owner: 'mx', type: 'TXT' });

/** a change request of the zone by the admin key, an ADD of a TXT at mx: pending one approval, or scheduled a day ahead */
async function adminRequest(zone: string, kind: 'pending' | 'scheduled'): Promise<{ id: string; rdata: string }> {
  if (kind === 'pending') await admin(`mutation($z: String!) { setZoneRequiredApprovals(zone: $z, approvals: 1) }`, { z: zone });
  const rdata = rdataFor('TXT');
  const data = await admin(
    `mutation($z: String!, $c: [ZoneChangeInput!]!, $at: DateTimeISO) { proposeZoneChange(zone: $z, changes: $c, at: $at) { id } }`,
    {
      z: zone,
      c: [{ kind: 'ADD', owner: 'mx', type: 'TXT', rdata, ttl: 300 }],
      at: kind === 'scheduled' ? new Date(Date.now() + 86_400_000).toISOString() : null,
    },
  );
  return { id: data.proposeZoneChange.id, rdata };
}

/** the zone back as it was: no approvals required, the request cancelled if still open, its record gone */
async function adminCloseRequest(zone: string, request: { id: string; rdata: string }): Promise<void> {
  await admin(`mutation($z: String!) { setZoneRequiredApprovals(zone: $z, approvals: 0) }`, { z: zone });
  const { status } = (await admin(`query($id: ID!) { changeRequest(id: $id) { status } }`, { id: request.id })).changeRequest;
  if (status === 'PENDING' || status === 'APPROVED')
    await admin(`mutation($id: ID!) { cancelChangeRequest(id: $id) { id } }`, { id: request.id });
  await adminDeleteIfThere(await findRecord(MX_TXT(zone), request.rdata));
}

/** a review of a pending request of each zone, proposed by the admin key (so never the reviewer's own) */
function reviewOp(id: string, call: (key: string, requestId: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const zone of ZONES) {
        const request = await adminRequest(zone, 'pending');
        try {
          await attempt(`${id} of a request of ${zone}`, reviewChange(p, zone), () => call(key, request.id));
        } finally {
          await adminCloseRequest(zone, request);
        }
      }
    },
  };
}

/** a request read by id: its zone's readers see it, its plan only where they read records */
function readRequestOp(id: string, call: (key: string, requestId: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const zone of ZONES) {
        const request = await adminRequest(zone, 'scheduled');
        try {
          const expected = sees(p, zone) ? 'ok' : 'CHANGE_REQUEST_NOT_FOUND';
          const answer = await attempt(`${id} of a request of ${zone}`, expected, () => call(key, request.id), { reads: true });
          if (expected === 'ok') expectOnlyReadable(p, `${id} ${zone}`, answer.data, zone);
        } finally {
          await adminCloseRequest(zone, request);
        }
      }
    },
  };
}

function zoneOp(id: string, outcome: (p: Profile, zone: string) => Outcome, call: (key: string, zone: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const zone of ZONES) {
        const answer = await attempt(`${id} ${zone}`, outcome(p, zone), () => call(key, zone), { reads: true });
        if (answer.code === undefined) expectOnlyReadable(p, `${id} ${zone}`, answer.data, zone);
      }
    },
  };
}

/**
 * A whole-zone operation whose target's state refuses it once the policy let it through (a primary zone is not
 * promoted; a port nothing listens on transfers nothing): `stateCode` where the key may, the policy's refusal
 * where it may not. Reaching the state's refusal is what the policy allowed, and is counted so.
 */
function pastPolicyOp(id: string, stateCode: Outcome, call: (key: string, zone: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const zone of ZONES) {
        const expected = writeWholeZone(p, zone, stateCode);
        await attempt(`${id} ${zone}`, expected, () => call(key, zone));
        if (expected === stateCode) coverage.get(id)!.allowed++;
      }
    },
  };
}

/** DNSSEC control over A, B and C: `prepare` brings each zone to the state the operation needs */
/**
 * The zones a row of dnssecOp prepared, and which row. A refused call changes nothing (attempt() holds it to
 * that), so the next key's call of the same row meets the state as it was prepared and needs no preparation of
 * its own; a call that succeeded moved the state, and its zone is prepared again. The matrix runs row by row
 * (every key of a row, then the next row), and before another row's first call the zones are unsigned again.
 */
const dnssecPrepared = { op: '', zones: new Set<string>() };

async function unsignAfterOtherRow(opId: string): Promise<void> {
  if (!dnssecPrepared.op || dnssecPrepared.op === opId) return;
  for (const zone of ZONES) await adminDisableDnssec(zone);
  dnssecPrepared.op = '';
  dnssecPrepared.zones.clear();
}

function dnssecOp(id: string, prepare: (zone: string) => Promise<void>, call: (key: string, zone: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      dnssecPrepared.op = id;
      for (const zone of ZONES) {
        if (!dnssecPrepared.zones.has(zone)) {
          await adminDisableDnssec(zone);
          await prepare(zone);
        }
        // prepared again unless this call is refused (and so, as attempt() checks, wrote nothing)
        dnssecPrepared.zones.delete(zone);
        const expected = controlDnssec(p, zone);
        await attempt(`${id} ${zone}`, expected, () => call(key, zone));
        if (expected !== 'ok') dnssecPrepared.zones.add(zone);
      }
    },
  };
}

/** an operation only the admin key may do: every user key is refused (FORBIDDEN), restricted or not */
function adminOnlyOp(id: string, calls: (key: string) => [string, Outcome, () => Promise<Answer>][]): Op {
  return {
    id,
    adminOnly: true,
    async run(_p, key) {
      for (const [what, expected, call] of calls(key)) await attempt(`${id} ${what}`, expected, call);
    },
  };
}

/** a key another key may make: within the manager's rights, beyond them, for another user */
const WITHIN = { policy: { rules: [{ zone: A, owner: 'app.x', types: ['TXT'], access: 'WRITE' }] } };
const BEYOND = { preset: 'ONE_ZONE', zone: A };

function keyCreateOp(id: string, call: (key: string, user: string, extra: Record<string, unknown>) => Promise<Answer>, revoke: string): Op {
  return {
    id,
    async run(p, key) {
      for (const [what, user, extra, expected] of [
        ['within its rights', userId, WITHIN, flag(p.manageKeys)],
        ['beyond its rights', userId, BEYOND, beyond(p)],
        ['unrestricted', userId, {}, unrestrictedKey(p)],
        ['for another user', otherUserId, WITHIN, 'USER_NOT_FOUND'],
      ] as [string, string, Record<string, unknown>, Outcome][]) {
        const answer = await attempt(`${id} ${what}`, expected, () => call(key, user, extra));
        if (expected === 'ok') {
          const made = answer.via === 'rest' ? String(answer.data.id) : (answer.data.createApiKey ?? answer.data.createTsigKey).key.id;
          await admin(`mutation($id: ID!) { ${revoke}(id: $id) { id } }`, { id: made });
        }
      }
    },
  };
}

async function adminMakeKey(kind: 'api' | 'tsig', user: string, extra: Record<string, unknown>): Promise<string> {
  if (kind === 'api') {
    const data = await admin(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id } } }`, {
      input: { userId: user, name: `pm-target-${next()}`, ...extra },
    });
    return data.createApiKey.apiKey.id;
  }
  const data = await admin(`mutation($input: CreateTsigKeyInput!) { createTsigKey(input: $input) { tsigKey { id } } }`, {
    input: { userId: user, name: `pm-target-${next()}.key`, ...extra },
  });
  return data.createTsigKey.tsigKey.id;
}

function keyRevokeOp(id: string, kind: 'api' | 'tsig', call: (key: string, target: string) => Promise<Answer>): Op {
  const notFound = kind === 'api' ? 'API_KEY_NOT_FOUND' : 'TSIG_KEY_NOT_FOUND';
  return {
    id,
    async run(p, key) {
      for (const [what, user, extra, expected] of [
        ['a key within its rights', userId, WITHIN, flag(p.manageKeys)],
        ['an unrestricted key of its user', userId, {}, unrestrictedKey(p)],
        ["another user's key", otherUserId, WITHIN, p.manageKeys ? notFound : 'FORBIDDEN_BY_POLICY'],
      ] as [string, string, Record<string, unknown>, Outcome][]) {
        const target = await adminMakeKey(kind, user, extra);
        await attempt(`${id} ${what}`, expected, () => call(key, target));
        const table = kind === 'api' ? 'api_keys' : 'tsig_keys';
        const { rows } = await db.query(`select revoked_at from ${table} where id = $1`, [target]);
        expect({ what, revoked: rows[0].revoked_at !== null }).toEqual({ what, revoked: expected === 'ok' });
      }
    },
  };
}

/** a policy narrower than WITHIN: what a manager may give a key it may change */
const NARROWER = { policy: { rules: [{ zone: A, owner: 'app.x', types: ['TXT'], access: 'READ' }] } };

/**
 * Changing a key (docs/least-privilege.md, «Changing a key»): a restricted caller needs mayManageKeys, changes
 * only a key that can do no more than itself and gives it no more than itself; another user's key is not there
 * for a manager. `input` is the GraphQL form of the change (a name, or a policy or preset given whole).
 */
function keyUpdateOp(
  id: string,
  kind: 'api' | 'tsig',
  call: (key: string, target: string, input: Record<string, unknown>) => Promise<Answer>,
): Op {
  const notFound = kind === 'api' ? 'API_KEY_NOT_FOUND' : 'TSIG_KEY_NOT_FOUND';
  const table = kind === 'api' ? 'api_keys' : 'tsig_keys';
  const state = async (target: string) =>
    (await db.query(`select to_jsonb(t) - 'last_used_at' - 'first_used_at' as row from ${table} t where id = $1`, [target])).rows[0].row;
  return {
    id,
    async run(p, key) {
      const cases: [string, string, Record<string, unknown>, Record<string, unknown>, Outcome][] = [
        ['narrowing a key within its rights', userId, WITHIN, NARROWER, flag(p.manageKeys)],
        ['widening a key within its rights beyond its own', userId, WITHIN, BEYOND, beyond(p)],
        ['narrowing an unrestricted key of its user', userId, {}, NARROWER, unrestrictedKey(p)],
        ["narrowing another user's key", otherUserId, WITHIN, NARROWER, p.manageKeys ? notFound : 'FORBIDDEN_BY_POLICY'],
      ];
      if (kind === 'api')
        cases.push(
          ['renaming a key within its rights', userId, WITHIN, { name: `pm-renamed-${next()}` }, flag(p.manageKeys)],
          ['renaming an unrestricted key of its user', userId, {}, { name: `pm-renamed-${next()}` }, unrestrictedKey(p)],
        );
      for (const [what, user, extra, input, expected] of cases) {
        const target = await adminMakeKey(kind, user, extra);
        const before = await state(target);
        await attempt(`${id} ${what}`, expected, () => call(key, target, input));
        const changed = JSON.stringify(await state(target)) !== JSON.stringify(before);
        expect({ what, changed }).toEqual({ what, changed: expected === 'ok' });
        await admin(`mutation($id: ID!) { ${kind === 'api' ? 'revokeApiKey' : 'revokeTsigKey'}(id: $id) { id } }`, { id: target });
      }
    },
  };
}

/**
 * a REST policy body (snake_case, lower-case access and preset) from the GraphQL input of WITHIN, BEYOND,
 * NARROWER; none for an unrestricted key (`{}`)
 */
function restPolicyBody(extra: Record<string, unknown>): Record<string, unknown> {
  if (!('preset' in extra) && !('policy' in extra)) return {};
  return 'preset' in extra
    ? { preset: String(extra.preset).toLowerCase(), zone: extra.zone }
    : { policy: { rules: (extra.policy as any).rules.map((r: any) => ({ ...r, access: r.access.toLowerCase() })) } };
}

/**
 * A zone's DNSSEC key events over A, B and C, each signed first so that it has some: the list is the zone's
 * events, newest first, for a key that may read the apex's DNSKEY
 */
function dnssecEventsOp(id: string, call: (key: string, zone: string) => Promise<Answer>, ids: (answer: Answer) => string[]): Op {
  return {
    id,
    async run(p, key) {
      for (const zone of ZONES) {
        await adminEnableDnssec(zone);
        const expected = readDnssecEvents(p, zone);
        const answer = await attempt(`${id} ${zone}`, expected, () => call(key, zone), { reads: true });
        if (expected === 'ok') {
          const stored = await keyEventIds(zone);
          expect(stored.length).toBeGreaterThan(0);
          // one page of the newest 1000 (the matrix signs and unsigns the zones often enough to hold more)
          expect({ zone, events: ids(answer) }).toEqual({ zone, events: stored.slice(0, 1000) });
        }
      }
      for (const zone of ZONES) await adminDisableDnssec(zone);
    },
  };
}

/** the keys a manager may list are its own user's */
function keyListOp(id: string, call: (key: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      // one of its own user's, which the list must show, and one of another user's, which it must not
      const kind = id.includes('apiKeys') ? 'api' : 'tsig';
      await adminMakeKey(kind, userId, WITHIN);
      await adminMakeKey(kind, otherUserId, WITHIN);
      const answer = await attempt(id, flag(p.manageKeys), () => call(key), { reads: true });
      if (answer.code === undefined) {
        const list: any[] = answer.via === 'rest' ? answer.data : (answer.data.apiKeys ?? answer.data.tsigKeys);
        expect(list.length).toBeGreaterThan(0);
        expect(new Set(list.map((k) => String(k.userId ?? k.user_id)))).toEqual(new Set([userId]));
      }
    },
  };
}

/** zones the key sees among those now in the database (the spare zone is there only while a test makes it) */
async function visibleZones(p: Profile): Promise<string[]> {
  const { rows } = await db.query(`select name from domains`);
  return rows
    .map((r: any) => r.name as string)
    .filter((z) => sees(p, z))
    .sort();
}

async function adminCreateSpare(): Promise<void> {
  const { rows } = await db.query(`select 1 from domains where name = $1`, [SPARE]);
  if (!rows.length) await createZone(app, userId, SPARE);
}
async function adminDeleteSpare(): Promise<void> {
  const { rows } = await db.query(`select 1 from domains where name = $1`, [SPARE]);
  if (rows.length) await admin(`mutation($z: String) { deleteDomain(zone: $z) }`, { z: SPARE });
}

/** a record template (docs/templates-and-alias.md): a key that may create zones saves its user's, none another user's */
const TEMPLATE_RECORDS = [
  { owner: '@', type: 'SOA', rdata: 'ns1.example.net. hostmaster.{zone}. 1 3600 900 604800 300' },
  { owner: '@', type: 'NS', rdata: 'ns1.example.net.' },
];
async function adminTemplate(user: string): Promise<string> {
  const data = await admin(`mutation($i: CreateRecordTemplateInput!) { createRecordTemplate(input: $i) { id } }`, {
    i: { userId: user, name: `pm-${next()}`, records: TEMPLATE_RECORDS },
  });
  return data.createRecordTemplate.id;
}

/** templateOp: create (for its user, for another), or act on its user's template and on another user's */
function templateOp(id: string, call: (key: string, user: string, templateId: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      const mine = await adminTemplate(userId);
      await attempt(`${id} its user's`, flag(p.createZones), () => call(key, userId, mine));
      const other = await adminTemplate(otherUserId);
      await attempt(`${id} another user's`, id.endsWith('createRecordTemplate') ? 'USER_NOT_FOUND' : 'TEMPLATE_NOT_FOUND', () =>
        call(key, otherUserId, other),
      );
      await db.query(`delete from record_templates`);
    },
  };
}

function createZoneOp(id: string, call: (key: string, user: string, zone: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      await attempt(`${id} for its user`, flag(p.createZones), () => call(key, userId, SPARE));
      const made = (await db.query(`select 1 from domains where name = $1`, [SPARE])).rows.length === 1;
      expect(made).toBe(p.createZones);
      await adminDeleteSpare();
      await attempt(`${id} for another user`, 'USER_NOT_FOUND', () => call(key, otherUserId, SPARE));
    },
  };
}

/** the codes of the details of a refusal (GraphQL's extensions, REST's body): the zones a bulk creation names */
const detailCodes = (answer: Answer): string[] =>
  (answer.body?.errors?.[0]?.extensions?.details ?? answer.body?.details ?? []).map((d: { code: string }) => d.code);

/**
 * A bulk creation (createDomains, POST /domain/add-many): a key that may create no zone is refused whole; another
 * user's zones are each named refused (ZONES_NOT_CREATED, USER_NOT_FOUND in the zone's detail), none made
 */
function createZonesOp(id: string, call: (key: string, user: string, zone: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      await attempt(`${id} for its user`, flag(p.createZones), () => call(key, userId, SPARE));
      const made = (await db.query(`select 1 from domains where name = $1`, [SPARE])).rows.length === 1;
      expect(made).toBe(p.createZones);
      await adminDeleteSpare();
      if (!p.createZones) return;
      const before = await snapshot();
      const answer = await call(key, otherUserId, SPARE);
      expect({ id, code: answer.code, details: detailCodes(answer) }).toEqual({
        id,
        code: 'ZONES_NOT_CREATED',
        details: ['USER_NOT_FOUND'],
      });
      expect({ id, written: await writesSince(before) }).toEqual({ id, written: {} });
      tally.calls++;
      tally.refused++;
    },
  };
}

function deleteZoneOp(id: string, call: (key: string, zone: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const zone of [SPARE, B, C]) {
        await adminCreateSpare();
        const expected = !sees(p, zone) ? 'ZONE_NOT_FOUND' : flag(p.deleteZones);
        await attempt(`${id} ${zone}`, expected, () => call(key, zone));
        const left = (await db.query(`select 1 from domains where name = $1`, [zone])).rows.length === 1;
        expect({ zone, left }).toEqual({ zone, left: expected !== 'ok' });
        // an owner or admin deletes B: made again, with a record at each of its points, for the rows after
        if (zone === B && !left) {
          await createZone(app, userId, B);
          for (const t of POINTS.filter((point) => point.zone === B)) await adminAdd(t);
        }
      }
      await adminDeleteSpare();
    },
  };
}

/** the user routes: its own user, another user */
function userOp(id: string, own: (p: Profile) => Outcome, other: Outcome, call: (key: string, user: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      const answer = await attempt(`${id} its own user`, own(p), () => call(key, userId), { reads: !id.startsWith('Mutation') });
      if (answer.code === undefined && answer.data?.user?.domainsConnection) {
        const visible = await visibleZones(p);
        expect(answer.data.user.domainsConnection.totalCount).toBe(visible.length);
        expect(answer.data.user.domainsConnection.nodes.map((d: any) => d.name).sort()).toEqual(visible);
      }
      await attempt(`${id} another user`, other, () => call(key, otherUserId), { reads: !id.startsWith('Mutation') });
    },
  };
}

const DOMAIN_FIELDS = `name records { owner type } recordsConnection(first: 1000) { totalCount nodes { owner type } } fromEnd: recordsConnection(last: 1000) { totalCount nodes { owner type } } changes(first: 100) { nodes { added { owner type } removed { owner type } } }`;

/**
 * The subscription: refused for a zone the key does not see (the key events also for a key that may not read
 * the apex's DNSKEY), and told only what it may read
 */
function subscriptionOp(field: 'zoneChanged' | 'propagationChanged' | 'dnssecKeyChanged'): Op {
  const id = `Subscription.${field}`;
  return {
    id,
    async run(p, key) {
      // a person's socket carries the session cookie and the console's Origin (src/http/subscriptions.ts)
      const origin = app.baseUrl;
      class SessionSocket extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, { headers: { cookie: `zk_session=${key}`, origin } });
        }
      }
      const client = createClient({
        url: app.baseUrl.replace('http', 'ws') + '/graphql',
        webSocketImpl: isSession(key) ? SessionSocket : WebSocket,
        connectionParams: isSession(key) ? {} : { 'x-api-key': key },
        retryAttempts: 0,
      });
      const count = () => app.service.services.liveUpdates.subscriberCount();
      const baseline = count();
      try {
        for (const zone of ZONES) {
          const events: any[] = [];
          const errors: any[] = [];
          // an unsigned zone, so that the admin's signing it below is the only key step the subscriber is told of
          if (field === 'dnssecKeyChanged') await adminDisableDnssec(zone);
          const selection =
            field === 'zoneChanged'
              ? 'change { added { owner type } }'
              : field === 'dnssecKeyChanged'
                ? 'zone event { id reason toState }'
                : 'zone';
          const stop = client.subscribe(
            { query: `subscription($z: String!) { ${field}(zone: $z) { ${selection} } }`, variables: { z: zone } },
            {
              // a refusal comes as a result with errors (graphql-ws `next`), or as `error`
              next: (e: any) => (e.errors ? errors.push(e.errors) : events.push(e)),
              error: (e: any) => errors.push(e),
              complete: () => undefined,
            },
          );
          const expected = field === 'dnssecKeyChanged' ? readDnssecEvents(p, zone) : readZone(p, zone);
          const snap = await snapshot();
          await waitUntil(`${id} ${zone} answered`, () => errors.length > 0 || count() > baseline);
          const code = errors.length ? (JSON.stringify(errors).match(/"code":"([A-Z_]+)"/)?.[1] ?? 'error') : undefined;
          expectOutcome(
            { via: 'graphql', status: 200, code, body: errors.length ? { errors } : {}, data: errors.length ? undefined : {} },
            expected,
            `${id} ${zone}`,
          );
          expect({ zone, written: await writesSince(snap) }).toEqual({ zone, written: {} });
          if (expected === 'ok' && field === 'zoneChanged') {
            // a change of every point of the zone (and the SOA's serial step): the event names only the records the
            // key may read
            const points = POINTS.filter((t) => t.zone === zone);
            const changes = points.map((t) => ({ kind: 'ADD', owner: t.owner, type: t.type, rdata: rdataFor(t.type), ttl: 300 }));
            const result = await admin(
              `mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`,
              {
                z: zone,
                c: changes,
              },
            );
            expect(result.applyZoneChanges.serial).toBeGreaterThan(0);
            await waitUntil(`${id} ${zone} event`, () => events.length > 0);
            const added = events[0].data.zoneChanged.change.added.map((r: any) => `${r.owner} ${r.type}`).sort();
            expect({ zone, added }).toEqual({
              zone,
              added: [...points, { zone, owner: '@', type: 'SOA' }]
                .filter((t) => p.read(t.zone, t.owner, t.type))
                .map((t) => `${t.owner} ${t.type}`)
                .sort(),
            });
            for (const [i, t] of points.entries()) await adminDeleteIfThere(await findRecord(t, changes[i].rdata));
          }
          if (expected === 'ok' && field === 'dnssecKeyChanged') {
            // signing the zone makes its keys active: the events pushed are those the database now holds
            const from = (await keyEventIds(zone)).length;
            await adminEnableDnssec(zone);
            const made = (await keyEventIds(zone)).slice(0, -from || undefined).reverse();
            expect(made.length).toBeGreaterThan(0);
            await waitUntil(`${id} ${zone} events`, () => events.length >= made.length);
            const pushed = events.map((e) => e.data.dnssecKeyChanged);
            expect({ zone, pushed: pushed.map((e: any) => [e.zone, e.event.id, e.event.reason, e.event.toState]) }).toEqual({
              zone,
              pushed: made.map((eventId) => [zone, eventId, 'enabled', 'active']),
            });
            await adminDisableDnssec(zone);
          }
          stop();
          await waitUntil(`${id} ${zone} ended`, () => count() === baseline);
        }
      } finally {
        await client.dispose();
      }
    },
  };
}

// ---- the PowerDNS API's rows (docs/powerdns-api.md) ----

/** a row of the PowerDNS API: `PowerDNS <METHOD> <path of src/powerdns/routes.ts>` */
const pdnsRow = (method: string, path: string) => `PowerDNS ${method} /servers/localhost${path}`;
const fqdn = (t: Point) => `${t.owner}.${t.zone}.`;

/** the rdatas at a point, as the database holds them */
async function rdatasAt(t: Point): Promise<string[]> {
  const { rows } = await db.query(
    `select r.rdata from records r join domains d on d.id = r.domain_id where d.name = $1 and r.owner = $2 and r.type = $3 order by r.rdata`,
    [t.zone, t.owner, t.type],
  );
  return rows.map((r: any) => r.rdata as string);
}

/** a PowerDNS zone object's rrsets as `owner type` of each record, owners relative to the zone as the database holds them */
function rrsetRecords(zone: string, rrsets: any[]): string[] {
  const owner = (name: string) => (name.toLowerCase() === `${zone}.` ? '@' : name.slice(0, -`.${zone}.`.length));
  return rrsets.flatMap((set) => set.records.map(() => `${owner(set.name)} ${set.type}`)).sort();
}

/** a zone's DNSSEC keys not yet removed, as the database holds them: the ids the cryptokeys routes name */
async function liveKeyIds(zone: string): Promise<string[]> {
  const { rows } = await db.query(
    `select k.id from dnssec_keys k join domains d on d.id = k.domain_id where d.name = $1 and k.state <> 'removed' order by k.id`,
    [zone],
  );
  return rows.map((r: any) => String(r.id));
}

/** a TSIG key's name (the PowerDNS API names a key by it), as the database holds it */
async function tsigKeyName(id: string): Promise<string> {
  const { rows } = await db.query(`select name from tsig_keys where id = $1`, [id]);
  return rows[0].name;
}

/** no key of anyone's: what a route that needs only a valid key refuses (401) */
const NOT_A_KEY = 'zk_pm_not_a_key_of_anyone_0123456789abcdef';

/**
 * A discovery route of the PowerDNS API (its servers, the server's configuration and statistics): nothing of a
 * user's in it, so every valid key reads it, whatever its policy, and a call without one is refused
 */
function discoveryOp(path: string, check: (data: any) => void): Op {
  const id = `PowerDNS GET ${path}`;
  return {
    id,
    async run(_p, key) {
      const answer = await attempt(id, 'ok', () => pdnsAt(key, 'get', `/api/v1${path}`), { reads: true });
      check(answer.data);
      await attempt(`${id} without a valid key`, 'UNAUTHENTICATED', () => pdnsAt(NOT_A_KEY, 'get', `/api/v1${path}`));
    },
  };
}

/**
 * A write of a zone's metadata: Zonekeeper keeps none (docs/powerdns-api.md), so the route reads the zone and
 * answers 422 to every key that sees it (the policy had nothing to allow: no REST or GraphQL operation writes
 * metadata), 404 to one that does not. Reaching the 422 is counted as what the policy let through, as
 * pastPolicyOp's refusals of the target's state are.
 */
function metadataWriteOp(method: 'post' | 'put' | 'delete'): Op {
  const id = pdnsRow(method.toUpperCase(), method === 'post' ? '/zones/:zone/metadata' : '/zones/:zone/metadata/:kind');
  return {
    id,
    async run(p, key) {
      for (const zone of ZONES) {
        const expected = readZone(p, zone) === 'ok' ? 'HTTP 422' : readZone(p, zone);
        const path = method === 'post' ? `/zones/${zone}./metadata` : `/zones/${zone}./metadata/X-PM-TEST`;
        const body = method === 'delete' ? undefined : { type: 'Metadata', kind: 'X-PM-TEST', metadata: ['1'] };
        await attempt(`${id} ${zone}`, expected, () => pdns(key, method, path, body));
        if (expected === 'HTTP 422') coverage.get(id)!.allowed++;
      }
    },
  };
}

/**
 * The PowerDNS routes without a row, each with why: each is refused 422 to every key alike, before any service
 * is called or anything read (not even the zone: a zone the key cannot see is not told apart), so there is
 * nothing for a policy to decide. The completeness tests check that each still answers so and writes nothing.
 */
const PDNS_EXEMPT: Record<string, string> = {
  [pdnsRow('PUT', '/zones/:zone/cryptokeys/:id')]:
    "a key's activation is refused to every key (Zonekeeper moves keys through their states as it rolls them)",
};

const PDNS_OPS: Op[] = [
  {
    // every zone the key sees, as GET /domain/list and Query.domains; `?zone=` an exact lookup, empty for a zone it does not see
    id: pdnsRow('GET', '/zones'),
    list: true,
    async run(p, key) {
      const answer = await attempt('PowerDNS zone list', 'ok', () => pdns(key, 'get', '/zones'), { reads: true });
      expect(answer.data.map((z: any) => z.name.replace(/\.$/, '')).sort()).toEqual(await visibleZones(p));
      // the list's zones come without their rrsets
      expect(answer.data.filter((z: any) => z.rrsets !== undefined)).toEqual([]);
      for (const zone of [A, C]) {
        const one = await attempt(`PowerDNS zone list ?zone=${zone}.`, 'ok', () => pdns(key, 'get', `/zones?zone=${zone}.`), {
          reads: true,
        });
        expect({ zone, names: one.data.map((z: any) => z.name) }).toEqual({ zone, names: sees(p, zone) ? [`${zone}.`] : [] });
      }
    },
  },
  {
    // a zone with the rrsets the key may read, as Query.domain and GET /domain/list/zone
    id: pdnsRow('GET', '/zones/:zone'),
    async run(p, key) {
      for (const zone of ZONES) {
        const expected = readZone(p, zone);
        const answer = await attempt(`PowerDNS GET zone ${zone}`, expected, () => pdns(key, 'get', `/zones/${zone}.`), { reads: true });
        if (expected !== 'ok') continue;
        const readable = (await readableRecords(p, [zone])).map((r) => `${r.owner} ${r.type}`).sort();
        expect({ zone, rrsets: rrsetRecords(zone, answer.data.rrsets) }).toEqual({ zone, rrsets: readable });
      }
    },
  },
  {
    // a REPLACE of the rrset at each point (each holds a record): a new record there, as a change set's ADD
    id: pdnsRow('PATCH', '/zones/:zone'),
    async run(p, key) {
      for (const t of POINTS) {
        const before = await rdatasAt(t);
        expect(before.length).toBeGreaterThan(0);
        const rdata = rdataFor(t.type);
        const expected = writeNew(p, t);
        await attempt(`PowerDNS REPLACE ${label(t)}`, expected, () =>
          pdns(key, 'patch', `/zones/${t.zone}.`, {
            rrsets: [{ name: fqdn(t), type: t.type, ttl: 300, changetype: 'REPLACE', records: [{ content: rdata, disabled: false }] }],
          }),
        );
        expect({ t, rdatas: await rdatasAt(t) }).toEqual({ t, rdatas: expected === 'ok' ? [rdata] : before });
        if (expected === 'ok') {
          // back as it was: the records the REPLACE took away
          await adminDeleteIfThere(await findRecord(t, rdata));
          for (const old of before) await adminAdd(t, old);
        }
      }
    },
  },
  {
    // a new zone, as POST /domain/add and Mutation.createDomain: a user's key makes it for its own user, whatever `account` says
    id: pdnsRow('POST', '/zones'),
    async run(p, key) {
      for (const [what, account] of [
        ['without account', undefined],
        ["naming another user's account", 'pm-other@example.org'],
      ] as [string, string | undefined][]) {
        const expected = flag(p.createZones);
        await attempt(`PowerDNS create ${SPARE} ${what}`, expected, () =>
          pdns(key, 'post', '/zones', {
            name: `${SPARE}.`,
            kind: 'Native',
            nameservers: ['ns1.example.net.'],
            ...(account ? { account } : {}),
          }),
        );
        const { rows } = await db.query(`select user_id from domains where name = $1`, [SPARE]);
        expect({ what, owners: rows.map((r: any) => String(r.user_id)) }).toEqual({ what, owners: expected === 'ok' ? [userId] : [] });
        await adminDeleteSpare();
      }
    },
  },
  deleteZoneOp(pdnsRow('DELETE', '/zones/:zone'), (key, zone) => pdns(key, 'delete', `/zones/${zone}.`)),
  // the notify changes nothing (every change is NOTIFYed by the worker): answered for a zone the key sees, as an
  // ACME key's client sends it (docs/powerdns-api.md, «Keys»)
  zoneOp(pdnsRow('PUT', '/zones/:zone/notify'), readZone, (key, zone) => pdns(key, 'put', `/zones/${zone}./notify`)),
  zoneOp(pdnsRow('GET', '/zones/:zone/export'), readWholeZone, (key, zone) => pdns(key, 'get', `/zones/${zone}./export`)),
  {
    // the zone's DNSSEC keys, as GET /domain/dnssec/:zone (the same service call); A signed, so that it has some
    id: pdnsRow('GET', '/zones/:zone/cryptokeys'),
    async run(p, key) {
      await adminEnableDnssec(A);
      try {
        for (const zone of ZONES) {
          const expected = readZone(p, zone);
          const answer = await attempt(`PowerDNS cryptokeys ${zone}`, expected, () => pdns(key, 'get', `/zones/${zone}./cryptokeys`), {
            reads: true,
          });
          if (expected === 'ok') expect({ zone, keys: answer.data.length > 0 }).toEqual({ zone, keys: zone === A });
        }
      } finally {
        await adminDisableDnssec(A);
      }
    },
  },
  {
    // the TSIG keys of its user, as GET /tsigkey/list and Query.tsigKeys
    id: pdnsRow('GET', '/tsigkeys'),
    async run(p, key) {
      const made = [await adminMakeKey('tsig', userId, WITHIN), await adminMakeKey('tsig', otherUserId, WITHIN)];
      const answer = await attempt('PowerDNS TSIG key list', flag(p.manageKeys), () => pdns(key, 'get', '/tsigkeys'), { reads: true });
      if (answer.code === undefined) {
        const { rows } = await db.query(`select name from tsig_keys where user_id = $1 and revoked_at is null`, [userId]);
        expect(answer.data.map((k: any) => k.name.replace(/\.$/, '')).sort()).toEqual(rows.map((r: any) => r.name).sort());
      }
      for (const id of made) await admin(`mutation($id: ID!) { revokeTsigKey(id: $id) { id } }`, { id });
    },
  },
  // ---- discovery: any valid key ----
  discoveryOp('/', (data) => expect(data).toEqual([{ api_features: [], server_url: '/api/v1/servers{/server}' }])),
  discoveryOp('/servers', (data) => expect(data.map((s: any) => s.id)).toEqual(['localhost'])),
  discoveryOp('/servers/localhost', (data) => expect(data).toMatchObject({ type: 'Server', id: 'localhost' })),
  discoveryOp('/servers/localhost/config', (data) => expect(data).toContainEqual({ type: 'ConfigSetting', name: 'api', value: 'yes' })),
  discoveryOp('/servers/localhost/statistics', (data) => expect(data).toEqual([])),
  discoveryOp('/servers/localhost/autoprimaries', (data) => expect(data).toEqual([])),
  {
    // PowerDNS-Admin's search: the zones the key sees whose name matches, as GET /domain/list and Query.domains
    // (the zone list's nameMatches), then the records it may read whose name or content matches, as Query.searchRecords
    id: pdnsRow('GET', '/search-data'),
    list: true,
    async run(p, key) {
      const search = (q: string, more = '') =>
        attempt(`PowerDNS search ${q}${more}`, 'ok', () => pdns(key, 'get', `/search-data?q=${encodeURIComponent(q)}${more}`), {
          reads: true,
        });
      const names = (answer: Answer) => answer.data.map((o: any) => o.name.replace(/\.$/, '')).sort();
      const visible = await visibleZones(p);
      for (const [q, matches] of [
        ['pm-*', (z: string) => z.startsWith('pm-')],
        ['*.test', (z: string) => z.endsWith('.test')],
        ['pm-?.test', (z: string) => /^pm-.\.test$/.test(z)],
        [`${C}.`, (z: string) => z === C],
      ] as [string, (z: string) => boolean][]) {
        const answer = await search(q, '&object_type=zone');
        expect({ q, names: names(answer) }).toEqual({ q, names: visible.filter(matches) });
        expect({ q, types: [...new Set(answer.data.map((o: any) => o.object_type))] }).toEqual({
          q,
          types: answer.data.length ? ['zone'] : [],
        });
      }
      // every record whose name matches `*` (each one): exactly the records the key may read, as written
      const records = await search('*', '&object_type=record&max=100000');
      const found = records.data.map((o: any) => `${o.name} ${o.type} ${o.content}`).sort();
      expect(found).toEqual((await searchableRecords(p)).map((r) => `${ownerFqdn(r)} ${r.type} ${r.rdata}`).sort());
      expect((await search('pm-*', '&object_type=comment')).data).toEqual([]);
    },
  },
  {
    // the zone's settings: `dnssec` signs or unsigns it, as enableDnssec and disableDnssec (unsigned once the
    // parent's DS is gone); `kind` Native of a primary zone and `account` are the zone's labels, read back as set
    // (docs/powerdns-api.md; the owner stays: a zone changes owner through the admin's API), written under the
    // right to write the apex SOA, the zone's own record; `soa_edit_api` is accepted and changes nothing
    id: pdnsRow('PUT', '/zones/:zone'),
    async run(p, key) {
      try {
        for (const zone of ZONES) {
          const expected = controlDnssec(p, zone);
          for (const dnssec of [true, false]) {
            if (dnssec) await adminDisableDnssec(zone);
            else await adminEnableDnssec(zone);
            const before = await dnssecState(zone);
            await attempt(`PowerDNS PUT zone ${zone} dnssec: ${dnssec}`, expected, () => pdns(key, 'put', `/zones/${zone}.`, { dnssec }));
            const after = await dnssecState(zone);
            expect({ zone, dnssec, before, changed: after !== before }).toEqual({ zone, dnssec, before, changed: expected === 'ok' });
          }
          await adminDisableDnssec(zone);
          await attempt(
            `PowerDNS PUT zone ${zone} kind, account, soa_edit_api`,
            !sees(p, zone) ? 'ZONE_NOT_FOUND' : p.write(zone, '@', 'SOA') ? 'ok' : 'FORBIDDEN_BY_POLICY',
            () => pdns(key, 'put', `/zones/${zone}.`, { kind: 'Native', account: 'pm-other@example.org', soa_edit_api: 'DEFAULT' }),
          );
        }
      } finally {
        for (const zone of ZONES) await adminDisableDnssec(zone);
      }
    },
  },
  // nothing to rectify (the chain is kept with every change): answered for a zone the key sees, as the notify
  zoneOp(pdnsRow('PUT', '/zones/:zone/rectify'), readZone, (key, zone) => pdns(key, 'put', `/zones/${zone}./rectify`)),
  {
    // one DNSSEC key, as GET /domain/dnssec/:zone and the cryptokeys list; a key of another zone is not there
    id: pdnsRow('GET', '/zones/:zone/cryptokeys/:id'),
    async run(p, key) {
      try {
        const ids = new Map<string, string>();
        for (const zone of ZONES) {
          await adminEnableDnssec(zone);
          ids.set(zone, (await liveKeyIds(zone))[0]);
        }
        for (const zone of ZONES) {
          const expected = readZone(p, zone);
          const answer = await attempt(
            `PowerDNS cryptokey of ${zone}`,
            expected,
            () => pdns(key, 'get', `/zones/${zone}./cryptokeys/${ids.get(zone)}`),
            { reads: true },
          );
          if (expected === 'ok') expect({ zone, id: String(answer.data.id) }).toEqual({ zone, id: ids.get(zone) });
        }
        await attempt(
          `PowerDNS cryptokey of ${C} asked of ${A}`,
          sees(p, A) ? 'DNSSEC_KEY_NOT_FOUND' : 'ZONE_NOT_FOUND',
          () => pdns(key, 'get', `/zones/${A}./cryptokeys/${ids.get(C)}`),
          { reads: true },
        );
      } finally {
        for (const zone of ZONES) await adminDisableDnssec(zone);
      }
    },
  },
  // the first key signs the zone, as enableDnssec; deleting one unsigns it, as disableDnssec
  dnssecOp(pdnsRow('POST', '/zones/:zone/cryptokeys'), adminDisableDnssec, (key, zone) =>
    pdns(key, 'post', `/zones/${zone}./cryptokeys`, { keytype: 'csk', active: true }),
  ),
  dnssecOp(pdnsRow('DELETE', '/zones/:zone/cryptokeys/:id'), adminEnableDnssec, async (key, zone) =>
    pdns(key, 'delete', `/zones/${zone}./cryptokeys/${(await liveKeyIds(zone))[0]}`),
  ),
  // the one metadata kind PowerDNS-Admin reads, for a zone the key sees; writes: metadataWriteOp
  zoneOp(pdnsRow('GET', '/zones/:zone/metadata'), readZone, (key, zone) => pdns(key, 'get', `/zones/${zone}./metadata`)),
  zoneOp(pdnsRow('GET', '/zones/:zone/metadata/:kind'), readZone, (key, zone) => pdns(key, 'get', `/zones/${zone}./metadata/ALSO-NOTIFY`)),
  metadataWriteOp('post'),
  metadataWriteOp('put'),
  metadataWriteOp('delete'),
  {
    // one TSIG key of its user, by name, with its secret as PowerDNS answers it: to whoever may manage the key (a
    // restricted key only one that can do no more than itself, as a revoke); another user's is not there for it
    id: pdnsRow('GET', '/tsigkeys/:id'),
    async run(p, key) {
      for (const [what, user, extra, expected] of [
        ['a key within its rights', userId, WITHIN, flag(p.manageKeys)],
        ['an unrestricted key of its user', userId, {}, unrestrictedKey(p)],
        ["another user's key", otherUserId, WITHIN, p.manageKeys ? 'TSIG_KEY_NOT_FOUND' : 'FORBIDDEN_BY_POLICY'],
      ] as [string, string, Record<string, unknown>, Outcome][]) {
        const target = await adminMakeKey('tsig', user, extra);
        const name = await tsigKeyName(target);
        const answer = await attempt(`PowerDNS TSIG key ${what}`, expected, () => pdns(key, 'get', `/tsigkeys/${name}.`), { reads: true });
        const { rows } = await db.query(`select encode(secret, 'base64') as secret from tsig_keys where id = $1`, [target]);
        if (expected === 'ok') expect(answer.data).toMatchObject({ name: `${name}.`, key: rows[0].secret });
        else expect(JSON.stringify(answer.body ?? '')).not.toContain(rows[0].secret);
        await admin(`mutation($id: ID!) { revokeTsigKey(id: $id) { id } }`, { id: target });
      }
    },
  },
  {
    // a new secret for a key of its user (a secret rotated): as a revoke, whoever may manage the key
    id: pdnsRow('PUT', '/tsigkeys/:id'),
    async run(p, key) {
      const secret = Buffer.alloc(32, 5).toString('base64');
      for (const [what, user, extra, expected] of [
        ['a key within its rights', userId, WITHIN, flag(p.manageKeys)],
        ['an unrestricted key of its user', userId, {}, unrestrictedKey(p)],
        ["another user's key", otherUserId, WITHIN, p.manageKeys ? 'TSIG_KEY_NOT_FOUND' : 'FORBIDDEN_BY_POLICY'],
      ] as [string, string, Record<string, unknown>, Outcome][]) {
        const target = await adminMakeKey('tsig', user, extra);
        const name = await tsigKeyName(target);
        await attempt(`PowerDNS TSIG key new secret, ${what}`, expected, () => pdns(key, 'put', `/tsigkeys/${name}.`, { key: secret }));
        const { rows } = await db.query(`select encode(secret, 'base64') as secret from tsig_keys where id = $1`, [target]);
        expect({ what, changed: rows[0].secret === secret }).toEqual({ what, changed: expected === 'ok' });
        await admin(`mutation($id: ID!) { revokeTsigKey(id: $id) { id } }`, { id: target });
      }
    },
  },
  {
    // a key of its user: the PowerDNS API names no policy, so the key gets its creator's (createTsigKey's
    // asCreator): any caller that manages keys makes one, unrestricted only from the owner; `account` names no
    // other user here
    id: pdnsRow('POST', '/tsigkeys'),
    async run(p, key) {
      const name = `pm-${next()}.key`;
      const expected = flag(p.manageKeys);
      const answer = await attempt(`PowerDNS create TSIG key ${name}`, expected, () =>
        pdns(key, 'post', '/tsigkeys', { name: `${name}.`, algorithm: 'hmac-sha256', account: 'pm-other@example.org' }),
      );
      const { rows } = await db.query(`select id, user_id, rules is null as unrestricted from tsig_keys where name = $1`, [name]);
      expect({ name, users: rows.map((r: any) => String(r.user_id)) }).toEqual({ name, users: expected === 'ok' ? [userId] : [] });
      if (expected === 'ok') {
        expect({ name, unrestricted: rows[0].unrestricted }).toEqual({ name, unrestricted: unrestrictedKey(p) === 'ok' });
        expect(answer.data.key).not.toBe('');
        await admin(`mutation($id: ID!) { revokeTsigKey(id: $id) { id } }`, { id: String(rows[0].id) });
      }
    },
  },
  keyRevokeOp(pdnsRow('DELETE', '/tsigkeys/:id'), 'tsig', async (key, id) => pdns(key, 'delete', `/tsigkeys/${await tsigKeyName(id)}.`)),
];

// ---- events out (docs/events.md): every key reads the feed and keeps webhooks, seeing only what it may read; a
// viewer reads the feed and the webhooks, and keeps none ----

/** the feed: every event shown is of a zone the key sees, and every record in it one the key may read */
function eventFeedOp(id: string, call: (key: string) => Promise<Answer>): Op {
  return {
    id,
    list: true,
    async run(p, key) {
      const answer = await attempt(id, 'ok', () => call(key), { reads: true });
      const events: { zone: string | null }[] = answer.via === 'rest' ? answer.data.events : answer.data.events.events;
      const unseen = events.filter((e) => e.zone !== null && !sees(p, e.zone)).map((e) => e.zone);
      expect({ id, unseen }).toEqual({ id, unseen: [] });
      expectOnlyReadable(p, id, events);
    },
  };
}

/** a webhook of `user`, made in the database (its secret is never read by these rows) */
async function insertWebhook(user: string): Promise<string> {
  const { rows } = await db.query(
    `insert into webhook_subscriptions (user_id, url, secret) values ($1, 'https://93.184.216.34/pm', '\\x01'::bytea) returning id`,
    [user],
  );
  return String(rows[0].id);
}

/** the webhook list: its user's only */
function webhookListOp(id: string, call: (key: string) => Promise<Answer>): Op {
  return {
    id,
    list: true,
    async run(_p, key) {
      const made = [await insertWebhook(userId), await insertWebhook(otherUserId)];
      const answer = await attempt(id, 'ok', () => call(key), { reads: true });
      const list: any[] = answer.via === 'rest' ? answer.data : answer.data.webhooks;
      expect(list.map((w) => String(w.id))).toContain(made[0]);
      expect(new Set(list.map((w) => String(w.userId ?? w.user_id)))).toEqual(new Set([userId]));
      await db.query('delete from webhook_subscriptions where id = any($1::bigint[])', [made]);
    },
  };
}

/**
 * keeping webhooks (add, delete, rotate, redeliver): every key, a person by role: a viewer changes nothing, so keeps
 * none (docs/people.md, «Roles»; docs/events.md), refused before the webhook or the zone is looked at
 */
const keepsWebhooks = (p: Profile) => p.person?.role !== 'viewer';

/** a subscription to the events of one zone: a zone the key may not read is refused */
function webhookCreateOp(id: string, call: (key: string, zone: string) => Promise<Answer>): Op {
  return {
    id,
    async run(p, key) {
      for (const zone of [A, B]) {
        const expected = !keepsWebhooks(p) ? 'FORBIDDEN_BY_ROLE' : sees(p, zone) ? 'ok' : 'FORBIDDEN_BY_POLICY';
        const answer = await attempt(`${id} ${zone}`, expected, () => call(key, zone));
        if (answer.code === undefined) {
          const made = answer.via === 'rest' ? answer.data : answer.data.createWebhook;
          expect(JSON.stringify(made)).toContain('whsec_');
          await db.query('delete from webhook_subscriptions where user_id = $1', [userId]);
        } else {
          // refused: no subscription was made
          const { rows } = await db.query('select count(*)::int as n from webhook_subscriptions where user_id = $1', [userId]);
          expect({ id, zone, made: rows[0].n }).toEqual({ id, zone, made: 0 });
        }
      }
    },
  };
}

/**
 * an operation on one webhook by id: its user's is there for the key, another user's is not; a change (`writes`)
 * is refused a viewer whichever it names
 */
function webhookOp(id: string, call: (key: string, webhook: string) => Promise<Answer>, writes = true): Op {
  return {
    id,
    async run(p, key) {
      const refused = writes && !keepsWebhooks(p);
      for (const [what, user, expected] of [
        ["its user's webhook", userId, refused ? 'FORBIDDEN_BY_ROLE' : 'ok'],
        ["another user's webhook", otherUserId, refused ? 'FORBIDDEN_BY_ROLE' : 'WEBHOOK_NOT_FOUND'],
      ] as [string, string, Outcome][]) {
        const webhook = await insertWebhook(user);
        await attempt(`${id} ${what}`, expected, () => call(key, webhook));
        if (refused) {
          // the refused change wrote nothing: the webhook is there, its secret the one it had
          const { rows } = await db.query(`select encode(secret, 'hex') as secret from webhook_subscriptions where id = $1`, [webhook]);
          expect({ id, what, rows }).toEqual({ id, what, rows: [{ secret: '01' }] });
        }
        await db.query('delete from webhook_subscriptions where id = $1', [webhook]);
      }
    },
  };
}

const EVENT_OPS: Op[] = [
  eventFeedOp('GET /events', (key) => rest(key, 'get', '/events', { query: { limit: 1000 } })),
  eventFeedOp('Query.events', (key) => gql(key, `{ events(limit: 1000) { events { id type zone data } next } }`)),
  webhookListOp('GET /webhook/list', (key) => rest(key, 'get', '/webhook/list')),
  webhookListOp('Query.webhooks', (key) => gql(key, `{ webhooks { id userId } }`)),
  webhookCreateOp('POST /webhook/add', (key, zone) =>
    rest(key, 'post', '/webhook/add', { body: { url: 'https://93.184.216.34/pm', events: '*', zones: zone } }),
  ),
  webhookCreateOp('Mutation.createWebhook', (key, zone) =>
    gql(key, `mutation($z: [String!]) { createWebhook(url: "https://93.184.216.34/pm", zones: $z) { webhook { id } secret } }`, {
      z: [zone],
    }),
  ),
  webhookOp('DELETE /webhook/delete/:id', (key, id) => rest(key, 'delete', `/webhook/delete/${id}`)),
  webhookOp('Mutation.deleteWebhook', (key, id) => gql(key, `mutation($id: ID!) { deleteWebhook(id: $id) }`, { id })),
  webhookOp('GET /webhook/deliveries/:id', (key, id) => rest(key, 'get', `/webhook/deliveries/${id}`), false),
  webhookOp(
    'Query.webhookDeliveries',
    (key, id) => gql(key, `query($id: ID!) { webhookDeliveries(id: $id) { id status } }`, { id }),
    false,
  ),
  webhookOp('POST /webhook/rotate/:id', (key, id) => rest(key, 'post', `/webhook/rotate/${id}`)),
  webhookOp('Mutation.rotateWebhookSecret', (key, id) =>
    gql(key, `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }`, { id }),
  ),
  webhookOp('POST /webhook/redeliver/:id', (key, id) => rest(key, 'post', `/webhook/redeliver/${id}`)),
  webhookOp('Mutation.redeliverWebhook', (key, id) => gql(key, `mutation($id: ID!) { redeliverWebhook(id: $id) }`, { id })),
];

/** what the console asks before it offers a control, and its home screen: both only what the key may */
const CONSOLE_OPS: Op[] = [
  {
    id: 'Query.viewer',
    list: true,
    async run(p, key) {
      const answer = await attempt(
        'viewer',
        'ok',
        () => gql(key, `{ viewer { can { createZone manageKeys manageWebhooks administer manageNameserverSets } } }`),
        { reads: true },
      );
      // the flags the key's policy grants, as the API decides them (docs/least-privilege.md); no key of an account
      // and no member is the operator (docs/people.md, «The operator»)
      expect({ key: p.name, can: answer.data.viewer.can }).toEqual({
        key: p.name,
        can: {
          createZone: p.createZones,
          manageKeys: p.manageKeys,
          manageWebhooks: keepsWebhooks(p),
          administer: false,
          manageNameserverSets: false,
        },
      });
    },
  },
  {
    id: 'Query.attention',
    list: true,
    async run(p, key) {
      const answer = await attempt(
        'attention',
        'ok',
        () =>
          gql(
            key,
            `{ attention { secondariesBehind { items { zone { name } } } failedTransfers { items { zone { name } } }
               dsAtParent { items { zone { name } } } health { items { zone { name } } } steering { items { zone { name } } } } }`,
          ),
        { reads: true },
      );
      const lists: { items: { zone: { name: string } }[] }[] = Object.values(answer.data.attention);
      const unseen = lists.flatMap((list) => list.items.map((item) => item.zone.name)).filter((zone) => !sees(p, zone));
      expect({ key: p.name, unseen }).toEqual({ key: p.name, unseen: [] });
    },
  },
];

const OPS: Op[] = [
  ...EVENT_OPS,
  ...CONSOLE_OPS,
  // ---- REST: records ----
  {
    id: 'GET /record/list',
    list: true,
    async run(p, key) {
      const answer = await attempt('record list', 'ok', () => rest(key, 'get', '/record/list'), { reads: true });
      const expected = (await readableRecords(p)).map((r) => r.id).sort();
      expect(answer.data.map((r: any) => String(r.id)).sort()).toEqual(expected);
    },
  },
  readRecordOp('GET /record/list/:id', (key, id) => rest(key, 'get', `/record/list/${id}`)),
  createRecordOp('POST /record/add', (key, t, rdata) => rest(key, 'post', '/record/add', { body: REST_RECORD(t, rdata) })),
  editRecordOp('PUT /record/edit/:id', (key, id, t, rdata) => rest(key, 'put', `/record/edit/${id}`, { body: REST_RECORD(t, rdata) })),
  deleteRecordOp('DELETE /record/delete/:id', (key, id) => rest(key, 'delete', `/record/delete/${id}`)),
  // ---- REST: users ----
  {
    id: 'GET /user/list',
    list: true,
    async run(_p, key) {
      const answer = await attempt('user list', 'ok', () => rest(key, 'get', '/user/list'), { reads: true });
      expect(answer.data.map((u: any) => String(u.id))).toEqual([userId]);
      await attempt('user list ?id= another user', 'USER_NOT_FOUND', () => rest(key, 'get', '/user/list', { query: { id: otherUserId } }));
    },
  },
  userOp(
    'GET /user/list/:id',
    () => 'ok',
    'USER_NOT_FOUND',
    (key, user) => rest(key, 'get', `/user/list/${user}`),
  ),
  adminOnlyOp('POST /user/add', (key) => [
    ['a user', 'FORBIDDEN', () => rest(key, 'post', '/user/add', { body: { email: `pm-${next()}@example.org` } })],
  ]),
  userOp(
    'PUT /user/edit/:id',
    (p) => flag(p.manageKeys),
    'USER_NOT_FOUND',
    (key, user) => rest(key, 'put', `/user/edit/${user}`, { body: { email: user === userId ? 'pm@example.org' : 'pm-other@example.org' } }),
  ),
  adminOnlyOp('DELETE /user/delete/:id', (key) => [
    ['its own user', 'FORBIDDEN', () => rest(key, 'delete', `/user/delete/${userId}`)],
    ['another user', 'FORBIDDEN', () => rest(key, 'delete', `/user/delete/${otherUserId}`)],
  ]),
  userOp(
    'GET /user/limits/:id',
    () => 'ok',
    'USER_NOT_FOUND',
    (key, user) => rest(key, 'get', `/user/limits/${user}`),
  ),
  // an account's traffic names every owner of its zones: read where each of them is read whole (every profile that
  // reads A and B whole reads the spare zone too), another user's never
  userOp(
    'GET /user/queries/:id',
    (p) => (p.readsWhole.includes(A) && p.readsWhole.includes(B) ? 'ok' : 'FORBIDDEN_BY_POLICY'),
    'USER_NOT_FOUND',
    (key, user) => rest(key, 'get', `/user/queries/${user}`, { query: { since: new Date(Date.now() - 86_400_000).toISOString() } }),
  ),
  adminOnlyOp('PUT /user/limits/:id', (key) => [
    ['its own user', 'FORBIDDEN', () => rest(key, 'put', `/user/limits/${userId}`, { body: { max_zones: 1 } })],
    ['another user', 'FORBIDDEN', () => rest(key, 'put', `/user/limits/${otherUserId}`, { body: { max_zones: 1 } })],
  ]),
  adminOnlyOp('PUT /apikey/rate/:id', (key) => [
    ['its own key', 'FORBIDDEN', () => rest(key, 'put', `/apikey/rate/${keyIdOf(key)}`, { body: { rate_per_second: 1 } })],
  ]),
  // ---- REST: TSIG keys, audit ----
  keyListOp('GET /tsigkey/list', (key) => rest(key, 'get', '/tsigkey/list')),
  keyCreateOp(
    'POST /tsigkey/add',
    (key, user, extra) =>
      rest(key, 'post', '/tsigkey/add', {
        body: {
          name: `pm-${next()}.key`,
          user_id: Number(user),
          ...restPolicyBody(extra),
        },
      }),
    'revokeTsigKey',
  ),
  keyRevokeOp('POST /tsigkey/revoke/:id', 'tsig', (key, id) => rest(key, 'post', `/tsigkey/revoke/${id}`)),
  keyUpdateOp('PUT /tsigkey/edit/:id', 'tsig', (key, id, input) =>
    rest(key, 'put', `/tsigkey/edit/${id}`, { body: restPolicyBody(input) }),
  ),
  adminOnlyOp('GET /audit', (key) => [['the audit log', 'FORBIDDEN', () => rest(key, 'get', '/audit')]]),
  // ---- REST: domains ----
  {
    id: 'GET /domain/list',
    list: true,
    async run(p, key) {
      const answer = await attempt('domain list', 'ok', () => rest(key, 'get', '/domain/list'), { reads: true });
      expect(answer.data.map((d: any) => d.zone).sort()).toEqual(await visibleZones(p));
      for (const d of answer.data) {
        const readable = await readableRecords(p, [d.zone]);
        expect({ zone: d.zone, records: d.records.length }).toEqual({ zone: d.zone, records: readable.length });
      }
      expectOnlyReadable(p, 'domain list', answer.data);
    },
  },
  zoneOp('GET /domain/list/zone/:zoneid', readZone, async (key, zone) => rest(key, 'get', `/domain/list/zone/${await zoneId(zone)}`)),
  zoneOp('GET /domain/list/zone', readZone, (key, zone) => rest(key, 'get', '/domain/list/zone', { query: { name: zone } })),
  {
    id: 'GET /domain/list/user/:userid',
    async run(p, key) {
      const answer = await attempt('its own user', 'ok', () => rest(key, 'get', `/domain/list/user/${userId}`), { reads: true });
      expect(answer.data.map((d: any) => d.zone ?? d.name).sort()).toEqual(await visibleZones(p));
      expectOnlyReadable(p, 'domains of its user', answer.data);
      await attempt('another user', 'USER_NOT_FOUND', () => rest(key, 'get', `/domain/list/user/${otherUserId}`));
    },
  },
  createZoneOp('POST /domain/add', (key, user, zone) => rest(key, 'post', '/domain/add', { body: { user_id: Number(user), zone } })),
  createZonesOp('POST /domain/add-many', (key, user, zone) =>
    rest(key, 'post', '/domain/add-many', { body: { user_id: Number(user), zones: [zone] } }),
  ),
  deleteZoneOp('DELETE /domain/delete', (key, zone) => rest(key, 'delete', '/domain/delete', { query: { zone } })),
  changeSetOp('POST /domain/changes/:zone', (key, zone, changes) => rest(key, 'post', `/domain/changes/${zone}`, { body: { changes } })),
  zoneOp('GET /domain/changes/:zone', readZone, (key, zone) => rest(key, 'get', `/domain/changes/${zone}`)),
  zoneOp('GET /domain/export/:zone', readWholeZone, (key, zone) => rest(key, 'get', `/domain/export/${zone}`)),
  // ---- REST: review, beside the documented paths (the same GraphQL operations as the change request rows) ----
  zoneOp('GET /domain/changes/:zone/requests', readZone, (key, zone) =>
    rest(key, 'get', `/domain/changes/${zone}/requests`, { query: { status: 'all' } }),
  ),
  readRequestOp('GET /domain/change-requests/:id', (key, id) => rest(key, 'get', `/domain/change-requests/${id}`)),
  reviewOp('POST /domain/change-requests/:id/approve', (key, id) =>
    rest(key, 'post', `/domain/change-requests/${id}/approve`, { body: { comment: 'ok' } }),
  ),
  reviewOp('POST /domain/change-requests/:id/reject', (key, id) =>
    rest(key, 'post', `/domain/change-requests/${id}/reject`, { body: { comment: 'no' } }),
  ),
  reviewOp('POST /domain/change-requests/:id/cancel', (key, id) => rest(key, 'post', `/domain/change-requests/${id}/cancel`)),
  // ---- REST: steering, beside the documented paths (the same GraphQL operations as the rows above) ----
  zoneOp('GET /domain/steering/:zone', readZone, (key, zone) => rest(key, 'get', `/domain/steering/${zone}`)),
  createSteeredOp('PUT /domain/steering/:zone/rrset/:owner/:type', (key, t) =>
    rest(key, 'put', `/domain/steering/${t.zone}/rrset/${t.owner}/${t.type}`, {
      body: { pools: [{ members: [{ value: STEERED_VALUE(t.type) }] }] },
    }),
  ),
  touchSteeredOp(
    'DELETE /domain/steering/:zone/rrset/:owner/:type',
    (key, _id, t) => rest(key, 'delete', `/domain/steering/${t.zone}/rrset/${t.owner}/${t.type}`),
    true,
    'ZONE_NOT_FOUND',
  ),
  touchSteeredOp(
    'POST /domain/steering/:zone/rrset/:owner/:type/admin',
    (key, _id, t) =>
      rest(key, 'post', `/domain/steering/${t.zone}/rrset/${t.owner}/${t.type}/admin`, {
        body: { value: STEERED_VALUE(t.type), admin: 'down' },
      }),
    false,
    'ZONE_NOT_FOUND',
  ),
  touchCheckOp(
    'POST /domain/steering/:zone/check/:name/status',
    (key, _id, zone, name) =>
      rest(key, 'post', `/domain/steering/${zone}/check/${name}/status`, { body: { up: 'false', lease_seconds: 30 } }),
    false,
    () => ({ name: `pm-${next()}`, protocol: 'external' }),
    'ZONE_NOT_FOUND',
  ),
  steeringDefaultsOp('PUT /domain/steering/:zone/defaults', (key, zone) =>
    rest(key, 'put', `/domain/steering/${zone}/defaults`, { body: { interval_seconds: 30 } }),
  ),
  importOp('POST /domain/import/:zone', (key, zone, text) =>
    rest(key, 'post', `/domain/import/${zone}`, { body: { text, mode: 'MERGE' } }),
  ),
  zoneOp('GET /domain/check/:zone', readWholeZone, (key, zone) => rest(key, 'get', `/domain/check/${zone}`)),
  zoneOp('GET /domain/dnssec/:zone', readZone, (key, zone) => rest(key, 'get', `/domain/dnssec/${zone}`)),
  dnssecEventsOp(
    'GET /domain/dnssec/:zone/events',
    (key, zone) => rest(key, 'get', `/domain/dnssec/${zone}/events`, { query: { first: 1000 } }),
    (answer) => answer.data.map((e: any) => String(e.id)),
  ),
  dnssecOp('POST /domain/dnssec/:zone', adminDisableDnssec, (key, zone) => rest(key, 'post', `/domain/dnssec/${zone}`, { body: {} })),
  dnssecOp('DELETE /domain/dnssec/:zone', adminEnableDnssec, (key, zone) => rest(key, 'delete', `/domain/dnssec/${zone}`)),
  dnssecOp('POST /domain/dnssec/:zone/ds-published', adminAwaitNewDs, (key, zone) =>
    rest(key, 'post', `/domain/dnssec/${zone}/ds-published`),
  ),
  dnssecOp('POST /domain/dnssec/:zone/ds-removed', adminStartDisable, (key, zone) =>
    rest(key, 'post', `/domain/dnssec/${zone}/ds-removed`),
  ),
  dnssecOp('POST /domain/dnssec/:zone/roll', adminEnableDnssec, (key, zone) =>
    rest(key, 'post', `/domain/dnssec/${zone}/roll`, { body: { role: 'ZSK' } }),
  ),
  dnssecOp('POST /domain/dnssec/:zone/algorithm-roll', adminEnableDnssec, (key, zone) =>
    rest(key, 'post', `/domain/dnssec/${zone}/algorithm-roll`, { body: { algorithm: 'ED25519' } }),
  ),
  dnssecOp('POST /domain/dnssec/:zone/foreign-keys', adminEnableDnssec, (key, zone) =>
    rest(key, 'post', `/domain/dnssec/${zone}/foreign-keys`, { body: { dnskeys: [FOREIGN_DNSKEY] } }),
  ),
  dnssecOp('DELETE /domain/dnssec/:zone/foreign-keys/:id', adminAddForeignKey, async (key, zone) =>
    rest(key, 'delete', `/domain/dnssec/${zone}/foreign-keys/${await foreignKeyId(zone)}`),
  ),
  dnssecOp('POST /domain/dnssec/:zone/ds-withdrawn', adminAddForeignKey, (key, zone) =>
    rest(key, 'post', `/domain/dnssec/${zone}/ds-withdrawn`),
  ),
  dnssecOp('DELETE /domain/dnssec/:zone/ds-withdrawn', adminWithdrawDs, (key, zone) =>
    rest(key, 'delete', `/domain/dnssec/${zone}/ds-withdrawn`),
  ),
  zoneOp('GET /domain/status/:zone', readZone, (key, zone) => rest(key, 'get', `/domain/status/${zone}`)),
  // zone health (docs/health.md): read, and checked now, by whoever may read the zone
  zoneOp('GET /domain/health/:zone', readZone, (key, zone) => rest(key, 'get', `/domain/health/${zone}`)),
  zoneOp('POST /domain/health/:zone', readZone, (key, zone) => rest(key, 'post', `/domain/health/${zone}`)),

  // ---- the PowerDNS API (docs/powerdns-api.md) ----
  ...PDNS_OPS,

  // ---- GraphQL queries ----
  keyListOp('Query.apiKeys', (key) => gql(key, `{ apiKeys { id userId } }`)),
  adminOnlyOp('Query.auditEvents', (key) => [['the audit log', 'FORBIDDEN', () => gql(key, `{ auditEvents { totalCount } }`)]]),
  // steering's vantages (docs/steering.md): the operator's, like the audit log
  adminOnlyOp('Query.steeringVantages', (key) => [['the vantages', 'FORBIDDEN', () => gql(key, `{ steeringVantages { name } }`)]]),
  adminOnlyOp('GET /steering/vantages', (key) => [['the vantages', 'FORBIDDEN', () => rest(key, 'get', '/steering/vantages')]]),
  zoneOp('Query.checkZone', readWholeZone, (key, zone) => gql(key, `query($z: String!) { checkZone(zone: $z) { zone } }`, { z: zone })),
  {
    id: 'Query.domain',
    async run(p, key) {
      for (const zone of ZONES) {
        const answer = await attempt(
          `domain ${zone}`,
          readZone(p, zone),
          () => gql(key, `query($z: String) { domain(name: $z) { ${DOMAIN_FIELDS} } }`, { z: zone }),
          { reads: true },
        );
        if (answer.code !== undefined) continue;
        const readable = (await readableRecords(p, [zone])).map((r) => `${r.owner} ${r.type}`).sort();
        const d = answer.data.domain;
        expect(d.records.map((r: any) => `${r.owner} ${r.type}`).sort()).toEqual(readable);
        expect(d.recordsConnection.totalCount).toBe(readable.length);
        expect(d.recordsConnection.nodes).toHaveLength(readable.length);
        // paged from the end (last, before), the same records the key may read
        expect(d.fromEnd).toEqual(d.recordsConnection);
        expectOnlyReadable(p, `domain ${zone}`, d, zone);
      }
      // the nested key events are not filtered but refused: they need read of the apex's DNSKEY
      for (const zone of ZONES) {
        const expected = readDnssecEvents(p, zone);
        const answer = await attempt(
          `domain ${zone} dnssecEvents`,
          expected,
          () => gql(key, `query($z: String) { domain(name: $z) { dnssecEvents(first: 1000) { totalCount nodes { id } } } }`, { z: zone }),
          { reads: true },
        );
        if (expected !== 'ok') continue;
        const stored = await keyEventIds(zone);
        const events = answer.data.domain.dnssecEvents;
        expect({ zone, totalCount: events.totalCount, ids: events.nodes.map((e: any) => String(e.id)) }).toEqual({
          zone,
          totalCount: stored.length,
          // the first page: the newest 1000
          ids: stored.slice(0, 1000),
        });
      }
    },
  },
  {
    id: 'Query.domains',
    list: true,
    async run(p, key) {
      const answer = await attempt(
        'domains',
        'ok',
        () =>
          gql(
            key,
            `{ domains(first: 10) { totalCount nodes { name recordsConnection(first: 100) { totalCount nodes { owner type } } } } }`,
          ),
        {
          reads: true,
        },
      );
      const visible = await visibleZones(p);
      expect(answer.data.domains.totalCount).toBe(visible.length);
      expect(answer.data.domains.nodes.map((d: any) => d.name).sort()).toEqual(visible);
      for (const d of answer.data.domains.nodes) {
        const readable = await readableRecords(p, [d.name]);
        expect({ zone: d.name, count: d.recordsConnection.totalCount }).toEqual({ zone: d.name, count: readable.length });
        expectOnlyReadable(p, `domains ${d.name}`, d, d.name);
      }
      const other = await attempt('domains of another user', 'ok', () =>
        gql(key, `query($u: ID) { domains(userId: $u) { totalCount nodes { name } } }`, { u: otherUserId }),
      );
      expect(other.data.domains).toEqual({ totalCount: 0, nodes: [] });
    },
  },
  zoneOp('Query.exportZone', readWholeZone, (key, zone) => gql(key, `query($z: String!) { exportZone(zone: $z) }`, { z: zone })),
  // a zone's traffic names every owner asked for: read as its zone file is (docs/analytics.md)
  zoneOp('Domain.queries', readWholeZone, (key, zone) =>
    gql(
      key,
      `query($z: String!, $since: DateTimeISO!) { domain(name: $z) { queries(since: $since, step: HOUR) { step buckets { total } } } }`,
      {
        z: zone,
        since: new Date(Date.now() - 86_400_000).toISOString(),
      },
    ),
  ),
  zoneOp('Domain.topQueriedNames', readWholeZone, (key, zone) =>
    gql(key, `query($z: String!, $since: DateTimeISO!) { domain(name: $z) { topQueriedNames(since: $since) { owner count } } }`, {
      z: zone,
      since: new Date(Date.now() - 86_400_000).toISOString(),
    }),
  ),
  zoneOp('GET /domain/queries/:zone', readWholeZone, (key, zone) =>
    rest(key, 'get', `/domain/queries/${zone}`, { query: { since: new Date(Date.now() - 86_400_000).toISOString() } }),
  ),
  zoneOp('GET /domain/top-names/:zone', readWholeZone, (key, zone) =>
    rest(key, 'get', `/domain/top-names/${zone}`, { query: { since: new Date(Date.now() - 86_400_000).toISOString() } }),
  ),
  // a record's own counts: whoever reads the record
  readRecordOp('Record.queryCount', (key, id) => gql(key, `query($id: ID!) { record(id: $id) { owner queryCount lastQueried } }`, { id })),
  readRecordOp('Query.record', (key, id) => gql(key, `query($id: ID!) { record(id: $id) { owner type zone } }`, { id })),
  {
    id: 'Query.recordTypes',
    list: true,
    async run(_p, key) {
      const answer = await attempt('record types', 'ok', () => gql(key, `{ recordTypes { type } }`), { reads: true });
      expect(answer.data.recordTypes.length).toBeGreaterThan(10);
    },
  },
  {
    // the health checker's own state (docs/health.md): names no zone, every key may read it
    id: 'Query.healthChecker',
    list: true,
    async run(_p, key) {
      const answer = await attempt('health checker', 'ok', () => gql(key, `{ healthChecker { rootReachable intervalSeconds } }`), {
        reads: true,
      });
      expect(answer.data.healthChecker.intervalSeconds).toEqual(expect.any(Number));
    },
  },
  {
    // a zone by name, or null where the key sees none: the same reach as Query.domain, answered without an error
    id: 'Query.findDomain',
    list: true,
    async run(p, key) {
      for (const zone of ZONES) {
        const answer = await attempt(
          `findDomain ${zone}`,
          'ok',
          () => gql(key, `query($z: String) { findDomain(name: $z) { name } }`, { z: zone }),
          {
            reads: true,
          },
        );
        expect({ zone, found: answer.data.findDomain?.name ?? null }).toEqual({ zone, found: sees(p, zone) ? zone : null });
      }
    },
  },
  {
    // the operation limits a client reads before it hits them: every key may read them, like serverSettings
    id: 'Query.operationLimits',
    list: true,
    async run(_p, key) {
      const answer = await attempt('operation limits', 'ok', () => gql(key, `{ operationLimits { maxCost maxDepth } }`), { reads: true });
      expect(answer.data.operationLimits.maxCost).toEqual(expect.any(Number));
    },
  },
  {
    // the allowed TTLs (ALLOWED_TTLS_BEYOND_REST for GraphQL), for forms: settings every key may read, like recordTypes
    id: 'Query.serverSettings',
    list: true,
    async run(_p, key) {
      const answer = await attempt('server settings', 'ok', () => gql(key, `{ serverSettings { allowedTtls { min max } } }`), {
        reads: true,
      });
      // any TTL by default: no list
      expect(answer.data.serverSettings.allowedTtls).toEqual([]);
    },
  },
  {
    id: 'Query.recordTemplates',
    list: true,
    async run(_p, key) {
      const answer = await attempt('record templates', 'ok', () => gql(key, `{ recordTemplates { name userId } }`), { reads: true });
      expect(answer.data.recordTemplates.map((t: any) => t.name)).toContain('default');
    },
  },
  {
    // the search across zones: only what the key may read is found, and counted
    id: 'Query.searchRecords',
    list: true,
    async run(p, key) {
      const query = `query($q: String!) { searchRecords(query: $q, first: 1000) { totalCount nodes { id zone owner type } } }`;
      // every absolute name holds a dot: `.` finds every record the key may read
      const answer = await attempt('search .', 'ok', () => gql(key, query, { q: '.' }), { reads: true });
      const readable = (await searchableRecords(p)).map((r) => r.id).sort();
      expect(answer.data.searchRecords.nodes.map((r: any) => String(r.id)).sort()).toEqual(readable);
      expect(answer.data.searchRecords.totalCount).toBe(readable.length);
    },
  },
  {
    id: 'Query.records',
    list: true,
    async run(p, key) {
      const query = `query($z: String) { records(zone: $z, first: 1000) { totalCount nodes { id zone owner type } } }`;
      for (const zone of [undefined, ...ZONES]) {
        // a zone it may not see is an empty list, not an error: lists and counts leave it out
        const answer = await attempt(`records ${zone ?? 'all'}`, 'ok', () => gql(key, query, { z: zone }), { reads: true });
        const readable = (await readableRecords(p, zone ? [zone] : undefined)).map((r) => r.id).sort();
        expect({ zone, ids: answer.data.records.nodes.map((r: any) => String(r.id)).sort() }).toEqual({ zone, ids: readable });
        expect({ zone, totalCount: answer.data.records.totalCount }).toEqual({ zone, totalCount: readable.length });
      }
    },
  },
  keyListOp('Query.tsigKeys', (key) => gql(key, `{ tsigKeys { id userId } }`)),
  userOp(
    'Query.user',
    () => 'ok',
    'USER_NOT_FOUND',
    (key, user) => gql(key, `query($u: ID) { user(id: $u) { id domainsConnection { totalCount nodes { name } } } }`, { u: user }),
  ),
  {
    id: 'Query.users',
    list: true,
    async run(_p, key) {
      const answer = await attempt('users', 'ok', () => gql(key, `{ users { totalCount nodes { id } } }`), { reads: true });
      expect(answer.data.users).toEqual({ totalCount: 1, nodes: [{ id: userId }] });
    },
  },

  zoneOp('Query.changeRequests', readZone, (key, zone) =>
    gql(key, `query($z: String!) { changeRequests(zone: $z) { id zone plan { rrsets { owner type } } } }`, { z: zone }),
  ),
  readRequestOp('Query.changeRequest', (key, id) =>
    gql(key, `query($id: ID!) { changeRequest(id: $id) { id zone plan { rrsets { owner type after { owner type rdata } } } } }`, { id }),
  ),

  // ---- GraphQL mutations ----
  // a zone that requires no approval: the request is applied at once, as a change set is
  changeSetOp('Mutation.proposeZoneChange', (key, zone, changes) =>
    gql(key, `mutation($z: String!, $c: [ZoneChangeInput!]!) { proposeZoneChange(zone: $z, changes: $c) { id status } }`, {
      z: zone,
      c: changes,
    }),
  ),
  reviewOp('Mutation.approveChangeRequest', (key, id) =>
    gql(key, `mutation($id: ID!) { approveChangeRequest(id: $id, comment: "ok") { status } }`, { id }),
  ),
  reviewOp('Mutation.rejectChangeRequest', (key, id) =>
    gql(key, `mutation($id: ID!) { rejectChangeRequest(id: $id, comment: "no") { status } }`, { id }),
  ),
  reviewOp('Mutation.cancelChangeRequest', (key, id) => gql(key, `mutation($id: ID!) { cancelChangeRequest(id: $id) { status } }`, { id })),
  zoneOp('Mutation.setZoneRequiredApprovals', setApprovals, (key, zone) =>
    gql(key, `mutation($z: String!) { setZoneRequiredApprovals(zone: $z, approvals: 0) }`, { z: zone }),
  ),
  changeSetOp('Mutation.applyZoneChanges', (key, zone, changes) =>
    gql(key, `mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`, {
      z: zone,
      c: changes,
    }),
  ),
  zoneOp('Mutation.checkHealth', readZone, (key, zone) =>
    gql(key, `mutation($z: String!) { checkHealth(zone: $z) { zone state } }`, { z: zone }),
  ),
  dnssecOp('Mutation.confirmDnssecDsRemoved', adminStartDisable, (key, zone) =>
    gql(key, `mutation($z: String!) { confirmDnssecDsRemoved(zone: $z) { state } }`, { z: zone }),
  ),
  dnssecOp('Mutation.confirmDnssecDsPublished', adminAwaitNewDs, (key, zone) =>
    gql(key, `mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { enabled } }`, { z: zone }),
  ),
  keyCreateOp(
    'Mutation.createApiKey',
    (key, user, extra) =>
      gql(key, `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { key: apiKey { id } } }`, {
        input: { userId: user, name: `pm-${next()}`, ...extra },
      }),
    'revokeApiKey',
  ),
  createZoneOp('Mutation.createDomain', (key, user, zone) =>
    gql(key, `mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, { u: user, z: zone }),
  ),
  createZonesOp('Mutation.createDomains', (key, user, zone) =>
    gql(key, `mutation($u: ID!, $z: String!) { createDomains(input: [{userId: $u, zone: $z}]) { id } }`, { u: user, z: zone }),
  ),
  createRecordOp('Mutation.createRecord', (key, t, rdata) => gql(key, CREATE_RECORD, { input: GQL_RECORD(t, rdata) })),
  // a record's write that, on a zone under review, is proposed instead: held to the same rules as the write
  createRecordOp('Mutation.createRecordOrPropose', (key, t, rdata) =>
    gql(key, `mutation($input: RecordInput!) { createRecordOrPropose(input: $input) { outcome record { id } } }`, {
      input: GQL_RECORD(t, rdata),
    }),
  ),
  templateOp('Mutation.createRecordTemplate', (key, user) =>
    gql(key, `mutation($i: CreateRecordTemplateInput!) { createRecordTemplate(input: $i) { id } }`, {
      i: { userId: user, name: `pm-${next()}`, records: TEMPLATE_RECORDS },
    }),
  ),
  keyCreateOp(
    'Mutation.createTsigKey',
    (key, user, extra) =>
      gql(key, `mutation($input: CreateTsigKeyInput!) { createTsigKey(input: $input) { key: tsigKey { id } } }`, {
        input: { userId: user, name: `pm-${next()}.key`, ...extra },
      }),
    'revokeTsigKey',
  ),
  adminOnlyOp('Mutation.createUser', (key) => [
    [
      'a user',
      'FORBIDDEN',
      () => gql(key, `mutation($e: String!) { createUser(input: {email: $e}) { id } }`, { e: `pm-${next()}@example.org` }),
    ],
  ]),
  createSteeredOp('Mutation.createSteeredRrset', (key, t) =>
    gql(key, `mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`, {
      z: t.zone,
      i: STEERED_INPUT(t),
    }),
  ),
  createCheckOp('Mutation.createSteeringCheck', (key, zone, input) =>
    gql(key, `mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id } }`, { z: zone, i: input }),
  ),
  touchSteeredOp('Mutation.deleteSteeredRrset', (key, id) => gql(key, `mutation($id: ID!) { deleteSteeredRrset(id: $id) }`, { id }), true),
  touchCheckOp('Mutation.deleteSteeringCheck', (key, id) => gql(key, `mutation($id: ID!) { deleteSteeringCheck(id: $id) }`, { id }), true),
  touchSteeredOp('Mutation.setSteeringMemberAdmin', (key, id, t) =>
    gql(key, `mutation($id: ID!, $v: String!) { setSteeringMemberAdmin(id: $id, value: $v, admin: "down") { id } }`, {
      id,
      v: STEERED_VALUE(t.type),
    }),
  ),
  touchSteeredOp('Mutation.updateSteeredRrset', (key, id, t) =>
    gql(key, `mutation($id: ID!, $i: SteeredRrsetInput!) { updateSteeredRrset(id: $id, input: $i) { id } }`, {
      id,
      i: { ...STEERED_INPUT(t), maxAnswers: 4 },
    }),
  ),
  touchCheckOp(
    'Mutation.reportSteeringStatus',
    (key, id) => gql(key, `mutation($id: ID!) { reportSteeringStatus(id: $id, up: false, leaseSeconds: 30) { id } }`, { id }),
    false,
    () => ({ name: `pm-${next()}`, protocol: 'external' }),
  ),
  steeringDefaultsOp('Mutation.setSteeringDefaults', (key, zone) =>
    gql(key, `mutation($z: String!) { setSteeringDefaults(zone: $z, input: {intervalSeconds: 30}) { intervalSeconds } }`, { z: zone }),
  ),
  touchCheckOp('Mutation.updateSteeringCheck', (key, id) =>
    gql(key, `mutation($id: ID!, $i: SteeringCheckInput!) { updateSteeringCheck(id: $id, input: $i) { id } }`, { id, i: CHECK_INPUT() }),
  ),
  guardOp('Mutation.lockRrset', (key, t) =>
    gql(key, `mutation($z: String!, $o: String!, $t: String!) { lockRrset(zone: $z, owner: $o, type: $t) { owner type } }`, {
      z: t.zone,
      o: t.owner,
      t: t.type,
    }),
  ),
  guardOp(
    'Mutation.unlockRrset',
    (key, t) =>
      gql(key, `mutation($z: String!, $o: String!, $t: String!) { unlockRrset(zone: $z, owner: $o, type: $t) }`, {
        z: t.zone,
        o: t.owner,
        t: t.type,
      }),
    true,
  ),
  {
    id: 'Mutation.setZoneStrictChecks',
    async run(p, key) {
      for (const zone of ZONES) {
        await attempt(`setZoneStrictChecks ${zone}`, guardOutcome(p, zone, '@', 'SOA'), () =>
          gql(key, `mutation($z: String!) { setZoneStrictChecks(zone: $z, strict: true) }`, { z: zone }),
        );
        await admin(`mutation($z: String!) { setZoneStrictChecks(zone: $z, strict: false) }`, { z: zone });
      }
    },
  },
  deleteZoneOp('Mutation.deleteDomain', (key, zone) => gql(key, `mutation($z: String) { deleteDomain(zone: $z) }`, { z: zone })),
  deleteRecordOp('Mutation.deleteRecord', (key, id) => gql(key, `mutation($id: ID!) { deleteRecord(id: $id) }`, { id })),
  deleteRecordOp('Mutation.removeRecord', (key, id) => gql(key, `mutation($id: ID!) { removeRecord(id: $id) { id } }`, { id })),
  deleteRecordOp('Mutation.removeRecordOrPropose', (key, id) =>
    gql(key, `mutation($id: ID!) { removeRecordOrPropose(id: $id) { outcome removal { id } } }`, { id }),
  ),
  templateOp('Mutation.deleteRecordTemplate', (key, _user, id) => gql(key, `mutation($id: ID!) { deleteRecordTemplate(id: $id) }`, { id })),
  adminOnlyOp('Mutation.deleteUser', (key) => [
    ['its own user', 'FORBIDDEN', () => gql(key, `mutation($u: ID!) { deleteUser(id: $u) }`, { u: userId })],
    ['another user', 'FORBIDDEN', () => gql(key, `mutation($u: ID!) { deleteUser(id: $u) }`, { u: otherUserId })],
  ]),
  dnssecOp('Mutation.disableDnssec', adminEnableDnssec, (key, zone) =>
    gql(key, `mutation($z: String!) { disableDnssec(zone: $z) { enabled } }`, { z: zone }),
  ),
  dnssecOp('Mutation.enableDnssec', adminDisableDnssec, (key, zone) =>
    gql(key, `mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: zone }),
  ),
  importOp('Mutation.importZone', (key, zone, text) =>
    gql(key, `mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`, { z: zone, t: text }),
  ),
  {
    id: 'Mutation.revertZone',
    async run(p, key) {
      for (const t of POINTS) {
        const before = await zoneSerial(t.zone);
        const seeded = await adminAdd(t);
        // the history shows a key only what it may read, and a revert undoes only that (docs/least-privilege.md):
        // for a key that may not read the record, the zone already is as it was (NOTHING_TO_REVERT)
        const expected = !sees(p, t.zone)
          ? 'ZONE_NOT_FOUND'
          : !p.read(t.zone, t.owner, t.type)
            ? 'INVALID_INPUT'
            : flag(p.write(t.zone, t.owner, t.type));
        const answer = await attempt(`revert ${label(t)}`, expected, () =>
          gql(key, `mutation($z: String!, $s: Serial!) { revertZone(zone: $z, toSerial: $s) { serial } }`, { z: t.zone, s: before }),
        );
        if (expected === 'INVALID_INPUT') expect(answer.body.errors[0].extensions.details[0].code).toBe('NOTHING_TO_REVERT');
        const reverted = expected === 'ok';
        expect({ t, left: (await recordRdata(seeded.id)) !== undefined }).toEqual({ t, left: !reverted });
        await adminDeleteIfThere(seeded.id);
      }
    },
  },
  keyRevokeOp('Mutation.revokeApiKey', 'api', (key, id) => gql(key, `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, { id })),
  keyRevokeOp('Mutation.revokeTsigKey', 'tsig', (key, id) => gql(key, `mutation($id: ID!) { revokeTsigKey(id: $id) { id } }`, { id })),
  dnssecOp('Mutation.rollDnssecKey', adminEnableDnssec, (key, zone) =>
    gql(key, `mutation($z: String!) { rollDnssecKey(zone: $z, role: ZSK) { enabled } }`, { z: zone }),
  ),
  dnssecOp('Mutation.addForeignDnskeys', adminEnableDnssec, (key, zone) =>
    gql(key, `mutation($i: AddForeignDnskeysInput!) { addForeignDnskeys(input: $i) { enabled } }`, {
      i: { zone, dnskeys: [FOREIGN_DNSKEY] },
    }),
  ),
  dnssecOp('Mutation.removeForeignDnskey', adminAddForeignKey, async (key, zone) =>
    gql(key, `mutation($z: String!, $id: ID!) { removeForeignDnskey(zone: $z, id: $id) { enabled } }`, {
      z: zone,
      id: await foreignKeyId(zone),
    }),
  ),
  dnssecOp('Mutation.withdrawDnssecDs', adminAddForeignKey, (key, zone) =>
    gql(key, `mutation($z: String!) { withdrawDnssecDs(zone: $z) { enabled } }`, { z: zone }),
  ),
  dnssecOp('Mutation.restoreDnssecDs', adminWithdrawDs, (key, zone) =>
    gql(key, `mutation($z: String!) { restoreDnssecDs(zone: $z) { enabled } }`, { z: zone }),
  ),
  dnssecOp('Mutation.rollDnssecAlgorithm', adminEnableDnssec, (key, zone) =>
    gql(key, `mutation($z: String!) { rollDnssecAlgorithm(zone: $z, algorithm: ED25519) { enabled } }`, { z: zone }),
  ),
  adminOnlyOp('Mutation.setApiKeyRate', (key) => [
    [
      'its own key',
      'FORBIDDEN',
      () => gql(key, `mutation($id: ID!) { setApiKeyRate(id: $id, input: {ratePerSecond: 1}) { ratePerSecond } }`, { id: keyIdOf(key) }),
    ],
  ]),
  // a zone's own secondaries and the ways in from another provider (docs/transfers.md) change the zone whole;
  // a primary zone cannot be promoted, and a port nothing listens on transfers nothing: both after the policy
  zoneOp(
    'Mutation.setZoneSecondaries',
    (p, zone) => writeWholeZone(p, zone),
    (key, zone) =>
      gql(key, `mutation($z: String!) { setZoneSecondaries(zone: $z, secondaries: []) { address } }`, {
        z: zone,
      }),
  ),
  pastPolicyOp('Mutation.promoteZone', 'ZONE_NOT_SECONDARY', (key, zone) =>
    gql(key, `mutation($z: String!) { promoteZone(zone: $z) { name } }`, { z: zone }),
  ),
  pastPolicyOp('Mutation.importZoneByTransfer', 'INVALID_INPUT', (key, zone) =>
    gql(key, `mutation($z: String!) { importZoneByTransfer(zone: $z, from: {address: "127.0.0.1", port: 9}) { records } }`, {
      z: zone,
    }),
  ),
  adminOnlyOp('Mutation.setUserLimits', (key) => [
    [
      'its own user',
      'FORBIDDEN',
      () => gql(key, `mutation($u: ID!) { setUserLimits(id: $u, input: {maxZones: 1}) { maxZones } }`, { u: userId }),
    ],
    [
      'another user',
      'FORBIDDEN',
      () => gql(key, `mutation($u: ID!) { setUserLimits(id: $u, input: {maxZones: 1}) { maxZones } }`, { u: otherUserId }),
    ],
  ]),
  keyUpdateOp('Mutation.updateApiKey', 'api', (key, id, input) =>
    gql(key, `mutation($id: ID!, $input: UpdateApiKeyInput!) { updateApiKey(id: $id, input: $input) { id } }`, { id, input }),
  ),
  templateOp('Mutation.updateRecordTemplate', (key, _user, id) =>
    gql(key, `mutation($id: ID!, $i: UpdateRecordTemplateInput!) { updateRecordTemplate(id: $id, input: $i) { id } }`, {
      id,
      i: { records: TEMPLATE_RECORDS },
    }),
  ),
  editRecordOp('Mutation.updateRecord', (key, id, t, rdata) =>
    gql(key, `mutation($id: ID!, $input: RecordInput!) { updateRecord(id: $id, input: $input) { id } }`, {
      id,
      input: GQL_RECORD(t, rdata),
    }),
  ),
  editRecordOp('Mutation.updateRecordOrPropose', (key, id, t, rdata) =>
    gql(key, `mutation($id: ID!, $input: RecordInput!) { updateRecordOrPropose(id: $id, input: $input) { outcome record { id } } }`, {
      id,
      input: GQL_RECORD(t, rdata),
    }),
  ),
  keyUpdateOp('Mutation.updateTsigKey', 'tsig', (key, id, input) =>
    gql(key, `mutation($id: ID!, $input: UpdateTsigKeyInput!) { updateTsigKey(id: $id, input: $input) { id } }`, { id, input }),
  ),
  userOp(
    'Mutation.updateUser',
    (p) => flag(p.manageKeys),
    'USER_NOT_FOUND',
    (key, user) =>
      gql(key, `mutation($u: ID!, $e: String!) { updateUser(id: $u, input: {email: $e}) { id } }`, {
        u: user,
        e: user === userId ? 'pm@example.org' : 'pm-other@example.org',
      }),
  ),

  // ---- people, members, invitations, sessions (docs/people.md) ----
  {
    id: 'Query.me',
    async run(p, key) {
      const answer = await attempt('me', signedIn(p), () => gql(key, `{ me { email role accountId } }`), { reads: true });
      if (p.person) expect(answer.data.me).toEqual({ email: keys.get(p.name)!.email, role: apiRole(p.person.role), accountId: userId });
    },
  },
  {
    id: 'Query.mySessions',
    async run(p, key) {
      const answer = await attempt('my sessions', signedIn(p), () => gql(key, `{ mySessions { id current } }`), { reads: true });
      if (p.person) expect(answer.data.mySessions.filter((s: any) => s.current)).toHaveLength(1);
    },
  },
  {
    id: 'Query.members',
    async run(p, key) {
      const query = `query($u: ID!) { members(userId: $u) { email role } }`;
      const answer = await attempt('members of its account', p.person ? 'ok' : flag(p.manageKeys), () => gql(key, query, { u: userId }), {
        reads: true,
      });
      if (answer.code === undefined) expect(answer.data.members.map((m: any) => m.email)).toContain(targetEmail);
      await attempt('members of another account', 'USER_NOT_FOUND', () => gql(key, query, { u: otherUserId }), { reads: true });
    },
  },
  {
    id: 'Query.invitations',
    async run(p, key) {
      const query = `query($u: ID!) { invitations(userId: $u) { id } }`;
      await attempt('invitations of its account', managesMembers(p), () => gql(key, query, { u: userId }), { reads: true });
      await attempt('invitations of another account', 'USER_NOT_FOUND', () => gql(key, query, { u: otherUserId }), { reads: true });
    },
  },
  {
    id: 'Mutation.inviteMember',
    async run(p, key) {
      const asOwner: Outcome = p.person
        ? p.person.role === 'owner'
          ? 'ok'
          : 'FORBIDDEN_BY_ROLE'
        : p.manageKeys
          ? 'FORBIDDEN_BY_ROLE'
          : 'FORBIDDEN_BY_POLICY';
      for (const [what, user, role, expected] of [
        ['a viewer to its account', userId, 'viewer', managesMembers(p)],
        ['an owner to its account', userId, 'owner', asOwner],
        ['a viewer to another account', otherUserId, 'viewer', 'USER_NOT_FOUND'],
      ] as [string, string, string, Outcome][]) {
        const answer = await attempt(`invite ${what}`, expected, () =>
          gql(key, `mutation($i: InviteMemberInput!) { inviteMember(input: $i) { invitation { id } } }`, {
            i: { userId: user, email: `pm-invited-${next()}@example.org`, role: apiRole(role) },
          }),
        );
        if (expected === 'ok')
          await admin(`mutation($id: ID!) { revokeInvitation(id: $id) { id } }`, { id: answer.data.inviteMember.invitation.id });
      }
    },
  },
  {
    id: 'Mutation.revokeInvitation',
    async run(p, key) {
      for (const [what, user, expected] of [
        ['of its account', userId, managesMembers(p)],
        ['of another account', otherUserId, 'USER_NOT_FOUND'],
      ] as [string, string, Outcome][]) {
        const made = await admin(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { invitation { id } } }`, {
          i: { userId: user, email: `pm-invited-${next()}@example.org`, role: 'VIEWER' },
        });
        const id = made.inviteMember.invitation.id;
        await attempt(`revoke an invitation ${what}`, expected, () =>
          gql(key, `mutation($id: ID!) { revokeInvitation(id: $id) { id } }`, { id }),
        );
        const { rows } = await db.query(`select 1 from invitations where id = $1`, [id]);
        expect({ what, left: rows.length === 1 }).toEqual({ what, left: expected !== 'ok' });
        if (rows.length) await admin(`mutation($id: ID!) { revokeInvitation(id: $id) { id } }`, { id });
      }
    },
  },
  {
    id: 'Mutation.acceptInvitation',
    async run(p, key) {
      const own = keys.get(p.name)!.email ?? `pm-nobody-${next()}@example.org`;
      for (const [what, email, expected] of [
        ['its own', own, signedIn(p)],
        ["another address's", `pm-someone-${next()}@example.org`, p.person ? 'INVITATION_FOR_ANOTHER_ADDRESS' : 'NOT_SIGNED_IN'],
      ] as [string, string, Outcome][]) {
        const made = await admin(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token invitation { id } } }`, {
          i: { userId, email, role: apiRole(p.person?.role ?? 'viewer'), zones: p.person?.zones },
        });
        await attempt(`accept ${what} invitation`, expected, () =>
          gql(key, `mutation($t: String!) { acceptInvitation(token: $t) { role } }`, { t: made.inviteMember.token }),
        );
        if (expected !== 'ok')
          await admin(`mutation($id: ID!) { revokeInvitation(id: $id) { id } }`, { id: made.inviteMember.invitation.id });
      }
    },
  },
  {
    id: 'Mutation.setMemberRole',
    async run(p, key) {
      const mutation = `mutation($i: SetMemberRoleInput!) { setMemberRole(input: $i) { role } }`;
      await attempt('a viewer of its account made editor', managesMembers(p), () =>
        gql(key, mutation, { i: { userId, personId: targetId, role: 'EDITOR' } }),
      );
      const { rows } = await db.query(`select role from memberships where person_id = $1 and user_id = $2`, [targetId, userId]);
      expect(rows[0].role).toBe(managesMembers(p) === 'ok' ? 'editor' : 'viewer');
      await admin(mutation, { i: { userId, personId: targetId, role: 'VIEWER' } });
      await attempt('a member of another account', 'USER_NOT_FOUND', () =>
        gql(key, mutation, { i: { userId: otherUserId, personId: otherMemberId, role: 'EDITOR' } }),
      );
    },
  },
  {
    id: 'Mutation.removeMember',
    async run(p, key) {
      const mutation = `mutation($u: ID!, $p: ID!) { removeMember(userId: $u, personId: $p) { role } }`;
      const expected = managesMembers(p);
      await attempt('a viewer of its account', expected, () => gql(key, mutation, { u: userId, p: targetId }));
      if (expected === 'ok') {
        // back as it was: invited again, and accepted by the person
        const made = await admin(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
          i: { userId, email: targetEmail, role: 'VIEWER' },
        });
        await personGql(app, targetToken, `mutation($t: String!) { acceptInvitation(token: $t) { role } }`, { t: made.inviteMember.token });
      }
      await attempt('a member of another account', 'USER_NOT_FOUND', () => gql(key, mutation, { u: otherUserId, p: otherMemberId }));
    },
  },
  {
    // a recovery link hands over the person: made by those who manage the member (docs/people.md, «Recovery»)
    id: 'Mutation.createRecoveryLink',
    async run(p, key) {
      const mutation = `mutation($u: ID!, $p: ID!) { createRecoveryLink(userId: $u, personId: $p) { recoveryLink { id } } }`;
      const links = async () =>
        Number((await db.query(`select count(*) from recovery_links where person_id = $1`, [targetId])).rows[0].count);
      const before = await links();
      const expected = managesMembers(p);
      await attempt('for a viewer of its account', expected, () => gql(key, mutation, { u: userId, p: targetId }));
      expect(await links()).toBe(expected === 'ok' ? 1 : before);
      await attempt('for a member of another account', 'USER_NOT_FOUND', () => gql(key, mutation, { u: otherUserId, p: otherMemberId }));
      expect(Number((await db.query(`select count(*) from recovery_links where person_id = $1`, [otherMemberId])).rows[0].count)).toBe(0);
    },
  },
  {
    id: 'Mutation.switchAccount',
    async run(p, key) {
      const mutation = `mutation($u: ID!) { switchAccount(userId: $u) }`;
      await attempt('to its account', signedIn(p), () => gql(key, mutation, { u: userId }));
      await attempt('to another account', p.person ? 'USER_NOT_FOUND' : 'NOT_SIGNED_IN', () => gql(key, mutation, { u: otherUserId }));
    },
  },
  {
    id: 'Mutation.endSessions',
    async run(p, key) {
      const mutation = `mutation($id: ID) { endSessions(id: $id) }`;
      const email = keys.get(p.name)!.email;
      const second = email ? await signIn(app, email) : undefined;
      const secondId = second
        ? (await personGql(app, second, `{ mySessions { id current } }`)).data.mySessions.find((s: any) => s.current).id
        : '1';
      const targetSession = (await personGql(app, targetToken, `{ mySessions { id current } }`)).data.mySessions.find(
        (s: any) => s.current,
      ).id;
      await attempt('another session of its own', signedIn(p), () => gql(key, mutation, { id: secondId }));
      if (second) expect((await personGql(app, second, `{ me { email } }`)).status).toBe(401);
      await attempt("another person's session", p.person ? 'SESSION_NOT_FOUND' : 'NOT_SIGNED_IN', () =>
        gql(key, mutation, { id: targetSession }),
      );
      expect((await personGql(app, targetToken, `{ me { email } }`)).status).toBe(200);
    },
  },

  // passkeys: a person's own only (docs/people.md, «Sign-in»); a key has none (NOT_SIGNED_IN)
  {
    id: 'Query.myPasskeys',
    async run(p, key) {
      const email = keys.get(p.name)!.email;
      const own = email ? await insertPasskey(email) : undefined;
      const answer = await attempt('its own passkeys', signedIn(p), () => gql(key, `{ myPasskeys { id } }`), { reads: true });
      if (p.person) expect(answer.data.myPasskeys.map((k: any) => k.id)).toEqual([own]);
      if (own) await db.query(`delete from passkeys where id = $1`, [own]);
    },
  },
  {
    id: 'Mutation.removePasskey',
    async run(p, key) {
      const mutation = `mutation($id: ID!) { removePasskey(id: $id) }`;
      const email = keys.get(p.name)!.email;
      const own = email ? await insertPasskey(email) : undefined;
      const others = await insertPasskey(targetEmail);
      if (own) {
        await attempt('its own passkey', signedIn(p), () => gql(key, mutation, { id: own }));
        expect(await passkeyExists(own)).toBe(false);
      }
      await attempt("another person's passkey", p.person ? 'PASSKEY_NOT_FOUND' : 'NOT_SIGNED_IN', () => gql(key, mutation, { id: others }));
      expect(await passkeyExists(others)).toBe(true);
      await db.query(`delete from passkeys where id = $1`, [others]);
    },
  },

  // zone transfers between accounts (docs/people.md): the owners of both sides, or the admin key
  {
    id: 'Query.zoneTransfers',
    ownerOnly: true,
    async run(p, key) {
      await attempt('the pending transfers of its account', ownsAccount(p), () => gql(key, `{ zoneTransfers { id } }`), { reads: true });
    },
  },
  {
    id: 'Mutation.offerZoneTransfer',
    ownerOnly: true,
    async run(p, key) {
      const mutation = `mutation($z: String!, $u: ID) { offerZoneTransfer(zone: $z, toUserId: $u) { id } }`;
      for (const [what, zone, expected] of [
        ['a zone of its account', A, sees(p, A) ? ownsAccount(p) : 'ZONE_NOT_FOUND'],
        ["another account's zone", C, 'ZONE_NOT_FOUND'],
      ] as [string, string, Outcome][]) {
        const answer = await attempt(`offer ${what}`, expected, () => gql(key, mutation, { z: zone, u: otherUserId }));
        if (answer.code === undefined) await admin(ZONE_TRANSFER_CANCEL, { id: answer.data.offerZoneTransfer.id });
      }
    },
  },
  {
    id: 'Mutation.acceptZoneTransfer',
    ownerOnly: true,
    async run(p, key) {
      const mutation = `mutation($id: ID!) { acceptZoneTransfer(id: $id) { id } }`;
      for (const [what, zone, from, to, expected] of [
        ['an offer to its account', C, otherUserId, userId, ownsAccount(p)],
        ['an offer to another account', A, userId, otherUserId, 'ZONE_TRANSFER_NOT_FOUND'],
      ] as [string, string, string, string, Outcome][]) {
        const id = (await admin(ZONE_TRANSFER_OFFER, { z: zone, u: to })).offerZoneTransfer.id;
        const answer = await attempt(`accept ${what}`, expected, () => gql(key, mutation, { id }));
        if (answer.code === undefined)
          await admin(`mutation($z: String!, $u: ID!) { moveZone(zone: $z, toUserId: $u) }`, { z: zone, u: from });
        else await admin(ZONE_TRANSFER_CANCEL, { id });
      }
    },
  },
  {
    id: 'Mutation.cancelZoneTransfer',
    ownerOnly: true,
    async run(p, key) {
      const mutation = `mutation($id: ID!) { cancelZoneTransfer(id: $id) { id } }`;
      const id = (await admin(ZONE_TRANSFER_OFFER, { z: A, u: otherUserId })).offerZoneTransfer.id;
      const answer = await attempt('an offer of its account', ownsAccount(p), () => gql(key, mutation, { id }));
      if (answer.code !== undefined) await admin(ZONE_TRANSFER_CANCEL, { id });
      await attempt('an offer no longer there', 'ZONE_TRANSFER_NOT_FOUND', () => gql(key, mutation, { id: '999999999' }));
    },
  },
  adminOnlyOp('Mutation.moveZone', (key) => [
    [
      'a zone of its account to another',
      'FORBIDDEN',
      () => gql(key, `mutation($z: String!, $u: ID!) { moveZone(zone: $z, toUserId: $u) }`, { z: A, u: otherUserId }),
    ],
  ]),

  // ---- the operator persons (docs/people.md, «The operator»): the operator's alone ----
  adminOnlyOp('Query.operators', (key) => [['every operator', 'FORBIDDEN', () => gql(key, `{ operators { email } }`)]]),
  adminOnlyOp('Mutation.grantOperator', (key) => [
    [
      'a member of its account',
      'FORBIDDEN',
      () => gql(key, `mutation($p: String!) { grantOperator(person: $p) { grant } }`, { p: targetEmail }),
    ],
    [
      "a member of another user's account, by id",
      'FORBIDDEN',
      () => gql(key, `mutation($p: String!) { grantOperator(person: $p) { grant } }`, { p: otherMemberId }),
    ],
  ]),
  adminOnlyOp('Mutation.revokeOperator', (key) => [
    [
      'a member of its account',
      'FORBIDDEN',
      () => gql(key, `mutation($p: String!) { revokeOperator(person: $p) { grant } }`, { p: targetEmail }),
    ],
  ]),

  // ---- nameserver sets (docs/transfers.md): the admin's; a zone's readers see its set (Domain.nameserverSet) ----
  adminOnlyOp('Query.nameserverSets', (key) => [['every set', 'FORBIDDEN', () => gql(key, `{ nameserverSets { name } }`)]]),
  adminOnlyOp('Query.nameserverSet', (key) => [
    ['the default set', 'FORBIDDEN', () => gql(key, `{ nameserverSet(name: "default") { name } }`)],
  ]),
  adminOnlyOp('Query.nameserverSetSecondaryConfig', (key) => [
    ['the default set', 'FORBIDDEN', () => gql(key, `{ nameserverSetSecondaryConfig(primary: "192.0.2.1:53", software: KNOT) }`)],
  ]),
  adminOnlyOp('Mutation.createNameserverSet', (key) => [
    [
      'a new set',
      'FORBIDDEN',
      () =>
        gql(key, `mutation($i: NameserverSetInput!) { createNameserverSet(input: $i) { id } }`, {
          i: { name: 'pm-set', secondaries: ['192.0.2.1:53'], nsNames: ['ns1.pm.test.'], catalogZone: 'catalog.pm.test' },
        }),
    ],
  ]),
  adminOnlyOp('Mutation.updateNameserverSet', (key) => [
    [
      'the default set',
      'FORBIDDEN',
      () =>
        gql(key, `mutation($i: NameserverSetUpdateInput!) { updateNameserverSet(name: "default", input: $i) { id } }`, {
          i: { secondaries: [], nsNames: ['ns1.pm.test.'] },
        }),
    ],
  ]),
  adminOnlyOp('Mutation.deleteNameserverSet', (key) => [
    ['the default set', 'FORBIDDEN', () => gql(key, `mutation { deleteNameserverSet(name: "default") }`)],
  ]),
  adminOnlyOp('Mutation.moveZoneToNameserverSet', (key) => [
    [
      'a zone of its own',
      'FORBIDDEN',
      () => gql(key, `mutation($z: String!) { moveZoneToNameserverSet(zone: $z, nameserverSet: "default") { name } }`, { z: A }),
    ],
  ]),

  // ---- views (docs/views.md): the operator's, a zone's overlays too ----
  adminOnlyOp('Query.views', (key) => [['every view', 'FORBIDDEN', () => gql(key, `{ views { name } }`)]]),
  adminOnlyOp('Query.viewOverlays', (key) => [
    ['a zone of its own', 'FORBIDDEN', () => gql(key, `query($z: String!) { viewOverlays(zone: $z) { owner } }`, { z: A })],
  ]),
  adminOnlyOp('Query.viewZone', (key) => [
    ['a zone of its own', 'FORBIDDEN', () => gql(key, `query($z: String!) { viewZone(zone: $z, view: "pm-view") { serial } }`, { z: A })],
  ]),
  adminOnlyOp('Query.viewHistory', (key) => [
    ['a zone of its own', 'FORBIDDEN', () => gql(key, `query($z: String!) { viewHistory(zone: $z, view: "pm-view") { id } }`, { z: A })],
  ]),
  adminOnlyOp('Query.viewBindConfig', (key) => [
    ['a view', 'FORBIDDEN', () => gql(key, `{ viewBindConfig(view: "pm-view", primary: "192.0.2.1:53") }`)],
  ]),
  adminOnlyOp('Query.viewSecondaryConfig', (key) => [
    ['a view', 'FORBIDDEN', () => gql(key, `{ viewSecondaryConfig(view: "pm-view", primary: "192.0.2.1:53", software: KNOT) }`)],
  ]),
  adminOnlyOp('Mutation.createView', (key) => [
    [
      'a new view',
      'FORBIDDEN',
      () => gql(key, `mutation($i: ViewInput!) { createView(input: $i) { id } }`, { i: { name: 'pm-view', tsigKeyId: '1' } }),
    ],
  ]),
  adminOnlyOp('Mutation.updateView', (key) => [
    ['a view', 'FORBIDDEN', () => gql(key, `mutation { updateView(id: "1", input: { precedence: 3 }) { id } }`)],
  ]),
  adminOnlyOp('Mutation.deleteView', (key) => [['a view', 'FORBIDDEN', () => gql(key, `mutation { deleteView(id: "1") }`)]]),
  adminOnlyOp('Mutation.setViewOverlay', (key) => [
    [
      'a zone of its own',
      'FORBIDDEN',
      () =>
        gql(key, `mutation($z: String!) { setViewOverlay(zone: $z, view: "pm-view", owner: "app", type: "A", action: HIDE) }`, { z: A }),
    ],
  ]),
  adminOnlyOp('Mutation.clearViewOverlay', (key) => [
    [
      'a zone of its own',
      'FORBIDDEN',
      () => gql(key, `mutation($z: String!) { clearViewOverlay(zone: $z, view: "pm-view", owner: "app", type: "A") }`, { z: A }),
    ],
  ]),

  // ---- REST: views, beside the documented paths (the same GraphQL operations as the view rows) ----
  adminOnlyOp('GET /domain/views/:zone', (key) => [['a zone of its own', 'FORBIDDEN', () => rest(key, 'get', `/domain/views/${A}`)]]),
  adminOnlyOp('GET /domain/views/:zone/:view', (key) => [
    ['a zone of its own', 'FORBIDDEN', () => rest(key, 'get', `/domain/views/${A}/pm-view`)],
  ]),
  adminOnlyOp('PUT /domain/views/:zone/:view/:owner/:type', (key) => [
    ['a zone of its own', 'FORBIDDEN', () => rest(key, 'put', `/domain/views/${A}/pm-view/app/A`, { body: { action: 'hide' } })],
  ]),
  adminOnlyOp('DELETE /domain/views/:zone/:view/:owner/:type', (key) => [
    ['a zone of its own', 'FORBIDDEN', () => rest(key, 'delete', `/domain/views/${A}/pm-view/app/A`)],
  ]),

  // ---- GraphQL subscriptions ----
  subscriptionOp('dnssecKeyChanged'),
  subscriptionOp('propagationChanged'),
  subscriptionOp('zoneChanged'),
];

const ZONE_TRANSFER_OFFER = `mutation($z: String!, $u: ID) { offerZoneTransfer(zone: $z, toUserId: $u) { id } }`;
const ZONE_TRANSFER_CANCEL = `mutation($id: ID!) { cancelZoneTransfer(id: $id) { id } }`;

function keyIdOf(secret: string): string {
  for (const entry of keys.values()) if (entry.secret === secret) return entry.id;
  throw new Error('unknown key');
}

beforeAll(async () => {
  app = await startTestApp({
    RATE_LIMIT_PER_SECOND: '0',
    KEY_RATE_LIMIT_PER_SECOND: '0',
    // row by row, every key's writes of a row land on the same zones back to back: the matrix is about who may,
    // not how often (the zones' change rate has tests of its own)
    ZONE_CHANGES_PER_SECOND: '0',
    // health checks asked for (checkHealth) meet no root server at once: the matrix is about who may ask
    HEALTH_ROOT_HINTS: '127.0.53.20',
    HEALTH_QUERY_TIMEOUT_MS: '100',
  });
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  await logWrites();
  userId = await createUser(app, 'pm@example.org');
  otherUserId = await createUser(app, 'pm-other@example.org');
  await createZone(app, userId, A);
  await createZone(app, userId, B);
  await createZone(app, otherUserId, C);
  // a record at every point, and one more at the apex, so that lists have something to leave out
  for (const t of POINTS) await adminAdd(t);
  for (const [account, email] of [
    [userId, targetEmail],
    [otherUserId, 'pm-other-member@example.org'],
  ]) {
    await admin(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
      i: { userId: account, email, role: 'VIEWER' },
    });
    const token = await signIn(app, email);
    const id = (await personGql(app, token, `{ me { personId } }`)).data.me.personId;
    if (account === userId) [targetToken, targetId] = [token, id];
    else otherMemberId = id;
  }
  for (const p of PROFILES) {
    if (p.person) {
      const email = `pm-${p.person.role}-${next()}@example.org`;
      await admin(`mutation($input: InviteMemberInput!) { inviteMember(input: $input) { token } }`, {
        input: { userId, email, role: apiRole(p.person.role), zones: p.person.zones },
      });
      // the first sign-in of the invited address makes the person a member
      const token = await signIn(app, email);
      const me = await personGql(app, token, `{ me { personId } }`);
      keys.set(p.name, { secret: token, id: me.data.me.personId, email });
      continue;
    }
    const data = await admin(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { id } } }`, {
      input: { userId, name: `pm ${p.name}`.slice(0, 100), ...p.input },
    });
    keys.set(p.name, { secret: data.createApiKey.secret, id: data.createApiKey.apiKey.id });
  }
  for (const op of OPS) coverage.set(op.id, { profiles: new Set(), allowed: 0, refused: 0 });
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

// row by row: every key of a row, then the next row (dnssecOp keeps a row's preparation from one key to the next)
describe.each(OPS.map((op) => [op.id, op] as const))('%s', (_id, op) => {
  it.each(PROFILES.map((p) => [p.name, p] as const))('%s', async (_name, profile) => {
    current = { op: op.id, profile: profile.name };
    try {
      await unsignAfterOtherRow(op.id);
      await op.run(profile, keys.get(profile.name)!.secret);
      coverage.get(op.id)!.profiles.add(profile.name);
    } finally {
      current = undefined;
    }
  });
});

describe('the matrix is complete', () => {
  it('has a row for every REST route of the table, and for no route that is not there', () => {
    const routes = ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
    const rows = OPS.map((op) => op.id)
      .filter((id) => /^(GET|POST|PUT|DELETE) /.test(id))
      .sort();
    expect(rows).toEqual(routes);
  });

  it('has a row for every Query, Mutation and Subscription field of the served schema', async () => {
    const res = await app.gql(`{ __schema {
        queryType { fields(includeDeprecated: true) { name } } mutationType { fields(includeDeprecated: true) { name } }
        subscriptionType { fields(includeDeprecated: true) { name } } } }`);
    const s = res.data.__schema;
    const fields = [
      ...s.queryType.fields.map((f: any) => `Query.${f.name}`),
      ...s.mutationType.fields.map((f: any) => `Mutation.${f.name}`),
      ...s.subscriptionType.fields.map((f: any) => `Subscription.${f.name}`),
    ].sort();
    const rows = OPS.map((op) => op.id)
      .filter((id) => /^(Query|Mutation|Subscription)\./.test(id))
      .sort();
    expect(rows).toEqual(fields);
  });

  it('has a row or a stated exemption for every route of the PowerDNS table, and for no route that is not there', () => {
    const routes = POWERDNS_ROUTES.map((r) => `PowerDNS ${r.method.toUpperCase()} ${r.path}`).sort();
    const rows = PDNS_OPS.map((op) => op.id);
    const exempt = Object.keys(PDNS_EXEMPT);
    // an exemption is for a route without a row, and says why
    expect(exempt.filter((id) => rows.includes(id) || !PDNS_EXEMPT[id].trim())).toEqual([]);
    expect([...new Set([...rows, ...exempt])].sort()).toEqual(routes);
  });

  it('has its exempt PowerDNS routes still refused to every key alike, writing nothing', async () => {
    const paths: Record<string, (zone: string) => string> = {
      [pdnsRow('PUT', '/zones/:zone/cryptokeys/:id')]: (zone) => `/zones/${zone}./cryptokeys/1`,
    };
    expect(Object.keys(paths).sort()).toEqual(Object.keys(PDNS_EXEMPT).sort());
    for (const [id, path] of Object.entries(paths))
      for (const p of PROFILES)
        for (const zone of ZONES) {
          const before = await snapshot();
          const answer = await pdns(keys.get(p.name)!.secret, 'put', path(zone), { active: true });
          expect({ id, profile: p.name, zone, status: answer.status }).toEqual({ id, profile: p.name, zone, status: 422 });
          expect({ id, profile: p.name, zone, written: await writesSince(before) }).toEqual({ id, profile: p.name, zone, written: {} });
        }
  });

  it('ran every row with every key, each on a target some key may touch and one it may not', () => {
    const incomplete = OPS.filter((op) => coverage.get(op.id)!.profiles.size !== PROFILES.length).map((op) => op.id);
    expect(incomplete).toEqual([]);
    const oneSided = OPS.filter((op) => {
      const c = coverage.get(op.id)!;
      return (c.refused === 0 && !op.list) || (c.allowed === 0 && !op.adminOnly && !op.ownerOnly);
    }).map((op) => op.id);
    expect(oneSided).toEqual([]);
    // the counts the report quotes
    process.stdout.write(
      `policy matrix: ${ROUTES.length} REST routes, ${PDNS_OPS.length} PowerDNS API routes ` +
        `(of ${POWERDNS_ROUTES.length}; ${Object.keys(PDNS_EXEMPT).length} refused to every key alike) and ` +
        `${OPS.length - ROUTES.length - PDNS_OPS.length} GraphQL fields × ${PROFILES.length} keys; ` +
        `${tally.calls} calls, ${tally.allowed} allowed, ${tally.refused} refused\n`,
    );
  });
});
