import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';

/** Bodies in every encoding, and bad input of every kind: a clear 4xx, and nothing changed. */
let app: TestApp;
const key = { 'X-API-Key': ADMIN_KEY };
let userId: string;

beforeAll(async () => {
  app = await startTestApp({ BODY_LIMIT: '4096' });
  userId = (await app.http.post('/api/user/add').set(key).type('form').send({ email: 'input@example.org' })).body.id;
  expect((await app.http.post('/api/domain/add').set(key).type('form').send({ user_id: userId, zone: 'input.test' })).status).toBe(201);
});
afterAll(async () => {
  await app?.close();
});

const recordCount = async () => (await app.http.get('/api/record/list').set(key)).body.length;

describe('body encodings', () => {
  it('accepts x-www-form-urlencoded, multipart/form-data and JSON, with numbers as text or numbers', async () => {
    const form = await app.http
      .post('/api/record/add')
      .set(key)
      .type('form')
      .send({ zone: 'input.test', owner: 'form', rtype: 'A', rdata: '192.0.2.1', ttl: '3600' });
    const multipart = await app.http
      .post('/api/record/add')
      .set(key)
      .field('zone', 'input.test')
      .field('owner', 'multipart')
      .field('rtype', 'A')
      .field('rdata', '192.0.2.2')
      .field('ttl', '3600');
    const json = await app.http
      .post('/api/record/add')
      .set(key)
      .send({ zone: 'input.test', owner: 'json', rtype: 'A', rdata: '192.0.2.3', ttl: 3600 });
    const jsonText = await app.http
      .post('/api/record/add')
      .set(key)
      .send({ zone: 'input.test', owner: 'jsontext', rtype: 'A', rdata: '192.0.2.4', ttl: '3600' });
    expect([form.status, multipart.status, json.status, jsonText.status]).toEqual([201, 201, 201, 201]);
    expect(multipart.body).toMatchObject({ owner: 'multipart', ttl: '3600' });
  });
});

describe('bad input changes nothing', () => {
  it.each([
    ['malformed JSON', (r: any) => r.set('content-type', 'application/json').send('{"zone": "input.test",'), 400, 'BAD_REQUEST'],
    ['a JSON array', (r: any) => r.send([1, 2]), 400, 'BAD_REQUEST'],
    [
      'a body over the size limit',
      (r: any) => r.send({ zone: 'input.test', owner: 'big', rtype: 'TXT', rdata: 'x'.repeat(10_000), ttl: 3600 }),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    [
      'a multipart body over the size limit',
      (r: any) =>
        r.field('zone', 'input.test').field('owner', 'big').field('rtype', 'TXT').field('rdata', 'x'.repeat(10_000)).field('ttl', '3600'),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    [
      'a broken multipart body',
      (r: any) =>
        r
          .set('content-type', 'multipart/form-data; boundary=XYZ')
          .send('--XYZ\r\nContent-Disposition: form-data; name="zone"\r\n\r\ninput.test'),
      400,
      'BAD_REQUEST',
    ],
    [
      'an unknown field',
      (r: any) => r.send({ zone: 'input.test', owner: 'u', rtype: 'A', rdata: '192.0.2.9', ttl: 3600, colour: 'blue' }),
      422,
      'INVALID_INPUT',
    ],
    [
      'a number where text is expected',
      (r: any) => r.send({ zone: 42, owner: 'u', rtype: 'A', rdata: '192.0.2.9', ttl: 3600 }),
      422,
      'INVALID_INPUT',
    ],
    [
      'an object where a number is expected',
      (r: any) => r.send({ zone: 'input.test', owner: 'u', rtype: 'A', rdata: '192.0.2.9', ttl: { n: 1 } }),
      422,
      'INVALID_INPUT',
    ],
    [
      'a fractional ttl',
      (r: any) => r.type('form').send({ zone: 'input.test', owner: 'u', rtype: 'A', rdata: '192.0.2.9', ttl: '3600.5' }),
      422,
      'INVALID_INPUT',
    ],
    [
      'a negative ttl',
      (r: any) => r.send({ zone: 'input.test', owner: 'u', rtype: 'A', rdata: '192.0.2.9', ttl: -1 }),
      422,
      'INVALID_INPUT',
    ],
    [
      'emoji in the owner',
      (r: any) => r.send({ zone: 'input.test', owner: '\u{1F600}\u0000', rtype: 'A', rdata: '192.0.2.9', ttl: 3600 }),
      422,
      'INVALID_OWNER',
    ],
    [
      'a right-to-left mark in RDATA',
      (r: any) => r.send({ zone: 'input.test', owner: 'u', rtype: 'A', rdata: '192.0.2.9\u200f', ttl: 3600 }),
      422,
      'INVALID_RDATA',
    ],
    [
      'a NUL in the type',
      (r: any) => r.send({ zone: 'input.test', owner: 'u', rtype: 'A\u0000', rdata: '192.0.2.9', ttl: 3600 }),
      422,
      'INVALID_TYPE',
    ],
  ])('%s', async (_label, build, status, error) => {
    const before = await recordCount();
    const res = await build(app.http.post('/api/record/add').set(key));
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ code: status, status: 'error', error });
    expect(typeof res.body.message).toBe('string');
    expect(await recordCount()).toBe(before);
  });

  it('names every missing field at once', async () => {
    const res = await app.http.post('/api/record/add').set(key).type('form').send({ zone: 'input.test' });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['owner', 'rdata', 'rtype', 'ttl']);
  });

  it('maps GraphQL field names back to the REST names in details', async () => {
    const res = await app.http
      .post('/api/record/add')
      .set(key)
      .type('form')
      .send({ zone: 'input.test', owner: 'x', rtype: 'NOPE', rdata: 'x', ttl: '3600' });
    expect(res.body.details[0].field).toBe('rtype');
  });

  it('answers 405 for a documented path with another method, and 404 for an unknown path', async () => {
    const wrongMethod = await app.http.get('/api/record/add').set(key);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST');
    const unknown = await app.http.get('/api/nothing/here').set(key);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: 'error', error: 'ROUTE_NOT_FOUND' });
  });
});

describe('RESTKnot envelope', () => {
  let enveloped: TestApp;
  beforeAll(async () => {
    enveloped = await startTestApp({ REST_ENVELOPE: 'restknot' });
  });
  afterAll(async () => {
    await enveloped?.close();
  });

  it('wraps objects and arrays; errors keep their own body; 204 stays empty', async () => {
    const created = await enveloped.http.post('/api/user/add').set(key).type('form').send({ email: 'env@example.org' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      code: 201,
      count: 1,
      data: expect.objectContaining({ email: 'env@example.org' }),
      status: 'success',
      message: 'OK',
    });
    const list = await enveloped.http.get('/api/user/list').set(key);
    expect(list.body).toEqual({
      code: 200,
      count: 1,
      data: [expect.objectContaining({ email: 'env@example.org' })],
      status: 'success',
      message: 'OK',
    });
    const missing = await enveloped.http.get('/api/user/list/999').set(key);
    expect(missing.body).toMatchObject({ code: 404, status: 'error', error: 'USER_NOT_FOUND' });
    const deleted = await enveloped.http.delete(`/api/user/delete/${created.body.data.id}`).set(key);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
  });
});

test('a path segment that is not valid percent-encoding is a 400 about the request, not the body', async () => {
  const res = await app.http.get('/api/domain/list/zone/%ZZ').set(key);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ error: 'BAD_REQUEST', details: [expect.objectContaining({ field: 'path' })] });
});
