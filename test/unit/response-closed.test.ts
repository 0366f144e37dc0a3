import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { whenClosed } from '../../src/http/response-closed';

describe('whenClosed', () => {
  it("runs every layer's work when the answer is sent, from one 'close' listener", async () => {
    const ran: string[] = [];
    const listeners: number[] = [];
    const app = express();
    app.get('/', (_req, res) => {
      whenClosed(res, () => ran.push('log'));
      whenClosed(res, () => ran.push('turn'));
      listeners.push(res.listenerCount('close'));
      res.json({ ok: true });
    });
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/`);
      expect(await answer.json()).toEqual({ ok: true });
      for (let i = 0; i < 50 && ran.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(ran).toEqual(['log', 'turn']);
      expect(listeners).toEqual([1]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
