'use strict';
// Experiment behind bench/FINDINGS.md, session 11 (not the service; `npm run bench` does not run it):
//   node bench/experiments/ab-graphql.js <git commit>      (after `npm run build`)
// The nested answer of the bench (`users { domains { records } }`, 100 users × 10 zones × 10 records) from two
// builds side by side: this checkout's dist/ and the given earlier commit, built in a git worktree in the system's
// temporary directory (outside the project, whose tsconfig would otherwise type-check it; kept for the next run).
// Both services run at once on one seeded database; requests go one at a time (concurrency 1), in blocks that
// alternate between the two, and each block's CPU is read from its service's /proc/<pid>/stat. The machine's
// speed drifts by ±25% within minutes (FINDINGS), which buries a 5-10% change when two builds are measured
// one after the other; alternating blocks puts the same drift on both.
// AB_ROUNDS (default 12) rounds of AB_BLOCK (default 25) requests per build.
// The argument may also be a directory holding a built checkout (its dist/src/main.js), e.g. a git worktree of
// the base commit. AB_TRACE_GC=1 runs both services with --trace-gc and counts, per answer, the scavenges and
// mark-compacts and the bytes allocated (the heap's growth between consecutive collections, summed). The
// PostgreSQL CPU is that of the backends connected to the build's service (`ss`; others' work is left out). Before
// measuring, each build's answer is compared byte for byte with the other's.
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { Client } = require('pg');
const { startService } = require('../lib/service');
const { withDatabase } = require('../lib/database');
const { processTimes } = require('../lib/proc');
const { seedNestedGraph } = require('../lib/nested-graph');

const ROOT = path.resolve(__dirname, '..', '..');
const TMP = path.join(ROOT, 'bench', '.tmp');
const API_KEY = 'zk_experiment_admin_key_0123456789';
const QUERY = '{ users(first: 100) { nodes { email domains(first: 10) { name records(first: 10) { owner type rdata ttl } } } } }';
const ROUNDS = Number(process.env.AB_ROUNDS ?? 12);
const BLOCK = Number(process.env.AB_BLOCK ?? 25);

/** CPU milliseconds a process has used so far (user + system) */
const cpuMs = (pid) => 1000 * processTimes().get(pid).cpu;

/**
 * The PostgreSQL backends serving one process: from `ss`, the process's connections to the server's port and the
 * server-side sockets whose peer is one of them
 */
function backendsOf(pid) {
  const lines = execFileSync('ss', ['-tnpH'], { encoding: 'utf8' }).split('\n');
  const ports = new Set();
  for (const line of lines) {
    const m = line.match(/\s127\.0\.0\.1:(\d+)\s+127\.0\.0\.1:5432\s.*pid=(\d+),/);
    if (m && Number(m[2]) === pid) ports.add(m[1]);
  }
  const backends = new Set();
  for (const line of lines) {
    const m = line.match(/\s127\.0\.0\.1:5432\s+127\.0\.0\.1:(\d+)\s.*pid=(\d+),/);
    if (m && ports.has(m[1])) backends.add(Number(m[2]));
  }
  return backends;
}

/** CPU milliseconds used so far by each of the given PostgreSQL backends */
function postgresMs(backends) {
  const times = processTimes();
  return new Map([...backends].map((pid) => [pid, 1000 * (times.get(pid)?.cpu ?? NaN)]));
}

/** what the backends used between two postgresMs readings (those present at both: the pool's come and go) */
function postgresBetween(before, after) {
  let ms = 0;
  for (const [pid, at] of after) if (before.has(pid) && at >= before.get(pid)) ms += at - before.get(pid);
  return ms;
}

