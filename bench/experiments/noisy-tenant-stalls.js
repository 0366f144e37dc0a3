'use strict';
// Experiment behind docs/performance.md «Noisy tenants» (not a benchmark: it prints, it writes no results):
// `npm run build && node bench/experiments/noisy-tenant-stalls.js`, with `SECONDS` (each phase, default 15),
// `NODE_ARGS` (added to the service's node options, e.g. `--max-semi-space-size=8` or `--cpu-prof`) and the
// rate-limit settings to try in the environment. The noisy-tenant load (B alone, then beside A limited, then
// beside A with its rate lifted), B's answers timed one by one by a plain `http` client, and the service
// preloaded with bench/experiments/stall-probe.cjs, which records what the process did meanwhile: event-loop
// stalls and whether the process was on the CPU during them, GC pauses, waits for a pool connection. Per
// phase it prints B's latency on the client and in the server, the stalls > 5 ms a minute (all, and those
// with the process on the CPU), the scavenges (count, median, max) and how many of B's answers slower than
// 5 ms in the server overlapped a GC pause; then B's slowest answers with what overlapped each.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { clientCpusFromEnv } = require('../lib/cpus');
const { withDatabase, ADMIN_URL } = require('../lib/database');
const { startService } = require('../lib/service');
const { createTenants, noisyLoad, paced, setTenantRate } = require('../lib/tenants');

const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const SECONDS = Number(process.env.SECONDS) || 15;
const WARMUP_SECONDS = 3;
const TMP = path.join(__dirname, '..', '.tmp');
const PROBE_OUT = path.join(TMP, 'noisy-tenant-stalls.jsonl');
const TRIED = [
  'RATE_LIMIT_CONCURRENCY',
  'RATE_LIMIT_QUEUE',
  'RATE_LIMIT_REFUSAL_DELAY_MS',
  'RATE_LIMIT_PER_SECOND',
  'RATE_LIMIT_BURST',
  'DATABASE_POOL_SIZE',
];

