import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import request from 'supertest';
import { inTurn } from '../../src/http/in-turn';
import { sendJson } from '../../src/http/send-json';

/**
 * The edges' own layers (src/http/in-turn.ts, send-json.ts) answer as the Express layers they replace:
 * each case runs on a route of separate handlers and on the same handlers as one layer, and the answers are
 * compared whole.
 */
function both(handlers: (seen: string[]) => RequestHandler[]) {
  const seen: string[] = [];
  const app = express();
  app.post('/apart', ...handlers(seen));
  app.post('/together', inTurn(handlers(seen)));
  app.post('/apart', (_req, res) => void res.status(299).json({ next: 'route' }));
  app.post('/together', (_req, res) => void res.status(299).json({ next: 'route' }));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    void _next;
    res.status(500).json({ error: error instanceof Error ? error.message : String(error) });
  });
  return { app, seen };
}

async function same(handlers: (seen: string[]) => RequestHandler[]) {
  const { app, seen } = both(handlers);
  const apart = await request(app).post('/apart').send({ a: 1 });
  const apartSeen = seen.splice(0);
  const together = await request(app).post('/together').send({ a: 1 });
  expect([together.status, together.body, seen]).toEqual([apart.status, apart.body, apartSeen]);
  return { status: apart.status, body: apart.body as unknown, seen: apartSeen };
}

describe('inTurn: handlers in turn as one layer', () => {
  test('each in order, the last answering; a body parser among them', async () => {
    const answer = await same((seen) => [
      (_req, _res, next) => (seen.push('first'), next()),
      express.json(),
      (req, _res, next) => setImmediate(() => (seen.push(`later ${JSON.stringify(req.body)}`), next())),
      async (req, res) => {
        seen.push('last');
        res.status(201).json(req.body);
      },
    ]);
    expect(answer).toEqual({ status: 201, body: { a: 1 }, seen: ['first', 'later {"a":1}', 'last'] });
  });

  test("an error handed on, thrown, or a promise's rejection skips the rest to the error handler", async () => {
    for (const failing of [
      ((_req, _res, next) => next(new Error('handed'))) as RequestHandler,
      (() => {
        throw new Error('thrown');
      }) as RequestHandler,
      (async () => {
        await Promise.resolve();
        throw new Error('rejected');
      }) as RequestHandler,
      (() => Promise.reject(undefined)) as unknown as RequestHandler,
    ]) {
      const answer = await same((seen) => [
        (_req, _res, next) => (seen.push('first'), next()),
        failing,
        (_req, res) => (seen.push('never'), void res.json({})),
      ]);
      expect(answer.status).toBe(500);
      expect(answer.seen).toEqual(['first']);
    }
  });

  test("next('route') goes on to the next route, as from the route's own handlers", async () => {
    const answer = await same((seen) => [(_req, _res, next) => (seen.push('first'), next('route')), () => seen.push('never')]);
    expect(answer).toEqual({ status: 299, body: { next: 'route' }, seen: ['first'] });
  });

  test('all handlers passing on: the next route answers', async () => {
    const answer = await same((seen) => [(_req, _res, next) => (seen.push('a'), next()), (_req, _res, next) => (seen.push('b'), next())]);
    expect(answer).toEqual({ status: 299, body: { next: 'route' }, seen: ['a', 'b'] });
  });
});

describe.each([
  ['without ETags, as the service', false],
  ["with Express's ETags", true],
])("sendJson: Express's res.status(…).json(…) answer, %s", (_label, etags) => {
  const app = express();
  app.set('etag', etags);
  const values: Record<string, unknown> = {
    object: { a: 1, text: 'é ✓ 😀', list: [1, null, 'x'] },
    list: [{ a: 1 }],
    text: 'plain',
    number: 42,
    null: null,
    absent: undefined,
  };
  app.all('/:how/:status/:value', (req, res) => {
    const status = Number(req.params.status);
    const value = values[req.params.value];
    if (req.query.typed) res.type('application/problem+json');
    if (req.params.how === 'express') res.status(status).json(value);
    else sendJson(res, status, value);
  });

  test.each([
    ['POST', 201, 'object'],
    ['PATCH', 200, 'list'],
    ['POST', 200, 'text'],
    ['POST', 200, 'number'],
    ['POST', 200, 'null'],
    ['POST', 200, 'absent'],
    ['GET', 200, 'object'],
    ['HEAD', 200, 'object'],
    ['POST', 204, 'object'],
    ['POST', 422, 'object'],
  ])('%s, %i, %s', async (method, status, value) => {
    const send = (how: string, typed = '') => request(app)[method.toLowerCase() as 'post'](`/${how}/${status}/${value}${typed}`);
    for (const typed of ['', '?typed=1']) {
      const [expected, answered] = [await send('express', typed), await send('direct', typed)];
      expect(answered.status).toBe(expected.status);
      expect(answered.text).toBe(expected.text);
      for (const header of ['content-type', 'content-length', 'etag', 'transfer-encoding'])
        expect([header, answered.headers[header]]).toEqual([header, expected.headers[header]]);
    }
  });
});
