'use strict';
// Experiment behind bench/FINDINGS.md, «The worker's work after a write in one commit» (not the service; `npm run
// bench` does not run it):
//   BENCH_ADMIN_URL=<a PostgreSQL of its own> node bench/experiments/worker-commits.js <dist A> <dist B> [rounds] [seconds]
// What every role (ROLES=api,dns,worker, as `npm start`) costs PostgreSQL per API write: the PowerDNS API's PATCH
// of one new A rrset (REPLACE), one request at a time (BENCH_CONNECTIONS: more), against a database seeded alike
// for each build, rounds alternating A and B (a fresh service each). Per write: transactions committed in the
// service's database (pg_stat_database.xact_commit), WAL records, bytes and flushes (pg_stat_wal.wal_sync: the
// fsyncs a commit waits for), the service's CPU and PostgreSQL's (/proc/<pid>/stat of the postmaster's children).
//
// pg_stat_wal is the cluster's and PostgreSQL's backends report their counters at most once a second (at once
// only when they end), so: a cluster of the experiment's own (nothing else writes to it), counters read after
// 11 s of quiet (an idle backend reports after 10), and the idle rate measured before the writes (the worker's
// timers) taken off the 11 s read after them.
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const os = require('node:os');
const { Client } = require('pg');
const { startService } = require('../lib/service');
const { request, sleep } = require('../lib/proc');

const ADMIN_URL = process.env.BENCH_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 1);
const TMP = path.join(__dirname, '..', '.tmp');
// a database for each build, seeded alike: two builds whose migrations differ cannot share one
const DBS = { A: `zk_worker_commits_${process.pid}_a`, B: `zk_worker_commits_${process.pid}_b` };
const API_KEY = 'zk_experiment_admin_key_0123456789';
const [distA, distB] = process.argv.slice(2, 4).map((d) => path.resolve(d));
const ROUNDS = Number(process.argv[4] ?? 3);
const SECONDS = Number(process.argv[5] ?? 6);
const QUIET_MS = 11_000;
// BENCH_STATEMENTS=1: the statements of the writes' window, a write's share of their calls, time (planning and
// execution) and WAL records (pg_stat_statements, to be loaded by the cluster)
const STATEMENTS = process.env.BENCH_STATEMENTS === '1';
const IDLE_MS = 5_000;
const urlFor = (database) => Object.assign(new URL(ADMIN_URL), { pathname: `/${database}` }).toString();
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** CPU seconds (user + system) of a process, and its parent's pid */
function stat(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / 100 };
  } catch {
    return undefined;
  }
}

