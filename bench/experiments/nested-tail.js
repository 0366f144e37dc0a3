'use strict';
// Experiment behind bench/FINDINGS.md («The nested answer's tail at c1»; not the service, `npm run bench` does not
// run it): what an answer of the bench's nested case that takes long met on its way.
//   node bench/experiments/nested-tail.js [built checkout dir ...]    (default: this checkout; `npm run build` first)
// Each build's service runs as `npm run serve` does, with bench/experiments/nested-tail-probe.cjs preloaded: it keeps
// the GC pauses (perf_hooks 'gc' entries), the timer callbacks that ran longer than 0.2 ms (and where they were
// set), every pg query's wall time and each HTTP request's time in the server, all on the machine's clock. The
// answers are requested one at a time (c1), builds alternating in blocks; each answer is then laid beside what
// overlapped it. An argument `dir@NAME=value,...` gives that build's service settings of its own. Environment:
// TAIL_ROUNDS, TAIL_BLOCK (blocks per build, answers per block); TAIL_NODE_ARGS (more node options, e.g.
// --trace-gc-nvp: what each scavenge promoted); TAIL_SERVICE_ENV (JSON, settings for every service; with
// TAIL_SNAPSHOT_AFTER=n the probe writes a heap snapshot right after the n-th answer); TAIL_HEAP_PROFILE=1 (a sampling
// heap profile of the measured answers that keeps what mark-compacts collected and drops what scavenges did: what
// outlived a scavenge, by allocating function); TAIL_GAP_MS (a pause after each answer); TAIL_QUERY (another query).
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { Client } = require('pg');
const { startService } = require('../lib/service');
const { withDatabase } = require('../lib/database');
const { seedNestedGraph } = require('../lib/nested-graph');

const ROOT = path.resolve(__dirname, '..', '..');
const TMP = path.join(ROOT, 'bench', '.tmp');
const API_KEY = 'zk_experiment_admin_key_0123456789';
const QUERY = process.env.TAIL_QUERY ?? '{ users(first: 100) { nodes { email domains(first: 10) { name records(first: 10) { owner type rdata ttl } } } } }';
const ROUNDS = Number(process.env.TAIL_ROUNDS ?? 4);
const BLOCK = Number(process.env.TAIL_BLOCK ?? 100);
// TAIL_GAP_MS: a pause after each answer (what lives a given time, against what lives a number of answers)
const GAP_MS = Number(process.env.TAIL_GAP_MS ?? 0);
const now = () => performance.timeOrigin + performance.now();

