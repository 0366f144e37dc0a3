/**
 * The operator as a person (docs/people.md, «The operator»): the CLI grants, lists and revokes (the built
 * `zonekeeper` against the running service); a non-operator (a member, even an owner, and an account's key) is
 * refused the operator's operations with FORBIDDEN and sees none of the other accounts; an operator person's
 * session lists every account, reads another account's audit log, moves a zone and grants another operator, each
 * audited under the person's address; a revoke counts from the next request, and closes the person's GraphQL
 * WebSocket (its subscriptions were begun with the operator's rights). Real service, real PostgreSQL.
 */
import 'reflect-metadata';
import { Client } from 'pg';
import WebSocket from 'ws';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { personGql, signIn } from '../support/people';
import { startTestApp, TestApp } from '../support/test-app';

let app: TestApp;
let db: Client;
let alpha: string;
let beta: string;
let alphaKey: string;
/** the owner of alpha, signed in: a member, no operator */
let nina: string;
/** a person to be made an operator, signed in (no account of their own) */
let olga: string;

const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli(app.baseUrl, args, env);
const json = async (args: string[], env: Record<string, string | undefined> = {}) => {
  const run = await cli(['--json', ...args], env);
  expect({ args, code: run.code, err: run.err }).toEqual({ args, code: 0, err: '' });
  return JSON.parse(run.out);
};

const ADMINISTER = `{ viewer { can { administer manageNameserverSets } } }`;
const USERS = `{ users(first: 50) { totalCount nodes { email } } }`;
const MOVE = `mutation($z: String!, $u: ID!) { moveZone(zone: $z, toUserId: $u) }`;
const AUDIT = `query($zone: String, $kind: String) { auditEvents(first: 20, zone: $zone, kind: $kind) { totalCount nodes { kind subject actorAdmin actorEmail } } }`;
const GRANT = `mutation($p: String!) { grantOperator(person: $p) { personId email grant since } }`;
const REVOKE = `mutation($p: String!) { revokeOperator(person: $p) { personId email grant since } }`;
const OPERATORS = `{ operators { personId email grant } }`;

async function auditRows(kind: string): Promise<{ subject: string; actor_email: string | null; actor_admin: boolean; detail: any }[]> {
  const { rows } = await db.query(`select subject, actor_email, actor_admin, detail from audit_events where kind = $1 order by id`, [kind]);
  return rows;
}

beforeAll(async () => {
  buildOnce();
  app = await startTestApp({ RATE_LIMIT_PER_SECOND: '0', KEY_RATE_LIMIT_PER_SECOND: '0' });
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  alpha = await createUser(app, 'alpha@ops.example');
  beta = await createUser(app, 'beta@ops.example');
  await createZone(app, alpha, 'alpha.ops.test');
  await createZone(app, beta, 'beta.ops.test');
  await createZone(app, beta, 'moving.ops.test');
  alphaKey = await createUserKey(app, alpha);
  const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
    i: { userId: alpha, email: 'nina@ops.example', role: 'OWNER' },
  });
  expect(invited.errors).toBeUndefined();
  // a sign-in that proves the address takes up its invitation: nina is alpha's owner
  nina = await signIn(app, 'nina@ops.example');
  olga = await signIn(app, 'olga@ops.example');
}, 120_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

/**
 * A person's GraphQL WebSocket (the session cookie, same origin), acknowledged, with one subscription to the
 * zone's propagation; `closed` resolves with the service's close code and reason, `types` the messages' types.
 */
