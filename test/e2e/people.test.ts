/**
 * People and organisations (docs/people.md): accounts with members and roles, invitations, the last owner,
 * sessions (list, sign-out everywhere, timeouts), CSRF for cookie requests, and the history and audit log
 * naming the person by e-mail. The role-by-operation matrix is in policy-matrix.test.ts.
 */
import 'reflect-metadata';
import { Client } from 'pg';
import { startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { personGql, sessionHeaders, signIn } from '../support/people';

const ZONE = 'people-a.test';
let app: TestApp;
let db: Client;
let account: string;
let other: string;
let ownerToken: string;

const INVITE = `mutation($input: InviteMemberInput!) { inviteMember(input: $input) { token link invitation { id role zones expiresAt } } }`;
const ME = `{ me { personId email accountId role memberships { userId role zones } } }`;

async function invite(token: string | null, input: Record<string, unknown>) {
  const vars = { input: { userId: account, ...input } };
  return token === null ? app.gql(INVITE, vars) : personGql(app, token, INVITE, vars);
}

async function recordCount(): Promise<number> {
  const { rows } = await db.query(`select count(*)::int as n from records r join domains d on d.id = r.domain_id where d.name = $1`, [
    ZONE,
  ]);
  return rows[0].n;
}

async function personId(token: string): Promise<string> {
  return (await personGql(app, token, ME)).data.me.personId;
}

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_SECOND: '0', KEY_RATE_LIMIT_PER_SECOND: '0' });
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  account = await createUser(app, 'agency@example.org');
  other = await createUser(app, 'other@example.org');
  await createZone(app, account, ZONE);
  await createZone(app, other, 'people-c.test');
  // the admin key makes the first owner: an invitation that the first sign-in of the address takes up
  const made = await invite(null, { email: 'Owner@Example.org', role: 'OWNER' });
  expect(made.errors).toBeUndefined();
  ownerToken = await signIn(app, 'owner@example.org');
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

describe('invitations', () => {
  it('links the first sign-in of an invited address, and returns a one-time link stored only as a hash', async () => {
    const me = await personGql(app, ownerToken, ME);
    expect(me.data.me).toMatchObject({
      email: 'owner@example.org',
      accountId: account,
      role: 'OWNER',
      memberships: [{ userId: account, role: 'OWNER' }],
    });
    const made = await invite(ownerToken, { email: 'viewer@example.org', role: 'VIEWER' });
    expect(made.data.inviteMember.link).toContain(encodeURIComponent(made.data.inviteMember.token));
    const { rows } = await db.query(`select token_hash from invitations where id = $1`, [made.data.inviteMember.invitation.id]);
    expect(rows[0].token_hash).not.toContain(made.data.inviteMember.token);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is accepted once, by the invited address, before it expires', async () => {
    const bob = await signIn(app, 'bob@example.org');
    expect((await personGql(app, bob, ME)).data.me).toMatchObject({ accountId: null, role: null, memberships: [] });
    // a person without an account sees no zone
    const zones = await personGql(app, bob, `{ domains { totalCount } }`);
    expect(zones.data.domains.totalCount).toBe(0);
    const forBob = (await invite(ownerToken, { email: 'bob@example.org', role: 'EDITOR', zones: [ZONE] })).data.inviteMember;
    const forCarol = (await invite(ownerToken, { email: 'carol@example.org', role: 'VIEWER' })).data.inviteMember;
    const accept = `mutation($t: String!) { acceptInvitation(token: $t) { userId role zones } }`;
    expect(errorCode(await personGql(app, bob, accept, { t: forCarol.token }))).toBe('INVITATION_FOR_ANOTHER_ADDRESS');
    const ok = await personGql(app, bob, accept, { t: forBob.token });
    expect(ok.data.acceptInvitation).toEqual({ userId: account, role: 'EDITOR', zones: [ZONE] });
    // the same person again: the membership it gave (every sign-in takes the address's invitations, so a link
    // opened signed out was taken by the sign-in before its page asks); anyone else: used
    expect((await personGql(app, bob, accept, { t: forBob.token })).data.acceptInvitation).toEqual({
      userId: account,
      role: 'EDITOR',
      zones: [ZONE],
    });
    const erin = await signIn(app, 'erin@example.org');
    expect(errorCode(await personGql(app, erin, accept, { t: forBob.token }))).toBe('INVITATION_NOT_FOUND');
    const late = (await invite(ownerToken, { email: 'bob@example.org', role: 'ADMIN' })).data.inviteMember;
    await db.query(`update invitations set expires_at = now() - interval '1 second' where id = $1`, [late.invitation.id]);
    expect(errorCode(await personGql(app, bob, accept, { t: late.token }))).toBe('INVITATION_NOT_FOUND');
    // a key acts for an account, not for a person
    expect(errorCode(await app.gql(accept, { t: forBob.token }))).toBe('NOT_SIGNED_IN');
  });

  it('refuses an unknown role, an editor-only zone list on another role, and an outsider', async () => {
    expect(errorCode(await invite(ownerToken, { email: 'x@example.org', role: 'superuser' }))).toBe('BAD_USER_INPUT');
    expect(errorCode(await invite(ownerToken, { email: 'x@example.org', role: 'VIEWER', zones: [ZONE] }))).toBe('INVALID_INPUT');
    const outsider = await signIn(app, 'outsider@example.org');
    expect(errorCode(await invite(outsider, { email: 'x@example.org', role: 'VIEWER' }))).toBe('USER_NOT_FOUND');
    expect(errorCode(await personGql(app, outsider, `query($u: ID!) { members(userId: $u) { email } }`, { u: account }))).toBe(
      'USER_NOT_FOUND',
    );
  });

  it('takes a role as the MemberRole enum: a literal EDITOR validates, a lower-case string does not', async () => {
    const literal = await personGql(
      app,
      ownerToken,
      `mutation($u: ID!) { inviteMember(input: {userId: $u, email: "enum@example.org", role: EDITOR}) { invitation { id role } } }`,
      { u: account },
    );
    expect(literal.errors).toBeUndefined();
    expect(literal.data.inviteMember.invitation.role).toBe('EDITOR');
    const { rows } = await db.query(`select role from invitations where id = $1`, [literal.data.inviteMember.invitation.id]);
    expect(rows).toEqual([{ role: 'editor' }]);
    const text = await personGql(
      app,
      ownerToken,
      `mutation($u: ID!) { inviteMember(input: {userId: $u, email: "enum@example.org", role: "editor"}) { invitation { id } } }`,
      { u: account },
    );
    expect(text.status).toBe(400);
    expect(text.errors![0].message).toMatch(/MemberRole/);
    const schema = await personGql(app, ownerToken, `{ __type(name: "MemberRole") { kind enumValues { name } } }`);
    expect(schema.data.__type).toEqual({
      kind: 'ENUM',
      enumValues: [{ name: 'OWNER' }, { name: 'ADMIN' }, { name: 'EDITOR' }, { name: 'VIEWER' }],
    });
  });
});

