/**
 * Review and scheduled changes (docs/changes.md, «Review», «Scheduled changes»), on the real service with its DNS
 * primary and its worker over one PostgreSQL database, what is served asked of the primary with dig: under a
 * two-approver policy a change set becomes a change request and nothing is served before its second approval;
 * self-approval and a viewer's approval are refused; a request whose RRset moved since it was planned is refused
 * on its last approval with the RRset named; REST's documented path answers 202 with the request when asked
 * (Prefer: respond-async) and 409 ZONE_UNDER_REVIEW otherwise; a request scheduled a few seconds ahead is
 * served by T + 2 s and a cancelled one never; the PowerDNS API and DNS UPDATE
 * are refused with the policy named, except an ACME key's `_acme-challenge` TXT, which a renewal writes at once.
 * Every other write of a person's edge becomes a request too: REST's record add, edit and delete, an import
 * (GraphQL and REST, the RRsets the file changes) and a revert, each answered with the request and nothing
 * served; GraphQL's single-record mutations stay refused, naming the mutations that propose, and their siblings
 * that propose (createRecordOrPropose, updateRecordOrPropose, removeRecordOrPropose) answer PROPOSED with the request,
 * nothing written, or WRITTEN with the record on a zone without review. REST's review paths list, read, approve and
 * reject (with a comment) and cancel as the mutations do.
 */
import 'reflect-metadata';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createTsigKey, createUser, createUserKey, createZone, errorCode, feedFrom } from '../support/fixtures';
import { freePort } from '../support/free-port';
import { personGql, sessionHeaders, signIn } from '../support/people';
import { nsupdate, runClient } from '../support/update-clients';
import { dig, findBinary, records } from '../propagation/knot';
import { sleep, waitFor } from '../support/wait-for';

const ZONE = 'review.cr-zk.test';
/** a zone that requires no approval: its scheduled changes */
const PLAIN = 'plain.cr-zk.test';
const ACCOUNT = 'team@cr-zk.test';
const ROLES = { owner: 'owner', erin: 'editor', alice: 'editor', bob: 'admin', vera: 'viewer' } as const;
type Person = keyof typeof ROLES;

let app: TestApp;
let dnsPort: number;
let accountId: string;
/** the serial after the first record, before the records of the edit and the delete below */
let serialAtMail: number;
/** records made before the zone is under review, which REST edits and deletes as requests */
const ids = {} as Record<'edited' | 'removed', string>;
const tokens = {} as Record<Person, string>;

const REQUEST = `id status author plannedSerial appliedSerial requiredApprovals approvals scheduledAt conflicts { owner type } reason
  plan { serialBefore serial rrsets { owner type before { rdata } after { rdata } } }
  reviews { reviewer verdict comment }`;
const APPLY = `mutation($z: String!, $c: [ZoneChangeInput!]!) {
  applyZoneChanges(zone: $z, changes: $c) { serialBefore serial added { owner } changeRequest { id status requiredApprovals } } }`;
const APPROVE = `mutation($id: ID!, $c: String) { approveChangeRequest(id: $id, comment: $c) { ${REQUEST} } }`;
const PROPOSE = `mutation($z: String!, $c: [ZoneChangeInput!]!, $at: DateTimeISO) {
  proposeZoneChange(zone: $z, changes: $c, at: $at) { ${REQUEST} } }`;

const as = (person: Person, query: string, variables: Record<string, unknown> = {}) => personGql(app, tokens[person], query, variables);
const email = (person: Person) => `${person}@cr-zk.test`;

/** what the primary serves at `name` for `type` (rdata), and its SOA serial */
async function served(zone: string, name: string, type: string): Promise<string[]> {
  // asked again when no answer came within dig's 2 s, as a resolver asks again over UDP (RFC 1035 §4.2.1): an
  // answer lost on a loaded host is not an answer without the record
  const res = await dig(['-p', String(dnsPort), '@127.0.0.1', `${name}.${zone}`, type, '+norecurse', '+tries=3']);
  if (res.status === undefined) throw new Error(`no answer from the primary for ${name}.${zone} ${type}: ${res.stdout}`);
  return records(res)
    .filter((r) => r.type === type)
    .map((r) => r.rdata);
}
async function soaSerial(zone: string): Promise<number> {
  const res = await dig(['-p', String(dnsPort), '@127.0.0.1', zone, 'SOA', '+short']);
  return Number(res.stdout.trim().split(/\s+/)[2]);
}

