import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';

/**
 * Zone names (docs/least-privilege.md): a user cannot create a public suffix, nor a zone inside or around another user's zone;
 * the admin key can. Through the real server on its own PostgreSQL database.
 */
let app: TestApp;
let alice: { id: string; key: string };
let bob: { id: string; key: string };

const CREATE = `mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id name } }`;

async function newUser(email: string) {
  const id = await createUser(app, email);
  return { id, key: await createUserKey(app, id) };
}

beforeAll(async () => {
  app = await startTestApp();
  alice = await newUser('alice@example.org');
  bob = await newUser('bob@example.org');
});
afterAll(async () => app.close());

const create = (user: { id: string; key: string }, zone: string) => app.gql(CREATE, { u: user.id, z: zone }, user.key);

describe('public suffixes', () => {
  it.each(['com', 'co.uk', 'github.io', 'COM.', 'xn--fiqs8s', 'foo.ck'])('a user cannot create %s (GraphQL)', async (zone) => {
    const res = await create(alice, zone);
    expect(errorCode(res)).toBe('ZONE_IS_PUBLIC_SUFFIX');
    expect(res.errors![0].extensions.details[0]).toMatchObject({ field: 'zone', code: 'ZONE_IS_PUBLIC_SUFFIX' });
  });

  it('a user cannot create one through REST either: 422 naming the field', async () => {
    const res = await app.http.post('/api/domain/add').set('X-API-Key', alice.key).send({ user_id: alice.id, zone: 'co.uk' });
    expect(res.status).toBe(422);
    expect(res.body.details[0]).toMatchObject({ field: 'zone', code: 'ZONE_IS_PUBLIC_SUFFIX' });
    const list = await app.http.get('/api/domain/list').set('X-API-Key', alice.key);
    expect(JSON.stringify(list.body)).not.toContain('co.uk');
  });

  it('the admin key can create one for a user', async () => {
    const res = await app.gql(CREATE, { u: bob.id, z: 'github.io' });
    expect(res.errors).toBeUndefined();
    expect(res.data.createDomain.name).toBe('github.io');
  });

  it.each(['names.test', 'names.example', 'names.invalid', 'names.localhost', 'www.ck', 'example.co.uk', 'user.s3.amazonaws.com'])(
    'a user can create %s (under a reserved name, or registrable)',
    async (zone) => {
      const res = await create(alice, zone);
      expect(res.errors).toBeUndefined();
      expect(res.data.createDomain.name).toBe(zone);
    },
  );
});

describe('zones nested across users', () => {
  beforeAll(async () => {
    await createZone(app, alice.id, 'nest.example.com', alice.key);
    await createZone(app, alice.id, 'deep.inner.example.net', alice.key);
  });

  it.each([
    ['inside another user’s zone', 'a.nest.example.com'],
    ['deep inside another user’s zone', 'x.y.nest.example.com'],
    ['around another user’s zone', 'example.com'],
    ['around another user’s zone, two levels up', 'example.net'],
  ])('a user cannot create a zone %s (%s)', async (_what, zone) => {
    const res = await create(bob, zone);
    expect(errorCode(res)).toBe('ZONE_OWNED_BY_ANOTHER_USER');
    const detail = res.errors![0].extensions.details[0];
    expect(detail).toMatchObject({ field: 'zone', code: 'ZONE_OWNED_BY_ANOTHER_USER' });
    // whose zone, and which, stays unsaid
    const answer = JSON.stringify(res.errors).split(zone).join('<asked>');
    expect(answer).not.toMatch(/alice|nest\.example\.com|deep\.inner|user_?id/i);
  });

  it('REST answers 409 with the same code', async () => {
    const res = await app.http.post('/api/domain/add').set('X-API-Key', bob.key).send({ user_id: bob.id, zone: 'sub.nest.example.com' });
    expect(res.status).toBe(409);
    expect(res.body.details[0]).toMatchObject({ field: 'zone', code: 'ZONE_OWNED_BY_ANOTHER_USER' });
  });

  it('names that merely end alike are not nested (nest.example.com vs unnest.example.com)', async () => {
    const res = await create(bob, 'unnest.example.com');
    expect(res.errors).toBeUndefined();
  });

  it('the same user may nest its own zones, both ways', async () => {
    expect((await create(alice, 'child.nest.example.com')).errors).toBeUndefined();
    expect((await create(alice, 'inner.example.net')).errors).toBeUndefined();
  });

  it('the admin key may create nested zones across users', async () => {
    expect((await app.gql(CREATE, { u: bob.id, z: 'admin.nest.example.com' })).errors).toBeUndefined();
  });

  it('of two users creating a parent and a child at the same moment, at most one succeeds', async () => {
    for (let round = 0; round < 8; round++) {
      const parent = `race${round}.example.org`;
      const [a, b] = await Promise.all([create(alice, parent), create(bob, `child.${parent}`)]);
      const succeeded = [a, b].filter((res) => !res.errors);
      expect(succeeded.length).toBe(1);
      for (const res of [a, b]) if (res.errors) expect(errorCode(res)).toBe('ZONE_OWNED_BY_ANOTHER_USER');
    }
  });

  it('nor two users creating zones deeper apart at once', async () => {
    const runs = [];
    for (let round = 0; round < 8; round++) {
      const top = `spread${round}.example.org`;
      runs.push(Promise.all([create(alice, `a.b.${top}`), create(bob, top), create(alice, `c.${top}`)]));
    }
    for (const results of await Promise.all(runs)) {
      const owners = results.map((res, i) => (res.errors ? undefined : i === 1 ? 'bob' : 'alice')).filter(Boolean);
      expect(owners.length).toBeGreaterThan(0);
      expect(new Set(owners).size).toBe(1);
    }
  });
});