function post(base, headers, body) {
  return new Promise((resolve, reject) => {
    const t = now();
    const req = http.request(
      `${base}/graphql`,
      { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve({ t, d: now() - t, body: Buffer.concat(chunks) })
            : reject(new Error(`POST /graphql: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// the answer's own statements (users, their zones, the zones' packed records)
const ANSWER_STATEMENTS = ['select u.id, u.email', 'select children.* from unnest', 'select parents.id as domain_id'];
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

async function dump(svc, file) {
  if (fs.existsSync(file)) fs.unlinkSync(file);
  process.kill(svc.pid, 'SIGUSR2');
  for (let i = 0; i < 100 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 50));
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function analyse(name, answers, ev, logFile) {
  const overl = (list, a) => list.filter((e) => e.t < a.t + a.d && e.t + e.d > a.t);
  const rows = answers.map((a) => {
    const gc = overl(ev.gc, a);
    const pg = overl(ev.pg, a);
    const timers = overl(ev.timers, a);
    const srv = overl(ev.http, a).find((h) => h.u === '/graphql');
    return {
      d: a.d,
      server: srv ? srv.d : NaN,
      scav: sum(gc.filter((g) => g.k === 'scavenge').map((g) => g.d)),
      mark: sum(gc.filter((g) => g.k !== 'scavenge').map((g) => g.d)),
      nscav: gc.filter((g) => g.k === 'scavenge').length,
      nmark: gc.filter((g) => g.k === 'mark').length,
      pg: sum(pg.map((q) => q.d)),
      npg: pg.length,
      timers: sum(timers.map((x) => x.d)),
      timerWhere: timers.map((x) => `${x.d.toFixed(1)}ms ${x.where.slice(0, 140)}`),
      others: pg.filter((q) => !ANSWER_STATEMENTS.some((s) => q.q.startsWith(s))).map((q) => `${q.d.toFixed(1)}ms ${q.q.slice(0, 40)}`),
    };
  });
  const sorted = [...rows].sort((a, b) => a.d - b.d);
  const n = rows.length;
  const f = (x) => x.toFixed(1);
  console.log(
    `\n== ${name}: ${n} answers, p50 ${f(pct(sorted, 0.5).d)} p90 ${f(pct(sorted, 0.9).d)} p99 ${f(pct(sorted, 0.99).d)} max ${f(sorted[n - 1].d)} ms`,
  );
  const gcAll = ev.gc;
  const scav = gcAll
    .filter((g) => g.k === 'scavenge')
    .map((g) => g.d)
    .sort((a, b) => a - b);
  const marks = gcAll
    .filter((g) => g.k === 'mark')
    .map((g) => g.d)
    .sort((a, b) => a - b);
  const inc = gcAll.filter((g) => g.k === 'incremental').map((g) => g.d);
  console.log(
    `   scavenges ${scav.length} (${(scav.length / n).toFixed(2)}/answer) median ${f(pct(scav, 0.5) ?? 0)} p90 ${f(pct(scav, 0.9) ?? 0)} max ${f(scav[scav.length - 1] ?? 0)} ms; mark-compacts ${marks.length} median ${f(pct(marks, 0.5) ?? 0)} max ${f(marks[marks.length - 1] ?? 0)} ms; incremental steps ${inc.length} total ${f(sum(inc))} ms`,
  );
  // --trace-gc-nvp in TAIL_NODE_ARGS: what each scavenge promoted (the log is appended to across runs: the last ones)
  const promoted = fs.existsSync(logFile)
    ? [...fs.readFileSync(logFile, 'utf8').matchAll(/gc=s .* promoted=(\d+) new_space_survived=(\d+)/g)]
        .slice(-scav.length)
        .map((m) => Number(m[1]))
    : [];
  console.log(
    `   GC pause per answer ${f(sum(gcAll.map((g) => g.d)) / n)} ms (scavenges ${f(sum(scav) / n)}, mark-compacts and their steps ${f((sum(marks) + sum(inc)) / n)})` +
      (promoted.length
        ? `; promoted per scavenge: median ${(
            pct(
              [...promoted].sort((a, b) => a - b),
              0.5,
            ) / 1e6
          ).toFixed(2)} MB`
        : ''),
  );
  const clean = rows
    .filter((r) => r.nscav === 0 && r.mark === 0)
    .map((r) => r.d)
    .sort((a, b) => a - b);
  const withS = rows
    .filter((r) => r.nscav > 0 && r.mark === 0)
    .map((r) => r.d)
    .sort((a, b) => a - b);
  const withM = rows
    .filter((r) => r.mark > 0)
    .map((r) => r.d)
    .sort((a, b) => a - b);
  for (const [label, xs] of [
    ['no GC', clean],
    ['scavenge only', withS],
    ['mark/incremental', withM],
  ])
    if (xs.length)
      console.log(
        `   answers with ${label.padEnd(16)} ${String(xs.length).padStart(4)}: p50 ${f(pct(xs, 0.5))} p90 ${f(pct(xs, 0.9))} max ${f(xs[xs.length - 1])} ms`,
      );
  const pgs = rows.map((r) => r.pg).sort((a, b) => a - b);
  console.log(
    `   pg wall per answer: p50 ${f(pct(pgs, 0.5))} p90 ${f(pct(pgs, 0.9))} p99 ${f(pct(pgs, 0.99))} ms; server-side minus client: median ${f(
      pct(
        rows.map((r) => r.d - r.server).sort((a, b) => a - b),
        0.5,
      ),
    )} ms`,
  );
  const withOthers = rows
    .filter((r) => r.others.length)
    .map((r) => r.d)
    .sort((a, b) => a - b);
  const without = rows
    .filter((r) => !r.others.length && r.nscav === 0 && r.mark === 0)
    .map((r) => r.d)
    .sort((a, b) => a - b);
  if (withOthers.length)
    console.log(
      `   answers beside other statements (worker) ${withOthers.length}: p50 ${f(pct(withOthers, 0.5))} p90 ${f(pct(withOthers, 0.9))} max ${f(withOthers[withOthers.length - 1])} ms`,
    );
  if (without.length)
    console.log(
      `   answers with no GC and no other statement ${without.length}: p50 ${f(pct(without, 0.5))} p90 ${f(pct(without, 0.9))} max ${f(without[without.length - 1])} ms`,
    );
  const timerCounts = new Map();
  for (const t of ev.timers) {
    const k = t.where.slice(0, 160);
    const c = timerCounts.get(k) ?? { n: 0, ms: 0, max: 0 };
    c.n++;
    c.ms += t.d;
    c.max = Math.max(c.max, t.d);
    timerCounts.set(k, c);
  }
  console.log('   timer callbacks > 0.2 ms:');
  for (const [k, c] of [...timerCounts].sort((a, b) => b[1].ms - a[1].ms).slice(0, 8))
    console.log(`     ${c.n}× total ${f(c.ms)} max ${f(c.max)} ms  ${k}`);
  console.log('   slowest 2 %: ms total | server | scavenge (n) | mark+incr | pg (n) | timers');
  for (const r of [...rows].sort((a, b) => b.d - a.d).slice(0, Math.ceil(n * 0.02)))
    console.log(
      `     ${f(r.d).padStart(6)} | ${f(r.server).padStart(6)} | ${f(r.scav).padStart(5)} (${r.nscav}) | ${f(r.mark).padStart(5)} | ${f(r.pg).padStart(5)} (${r.npg}) | ${f(r.timers)} ${r.timerWhere.join('; ').slice(0, 120)} | others: ${r.others.join('; ').slice(0, 200)}`,
    );
  return rows;
}

/** what outlived a scavenge and was collected by a mark-compact (or is still alive), by allocating function */
function heapProfileSummary(name, file, answers) {
  const bySite = new Map();
  let total = 0;
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
    total += node.selfSize;
    if (node.selfSize) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    for (const child of node.children ?? []) walk(child);
  };
  walk(JSON.parse(fs.readFileSync(file, 'utf8')).head);
  console.log(`\n== ${name}: allocated and outlived a scavenge, ${(total / 1e6 / answers).toFixed(2)} MB per answer, by function:`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 12))
    console.log(`   ${(bytes / 1e6 / answers).toFixed(3)} MB  ${site}`);
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const dirs = process.argv.length > 2 ? process.argv.slice(2) : [ROOT];
  const probe = path.join(__dirname, 'nested-tail-probe.cjs');
  await withDatabase('zk_tail', async (databaseUrl) => {
    const running = [];
    const db = new Client({ connectionString: databaseUrl });
    try {
      const seeder = await startService({
        databaseUrl,
        apiKey: API_KEY,
        logFile: path.join(TMP, 'tail-seed.log'),
        main: path.join(path.resolve(dirs[dirs.length - 1].split('@')[0]), 'dist', 'src', 'main.js'),
      });
      await db.connect();
      await seedNestedGraph(seeder, db);
      await seeder.stop();
      for (const [i, arg] of dirs.entries()) {
        // `dir@NAME=value,NAME=value`: that build's service with these settings besides
        const [dir, extra = ''] = arg.split('@');
        const own = Object.fromEntries(
          extra
            .split(',')
            .filter(Boolean)
            .map((pair) => pair.split('=')),
        );
        const out = path.join(TMP, `tail-probe-${i}.json`);
        const svc = await startService({
          databaseUrl,
          apiKey: API_KEY,
          logFile: path.join(TMP, `tail-${i}.log`),
          main: path.join(path.resolve(dir), 'dist', 'src', 'main.js'),
          nodeArgs: ['--require', probe, ...(process.env.TAIL_NODE_ARGS ?? '').split(' ').filter(Boolean)],
          env: { TAIL_PROBE_OUT: out, ...JSON.parse(process.env.TAIL_SERVICE_ENV ?? '{}'), ...own },
        });
        running.push({
          logFile: path.join(TMP, `tail-${i}.log`),
          name: `${i}:${path.basename(path.resolve(dir))}${extra ? ` (${extra})` : ''}`,
          svc,
          out,
          answers: [],
          ev: { gc: [], timers: [], pg: [], http: [] },
        });
      }
      const body = JSON.stringify({ query: QUERY });
      for (const run of running) for (let i = 0; i < 60; i++) await post(run.svc.base, run.svc.headers, body);
      const bodies = [];
      for (const run of running) bodies.push((await post(run.svc.base, run.svc.headers, body)).body);
      console.log(
        `answers ${bodies.every((b) => b.equals(bodies[0])) ? 'identical' : 'DIFFER'}: ${bodies.map((b) => b.length).join(', ')} bytes`,
      );
      for (const run of running) await dump(run.svc, run.out);
      if (process.env.TAIL_HEAP_PROFILE === '1')
        for (const run of running) {
          if (fs.existsSync(`${run.out}.heapprofile`)) fs.unlinkSync(`${run.out}.heapprofile`);
          process.kill(run.svc.pid, 'SIGWINCH');
        }
      for (let round = 0; round < ROUNDS; round++) {
        for (const run of round % 2 ? [...running].reverse() : running) {
          for (let i = 0; i < BLOCK; i++) {
            const a = await post(run.svc.base, run.svc.headers, body);
            run.answers.push({ t: a.t, d: a.d });
            if (GAP_MS) await new Promise((r) => setTimeout(r, GAP_MS));
          }
          const ev = await dump(run.svc, run.out);
          for (const k of Object.keys(run.ev)) run.ev[k].push(...ev[k]);
        }
      }
      if (process.env.TAIL_HEAP_PROFILE === '1')
        for (const run of running) {
          process.kill(run.svc.pid, 'SIGWINCH');
          for (let i = 0; i < 100 && !fs.existsSync(`${run.out}.heapprofile`); i++) await new Promise((r) => setTimeout(r, 100));
        }
      for (const run of running) analyse(run.name, run.answers, run.ev, run.logFile);
      if (process.env.TAIL_HEAP_PROFILE === '1')
        for (const run of running) heapProfileSummary(run.name, `${run.out}.heapprofile`, run.answers.length);
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
