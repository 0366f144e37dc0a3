#!/usr/bin/env node
/**
 * How a zone create's cost grows with the zones already there, through the API as a hosting provider makes them:
 * GraphQL documents of GROWTH_BATCH aliased `createDomain` mutations (or one `createDomains` of GROWTH_BATCH zones
 * with GROWTH_BULK=1), GROWTH_CONCURRENCY at once, in segments of GROWTH_SEGMENT zones up to GROWTH_ZONES.
 * Per segment: zones/s, and the CPU seconds per 1,000 zones of the service process and of the PostgreSQL
 * backends serving this database (their pids from pg_stat_activity: the machine is shared, so the other
 * databases' backends are left out), and what those backends were running, sampled every 20 ms from
 * pg_stat_activity (a statement seen often is one that takes long).
 *
 * Run: node bench/experiments/create-growth.js (after `node scripts/build-once.cjs`). Zone health's checks are
 * sent to the service's own DNS port (HEALTH_ROOT_HINTS): the bench sends nothing off this machine.
 */
'use strict';
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { startService } = require('../lib/service');
const { freePort, request } = require('../lib/proc');

const ZONES = Number(process.env.GROWTH_ZONES || 20_000);
const SEGMENT = Number(process.env.GROWTH_SEGMENT || 2_000);
const BATCH = Number(process.env.GROWTH_BATCH || 100);
const CONCURRENCY = Number(process.env.GROWTH_CONCURRENCY || 4);
const BULK = process.env.GROWTH_BULK === '1';
/** zones made by SQL before the API's (as bench/scale.js seeds them), to start the segments further up */
const SEEDED = Number(process.env.GROWTH_SEEDED || 0);
const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const API_KEY = 'bench-growth-admin-key-0123456789';
const LOG = path.join(os.tmpdir(), `zk-create-growth-${process.pid}.log`);
const log = (...a) => console.log(new Date().toISOString().slice(11, 19), ...a);

function cpuOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function backendPids(db, dbName) {
  const { rows } = await db.query('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName]);
  return rows.map((r) => r.pid);
}

/** samples what this database's other backends run until stopped; answers the statements seen, most first */
function sampleStatements(db, dbName) {
  const seen = new Map();
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await db.query(
        "select query from pg_stat_activity where datname = $1 and state = 'active' and pid <> pg_backend_pid()",
        [dbName],
      );
      samples += 1;
      for (const { query } of rows) {
        const key = query.replace(/\s+/g, ' ').slice(0, 140);
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return { samples, top: [...seen].sort((a, b) => b[1] - a[1]).slice(0, 8) };
  };
}

async function main() {
  const dbName = `zk_bench_growth_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${dbName}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const dnsPort = await freePort();
  log(`database ${dbName}; service log ${LOG}`);
  const svc = await startService({
    databaseUrl: url.toString(),
    apiKey: API_KEY,
    logFile: LOG,
    env: {
      CATALOG_ZONE: 'catalog.growth.test',
      LOG_LEVEL: 'warn',
      ROLES: 'api,dns,worker',
      DNS_LISTEN: `127.0.0.1:${dnsPort}`,
      HEALTH_ROOT_HINTS: `127.0.0.1:${dnsPort}`,
      // GROWTH_HEALTH_INTERVAL=0: no zone health checks, to see the create path alone
      ...(process.env.GROWTH_HEALTH_INTERVAL ? { HEALTH_CHECK_INTERVAL: process.env.GROWTH_HEALTH_INTERVAL } : {}),
    },
  });
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  const sampler = new Client({ connectionString: url.toString() });
  await sampler.connect();
  try {
    const { createUser } = await svc.graphql('mutation { createUser(input: {email: "growth@example.com"}) { id } }');
    const userId = createUser.id;
    if (SEEDED) {
      await db.query(
        `insert into domains (user_id, name, serial, catalog_serial) select $1, 's' || i || '.growth.test', 2026112901, 1 from generate_series(1, $2::int) as i`,
        [userId, SEEDED],
      );
      await db.query('update users set zone_count = zone_count + $2 where id = $1', [userId, SEEDED]);
      await db.query('vacuum analyze domains');
      log(`seeded ${SEEDED} zones by SQL`);
    }
    const document = (names) =>
      BULK
        ? {
            query: `mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id } }`,
            variables: { input: names.map((zone) => ({ userId, zone })) },
          }
        : {
            query: `mutation($u: ID!) { ${names.map((z, i) => `c${i}: createDomain(input: {userId: $u, zone: "${z}"}) { id }`).join(' ')} }`,
            variables: { u: userId },
          };
    let next = 0;
    const rows = [];
    for (let from = 0; from < ZONES; from += SEGMENT) {
      const end = Math.min(ZONES, from + SEGMENT);
      const pids = await backendPids(db, dbName);
      const before = { service: cpuOf(svc.pid), pg: pids.map(cpuOf) };
      const stop = sampleStatements(sampler, dbName);
      const t0 = process.hrtime.bigint();
      const one = async () => {
        for (;;) {
          const start = next;
          if (start >= end) return;
          next = Math.min(end, start + BATCH);
          const names = [];
          for (let i = start; i < next; i++) names.push(`g${i}.growth.test`);
          const res = await request('POST', `${svc.base}/graphql`, { headers: svc.headers, body: document(names) });
          if (res.status !== 200 || res.json?.errors) throw new Error(`create → ${res.status} ${res.text.slice(0, 300)}`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, one));
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const statements = await stop();
      const service = cpuOf(svc.pid) - before.service;
      const pg = pids.reduce((sum, pid, i) => sum + cpuOf(pid) - before.pg[i], 0);
      const per1000 = 1000 / (end - from);
      const row = {
        zones: `${SEEDED + from}–${SEEDED + end}`,
        perSecond: Math.round((end - from) / seconds),
        serviceCpuPer1000: +(service * per1000).toFixed(2),
        postgresCpuPer1000: +(pg * per1000).toFixed(2),
        load: os.loadavg()[0].toFixed(1),
      };
      rows.push(row);
      log(JSON.stringify(row));
      for (const [query, n] of statements.top) log(`   ${((100 * n) / statements.samples).toFixed(0).padStart(4)}% ${query}`);
    }
    console.log(JSON.stringify(rows));
  } finally {
    await sampler.end();
    await db.end();
    await svc.stop();
    if (process.env.GROWTH_KEEP_DATABASE !== '1') await admin.query(`drop database if exists "${dbName}" with (force)`);
    else log(`kept ${dbName}`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