const pct = (xs, p) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)] : NaN);
const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const tried = Object.fromEntries(TRIED.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]));
  const nodeArgs = (process.env.NODE_ARGS || '').split(/\s+/).filter(Boolean);
  const phases = [];
  // BENCH_CLIENT_CPUS=n: the clients on the last n CPUs, the service and PostgreSQL on the others (bench/lib/cpus.js)
  const { unpinPostgres, pinProcesses } = await clientCpusFromEnv(ADMIN_URL);
  await withDatabase('zk_bench_stalls', async (databaseUrl) => {
    const svc = await startService({
      databaseUrl,
      apiKey: API_KEY,
      logFile: path.join(TMP, 'noisy-tenant-stalls.log'),
      nodeArgs: ['-r', path.join(__dirname, 'stall-probe.cjs'), ...nodeArgs],
      env: {
        LOG_LEVEL: 'warn',
        ROLES: 'api',
        RATE_LIMIT_PER_SECOND: '50',
        RATE_LIMIT_BURST: '500',
        RATE_LIMIT_CONCURRENCY: '4',
        RATE_LIMIT_QUEUE: '100',
        ZONE_CHANGES_PER_SECOND: '20',
        ...tried,
        STALL_PROBE_OUT: PROBE_OUT,
      },
    });
    pinProcesses(svc.pid);
    try {
      const t = await createTenants(svc, 20, 'stalls');
      await paced(t.b.url, t.b.key, WARMUP_SECONDS, 40);
      const load = [os.loadavg()[0]];
      const start = performance.timeOrigin + performance.now();
      const samples = await paced(t.b.url, t.b.key, SECONDS, 20);
      phases.push({ name: 'quiet', start, end: performance.timeOrigin + performance.now(), samples, load: [...load, os.loadavg()[0]] });
      for (const [name, rate] of [
        ['A limited', null],
        ['A rate lifted', 0],
      ]) {
        await setTenantRate(svc, t.a, rate);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const before = os.loadavg()[0];
        let begun;
        const [a, measured] = await Promise.all([
          noisyLoad(t.a.url, t.a.key, WARMUP_SECONDS + SECONDS).then((result) => result.byStatus),
          new Promise((resolve) => setTimeout(resolve, WARMUP_SECONDS * 1000)).then(() => {
            begun = performance.timeOrigin + performance.now();
            return paced(t.b.url, t.b.key, SECONDS, 20);
          }),
        ]);
        phases.push({
          name,
          start: begun,
          end: performance.timeOrigin + performance.now(),
          samples: measured,
          a,
          load: [before, os.loadavg()[0]],
        });
      }
    } finally {
      await svc.stop();
    }
  }).finally(unpinPostgres);

  const probe = fs
    .readFileSync(PROBE_OUT, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const of = (type) => probe.filter((e) => e.type === type);
  const [lags, gcs, reqs, waits] = ['lag', 'gc', 'req', 'poolwait'].map(of);
  const overlaps = (e, t0, t1) => e.t < t1 && e.t + e.ms > t0;
  console.log(`settings tried: ${JSON.stringify(tried)}; node args: ${JSON.stringify(nodeArgs)}`);
  for (const ph of phases) {
    const inside = (e) => e.t >= ph.start && e.t <= ph.end;
    const minutes = (ph.end - ph.start) / 60_000;
    const client = ph.samples.map((s) => s.ms);
    const server = reqs.filter(inside);
    const phaseLags = lags.filter(inside);
    const onCpu = phaseLags.filter((l) => l.cpu / l.ms > 0.7);
    const scavenges = gcs.filter((g) => inside(g) && g.kind === 1).map((g) => g.ms);
    const others = gcs.filter((g) => inside(g) && g.kind !== 1);
    const slow = server.filter((r) => r.ms > 5);
    const slowWithGc = slow.filter((r) => gcs.some((g) => overlaps(g, r.t, r.t + r.ms)));
    console.log(
      `${ph.name} (load ${ph.load.map((l) => l.toFixed(1)).join('→')}): B client p50 ${f(pct(client, 50))} p99 ${f(pct(client, 99))} max ${f(Math.max(...client))} ms;` +
        ` server p50 ${f(
          pct(
            server.map((r) => r.ms),
            50,
          ),
        )} p99 ${f(
          pct(
            server.map((r) => r.ms),
            99,
          ),
        )} ms; stalls > 5 ms ${f(phaseLags.length / minutes)}/min,` +
        ` on the CPU ${f(onCpu.length / minutes)}/min (max ${f(Math.max(0, ...onCpu.map((l) => l.ms)))} ms); scavenges ${scavenges.length}` +
        ` (median ${f(pct(scavenges, 50))}, max ${f(Math.max(0, ...scavenges))} ms), other GC ${others.length} (max ${f(Math.max(0, ...others.map((g) => g.ms)))} ms);` +
        ` B > 5 ms in the server ${slow.length}, with a GC pause ${slowWithGc.length}; pool waits > 2 ms ${waits.filter(inside).length}` +
        ` (max ${f(Math.max(0, ...waits.filter(inside).map((w) => w.ms)))} ms), connections opened ${of('newconn').filter(inside).length}` +
        (ph.a ? `; A ${JSON.stringify(ph.a)}` : ''),
    );
    for (const s of [...ph.samples].sort((x, y) => y.ms - x.ms).slice(0, 5)) {
      const t1 = s.t + s.ms;
      const during = (e) => overlaps(e, s.t, t1);
      const inServer = server.find((r) => r.t >= s.t && r.t <= t1);
      console.log(
        `  B ${s.ms.toFixed(1)} ms at +${((s.t - ph.start) / 1000).toFixed(2)} s: server ${inServer ? `${inServer.ms} ms` : '–'};` +
          ` GC ${
            gcs
              .filter(during)
              .map((g) => `kind ${g.kind} ${g.ms} ms`)
              .join(', ') || 'none'
          };` +
          ` stalls ${
            lags
              .filter((l) => overlaps({ t: l.t - l.ms, ms: l.ms }, s.t, t1))
              .map((l) => `${l.ms} ms (cpu ${l.cpu})`)
              .join(', ') || 'none'
          };` +
          ` pool waits ${
            waits
              .filter(during)
              .map((w) => `${w.ms} ms`)
              .join(', ') || 'none'
          }`,
      );
    }
  }
}

main().catch((error) => {
  process.stderr.write(`stalls: ${error.stack || error.message}\n`);
  process.exit(1);
});
