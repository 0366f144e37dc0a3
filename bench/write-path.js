'use strict';
// `npm run bench:write-path [-- <work tree>]`: every write edge beside the write floor, in one run, with what
// each request costs: PostgreSQL transactions (each statement outside a transaction is one: its round trips, but
// for BEGIN/COMMIT), the service's CPU and PostgreSQL's CPU per request (/proc/<pid>/stat), which a shared
// machine's load disturbs far less than the throughput it also reports.
//
// The round trips are counted on the wire: the service and the floors reach PostgreSQL through a small proxy in
// this process that counts the client's Sync and Query messages (each ends one round trip of the protocol).
//
// Edges, each with a change of 1 record and of 1,000 records, closed loops at 1 and 16 connections (a zone
// each), every change new names (A records):
//   - REST: POST /api/record/add (1), POST /api/domain/changes/<zone> (1,000 ADDs);
//   - GraphQL: createRecord (1), applyZoneChanges (1,000 ADDs);
//   - the PowerDNS API: PATCH /api/v1/servers/localhost/zones/<zone> (REPLACE of 1 and of 1,000 rrsets);
//   - DNS UPDATE (RFC 2136) over TCP, TSIG hmac-sha256: 1 and 1,000 A records in one message;
//   - the write floor (bench/lib/write-floor.js, in a process of its own): the write on the zone's head (one
//     round trip), and the floor before zone heads (the read, then the write).
// The service runs from <work tree>'s dist (default this one: `npm run build` first) with ROLES=api,dns (the
// worker off: its own statements would count), so the figures of two builds can be compared minutes apart.
// Written to bench/RESULTS-write-path.md (only for this work tree) and bench/.tmp/write-path-<time>.json.
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { spawn } = require('node:child_process');
const dnsPacket = require('dns-packet');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { request, processTimes, cpuBetween } = require('./lib/proc');
const { startService, ROOT } = require('./lib/service');

const TREE = path.resolve(process.argv[2] ?? ROOT);
const { signMessage } = require(path.join(ROOT, 'dist', 'src', 'dns', 'wire', 'tsig.js'));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
// BENCH_ROLES: the service's roles (default api,dns: the worker's own statements left out; `api,dns,worker` is
// what `npm start` runs). BENCH_CASES (e.g. `1x1,1x16`: changes x connections) and BENCH_EDGES (labels' first
// words, e.g. `write,REST`) run a part. BENCH_STATEMENTS=1 prints each case's statements by their text's start
// (the round trips' causes). BENCH_RATE paces the requests (below). BENCH_LOG_LEVEL: the service's LOG_LEVEL (default warn; the service's own is info).
const ROLES = process.env.BENCH_ROLES ?? 'api,dns';
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const ONLY_CASES = process.env.BENCH_CASES?.split(',');
const ONLY_EDGES = process.env.BENCH_EDGES?.split(',');
const STATEMENTS = process.env.BENCH_STATEMENTS === '1';
// BENCH_ALLOC=1: the service's heap allocation per request too (bench/lib/alloc-probe.js, preloaded)
const ALLOC = process.env.BENCH_ALLOC === '1';
// BENCH_RATE: requests a second over all connections, paced (0: closed loops, as fast as each answer comes). At
// one rate for two builds, the CPU a request is compared without the rate's own effect on it (the per-interval
// timers and the batching of the event loop's work, which a closed loop's rate moves with the machine's load)
const RATE = Number(process.env.BENCH_RATE ?? 0);
// BENCH_SYSCALLS=1: the serving process's system calls a request, by call and thread (`perf trace -s` from
// Debian's linux-perf, attached for the case's closed loop), to compare two edges' or two builds' I/O a request.
// The tracing slows the process several times over, so that run's rates and CPU are not the service's (and the
// journal's paced NOTIFY, one per 10 ms, falls on more requests); it writes no RESULTS file
const SYSCALLS = process.env.BENCH_SYSCALLS === '1';
const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const TMP = path.join(__dirname, '.tmp');
const ZONES = 16;
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const ip = (n) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
const zoneName = (c) => `c${c}.write-path.example`;
const names = (from, count) => Array.from({ length: count }, (_, i) => ({ owner: `h${from + i}`, rdata: ip(from + i) }));
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
/**
 * `perf trace -s -p pid` from now until `stop(requests)`, which answers the process's system calls a request:
 * its total, then per thread (node's main thread first) the calls of more than 0.05 a request
 */
