#!/usr/bin/env node
/**
 * The lists a hosting provider's tools read, at LIST_SIZES zones (default 10,000 and 100,000, seeded by SQL as
 * bench/scale.js seeds them, two users): the console's first page (its `Zones` query, console/src/operations.graphql,
 * totalCount included), a search (`nameStartsWith`, the console's filter), and the PowerDNS API's list of every
 * zone (first byte and last, bytes). LIST_RUNS timed runs of each after LIST_WARMUP untimed ones: p50 and max.
 *
 * Run: node bench/experiments/list-growth.js (after `node scripts/build-once.cjs`).
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { startService, ROOT } = require('../lib/service');
const { request, streamTimed } = require('../lib/proc');

const SIZES = (process.env.LIST_SIZES || '10000,100000').split(',').map(Number);
const RUNS = Number(process.env.LIST_RUNS || 9);
const WARMUP = Number(process.env.LIST_WARMUP || 3);
const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const API_KEY = 'bench-list-admin-key-0123456789';
const LOG = path.join(os.tmpdir(), `zk-list-growth-${process.pid}.log`);
const log = (...a) => console.log(new Date().toISOString().slice(11, 19), ...a);

/** the console's own `Zones` query, as it sends it */
const ZONES_QUERY = (() => {
  const text = fs.readFileSync(path.join(ROOT, 'console', 'src', 'operations.graphql'), 'utf8');
  const start = text.indexOf('query Zones(');
  let depth = 0;
  for (let i = text.indexOf('{', start); i < text.length; i++) {
    if (text[i] === '{') depth += 1;
    if (text[i] === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  throw new Error('no Zones query in console/src/operations.graphql');
})();

/** CPU seconds a process has used (user + system), from /proc */
function cpuOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const summary = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return { p50: +s[Math.floor(s.length / 2)].toFixed(1), max: +s[s.length - 1].toFixed(1) };
};

async function timed(label, run) {
  for (let i = 0; i < WARMUP; i++) await run();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { label, ...summary(times) };
}

async function main() {
  const dbName = `zk_bench_lists_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${dbName}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  log(`database ${dbName}; service log ${LOG}`);
  const svc = await startService({
    databaseUrl: url.toString(),
    apiKey: API_KEY,
    logFile: LOG,
    env: { LOG_LEVEL: 'warn', ROLES: 'api', HEALTH_CHECK_INTERVAL: '0' },
    nodeArgs: (process.env.LIST_NODE_ARGS || '').split(' ').filter(Boolean),
  });
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  const rows = [];
  try {
    const users = [];
    for (const email of ['a@lists.example', 'b@lists.example'])
      users.push((await svc.graphql(`mutation($e: String!) { createUser(input: {email: $e}) { id } }`, { e: email })).createUser.id);
    let seeded = 0;
    for (const size of SIZES) {
      await db.query(
        `insert into domains (user_id, name, serial, catalog_serial, record_count)
         select case when i % 2 = 0 then $1::bigint else $2::bigint end, 'z' || i || '.lists.test', 2026112901, 1, 4
           from generate_series($3::int, $4::int) as i`,
        [users[0], users[1], seeded + 1, size],
      );
      seeded = size;
      await db.query('vacuum analyze domains');
      await db.query('checkpoint');
      const gql = (variables) => async () => {
        const res = await request('POST', `${svc.base}/graphql`, { headers: svc.headers, body: { query: ZONES_QUERY, variables } });
        if (res.status !== 200 || res.json?.errors) throw new Error(`Zones → ${res.status} ${res.text.slice(0, 200)}`);
      };
      const firstPage = await timed('GraphQL Zones, first page of 50', gql({ first: 50 }));
      const search = await timed('GraphQL Zones, nameStartsWith "z5"', gql({ first: 50, nameStartsWith: 'z5' }));
      const list = [];
      const cpu = [];
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const before = cpuOf(svc.pid);
        const res = await streamTimed(`${svc.base}/api/v1/servers/localhost/zones`, svc.headers);
        if (res.status !== 200) throw new Error(`zone list → ${res.status}`);
        if (i >= WARMUP) list.push(res);
        if (i >= WARMUP) cpu.push((cpuOf(svc.pid) - before) * 1000);
      }
      const row = {
        zones: size,
        firstPage,
        search,
        powerdnsList: {
          firstByte: summary(list.map((r) => r.ttfbMs)),
          whole: summary(list.map((r) => r.totalMs)),
          MB: +(list[0].bytes / 1e6).toFixed(2),
          serviceCpuMs: summary(cpu),
        },
        load: os.loadavg()[0].toFixed(1),
      };
      rows.push(row);
      log(JSON.stringify(row));
    }
  } finally {
    await db.end();
    await svc.stop();
    // BENCH_KEEP_DATABASE=1 keeps it, for a look at its statements afterwards (as bench/lib/database.js)
    if (process.env.BENCH_KEEP_DATABASE === '1') log(`database kept: ${url}`);
    else await admin.query(`drop database if exists "${dbName}" with (force)`);
    await admin.end();
  }
  console.log(JSON.stringify(rows));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
