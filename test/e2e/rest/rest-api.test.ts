import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';
import { createUserKey } from '../../support/fixtures';

/** Every documented /api path end to end over HTTP, with the documented shapes, statuses and errors. */
let app: TestApp;
const key = { 'X-API-Key': ADMIN_KEY };

beforeAll(async () => {
  app = await startTestApp({ BODY_LIMIT: '4096' });
});
afterAll(async () => {
  await app?.close();
});

async function newUser(email: string): Promise<string> {
  const res = await app.http.post('/api/user/add').set(key).type('form').send({ email });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function newZone(userId: string, zone: string): Promise<number> {
  const res = await app.http.post('/api/domain/add').set(key).type('form').send({ user_id: userId, zone });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('users', () => {
  it('POST /api/user/add answers 201 with id as digits and created_at as the interface shows it (date, space, time with fractions)', async () => {
    const res = await app.http.post('/api/user/add').set(key).field('email', 'first@example.org');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      email: 'first@example.org',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/),
    });
  });

  it('GET /api/user/list lists users with ISO timestamps without zone', async () => {
    const res = await app.http.get('/api/user/list').set(key);
    expect(res.status).toBe(200);
    expect(res.body[0]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      email: expect.any(String),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/),
    });
  });

  it('GET /api/user/list/:id, ?id= and ?email= find one user', async () => {
    const id = await newUser('lookup@example.org');
    for (const path of [
      `/api/user/list/${id}`,
      `/api/user/list/${id}/`,
      `/api/user/list?id=${id}`,
      `/api/user/list/?email=LOOKUP@example.org`,
    ]) {
      const res = await app.http.get(path).set(key);
      expect({ path, status: res.status, id: res.body.id }).toEqual({ path, status: 200, id });
    }
  });

  it('PUT /api/user/edit/:id answers {email}; DELETE /api/user/delete/:id answers 204 with no body', async () => {
    const id = await newUser('edit@example.org');
    const edited = await app.http.put(`/api/user/edit/${id}`).set(key).type('form').send({ email: 'edited@example.org' });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual({ email: 'edited@example.org' });
    const deleted = await app.http.delete(`/api/user/delete/${id}`).set(key);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await app.http.get(`/api/user/list/${id}`).set(key);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: 404, status: 'error', error: 'USER_NOT_FOUND', message: 'User Not Found' });
  });

  it('refuses a duplicate e-mail with 409 Duplicate Email', async () => {
    await newUser('twice@example.org');
    const res = await app.http.post('/api/user/add').set(key).type('form').send({ email: 'TWICE@example.org' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'DUPLICATE_EMAIL', message: 'Duplicate Email' });
  });
});