const addA = (owner: string, rdata: string) => [{ kind: 'ADD', owner, type: 'A', rdata, ttl: 300 }];
const replaceA = (owner: string, rdata: string) => [{ kind: 'REPLACE_RRSET', owner, type: 'A', rdatas: [rdata], ttl: 300 }];

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns,worker', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  accountId = await createUser(app, ACCOUNT);
  await createZone(app, accountId, ZONE);
  await createZone(app, accountId, PLAIN);
  for (const [person, role] of Object.entries(ROLES) as [Person, string][]) {
    const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
      i: { userId: accountId, email: email(person), role: role.toUpperCase() },
    });
    expect(invited.errors).toBeUndefined();
    tokens[person] = await signIn(app, email(person));
  }
  // the record a conflict is about, before the zone is under review
  expect((await as('owner', APPLY, { z: ZONE, c: addA('mail', '192.0.2.1') })).errors).toBeUndefined();
  serialAtMail = await soaSerial(ZONE);
  for (const [owner, rdata] of [
    ['edited', '192.0.2.60'],
    ['removed', '192.0.2.61'],
  ] as const) {
    const added = await as('owner', APPLY, { z: ZONE, c: addA(owner, rdata) });
    expect(added.errors).toBeUndefined();
    const found = await app.gql(`query($z: String!, $o: String) { records(zone: $z, owner: $o) { nodes { id } } }`, { z: ZONE, o: owner });
    ids[owner] = found.data.records.nodes[0].id;
  }
  // an editor may not set the policy; the zone's owner may
  const byEditor = await as('erin', `mutation($z: String!) { setZoneRequiredApprovals(zone: $z, approvals: 2) }`, { z: ZONE });
  expect(errorCode(byEditor)).toBe('FORBIDDEN_BY_ROLE');
  const set = await as('owner', `mutation($z: String!) { setZoneRequiredApprovals(zone: $z, approvals: 2) }`, { z: ZONE });
  expect(set.errors).toBeUndefined();
  expect(set.data.setZoneRequiredApprovals).toBe(2);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

test('under two approvers nothing is served before the second approval; the author and a viewer may not approve', async () => {
  const serial = await soaSerial(ZONE);
  const proposed = await as('erin', APPLY, { z: ZONE, c: addA('web', '192.0.2.10') });
  expect(proposed.errors).toBeUndefined();
  const result = proposed.data.applyZoneChanges;
  expect(result).toMatchObject({ serialBefore: serial, serial, added: [], changeRequest: { status: 'PENDING', requiredApprovals: 2 } });
  const id = result.changeRequest.id;
  expect(await served(ZONE, 'web', 'A')).toEqual([]);

  expect(errorCode(await as('erin', APPROVE, { id }))).toBe('CHANGE_SELF_APPROVAL');
  expect(errorCode(await as('vera', APPROVE, { id }))).toBe('NOT_AN_APPROVER');
  expect(errorCode(await app.gql(APPROVE, { id }, ADMIN_KEY))).toBe('NOT_SIGNED_IN');

  const first = await as('alice', APPROVE, { id, c: 'looks right' });
  expect(first.errors).toBeUndefined();
  expect(first.data.approveChangeRequest).toMatchObject({ status: 'PENDING', approvals: 1, appliedSerial: null });
  expect(errorCode(await as('alice', APPROVE, { id }))).toBe('CHANGE_ALREADY_REVIEWED');
  expect(await served(ZONE, 'web', 'A')).toEqual([]);
  expect(await soaSerial(ZONE)).toBe(serial);

  const second = await as('bob', APPROVE, { id, c: 'ship it' });
  expect(second.errors).toBeUndefined();
  const applied = second.data.approveChangeRequest;
  expect(applied).toMatchObject({ status: 'APPLIED', approvals: 2, author: email('erin') });
  expect(applied.reviews.map((r: any) => [r.reviewer, r.verdict, r.comment])).toEqual([
    [email('alice'), 'APPROVE', 'looks right'],
    [email('bob'), 'APPROVE', 'ship it'],
  ]);
  expect(applied.plan.rrsets).toEqual([{ owner: 'web', type: 'A', before: [], after: [{ rdata: '192.0.2.10' }] }]);
  expect(await served(ZONE, 'web', 'A')).toEqual(['192.0.2.10']);
  expect(await soaSerial(ZONE)).toBe(applied.appliedSerial);

  // the history names the author and who approved
  const history = await app.gql(
    `query($z: String!) { domain(name: $z) { changes(first: 1) { nodes { serialAfter author { keyName } } } } }`,
    {
      z: ZONE,
    },
  );
  expect(history.data.domain.changes.nodes[0]).toEqual({
    serialAfter: applied.appliedSerial,
    author: { keyName: `${email('erin')} (approved by ${email('alice')}, ${email('bob')})` },
  });
  // the one event feed: proposed, approved twice, applied (with the zone's change)
  const events = await waitFor('the change request events', async () => {
    const feed = (await feedFrom(app)).events.filter((e: any) => e.type.startsWith('change.') && String(e.data.id) === id);
    return feed.length >= 4 ? feed : undefined;
  });
  expect(events.map((e) => e.type)).toEqual(['change.proposed', 'change.approved', 'change.approved', 'change.applied']);
});

