'use strict';
// `npm run bench:powerdns-zone-list`: the PowerDNS API's list of every zone (`GET /api/v1/servers/localhost/zones`,
// which external-dns and octoDNS read whole on every run) at 10,000 and 100,000 zones (bench/README.md, «The
// PowerDNS API's zone list»).
//
// The zones are seeded by SQL on a database of the run's own (as bench/scale.js and list-growth.js seed them: two
// owners, the zones' rows alone, a list reads no records), with a few made through the PowerDNS API first in each
// half so that every shape of the list is in it: an `account` and a `kind` the API was told, a signed zone, a
// secondary zone with two primaries (one on another port, one IPv6), one whose transfers a TSIG key signs, one
// taken (its serial shown) and one never taken (serial 0). The service is the built one, started as `npm run serve`
// starts it (ROLES=api, no rate limits). With BENCH_OTHER=<checkout> (its dist/ built), that checkout's service
// runs on the same database too, and the two take turns list by list, so that the shared host's load weighs on
// both alike: the before and after of a change, in one run.
//
// Each list: one request on a new connection, timed to its first and to its last byte by the client, and the
// service's CPU for it (/proc), after a pause of PAUSE_MS. WARMUP untimed lists, then RUNS timed ones, per service
// and size, the services in turn (which goes first alternates). The first answer of each service at each size is
// hashed (SHA-256) and the two services' must be equal byte for byte; every timed answer must be 200 and as long.
// Targets (docs/scale.md): the first byte within 50 ms, the whole list of 100,000 zones within 500 ms. Written to
// bench/RESULTS-powerdns-zone-list.md.
//
// BENCH_SIZES=10000 (some sizes), BENCH_RUNS, BENCH_WARMUP: for work on the bench (the results go to bench/.tmp).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { createHash } = require('node:crypto');
const { Client } = require('pg');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { startService, serveCommand, ROOT } = require('./lib/service');

const SIZES = process.env.BENCH_SIZES ? process.env.BENCH_SIZES.split(',').map(Number) : [10_000, 100_000];
const RUNS = Number(process.env.BENCH_RUNS || 9);
const WARMUP = Number(process.env.BENCH_WARMUP || 3);
const OTHER = process.env.BENCH_OTHER ? path.resolve(process.env.BENCH_OTHER) : undefined;
const PARTIAL = !!process.env.BENCH_SIZES || !!process.env.BENCH_RUNS || !!process.env.BENCH_WARMUP;
/** between two lists: the one before, and its garbage collection, done */
const PAUSE_MS = 300;
const TARGET = { firstByteMs: 50, wholeMs: 500, at: 100_000 };
const RESULTS = PARTIAL
  ? path.join(__dirname, '.tmp', 'RESULTS-powerdns-zone-list-partial.md')
  : path.join(__dirname, 'RESULTS-powerdns-zone-list.md');
const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const LIST = '/api/v1/servers/localhost/zones';
const log = (...a) => console.log(new Date().toISOString().slice(11, 19), ...a);

