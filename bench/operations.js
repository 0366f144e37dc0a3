'use strict';
// `npm run bench:operations`: what operators meet, measured on this machine and written to
// bench/RESULTS-operations.md:
//   1. write throughput (POST /api/record/add, 100 zones, c16) with one API process and with two API
//      processes on the same PostgreSQL (BENCH_ADMIN_URL, default the machine's 127.0.0.1:5432);
//   2. a PostgreSQL fast stop and start under write load, on a cluster of the bench's own: the answers
//      during the outage (status counts, slowest 503) and the time from the database's return to the first
//      acknowledged write.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { load } = require('./lib/load');
const { machineInfo } = require('./lib/machine');
const { sleep, request, freePort } = require('./lib/proc');
const { startService, ROOT } = require('./lib/service');

const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = QUICK ? 5 : 20;
const ADMIN_URL = process.env.BENCH_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const TMP = path.join(__dirname, '.tmp');
const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function createDatabase(adminUrl, name) {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(adminUrl, name) {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
}

async function seedZones(svc, count) {
  const user = await svc.api('POST', '/user/add', { email: `ops${Date.now()}@bench.example` });
  const zones = Array.from({ length: count }, (_, z) => `o${z}.ops.example`);
  for (const zone of zones) await svc.api('POST', '/domain/add', { user_id: user.id, zone });
  return zones;
}

/** distinct A records spread over the zones; `offset` keeps two generators apart */
function bodies(zones, offset) {
  let n = offset;
  return () => {
    n += 1;
    return JSON.stringify({ zone: zones[n % zones.length], owner: `h${n}`, rtype: 'A', rdata: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`, ttl: 3600 });
  };
}

const writeLoad = (svc, zones, connections, offset) => load({
  url: `${svc.base}/api/record/add`,
  method: 'POST',
  connections,
  duration: SECONDS,
  headers: { ...svc.headers, 'content-type': 'application/json' },
  next: bodies(zones, offset),
  check: (status) => status === 201,
});

async function throughput() {
  const name = `zk_bench_ops_${Date.now()}`;
  const databaseUrl = await createDatabase(ADMIN_URL, name);
  const first = await startService({ databaseUrl, apiKey: API_KEY, logFile: path.join(TMP, 'ops-api-1.log'), env: { LOG_LEVEL: 'warn' } });
  try {
    const zones = await seedZones(first, 100);
    log(`one API process: c16 for ${SECONDS} s`);
    const one = await writeLoad(first, zones, 16, 0);
    log(`  ${one.rps.toFixed(1)} req/s, p99 ${one.p99} ms, bad ${one.bad}`);
    const second = await startService({ databaseUrl, apiKey: API_KEY, logFile: path.join(TMP, 'ops-api-2.log'), env: { LOG_LEVEL: 'warn', ROLES: 'api', DNS_LISTEN: '' } });
    try {
      log(`two API processes: c8 each for ${SECONDS} s`);
      const [a, b] = await Promise.all([writeLoad(first, zones, 8, 10_000_000), writeLoad(second, zones, 8, 20_000_000)]);
      const two = { rps: a.rps + b.rps, p99: Math.max(a.p99, b.p99), bad: a.bad + b.bad, requests: a.requests + b.requests };
      log(`  ${two.rps.toFixed(1)} req/s, p99 ${two.p99} ms, bad ${two.bad}`);
      return { one, two };
    } finally {
      await second.stop();
    }
  } finally {
    await first.stop();
    await dropDatabase(ADMIN_URL, name);
  }
}

async function outage() {
  const { startEmbeddedPostgres } = require(path.join(ROOT, 'dist', 'src', 'db', 'embedded-postgres.js'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-bench-outage-'));
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  let cluster = await startEmbeddedPostgres({ dir, persistent: true, port });
  const databaseUrl = await createDatabase(cluster.adminUrl, 'zk_outage');
  const svc = await startService({ databaseUrl, apiKey: API_KEY, logFile: path.join(TMP, 'ops-outage.log'), env: { LOG_LEVEL: 'info' } });
  try {
    const zones = await seedZones(svc, 10);
    const next = bodies(zones, 0);
    const counts = { before: {}, during: {}, after: {} };
    let phase = 'before';
    let slowest503 = 0;
    let firstWriteAfter;
    let restartedAt;
    let running = true;
    const writer = async () => {
      while (running) {
        const started = Date.now();
        const res = await request('POST', `${svc.base}/api/record/add`, { headers: { ...svc.headers, 'content-type': 'application/json' }, body: JSON.parse(next()) });
        const took = Date.now() - started;
        counts[phase][res.status] = (counts[phase][res.status] ?? 0) + 1;
        if (res.status === 503) {
          slowest503 = Math.max(slowest503, took);
          await sleep(10);
        }
        if (res.status === 201 && phase === 'after' && firstWriteAfter === undefined) firstWriteAfter = Date.now() - restartedAt;
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    await sleep(2000);
    log('outage: fast stop of PostgreSQL under write load (c4), 5 s down');
    phase = 'during';
    await cluster.stop();
    await sleep(5000);
    cluster = await startEmbeddedPostgres({ dir, persistent: true, port });
    restartedAt = Date.now();
    phase = 'after';
    await sleep(2000);
    running = false;
    await Promise.all(writers);
    const logText = fs.readFileSync(path.join(TMP, 'ops-outage.log'), 'utf8');
    const outageLines = logText.split('\n').filter((line) => /database unreachable|database reachable again/.test(line)).length;
    log(`  during: ${JSON.stringify(counts.during)}, slowest 503 ${slowest503} ms; first write ${firstWriteAfter} ms after the database was back; ${outageLines} outage log lines`);
    return { counts, slowest503, firstWriteAfter, outageLines, exitedDuring: svc.child.exitCode };
  } finally {
    await svc.stop();
    await cluster.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function report(machine, results) {
  const { one, two } = results.throughput;
  const o = results.outage;
  return `# Operations benchmark (\`npm run bench:operations\`)

Machine: ${machine.cpuModel}, ${machine.nproc} cores, ${machine.memoryGiB.toFixed(1)} GiB, Linux ${machine.kernel}, Node ${machine.node}.
Date: ${machine.date}. Commit: ${machine.commit.slice(0, 12)} (${machine.commitSubject}).${QUICK ? ' BENCH_QUICK=1 (short runs).' : ''}

## Write throughput, one vs two API processes (same PostgreSQL, ${SECONDS} s, c16 in all)

| processes | req/s | p99 ms | not 201 |
| --- | ---: | ---: | ---: |
| 1 (api, dns, worker) | ${one.rps.toFixed(1)} | ${one.p99} | ${one.bad} |
| 2 (+ one api) | ${two.rps.toFixed(1)} | ${two.p99} | ${two.bad} |

Both processes share the machine's 2 cores with PostgreSQL and the load generator, so a second process adds
parallelism only where one process leaves a core idle.

## PostgreSQL fast stop under write load (c4, 5 s down)

| phase | answers by status |
| --- | --- |
| before | ${JSON.stringify(o.counts.before)} |
| during | ${JSON.stringify(o.counts.during)} |
| after (2 s) | ${JSON.stringify(o.counts.after)} |

- slowest 503 during the outage: ${o.slowest503} ms (target: < 5,000 ms)
- first acknowledged write after PostgreSQL was back: ${o.firstWriteAfter} ms (target: < 1,000 ms)
- outage lines in the service's log: ${o.outageLines} (one when it went, one when it came back)
- the service process was still running after the outage: ${o.exitedDuring === null ? 'yes' : `no (exit ${o.exitedDuring})`}
`;
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  const results = { throughput: await throughput(), outage: await outage() };
  const file = path.join(__dirname, 'RESULTS-operations.md');
  fs.writeFileSync(file, report(machine, results));
  log(`written ${path.relative(ROOT, file)}`);
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack || error.message}\n`);
  process.exit(1);
});
