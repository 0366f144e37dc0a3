'use strict';
// Experiment behind bench/FINDINGS.md («The nested answer's tail at c1»; not the service):
//   node --max-semi-space-size=16 --trace-gc-nvp bench/experiments/promotion-cascade.js <variant> 2>&1 | grep 'gc=s'
// 300 answers at c1 of the nested answer's shape (two statements of 1,000 rows, held until the answer is built and
// sent), served by <variant>: pg (no HTTP), pg-als (an AsyncLocalStorage entered), http, router, router-proto (each
// request's and response's prototype changed, as express's app.handle does), express, express-protos (the server's
// request and response classes with express's prototypes: src/http/server.ts), apollo (that, with Apollo Server
// over a schema of the answer's shape). Compare each scavenge's `promoted`
// with the previous one's `new_space_survived`: equal means everything a scavenge copied was promoted at the next.
// PostgreSQL at BENCH_ADMIN_URL (default: postgres@127.0.0.1:5432); nothing is written.
const http = require('node:http');
const { AsyncLocalStorage } = require('node:async_hooks');
const { Pool } = require('pg');
const express = require('express');
const Router = require('router');

const variant = process.argv[2] ?? 'express';
const pool = new Pool({ connectionString: process.env.BENCH_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres', max: 4 });

async function answer() {
  const zones = await pool.query(
    "select g::text as id, 'z' || g || '.u1.experiment.example' as name, g as user_id, 1 as serial, now()::text as created_at, 'native' as kind from generate_series(1, 1000) g",
  );
  const packed = await pool.query(
    "select g as domain_id, 10 as record_count, repeat('r1 A 192.0.2.1 3600 ', 32) as packed from generate_series(1, 1000) g",
  );
  const byZone = new Map(packed.rows.map((row) => [row.domain_id, row]));
  return Buffer.from(JSON.stringify(zones.rows.map((zone) => ({ name: zone.name, records: byZone.get(zone.user_id)?.packed }))));
}

async function handler(req, res) {
  const body = await answer();
  res.setHeader('content-type', 'application/json');
  res.end(body);
}

/** express (with its prototypes from the start) and Apollo Server over a schema of the answer's shape */
async function apolloServer() {
  const { ApolloServer } = require('@apollo/server');
  const { expressMiddleware } = require('@as-integrations/express5');
  const apollo = new ApolloServer({
    typeDefs: 'type Query { zones: [Zone!]! } type Zone { name: String! records: String }',
    resolvers: { Query: { zones: async () => JSON.parse((await answer()).toString()) } },
  });
  await apollo.start();
  const app = express();
  app.use('/graphql', express.json(), expressMiddleware(apollo));
  return withExpressPrototypes(app);
}

function withExpressPrototypes(app) {
  function ExpressRequest(socket) {
    http.IncomingMessage.call(this, socket);
  }
  ExpressRequest.prototype = app.request;
  function ExpressResponse(req, options) {
    http.ServerResponse.call(this, req, options);
  }
  ExpressResponse.prototype = app.response;
  return http.createServer({ IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse }, app);
}

function server() {
  if (variant === 'http') return http.createServer((req, res) => void req.resume().on('end', () => handler(req, res)));
  if (variant === 'router' || variant === 'router-proto') {
    const router = Router();
    router.post('/graphql', handler);
    const requestProto = Object.create(http.IncomingMessage.prototype);
    const responseProto = Object.create(http.ServerResponse.prototype);
    return http.createServer((req, res) => {
      if (variant === 'router-proto') {
        Object.setPrototypeOf(req, requestProto);
        Object.setPrototypeOf(res, responseProto);
      }
      router(req, res, () => res.writeHead(404).end());
    });
  }
  const app = express();
  app.post('/graphql', handler);
  if (variant === 'express') return http.createServer(app);
  return withExpressPrototypes(app);
}

async function main() {
  if (variant === 'pg' || variant === 'pg-als') {
    if (variant === 'pg-als') new AsyncLocalStorage().enterWith({ request: 1 });
    for (let i = 0; i < 300; i++) await answer();
    return pool.end();
  }
  const listening = variant === 'apollo' ? await apolloServer() : server();
  await new Promise((resolve) => listening.listen(0, '127.0.0.1', resolve));
  const { port } = listening.address();
  const agent = new http.Agent({ keepAlive: true });
  for (let i = 0; i < 300; i++) {
    await new Promise((resolve, reject) => {
      const req = http.request(
        { port, host: '127.0.0.1', path: '/graphql', method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (res) => res.resume().on('end', resolve),
      );
      req.on('error', reject);
      req.end(variant === 'apollo' ? '{"query":"{ zones { name records } }"}' : '{}');
    });
  }
  agent.destroy();
  listening.close();
  await pool.end();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