describe('domains', () => {
  let userId: string;
  let zoneId: number;
  beforeAll(async () => {
    userId = await newUser('zones@example.org');
    zoneId = await newZone(userId, 'Rest.Example.');
  });

  it('POST /api/domain/add answers {id, zone}', async () => {
    const res = await app.http
      .post('/api/domain/add')
      .set(key)
      .send({ user_id: Number(userId), zone: 'json-body.test' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), zone: 'json-body.test' });
  });

  it('GET /api/domain/list/zone/:zoneid (and ?id=, ?name=) shows SOA, two NS and the www CNAME', async () => {
    for (const path of [
      `/api/domain/list/zone/${zoneId}`,
      `/api/domain/list/zone/?id=${zoneId}`,
      '/api/domain/list/zone?name=rest.example',
      '/api/domain/list/zone/rest.example/',
    ]) {
      const res = await app.http.get(path).set(key);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.body).toEqual({
        zone_id: zoneId,
        zone: 'rest.example',
        user: { id: Number(userId), email: 'zones@example.org' },
        records: [
          {
            id: expect.any(Number),
            owner: '@',
            rdata: expect.stringMatching(/^ns1\.example\.net\. hostmaster\.example\.net\. \d+ 3600 1800 604800 86400$/),
            type: 'SOA',
            ttl: '3600',
          },
          { id: expect.any(Number), owner: '@', rdata: 'ns1.example.net.', type: 'NS', ttl: '3600' },
          { id: expect.any(Number), owner: '@', rdata: 'ns2.example.net.', type: 'NS', ttl: '3600' },
          { id: expect.any(Number), owner: 'www', rdata: 'rest.example.', type: 'CNAME', ttl: '3600' },
        ],
      });
    }
  });

  it('GET /api/domain/list and /api/domain/list/user/:userid list domains', async () => {
    const all = await app.http.get('/api/domain/list/').set(key);
    expect(all.status).toBe(200);
    expect(all.body.map((d: { zone: string }) => d.zone)).toEqual(expect.arrayContaining(['rest.example', 'json-body.test']));
    const mine = await app.http.get(`/api/domain/list/user/${userId}`).set(key);
    expect(mine.status).toBe(200);
    expect(mine.body.every((d: { user: { id: number } }) => d.user.id === Number(userId))).toBe(true);
    const empty = await app.http.get(`/api/domain/list/user/${await newUser('nozones@example.org')}`).set(key);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
    expect((await app.http.get('/api/domain/list/user/999999').set(key)).status).toBe(404);
  });

  it('DELETE /api/domain/delete takes the zone from a form, JSON or the query string', async () => {
    await newZone(userId, 'del-form.test');
    await newZone(userId, 'del-json.test');
    await newZone(userId, 'del-query.test');
    expect((await app.http.delete('/api/domain/delete/').set(key).type('form').send({ zone: 'del-form.test' })).status).toBe(204);
    expect((await app.http.delete('/api/domain/delete').set(key).send({ zone: 'del-json.test' })).status).toBe(204);
    expect((await app.http.delete('/api/domain/delete?zone=del-query.test').set(key)).status).toBe(204);
    const missing = await app.http.delete('/api/domain/delete').set(key).send({ zone: 'del-form.test' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'ZONE_NOT_FOUND', message: 'Zone Not Found' });
  });

  it('refuses a duplicate zone with 409 and a bad name with 422', async () => {
    const dup = await app.http.post('/api/domain/add').set(key).type('form').send({ user_id: userId, zone: 'REST.example.' });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe('Duplicate Zone');
    const bad = await app.http.post('/api/domain/add').set(key).type('form').send({ user_id: userId, zone: '-bad-.exa mple' });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ error: 'INVALID_ZONE_NAME', message: 'Bad Domain Name' });
    expect(bad.body.details[0].field).toBe('zone');
  });

  it('refuses a user_id that is not a whole number, naming the field', async () => {
    const res = await app.http.post('/api/domain/add').set(key).type('form').send({ user_id: '7x', zone: 'x.test' });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([expect.objectContaining({ field: 'user_id', code: 'NOT_A_WHOLE_NUMBER' })]);
  });
});

