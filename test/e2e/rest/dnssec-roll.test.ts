/**
 * The DNSSEC REST routes' inputs taken exactly (docs/dnssec.md, entry points): `DELETE /api/domain/dnssec/:zone`
 * takes `force` as `true` or `false` only, and `POST /api/domain/dnssec/:zone/roll` starts a key roll by hand
 * with `role` as the GraphQL enum DnssecRollRole spells it; `POST /api/domain/dnssec/:zone` takes `nsec3_opt_out` as
 * `true` or `false` only. A value outside those is a 422 naming the field,
 * with nothing changed: a misspelt `force` must never be read as an unforced disable, nor a role guessed.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';
import { createUser, createZone } from '../../support/fixtures';

const ZONE = 'roll.zk-nowhere.test';
let app: TestApp;

const dnssec = () => app.http.get(`/api/domain/dnssec/${ZONE}`).set('X-API-Key', ADMIN_KEY);
const events = () => app.http.get(`/api/domain/dnssec/${ZONE}/events`).set('X-API-Key', ADMIN_KEY);
const roll = (body: object) => app.http.post(`/api/domain/dnssec/${ZONE}/roll`).set('X-API-Key', ADMIN_KEY).send(body);

beforeAll(async () => {
  app = await startTestApp();
  await createZone(app, await createUser(app, 'roll@example.org'), ZONE);
  const signed = await app.http.post(`/api/domain/dnssec/${ZONE}`).set('X-API-Key', ADMIN_KEY).send({});
  expect(signed.body).toMatchObject({ state: 'signed' });
}, 60_000);
afterAll(async () => app?.close());

it('rolls a ZSK by hand: the new key published beside the active one, and a rolled-by-hand key event', async () => {
  const before = (await dnssec()).body;
  const oldZsk = before.keys.find((k: any) => k.role === 'ZSK');
  expect(oldZsk).toMatchObject({ state: 'active' });

  const rolled = await roll({ role: 'ZSK' });
  expect(rolled.status).toBe(200);
  // answered as the other DNSSEC routes: the zone's DNSSEC, as GET shows it
  expect(rolled.body).toMatchObject({ zone: ZONE, state: 'signed', enabled: true });
  const fresh = rolled.body.keys.find((k: any) => k.role === 'ZSK' && k.key_tag !== oldZsk.key_tag);
  expect(fresh).toMatchObject({ state: 'published' });

  const after = (await dnssec()).body;
  expect(after.keys.filter((k: any) => k.role === 'ZSK').map((k: any) => [k.key_tag, k.state])).toEqual(
    expect.arrayContaining([
      [oldZsk.key_tag, 'active'],
      [fresh.key_tag, 'published'],
    ]),
  );
  // the new key is in the DNSKEY RRset the zone serves (pre-publication, RFC 7583 §3.2)
  expect(after.dnskeys).toContain(fresh.dnskey);

  const listed = (await events()).body;
  expect(listed[0]).toMatchObject({
    key_tag: fresh.key_tag,
    role: 'ZSK',
    from_state: null,
    to_state: 'published',
    reason: 'rolled-by-hand',
  });

  // a second ZSK roll while this one runs: 409, as GraphQL says it
  const again = await roll({ role: 'ZSK' });
  expect(again.status).toBe(409);
  expect(again.body).toMatchObject({ error: 'DNSSEC_ROLL_IN_PROGRESS', details: [expect.objectContaining({ field: 'role' })] });
}, 60_000);

it('refuses a role outside the GraphQL enum, or none, naming role, and rolls nothing', async () => {
  const keysBefore = (await dnssec()).body.keys;
  const eventsBefore = (await events()).body.length;
  for (const role of ['zsk', 'CSK', 'ZSK ', 'DS']) {
    const res = await roll({ role });
    expect({ role, status: res.status }).toEqual({ role, status: 422 });
    expect(res.body).toMatchObject({ error: 'INVALID_INPUT' });
    expect(res.body.details).toEqual([
      { field: 'role', code: 'INVALID_CHOICE', message: `role must be one of ZSK, KSK (got ${JSON.stringify(role)})` },
    ]);
  }
  const missing = await roll({});
  expect(missing.status).toBe(422);
  expect(missing.body.details).toEqual([expect.objectContaining({ field: 'role', code: 'REQUIRED' })]);
  expect((await dnssec()).body.keys).toEqual(keysBefore);
  expect((await events()).body).toHaveLength(eventsBefore);
  // an unknown zone is 404 as on the other DNSSEC routes
  const unknown = await app.http.post('/api/domain/dnssec/missing.zk-nowhere.test/roll').set('X-API-Key', ADMIN_KEY).send({ role: 'KSK' });
  expect(unknown.status).toBe(404);
  // and a bad role there says nothing of the zone but that it is not found
  const unknownBad = await app.http.post('/api/domain/dnssec/missing.zk-nowhere.test/roll').set('X-API-Key', ADMIN_KEY).send({ role: 'x' });
  expect(unknownBad.body).toMatchObject({ error: 'ZONE_NOT_FOUND' });
}, 60_000);

it('takes nsec3_opt_out as true or false only when signing: anything else is refused naming it, and nothing is signed', async () => {
  const zone = 'optout.zk-nowhere.test';
  await createZone(app, await createUser(app, 'optout@example.org'), zone);
  for (const value of ['yes', 'TRUE', '1']) {
    const res = await app.http
      .post(`/api/domain/dnssec/${zone}`)
      .set('X-API-Key', ADMIN_KEY)
      .send({ denial: 'NSEC3', nsec3_opt_out: value });
    expect({ value, status: res.status }).toEqual({ value, status: 422 });
    expect(res.body.details).toEqual([
      {
        field: 'nsec3_opt_out',
        code: 'INVALID_CHOICE',
        message: `nsec3_opt_out must be one of true, false (got ${JSON.stringify(value)})`,
      },
    ]);
  }
  const status = await app.http.get(`/api/domain/dnssec/${zone}`).set('X-API-Key', ADMIN_KEY);
  expect(status.body).toMatchObject({ enabled: false });
  const signed = await app.http
    .post(`/api/domain/dnssec/${zone}`)
    .set('X-API-Key', ADMIN_KEY)
    .send({ denial: 'NSEC3', nsec3_opt_out: 'false' });
  expect(signed.status).toBe(200);
  expect(signed.body).toMatchObject({ enabled: true, denial: 'NSEC3' });
}, 60_000);

it('takes an algorithm by any name or number the model reads, refuses another naming algorithm and its values, and signs nothing', async () => {
  const zone = 'algorithm.zk-nowhere.test';
  await createZone(app, await createUser(app, 'algorithm@example.org'), zone);
  const sign = (body: object) => app.http.post(`/api/domain/dnssec/${zone}`).set('X-API-Key', ADMIN_KEY).send(body);
  for (const algorithm of ['DSA', 'RSASHA1', '5', 'ECDSA', 'ECDSAP384SHA384']) {
    const res = await sign({ algorithm });
    expect({ algorithm, status: res.status }).toEqual({ algorithm, status: 422 });
    expect(res.body).toMatchObject({ error: 'INVALID_INPUT' });
    expect(res.body.details).toEqual([
      {
        field: 'algorithm',
        code: 'INVALID_CHOICE',
        message: `algorithm must be one of ECDSAP256SHA256, ED25519, RSASHA256 (got ${JSON.stringify(algorithm)})`,
      },
    ]);
  }
  // the other enums of the same body: named, not GraphQL's variable error
  for (const body of [{ denial: 'NSEC5' }, { key_layout: 'ksk' }]) {
    const res = await sign(body);
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([expect.objectContaining({ field: Object.keys(body)[0], code: 'INVALID_CHOICE' })]);
    expect(JSON.stringify(res.body)).not.toContain('Variable');
  }
  expect((await app.http.get(`/api/domain/dnssec/${zone}`).set('X-API-Key', ADMIN_KEY)).body).toMatchObject({ enabled: false });
  // the spellings the PowerDNS API and the CLI take: the mnemonic in any case, or the number
  const signed = await sign({ algorithm: 'ed25519' });
  expect(signed.status).toBe(200);
  expect(signed.body.keys.map((k: any) => k.algorithm)).toEqual(['ED25519', 'ED25519']);
  const rollTo = (algorithm: string) =>
    app.http.post(`/api/domain/dnssec/${zone}/algorithm-roll`).set('X-API-Key', ADMIN_KEY).send({ algorithm });
  const refused = await rollTo('ecdsa');
  expect(refused.status).toBe(422);
  expect(refused.body.details).toEqual([
    { field: 'algorithm', code: 'INVALID_CHOICE', message: 'algorithm must be one of ECDSAP256SHA256, ED25519, RSASHA256 (got "ecdsa")' },
  ]);
  const rolled = await rollTo('13');
  expect(rolled.status).toBe(200);
  expect(rolled.body.algorithm_roll).toMatchObject({ from: 'ED25519', to: 'ECDSAP256SHA256' });
}, 60_000);

it('takes force as true or false only: anything else is refused naming force, and the zone stays signed', async () => {
  for (const force of ['yes', 'TRUE', '1', 'on']) {
    const res = await app.http.delete(`/api/domain/dnssec/${ZONE}`).query({ force }).set('X-API-Key', ADMIN_KEY);
    expect({ force, status: res.status }).toEqual({ force, status: 422 });
    expect(res.body).toMatchObject({ error: 'INVALID_INPUT' });
    expect(res.body.details).toEqual([
      { field: 'force', code: 'INVALID_CHOICE', message: `force must be one of true, false (got ${JSON.stringify(force)})` },
    ]);
  }
  // repeated, it is a list, not a value
  const twice = await app.http.delete(`/api/domain/dnssec/${ZONE}?force=true&force=true`).set('X-API-Key', ADMIN_KEY);
  expect(twice.status).toBe(422);
  expect(twice.body.details).toEqual([expect.objectContaining({ field: 'force' })]);
  expect((await dnssec()).body).toMatchObject({ state: 'signed', enabled: true });
  const unknown = await app.http.delete('/api/domain/dnssec/missing.zk-nowhere.test').query({ force: 'yes' }).set('X-API-Key', ADMIN_KEY);
  expect(unknown.body).toMatchObject({ error: 'ZONE_NOT_FOUND' });

  // false: unforced (the zone waits for its parent's DS to go, RFC 8078; said published, else there would be
  // nothing to wait for); true: unsigned now
  expect((await app.http.post(`/api/domain/dnssec/${ZONE}/ds-published`).set('X-API-Key', ADMIN_KEY)).status).toBe(200);
  const unforced = await app.http.delete(`/api/domain/dnssec/${ZONE}`).query({ force: 'false' }).set('X-API-Key', ADMIN_KEY);
  expect(unforced.status).toBe(200);
  expect(unforced.body).toMatchObject({ state: 'disabling', parent_ds: { waiting_for: 'DS_REMOVAL' } });
  const forced = await app.http.delete(`/api/domain/dnssec/${ZONE}`).query({ force: 'true' }).set('X-API-Key', ADMIN_KEY);
  expect(forced.status).toBe(200);
  expect(forced.body).toMatchObject({ state: 'unsigned', enabled: false });
}, 60_000);