describe('roles', () => {
  it('an admin manages members below owner; only an owner makes an owner; the last owner stays', async () => {
    await invite(ownerToken, { email: 'admin@example.org', role: 'ADMIN' });
    const admin = await signIn(app, 'admin@example.org');
    expect(errorCode(await invite(admin, { email: 'o2@example.org', role: 'OWNER' }))).toBe('FORBIDDEN_BY_ROLE');
    expect((await invite(admin, { email: 'v2@example.org', role: 'VIEWER' })).errors).toBeUndefined();
    const ownerId = await personId(ownerToken);
    const setRole = `mutation($i: SetMemberRoleInput!) { setMemberRole(input: $i) { role } }`;
    expect(errorCode(await personGql(app, admin, setRole, { i: { userId: account, personId: ownerId, role: 'VIEWER' } }))).toBe(
      'FORBIDDEN_BY_ROLE',
    );
    expect(errorCode(await personGql(app, ownerToken, setRole, { i: { userId: account, personId: ownerId, role: 'ADMIN' } }))).toBe(
      'LAST_OWNER',
    );
    const leave = `mutation($u: ID!, $p: ID!) { removeMember(userId: $u, personId: $p) { role } }`;
    expect(errorCode(await personGql(app, ownerToken, leave, { u: account, p: ownerId }))).toBe('LAST_OWNER');
    const { rows } = await db.query(`select role from memberships where person_id = $1`, [ownerId]);
    expect(rows).toEqual([{ role: 'owner' }]);
    // an admin leaves; its next request acts in no account
    const adminId = await personId(admin);
    expect((await personGql(app, admin, leave, { u: account, p: adminId })).data.removeMember.role).toBe('ADMIN');
    expect((await personGql(app, admin, `{ domains { totalCount } }`)).data.domains.totalCount).toBe(0);
  });

  it('a viewer reads and changes nothing; an editor of named zones writes records there and names itself in the history', async () => {
    const viewer = await signIn(app, 'carol@example.org');
    expect((await personGql(app, viewer, ME)).data.me.role).toBe('VIEWER');
    expect((await personGql(app, viewer, `{ domains { nodes { name } } }`)).data.domains.nodes).toEqual([{ name: ZONE }]);
    const before = await recordCount();
    const record = { zone: ZONE, owner: 'app', type: 'A', rdata: '192.0.2.7', ttl: 300 };
    expect(errorCode(await personGql(app, viewer, CREATE_RECORD, { input: record }))).toBe('FORBIDDEN_BY_POLICY');
    expect(await recordCount()).toBe(before);
    const editor = await signIn(app, 'bob@example.org');
    expect((await personGql(app, editor, CREATE_RECORD, { input: record })).errors).toBeUndefined();
    expect(errorCode(await personGql(app, editor, `mutation($z: String) { deleteDomain(zone: $z) }`, { z: ZONE }))).toBe(
      'FORBIDDEN_BY_POLICY',
    );
    const history = await app.gql(
      `query($z: String) { domain(name: $z) { changes(first: 1) { nodes { author { email keyId userId } } } } }`,
      { z: ZONE },
    );
    expect(history.data.domain.changes.nodes[0].author).toEqual({ email: 'bob@example.org', keyId: null, userId: account });
    const audit = await app.gql(`{ auditEvents(first: 50) { nodes { kind actorKeyType actorEmail } } }`);
    const kinds = audit.data.auditEvents.nodes.filter((e: any) => e.actorEmail === 'owner@example.org').map((e: any) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['signed-in', 'member-invited', 'member-joined']));
  });

  it('an account key is the account: it lists the members; the REST interface is unchanged', async () => {
    const key = await createUserKey(app, account);
    const members = await app.gql(`query($u: ID!) { members(userId: $u) { email role } }`, { u: account }, key);
    expect(members.data.members.map((m: any) => m.email)).toEqual(expect.arrayContaining(['owner@example.org', 'bob@example.org']));
    const rest = await app.http.get(`/api/user/list`).set('X-API-Key', key);
    expect(rest.status).toBe(200);
    // the REST interface with a person's cookie: the same role
    const viewer = await signIn(app, 'carol@example.org');
    const zone = await app.http.get(`/api/domain/list`).set(sessionHeaders(viewer));
    expect(zone.status).toBe(200);
    expect(JSON.stringify(zone.body)).toContain(ZONE);
    expect(JSON.stringify(zone.body)).not.toContain('people-c.test');
  });
});