test('a request whose RRset moved since it was planned is refused on its last approval, the RRset named', async () => {
  const one = (await as('erin', PROPOSE, { z: ZONE, c: replaceA('mail', '192.0.2.20') })).data.proposeZoneChange;
  const two = (await as('erin', PROPOSE, { z: ZONE, c: replaceA('mail', '192.0.2.30') })).data.proposeZoneChange;
  for (const reviewer of ['alice', 'bob'] as const) expect((await as(reviewer, APPROVE, { id: one.id })).errors).toBeUndefined();
  expect(await served(ZONE, 'mail', 'A')).toEqual(['192.0.2.20']);
  const serial = await soaSerial(ZONE);

  expect((await as('alice', APPROVE, { id: two.id })).errors).toBeUndefined();
  const refused = (await as('bob', APPROVE, { id: two.id })).data.approveChangeRequest;
  expect(refused).toMatchObject({ status: 'REFUSED', conflicts: [{ owner: 'mail', type: 'A' }], appliedSerial: null });
  expect(refused.reason).toMatch(/mail A/);
  expect(await served(ZONE, 'mail', 'A')).toEqual(['192.0.2.20']);
  expect(await soaSerial(ZONE)).toBe(serial);
});

test('REST answers 202 with the request; the PowerDNS API, DNS UPDATE and a record write are refused naming the policy; an ACME key renews', async () => {
  const key = await createUserKey(app, accountId);
  const rest = await app.http
    .post(`/api/domain/changes/${ZONE}`)
    .set('X-API-Key', key)
    .send({ changes: addA('rest', '192.0.2.40') });
  expect(rest.status).toBe(202);
  expect(rest.body).toMatchObject({ zone: ZONE, changeRequest: { status: 'PENDING', requiredApprovals: 2 } });
  const byId = await app.gql(`query($id: ID!) { changeRequest(id: $id) { ${REQUEST} } }`, { id: rest.body.changeRequest.id }, key);
  expect(byId.data.changeRequest.plan.rrsets).toEqual([{ owner: 'rest', type: 'A', before: [], after: [{ rdata: '192.0.2.40' }] }]);
  const pending = await app.gql(`query($z: String!) { changeRequests(zone: $z, status: [PENDING]) { id } }`, { z: ZONE }, key);
  expect(pending.data.changeRequests.map((r: any) => r.id)).toContain(rest.body.changeRequest.id);

  const serial = await soaSerial(ZONE);
  // a record's own write cannot be a request: refused, the policy named
  const record = await app.gql(
    `mutation($i: RecordInput!) { createRecord(input: $i) { id } }`,
    { i: { zone: ZONE, owner: 'direct', type: 'A', rdata: '192.0.2.41', ttl: 300 } },
    key,
  );
  expect(errorCode(record)).toBe('ZONE_UNDER_REVIEW');
  // the PowerDNS API: 422 with the message
  const patch = await app.http
    .patch(`/api/v1/servers/localhost/zones/${ZONE}.`)
    .set('X-API-Key', key)
    .send({
      rrsets: [
        { name: `pdns.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.42', disabled: false }] },
      ],
    });
  expect(patch.status).toBe(422);
  expect(patch.body.error).toMatch(/requires 2 approvals/);
  // DNS UPDATE through a key that may write anything: REFUSED, EDE 18 (Prohibited) with the policy in its text
  const anyKey = await createTsigKey(app, accountId, 'any.cr-zk.test');
  const refused = await runClient(
    findBinary('nsupdate'),
    ['-d', '-y', `${anyKey.algorithm}:${anyKey.name}:${anyKey.secret}`],
    [`server 127.0.0.1 ${dnsPort}`, `zone ${ZONE}`, `update add dyn.${ZONE} 300 A 192.0.2.43`, 'send', ''].join('\n'),
  );
  const output = refused.stdout + refused.stderr;
  expect(output).toMatch(/opcode: UPDATE, status: REFUSED/);
  expect(output).toMatch(/EDE: 18 \(Prohibited\)/);
  expect(output).toMatch(/requires 2 approvals/);
  expect(await soaSerial(ZONE)).toBe(serial);

  // an ACME key (the preset: `_acme-challenge` TXT only) writes its challenge at once, as certbot's rfc2136 plugin does
  const acme = await app.gql(`mutation($input: CreateTsigKeyInput!) { createTsigKey(input: $input) { secret } }`, {
    input: { userId: accountId, name: 'acme.cr-zk.test', preset: 'ACME', zone: ZONE },
  });
  expect(acme.errors).toBeUndefined();
  const acmeKey = { algorithm: 'hmac-sha256', name: 'acme.cr-zk.test', secret: acme.data.createTsigKey.secret };
  const renewal = await nsupdate(dnsPort, acmeKey, [`zone ${ZONE}`, `update add _acme-challenge.www.${ZONE} 60 TXT "token-1"`, 'send']);
  expect(renewal.code).toBe(0);
  expect(await served(ZONE, '_acme-challenge.www', 'TXT')).toEqual(['"token-1"']);
});

test('a change scheduled a few seconds ahead is served by T + 2 s; a cancelled one never is', async () => {
  const at = new Date(Date.now() + 3000);
  const kept = await as('erin', PROPOSE, { z: PLAIN, c: addA('timed', '192.0.2.50'), at: at.toISOString() });
  expect(kept.errors).toBeUndefined();
  expect(kept.data.proposeZoneChange).toMatchObject({ status: 'APPROVED', requiredApprovals: 0 });
  const dropped = (await as('erin', PROPOSE, { z: PLAIN, c: addA('dropped', '192.0.2.51'), at: at.toISOString() })).data.proposeZoneChange;
  // under review too: approved by two, then waiting for its time
  const reviewed = (await as('erin', PROPOSE, { z: ZONE, c: addA('timed', '192.0.2.52'), at: at.toISOString() })).data.proposeZoneChange;
  expect((await as('alice', APPROVE, { id: reviewed.id })).data.approveChangeRequest.status).toBe('PENDING');
  expect((await as('bob', APPROVE, { id: reviewed.id })).data.approveChangeRequest.status).toBe('APPROVED');
  const cancelled = await as('erin', `mutation($id: ID!) { cancelChangeRequest(id: $id) { status } }`, { id: dropped.id });
  expect(cancelled.data.cancelChangeRequest.status).toBe('CANCELLED');
  expect(await served(PLAIN, 'timed', 'A')).toEqual([]);

  await sleep(Math.max(0, at.getTime() + 2000 - Date.now()));
  expect(await served(PLAIN, 'timed', 'A')).toEqual(['192.0.2.50']);
  expect(await served(ZONE, 'timed', 'A')).toEqual(['192.0.2.52']);
  expect(await served(PLAIN, 'dropped', 'A')).toEqual([]);
  const after = await as('erin', `query($id: ID!) { changeRequest(id: $id) { status } }`, { id: dropped.id });
  expect(after.data.changeRequest.status).toBe('CANCELLED');
  // too late to cancel an applied one
  expect(
    errorCode(await as('erin', `mutation($id: ID!) { cancelChangeRequest(id: $id) { status } }`, { id: kept.data.proposeZoneChange.id })),
  ).toBe('CHANGE_REQUEST_CLOSED');
});

/** what a CI host running three lanes adds to the scheduled changes' T + 2 s */
const LOADED_HOST_ALLOWANCE_MS = 8_000;

test('30 changes scheduled for one time in 5 zones are all applied by T + 2 s and served; two of one RRset apply in their order', async () => {
  const DUE = 30;
  // zones of their own, so that the changes are the only ones due then
  const zones = Array.from({ length: 5 }, (_, i) => `many${i}.cr-zk.test`);
  for (const zone of zones) await createZone(app, accountId, zone);
  const zoneOf = (i: number) => zones[i % zones.length];
  // ahead by enough for the proposals to be made on a loaded machine (each is planned as a dry run)
  const at = new Date(Date.now() + 8000);
  const propose = (zone: string, changes: unknown[]) => as('erin', PROPOSE, { z: zone, c: changes, at: at.toISOString() });
  const made = await Promise.all(Array.from({ length: DUE }, (_, i) => propose(zoneOf(i), addA(`due${i}`, `192.0.2.${i + 1}`))));
  expect(made.map((m) => m.errors)).toEqual(Array(DUE).fill(undefined));
  // two requests of one RRset, planned on it empty: the first (by id) applies, the second is refused naming it
  const first = (await propose(zones[0], replaceA('same', '198.51.100.1'))).data.proposeZoneChange;
  const second = (await propose(zones[0], replaceA('same', '198.51.100.2'))).data.proposeZoneChange;
  expect(Date.now()).toBeLessThan(at.getTime());

  // every request closed (read until none is still APPROVED, a bound on a hang), then when each closed
  const ids = [...made.map((m) => m.data.proposeZoneChange.id as string), first.id, second.id];
  const requests = await waitFor(
    'the scheduled requests to close',
    async () => {
      const now = await Promise.all(
        zones.map(
          async (zone) =>
            (
              await as(
                'erin',
                `query($z: String!) { changeRequests(zone: $z, status: [APPLIED, REFUSED, APPROVED], first: 100) { id status closedAt } }`,
                { z: zone },
              )
            ).data.changeRequests as { id: string; status: string; closedAt: string | null }[],
        ),
      );
      const byId = new Map(now.flat().map((r) => [r.id, r]));
      return ids.every((id) => byId.get(id)?.status !== 'APPROVED') ? now : undefined;
    },
    60_000,
  );
  const statusOf = new Map(requests.flat().map((r) => [r.id, r.status]));
  expect(made.map((m) => statusOf.get(m.data.proposeZoneChange.id))).toEqual(Array(DUE).fill('APPLIED'));
  expect([statusOf.get(first.id), statusOf.get(second.id)]).toEqual(['APPLIED', 'REFUSED']);
  const closed = requests.flat().map((r) => new Date(r.closedAt!).getTime() - at.getTime());
  console.log(`${DUE + 2} scheduled changes closed after T: the first at ${Math.min(...closed)} ms, the last at ${Math.max(...closed)} ms`);
  // none before T; the last by T + 2 s, and what a loaded host adds to 32 serial steps (on a CI host running three
  // lanes 14 were still open at T + 2 s)
  expect(Math.min(...closed)).toBeGreaterThanOrEqual(0);
  expect({ last: Math.max(...closed), inTime: Math.max(...closed) <= 2000 + LOADED_HOST_ALLOWANCE_MS }).toEqual({
    last: Math.max(...closed),
    inTime: true,
  });
  const refused = await as('erin', `query($id: ID!) { changeRequest(id: $id) { conflicts { owner type } } }`, { id: second.id });
  expect(refused.data.changeRequest.conflicts).toEqual([{ owner: 'same', type: 'A' }]);
  // what is served: each of them, and the first of the two
  for (let i = 0; i < DUE; i += 7) expect(await served(zoneOf(i), `due${i}`, 'A')).toEqual([`192.0.2.${i + 1}`]);
  expect(await served(zones[0], 'same', 'A')).toEqual(['198.51.100.1']);
}, 120_000);

/** a REST call as a person signed in (the console's cookie, with the CSRF gate's header) */
const restAs = (person: Person, method: 'get' | 'post' | 'put' | 'delete', path: string) =>
  app.http[method](`/api${path}`).set(sessionHeaders(tokens[person]));
const requestById = async (id: string) =>
  (await app.gql(`query($id: ID!) { changeRequest(id: $id) { ${REQUEST} } }`, { id })).data.changeRequest;

test("every other write of a person's edge becomes a request: REST's record writes, an import (GraphQL and REST), a revert", async () => {
  const serial = await soaSerial(ZONE);
  const pendingOf = (body: any) => {
    expect(body).toMatchObject({ zone: ZONE, changeRequest: { status: 'PENDING', requiredApprovals: 2 } });
    return body.changeRequest.id as string;
  };
  // REST's record add, edit and delete (documented paths): refused 409 as a legacy client knows them, naming the
  // preference; asked with Prefer: respond-async (RFC 7240), 202 with the request, the body as the changes route's
  const refused = await restAs('erin', 'post', '/record/add').send({
    zone: ZONE,
    owner: 'proposed',
    rtype: 'A',
    rdata: '192.0.2.64',
    ttl: 300,
  });
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ error: 'ZONE_UNDER_REVIEW', details: [{ field: 'zone', code: 'ZONE_UNDER_REVIEW' }] });
  expect(refused.body.message).toContain('Prefer: respond-async');
  expect((await restAs('erin', 'delete', `/record/delete/${ids.removed}`)).status).toBe(409);
  const added = await restAs('erin', 'post', '/record/add').set('Prefer', 'respond-async').send({
    zone: ZONE,
    owner: 'proposed',
    rtype: 'A',
    rdata: '192.0.2.64',
    ttl: 300,
  });
  expect(added.status).toBe(202);
  expect(added.headers['preference-applied']).toBe('respond-async');
  const addId = pendingOf(added.body);
  const edited = await restAs('erin', 'put', `/record/edit/${ids.edited}`).set('Prefer', 'respond-async, wait=5').send({
    zone: ZONE,
    owner: 'edited',
    rtype: 'A',
    rdata: '192.0.2.62',
    ttl: 300,
  });
  expect(edited.status).toBe(202);
  const editId = pendingOf(edited.body);
  const deleted = await restAs('erin', 'delete', `/record/delete/${ids.removed}`).set('Prefer', 'RESPOND-ASYNC');
  expect(deleted.status).toBe(202);
  const deleteId = pendingOf(deleted.body);
  // a REST import: the RRsets the file changes
  const imported = await restAs('erin', 'post', `/domain/import/${ZONE}`).send({
    text: 'imported 300 IN TXT "from a file"\n',
    mode: 'MERGE',
  });
  expect(imported.status).toBe(202);
  const importId = pendingOf(imported.body);

  const plans = await Promise.all([addId, editId, deleteId, importId].map(requestById));
  expect(plans.map((r) => [r.author, r.plan.rrsets])).toEqual([
    [email('erin'), [{ owner: 'proposed', type: 'A', before: [], after: [{ rdata: '192.0.2.64' }] }]],
    [email('erin'), [{ owner: 'edited', type: 'A', before: [{ rdata: '192.0.2.60' }], after: [{ rdata: '192.0.2.62' }] }]],
    [email('erin'), [{ owner: 'removed', type: 'A', before: [{ rdata: '192.0.2.61' }], after: [] }]],
    [email('erin'), [{ owner: 'imported', type: 'TXT', before: [], after: [{ rdata: '"from a file"' }] }]],
  ]);

  // GraphQL's import (REPLACE, the zone as exported with one line more and one less): only what the file changes
  const exported = (await app.gql(`query($z: String!) { exportZone(zone: $z) }`, { z: ZONE })).data.exportZone as string;
  const file = `${exported
    .split('\n')
    .filter((line) => !line.startsWith('removed'))
    .join('\n')}\nreplaced 300 IN A 192.0.2.63\n`;
  const graphqlImport = await as(
    'erin',
    `mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: REPLACE) { added removed serial changeRequest { id status } } }`,
    { z: ZONE, t: file },
  );
  expect(graphqlImport.errors).toBeUndefined();
  expect(graphqlImport.data.importZone).toMatchObject({ added: 0, removed: 0, serial, changeRequest: { status: 'PENDING' } });
  const replaced = await requestById(graphqlImport.data.importZone.changeRequest.id);
  expect(replaced.plan.rrsets).toEqual([
    { owner: 'removed', type: 'A', before: [{ rdata: '192.0.2.61' }], after: [] },
    { owner: 'replaced', type: 'A', before: [], after: [{ rdata: '192.0.2.63' }] },
  ]);
  // a dry run of an import is still a dry run
  const dry = await as(
    'erin',
    `mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: REPLACE, dryRun: true) { dryRun addedRecords changeRequest { id } } }`,
    {
      z: ZONE,
      t: file,
    },
  );
  expect(dry.data.importZone).toMatchObject({ dryRun: true, changeRequest: null });
  expect(dry.data.importZone.addedRecords).toContain(`replaced.${ZONE}. 300 IN A 192.0.2.63`);

  // a revert (to before the records of the edit and the delete): a request, nothing written
  const reverted = await as(
    'erin',
    `mutation($z: String!, $t: Serial!) { revertZone(zone: $z, toSerial: $t) { serialBefore serial added { owner } changeRequest { id status } } }`,
    { z: ZONE, t: serialAtMail },
  );
  expect(reverted.errors).toBeUndefined();
  expect(reverted.data.revertZone).toMatchObject({ serialBefore: serial, serial, added: [], changeRequest: { status: 'PENDING' } });
  const revert = await requestById(reverted.data.revertZone.changeRequest.id);
  expect(revert.plan.rrsets).toEqual(
    expect.arrayContaining([
      { owner: 'edited', type: 'A', before: [{ rdata: '192.0.2.60' }], after: [] },
      { owner: 'removed', type: 'A', before: [{ rdata: '192.0.2.61' }], after: [] },
    ]),
  );

  // GraphQL's single-record mutations cannot answer a request: refused, naming the mutations that propose
  for (const [query, variables] of [
    [
      `mutation($i: RecordInput!) { createRecord(input: $i) { id } }`,
      { i: { zone: ZONE, owner: 'direct', type: 'A', rdata: '192.0.2.65', ttl: 300 } },
    ],
    [`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: ids.removed }],
  ] as const) {
    const refused = await as('erin', query, variables);
    expect(errorCode(refused)).toBe('ZONE_UNDER_REVIEW');
    expect(refused.errors![0].message).toMatch(/proposeZoneChange or applyZoneChanges/);
  }
  // nothing of it is served
  expect(await soaSerial(ZONE)).toBe(serial);
  expect(await served(ZONE, 'proposed', 'A')).toEqual([]);
  expect(await served(ZONE, 'edited', 'A')).toEqual(['192.0.2.60']);
  expect(await served(ZONE, 'removed', 'A')).toEqual(['192.0.2.61']);
  for (const id of [graphqlImport.data.importZone.changeRequest.id, revert.id])
    expect(
      (await as('erin', `mutation($id: ID!) { cancelChangeRequest(id: $id) { status } }`, { id })).data.cancelChangeRequest.status,
    ).toBe('CANCELLED');
});

