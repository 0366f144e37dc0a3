import express from 'express';
import request from 'supertest';
import { sendJson } from '../../src/http/send-json';

/**
 * The edges' JSON answer written straight (src/http/send-json.ts) is Express's `res.status(…).json(…)` answer:
 * each case is answered both ways and the answers compared whole (status, body, the headers that differ).
 */
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
