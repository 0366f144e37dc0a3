import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';

/** Authentication before anything else; the whole request before acting. */
let app: TestApp;
const H = { 'X-API-Key': ADMIN_KEY };
let port: number;
beforeAll(async () => {
  app = await startTestApp();
  port = Number(new URL(app.baseUrl).port);
});
afterAll(async () => app.close());

test.each([
  ['GET', '/api/record/list/not-a-number'],
  ['PUT', '/api/record/edit/not-a-number'],
  ['DELETE', '/api/record/delete/not-a-number'],
  ['GET', '/api/user/list/not-a-number'],
  ['PUT', '/api/user/edit/x'],
  ['DELETE', '/api/user/delete/x'],
  ['GET', '/api/domain/list/user/x'],
  ['POST', '/api/record/add'],
])('%s %s without a key, or with a wrong one, is 401 before its inputs are looked at', async (method, path) => {
  for (const key of [undefined, 'wrong-key-0123456789abcdef']) {
    const req = (app.http as any)[method.toLowerCase()](path);
    if (key) req.set('X-API-Key', key);
    const res = await req;
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('UNAUTHENTICATED');
  }
});

test('broken JSON to /graphql without a key is 401, with a key 400', async () => {
  const anonymous = await app.http.post('/graphql').set('content-type', 'application/json').send('{"query": ');
  expect(anonymous.status).toBe(401);
  expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  const keyed = await app.http.post('/graphql').set(H).set('content-type', 'application/json').send('{"query": ');
  expect(keyed.status).toBe(400);
});

/**
 * Resolves when the server has taken the request for `path` and either started reading its body (a listener for
 * its data) or answered it without reading: the moment a server that acted on the headers alone would have acted.
 */
function whenServerReadsBody(path: string): Promise<void> {
  const server = app.service.httpServer!;
  return new Promise((resolve) => {
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url !== path) return;
      server.off('request', onRequest);
      if (req.listenerCount('data') > 0 || req.listenerCount('readable') > 0) return resolve();
      const onListener = (event: string | symbol) => {
        if (event !== 'data' && event !== 'readable') return;
        req.off('newListener', onListener);
        resolve();
      };
      req.on('newListener', onListener);
      res.once('finish', () => resolve());
    };
    // before express's own listener, which rewrites req.url as it routes
    server.prependListener('request', onRequest);
  });
}

/** a raw request whose chunked body is malformed, sent once the server reads the body after the headers */
function malformedChunked(path: string): Promise<string> {
  const reading = whenServerReadsBody(path);
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`DELETE ${path} HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${ADMIN_KEY}\r\nTransfer-Encoding: chunked\r\n\r\n`);
      void reading.then(() => socket.write('-1\r\n\r\n'));
    });
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
}

test('a DELETE whose chunked body is malformed deletes nothing', async () => {
  const user = await app.http.post('/api/user/add').set(H).send({ email: 'chunked@example.org' });
  await app.http.post('/api/domain/add').set(H).send({ user_id: user.body.id, zone: 'chunked.example' });
  const record = await app.http
    .post('/api/record/add')
    .set(H)
    .send({ zone: 'chunked.example', owner: 'keep', rtype: 'A', rdata: '192.0.2.7', ttl: 3600 });
  expect(record.status).toBe(201);

  const answer = await malformedChunked(`/api/record/delete/${record.body.id}`);
  expect(answer).not.toMatch(/^HTTP\/1\.1 204/);
  expect((await app.http.get(`/api/record/list/${record.body.id}`).set(H)).status).toBe(200);

  await malformedChunked(`/api/user/delete/${user.body.id}`);
  expect((await app.http.get(`/api/user/list/${user.body.id}`).set(H)).status).toBe(200);
});

test('BODY_LIMIT bounds a whole multipart body, not each field: many fields under the limit that add up past it are 413', async () => {
  const limit = app.service.settings.bodyLimit;
  const field = 'm'.repeat(Math.floor(limit / 4));
  let req = app.http.post('/api/user/add').set(H);
  for (let i = 0; i < 8; i++) req = req.field(`f${i}`, field);
  const res = await req.field('email', 'multipart-too-large@example.org');
  expect(res.status).toBe(413);
  expect(res.body.error).toBe('PAYLOAD_TOO_LARGE');
  expect((await app.http.get('/api/user/list').set(H).query({ email: 'multipart-too-large@example.org' })).status).toBe(404);

  // within the limit, a multipart body is read as before
  const ok = await app.http.post('/api/user/add').set(H).field('email', 'multipart-ok@example.org');
  expect(ok.status).toBe(201);
  expect(ok.body.email).toBe('multipart-ok@example.org');
});
