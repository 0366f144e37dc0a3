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

/** one POST /graphql, its body read and dropped (as autocannon does): the latency in ms */
function post(base, headers, body) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(`${base}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`POST /graphql: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** the commit built in a worktree of its own (node_modules shared with this checkout): its dist/src/main.js */
function buildCommit(commit) {
  const sha = execFileSync('git', ['rev-parse', '--short', commit], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = path.join(os.tmpdir(), `zonekeeper-ab-${sha}`);
  if (!fs.existsSync(dir)) execFileSync('git', ['worktree', 'add', '--detach', dir, sha], { cwd: ROOT, stdio: 'inherit' });
  if (!fs.existsSync(path.join(dir, 'node_modules'))) fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
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
      for (const build of builds) {
        const svc = await startService({ databaseUrl, apiKey: API_KEY, logFile: path.join(TMP, `ab-${build.name.replace(/\W/g, '')}.log`), main: build.main });
        running.push({ build, svc, latencies: [], cpu: 0 });
      }
      const body = JSON.stringify({ query: QUERY });
      for (const run of running) for (let i = 0; i < 40; i++) await post(run.svc.base, run.svc.headers, body); // warm-up: compiled documents, JIT
      for (let round = 0; round < ROUNDS; round++) {
        for (const run of round % 2 ? [...running].reverse() : running) {
          const before = cpuMs(run.svc.pid);
          for (let i = 0; i < BLOCK; i++) run.latencies.push(await post(run.svc.base, run.svc.headers, body));
          run.cpu += cpuMs(run.svc.pid) - before;
        }
      }
      for (const { build, latencies, cpu } of running) {
        const sorted = [...latencies].sort((a, b) => a - b);
        const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))].toFixed(1);
        console.log(`${build.name.padEnd(10)} ${sorted.length} answers: service CPU ${(cpu / sorted.length).toFixed(1)} ms per answer, p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms`);
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