/** the service's CPU and that of the cluster's postmaster and its children (exited ones count in the postmaster's cutime) */
function cpuNow(servicePid, postmasterPid) {
  let postgres = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = stat(entry);
    if (s && (Number(entry) === postmasterPid || s.ppid === postmasterPid)) postgres += s.cpu;
  }
  const text = fs.readFileSync(`/proc/${postmasterPid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  postgres += (Number(fields[13]) + Number(fields[14])) / 100;
  return { service: stat(servicePid)?.cpu ?? 0, postgres };
}

async function main() {
  if (!distA || !distB) throw new Error('usage: node bench/experiments/worker-commits.js <dist A> <dist B> [rounds] [seconds]');
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const dataDir = (await admin.query('show data_directory')).rows[0].data_directory;
  const postmasterPid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  for (const db of Object.values(DBS)) await admin.query(`create database "${db}"`);
  if (STATEMENTS) await admin.query('create extension if not exists pg_stat_statements');
  const counters = async (database) => {
    const { rows } = await admin.query(
      `select (select xact_commit from pg_stat_database where datname = $1)::float8 as commits, wal_records::float8 as records,
              wal_bytes::float8 as bytes, wal_sync::float8 as syncs from pg_stat_wal`,
      [database],
    );
    return rows[0];
  };
  const minus = (a, b) => Object.fromEntries(Object.keys(a).map((k) => [k, a[k] - b[k]]));
  const logFile = path.join(TMP, 'worker-commits.log');
  const start = (dist, database) =>
    startService({
      databaseUrl: urlFor(database),
      apiKey: API_KEY,
      logFile,
      env: { ROLES: 'api,dns,worker' },
      main: path.join(dist, 'src', 'main.js'),
    });
  const agent = new http.Agent({ keepAlive: true });
  let n = 0;
  const patch = async (svc, zone) => {
    const i = n++;
    const body = {
      rrsets: [
        { name: `h${i}.${zone}.`, type: 'A', ttl: 3600, changetype: 'REPLACE', records: [{ content: '192.0.2.1', disabled: false }] },
      ],
    };
    const res = await request('PATCH', `${svc.base}/api/v1/servers/localhost/zones/${zone}.`, { headers: svc.headers, body, agent });
    if (res.status !== 204) throw new Error(`PATCH → ${res.status} ${res.text.slice(0, 200)}`);
  };
  try {
    let svc;
    const zones = Array.from({ length: Math.max(16, CONNECTIONS) }, (_, z) => `w${z}.experiment.example`);
    for (const [label, dist] of [
      ['A', distA],
      ['B', distB],
    ]) {
      svc = await start(dist, DBS[label]);
      const user = await svc.api('POST', '/user/add', { email: 'commits@experiment.example' });
      for (const name of zones) await svc.api('POST', '/domain/add', { user_id: user.id, zone: name });
      await svc.stop();
    }
    const figures = { A: [], B: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, dist] of [
        ['A', distA],
        ['B', distB],
      ]) {
        const database = DBS[label];
        svc = await start(dist, database);
        for (let w = 0; w < 50; w++) await patch(svc, zones[w % zones.length]);
        await sleep(QUIET_MS);
        const quiet = await counters(database);
        await sleep(IDLE_MS);
        const idleEnd = await counters(database);
        const idle = minus(idleEnd, quiet);
        if (STATEMENTS) await admin.query('select pg_stat_statements_reset()');
        const load = os.loadavg()[0];
        const cpu0 = cpuNow(svc.pid, postmasterPid);
        const until = Date.now() + SECONDS * 1000;
        let writes = 0;
        await Promise.all(
          Array.from({ length: CONNECTIONS }, async (_, c) => {
            while (Date.now() < until) {
              await patch(svc, zones[c]);
              writes++;
            }
          }),
        );
        const cpu1 = cpuNow(svc.pid, postmasterPid);
        const runMs = SECONDS * 1000;
        await sleep(QUIET_MS);
        const after = await counters(database);
        await svc.stop();
        if (STATEMENTS) {
          const { rows } = await admin.query(
            `select calls, total_exec_time + total_plan_time as ms, wal_records, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) as text
               from pg_stat_statements s join pg_database d on d.oid = s.dbid
              where d.datname = $1 order by calls desc limit 14`,
            [database],
          );
          for (const r of rows) {
            const [calls, us, wal] = [r.calls / writes, (1000 * r.ms) / writes, r.wal_records / writes];
            console.log(`  ${calls.toFixed(2)} calls, ${us.toFixed(0)} µs, ${wal.toFixed(1)} WAL records a write  ${r.text}`);
          }
        }
        const delta = minus(after, idleEnd);
        const per = (k) => (delta[k] - (idle[k] * QUIET_MS) / IDLE_MS) / writes;
        const row = {
          writes,
          rate: writes / (runMs / 1000),
          commits: per('commits'),
          records: per('records'),
          bytes: per('bytes'),
          syncs: per('syncs'),
          idleCommits: (idle.commits * 1000) / IDLE_MS,
          idleSyncs: (idle.syncs * 1000) / IDLE_MS,
          node: (1000 * (cpu1.service - cpu0.service)) / writes,
          postgres: (1000 * (cpu1.postgres - cpu0.postgres)) / writes,
          load: `${load.toFixed(1)}→${os.loadavg()[0].toFixed(1)}`,
        };
        figures[label].push(row);
        console.log(
          `${new Date().toISOString().slice(11, 19)} ${label} round ${round + 1}: ${writes} writes (${row.rate.toFixed(0)}/s), per write: ` +
            `${row.commits.toFixed(2)} commits, ${row.syncs.toFixed(2)} WAL flushes, ${row.records.toFixed(1)} WAL records, ${row.bytes.toFixed(0)} WAL bytes, ` +
            `node ${row.node.toFixed(2)} ms, PostgreSQL ${row.postgres.toFixed(2)} ms CPU; idle ${row.idleCommits.toFixed(1)} commits/s, ` +
            `${row.idleSyncs.toFixed(1)} flushes/s; load ${row.load}`,
        );
      }
    }
    for (const label of ['A', 'B']) {
      const f = figures[label];
      const m = (k) => median(f.map((r) => r[k]));
      console.log(
        `${label} medians: ${m('rate').toFixed(0)} writes/s, ${m('commits').toFixed(2)} commits, ${m('syncs').toFixed(2)} WAL flushes, ${m('records').toFixed(1)} WAL records, ` +
          `${m('bytes').toFixed(0)} WAL bytes, node ${m('node').toFixed(2)} ms, PostgreSQL ${m('postgres').toFixed(2)} ms a write; idle ${m('idleCommits').toFixed(1)} commits/s, ${m('idleSyncs').toFixed(1)} flushes/s`,
      );
    }
  } finally {
    for (const db of Object.values(DBS)) await admin.query(`drop database if exists "${db}" with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