/** CPU seconds a process has used (user + system), from /proc */
function cpuOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, in clock ticks (100 a second on Linux)
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** one list on a connection of its own: status, bytes, first and last byte (ms), and the body's SHA-256 if `hash` */
function timedList(svc, hash) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const digest = hash ? createHash('sha256') : undefined;
    let firstByte;
    let bytes = 0;
    const req = http.get(`${svc.base}${LIST}`, { headers: svc.headers, agent: false }, (res) => {
      res.on('data', (chunk) => {
        firstByte ??= process.hrtime.bigint();
        bytes += chunk.length;
        digest?.update(chunk);
      });
      res.on('end', () => {
        const ended = process.hrtime.bigint();
        resolve({
          status: res.statusCode,
          bytes,
          sha256: digest?.digest('hex'),
          firstByteMs: Number((firstByte ?? ended) - started) / 1e6,
          wholeMs: Number(ended - started) / 1e6,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function pdns(svc, method, route, body) {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${svc.base}/api/v1/servers/localhost${route}`,
      {
        method,
        agent: false,
        headers: { ...svc.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          res.statusCode < 300 ? resolve(text) : reject(new Error(`${method} ${route} → ${res.statusCode} ${text.slice(0, 300)}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** the zones of every shape the list shows, made through the PowerDNS API (`half`: 1 or 2, in their names) */
async function specialZones(svc, half) {
  await pdns(svc, 'POST', '/zones', {
    name: `labelled-${half}.list.test.`,
    kind: 'Native',
    account: 'provider-7',
    nameservers: ['ns1.list.net.'],
  });
  await pdns(svc, 'POST', '/zones', { name: `master-${half}.list.test.`, kind: 'Master', nameservers: ['ns1.list.net.'] });
  await pdns(svc, 'POST', '/zones', { name: `signed-${half}.list.test.`, kind: 'Native', nameservers: ['ns1.list.net.'], dnssec: true });
  await pdns(svc, 'POST', '/zones', { name: `secondary-${half}.list.test.`, kind: 'Slave', masters: ['192.0.2.1', '[2001:db8::53]:5300'] });
  await pdns(svc, 'POST', '/zones', {
    name: `secondary-key-${half}.list.test.`,
    kind: 'Slave',
    masters: ['192.0.2.2:5353'],
    slave_tsig_key_ids: ['list-xfr.'],
  });
}

const summary = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};
const ms = (v) => (v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en'));
const load = (l) => l.map((v) => v.toFixed(1)).join(' / ');

async function main() {
  const machine = machineInfo(ROOT);
  const other = OTHER && machineInfo(OTHER);
  const loadBefore = os.loadavg();
  const started = Date.now();
  const rows = [];
  let postgres = '';
  await withDatabase('zk_bench_zone_list', async (url) => {
    const services = [];
    const start = async (label, checkout) => {
      const svc = await startService({
        databaseUrl: url,
        apiKey: API_KEY,
        logFile: path.join(os.tmpdir(), `zk-bench-zone-list-${label}-${process.pid}.log`),
        env: { LOG_LEVEL: 'warn', ROLES: 'api', HEALTH_CHECK_INTERVAL: '0' },
        ...(checkout ? { main: path.join(checkout, 'dist', 'src', 'main.js') } : {}),
      });
      services.push({ label, svc });
      return svc;
    };
    const db = new Client({ connectionString: url });
    try {
      const ours = await start('this checkout');
      await db.connect();
      postgres = (await db.query('show server_version')).rows[0].server_version;
      const users = [];
      for (const email of ['a@list.example', 'b@list.example'])
        users.push((await ours.graphql('mutation($e: String!) { createUser(input: {email: $e}) { id } }', { e: email })).createUser.id);
      await pdns(ours, 'POST', '/tsigkeys', { name: 'list-xfr', algorithm: 'hmac-sha256' });
      if (OTHER) await start(`${path.basename(OTHER)} (${other.commit.slice(0, 12)})`, OTHER);
      let seeded = 0;
      for (const size of SIZES) {
        // each half: its special zones through the API, then the rest by SQL
        for (const upto of [seeded + (size - seeded) / 2, size]) {
          await specialZones(ours, Math.round(upto));
          await db.query(
            `insert into domains (user_id, name, serial, catalog_serial, record_count)
             select case when i % 2 = 0 then $1::bigint else $2::bigint end, 'z' || i || '.list.test', 2026112901, 1, 4
               from generate_series($3::int, $4::int) as i`,
            [users[0], users[1], seeded + 1, upto - 5],
          );
          seeded = upto;
        }
        // one secondary zone taken: its serial is shown, the others' 0
        await db.query(`update secondary_zone_state set state = 'in_sync'
                         where domain_id = (select min(domain_id) from secondary_zone_state where state = 'pending')`);
        await db.query('vacuum analyze');
        await db.query('checkpoint');
        const zones = Number((await db.query('select count(*) from domains')).rows[0].count);
        log(`${zones} zones`);
        const lists = new Map(services.map(({ label }) => [label, []]));
        const first = new Map();
        for (let i = 0; i < WARMUP + RUNS; i++)
          // the services in turn, which first alternating, each list after a pause (the last one's collection done)
          for (const { label, svc } of i % 2 ? [...services].reverse() : services) {
            await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
            const before = cpuOf(svc.pid);
            const list = await timedList(svc, i === 0);
            list.cpuMs = (cpuOf(svc.pid) - before) * 1000;
            if (list.status !== 200) throw new Error(`${label}: the list answered ${list.status}`);
            if (i === 0) first.set(label, list);
            else if (list.bytes !== first.get(label).bytes)
              throw new Error(`${label}: a list of ${list.bytes} bytes, the first ${first.get(label).bytes}`);
            if (i >= WARMUP) lists.get(label).push(list);
          }
        const hashes = new Set([...first.values()].map((list) => list.sha256));
        if (hashes.size !== 1) throw new Error(`the services' lists differ: ${[...first].map(([l, r]) => `${l} ${r.sha256}`).join(', ')}`);
        for (const { label } of services) {
          const timed = lists.get(label);
          const row = {
            label,
            zones,
            bytes: first.get(label).bytes,
            firstByte: summary(timed.map((r) => r.firstByteMs)),
            whole: summary(timed.map((r) => r.wholeMs)),
            cpu: summary(timed.map((r) => r.cpuMs)),
            load: os.loadavg()[0],
          };
          rows.push(row);
          log(JSON.stringify(row));
        }
      }
    } finally {
      await db.end().catch(() => undefined);
      for (const { svc } of services) await svc.stop();
    }
  });
  writeResults(machine, other, { rows, postgres, loadBefore, loadAfter: os.loadavg(), seconds: (Date.now() - started) / 1000 });
}

function writeResults(machine, other, run) {
  const verdict = (row) => {
    if (row.zones < TARGET.at) return row.firstByte.p50 <= TARGET.firstByteMs ? 'first byte met' : '**first byte missed**';
    const met = row.firstByte.p50 <= TARGET.firstByteMs && row.whole.p50 <= TARGET.wholeMs;
    return met ? 'met' : '**missed**';
  };
  const busy = Math.max(run.loadBefore[0], run.loadAfter[0]) > machine.nproc;
  const text = `# The PowerDNS API's list of every zone (\`npm run bench:powerdns-zone-list\`)

Written by bench/powerdns-zone-list.js on every run; **do not edit by hand**. What is measured and how: bench/README.md,
«The PowerDNS API's zone list».${PARTIAL ? '\n\n**A partial run (BENCH_SIZES, BENCH_RUNS or BENCH_WARMUP): not for comparison.**' : ''}

| | |
| --- | --- |
| date | ${machine.date} |
| commit | \`${machine.commit.slice(0, 12)}\` (${machine.commitSubject})${machine.dirty ? `, ${machine.dirty} uncommitted change(s) in src/package files` : ''} |
${other ? `| beside it | \`${other.commit.slice(0, 12)}\` (${other.commitSubject}), its build on the same database, the two taking turns list by list |\n` : ''}| machine | ${machine.cpuModel}, ${machine.nproc} cores, ${machine.memoryGiB.toFixed(1)} GiB, Linux ${machine.kernel}, Node ${machine.node} |
| PostgreSQL | ${run.postgres} at 127.0.0.1:5432 |
| service | the built service, \`${serveCommand().text}\`, ROLES=api, no rate limits |
| load average (1 / 5 / 15 min) | ${load(run.loadBefore)} before, ${load(run.loadAfter)} after, on ${machine.nproc} cores: ${busy ? "**a shared, busy host** (other engineers' tests and builds beside): the times are longer than a quiet host gives; the service's CPU a list is the steadier figure" : 'a quiet host'} |
| lists | ${WARMUP} untimed then ${RUNS} timed of each service at each size, each on a new connection |
| run time | ${Math.round(run.seconds)} s |

Targets: the first byte within ${TARGET.firstByteMs} ms; the whole list of ${TARGET.at.toLocaleString('en')} zones within ${TARGET.wholeMs} ms (p50 of the timed lists).
Times in ms as the client saw them; CPU: the service process's (user + system) for one list. Each service's answers were
the same bytes (SHA-256 of the first, the length of every one).

| build | zones | answer | first byte p50 / max | whole list p50 / max | service CPU a list p50 / max | load (1 min) at the end | target |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |
${run.rows
  .map(
    (r) =>
      `| ${r.label} | ${r.zones.toLocaleString('en')} | ${(r.bytes / 1e6).toFixed(2)} MB | ${ms(r.firstByte.p50)} / ${ms(r.firstByte.max)} | ${ms(r.whole.p50)} / ${ms(r.whole.max)} | ${ms(r.cpu.p50)} / ${ms(r.cpu.max)} | ${r.load.toFixed(1)} | ${verdict(r)} |`,
  )
  .join('\n')}
`;
  fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
  fs.writeFileSync(RESULTS, text);
  log(`written ${path.relative(ROOT, RESULTS)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