async function subscribedSocket(token: string, zone: string) {
  const socket = new WebSocket(`${app.baseUrl.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
    headers: { cookie: `zk_session=${token}`, origin: app.baseUrl },
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })),
  );
  const types: string[] = [];
  const acked = new Promise<void>((resolve) =>
    socket.on('message', (data) => {
      const type = JSON.parse((data as Buffer).toString('utf8')).type as string;
      types.push(type);
      if (type === 'connection_ack') resolve();
    }),
  );
  socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
  await acked;
  socket.send(
    JSON.stringify({ id: '1', type: 'subscribe', payload: { query: `subscription { propagationChanged(zone: "${zone}") { zone } }` } }),
  );
  return { socket, closed, types };
}

/** what the socket did within 4.5 s: through two of the service's checks (every 2 s) */
const stillOpen = (closed: Promise<unknown>) => Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve('open'), 4_500))]);

test('a person who is no operator, even an owner, and an account’s key are refused the operator’s operations', async () => {
  expect(ERROR_CATALOGUE.FORBIDDEN.status).toBe(403);
  for (const token of [nina, olga]) {
    expect((await personGql(app, token, ADMINISTER)).data).toEqual({ viewer: { can: { administer: false, manageNameserverSets: false } } });
    for (const [query, variables] of [
      [OPERATORS, {}],
      [GRANT, { p: 'nina@ops.example' }],
      [REVOKE, { p: 'nina@ops.example' }],
      [MOVE, { z: 'beta.ops.test', u: alpha }],
      [AUDIT, {}],
      [`mutation($u: ID!) { setUserLimits(id: $u, input: {maxZones: 1}) { maxZones } }`, { u: beta }],
    ] as const) {
      const answer = await personGql(app, token, query, variables);
      expect({ query, code: errorCode(answer) }).toEqual({ query, code: 'FORBIDDEN' });
    }
    // the accounts listed are the person's own, not every one
    const users = await personGql(app, token, USERS);
    expect(users.data.users.nodes.map((n: { email: string }) => n.email)).not.toContain('beta@ops.example');
  }
  for (const query of [OPERATORS, GRANT, REVOKE])
    expect(errorCode(await app.gql(query, { p: 'nina@ops.example' }, alphaKey))).toBe('FORBIDDEN');
  // nothing was granted, nothing moved
  const { rows } = await db.query(`select count(*)::int as n from people where operator_grant is not null`);
  expect(rows[0].n).toBe(0);
  expect((await app.gql(`{ domain(name: "beta.ops.test") { user { email } } }`)).data.domain.user.email).toBe('beta@ops.example');
});

test('the CLI grants (by address), lists and refuses an unknown person or a key that is not the operator’s', async () => {
  const granted = await json(['operator', 'grant', 'Olga@ops.example']);
  expect(granted).toEqual({
    personId: expect.stringMatching(/^\d+$/),
    email: 'olga@ops.example',
    grant: 'hand',
    since: expect.any(String),
  });
  // the plural as the group's other name, a table for people
  const table = await cli(['operators', 'list']);
  expect(table.code).toBe(0);
  expect(table.out).toMatch(/^PERSONID\s+EMAIL\s+GRANT\s+SINCE$/m);
  expect(table.out).toMatch(new RegExp(`^${granted.personId}\\s+olga@ops\\.example\\s+hand\\s+\\S+$`, 'm'));
  // granted again: nothing changes, nothing more audited
  expect(await json(['operator', 'grant', granted.personId])).toMatchObject({ grant: 'hand', since: granted.since });
  expect(await auditRows('operator-granted')).toEqual([
    {
      subject: `person:${granted.personId}`,
      actor_email: null,
      actor_admin: true,
      detail: { personId: Number(granted.personId), grant: 'hand' },
    },
  ]);
  const unknown = await cli(['operator', 'grant', 'nobody@ops.example']);
  expect(unknown.code).toBe(1);
  expect(unknown.err).toMatch(/^error: PERSON_NOT_FOUND: /);
  const byKey = await cli(['operator', 'grant', 'nina@ops.example'], { ZONEKEEPER_API_KEY: alphaKey });
  expect(byKey.code).toBe(1);
  expect(byKey.err).toMatch(/^error: FORBIDDEN: /);
  expect((await json(['operator', 'list'])).map((o: { email: string }) => o.email)).toEqual(['olga@ops.example']);
}, 60_000);

test('an operator person’s session acts with the admin key’s rights: every account, the audit log, moving a zone', async () => {
  // the same session as before the grant: it counts from the next request
  expect((await personGql(app, olga, ADMINISTER)).data).toEqual({ viewer: { can: { administer: true, manageNameserverSets: true } } });
  const users = await personGql(app, olga, USERS);
  expect(users.data.users.nodes.map((n: { email: string }) => n.email)).toEqual(
    expect.arrayContaining(['alpha@ops.example', 'beta@ops.example']),
  );
  // another account's zones, and a move of one of them into alpha
  const zone = await personGql(app, olga, `{ domain(name: "moving.ops.test") { name user { email } } }`);
  expect(zone.data.domain.user.email).toBe('beta@ops.example');
  const moved = await personGql(app, olga, MOVE, { z: 'moving.ops.test', u: alpha });
  expect(moved.errors).toBeUndefined();
  expect((await app.gql(`{ domain(name: "moving.ops.test") { user { email } } }`)).data.domain.user.email).toBe('alpha@ops.example');
  // the audit log across accounts: the move, named by the person (an operator: actorAdmin)
  const audit = await personGql(app, olga, AUDIT, { zone: 'moving.ops.test' });
  expect(audit.data.auditEvents.nodes).toEqual([
    { kind: 'zone-moved-by-admin', subject: 'zone:moving.ops.test', actorAdmin: true, actorEmail: 'olga@ops.example' },
  ]);
  // the person is still the person: `me` and their sessions
  const me = await personGql(app, olga, `{ me { email accountId role } mySessions { current } }`);
  expect(me.data).toEqual({ me: { email: 'olga@ops.example', accountId: null, role: null }, mySessions: [{ current: true }] });
  // a key made by hand for an account shows its secret once, as the admin key's would, and no listing shows it again
  const made = await personGql(
    app,
    olga,
    `mutation($u: ID!) { createApiKey(input: {userId: $u, name: "by-olga"}) { secret apiKey { id } } }`,
    {
      u: beta,
    },
  );
  expect(made.data.createApiKey.secret).toEqual(expect.any(String));
  const listed = await personGql(app, olga, `query($u: ID!) { apiKeys(userId: $u) { name } }`, { u: beta });
  expect(JSON.stringify(listed.body)).not.toContain(made.data.createApiKey.secret);
});

test('an operator person grants another by GraphQL; an operator may revoke themselves; a revoke counts at the next request', async () => {
  const granted = await personGql(app, olga, GRANT, { p: 'nina@ops.example' });
  expect(granted.data.grantOperator).toMatchObject({ email: 'nina@ops.example', grant: 'HAND' });
  const ninaId = granted.data.grantOperator.personId;
  expect((await auditRows('operator-granted')).at(-1)).toEqual({
    subject: `person:${ninaId}`,
    actor_email: 'olga@ops.example',
    actor_admin: true,
    detail: { personId: Number(ninaId), grant: 'hand' },
  });
  expect((await personGql(app, nina, ADMINISTER)).data.viewer.can.administer).toBe(true);
  // nina, an owner of alpha, still acts in alpha as its owner: members, and her role there
  const me = await personGql(app, nina, `{ me { accountId role } }`);
  expect(me.data.me).toEqual({ accountId: alpha, role: 'OWNER' });
  expect((await personGql(app, nina, `query($u: ID!) { members(userId: $u) { email } }`, { u: beta })).errors).toBeUndefined();

  const self = await personGql(app, nina, REVOKE, { p: ninaId });
  expect(self.data.revokeOperator).toEqual({ personId: ninaId, email: 'nina@ops.example', grant: null, since: null });
  expect((await auditRows('operator-revoked')).at(-1)).toEqual({
    subject: `person:${ninaId}`,
    actor_email: 'nina@ops.example',
    actor_admin: true,
    detail: { personId: Number(ninaId), grant: 'hand' },
  });
  expect((await personGql(app, nina, ADMINISTER)).data.viewer.can.administer).toBe(false);
  expect(errorCode(await personGql(app, nina, AUDIT, {}))).toBe('FORBIDDEN');

  // the CLI revokes olga; her session loses the rights at once, keeps being hers
  expect(await json(['operator', 'revoke', 'olga@ops.example'])).toMatchObject({ email: 'olga@ops.example', grant: null, revoked: true });
  expect(errorCode(await personGql(app, olga, AUDIT, {}))).toBe('FORBIDDEN');
  expect(errorCode(await personGql(app, olga, MOVE, { z: 'moving.ops.test', u: beta }))).toBe('FORBIDDEN');
  expect((await personGql(app, olga, `{ me { email } }`)).data.me.email).toBe('olga@ops.example');
  expect(await json(['operator', 'list'])).toEqual([]);
}, 60_000);

test('a revoke closes an operator person’s GraphQL WebSocket within the service’s check (its subscriptions had every account)', async () => {
  const token = await signIn(app, 'wanda@ops.example');
  expect((await app.gql(GRANT, { p: 'wanda@ops.example' })).errors).toBeUndefined();
  // a subscription to another account's zone, as the operator may
  const { closed, types } = await subscribedSocket(token, 'beta.ops.test');
  // open through a few of the service's checks while the grant holds
  expect(await stillOpen(closed)).toBe('open');
  // taken: no error, no end
  expect(types.filter((type) => type === 'error' || type === 'complete')).toEqual([]);
  expect((await app.gql(REVOKE, { p: 'wanda@ops.example' })).errors).toBeUndefined();
  expect(await closed).toEqual({ code: 4403, reason: 'Forbidden: the person is no operator any more' });
}, 30_000);

test('a member whose role changes has their GraphQL WebSocket closed with «Try Again Later» (1013): a client connects again with the rights it has now', async () => {
  const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
    i: { userId: alpha, email: 'eddie@ops.example', role: 'EDITOR' },
  });
  expect(invited.errors).toBeUndefined();
  const token = await signIn(app, 'eddie@ops.example');
  const me = await personGql(app, token, `{ me { personId accountId role } }`);
  expect(me.data.me).toMatchObject({ accountId: alpha, role: 'EDITOR' });
  const first = await subscribedSocket(token, 'alpha.ops.test');
  // open through a few of the service's checks while the role stays
  expect(await stillOpen(first.closed)).toBe('open');
  expect(first.types.filter((type) => type === 'error' || type === 'complete')).toEqual([]);
  const changed = await app.gql(`mutation($i: SetMemberRoleInput!) { setMemberRole(input: $i) { role } }`, {
    i: { userId: alpha, personId: me.data.me.personId, role: 'VIEWER' },
  });
  expect(changed.errors).toBeUndefined();
  expect(await first.closed).toEqual({ code: 1013, reason: 'The rights of this connection changed: connect again' });
  // connected again, with the viewer's rights: it stays open
  const second = await subscribedSocket(token, 'alpha.ops.test');
  expect(await stillOpen(second.closed)).toBe('open');
  second.socket.close();
}, 30_000);
