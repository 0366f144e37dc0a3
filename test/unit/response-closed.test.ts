import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { apolloBuilderModule, installGatewayRequestContext } from '../../src/graphql/gateway-request-context';
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

describe('installGatewayRequestContext', () => {
  it("replaces Apollo's builder of a gateway's request context, whose status writes through to Apollo's", () => {
    expect(installGatewayRequestContext()).toBe(true);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const builder = require(apolloBuilderModule());
    const headers = new Map<string, string>([['x-api-key', 'k']]);
    const apolloContext = {
      request: { query: '{ a }', variables: { v: 1 }, http: { method: 'POST', search: 'x=1', headers } },
      response: { http: { status: undefined as number | undefined, headers: new Map<string, string>() } },
      contextValue: { principal: 'p' },
      document: { kind: 'Document' },
      operationName: 'A',
    };
    const made = builder.makeGatewayGraphQLRequestContext(
      apolloContext,
      { logger: 'l', cache: 'c' },
      { includeStacktraceInErrorResponses: false },
    );
    expect(made.context).toBe(apolloContext.contextValue);
    expect(made.document).toBe(apolloContext.document);
    expect(made.request).toMatchObject({
      query: '{ a }',
      variables: { v: 1 },
      http: { method: 'POST', url: 'https://unknown-url.invalid/?x=1' },
    });
    expect(made.request.http.headers.get('x-api-key')).toBe('k');
    made.response.http.status = 418;
    made.response.http.headers.set('x-made', 'yes');
    expect(apolloContext.response.http.status).toBe(418);
    expect(apolloContext.response.http.headers.get('x-made')).toBe('yes');
    // the accessor is the class's, not the object's own (an own accessor is what kept answers alive)
    expect(Object.getOwnPropertyDescriptor(made.response.http, 'status')).toBeUndefined();
  });
});