describe('records', () => {
  let recordId: number;
  beforeAll(async () => {
    await newZone(await newUser('records@example.org'), 'records.test');
  });

  const add = (fields: Record<string, string | number>) =>
    app.http
      .post('/api/record/add')
      .set(key)
      .type('form')
      .send({ zone: 'records.test', ttl: '3600', ...fields });

  it('POST /api/record/add answers 201 with the record, ttl as a numeric string', async () => {
    const res = await add({ owner: 'mail', rtype: 'mx', rdata: '10 Mail.Records.Test.' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      owner: 'mail',
      rdata: '10 mail.records.test.',
      zone: 'records.test',
      type: 'MX',
      ttl: '3600',
    });
    recordId = res.body.id;
  });

  it('POST /api/record/add takes DSYNC (RFC 9859) by its name, and refuses TYPE66 data that is not DSYNC', async () => {
    const res = await add({ owner: '_dsync', rtype: 'dsync', rdata: 'cds notify 5359 ds-scanner.example.net.' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ owner: '_dsync', type: 'DSYNC', rdata: 'CDS 1 5359 ds-scanner.example.net.' });
    const generic = await add({
      owner: 'x._dsync',
      rtype: 'TYPE66',
      rdata: '\\# 29 003B0114EF0A64732D7363616E6E6572076578616D706C65036E657400',
    });
    expect(generic.status).toBe(201);
    expect(generic.body).toMatchObject({ type: 'DSYNC', rdata: 'CDS 1 5359 ds-scanner.example.net.' });
    const stray = await add({ owner: 'y._dsync', rtype: 'TYPE66', rdata: '\\# 7 003B0114EF0000' });
    expect(stray.status).toBe(422);
    expect(JSON.stringify(stray.body)).toContain('DSYNC_WIRE_FORMAT');
  });

  it('GET /api/record/list and /api/record/list/:id', async () => {
    const list = await app.http.get('/api/record/list').set(key);
    expect(list.status).toBe(200);
    expect(list.body.find((r: { id: number }) => r.id === recordId)).toMatchObject({ zone: 'records.test', type: 'MX' });
    const one = await app.http.get(`/api/record/list/${recordId}/`).set(key);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(recordId);
    expect((await app.http.get('/api/record/list/99999999').set(key)).body).toMatchObject({
      code: 404,
      error: 'RECORD_NOT_FOUND',
      message: 'Record Not Found',
    });
  });

  it('PUT /api/record/edit/:id answers the edited record', async () => {
    const res = await app.http
      .put(`/api/record/edit/${recordId}`)
      .set(key)
      .type('form')
      .send({ zone: 'records.test', owner: 'mail', rtype: 'MX', rdata: '20 mail.records.test.', ttl: '3600' });
    expect(res.status).toBe(200);
    expect(res.body.rdata).toBe('20 mail.records.test.');
  });

  it.each([
    ['identical record', { owner: 'mail', rtype: 'MX', rdata: '20 mail' }, 409, 'DUPLICATE_RECORD', 'The record already exists'],
    ['invalid RDATA', { owner: 'a', rtype: 'A', rdata: '300.1.1.1' }, 422, 'INVALID_RDATA', 'Bad A RDATA'],
    ['TTL not allowed', { owner: 'a', rtype: 'A', rdata: '192.0.2.1', ttl: '5' }, 422, 'INVALID_TTL', undefined],
    ['unknown type', { owner: 'a', rtype: 'BOGUS', rdata: 'x' }, 422, 'INVALID_TYPE', undefined],
    // RESTKnot's words, both directions (docs/decisions.md §3): the message names the type already there
    [
      'CNAME beside data',
      { owner: 'mail', rtype: 'CNAME', rdata: 'x.example.' },
      409,
      'CNAME_CONFLICT',
      'An MX record already exist with that owner',
    ],
    [
      'data beside a CNAME',
      { owner: 'www', rtype: 'A', rdata: '192.0.2.1' },
      409,
      'CNAME_CONFLICT',
      'A CNAME record already exist with that owner',
    ],
    ['unknown zone', { zone: 'nope.test', owner: 'a', rtype: 'A', rdata: '192.0.2.1' }, 404, 'ZONE_NOT_FOUND', 'Zone Not Found'],
    ['missing rdata', { owner: 'a', rtype: 'A' }, 422, 'INVALID_INPUT', 'rdata is required'],
  ])('refuses %s', async (_label, fields, status, error, message) => {
    const res = await add(fields);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ code: status, status: 'error', error });
    if (message) expect(res.body.message).toBe(message);
    expect(res.body.details.length).toBeGreaterThanOrEqual(1);
  });

  it('refuses an SOA edit without a higher serial (409) and an SOA delete (403)', async () => {
    const zone = (await app.http.get('/api/domain/list/zone?name=records.test').set(key)).body;
    const soa = zone.records.find((r: { type: string }) => r.type === 'SOA');
    const edit = await app.http
      .put(`/api/record/edit/${soa.id}`)
      .set(key)
      .type('form')
      .send({ zone: 'records.test', owner: '@', rtype: 'SOA', rdata: soa.rdata.replace(/ 3600 1800/, ' 7200 1800'), ttl: '3600' });
    expect(edit.status).toBe(409);
    expect(edit.body).toMatchObject({ error: 'SOA_SERIAL_NOT_INCREASED', message: 'SOA serial must be increased' });
    const del = await app.http.delete(`/api/record/delete/${soa.id}`).set(key);
    expect(del.status).toBe(403);
    expect(del.body).toMatchObject({ error: 'SOA_UNDELETABLE', message: "Can't Delete SOA Record" });
  });

  it('DELETE /api/record/delete/:id answers 204, then 404', async () => {
    expect((await app.http.delete(`/api/record/delete/${recordId}`).set(key)).status).toBe(204);
    expect((await app.http.delete(`/api/record/delete/${recordId}`).set(key)).status).toBe(404);
  });
});

