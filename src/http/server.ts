import http from 'node:http';
import type { Express } from 'express';

/**
 * The HTTP server of the Express application, its requests and responses made with the application's own
 * prototypes (`app.request`, `app.response`) from the start.
 *
 * `app.listen` would serve plain `http.IncomingMessage`/`ServerResponse` objects, and Express then changes
 * the prototype of both on every request (`Object.setPrototypeOf` in `app.handle`). In V8 that keeps about a
 * third of everything a request allocates alive through the next young-generation collection, dead or not:
 * each scavenge copied and promoted megabytes, paused the event loop for 4–15 ms instead of about 1, and every
 * tenant's answer that met one waited for it (docs/performance.md, «Noisy tenants»). Given objects whose
 * prototype is already the one Express sets, its `setPrototypeOf` changes nothing and costs nothing.
 */
export function createHttpServer(app: Express): http.Server {
  // plain functions, not subclasses: `prototype` must be exactly app.request/app.response (V8 skips setting
  // the prototype an object already has). Node's IncomingMessage and ServerResponse are function constructors,
  // called on the new object as Node's own subclasses do; Reflect.construct instead measured slower than
  // app.listen.
  function ExpressRequest(this: http.IncomingMessage, socket: ConstructorParameters<typeof http.IncomingMessage>[0]) {
    http.IncomingMessage.call(this, socket);
  }
  ExpressRequest.prototype = app.request;
  function ExpressResponse(this: http.ServerResponse, ...args: ConstructorParameters<typeof http.ServerResponse>) {
    http.ServerResponse.call(this, ...args);
  }
  ExpressResponse.prototype = app.response;
  return http.createServer(
    {
      IncomingMessage: ExpressRequest as unknown as typeof http.IncomingMessage,
      ServerResponse: ExpressResponse as unknown as typeof http.ServerResponse,
    },
    app,
  );
}
