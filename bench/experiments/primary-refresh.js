#!/usr/bin/env node
/**
 * The DNS primary's pace and cost for its secondaries (docs/scale.md, «The primary is the next limit»):
 * REFRESH_ZONES zones made through the API (`createDomains`, 1,000 a call) with TSIG_KEY set, as a fleet runs;
 * then for REFRESH_SECONDS, REFRESH_AT_ONCE clients at a time, each a secondary's refresh of a zone picked at
 * random: an SOA query over UDP, then the zone's AXFR over TCP signed with the key (REFRESH_SOA_ONLY=1: the SOA
 * query alone, what every REFRESH timer costs). Printed: refreshes a second, and the CPU each took in the service
 * process and in PostgreSQL's backends of the database (from /proc), so that the cost is seen apart from the
 * client's, which shares the host.
 *
 * BENCH_OTHER=<a worktree of another commit, built>: the two builds run in turn, BENCH_ROUNDS times each, in the
 * same run (an A/B on one host).
 *
 * Run: node bench/experiments/primary-refresh.js (after `node scripts/build-once.cjs`).
 */
'use strict';
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { startService, ROOT } = require('../lib/service');
const { processTimes, request } = require('../lib/proc');

const ZONES = Number(process.env.REFRESH_ZONES || 5000);
const SECONDS = Number(process.env.REFRESH_SECONDS || 15);
const AT_ONCE = Number(process.env.REFRESH_AT_ONCE || 32);
const SOA_ONLY = process.env.REFRESH_SOA_ONLY === '1';
const ROUNDS = Number(process.env.BENCH_ROUNDS || 2);
const OTHER = process.env.BENCH_OTHER;
const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const API_KEY = 'bench-refresh-admin-key-0123456789';
const LOG = path.join(require('node:os').tmpdir(), `zk-primary-refresh-${process.pid}.log`);

/** CPU seconds of PostgreSQL's backends serving `database` (their command line names it) between two snapshots */
function backendsCpu(before, after, database) {
  let used = 0;
  for (const [pid, { cpu, command }] of after) if (command.includes(database)) used += cpu - (before.get(pid)?.cpu ?? 0);
  return used;
}

async function run(root) {
  const database = `zk_bench_refresh_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${database}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  const key = { name: 'bench-fleet', algorithm: 'hmac-sha256', secret: randomBytes(32) };
  const svc = await startService({
    databaseUrl: url.toString(),
    apiKey: API_KEY,
    logFile: LOG,
    main: path.join(root, 'dist', 'src', 'main.js'),
    env: {
      LOG_LEVEL: 'warn',
      ROLES: 'api,dns,worker',
      HEALTH_CHECK_INTERVAL: '0',
      // a secondary that is not there: its status rows stay pending, as a fleet's do while it catches up
      SECONDARIES: '127.0.0.1:40000',
      CATALOG_ZONE: 'catalog.refresh.test',
      TSIG_KEY: `${key.name}:${key.algorithm}:${key.secret.toString('base64')}`,
    },
  });
  try {
    const gql = async (query, variables) => {
      const res = await request('POST', `${svc.base}/graphql`, { headers: svc.headers, body: { query, variables } });
      if (res.status !== 200 || res.json.errors) throw new Error(`${res.status} ${res.text.slice(0, 300)}`);
      return res.json.data;
    };
    const user = (await gql(`mutation { createUser(input: {email: "refresh@example.org"}) { id } }`)).createUser.id;
    for (let i = 0; i < ZONES; i += 1000) {
      const input = Array.from({ length: Math.min(1000, ZONES - i) }, (_, j) => ({ userId: user, zone: `z${i + j}.refresh.test` }));
      await gql(`mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id } }`, { input });
    }
    // the worker's first NOTIFYs and status checks of the new zones, over before the clock starts
    await new Promise((resolve) => setTimeout(resolve, 8000));
    const { querySoaSerial } = require(path.join(ROOT, 'dist', 'src', 'dns-client', 'dns-client'));
    const { axfr } = require(path.join(ROOT, 'dist', 'src', 'dns-client', 'zone-transfer-in'));
    const server = { host: '127.0.0.1', port: svc.dnsPort };
    const pick = () => `z${Math.floor(Math.random() * ZONES)}.refresh.test`;
    let done = 0;
    let failed = 0;
    const before = processTimes();
    const started = Date.now();
    const until = started + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (Date.now() < until) {
          const zone = pick();
          try {
            const soa = await querySoaSerial(server, zone, 2000);
            if (!soa.ok) throw new Error(soa.reason);
            if (!SOA_ONLY) await axfr({ ...server, key }, zone);
            done += 1;
          } catch {
            failed += 1;
          }
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const after = processTimes();
    return {
      perSecond: Math.round(done / seconds),
      failed,
      serviceMs: ((after.get(svc.pid).cpu - before.get(svc.pid).cpu) * 1000) / done,
      postgresMs: (backendsCpu(before, after, database) * 1000) / done,
    };
  } finally {
    await svc.stop();
    await admin.query(`drop database "${database}" with (force)`);
    await admin.end();
  }
}

async function main() {
  const what = SOA_ONLY ? 'SOA queries' : 'refreshes (an SOA query and a signed AXFR)';
  console.log(`${new Date().toISOString()}: ${what}, ${ZONES} zones, ${AT_ONCE} at once, ${SECONDS} s a run`);
  const builds = OTHER ? [['other', OTHER], ['this', ROOT]] : [['this', ROOT]];
  for (let round = 0; round < (OTHER ? ROUNDS : 1); round++)
    for (const [name, root] of builds) {
      const r = await run(root);
      console.log(
        `${name} (${root}): ${r.perSecond} a second, ${r.failed} failed; CPU each: service ${r.serviceMs.toFixed(2)} ms, PostgreSQL ${r.postgresMs.toFixed(2)} ms`,
      );
    }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
