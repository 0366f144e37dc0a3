'use strict';
// `node bench/profile.js write|list|graphql|pdns-patch|pdns-patch-1000` (after `npm run build`): the service under `node --cpu-prof`, one
// scenario of the benchmark, then the profile summed by package and by function (self time). The
// .cpuprofile stays in bench/.tmp/prof-<scenario>/ (open it in Chrome DevTools for the call tree).
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');
const { load } = require('./lib/load');
const { wrk } = require('./lib/wrk');
const { startService } = require('./lib/service');
const { streamTimed, request } = require('./lib/proc');

const ADMIN_URL = process.env.BENCH_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const TMP = path.join(__dirname, '.tmp');
const scenario = process.argv[2];
const DB = `zk_profile_${process.pid}`;
const urlFor = (database) => Object.assign(new URL(ADMIN_URL), { pathname: `/${database}` }).toString();

function summarise(file, top = 25) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const time = new Map();
  prof.samples.forEach((id, i) => time.set(id, (time.get(id) || 0) + (prof.timeDeltas[i] || 0)));
  const byPackage = new Map();
  const byFunction = new Map();
  let total = 0;
  for (const [id, t] of time) {
    const { url, functionName, lineNumber } = byId.get(id).callFrame;
    total += t;
    const pkg = url.includes('node_modules/') ? url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1')
      : url.includes('/dist/src/') ? `zonekeeper ${url.replace(/.*\/dist\/src\//, '')}` : url.startsWith('node:') ? 'node core' : `(${functionName || 'native'})`;
    byPackage.set(pkg, (byPackage.get(pkg) || 0) + t);
    const fn = `${functionName || '(anonymous)'} ${url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'dist/')}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) || 0) + t);
  }
  const show = (title, map) => {
    console.log(`\n${title} (of ${(total / 1e6).toFixed(2)} s sampled)`);
    [...map].sort((a, b) => b[1] - a[1]).slice(0, top)
      .forEach(([k, t]) => console.log(`${(t / 1e6).toFixed(2).padStart(7)} s ${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`));
  };
  show('self time by package', byPackage);
  show('self time by function', byFunction);
}

async function main() {
  if (!['write', 'list', 'graphql', 'pdns-patch', 'pdns-patch-1000'].includes(scenario)) throw new Error('usage: node bench/profile.js write|list|graphql|pdns-patch|pdns-patch-1000');
  fs.mkdirSync(TMP, { recursive: true });
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${DB}"`);
  const profDir = path.join(TMP, `prof-${scenario}`);
  fs.rmSync(profDir, { recursive: true, force: true });
  // seeding runs on a service without the profiler; the profiled process then runs only the scenario
  let svc = await startService({ databaseUrl: urlFor(DB), apiKey: 'zk_profile_admin_key_0123456789', logFile: path.join(TMP, `profile-${scenario}.log`) });
  const profiled = () => startService({
    databaseUrl: urlFor(DB), apiKey: 'zk_profile_admin_key_0123456789', logFile: path.join(TMP, `profile-${scenario}.log`),
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`],
  });
  const db = new Client({ connectionString: urlFor(DB) });
  await db.connect();
  try {
    const user = await svc.api('POST', '/user/add', { email: 'p@profile.example' });
    const zones = [];
    for (let z = 0; z < (scenario === 'graphql' ? 0 : 100); z++) {
      zones.push({ name: `p${z}.profile.example`, id: (await svc.api('POST', '/domain/add', { user_id: user.id, zone: `p${z}.profile.example` })).id });
    }
    await svc.stop();
    if (scenario === 'list') {
      await db.query(`insert into records (domain_id, owner, type, rdata, ttl)
        select ($1::bigint[])[1 + g % 100], 'n' || g, 'A', '10.0.' || ((g >> 8) & 255) || '.' || (g & 255), 3600 from generate_series(0, 99599) g`, [zones.map((z) => z.id)]);
    }
    if (scenario === 'graphql') {
      svc = await startService({ databaseUrl: urlFor(DB), apiKey: 'zk_profile_admin_key_0123456789', logFile: path.join(TMP, `profile-${scenario}.log`) });
      const users = [];
      for (let u = 0; u < 100; u++) users.push((await svc.api('POST', '/user/add', { email: `u${u}@profile.example` })).id);
      const ids = [];
      for (const u of users) for (let z = 0; z < 10; z++) ids.push((await svc.api('POST', '/domain/add', { user_id: u, zone: `z${z}.u${u}.profile.example` })).id);
      await db.query(`insert into records (domain_id, owner, type, rdata, ttl) select d.id, 'r' || g, 'A', '192.0.2.' || (g + 1), 3600 from unnest($1::bigint[]) d(id), generate_series(0, 5) g`, [ids]);
      await svc.stop();
    }
    svc = await profiled();
    if (scenario === 'write') {
      const r = await wrk({ url: `${svc.base}/api/record/add`, kind: 'zk-record', method: 'POST', headers: { ...svc.headers, 'content-type': 'application/json' },
        zones: zones.map((z) => z.name), expect: 201, tmpDir: TMP, connections: 16, seconds: 15, offset: 0 });
      console.log(`write: ${r.rps.toFixed(1)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}`);
    } else if (scenario.startsWith('pdns-patch')) {
      // bench/powerdns-api.js's cases "1 rrset c1" and "1000 rrsets c1": PATCHes of new A rrsets through the
      // PowerDNS API, one request at a time
      const count = scenario === 'pdns-patch-1000' ? 1000 : 1;
      const http = require('node:http');
      const agent = new http.Agent({ keepAlive: true });
      const deadline = Date.now() + 15_000;
      const times = [];
      for (let i = 0; Date.now() < deadline; i++) {
        const zone = zones[i % zones.length].name;
        const body = {
          rrsets: Array.from({ length: count }, (_, j) => ({
            name: `h${i}-${j}.${zone}.`, type: 'A', ttl: 3600, changetype: 'REPLACE', records: [{ content: '192.0.2.1', disabled: false }],
          })),
        };
        const t0 = Date.now();
        const res = await request('PATCH', `${svc.base}/api/v1/servers/localhost/zones/${zone}.`, { headers: svc.headers, body, agent });
        if (res.status !== 204) throw new Error(`PATCH → ${res.status} ${res.text.slice(0, 200)}`);
        times.push(Date.now() - t0);
      }
      times.sort((a, b) => a - b);
      console.log(`${scenario}: ${(times.length / 15).toFixed(1)} req/s, p50 ${times[times.length >> 1]} ms`);
    } else if (scenario === 'list') {
      for (let i = 0; i < 3; i++) {
        const t = await streamTimed(`${svc.base}/api/record/list`, svc.headers);
        console.log(`list: ${t.bytes} bytes, last byte at ${t.totalMs.toFixed(0)} ms`);
      }
    } else {
      const body = JSON.stringify({ query: '{ users(first: 100) { nodes { email domains(first: 10) { name records(first: 10) { owner type rdata ttl } } } } }' });
      const r = await load({ url: `${svc.base}/graphql`, method: 'POST', headers: { ...svc.headers, 'content-type': 'application/json' }, next: () => body, connections: 1, duration: 15 });
      console.log(`graphql: p50 ${r.p50} ms, p99 ${r.p99} ms`);
    }
  } finally {
    await db.end();
    await svc.stop();
    await admin.query(`drop database if exists "${DB}" with (force)`);
    await admin.end();
  }
  const [file] = fs.readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile'));
  console.log(`profile: ${path.relative(process.cwd(), path.join(profDir, file))}`);
  summarise(path.join(profDir, file));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
