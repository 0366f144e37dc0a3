'use strict';
// Experiment behind bench/FINDINGS.md («The zone list's young generation»; not the service, `npm run bench` does
// not run it): where the objects that outlive a young-generation collection were allocated, for one console
// shape.
//   node bench/experiments/scavenge-survivors.js [Zones|ZoneHistory] [n] [built checkout dir]
// Starts the built service (this checkout's, or that one's) (`npm run serve`'s node options, ROLES=api, and --inspect on a free loopback port) on a
// new database with an account of 1,000 zones, sends the console's document 300 times, then n more (2,000 by
// default) one at a time over one keep-alive connection while V8's sampling heap profiler runs with
// `includeObjectsCollectedByMajorGC` and without `includeObjectsCollectedByMinorGC`: what it keeps is what
// survived a scavenge, whether a full collection freed it later or not. Prints the sites that allocated most of
// it, and the service's CPU a request. An answer of an operation should leave next to nothing there.
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const WebSocket = require('ws');
const { consoleOperation } = require('../lib/console-operations');
const { withDatabase } = require('../lib/database');
const { freePort } = require('../lib/proc');
const { startService } = require('../lib/service');

const [operation = 'Zones', n = '2000', dir] = process.argv.slice(2);
const REQUESTS = Number(n);
const API_KEY = `zk_experiment_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function post(port, body) {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/graphql',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': data.length, 'x-api-key': API_KEY },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode !== 200 || text.includes('"errors"')) reject(new Error(`${res.statusCode} ${text.slice(0, 300)}`));
          else resolve();
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** the inspector protocol of the service's process (its first target) */
async function inspector(port) {
  const targets = await new Promise((resolve, reject) =>
    http
      .get(`http://127.0.0.1:${port}/json/list`, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve(JSON.parse(text)));
      })
      .on('error', reject),
  );
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve) => socket.once('open', resolve));
  let id = 0;
  const waiting = new Map();
  socket.on('message', (message) => {
    const reply = JSON.parse(message);
    waiting.get(reply.id)?.(reply.result);
    waiting.delete(reply.id);
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve) => {
        waiting.set(++id, resolve);
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

/** bytes by allocation site (function, file and line), largest first */
function bySite(profile) {
  const sites = new Map();
  let total = 0;
  const walk = (node) => {
    const frame = node.callFrame;
    const site = `${frame.functionName || '(anonymous)'} ${path.basename(frame.url)}:${frame.lineNumber + 1}`;
    total += node.selfSize;
    if (node.selfSize) sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    node.children.forEach(walk);
  };
  walk(profile.head);
  return { total, sites: [...sites].sort((a, b) => b[1] - a[1]) };
}

const cpuTicks = (pid) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ');
  return Number(fields[13]) + Number(fields[14]);
};

(async () => {
  await withDatabase('zk_survivors', async (databaseUrl) => {
    const inspectPort = await freePort();
    const svc = await startService({
      databaseUrl,
      apiKey: API_KEY,
      logFile: path.join(os.tmpdir(), 'scavenge-survivors.log'),
      env: { ROLES: 'api', DNS_LISTEN: '', HEALTH_CHECK_INTERVAL: '0', LOG_LEVEL: 'warn', RATE_LIMIT_CONCURRENCY: '0' },
      nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`],
      ...(dir ? { main: path.join(path.resolve(dir), 'dist', 'src', 'main.js') } : {}),
    });
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      // an account of 1,000 zones, as bench/graphql-shapes.js seeds its zone list; a history of 1,000 changes
      const user = await svc.api('POST', '/user/add', { email: 'survivors@example.org' });
      const { id } = await svc.api('POST', '/domain/add', { user_id: user.id, zone: 'l0.survivors.example' });
      await db.query(
        `insert into domains (user_id, name, serial, catalog_serial, record_count, kind, serving, nameserver_set)
         select t.user_id, 'l' || g || '.survivors.example', t.serial, t.catalog_serial, t.record_count, t.kind, t.serving, t.nameserver_set
           from domains t, generate_series(1, 999) as g where t.id = $1`,
        [id],
      );
      await db.query('update users set zone_count = 1000 where id = $1', [user.id]);
      await db.query(
        `insert into changes (domain_id, zone, kind, serial_before, serial_after, added, removed, created_at, published_at)
         select $1, 'l0.survivors.example', 'zone-changed', g, g + 1,
                jsonb_build_array(jsonb_build_object('owner', 'e' || g, 'type', 'A', 'ttl', 3600, 'rdata', '192.0.2.1')),
                '[]'::jsonb, now(), now()
           from generate_series(1, 1000) as g`,
        [id],
      );
      await db.query('vacuum analyze');
      const body = {
        query: consoleOperation(operation),
        variables:
          operation === 'Zones' ? { first: 50, orderBy: 'NAME', userId: String(user.id) } : { name: 'l0.survivors.example', first: 20 },
      };
      for (let i = 0; i < 300; i++) await post(svc.port, body);
      const session = await inspector(inspectPort);
      await session.send('HeapProfiler.enable');
      await session.send('HeapProfiler.collectGarbage');
      await session.send('HeapProfiler.startSampling', {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: false,
      });
      const before = cpuTicks(svc.child.pid);
      for (let i = 0; i < REQUESTS; i++) await post(svc.port, body);
      // /proc's times are in clock ticks of 10 ms
      const cpu = (cpuTicks(svc.child.pid) - before) * 10;
      const { profile } = await session.send('HeapProfiler.getSamplingProfile');
      await session.send('HeapProfiler.stopSampling');
      session.close();
      const { total, sites } = bySite(profile);
      console.log(
        `${operation} × ${REQUESTS}: ${(total / REQUESTS / 1000).toFixed(1)} kB a request outlived a scavenge; service CPU ${(cpu / REQUESTS).toFixed(3)} ms a request`,
      );
      for (const [site, bytes] of sites.slice(0, 25)) console.log(`${(bytes / REQUESTS / 1000).toFixed(2).padStart(8)} kB  ${site}`);
    } finally {
      agent.destroy();
      await db.end();
      await svc.stop();
    }
  });
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
