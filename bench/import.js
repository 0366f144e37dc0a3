'use strict';
// `npm run bench:import`: zone-file imports of 20,000 records (into an empty zone, then MERGE of the same
// file plus one record into the now full zone) while /health is polled every 10 ms; writes
// bench/RESULTS-import.md. Targets: 20,000 records in < 2 s, /health p99 < 100 ms meanwhile.
const fs = require('node:fs');
const path = require('node:path');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { request, sleep } = require('./lib/proc');
const { startService, ROOT } = require('./lib/service');

const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const RECORDS = 20_000;
const TMP = path.join(__dirname, '.tmp');
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};


/** runs `work` while GET /health is timed every 10 ms */
async function whileHealthPolled(svc, work) {
  const latencies = [];
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const started = process.hrtime.bigint();
      await request('GET', `${svc.base}/health`);
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      await sleep(10);
    }
  })();
  const started = Date.now();
  const result = await work();
  const ms = Date.now() - started;
  polling = false;
  await poller;
  return { ms, result, healthP99: percentile(latencies, 99), healthMax: Math.max(...latencies), healthSamples: latencies.length };
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  const runs = await withDatabase('zk_bench_import', async (databaseUrl) => {
    const svc = await startService({ databaseUrl, apiKey: API_KEY, logFile: path.join(TMP, 'import.log'), env: { LOG_LEVEL: 'warn' } });
    try {
      const user = await svc.api('POST', '/user/add', { email: 'import@bench.example' });
      await svc.api('POST', '/domain/add', { user_id: user.id, zone: 'import.example' });
      const lines = Array.from({ length: RECORDS }, (_, i) => `h${i} 3600 IN A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      const text = (extra) => `$ORIGIN import.example.\n${lines.join('\n')}\n${extra}`;
      const importZone = (body) => svc.graphql('mutation($t: String!) { importZone(zone: "import.example", text: $t, mode: MERGE) { added } }', { t: body });
      const results = [];
      for (const [label, body] of [[`MERGE of ${RECORDS} records into an empty zone`, text('')], [`MERGE of the same ${RECORDS} + 1 into the full zone`, text('extra 3600 IN A 192.0.2.1\n')]]) {
        log(label);
        const run = await whileHealthPolled(svc, () => importZone(body));
        log(`  ${run.ms} ms (added ${run.result.importZone.added}), /health p99 ${run.healthP99.toFixed(1)} ms, max ${run.healthMax.toFixed(1)} ms`);
        results.push({ label, ...run });
      }
      return results;
    } finally {
      await svc.stop();
    }
  });
  const rows = runs.map((r) => `| ${r.label} | ${r.ms} | ${r.result.importZone.added} | ${r.healthP99.toFixed(1)} | ${r.healthMax.toFixed(1)} | ${r.healthSamples} |`).join('\n');
  fs.writeFileSync(path.join(__dirname, 'RESULTS-import.md'), `# Import benchmark (\`npm run bench:import\`)

Machine: ${machine.cpuModel}, ${machine.nproc} cores, ${machine.memoryGiB.toFixed(1)} GiB, Linux ${machine.kernel}, Node ${machine.node}.
Date: ${machine.date}. Commit: ${machine.commit.slice(0, 12)}.
Targets: ${RECORDS} records in < 2,000 ms; GET /health p99 < 100 ms while the import runs (polled every 10 ms).

| import | ms | added | /health p99 ms | /health max ms | samples |
| --- | ---: | ---: | ---: | ---: | ---: |
${rows}
`);
  log('written bench/RESULTS-import.md');
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack || error.message}\n`);
  process.exit(1);
});
