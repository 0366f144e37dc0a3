'use strict';
// Experiment behind bench/FINDINGS.md, «The bulk PATCH's parsing» (not the service; `npm run bench` does not run it):
//   node bench/experiments/pdns-patch-cpu.js <dist A> <dist B> [rounds] [requests]   (each a built dist/ directory)
// The PowerDNS API's PATCH of 1,000 new A rrsets (REPLACE), one request at a time, as bench/powerdns-api.js's
// "1000 rrsets c1": one seeded database, then rounds alternating A and B (a fresh service each, ROLES=api, 5
// requests of warm-up), each printing the service's CPU per request and PostgreSQL's (/proc/<pid>/stat), which a
// loaded machine does not hide as it hides throughput. With CPU_PROF_DIR set, B's services run under `node
// --cpu-prof` and leave their profiles there (one per round).
const path = require('node:path');
const http = require('node:http');
const os = require('node:os');
const { Client } = require('pg');
const { startService } = require('../lib/service');
const { cpuBetween, processTimes, request } = require('../lib/proc');

const ADMIN_URL = process.env.BENCH_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const TMP = path.join(__dirname, '..', '.tmp');
const DB = `zk_patch_cpu_${process.pid}`;
const API_KEY = 'zk_experiment_admin_key_0123456789';
const [distA, distB] = process.argv.slice(2, 4).map((d) => path.resolve(d));
const ROUNDS = Number(process.argv[4] ?? 3);
const REQUESTS = Number(process.argv[5] ?? 40);
const urlFor = (database) => Object.assign(new URL(ADMIN_URL), { pathname: `/${database}` }).toString();
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function main() {
  if (!distA || !distB) throw new Error('usage: node bench/experiments/pdns-patch-cpu.js <dist A> <dist B> [rounds] [requests]');
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${DB}"`);
  const logFile = path.join(TMP, 'pdns-patch-cpu.log');
  const profile = process.env.CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.CPU_PROF_DIR)}`] : [];
  const start = (dist, nodeArgs = []) =>
    startService({ databaseUrl: urlFor(DB), apiKey: API_KEY, logFile, env: { ROLES: 'api' }, nodeArgs, main: path.join(dist, 'src', 'main.js') });
  const agent = new http.Agent({ keepAlive: true });
  let n = 0;
  const patch = async (svc, zone) => {
    const i = n++;
    const body = {
      rrsets: Array.from({ length: 1000 }, (_, j) => ({
        name: `h${i}-${j}.${zone}.`,
        type: 'A',
        ttl: 3600,
        changetype: 'REPLACE',
        records: [{ content: '192.0.2.1', disabled: false }],
      })),
    };
    const t0 = process.hrtime.bigint();
    const res = await request('PATCH', `${svc.base}/api/v1/servers/localhost/zones/${zone}.`, { headers: svc.headers, body, agent });
    if (res.status !== 204) throw new Error(`PATCH → ${res.status} ${res.text.slice(0, 200)}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  try {
    let svc = await start(distA);
    const user = await svc.api('POST', '/user/add', { email: 'cpu@experiment.example' });
    const zones = [];
    for (let z = 0; z < 20; z++) {
      const name = `b${z}.experiment.example`;
      await svc.api('POST', '/domain/add', { user_id: user.id, zone: name });
      zones.push(name);
    }
    await svc.stop();
    const figures = { A: [], B: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [label, dist] of [
        ['A', distA],
        ['B', distB],
      ]) {
        svc = await start(dist, label === 'B' ? profile : []);
        for (let w = 0; w < 5; w++) await patch(svc, zones[w % zones.length]);
        const load = os.loadavg()[0];
        const before = processTimes();
        const times = [];
        for (let r = 0; r < REQUESTS; r++) times.push(await patch(svc, zones[r % zones.length]));
        const cpu = cpuBetween(before, processTimes(), svc.pid);
        await svc.stop();
        const row = {
          node: (1000 * cpu.service) / REQUESTS,
          postgres: (1000 * cpu.postgres) / REQUESTS,
          p50: median(times),
          load: `${load.toFixed(1)}→${os.loadavg()[0].toFixed(1)}`,
        };
        figures[label].push(row);
        console.log(
          `${new Date().toISOString().slice(11, 19)} ${label} round ${round + 1}: node ${row.node.toFixed(1)} ms/req, PostgreSQL ${row.postgres.toFixed(1)} ms/req, p50 ${row.p50.toFixed(0)} ms, load ${row.load}`,
        );
      }
    }
    for (const label of ['A', 'B'])
      console.log(
        `${label}: node median ${median(figures[label].map((f) => f.node)).toFixed(1)} ms/req, PostgreSQL median ${median(figures[label].map((f) => f.postgres)).toFixed(1)} ms/req`,
      );
  } finally {
    await admin.query(`drop database if exists "${DB}" with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