async function startSyscallTrace(pid) {
  const file = path.join(TMP, `syscalls-${pid}-${Date.now()}.txt`);
  const perf = spawn('perf', ['trace', '-s', '-o', file, '-p', String(pid)], { stdio: 'ignore' });
  let failure;
  const exited = new Promise((resolve) => {
    perf.once('exit', resolve);
    // no perf on this machine (Debian's linux-perf): the case runs, and says so
    perf.once('error', (error) => resolve((failure = error.message)));
  });
  // perf attaches within a few hundred milliseconds; the loop starts after
  await new Promise((resolve) => setTimeout(resolve, 500));
  return {
    async stop(requests) {
      perf.kill('SIGINT');
      await exited;
      if (failure || !fs.existsSync(file)) return `not counted (perf trace: ${failure ?? 'no summary written'})`;
      const threads = [];
      let thread;
      for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
        const head = /^ (.+) \((\d+)\), \d+ events/.exec(line);
        if (head) threads.push((thread = { name: head[1], tid: Number(head[2]), calls: [] }));
        const row = /^\s+([a-z_0-9]+)\s+(\d+)\s+\d+\s/.exec(line);
        if (row && thread) thread.calls.push([row[1], Number(row[2]) / requests]);
      }
      fs.rmSync(file, { force: true });
      const total = threads.reduce((sum, t) => sum + t.calls.reduce((s, [, n]) => s + n, 0), 0);
      threads.sort((a, b) => (b.tid === pid) - (a.tid === pid));
      const shown = threads
        .map((t) => [t, t.calls.filter(([, n]) => n > 0.05)])
        .filter(([, calls]) => calls.length)
        .map(([t, calls]) => `${t.tid === pid ? 'main' : t.name} ${calls.map(([name, n]) => `${name} ${n.toFixed(2)}`).join(', ')}`);
      return `${total.toFixed(2)} (${shown.join('; ')})`;
    },
  };
}

const CASES = [
  { changes: 1, connections: 1 },
  { changes: 1, connections: 16 },
  { changes: 1000, connections: 1 },
  { changes: 1000, connections: 16 },
].filter((c) => !ONLY_CASES || ONLY_CASES.includes(`${c.changes}x${c.connections}`));

/** the bytes the service has allocated so far, by its preloaded probe (bench/lib/alloc-probe.js: SIGUSR2) */
async function allocatedBytes(pid) {
  const file = path.join(os.tmpdir(), `alloc-${pid}`);
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 400; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const now = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (now && now !== before) return Number(now.split(' ')[1]);
  }
  throw new Error(`no allocation count from ${pid}`);
}

/** one TCP connection to a DNS server (RFC 1035 §4.2.2 framing), one exchange at a time */
function dnsConnection(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let buffered = Buffer.alloc(0);
    let waiting;
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= buffered.readUInt16BE(0) + 2) {
        const message = buffered.subarray(2, buffered.readUInt16BE(0) + 2);
        buffered = buffered.subarray(message.length + 2);
        const done = waiting;
        waiting = undefined;
        done?.(message);
      }
    });
    socket.once('error', reject);
    socket.once('connect', () =>
      resolve({
        exchange: (message) =>
          new Promise((res, rej) => {
            const timer = setTimeout(() => rej(new Error('no answer within 10 s')), 10_000);
            waiting = (answer) => {
              clearTimeout(timer);
              res(answer);
            };
            const frame = Buffer.alloc(2);
            frame.writeUInt16BE(message.length, 0);
            socket.write(Buffer.concat([frame, message]));
          }),
        close: () => socket.destroy(),
      }),
    );
  });
}

