'use strict';
// Experiment (not the service; no `npm run` script runs it): the service's CPU per single-record write with
// DNSSEC on and off, as bench/dnssec-writes.js loads it (`POST /api/record/add` of a new owner, an A record, on
// zones preloaded with 1,000 records), measured as CPU time rather than writes/s, since the machine is shared:
//   node bench/experiments/dnssec-write-cpu.js                    (after `npm run build`)
//   node bench/experiments/dnssec-write-cpu.js --other <checkout>  (A/B: that checkout's build, alternating)
//   options: --rounds N (3), --seconds S (8), --warmup S (2; 20 for steady state: V8 compiles the signed write's
//   code for longer), --prof (a .cpuprofile per run, summed by function: self and inclusive time per write;
//   wall-clock samples), --perf (`perf record -e cpu-clock` of the service: CPU-time samples, in bench/.tmp),
//   --cases unsigned,nsec,nsec3, --same-database (every run on the seeded database itself, as before: each run
//   then finds the dead rows of the runs before it)
// Seeds a fresh database once (with this checkout's build), then per round and build starts the service
// (`ROLES=api`, as the bench) on a copy of it (CREATE DATABASE … TEMPLATE), warms it up for --warmup seconds per case, loads
// each case for S seconds (8 connections over 8 zones) and reads the CPU of the service process and of
// PostgreSQL's processes from /proc/<pid>/stat. Each run on its own copy finds the same rows, dead rows and
// statistics: on a server without autovacuum (CI's) every run on one database would leave the next more dead
// rows to step over (each signed write replaces the apex's SOA RRSIG), which alternating builds does not cancel.
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');
const { load } = require('../lib/load');
const { startService, ROOT } = require('../lib/service');
const { cpuBetween, processTimes } = require('../lib/proc');

const ADMIN_URL = process.env.BENCH_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const TMP = path.join(__dirname, '..', '.tmp');
const DB = `zk_dnssec_cpu_${process.pid}`;
const API_KEY = 'zk_experiment_admin_key_0123456789';
const urlFor = (database) => Object.assign(new URL(ADMIN_URL), { pathname: `/${database}` }).toString();
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : process.argv[i + 1];
};
const ROUNDS = Number(arg('rounds', 3));
const SECONDS = Number(arg('seconds', 8));
// the warm-up before the measured seconds: long enough for V8 to have compiled the write's code (a signed write
// has more of it, and at half the writes per second takes twice as long to get there)
const WARMUP = Number(arg('warmup', 2));
// --warmup-writes N: the warm-up as a count of writes rather than seconds (a loaded machine runs a few dozen
// writes a second, too few for V8 to have compiled the signed write's code in a warm-up of seconds);
// --rate R with --writes N: N writes paced at R a second, the same rate for every build and case, so that the
// work the process does per second whatever it writes (timers, the journal's wake-up) weighs the same per write;
// the process's CPU over as many idle seconds is measured too and taken off
const WARMUP_WRITES = Number(arg('warmup-writes', 0));
const RATE = Number(arg('rate', 0));
const WRITES = Number(arg('writes', 0));
const PROF = process.argv.includes('--prof');
// --perf: `perf record -e cpu-clock` of the service during the measured seconds (CPU time only: a process
// descheduled is not sampled, where --prof's wall-clock samples pile up in writev on a loaded machine)
const PERF = process.argv.includes('--perf');
const OTHER = arg('other', undefined);
const SAME_DATABASE = process.argv.includes('--same-database');
const CASES = arg('cases', 'unsigned,nsec').split(',');
const ZONES = 8;
const CONNECTIONS = 8;
const PRELOAD = 1000;

/** a .cpuprofile summed by function: self and inclusive time (a function counted once per sample) */
function summarise(file, writes, top = 30) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) => {
    const { url, functionName, lineNumber } = n.callFrame;
    return `${functionName || '(anonymous)'} ${url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'dist/')}:${lineNumber + 1}`;
  };
  const self = new Map();
  const inclusive = new Map();
  let total = 0;
  prof.samples.forEach((id, i) => {
    const t = prof.timeDeltas[i + 1] ?? 0;
    total += t;
    const node = byId.get(id);
    if (node.callFrame.functionName === '(idle)') return;
    self.set(name(node), (self.get(name(node)) || 0) + t);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const k = name(byId.get(at));
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) || 0) + t);
    }
  });
  const show = (title, map) => {
    console.log(`\n  ${title} (µs per write)`);
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .forEach(([k, t]) => console.log(`  ${(t / writes).toFixed(1).padStart(8)}  ${k}`));
  };
  show('self', self);
  show('inclusive', inclusive);
}

