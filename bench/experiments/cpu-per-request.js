'use strict';
// Experiment behind bench/FINDINGS.md, session 2 (not the service; `npm run bench` does not run it):
//   node bench/experiments/cpu-per-request.js write            (after `npm run build`)
//   node bench/experiments/cpu-per-request.js graphql [users]
//   node bench/experiments/cpu-per-request.js floor            (the write floor of bench/lib/write-floor.js, in this process)
// BENCH_ROLES=api,dns runs the service without its worker role; BENCH_NODE_ARGS passes node flags (profiles).
// Seeds a fresh database, then twice: starts the service as the bench does, warms up for 3 s, loads it for 10 s
// (writes: wrk, POST /api/record/add at concurrency 16 into 100 zones; graphql: autocannon at concurrency 1,
// `users(first: N) { domains { records } }` over 100 users × 10 zones × 10 records), and prints the latency and
// the CPU time per request of the service process and of all PostgreSQL processes (/proc/<pid>/stat), which
// tells which side a change saved work on even when the machine's noise hides it in the throughput.
const path = require('node:path');
const { Client } = require('pg');
const { wrk } = require('../lib/wrk');
const { load } = require('../lib/load');
const { startService } = require('../lib/service');
const { cpuBetween, processTimes } = require('../lib/proc');
const { startWriteFloor } = require('../lib/write-floor');
const { seedNestedGraph } = require('../lib/nested-graph');

const ADMIN_URL = process.env.BENCH_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const TMP = path.join(__dirname, '..', '.tmp');
const DB = `zk_cpu_${process.pid}`;
const API_KEY = 'zk_experiment_admin_key_0123456789';
const scenario = process.argv[2];
const users = Number(process.argv[3] ?? 100);
const urlFor = (database) => Object.assign(new URL(ADMIN_URL), { pathname: `/${database}` }).toString();

async function seed(svc, db) {
  if (scenario === 'write' || scenario === 'floor') {
    const owner = await svc.api('POST', '/user/add', { email: 'cpu@experiment.example' });
    const zones = [];
    for (let z = 0; z < 100; z++) zones.push((await svc.api('POST', '/domain/add', { user_id: owner.id, zone: `w${z}.experiment.example` })).zone ?? `w${z}.experiment.example`);
    return zones.map((zone) => zone.replace(/\.$/, ''));
  }
  await seedNestedGraph(svc, db);
  return [];
}

/** the write floor in this process, shaped like a started service (its CPU is this process's) */
async function floorAsService(databaseUrl) {
  const floor = await startWriteFloor(databaseUrl);
  return { ...floor, pid: process.pid, headers: {} };
}

async function main() {
  if (!['write', 'graphql', 'floor'].includes(scenario)) throw new Error('usage: node bench/experiments/cpu-per-request.js write|graphql|floor [users]');
  require('node:fs').mkdirSync(TMP, { recursive: true });
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${DB}"`);
  const db = new Client({ connectionString: urlFor(DB) });
  const logFile = path.join(TMP, `cpu-${scenario}.log`);
  let svc;
  try {
    svc = await startService({ databaseUrl: urlFor(DB), apiKey: API_KEY, logFile });
    await db.connect();
    const zones = await seed(svc, db);
    await svc.stop();
    let offset = 0;
    for (let run = 1; run <= 2; run++) {
      // BENCH_NODE_ARGS: e.g. --cpu-prof --cpu-prof-dir=bench/.tmp/prof (a profile of each measured run)
      svc = scenario === 'floor'
        ? await floorAsService(urlFor(DB))
        : await startService({ databaseUrl: urlFor(DB), apiKey: API_KEY, logFile, env: process.env.BENCH_ROLES ? { ROLES: process.env.BENCH_ROLES } : {}, nodeArgs: (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean) });
      const headers = { ...svc.headers, 'content-type': 'application/json' };
      const body = JSON.stringify({ query: `{ users(first: ${users}) { nodes { email domains(first: 10) { name records(first: 10) { owner type rdata ttl } } } } }` });
      const measure = (seconds) => (scenario !== 'graphql'
        ? wrk({ url: `${svc.base}/api/record/add`, kind: 'zk-record', method: 'POST', headers, zones, expect: 201, tmpDir: TMP, connections: 16, seconds, offset: (offset += 1_000_000) })
        : load({ url: `${svc.base}/graphql`, method: 'POST', headers, next: () => body, connections: 1, duration: seconds }));
      await measure(3);
      const before = processTimes();
      const r = await measure(10);
      const cpu = cpuBetween(before, processTimes(), svc.pid);
      const requests = r.requests ?? Math.round(r.rps * 10);
      const bad = (r.non2xx ?? 0) + (r.bad ?? 0) + (r.errors ?? 0);
      console.log(`${scenario} run ${run}: ${r.rps.toFixed(1)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${bad} failed; `
        + `CPU per request: service ${((1000 * cpu.service) / requests).toFixed(2)} ms, PostgreSQL ${((1000 * cpu.postgres) / requests).toFixed(2)} ms`);
      await svc.stop();
      svc = undefined;
    }
  } finally {
    await svc?.stop();
    await db.end().catch(() => undefined);
    await admin.query(`drop database if exists "${DB}" with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