/** the write floor in a process of its own (its CPU apart from this one's): answers its base URL and pid */
function startFloorProcess(databaseUrl, head) {
  const child = spawn(
    process.execPath,
    [
      // e.g. BENCH_FLOOR_NODE_ARGS='--cpu-prof --cpu-prof-dir=bench/.tmp/prof-floor': the floor's own profile
      ...(process.env.BENCH_FLOOR_NODE_ARGS?.split(' ') ?? []),
      '-e',
      `require(${JSON.stringify(path.join(__dirname, 'lib', 'write-floor.js'))}).startWriteFloor(process.argv[1], { head: process.argv[2] === 'head' })
        .then((f) => { process.stdout.write(f.base + '\\n'); process.on('SIGTERM', () => f.stop().then(() => process.exit(0))); })`,
      databaseUrl,
      head ? 'head' : 'read',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (data) =>
      resolve({
        base: String(data).trim(),
        pid: child.pid,
        stop: () => new Promise((done) => (child.once('exit', done), child.kill('SIGTERM'))),
      }),
    );
  });
}

/**
 * A TCP proxy to PostgreSQL that counts the round trips its clients start: each Sync (extended protocol) and each
 * Query (simple protocol) message of the frontend (PostgreSQL's protocol, «Message Flow»). No TLS (the bench's
 * connections are plain).
 */
