'use strict';
// Experiment behind docs/performance.md «Noisy tenants» (not a benchmark: it prints, it writes no results):
// `npm run build && node bench/experiments/noisy-tenant-trace.js`, with settings to try in the environment
// (e.g. `RATE_LIMIT_CONCURRENCY=0`). The noisy-tenant load (A at concurrency 64 over its limit, B paced at 20 a
// second), with the service's request log at info: B's answers timed one by one on the client, A's answers per
// 100 ms from the log, and for each of B's slowest answers how many of A's answers ended meanwhile.
const fs = require('node:fs');
const path = require('node:path');
const { withDatabase } = require('../lib/database');
const { startService } = require('../lib/service');
const { createTenants, noisyLoad, paced } = require('../lib/tenants');

const BENCH = path.join(__dirname, '..');
const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const SECONDS = 15;
const WARMUP_SECONDS = 3;
const LOG = path.join(BENCH, '.tmp', 'noisy-tenant-trace.log');
const TRIED = ['RATE_LIMIT_CONCURRENCY', 'RATE_LIMIT_QUEUE', 'RATE_LIMIT_REFUSAL_DELAY_MS', 'RATE_LIMIT_PER_SECOND', 'RATE_LIMIT_BURST'];

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const summary = (samples) => {
  const ms = samples.map((s) => s.ms);
  return `n=${ms.length} p50 ${pct(ms, 50).toFixed(1)} p90 ${pct(ms, 90).toFixed(1)} p99 ${pct(ms, 99).toFixed(1)} max ${Math.max(...ms).toFixed(1)} ms`;
};

async function main() {
  fs.mkdirSync(path.dirname(LOG), { recursive: true });
  const tried = Object.fromEntries(TRIED.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]));
  const { quiet, loaded, a, startNoisy } = await withDatabase('zk_bench_trace', async (databaseUrl) => {
    const svc = await startService({
      databaseUrl,
      apiKey: API_KEY,
      logFile: LOG,
      env: { LOG_LEVEL: 'info', ROLES: 'api', RATE_LIMIT_PER_SECOND: '50', RATE_LIMIT_BURST: '500', ...tried },
    });
    try {
      const t = await createTenants(svc, 20, 'trace');
      await paced(t.b.url, t.b.key, WARMUP_SECONDS, 40);
      const quiet = await paced(t.b.url, t.b.key, SECONDS, 20);
      const startNoisy = Date.now();
      const [a, loaded] = await Promise.all([
        noisyLoad(t.a.url, t.a.key, WARMUP_SECONDS + SECONDS).then((result) => result.byStatus),
        new Promise((resolve) => setTimeout(resolve, WARMUP_SECONDS * 1000)).then(() => paced(t.b.url, t.b.key, SECONDS, 20)),
      ]);
      return { quiet, loaded, a, startNoisy };
    } finally {
      await svc.stop();
    }
  });

  console.log(`settings tried: ${JSON.stringify(tried)}`);
  console.log(`B quiet:       ${summary(quiet)}`);
  console.log(
    `B beside A:    ${summary(loaded)}; p99 ÷ quiet ${(
      pct(
        loaded.map((s) => s.ms),
        99,
      ) /
      pct(
        quiet.map((s) => s.ms),
        99,
      )
    ).toFixed(2)}`,
  );
  console.log(`A's answers:   ${JSON.stringify(a)}`);
  // A's answers from the request log (time is when the line was written, at the answer; ms is the request's)
  const answers = fs
    .readFileSync(LOG, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('/a.noisy.example'))
    .map((line) => JSON.parse(line))
    .filter((line) => line.res && line.time > startNoisy + WARMUP_SECONDS * 1000)
    .map((line) => ({ end: line.time, ms: line.ms, status: line.res.status }));
  const served = answers.filter((r) => r.status === 200);
  console.log(
    `A served, server ms: p50 ${pct(
      served.map((r) => r.ms),
      50,
    )} p99 ${pct(
      served.map((r) => r.ms),
      99,
    )}`,
  );
  const first = Math.floor(Math.min(...answers.map((r) => r.end)) / 100);
  const bins = Array.from({ length: 30 }, (_, i) => answers.filter((r) => Math.floor(r.end / 100) === first + i));
  console.log("A's answers per 100 ms, the first 3 s of B's measurement (200s/429s):");
  console.log(bins.map((bin) => `${bin.filter((r) => r.status === 200).length}/${bin.filter((r) => r.status === 429).length}`).join(' '));
  console.log("B's slowest answers, and A's answers that ended meanwhile:");
  for (const s of [...loaded].sort((x, y) => y.ms - x.ms).slice(0, 10)) {
    const meanwhile = answers.filter((r) => r.end >= s.t && r.end <= s.t + s.ms);
    console.log(
      `  ${s.ms.toFixed(1)} ms at +${((s.t - startNoisy) / 1000).toFixed(2)} s: A 200×${meanwhile.filter((r) => r.status === 200).length} 429×${meanwhile.filter((r) => r.status === 429).length}`,
    );
  }
}

main().catch((error) => {
  process.stderr.write(`trace: ${error.stack || error.message}\n`);
  process.exit(1);
});