test("GraphQL's record mutations that propose: PROPOSED with the request under review, nothing written; WRITTEN with the record elsewhere", async () => {
  const OUTCOME = `outcome zone record { id owner rdata comment domain { serial } } removal { id domain { serial } }
    changeRequest { id status requiredApprovals }`;
  const create = (zone: string, owner: string, rdata: Record<string, unknown>) =>
    as('erin', `mutation($i: RecordInput!) { createRecordOrPropose(input: $i) { ${OUTCOME} } }`, {
      i: { zone, owner, type: 'A', ttl: 300, comment: 'why', ...rdata },
    });
  const update = (id: string, zone: string, owner: string, rdata: string) =>
    as('erin', `mutation($id: ID!, $i: RecordInput!) { updateRecordOrPropose(id: $id, input: $i) { ${OUTCOME} } }`, {
      id,
      i: { zone, owner, type: 'A', rdata, ttl: 300 },
    });
  const remove = (id: string) => as('erin', `mutation($id: ID!) { removeRecordOrPropose(id: $id) { ${OUTCOME} } }`, { id });
  const proposed = (answer: Awaited<ReturnType<typeof as>>, field: string) => {
    expect(answer.errors).toBeUndefined();
    expect(answer.data[field]).toMatchObject({
      outcome: 'PROPOSED',
      zone: ZONE,
      record: null,
      removal: null,
      changeRequest: { status: 'PENDING', requiredApprovals: 2 },
    });
    return answer.data[field].changeRequest.id as string;
  };

  // under review: each write becomes a request (its RDATA typed as fields, or as text), nothing written
  const serial = await soaSerial(ZONE);
  const requests = [
    proposed(await create(ZONE, 'gql-proposed', { data: { a: { address: '192.0.2.70' } } }), 'createRecordOrPropose'),
    proposed(await update(ids.edited, ZONE, 'edited', '192.0.2.71'), 'updateRecordOrPropose'),
    proposed(await remove(ids.removed), 'removeRecordOrPropose'),
  ];
  const plans = await Promise.all(requests.map(requestById));
  expect(plans.map((r) => [r.status, r.author, r.plan.rrsets])).toEqual([
    ['PENDING', email('erin'), [{ owner: 'gql-proposed', type: 'A', before: [], after: [{ rdata: '192.0.2.70' }] }]],
    ['PENDING', email('erin'), [{ owner: 'edited', type: 'A', before: [{ rdata: '192.0.2.60' }], after: [{ rdata: '192.0.2.71' }] }]],
    ['PENDING', email('erin'), [{ owner: 'removed', type: 'A', before: [{ rdata: '192.0.2.61' }], after: [] }]],
  ]);
  expect(await soaSerial(ZONE)).toBe(serial);
  expect(await served(ZONE, 'gql-proposed', 'A')).toEqual([]);
  expect(await served(ZONE, 'edited', 'A')).toEqual(['192.0.2.60']);
  expect(await served(ZONE, 'removed', 'A')).toEqual(['192.0.2.61']);
  // a refusal of the write itself is no request: the record's own error
  expect(errorCode(await create(ZONE, 'gql-bad', { rdata: 'not an address' }))).toBe('INVALID_RDATA');
  expect(errorCode(await remove('999999999'))).toBe('RECORD_NOT_FOUND');
  for (const id of requests)
    expect(
      (await as('erin', `mutation($id: ID!) { cancelChangeRequest(id: $id) { status } }`, { id })).data.cancelChangeRequest.status,
    ).toBe('CANCELLED');

  // a zone without review: written, answered as createRecord, updateRecord and removeRecord answer
  const created = await create(PLAIN, 'gql-written', { rdata: '192.0.2.72' });
  expect(created.errors).toBeUndefined();
  const written = created.data.createRecordOrPropose;
  expect(written).toMatchObject({
    outcome: 'WRITTEN',
    zone: PLAIN,
    record: { owner: 'gql-written', rdata: '192.0.2.72', comment: 'why', domain: { serial: await soaSerial(PLAIN) } },
    removal: null,
    changeRequest: null,
  });
  expect(await served(PLAIN, 'gql-written', 'A')).toEqual(['192.0.2.72']);
  const updated = await update(written.record.id, PLAIN, 'gql-written', '192.0.2.73');
  expect(updated.data.updateRecordOrPropose).toMatchObject({
    outcome: 'WRITTEN',
    record: { id: written.record.id, rdata: '192.0.2.73', comment: 'why' },
    changeRequest: null,
  });
  expect(await served(PLAIN, 'gql-written', 'A')).toEqual(['192.0.2.73']);
  const removed = await remove(written.record.id);
  expect(removed.data.removeRecordOrPropose).toMatchObject({
    outcome: 'WRITTEN',
    zone: PLAIN,
    record: null,
    removal: { id: written.record.id, domain: { serial: await soaSerial(PLAIN) } },
    changeRequest: null,
  });
  expect(await served(PLAIN, 'gql-written', 'A')).toEqual([]);
});

