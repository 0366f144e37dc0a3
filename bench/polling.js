'use strict';
// `npm run bench:polling`: what a poller costs. A zone of 1,000 records is read at
// concurrency 16, as a dashboard or a legacy client polls it: once with full answers, once with the ETag of
// the previous answer in If-None-Match (304 while nothing changed). Two reads: the REST zone export and the
// zone's records by GraphQL over GET. Target: 304s at ≥ 10× the throughput of full answers. Written to
// bench/RESULTS-polling.md with the machine and the date.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { withDatabase } = require('./lib/database');
const { load } = require('./lib/load');
const { machineInfo } = require('./lib/machine');
const { startService, ROOT } = require('./lib/service');

const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const RECORDS = 1000;
const CONNECTIONS = 16;
const SECONDS = process.env.BENCH_QUICK ? 3 : 10;
const TARGET_RATIO = 10;
const TMP = path.join(__dirname, '.tmp');
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  const rows = await withDatabase('zk_bench_polling', async (databaseUrl) => {
    const svc = await startService({ databaseUrl, apiKey: API_KEY, logFile: path.join(TMP, 'polling.log'), env: { LOG_LEVEL: 'warn' } });
    try {
      const user = await svc.api('POST', '/user/add', { email: 'poller@bench.example' });
      await svc.api('POST', '/domain/add', { user_id: user.id, zone: 'poll.example' });
      const lines = Array.from({ length: RECORDS }, (_, i) => `h${i} 3600 IN A 10.0.${(i >> 8) & 255}.${i & 255}`);
      await svc.graphql('mutation($t: String!) { importZone(zone: "poll.example", text: $t, mode: MERGE) { added } }', { t: `$ORIGIN poll.example.\n${lines.join('\n')}\n` });
      const reads = [
        ['REST zone export', '/api/domain/export/poll.example'],
        ['GraphQL over GET, the zone\'s records', `/graphql?query=${encodeURIComponent('{ domain(name: "poll.example") { serial records { id owner type rdata ttl } } }')}`],
      ];
      const results = [];
      for (const [label, target] of reads) {
        const full = await load({ url: `${svc.base}${target}`, connections: CONNECTIONS, duration: SECONDS, headers: svc.headers, check: (status) => status === 200 });
        const tag = await currentEtag(svc, target);
        const conditional = await load({
          url: `${svc.base}${target}`, connections: CONNECTIONS, duration: SECONDS,
          headers: { ...svc.headers, 'if-none-match': tag }, check: (status) => status === 304,
        });
        const ratio = conditional.rps / full.rps;
        log(`${label}: full ${full.rps.toFixed(0)} req/s (p99 ${full.p99} ms), 304 ${conditional.rps.toFixed(0)} req/s (p99 ${conditional.p99} ms): ${ratio.toFixed(1)}x`);
        if (full.bad || conditional.bad || full.errors || conditional.errors) throw new Error(`${label}: unexpected answers (${full.badExample ?? conditional.badExample ?? 'connection errors'})`);
        results.push({ label, full, conditional, ratio });
      }
      return results;
    } finally {
      await svc.stop();
    }
  });
  const table = rows.map((r) => `| ${r.label} | ${r.full.rps.toFixed(0)} | ${r.full.p99} | ${r.conditional.rps.toFixed(0)} | ${r.conditional.p99} | **${r.ratio.toFixed(1)}×** ${r.ratio >= TARGET_RATIO ? '(target met)' : '(target MISSED)'} |`).join('\n');
  fs.writeFileSync(path.join(__dirname, 'RESULTS-polling.md'), `# Polling benchmark (\`npm run bench:polling\`)

Machine: ${machine.cpuModel}, ${machine.nproc} cores, ${machine.memoryGiB.toFixed(1)} GiB, Linux ${machine.kernel}, Node ${machine.node}.
Date: ${machine.date}. Commit: ${machine.commit.slice(0, 12)}.${process.env.BENCH_QUICK ? ' **BENCH_QUICK: short runs, not for comparison.**' : ''}
A zone of ${RECORDS} records read at concurrency ${CONNECTIONS} for ${SECONDS} s each (autocannon): full answers, then with the
ETag of the last answer in If-None-Match (every answer a 304). Target: 304s at ≥ ${TARGET_RATIO}× the throughput of full answers.

| read | full req/s | full p99 ms | 304 req/s | 304 p99 ms | ratio |
| --- | ---: | ---: | ---: | ---: | ---: |
${table}
`);
  log('written bench/RESULTS-polling.md');
}

/** the ETag the service gives the current answer */
async function currentEtag(svc, target) {
  return new Promise((resolve, reject) => {
    http.get(`${svc.base}${target}`, { headers: svc.headers }, (res) => {
      res.resume();
      res.on('end', () => (res.headers.etag ? resolve(res.headers.etag) : reject(new Error(`no ETag on ${target} (${res.statusCode})`))));
    }).on('error', reject);
  });
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack || error.message}\n`);
  process.exit(1);
});
