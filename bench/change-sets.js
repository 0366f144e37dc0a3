'use strict';
// `npm run bench:change-sets`: change sets. Sets of 1,000 new A records into one zone, one set after
// another, records per second: Zonekeeper's POST /api/domain/changes/:zone against PowerDNS's
// PATCH /api/v1/servers/localhost/zones/<zone> carrying 1,000 rrsets (changetype REPLACE), in the same run on the
// same PostgreSQL; and one set of 10,000 records. Targets: ≥ 10× PowerDNS's records per second; the
// 10,000-record set in < 1 s. Written to bench/RESULTS-change-sets.md with the machine and the date.
const fs = require('node:fs');
const path = require('node:path');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { startPdnsOnDatabase, pdnsVersion } = require('./lib/pdns');
const { request } = require('./lib/proc');
const { startService, ROOT } = require('./lib/service');

const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const SET_SIZE = 1000;
const SETS = process.env.BENCH_QUICK ? 3 : 10;
const BIG_SET = 10_000;
const TMP = path.join(__dirname, '.tmp');
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const ip = (n) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

async function timed(work) {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function ours(databaseUrl) {
  const svc = await startService({ databaseUrl, apiKey: API_KEY, logFile: path.join(TMP, 'change-sets.log'), env: { LOG_LEVEL: 'warn' } });
  try {
    const user = await svc.api('POST', '/user/add', { email: 'sets@bench.example' });
    await svc.api('POST', '/domain/add', { user_id: user.id, zone: 'sets.example' });
    await svc.api('POST', '/domain/add', { user_id: user.id, zone: 'big.example' });
    const apply = async (zone, from, count) => {
      const changes = Array.from({ length: count }, (_, i) => ({ kind: 'ADD', owner: `h${from + i}`, type: 'A', rdata: ip(from + i), ttl: 3600 }));
      const res = await request('POST', `${svc.base}/api/domain/changes/${zone}`, { headers: svc.headers, body: { changes } });
      if (res.status !== 200 || res.json.added.length !== count) throw new Error(`change set → ${res.status} ${res.text.slice(0, 200)}`);
    };
    await apply('sets.example', 0, SET_SIZE); // warm-up
    const times = [];
    for (let s = 1; s <= SETS; s++) times.push(await timed(() => apply('sets.example', s * SET_SIZE, SET_SIZE)));
    const big = await timed(() => apply('big.example', 0, BIG_SET));
    return { times, big };
  } finally {
    await svc.stop();
  }
}

async function powerdns(databaseUrl) {
  const pdns = await startPdnsOnDatabase(databaseUrl, {
    dir: path.join(TMP, `pdns-sets-${Date.now()}`),
    apiKey: 'pdns-bench-key',
    logFile: path.join(TMP, 'pdns-change-sets.log'),
  });
  try {
    await pdns.api('POST', '/zones', { name: 'sets.example.', kind: 'Native', nameservers: ['ns1.example.net.', 'ns2.example.net.'] });
    const apply = async (from, count) => {
      const rrsets = Array.from({ length: count }, (_, i) => ({
        name: `h${from + i}.sets.example.`, type: 'A', ttl: 3600, changetype: 'REPLACE', records: [{ content: ip(from + i), disabled: false }],
      }));
      await pdns.api('PATCH', '/zones/sets.example.', { rrsets }, [204]);
    };
    await apply(0, SET_SIZE);
    const times = [];
    for (let s = 1; s <= SETS; s++) times.push(await timed(() => apply(s * SET_SIZE, SET_SIZE)));
    return { times };
  } finally {
    await pdns.stop();
  }
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  log(`Zonekeeper: ${SETS} sets of ${SET_SIZE} records, then one of ${BIG_SET}`);
  const zk = await withDatabase('zk_bench_sets', ours);
  log(`PowerDNS ${pdnsVersion()}: ${SETS} PATCHes of ${SET_SIZE} rrsets`);
  const pd = await withDatabase('pdns_bench_sets', powerdns);
  const rate = (times) => (SET_SIZE * times.length) / (times.reduce((a, b) => a + b, 0) / 1000);
  const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
  const ratio = rate(zk.times) / rate(pd.times);
  log(`Zonekeeper ${rate(zk.times).toFixed(0)} records/s, PowerDNS ${rate(pd.times).toFixed(0)} records/s: ${ratio.toFixed(1)}x; 10,000-record set ${zk.big.toFixed(0)} ms`);
  fs.writeFileSync(path.join(__dirname, 'RESULTS-change-sets.md'), `# Change-set benchmark (\`npm run bench:change-sets\`)

Machine: ${machine.cpuModel}, ${machine.nproc} cores, ${machine.memoryGiB.toFixed(1)} GiB, Linux ${machine.kernel}, Node ${machine.node}.
Date: ${machine.date}. Commit: ${machine.commit.slice(0, 12)}. PowerDNS ${pdnsVersion()} (gpgsql on the same PostgreSQL).${process.env.BENCH_QUICK ? ' **BENCH_QUICK: short run, not for comparison.**' : ''}
${SETS} sets of ${SET_SIZE} new A records into one zone, one after another (after one set of warm-up), then one set of ${BIG_SET}.
Targets: records per second ≥ 10× PowerDNS's; a ${BIG_SET.toLocaleString('en')}-record set in < 1 s.

| | records/s | median set ms |
| --- | ---: | ---: |
| Zonekeeper \`POST /api/domain/changes/:zone\` | ${rate(zk.times).toFixed(0)} | ${median(zk.times).toFixed(0)} |
| PowerDNS \`PATCH …/zones/<zone>\` (${SET_SIZE} rrsets, REPLACE) | ${rate(pd.times).toFixed(0)} | ${median(pd.times).toFixed(0)} |
| **ratio** | **${ratio.toFixed(1)}×** ${ratio >= 10 ? '(target met)' : '(target MISSED)'} | |

A set of ${BIG_SET.toLocaleString('en')} records: **${zk.big.toFixed(0)} ms** ${zk.big < 1000 ? '(target met)' : '(target MISSED)'}.
`);
  log('written bench/RESULTS-change-sets.md');
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack || error.message}\n`);
  process.exit(1);
});
