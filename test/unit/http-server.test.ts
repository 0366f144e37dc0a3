import type { AddressInfo } from 'node:net';
import express from 'express';
import { createHttpServer } from '../../src/http/server';

test("the server's requests and responses have the application's prototypes from the start, and work as Express's", async () => {
  const app = express();
  const seen: boolean[] = [];
  app.use(express.json());
  app.post('/echo', (req, res) => {
    seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response, req.app === app);
    res
      .status(201)
      .set('X-Seen', 'yes')
      .json({ body: req.body as unknown, query: req.query, ip: req.ip });
  });
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    // two requests on one keep-alive connection: the second one's objects are made the same way
    for (const n of [1, 2]) {
      const res = await fetch(`http://127.0.0.1:${port}/echo?n=${n}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ n }),
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('x-seen')).toBe('yes');
      expect(await res.json()).toEqual({ body: { n }, query: { n: String(n) }, ip: '127.0.0.1' });
    }
    expect(seen).toEqual([true, true, true, true, true, true]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