describe('sessions', () => {
  it('lists its sessions, ends one, ends all (sign-out everywhere), and times out when idle', async () => {
    const one = await signIn(app, 'dave@example.org');
    const two = await signIn(app, 'dave@example.org');
    const list = await personGql(app, one, `{ mySessions { id current } }`);
    expect(list.data.mySessions).toHaveLength(2);
    const out = await app.http.post('/auth/sign-out').set(sessionHeaders(two));
    expect(out.status).toBe(204);
    expect(out.headers['set-cookie'][0]).toMatch(/^zk_session=;/);
    expect((await personGql(app, two, ME)).status).toBe(401);
    const three = await signIn(app, 'dave@example.org');
    const ended = await personGql(app, one, `mutation { endSessions }`);
    expect(ended.data.endSessions).toHaveLength(2);
    expect((await personGql(app, one, ME)).status).toBe(401);
    expect((await personGql(app, three, ME)).status).toBe(401);
    const four = await signIn(app, 'dave@example.org');
    expect((await personGql(app, four, ME)).status).toBe(200);
    await db.query(
      `update sessions set last_seen_at = now() - interval '2 hours' where ended_at is null and person_id = (select id from people where email = 'dave@example.org')`,
    );
    expect((await personGql(app, four, ME)).status).toBe(401);
    // one by sign-out, two by sign-out everywhere, one by the idle timeout (found when the session came back)
    const { rows } = await db.query(
      `select detail from audit_events where kind = 'session-ended' and actor_email = 'dave@example.org' order by id`,
    );
    expect(rows.map((r) => r.detail)).toEqual([
      { everywhere: false },
      { everywhere: true },
      { everywhere: true },
      { reason: 'idle-timeout' },
    ]);
  });
});

describe('CSRF', () => {
  it('a cross-site form post, a cross-site GraphQL request and a request without the header change nothing', async () => {
    const before = await recordCount();
    const cookie = `zk_session=${ownerToken}`;
    // a form on another site posting to the REST interface: no custom header can be set by a form
    const form = await app.http
      .post('/api/record/add')
      .set('cookie', cookie)
      .set('origin', 'https://evil.example')
      .type('form')
      .send({ zone: ZONE, owner: 'csrf', rtype: 'A', rdata: '192.0.2.9', ttl: '300' });
    expect([form.status, form.body.error]).toEqual([403, 'CSRF_REFUSED']);
    // a cross-site fetch with the cookie: its Origin (and Sec-Fetch-Site) betray it even with the header
    const mutation = { query: CREATE_RECORD, variables: { input: { zone: ZONE, owner: 'csrf', type: 'A', rdata: '192.0.2.9', ttl: 300 } } };
    const crossSite = await app.http.post('/graphql').set(sessionHeaders(ownerToken)).set('origin', 'https://evil.example').send(mutation);
    expect([crossSite.status, crossSite.body.errors[0].extensions.code]).toEqual([403, 'CSRF_REFUSED']);
    const fetchSite = await app.http.post('/graphql').set(sessionHeaders(ownerToken)).set('sec-fetch-site', 'cross-site').send(mutation);
    expect(fetchSite.status).toBe(403);
    const noHeader = await app.http.post('/graphql').set('cookie', cookie).send(mutation);
    expect(noHeader.status).toBe(403);
    const get = await app.http.get('/graphql').query({ query: '{ me { email } }' }).set('cookie', cookie);
    expect(get.status).toBe(403);
    expect(await recordCount()).toBe(before);
    // the same request from the console's own origin goes through
    const own = await app.http.post('/graphql').set(sessionHeaders(ownerToken)).set('origin', app.baseUrl).send(mutation);
    expect(own.body.errors).toBeUndefined();
    expect(await recordCount()).toBe(before + 1);
  });
});