/** the --trace-gc lines of a log from `offset` on: kind and heap MB before and after */
function gcLines(logFile, offset) {
  const text = fs.readFileSync(logFile, 'utf8').slice(offset);
  const out = [];
  for (const m of text.matchAll(
    /: (Scavenge|Mark-Compact|Mark-sweep|Mark-Compact \(reduce\)|Minor Mark-Compact)\S* ([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/g,
  )) {
    out.push({ kind: m[1].startsWith('Scavenge') ? 'scavenge' : 'mark', before: Number(m[2]), after: Number(m[4]) });
  }
  return out;
}

/** one POST /graphql, its body whole */
function fetchBody(base, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/graphql`,
      { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** one POST /graphql, its body read and dropped (as autocannon does): the latency in ms */
function post(base, headers, body) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(
      `${base}/graphql`,
      { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`POST /graphql: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** the commit built in a worktree of its own (node_modules shared with this checkout): its dist/src/main.js */
function buildCommit(commit) {
  if (fs.existsSync(path.join(commit, 'dist', 'src', 'main.js')))
    return { name: path.basename(commit), main: path.join(path.resolve(commit), 'dist', 'src', 'main.js') };
  const sha = execFileSync('git', ['rev-parse', '--short', commit], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = path.join(os.tmpdir(), `zonekeeper-ab-${sha}`);
  if (!fs.existsSync(dir)) execFileSync('git', ['worktree', 'add', '--detach', dir, sha], { cwd: ROOT, stdio: 'inherit' });
  if (!fs.existsSync(path.join(dir, 'node_modules'))) fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: dir,
    stdio: 'inherit',
  });
  return { name: sha, main: path.join(dir, 'dist', 'src', 'main.js') };
}

async function main() {
  if (!process.argv[2]) throw new Error('usage: node bench/experiments/ab-graphql.js <earlier git commit to compare with dist/>');
  fs.mkdirSync(TMP, { recursive: true });
  const builds = [{ name: 'dist/', main: path.join(ROOT, 'dist', 'src', 'main.js') }, buildCommit(process.argv[2])];
  await withDatabase('zk_ab', async (databaseUrl) => {
    const running = [];
    const db = new Client({ connectionString: databaseUrl });
    try {
      // the database is migrated and seeded by the older build, which the newer one's migrations then bring up to date
      const seeder = await startService({ databaseUrl, apiKey: API_KEY, logFile: path.join(TMP, 'ab-seed.log'), main: builds[1].main });
      await db.connect();
      await seedNestedGraph(seeder, db);
      await seeder.stop();
      const traceGc = process.env.AB_TRACE_GC === '1';
      for (const build of builds) {
        const logFile = path.join(TMP, `ab-${build.name.replace(/\W/g, '')}.log`);
        fs.writeFileSync(logFile, '');
        const svc = await startService({
          databaseUrl,
          apiKey: API_KEY,
          logFile,
          main: build.main,
          nodeArgs: traceGc ? ['--trace-gc'] : [],
        });
        running.push({ build, svc, logFile, latencies: [], cpu: 0, pg: 0, gc: { scavenge: 0, mark: 0, allocatedMb: 0 } });
      }
      const body = JSON.stringify({ query: QUERY });
      for (const run of running) for (let i = 0; i < 40; i++) await post(run.svc.base, run.svc.headers, body); // warm-up: compiled documents, JIT
      const answers = [];
      for (const run of running) answers.push(await fetchBody(run.svc.base, run.svc.headers, body));
      const same = answers[0].body.equals(answers[1].body) && answers[0].headers['content-type'] === answers[1].headers['content-type'];
      console.log(`answers ${same ? 'identical' : 'DIFFER'}: ${answers.map((a) => `${a.status} ${a.body.length} bytes`).join(', ')}`);
      if (!same) process.exitCode = 1;
      for (let round = 0; round < ROUNDS; round++) {
        for (const run of round % 2 ? [...running].reverse() : running) {
          const logOffset = traceGc ? fs.statSync(run.logFile).size : 0;
          const before = cpuMs(run.svc.pid);
          const backends = backendsOf(run.svc.pid);
          const pgBefore = postgresMs(backends);
          for (let i = 0; i < BLOCK; i++) run.latencies.push(await post(run.svc.base, run.svc.headers, body));
          run.cpu += cpuMs(run.svc.pid) - before;
          run.pg += postgresBetween(pgBefore, postgresMs(new Set([...backends, ...backendsOf(run.svc.pid)])));
          if (traceGc) {
            const lines = gcLines(run.logFile, logOffset);
            for (let i = 0; i < lines.length; i++) {
              run.gc[lines[i].kind]++;
              if (i > 0) run.gc.allocatedMb += Math.max(0, lines[i].before - lines[i - 1].after);
            }
            // the answers between the block's first and last collection made what was summed
            run.gc.spans = (run.gc.spans ?? 0) + (lines.length > 1 ? (BLOCK * (lines.length - 1)) / lines.length : 0);
          }
        }
      }
      for (const { build, latencies, cpu, pg, gc } of running) {
        const sorted = [...latencies].sort((a, b) => a - b);
        const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))].toFixed(1);
        const n = sorted.length;
        const gcText = traceGc
          ? `; per answer: ${(gc.scavenge / n).toFixed(2)} scavenges, ${(gc.mark / n).toFixed(3)} mark-compacts, ~${(gc.allocatedMb / (gc.spans || 1)).toFixed(2)} MB allocated`
          : '';
        console.log(
          `${build.name.padEnd(10)} ${n} answers: service CPU ${(cpu / n).toFixed(1)} ms, PostgreSQL ${(pg / n).toFixed(1)} ms per answer, p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms${gcText}`,
        );
      }
    } finally {
      for (const { svc } of running) await svc.stop();
      await db.end().catch(() => undefined);
    }
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