describe('keys and tenancy', () => {
  it.each(['X-API-Key', 'X-API-key', 'x-api-key', 'X-Api-KEY'])('accepts the key header spelled %s', async (header) => {
    expect((await app.http.get('/api/user/list').set(header, ADMIN_KEY)).status).toBe(200);
  });

  it.each([
    ['GET', '/api/record/list'],
    ['GET', '/api/record/list/1'],
    ['POST', '/api/record/add'],
    ['PUT', '/api/record/edit/1'],
    ['DELETE', '/api/record/delete/1'],
    ['GET', '/api/user/list'],
    ['GET', '/api/user/list/1'],
    ['POST', '/api/user/add'],
    ['PUT', '/api/user/edit/1'],
    ['DELETE', '/api/user/delete/1'],
    ['GET', '/api/domain/list'],
    ['GET', '/api/domain/list/zone/1'],
    ['GET', '/api/domain/list/user/1'],
    ['POST', '/api/domain/add'],
    ['DELETE', '/api/domain/delete/'],
  ])('%s %s needs a key: 401 Access denied without one or with a wrong one', async (method, path) => {
    for (const headers of [{}, { 'X-API-Key': 'wrong-key' }]) {
      const req = app.http[method.toLowerCase() as 'get'].call(app.http, path).set(headers);
      const res =
        method === 'GET'
          ? await req
          : await req
              .type('form')
              .send(
                { zone: 'a.test', owner: 'a', rtype: 'A', rdata: '192.0.2.1', ttl: '3600', email: 'x@example.org', user_id: '1' }
                  .constructor === Object && path.includes('user/add')
                  ? { email: 'x@example.org' }
                  : path.includes('domain/add')
                    ? { user_id: '1', zone: 'a.test' }
                    : path.includes('domain/delete')
                      ? { zone: 'a.test' }
                      : path.includes('user/edit')
                        ? { email: 'x@example.org' }
                        : path.includes('record/')
                          ? { zone: 'a.test', owner: 'a', rtype: 'A', rdata: '192.0.2.1', ttl: '3600' }
                          : {},
              );
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 401,
        body: { code: 401, status: 'error', error: 'UNAUTHENTICATED', message: 'Access denied', details: [] },
      });
    }
  });

  it("a user key gets 404 for another user's zone and record, and changes nothing", async () => {
    const alice = await newUser('alice.rest@example.org');
    const bob = await newUser('bob.rest@example.org');
    const bobZone = await newZone(bob, 'bob-rest.test');
    await newZone(alice, 'alice-rest.test');
    const aliceKey = { 'X-API-Key': await createUserKey(app, alice) };
    const bobSoa = (await app.http.get(`/api/domain/list/zone/${bobZone}`).set(key)).body.records[0];
    expect((await app.http.get(`/api/domain/list/zone/${bobZone}`).set(aliceKey)).status).toBe(404);
    expect((await app.http.get(`/api/record/list/${bobSoa.id}`).set(aliceKey)).status).toBe(404);
    expect(
      (
        await app.http
          .post('/api/record/add')
          .set(aliceKey)
          .type('form')
          .send({ zone: 'bob-rest.test', owner: 'x', rtype: 'A', rdata: '192.0.2.1', ttl: '3600' })
      ).status,
    ).toBe(404);
    expect((await app.http.delete('/api/domain/delete').set(aliceKey).type('form').send({ zone: 'bob-rest.test' })).status).toBe(404);
    const list = await app.http.get('/api/domain/list').set(aliceKey);
    expect(list.body.map((d: { zone: string }) => d.zone)).toEqual(['alice-rest.test']);
    const records = await app.http.get('/api/record/list').set(aliceKey);
    expect(records.body.length).toBeGreaterThanOrEqual(4);
    expect(new Set(records.body.map((r: { zone: string }) => r.zone))).toEqual(new Set(['alice-rest.test']));
    expect((await app.http.get(`/api/domain/list/zone/${bobZone}`).set(key)).body.records).toHaveLength(4);
  });
});

