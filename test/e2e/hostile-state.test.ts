import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUserKey, errorCode } from '../support/fixtures';

/** State a hostile client can reach (names at the limit, a deleted user's key). */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app.close());

const userId = async (email: string) => {
  const res = await app.gql(`mutation($e: String!) { createUser(input: {email: $e}) { id } }`, { e: email });
  return res.data.createUser.id as string;
};

test('a zone name whose default www record would be too long is refused, naming the zone, and nothing is stored', async () => {
  const owner = await userId('limit@example.org');
  // a valid zone name of 252 octets in wire form (4 × (61 + 1) + (2 + 1) + 1); www. adds 4 → 256 > 255
  const label = 'a'.repeat(61);
  const longZone = `${label}.${label}.${label}.${label}.ex`;
  const refused = await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, {
    u: owner,
    z: longZone,
  });
  expect(errorCode(refused)).toBe('INVALID_ZONE_NAME');
  expect(refused.errors![0].extensions.details[0]).toMatchObject({ field: 'zone', code: 'NAME_TOO_LONG' });
  expect(refused.errors![0].extensions.details[0].message).toMatch(/default www record/);
  const listed = await app.gql(`query($z: String!) { domains(name: $z) { nodes { id } } }`, { z: longZone });
  expect(listed.data.domains.nodes).toEqual([]);

  // one octet shorter fits exactly (www.<zone> is 255 octets), and the zone exports
  const fits = `${label}.${label}.${label}.${label.slice(0, 60)}.ex`;
  const created = await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, {
    u: owner,
    z: fits,
  });
  expect(created.errors).toBeUndefined();
  const exported = await app.gql(`query($z: String!) { exportZone(zone: $z) }`, { z: fits });
  expect(exported.errors).toBeUndefined();
  expect(exported.data.exportZone).toMatch(/^www 3600 IN CNAME /m);
});

test("a deleted user's key stops working at once, even when it was just used (key cache)", async () => {
  const id = await userId('gone@example.org');
  const key = await createUserKey(app, id);
  const before = await app.gql('{ domains { nodes { id } } }', undefined, key);
  expect(before.status).toBe(200);
  const deleted = await app.gql(`mutation($id: ID!) { deleteUser(id: $id) }`, { id }, ADMIN_KEY);
  expect(deleted.errors).toBeUndefined();
  const after = await app.gql('{ domains { nodes { id } } }', undefined, key);
  expect(after.status).toBe(401);
  expect(errorCode(after)).toBe('UNAUTHENTICATED');
});

test('reads racing zone deletions see one consistent state (Record.domain is never missing)', async () => {
  const owner = await userId('racer@example.org');
  const zones = Array.from({ length: 30 }, (_, i) => `race${i}.example`);
  for (const zone of zones) {
    const created = await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, {
      u: owner,
      z: zone,
    });
    expect(created.errors).toBeUndefined();
  }
  const reads: Promise<{ status: number; errors?: any[] }>[] = [];
  const deletes: Promise<unknown>[] = [];
  for (let i = 0; i < zones.length; i++) {
    for (let r = 0; r < 6; r++)
      reads.push(
        app.gql(
          '{ records(first: 1000) { nodes { id domain { id name } } } users { nodes { domains(first: 50) { records(first: 10) { domain { id } } } } } }',
        ),
      );
    deletes.push(app.gql(`mutation($z: String!) { deleteDomain(zone: $z) }`, { z: zones[i] }));
  }
  const answers = await Promise.all(reads);
  await Promise.all(deletes);
  expect(answers.filter((a) => a.status !== 200 || a.errors).map((a) => a.errors?.[0]?.message)).toEqual([]);
});
