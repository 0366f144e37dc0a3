import { Client as PgClient } from 'pg';
import { createSecondary, createUser, createZone } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A zone list that shows each zone's owner or facts (the console's) reads them with its page, with the health
 * states and the propagation it shows (the findings, when asked, once for the page after it); its zones' fields
 * answer from what was read. Each listed zone must answer what the same zone answers alone (`domain(name:)`,
 * through the loaders): its owner, record count, DNSSEC state, propagation (a server in sync, one in error, a
 * secondary zone never transferred, none yet) and health (checked with findings, checked without, never
 * checked), asked with the findings and without, and in a list that shows no owner or fact (which reads through
 * the loaders itself).
 */
let app: TestApp;
let userId: string;
const SECONDARY = '127.0.0.1:9';
const ZONES = ['a.listed.example', 'b.listed.example', 'c.listed.example', 'd.listed.example'];
/** a secondary zone never transferred: not served, its propagation pending with the reason */
const SECONDARY_ZONE = 'e.listed.example';

const ZONE_FIELDS = `name serial kind user { id email } recordCount dnssecState
  propagation { serial state message servers { server state servedSerial error } }`;
const HEALTH_STATE = `health { zone state checkedAt }`;
const HEALTH_FINDINGS = `health { zone state checkedAt findings { code severity server message since } }`;

beforeAll(async () => {
  app = await startTestApp({ SECONDARIES: SECONDARY });
  userId = await createUser(app, 'listed@example.org');
  for (const zone of ZONES) await createZone(app, userId, zone);
  await createSecondary(app, userId, SECONDARY_ZONE, [{ address: '192.0.2.53' }]);
  const signed = await app.gql(`mutation($z: String!) { enableDnssec(input: { zone: $z }) { state } }`, { z: ZONES[1] });
  expect(signed.errors).toBeUndefined();
  // what the propagation worker and the health checker store
  const db = new PgClient({ connectionString: app.service.settings.databaseUrl });
  await db.connect();
  try {
    await db.query(
      `insert into zone_server_status (domain_id, server, state, served_serial, attempts, updated_at, error)
       select id, $2, case when name = $3 then 'in_sync' else 'error' end, case when name = $3 then serial else serial - 1 end, 1, now(),
              case when name = $3 then null else 'refused' end
         from domains where name = any($1::text[])`,
      [[ZONES[0], ZONES[1]], SECONDARY, ZONES[0]],
    );
    await db.query(
      `insert into zone_health (domain_id, state, checked_at)
       select id, case when name = $2 then 'critical' else 'ok' end, now() - interval '5 minutes' from domains where name = any($1::text[])
       on conflict (domain_id) do update set state = excluded.state, checked_at = excluded.checked_at`,
      [[ZONES[0], ZONES[2]], ZONES[2]],
    );
    await db.query(
      `insert into zone_health_findings (domain_id, code, server, severity, message)
       select id, code, server, severity, 'found: ' || code from domains,
              (values ('LAME_DELEGATION', 'ns1.example.net', 'critical'), ('SERIAL_BEHIND', '', 'warning')) as f(code, server, severity)
        where name = $1`,
      [ZONES[2]],
    );
  } finally {
    await db.end();
  }
});
afterAll(async () => {
  await app?.close();
});

async function alone(zone: string, health: string) {
  const res = await app.gql(`query($z: String!) { domain(name: $z) { ${ZONE_FIELDS} ${health} } }`, { z: zone });
  expect(res.errors).toBeUndefined();
  return res.data.domain;
}

test.each([
  ['states only', HEALTH_STATE],
  ['with findings', HEALTH_FINDINGS],
])('each zone of the console-like list answers what the zone answers alone (health %s)', async (_name, health) => {
  const res = await app.gql(
    `query($u: ID) { domains(userId: $u, first: 10, orderBy: NAME) { totalCount nodes { ${ZONE_FIELDS} ${health} } } }`,
    { u: userId },
  );
  expect(res.errors).toBeUndefined();
  const nodes = res.data.domains.nodes;
  expect(nodes.map((n: { name: string }) => n.name)).toEqual([...ZONES, SECONDARY_ZONE]);
  for (const node of nodes) expect(node).toEqual(await alone(node.name, health));
  // the data is what was stored: the list cannot agree with the zones alone by answering nothing
  const byName = new Map<string, any>(nodes.map((n: { name: string }) => [n.name, n]));
  expect(byName.get(ZONES[0])).toMatchObject({ propagation: { state: 'in_sync' }, health: { state: 'ok' } });
  expect(byName.get(ZONES[1])).toMatchObject({
    propagation: { state: 'error', servers: [{ server: SECONDARY, state: 'error', error: 'refused' }] },
    dnssecState: 'signed',
    health: { state: 'unknown', checkedAt: null },
  });
  expect(byName.get(ZONES[2])).toMatchObject({ health: { state: 'critical' } });
  expect(byName.get(SECONDARY_ZONE)).toMatchObject({ kind: 'SECONDARY', propagation: { state: 'pending', message: expect.any(String) } });
  expect(byName.get(ZONES[2]).health.checkedAt).toEqual(expect.any(String));
  if (health === HEALTH_FINDINGS)
    expect(byName.get(ZONES[2]).health.findings.map((f: { code: string }) => f.code)).toEqual(['LAME_DELEGATION', 'SERIAL_BEHIND']);
});

test('a list showing no owner or fact answers the same health and propagation through the loaders', async () => {
  const fields = `name propagation { state message servers { server state servedSerial } } ${HEALTH_FINDINGS}`;
  const bare = await app.gql(`query($u: ID) { domains(userId: $u, first: 10, orderBy: NAME) { nodes { ${fields} } } }`, { u: userId });
  const listed = await app.gql(`query($u: ID) { domains(userId: $u, first: 10, orderBy: NAME) { nodes { recordCount ${fields} } } }`, {
    u: userId,
  });
  expect(bare.errors).toBeUndefined();
  expect(listed.errors).toBeUndefined();
  expect(listed.data.domains.nodes.map(({ recordCount: _count, ...rest }: Record<string, unknown>) => rest)).toEqual(
    bare.data.domains.nodes,
  );
});

test('aliases: the state alone and the findings of the same zones, in one list', async () => {
  const res = await app.gql(
    `query($u: ID) { domains(userId: $u, first: 10, orderBy: NAME) { nodes { name user { email } s: health { state } f: health { findings { code } } } } }`,
    { u: userId },
  );
  expect(res.errors).toBeUndefined();
  const critical = res.data.domains.nodes.find((n: { name: string }) => n.name === ZONES[2]);
  expect(critical).toEqual({
    name: ZONES[2],
    user: { email: 'listed@example.org' },
    s: { state: 'critical' },
    f: { findings: [{ code: 'LAME_DELEGATION' }, { code: 'SERIAL_BEHIND' }] },
  });
});

test('the same zone met again below the list, asking the findings the list did not, gets them', async () => {
  const res = await app.gql(
    `query($u: ID) {
      domains(userId: $u, first: 10, orderBy: NAME) {
        nodes { name user { email } health { state } records(first: 1) { domain { name health { state findings { code } } } } }
      }
    }`,
    { u: userId },
  );
  expect(res.errors).toBeUndefined();
  const critical = res.data.domains.nodes.find((n: { name: string }) => n.name === ZONES[2]);
  expect(critical.health).toEqual({ state: 'critical' });
  expect(critical.records[0].domain).toEqual({
    name: ZONES[2],
    health: { state: 'critical', findings: [{ code: 'LAME_DELEGATION' }, { code: 'SERIAL_BEHIND' }] },
  });
});