describe('views', () => {
  it("GET, PUT and DELETE /api/domain/views/…: a zone's views with their serials and overlays, the view's zone, an overlay set and cleared; the operator's only", async () => {
    const userId = await newUser('views@example.org');
    const zone = 'rest-views.example';
    await newZone(userId, zone);
    for (const [owner, rdata] of [
      ['api', '203.0.113.7'],
      ['old', '203.0.113.8'],
    ])
      expect((await app.http.post('/api/record/add').set(key).send({ zone, owner, rtype: 'A', rdata, ttl: 3600 })).status).toBe(201);
    const tsig = await app.gql(`mutation { createTsigKey(input: { name: "rest-inside" }) { tsigKey { id } } }`);
    expect(tsig.errors).toBeUndefined();
    const made = await app.gql(
      `mutation($k: ID!) { createView(input: { name: "inside", tsigKeyId: $k, networks: ["10.0.0.0/8"] }) { id } }`,
      {
        k: tsig.data.createTsigKey.tsigKey.id,
      },
    );
    expect(made.errors).toBeUndefined();
    const base = (await app.gql(`query($z: String!) { domain(name: $z) { serial } }`, { z: zone })).data.domain.serial;

    // before any overlay the view serves the base zone, serial and all
    const before = await app.http.get(`/api/domain/views/${zone}`).set(key);
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      zone,
      views: [
        {
          id: Number(made.data.createView.id),
          name: 'inside',
          networks: ['10.0.0.0/8'],
          precedence: 0,
          tsig_key_name: 'rest-inside',
          notify: [],
          serial: base,
          overlays: [],
        },
      ],
    });

    const replace = await app.http
      .put(`/api/domain/views/${zone}/inside/api/A`)
      .set(key)
      .send({ action: 'replace', records: [{ rdata: '10.1.2.3', ttl: 300 }] });
    expect(replace.status).toBe(200);
    expect(replace.body).toEqual({ zone, view: 'inside', owner: 'api', type: 'A', action: 'replace', serial: base + 1 });
    const hide = await app.http.put(`/api/domain/views/${zone}/inside/old/A`).set(key).send({ action: 'HIDE' });
    expect(hide.status).toBe(200);
    expect(hide.body.serial).toBe(base + 2);

    const views = await app.http.get(`/api/domain/views/${zone}`).set(key);
    expect(views.body.views[0].serial).toBe(base + 2);
    expect(views.body.views[0].overlays).toEqual([
      { owner: 'api', type: 'A', action: 'replace', records: [{ ttl: 300, rdata: '10.1.2.3' }] },
      { owner: 'old', type: 'A', action: 'hide', records: [] },
    ]);
    const inView = await app.http.get(`/api/domain/views/${zone}/inside`).set(key);
    expect(inView.status).toBe(200);
    expect(inView.body.serial).toBe(base + 2);
    const marked = (owner: string) =>
      inView.body.records.filter((r: any) => r.owner === owner && r.type === 'A').map((r: any) => [r.rdata, r.overlay]);
    expect(marked('api')).toEqual([['10.1.2.3', 'REPLACE']]);
    expect(marked('old')).toEqual([['203.0.113.8', 'HIDE']]);

    // the zone's rules hold in the view; a bad action is named
    const cname = await app.http
      .put(`/api/domain/views/${zone}/inside/api/CNAME`)
      .set(key)
      .send({ action: 'replace', records: [{ rdata: 'elsewhere.example.' }] });
    expect([cname.status, cname.body.error]).toEqual([409, 'CNAME_CONFLICT']);
    const sideways = await app.http.put(`/api/domain/views/${zone}/inside/api/A`).set(key).send({ action: 'sideways' });
    expect(sideways.status).toBe(422);
    expect(JSON.stringify(sideways.body)).toMatch(/"field":"action","code":"INVALID_CHOICE"/);

    const clear = await app.http.delete(`/api/domain/views/${zone}/inside/api/A`).set(key);
    expect(clear.status).toBe(200);
    expect(clear.body).toEqual({ zone, view: 'inside', owner: 'api', type: 'A', action: 'clear', serial: base + 3 });
    const after = await app.http.get(`/api/domain/views/${zone}/inside`).set(key);
    expect(after.body.records.filter((r: any) => r.owner === 'api').map((r: any) => [r.rdata, r.overlay])).toEqual([
      ['203.0.113.7', 'BASE'],
    ]);

    // unknown names are 404; the zone's own user is refused: views are the operator's
    expect((await app.http.get(`/api/domain/views/${zone}/outside`).set(key)).body.error).toBe('VIEW_NOT_FOUND');
    expect((await app.http.get('/api/domain/views/missing.example').set(key)).status).toBe(404);
    const userKey = await createUserKey(app, userId);
    const refused = await app.http.get(`/api/domain/views/${zone}`).set('X-API-Key', userKey);
    expect([refused.status, refused.body.error]).toEqual([403, 'FORBIDDEN']);
  });
});