test("REST beside the documented paths: a zone's requests listed and read, approved and rejected with a comment, cancelled", async () => {
  const key = await createUserKey(app, accountId);
  const listed = await app.http.get(`/api/domain/changes/${ZONE}/requests`).set('X-API-Key', key);
  expect(listed.status).toBe(200);
  const pending = listed.body.filter((r: any) => r.author === email('erin'));
  expect(pending.every((r: any) => r.status === 'PENDING')).toBe(true);
  // the four of the test above still pending, newest first: the import, the delete, the edit, the add
  const [importId, deleteId, editId, addId] = pending.map((r: any) => r.id);
  expect(pending[3].plan.rrsets).toEqual([
    { owner: 'proposed', type: 'A', before: [], after: [{ owner: 'proposed', type: 'A', rdata: '192.0.2.64', ttl: 300 }] },
  ]);
  const all = await app.http.get(`/api/domain/changes/${ZONE}/requests`).query({ status: 'all', first: 100 }).set('X-API-Key', key);
  expect(all.body.map((r: any) => r.status)).toEqual(expect.arrayContaining(['APPLIED', 'REFUSED', 'CANCELLED', 'PENDING']));
  const sideways = await app.http.get(`/api/domain/changes/${ZONE}/requests`).query({ status: 'sideways' }).set('X-API-Key', key);
  expect([sideways.status, sideways.body.details[0].code]).toEqual([422, 'INVALID_CHOICE']);
  const one = await app.http.get(`/api/domain/change-requests/${addId}`).set('X-API-Key', key);
  expect(one.status).toBe(200);
  expect(one.body).toMatchObject({ id: addId, zone: ZONE, status: 'PENDING', approvals: 0, requiredApprovals: 2, reviews: [] });

  // a key approves nothing; the author neither
  const byKey = await app.http.post(`/api/domain/change-requests/${addId}/approve`).set('X-API-Key', key).send({ comment: 'ok' });
  expect([byKey.status, byKey.body.error]).toEqual([403, 'NOT_SIGNED_IN']);
  const byAuthor = await restAs('erin', 'post', `/domain/change-requests/${addId}/approve`).send({});
  expect([byAuthor.status, byAuthor.body.error]).toEqual([403, 'CHANGE_SELF_APPROVAL']);
  // two people approve, with their comments: applied and served
  const first = await restAs('alice', 'post', `/domain/change-requests/${addId}/approve`).send({ comment: 'fine by me' });
  expect([first.status, first.body.status, first.body.approvals]).toEqual([200, 'PENDING', 1]);
  const second = await restAs('bob', 'post', `/domain/change-requests/${addId}/approve`).send({ comment: 'go' });
  expect(second.status).toBe(200);
  expect(second.body).toMatchObject({ status: 'APPLIED', approvals: 2 });
  expect(second.body.reviews.map((r: any) => [r.reviewer, r.verdict, r.comment])).toEqual([
    [email('alice'), 'APPROVE', 'fine by me'],
    [email('bob'), 'APPROVE', 'go'],
  ]);
  expect(await served(ZONE, 'proposed', 'A')).toEqual(['192.0.2.64']);
  // the import's request applies as any: its RRset served
  for (const person of ['alice', 'bob'] as const)
    expect((await restAs(person, 'post', `/domain/change-requests/${importId}/approve`).send({})).status).toBe(200);
  expect(await served(ZONE, 'imported', 'TXT')).toEqual(['"from a file"']);

  // rejected with a comment: closed, nothing written; cancelled by its author
  const rejected = await restAs('bob', 'post', `/domain/change-requests/${editId}/reject`).send({ comment: 'keep .60' });
  expect(rejected.status).toBe(200);
  expect(rejected.body).toMatchObject({
    status: 'REJECTED',
    reviews: [{ reviewer: email('bob'), verdict: 'REJECT', comment: 'keep .60' }],
  });
  const cancelled = await restAs('erin', 'post', `/domain/change-requests/${deleteId}/cancel`);
  expect([cancelled.status, cancelled.body.status]).toEqual([200, 'CANCELLED']);
  const again = await restAs('alice', 'post', `/domain/change-requests/${deleteId}/approve`).send({});
  expect([again.status, again.body.error]).toEqual([409, 'CHANGE_REQUEST_CLOSED']);
  expect(await served(ZONE, 'edited', 'A')).toEqual(['192.0.2.60']);
  expect(await served(ZONE, 'removed', 'A')).toEqual(['192.0.2.61']);
  // an import that changes the SOA's fields alone: its plan shows the SOA, and once approved the SOA is served so
  const exported = (await app.gql(`query($z: String!) { exportZone(zone: $z) }`, { z: ZONE })).data.exportZone as string;
  const soaLine = exported.split('\n').find((line) => / SOA /.test(line))!;
  const soaFile = await restAs('erin', 'post', `/domain/import/${ZONE}`).send({
    text: `${soaLine.replace('hostmaster.example.net.', 'dns.cr-zk.test.')}\n`,
    mode: 'MERGE',
  });
  expect(soaFile.status).toBe(202);
  const soaRequest = await requestById(soaFile.body.changeRequest.id);
  expect(soaRequest.plan.rrsets).toEqual([
    {
      owner: '@',
      type: 'SOA',
      before: [{ rdata: expect.stringContaining('hostmaster.example.net.') }],
      after: [{ rdata: expect.stringContaining('dns.cr-zk.test.') }],
    },
  ]);
  for (const person of ['alice', 'bob'] as const)
    expect((await restAs(person, 'post', `/domain/change-requests/${soaRequest.id}/approve`).send({})).body.status).toBeDefined();
  expect((await requestById(soaRequest.id)).status).toBe('APPLIED');
  const soa = await dig(['-p', String(dnsPort), '@127.0.0.1', ZONE, 'SOA', '+short']);
  expect(soa.stdout.trim().split(/\s+/)[1]).toBe('dns.cr-zk.test.');
  // another account's key does not see the request
  const stranger = await createUserKey(app, await createUser(app, 'stranger@cr-zk.test'));
  expect((await app.http.get(`/api/domain/change-requests/${addId}`).set('X-API-Key', stranger)).body.error).toBe(
    'CHANGE_REQUEST_NOT_FOUND',
  );
  expect((await app.http.get(`/api/domain/changes/${ZONE}/requests`).set('X-API-Key', stranger)).body.error).toBe('ZONE_NOT_FOUND');
});