/** CPU seconds of the PostgreSQL backends connected to `database` (their command line names it) */
function cpuOfBackends(before, after, database) {
  let used = 0;
  const named = new RegExp(`^postgres: (\\S+: )?\\S+ ${database} `);
  for (const [pid, { cpu, command }] of after) if (named.test(command)) used += cpu - (before.get(pid)?.cpu ?? 0);
  return used;
}

async function seed(svc) {
  const user = await svc.api('POST', '/user/add', { email: 'cpu@dnssec.example' });
  const zones = {};
  for (const c of CASES) {
    zones[c] = [];
    for (let z = 0; z < ZONES; z++) {
      const zone = `${c}${z}.cpu.example`;
      await svc.api('POST', '/domain/add', { user_id: user.id, zone });
      const lines = Array.from({ length: PRELOAD }, (_, i) => `pre${i} 3600 IN A 10.${(i >> 8) & 255}.${i & 255}.1`);
      await svc.graphql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`, {
        z: zone,
        t: `$ORIGIN ${zone}.\n${lines.join('\n')}\n`,
      });
      if (c !== 'unsigned')
        await svc.graphql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }`, {
          i: { zone, denial: c === 'nsec' ? 'NSEC' : 'NSEC3' },
        });
      zones[c].push(zone);
    }
  }
  return zones;
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${DB}"`);
  const logFile = path.join(TMP, 'dnssec-write-cpu.log');
  const builds = [{ name: 'this', root: ROOT }, ...(OTHER ? [{ name: 'other', root: path.resolve(OTHER) }] : [])];
  let svc;
  let serial = 0;
  const results = [];
  try {
    svc = await startService({ databaseUrl: urlFor(DB), apiKey: API_KEY, logFile, env: { LOG_LEVEL: 'warn' } });
    const zones = await seed(svc);
    await svc.stop();
    svc = undefined;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const build of round % 2 ? builds : [...builds].reverse()) {
        for (const c of CASES) {
          const profDir = path.join(TMP, `dnssec-cpu-prof-${build.name}-${c}-${round}`);
          fs.rmSync(profDir, { recursive: true, force: true });
          const runDb = SAME_DATABASE ? DB : `${DB}_run`;
          if (!SAME_DATABASE) await admin.query(`create database "${runDb}" template "${DB}"`);
          svc = await startService({
            databaseUrl: urlFor(runDb),
            apiKey: API_KEY,
            logFile,
            main: path.join(build.root, 'dist', 'src', 'main.js'),
            env: { LOG_LEVEL: 'warn', ROLES: 'api' },
            nodeArgs: PROF
              ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`]
              : PERF
                ? ['--perf-basic-prof', '--interpreted-frames-native-stack']
                : [],
          });
          const run = (seconds, amount, overallRate) => {
            const tag = `r${++serial}x`;
            let n = 0;
            return load({
              url: `${svc.base}/api/record/add`,
              method: 'POST',
              connections: CONNECTIONS,
              ...(amount ? { amount, ...(overallRate ? { overallRate } : {}) } : { duration: seconds }),
              headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
              next: () => {
                n++;
                return JSON.stringify({
                  zone: zones[c][n % ZONES],
                  owner: `${tag}${n}`,
                  rtype: 'A',
                  ttl: '3600',
                  rdata: `192.0.2.${n % 250}`,
                });
              },
              check: (status) => status === 201,
            });
          };
          await run(WARMUP, WARMUP_WRITES);
          // the process's CPU over idle seconds (paced runs take it off: what it spends per second writing nothing)
          let idlePerSecond = 0;
          if (RATE) {
            const idleBefore = processTimes();
            await new Promise((resolve) => setTimeout(resolve, 3000));
            idlePerSecond = cpuBetween(idleBefore, processTimes(), svc.pid).service / 3;
          }
          const perfFile = path.join(TMP, `perf-${build.name}-${c}-${round}.data`);
          const perf = PERF
            ? require('node:child_process').spawn(
                'perf',
                ['record', '-e', 'cpu-clock', '-F', '1999', '-g', '-o', perfFile, '-p', String(svc.pid)],
                {
                  stdio: 'ignore',
                },
              )
            : undefined;
          const before = processTimes();
          const started = Date.now();
          const r = await run(SECONDS, RATE ? WRITES : 0, RATE);
          const elapsed = (Date.now() - started) / 1000;
          if (perf) {
            perf.kill('SIGINT');
            await new Promise((resolve) => perf.once('exit', resolve));
          }
          const after = processTimes();
          const cpu = cpuBetween(before, after, svc.pid);
          cpu.service = Math.max(0, cpu.service - idlePerSecond * elapsed);
          // the backends of this run's database alone: the machine's other PostgreSQL work (other helpers'
          // benchmarks and tests on the same server) is not this write's; the server's shared processes (WAL
          // writer, checkpointer) are left out with it
          const ownBackends = cpuOfBackends(before, after, runDb);
          if (r.bad || r.errors) throw new Error(`${c}: ${r.bad} bad answers (${r.badExample ?? 'connection errors'})`);
          const line = {
            build: build.name,
            case: c,
            round,
            rps: r.rps,
            service: (1000 * cpu.service) / r.requests,
            postgres: (1000 * ownBackends) / r.requests,
            postgresAll: (1000 * cpu.postgres) / r.requests,
            requests: r.requests,
          };
          results.push(line);
          console.log(
            `${build.name.padEnd(5)} ${c.padEnd(8)} round ${round}: ${r.rps.toFixed(0)} writes/s, CPU per write: service ${line.service.toFixed(3)} ms, PostgreSQL ${line.postgres.toFixed(3)} ms (every PostgreSQL process: ${line.postgresAll.toFixed(3)} ms)`,
          );
          await svc.stop();
          svc = undefined;
          // the signer's table after the run: how many of its updates were heap-only (no index entry), and its size
          // (the backends' statistics are flushed when they exit, with the service stopped)
          await new Promise((resolve) => setTimeout(resolve, 1500));
          const stats = new Client({ connectionString: urlFor(runDb) });
          await stats.connect();
          const {
            rows: [table],
          } = await stats.query(
            `select n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del, pg_relation_size('dnssec_records') as bytes,
                    (select reloptions from pg_class where relname = 'dnssec_records') as options
               from pg_stat_user_tables where relname = 'dnssec_records'`,
          );
          await stats.end();
          console.log(
            `      dnssec_records: ${table.n_tup_ins} inserted, ${table.n_tup_upd} updated of which ${table.n_tup_hot_upd} heap-only, ${table.n_tup_del} deleted; ${(table.bytes / 1024).toFixed(0)} kB; options ${JSON.stringify(table.options)}`,
          );
          if (!SAME_DATABASE) await admin.query(`drop database "${runDb}" with (force)`);
          if (PROF) {
            const [file] = fs.readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile'));
            // the profile holds warm-up and start-up too: per write over every write the process served
            summarise(path.join(profDir, file), r.requests + Math.round(r.rps * 2));
          }
        }
      }
    }
  } finally {
    await svc?.stop();
    await admin.query(`drop database if exists "${DB}_run" with (force)`);
    await admin.query(`drop database if exists "${DB}" with (force)`);
    await admin.end();
  }
  console.log('\nmeans (ms of service CPU per write):');
  for (const build of builds)
    for (const c of CASES) {
      const rs = results.filter((r) => r.build === build.name && r.case === c);
      const mean = (k) => rs.reduce((s, r) => s + r[k], 0) / rs.length;
      console.log(
        `${build.name.padEnd(5)} ${c.padEnd(8)} service ${mean('service').toFixed(3)}  PostgreSQL ${mean('postgres').toFixed(3)} (every PostgreSQL process ${mean('postgresAll').toFixed(3)})  (${rs.map((r) => r.service.toFixed(3)).join(', ')})`,
      );
    }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