async function startCountingProxy(target) {
  const counter = { trips: 0, statements: new Map() };
  const noteStatement = (text) => {
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 90);
    counter.statements.set(key, (counter.statements.get(key) ?? 0) + 1);
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    upstream.pipe(client);
    let startup = true;
    let pending = Buffer.alloc(0);
    const parsed = new Map();
    client.on('data', (chunk) => {
      upstream.write(chunk);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (startup) {
          if (pending.length < 8) break;
          const length = pending.readUInt32BE(0);
          if (pending.length < length) break;
          // an SSLRequest (80877103) is followed by the startup message itself
          if (pending.readUInt32BE(4) !== 80877103) startup = false;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readUInt32BE(1);
        if (pending.length < length + 1) break;
        const type = pending[0];
        if (type === 0x53 || type === 0x51) counter.trips++;
        if (STATEMENTS && type === 0x51) noteStatement(pending.toString('utf8', 5, length));
        // Parse: the statement's name, then its text; Bind: the portal's name, then the statement's (each
        // NUL-terminated). Each Bind is one execution, of a statement parsed now or prepared before.
        if (STATEMENTS && type === 0x50) {
          const nameEnd = pending.indexOf(0, 5);
          parsed.set(pending.toString('utf8', 5, nameEnd), pending.toString('utf8', nameEnd + 1, pending.indexOf(0, nameEnd + 1)));
        }
        if (STATEMENTS && type === 0x42) {
          const portalEnd = pending.indexOf(0, 5);
          noteStatement(parsed.get(pending.toString('utf8', portalEnd + 1, pending.indexOf(0, portalEnd + 1))) ?? '(unknown)');
        }
        pending = pending.subarray(length + 1);
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, counter, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function closedLoop({ connections, seconds, send }) {
  const latencies = [];
  let bad = 0;
  let badExample;
  const started = process.hrtime.bigint();
  const startedMs = Date.now();
  const deadline = startedMs + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      for (let i = 0; Date.now() < deadline; i++) {
        if (RATE > 0) {
          // paced: the connection's i-th request no earlier than its slot (a late one goes at once)
          const slot = startedMs + ((i + c / connections) * connections * 1000) / RATE;
          if (slot > Date.now()) await new Promise((resolve) => setTimeout(resolve, slot - Date.now()));
          if (Date.now() >= deadline) break;
        }
        const t0 = process.hrtime.bigint();
        const problem = await send(c, i);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (problem) {
          bad += 1;
          badExample ??= problem;
        }
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: (latencies.length - bad) / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    bad,
    badExample,
  };
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(TREE);
  const loadBefore = os.loadavg();
  log(`service from ${TREE}; ${SECONDS} s a case; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`);
  const results = await withDatabase('zk_bench_write_path', async (direct) => {
    const target = new URL(direct);
    const proxy = await startCountingProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const url = Object.assign(new URL(direct), { host: `127.0.0.1:${proxy.port}` }).toString();
    const svc = await startService({
      databaseUrl: url,
      apiKey: API_KEY,
      main: path.join(TREE, 'dist', 'src', 'main.js'),
      logFile: path.join(TMP, 'write-path.log'),
      // no record quota: the DNS UPDATE key is a user's, and every case writes the same 16 zones
      env: { LOG_LEVEL, ROLES, SECONDARIES: '', MAX_RECORDS_PER_ZONE: '0' },
      // e.g. BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=bench/.tmp/prof-write-path' (with BENCH_EDGES: one edge's profile)
      nodeArgs: [
        ...(process.env.BENCH_NODE_ARGS?.split(' ') ?? []),
        ...(ALLOC ? ['-r', path.join(__dirname, 'lib', 'alloc-probe.js')] : []),
      ],
    });
    const floors = [];
    try {
      const user = await svc.api('POST', '/user/add', { email: 'writes@bench.example' });
      for (let c = 0; c < ZONES; c++) await svc.api('POST', '/domain/add', { user_id: user.id, zone: zoneName(c) });
      const created = await svc.graphql('mutation($u: ID!) { createTsigKey(input: {userId: $u, name: "bench-key"}) { secret } }', {
        u: user.id,
      });
      const key = { name: 'bench-key', algorithm: 'hmac-sha256', secret: Buffer.from(created.createTsigKey.secret, 'base64') };
      const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
      const post = async (method, url, body, ok) => {
        const res = await request(method, url, { headers: svc.headers, body, agent });
        return ok(res) ? undefined : `${res.status} ${res.text.slice(0, 200)}`;
      };
      // a DNS client's TCP connections, opened for each case: the server closes idle ones (RFC 7766 §6.2.3)
      let dns = [];
      const floorHead = await startFloorProcess(url, true);
      floors.push(floorHead);
      const floorRead = await startFloorProcess(url, false);
      floors.push(floorRead);
      const floorSend = (floor) => (c, from, count) =>
        post(
          'POST',
          `${floor.base}/floor`,
          { zone: zoneName(c), records: names(from, count).map((n) => ({ owner: n.owner, rtype: 'A', rdata: n.rdata, ttl: 3600 })) },
          (r) => r.status === 201,
        );
      const add = (n) => ({ kind: 'ADD', owner: n.owner, type: 'A', rdata: n.rdata, ttl: 3600 });
      const targets = [
        { label: 'write floor', pid: floorHead.pid, send: floorSend(floorHead) },
        { label: 'write floor before zone heads (read + write)', pid: floorRead.pid, send: floorSend(floorRead) },
        {
          label: 'REST',
          send: (c, from, count) =>
            count === 1
              ? post(
                  'POST',
                  `${svc.base}/api/record/add`,
                  { zone: zoneName(c), owner: `h${from}`, rtype: 'A', rdata: ip(from), ttl: 3600 },
                  (r) => r.status === 201,
                )
              : post(
                  'POST',
                  `${svc.base}/api/domain/changes/${zoneName(c)}`,
                  { changes: names(from, count).map(add) },
                  (r) => r.status === 200,
                ),
        },
        {
          label: 'GraphQL',
          send: (c, from, count) =>
            count === 1
              ? post(
                  'POST',
                  `${svc.base}/graphql`,
                  {
                    query: 'mutation($i: RecordInput!) { createRecord(input: $i) { id } }',
                    variables: { i: { zone: zoneName(c), owner: `h${from}`, type: 'A', rdata: ip(from), ttl: 3600 } },
                  },
                  (r) => r.status === 200 && !r.json?.errors,
                )
              : post(
                  'POST',
                  `${svc.base}/graphql`,
                  {
                    query: 'mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }',
                    variables: { z: zoneName(c), c: names(from, count).map(add) },
                  },
                  (r) => r.status === 200 && !r.json?.errors,
                ),
        },
        {
          label: 'PowerDNS API PATCH',
          send: (c, from, count) =>
            post(
              'PATCH',
              `${svc.base}/api/v1/servers/localhost/zones/${zoneName(c)}.`,
              {
                rrsets: names(from, count).map((n) => ({
                  name: `${n.owner}.${zoneName(c)}.`,
                  type: 'A',
                  ttl: 3600,
                  changetype: 'REPLACE',
                  records: [{ content: n.rdata, disabled: false }],
                })),
              },
              (r) => r.status === 204,
            ),
        },
        {
          label: 'DNS UPDATE',
          prepare: async (connections) => {
            dns = await Promise.all(Array.from({ length: connections }, () => dnsConnection(svc.dnsPort)));
          },
          finish: () => dns.forEach((d) => d.close()),
          send: async (c, from, count) => {
            const message = dnsPacket.encode({
              id: from & 0xffff,
              type: 'query',
              flags: 5 << 11,
              questions: [{ name: zoneName(c), type: 'SOA', class: 'IN' }],
              authorities: names(from, count).map((n) => ({
                name: `${n.owner}.${zoneName(c)}`,
                type: 'A',
                class: 'IN',
                ttl: 3600,
                data: n.rdata,
              })),
            });
            const answer = await dns[c].exchange(signMessage(message, key).message);
            const rcode = answer.readUInt16BE(2) & 0xf;
            return rcode === 0 ? undefined : `rcode ${rcode}`;
          },
        },
      ];
      const chosen = targets.filter((t) => !ONLY_EDGES || ONLY_EDGES.some((word) => t.label.startsWith(word)));
      const out = Object.fromEntries(chosen.map((t) => [t.label, []]));
      let base = 0;
      for (const { changes, connections } of CASES) {
        for (const target of chosen) {
          base += 20_000_000;
          await target.prepare?.(connections);
          // warm-up: a request per connection (the zones' heads, prepared statements, the JIT)
          for (let w = 0; w < 3; w++)
            await Promise.all(
              Array.from({ length: connections }, (_, c) => target.send(c, base + 17_000_000 + (w * 16 + c) * 1000, changes)),
            );
          const x0 = proxy.counter.trips;
          proxy.counter.statements.clear();
          const a0 = ALLOC && !target.pid ? await allocatedBytes(svc.pid) : undefined;
          const trace = SYSCALLS ? await startSyscallTrace(target.pid ?? svc.pid) : undefined;
          const t0 = processTimes();
          const result = await closedLoop({
            connections,
            seconds: SECONDS,
            send: (c, i) => target.send(c, base + c * 1_000_000 + i * changes, changes),
          });
          const t1 = processTimes();
          const syscalls = trace ? await trace.stop(result.requests) : undefined;
          const a1 = a0 !== undefined ? await allocatedBytes(svc.pid) : undefined;
          const x1 = proxy.counter.trips;
          target.finish?.();
          const cpu = cpuBetween(t0, t1, target.pid ?? svc.pid);
          const row = {
            changes,
            connections,
            ...result,
            tripsPerRequest: (x1 - x0) / result.requests,
            serviceMsPerRequest: (cpu.service * 1000) / result.requests,
            postgresMsPerRequest: (cpu.postgres * 1000) / result.requests,
            postgresBackgroundMsPerRequest: (cpu.postgresBackground * 1000) / result.requests,
            ...(a0 !== undefined ? { kbAllocatedPerRequest: (a1 - a0) / 1024 / result.requests } : {}),
          };
          out[target.label].push(row);
          log(
            `${target.label}: ${changes} change(s) c${connections}: ${row.rps.toFixed(1)} req/s, p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms; ` +
              `${row.tripsPerRequest.toFixed(2)} round trips, node ${row.serviceMsPerRequest.toFixed(2)} ms, PostgreSQL ${row.postgresMsPerRequest.toFixed(2)} ms (background ${row.postgresBackgroundMsPerRequest.toFixed(2)}) CPU a request` +
              `${row.kbAllocatedPerRequest !== undefined ? `; ${row.kbAllocatedPerRequest.toFixed(1)} kB allocated a request` : ''}` +
              `${row.bad ? `; ${row.bad} BAD (${row.badExample})` : ''}`,
          );
          if (syscalls) log(`    system calls a request: ${syscalls}`);
          if (STATEMENTS)
            for (const [text, count] of [...proxy.counter.statements].sort((a, b) => b[1] - a[1]).slice(0, 12))
              log(`    ${(count / result.requests).toFixed(3)} a request: ${text}`);
        }
      }
      return out;
    } finally {
      for (const floor of floors) await floor.stop();
      await svc.stop();
      await proxy.close();
    }
  });
  const loadAfter = os.loadavg();
  const file = path.join(TMP, `write-path-${Date.now()}.json`);
  fs.writeFileSync(file, JSON.stringify({ tree: TREE, machine, loadBefore, loadAfter, results }, null, 2));
  log(`load average after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}; ${file}`);
  const label = (c) => `${c.changes === 1 ? '1 change' : '1,000 changes'} c${c.connections}`;
  const cell = (r) =>
    `${r.rps.toFixed(1)}/s, p50 ${r.p50.toFixed(1)} ms<br>${r.tripsPerRequest.toFixed(2)} trips, node ${r.serviceMsPerRequest.toFixed(2)} ms, pg ${r.postgresMsPerRequest.toFixed(2)} ms${r.bad ? `<br>**${r.bad} bad**` : ''}`;
  const floor = results['write floor'];
  // the whole run only (BENCH_CASES, BENCH_EDGES run a part; the log above has every figure)
  if (!(TREE === ROOT && !ONLY_CASES && !ONLY_EDGES && ROLES === 'api,dns' && LOG_LEVEL === 'warn' && !SYSCALLS)) return;
  const table = [
    `| | ${CASES.map(label).join(' | ')} |`,
    `| --- |${CASES.map(() => ' ---: |').join('')}`,
    ...Object.entries(results).map(([name, rows]) => `| ${name} | ${rows.map(cell).join(' | ')} |`),
    '',
    `| ÷ the write floor's throughput | ${CASES.map(label).join(' | ')} |`,
    `| --- |${CASES.map(() => ' ---: |').join('')}`,
    ...Object.entries(results)
      .filter(([name]) => name !== 'write floor')
      .map(([name, rows]) => `| ${name} | ${rows.map((r, i) => `${((100 * r.rps) / floor[i].rps).toFixed(0)} %`).join(' | ')} |`),
  ].join('\n');
  {
    fs.writeFileSync(
      path.join(__dirname, 'RESULTS-write-path.md'),
      `# The write path beside its floor (\`npm run bench:write-path\`)

Machine: ${machine.cpuModel}, ${machine.nproc} cores, Linux ${machine.kernel}, Node ${machine.node}. Date: ${machine.date}.
Commit: ${machine.commit.slice(0, 12)}. Load average (1 min) before ${loadBefore[0].toFixed(2)}, after ${loadAfter[0].toFixed(2)}: the machine is shared.

Closed loops of ${SECONDS} s a case, a zone per connection, every change new A records. Per request: round trips
to PostgreSQL (Sync and Query messages, counted by a proxy in the bench process that every connection goes
through; the worker role is off, the journal's NOTIFY counts), the CPU of the serving process (node) and of every PostgreSQL process (pg), from /proc. The write floor
(bench/lib/write-floor.js) runs in a process of its own: the service's write statement on the zone's head, with
nothing above it; the floor before zone heads reads the zone first (two statements).

${table}
`,
    );
    log('written bench/RESULTS-write-path.md');
  }
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack || error.message}\n`);
  process.exit(1);
});
