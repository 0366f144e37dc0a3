'use strict';
// `npm run bench`: builds the service (npm script), then runs the load benchmarks of bench/README.md's
// `npm run bench` section (nested GraphQL, writes, zone fetch, record list) against the running service and
// PowerDNS, and writes bench/RESULTS.md. Exit code 1 when a request failed (non-2xx or a wrong answer) or a
// step could not run; missed targets are reported, not fatal.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Client } = require('pg');
const { load } = require('./lib/load');
const { wrk } = require('./lib/wrk');
const { machineInfo } = require('./lib/machine');
const { sleep, streamTimed, memoryOf, sampleMemory, request, cpuStat, cpuShare, waitForQuiet, busyProcesses } = require('./lib/proc');
const { startService, serveCommand, ROOT } = require('./lib/service');
const { startWriteFloor } = require('./lib/write-floor');
const { startPdnsOnDatabase, pdnsVersion } = require('./lib/pdns');
const { writeResults } = require('./lib/report');

const QUICK = process.env.BENCH_QUICK === '1'; // shorter runs while working on the bench itself
// BENCH_WRITES_ONLY=1: the writes alone (Zonekeeper, the two write floors, PowerDNS), logged and written to
// bench/.tmp/writes-<stamp>.json, not RESULTS.md: for A/B runs of the write path minutes apart
const WRITES_ONLY = process.env.BENCH_WRITES_ONLY === '1';
const ADMIN_URL = process.env.BENCH_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const TMP = path.join(__dirname, '.tmp');
const STAMP = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
const ZK_DB = `zk_bench_${STAMP}`;
const PDNS_DB = `pdns_bench_${STAMP}`;
/** PowerDNS serving signed zones: its own database and instance, with its backend's DNSSEC on (gpgsql-dnssec) */
const PDNS_SIGNED_DB = `pdns_signed_bench_${STAMP}`;
const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const PDNS_KEY = `pdns_bench_${Math.random().toString(36).slice(2)}`;

const SECONDS = {
  write: QUICK ? 5 : 20,
  writeWarmup: QUICK ? 2 : 3,
  graphqlC1: QUICK ? 5 : 15,
  graphqlC16: QUICK ? 3 : 10,
  fetchC1: QUICK ? 3 : 10,
  fetchC16: QUICK ? 3 : 10,
};
const LIST_RUNS = QUICK ? 2 : 3;
const COUNT_REPEAT = 10;

const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const urlFor = (database) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
};

/** runs fn over items, n at a time */
async function parallel(items, n, fn) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  }));
  return results;
}

const ipv4 = (i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** Bulk seeding (allowed for the read benchmarks): A records with distinct owners, TTL 3600. */
async function seedRecords(client, domainIds, total, ownerPrefix) {
  await client.query(
    `insert into records (domain_id, owner, type, rdata, ttl)
     select ($1::bigint[])[1 + g % cardinality($1::bigint[])], $3 || g, 'A',
            '10.' || ((g >> 16) & 255) || '.' || ((g >> 8) & 255) || '.' || (g & 255), 3600
     from generate_series(0, $2::int - 1) as g`,
    [domainIds, total, ownerPrefix],
  );
}

async function createZones(svc, userId, names) {
  return parallel(names, 4, async (zone) => (await svc.api('POST', '/domain/add', { user_id: userId, zone })).id);
}

// ---------------------------------------------------------------------------------------------------------
const GRAPHQL_QUERY = '{ users(first: 100) { nodes { email domains(first: 10) { name records(first: 10) { owner type rdata ttl } } } } }';

async function seedGraph(svc, db) {
  log('seeding 100 users × 10 zones (REST API: SOA, 2 NS, www CNAME) × 10 records (+ 6 A records by SQL)');
  const users = await parallel(Array.from({ length: 100 }, (_, u) => u), 4, async (u) =>
    (await svc.api('POST', '/user/add', { email: `user${u}@graph.example` })).id);
  const zones = [];
  for (let u = 0; u < 100; u++) for (let z = 0; z < 10; z++) zones.push({ user: users[u], zone: `z${z}.u${u}.graph.example` });
  const ids = await parallel(zones, 4, async ({ user, zone }) => (await svc.api('POST', '/domain/add', { user_id: user, zone })).id);
  // 10 records per zone: the 4 default records of a new zone + A records r0..r5
  await db.query(
    `insert into records (domain_id, owner, type, rdata, ttl)
     select d.id, 'r' || g, 'A', '192.0.2.' || (g + 1), 3600
     from unnest($1::bigint[]) as d(id), generate_series(0, 5) as g`,
    [ids],
  );
  const { rows: [counts] } = await db.query(
    `select count(*)::int as records, count(*) filter (where type = 'A')::int as a from records r join domains d on d.id = r.domain_id where d.name like '%.graph.example'`,
  );
  return { users: users.length, zones: ids.length, records: counts.records, aRecords: counts.a };
}

function checkGraphAnswer(json, expect) {
  const nodes = json?.data?.users?.nodes;
  if (json?.errors || !Array.isArray(nodes)) return `errors: ${JSON.stringify(json?.errors ?? json).slice(0, 200)}`;
  const domains = nodes.reduce((n, u) => n + u.domains.length, 0);
  const records = nodes.reduce((n, u) => n + u.domains.reduce((m, d) => m + d.records.length, 0), 0);
  if (nodes.length !== expect.users || domains !== expect.zones || records !== expect.records) {
    return `answer has ${nodes.length} users, ${domains} zones, ${records} records; expected ${expect.users}, ${expect.zones}, ${expect.records}`;
  }
  return undefined;
}

async function graphqlLatency(svc, expect) {
  const body = JSON.stringify({ query: GRAPHQL_QUERY });
  const headers = { ...svc.headers, 'content-type': 'application/json' };
  const once = await request('POST', `${svc.base}/graphql`, { headers, body });
  const problem = once.status === 200 ? checkGraphAnswer(once.json, expect) : `status ${once.status}`;
  if (problem) throw new Error(`GraphQL query gave a wrong answer: ${problem}`);
  for (let i = 0; i < 10; i++) await request('POST', `${svc.base}/graphql`, { headers, body }); // warm-up
  const check = (status, text) => status === 200 && !text.includes('"errors"');
  const common = { url: `${svc.base}/graphql`, method: 'POST', headers, next: () => body, check };
  log(`GraphQL users{domains{records}}: concurrency 1 for ${SECONDS.graphqlC1} s`);
  const c1 = await load({ ...common, connections: 1, duration: SECONDS.graphqlC1 });
  log(`  p50 ${c1.p50} ms, p99 ${c1.p99} ms, ${c1.rps.toFixed(1)} req/s`);
  log(`GraphQL users{domains{records}}: concurrency 16 for ${SECONDS.graphqlC16} s`);
  const c16 = await load({ ...common, connections: 16, duration: SECONDS.graphqlC16 });
  log(`  p50 ${c16.p50} ms, p99 ${c16.p99} ms, ${c16.rps.toFixed(1)} req/s`);
  return { c1, c16, bytes: Buffer.byteLength(once.text) };
}

// ---------------------------------------------------------------------------------------------------------
/** wrk: a warm-up, then the measured run; every request a new record (the counters of the two runs differ). */
async function writeBenchmark(label, spec) {
  log(`${label}: warm-up ${SECONDS.writeWarmup} s`);
  const base = spec.offsetBase ?? 0;
  const warmup = await wrk({ ...spec, tmpDir: TMP, connections: 16, seconds: SECONDS.writeWarmup, offset: base });
  log(`${label}: concurrency 16 for ${SECONDS.write} s`);
  const run = await wrk({ ...spec, tmpDir: TMP, connections: 16, seconds: SECONDS.write, offset: base + 1_000_000 });
  log(`  ${run.rps.toFixed(1)} req/s, p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, non-2xx ${run.non2xx}, wrong ${run.bad}, errors ${run.errors}`);
  return { warmup, run };
}

/**
 * `POST /api/record/add` at concurrency 16 into 100 zones of one user; `signed`: into 100 other zones signed by
 * `enableDnssec` with its defaults (ECDSAP256SHA256, a KSK and a ZSK, NSEC), each write re-signing its RRset, the
 * SOA and the NSEC chain around a new owner in its serial step (the bar: ≥ 3× PowerDNS serving the same signed)
 */
async function ourWrites(svc, { signed = false } = {}) {
  const user = await svc.api('POST', '/user/add', { email: signed ? 'signer@signed-write.example' : 'writer@write.example' });
  const zones = Array.from({ length: 100 }, (_, z) => (signed ? `s${z}.signed-write.example` : `w${z}.write.example`));
  await createZones(svc, user.id, zones);
  if (signed)
    await parallel(zones, 4, (zone) => svc.graphql('mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }', { i: { zone } }));
  return writeBenchmark(`Zonekeeper POST /api/record/add${signed ? ', zones signed' : ''}`, {
    url: `${svc.base}/api/record/add`,
    kind: 'zk-record',
    method: 'POST',
    headers: { ...svc.headers, 'content-type': 'application/json' },
    zones,
    expect: 201,
  });
}

/**
 * the same writes on the floor server (bench/lib/write-floor.js), into the zones ourWrites made: `head`, the
 * write on the zone's head alone (one round trip), or the floor before zone heads (the read, then the write)
 */
async function floorWrites({ head }) {
  const floor = await startWriteFloor(urlFor(ZK_DB), { head });
  try {
    return await writeBenchmark(head ? 'write floor (node http + pg, the write on the zone head)' : 'write floor before zone heads (read + write)', {
      url: `${floor.base}/api/record/add`,
      kind: 'zk-record',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      zones: Array.from({ length: 100 }, (_, z) => `w${z}.write.example`),
      expect: 201,
      // other owners than the service's run: every record is new
      offsetBase: head ? 5_000_000 : 7_000_000,
    });
  } finally {
    await floor.stop();
  }
}

/**
 * The same writes as PowerDNS PATCHes; `signed`: into zones made with `dnssec: true` on an instance whose backend
 * has DNSSEC on (gpgsql-dnssec): its default key, one ECDSAP256SHA256 CSK, signing as it answers; each PATCH
 * rectifies the zone (api-rectify, its default), so that what it serves of the new owner is signed and denied right
 */
async function pdnsWrites(pdns, { signed = false } = {}) {
  const zones = Array.from({ length: 100 }, (_, z) => (signed ? `s${z}.signed-write.example.` : `w${z}.write.example.`));
  await parallel(zones, 4, (name) =>
    pdns.api('POST', '/zones', { name, kind: 'Native', ...(signed ? { dnssec: true } : {}), nameservers: ['ns1.example.net.', 'ns2.example.net.'] }));
  // signed as PowerDNS reports it: an active key for the zones
  for (const zone of signed ? [zones[0], zones[zones.length - 1]] : []) {
    const keys = await pdns.api('GET', `/zones/${zone}/cryptokeys`);
    if (!Array.isArray(keys) || !keys.some((key) => key.active)) throw new Error(`PowerDNS did not sign ${zone}: ${JSON.stringify(keys).slice(0, 200)}`);
  }
  return writeBenchmark(`PowerDNS PATCH /api/v1/servers/localhost/zones/<zone>${signed ? ', zones signed' : ''}`, {
    url: `${pdns.base}/zones/`,
    kind: 'pdns-rrset',
    method: 'PATCH',
    headers: { ...pdns.headers, 'content-type': 'application/json' },
    zones,
    expect: 204,
  });
}

// ---------------------------------------------------------------------------------------------------------
async function zoneFetch(label, url, headers, countRecords) {
  const once = await request('GET', url, { headers });
  if (once.status !== 200) throw new Error(`${label}: GET ${url} → ${once.status}`);
  const records = countRecords(once.json);
  if (records !== 1000) throw new Error(`${label}: the zone has ${records} records, expected 1000`);
  for (let i = 0; i < 10; i++) await request('GET', url, { headers });
  const spec = { url, kind: 'get', method: 'GET', headers, expect: 200, tmpDir: TMP, offset: 0 };
  log(`${label}: concurrency 1 for ${SECONDS.fetchC1} s`);
  const c1 = await wrk({ ...spec, connections: 1, seconds: SECONDS.fetchC1 });
  log(`  p50 ${c1.p50.toFixed(1)} ms, p99 ${c1.p99.toFixed(1)} ms, ${c1.rps.toFixed(1)} req/s`);
  log(`${label}: concurrency 16 for ${SECONDS.fetchC16} s`);
  const c16 = await wrk({ ...spec, connections: 16, seconds: SECONDS.fetchC16 });
  log(`  ${c16.rps.toFixed(1)} req/s, p50 ${c16.p50.toFixed(1)} ms, p99 ${c16.p99.toFixed(1)} ms`);
  return { c1, c16, bytes: Buffer.byteLength(once.text), records };
}

async function ourZoneFetch(svc, db) {
  const user = await svc.api('POST', '/user/add', { email: 'fetch@fetch.example' });
  const [id] = await createZones(svc, user.id, ['big.fetch.example']);
  const { rows: [{ n }] } = await db.query('select count(*)::int as n from records where domain_id = $1', [id]);
  await seedRecords(db, [id], 1000 - n, 'f'); // the zone's default records + A records = 1,000
  return zoneFetch('Zonekeeper GET /api/domain/list/zone/:id (1,000 records)', `${svc.base}/api/domain/list/zone/${id}`, svc.headers,
    (json) => json?.records?.length);
}

async function pdnsZoneFetch(pdns) {
  const zone = 'big.fetch.example.';
  await pdns.api('POST', '/zones', {
    name: zone,
    kind: 'Native',
    nameservers: ['ns1.example.net.', 'ns2.example.net.'],
    // the same records as ours: SOA, 2 NS, www CNAME to the apex, 996 A
    rrsets: [
      { name: `www.${zone}`, type: 'CNAME', ttl: 3600, records: [{ content: zone, disabled: false }] },
      ...Array.from({ length: 996 }, (_, g) => ({ name: `f${g}.${zone}`, type: 'A', ttl: 3600, records: [{ content: ipv4(g), disabled: false }] })),
    ],
  });
  return zoneFetch('PowerDNS GET /api/v1/servers/localhost/zones/<zone> (1,000 records)', `${pdns.base}/zones/${zone}`, pdns.headers,
    (json) => (json?.rrsets ?? []).reduce((n, rrset) => n + rrset.records.length, 0));
}

// ---------------------------------------------------------------------------------------------------------
/** Counts `{"id":` in a stream (split-safe) so that the 100,000 records are checked without buffering them. */
function itemCounter() {
  let count = 0;
  let tail = '';
  return {
    onChunk(chunk) {
      const text = tail + chunk.toString('latin1');
      let at = text.indexOf('{"id":');
      while (at !== -1) { count += 1; at = text.indexOf('{"id":', at + 6); }
      tail = text.slice(-5);
    },
    get count() { return count; },
  };
}

async function recordList(svc, db) {
  const { rows: [{ n: before }] } = await db.query('select count(*)::int as n from records');
  const user = await svc.api('POST', '/user/add', { email: 'lister@list.example' });
  const ids = await createZones(svc, user.id, Array.from({ length: 100 }, (_, z) => `l${z}.list.example`));
  const { rows: [{ n: afterZones }] } = await db.query('select count(*)::int as n from records');
  const missing = 100_000 - afterZones;
  // the write benchmarks before it may have written more than that on a fast host (a signed write adds its RRSIGs
  // and NSECs): the list is then read at what the database holds, and the report says how many
  if (missing > 0) log(`seeding ${missing} A records (SQL) into 100 zones: ${before} → 100,000 records in the database`);
  else log(`the database holds ${afterZones.toLocaleString('en')} records already: none seeded`);
  if (missing > 0) await seedRecords(db, ids, missing, 'n');
  await db.query('analyze records');
  const { rows: [{ n: total }] } = await db.query('select count(*)::int as n from records');
  const runs = [];
  await sleep(1000);
  for (let r = 0; r < LIST_RUNS; r++) {
    const counter = itemCounter();
    const sampler = sampleMemory(svc.pid, 5);
    const timing = await streamTimed(`${svc.base}/api/record/list`, svc.headers, counter.onChunk);
    const mem = sampler.stop();
    // VmHWM is the kernel's own peak: when it rose during the request, it is the exact peak
    const peak = Math.max(mem.peakRss, mem.after.hwm > mem.before.hwm ? mem.after.hwm : 0);
    const run = { ...timing, items: counter.count, rssBefore: mem.before.rss, peak, growth: peak - mem.before.rss, hwmBefore: mem.before.hwm, hwmAfter: mem.after.hwm, samples: mem.samples };
    runs.push(run);
    log(`GET /api/record/list run ${r + 1}: ${run.items} records, ${(run.bytes / 1e6).toFixed(1)} MB, last byte at ${run.totalMs.toFixed(0)} ms, RSS ${(run.rssBefore / 2 ** 20).toFixed(0)} → peak ${(run.peak / 2 ** 20).toFixed(0)} MiB (+${(run.growth / 2 ** 20).toFixed(0)} MiB)`);
    if (timing.status !== 200 || counter.count !== total) throw new Error(`GET /api/record/list: status ${timing.status}, ${counter.count} records, expected ${total}`);
    await sleep(2000);
  }
  return { total, runs };
}

// ---------------------------------------------------------------------------------------------------------
/**
 * SQL statements per GraphQL request, counted by pg_stat_statements on a dedicated temporary cluster (the
 * project's embedded PostgreSQL binaries with shared_preload_libraries=pg_stat_statements): a copy of the
 * benchmark's database, a second service process with ROLES=api (so that the worker's polling is not counted).
 */
async function countStatements(dumpFile) {
  const { startEmbeddedPostgres } = require(path.join(ROOT, 'dist', 'src', 'db', 'embedded-postgres.js'));
  const dir = path.join(TMP, `count-pg-${STAMP}`);
  let cluster = await startEmbeddedPostgres({ dir, persistent: true, fast: true });
  let svc;
  try {
    let admin = new Client({ connectionString: cluster.adminUrl });
    await admin.connect();
    await admin.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
    await admin.end();
    await cluster.stop();
    cluster = await startEmbeddedPostgres({ dir, persistent: true, fast: true });
    admin = new Client({ connectionString: cluster.adminUrl });
    await admin.connect();
    await admin.query('create extension if not exists pg_stat_statements');
    await admin.query('create database zk_count');
    const url = new URL(cluster.adminUrl);
    const restore = spawnSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-h', url.hostname, '-p', url.port, '-U', 'postgres', '-d', 'zk_count', '-f', dumpFile], {
      env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) }, encoding: 'utf8',
    });
    if (restore.status !== 0) throw new Error(`restoring the copy failed: ${restore.stderr.slice(0, 500)}`);
    url.pathname = '/zk_count';
    svc = await startService({ databaseUrl: url.toString(), apiKey: API_KEY, logFile: path.join(TMP, `service-count-${STAMP}.log`), env: { ROLES: 'api' } });
    const { rows: [{ oid }] } = await admin.query(`select oid from pg_database where datname = 'zk_count'`);
    const headers = { ...svc.headers, 'content-type': 'application/json' };
    const results = [];
    for (const first of [1, 10, 100]) {
      const body = JSON.stringify({ query: GRAPHQL_QUERY.replace('first: 100', `first: ${first}`) });
      await request('POST', `${svc.base}/graphql`, { headers, body }); // warm-up (API key cache, prepared plans)
      await admin.query('select pg_stat_statements_reset()');
      let rows = 0;
      for (let i = 0; i < COUNT_REPEAT; i++) {
        const res = await request('POST', `${svc.base}/graphql`, { headers, body });
        if (res.status !== 200 || res.json?.errors) throw new Error(`GraphQL (first: ${first}) → ${res.status} ${res.text.slice(0, 200)}`);
        rows = res.json.data.users.nodes.reduce((n, u) => n + 1 + u.domains.length + u.domains.reduce((m, d) => m + d.records.length, 0), 0);
      }
      const { rows: statements } = await admin.query(
        `select query, calls::int from pg_stat_statements where dbid = $1 order by calls desc, query`, [oid]);
      const calls = statements.reduce((n, s) => n + s.calls, 0);
      const keyCalls = statements.filter((s) => /\bapi_keys\b/.test(s.query)).reduce((n, s) => n + s.calls, 0);
      // the answer's own reads; anything else in the database's statistics is the service's background work (a
      // run once saw 3 such calls in the 10 requests' window, which made 3 statements look like 3.3)
      const dataCalls = statements.filter((s) => !/\bapi_keys\b/.test(s.query) && READS_ANSWER_TABLES.test(s.query)).reduce((n, s) => n + s.calls, 0);
      const otherStatements = statements.filter((s) => !/\bapi_keys\b/.test(s.query) && !READS_ANSWER_TABLES.test(s.query));
      results.push({ first, rowsPerAnswer: rows, perRequest: calls / COUNT_REPEAT, dataPerRequest: dataCalls / COUNT_REPEAT, keyPerRequest: keyCalls / COUNT_REPEAT, otherPerRequest: (calls - keyCalls - dataCalls) / COUNT_REPEAT, statements, otherStatements });
      log(`GraphQL users(first: ${first}): ${rows} users+zones+records per answer, ${calls / COUNT_REPEAT} SQL statements per request`);
    }
    await admin.end();
    return { results, postgres: await serverVersion(cluster.adminUrl).catch(() => 'unknown') };
  } finally {
    await svc?.stop();
    await cluster.stop().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** a statement reading the tables the nested answer is made of */
const READS_ANSWER_TABLES = /\b(from|join)\s+"?(users|domains|records)"?(\s|$)/i;

async function serverVersion(url) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('show server_version')).rows[0].server_version;
  } finally {
    await client.end();
  }
}

/**
 * the median time to open a PostgreSQL session (connect, authenticate, first answer) over five tries: PowerDNS's
 * API opens one per request (its gpgsql backend is built per request; 40 PATCHes opened 41 sessions,
 * bench/FINDINGS.md, session 10), so its rate follows this, and the ratio to PowerDNS with it
 */
async function connectionSetupMs(url) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const client = new Client({ connectionString: url });
    await client.connect();
    await client.query('select 1');
    times.push(performance.now() - started);
    await client.end();
  }
  return times.sort((a, b) => a - b)[2];
}

// ---------------------------------------------------------------------------------------------------------
async function main() {
  const started = Date.now();
  fs.mkdirSync(TMP, { recursive: true });
  const tools = spawnSync('bash', [path.join(__dirname, 'ensure-bench-tools.sh')], { stdio: 'inherit' });
  if (tools.status !== 0) throw new Error('could not install the benchmark tools (bench/ensure-bench-tools.sh)');

  const results = { machine: machineInfo(ROOT), settings: { quick: QUICK, seconds: SECONDS, adminUrl: ADMIN_URL.replace(/:[^:@/]*@/, ':***@') }, failures: [] };
  results.quiet = await waitForQuiet({ maxMs: Number(process.env.BENCH_QUIET_WAIT_S ?? 180) * 1000, log });
  log(results.quiet.quiet ? `machine quiet (${results.quiet.busyPercent.toFixed(0)}% CPU busy)` : `machine still busy after ${(results.quiet.waitedMs / 1000).toFixed(0)} s; measuring anyway`);
  results.loadavgStart = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const cpuStart = cpuStat();
  results.machine.postgres = await serverVersion(ADMIN_URL);
  results.machine.connectMs = await connectionSetupMs(ADMIN_URL);
  results.machine.pdns = pdnsVersion();
  log(`machine: ${results.machine.nproc} CPUs (${results.machine.cpuModel}), ${results.machine.memoryGiB.toFixed(1)} GiB; commit ${results.machine.commit.slice(0, 12)}`);

  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${ZK_DB}"`);
  await admin.query(`create database "${PDNS_DB}"`);
  await admin.query(`create database "${PDNS_SIGNED_DB}"`);
  let svc;
  let pdns;
  let db;
  const dumpFile = path.join(TMP, `graph-${STAMP}.sql`);
  try {
    log(`starting Zonekeeper: ${serveCommand().text}, DATABASE_URL=${urlFor(ZK_DB).replace(/:[^:@/]*@/, ':***@')}`);
    svc = await startService({ databaseUrl: urlFor(ZK_DB), apiKey: API_KEY, logFile: path.join(TMP, `service-${STAMP}.log`) });
    db = new Client({ connectionString: urlFor(ZK_DB) });
    await db.connect();
    results.startRss = memoryOf(svc.pid).rss;

    /** one benchmark: a failure is recorded (and fails the run) but the other benchmarks still run */
    const step = async (name, fn) => {
      try {
        return await fn();
      } catch (error) {
        log(`FAILED: ${name}: ${error.message}`);
        results.failures.push(`${name}: ${error.message}`);
        return undefined;
      }
    };

    // 3. GraphQL
    const graph = WRITES_ONLY ? undefined : await step('GraphQL seeding', () => seedGraph(svc, db));
    results.graphSeed = graph;
    let dumped = false;
    if (graph) {
      const dump = spawnSync('pg_dump', ['--no-owner', '--no-privileges', '-f', dumpFile, urlFor(ZK_DB)], { encoding: 'utf8' });
      dumped = dump.status === 0;
      if (!dumped) results.failures.push(`pg_dump failed: ${dump.stderr}`);
      results.graphql = await step('GraphQL latency', () => graphqlLatency(svc, { users: 100, zones: graph.zones, records: graph.records }));
    }

    // 1. writes, then 4. PowerDNS side by side
    results.writes = await step('Zonekeeper writes', () => ourWrites(svc));
    if (results.writes) results.floorWrites = await step('write floor', () => floorWrites({ head: true }));
    if (results.writes) results.floorReadWrites = await step('write floor before zone heads', () => floorWrites({ head: false }));
    results.signedWrites = await step('Zonekeeper signed writes', () => ourWrites(svc, { signed: true }));
    pdns = await step('PowerDNS start', async () => {
      log('starting PowerDNS (pdns_server, launch=gpgsql)');
      return startPdnsOnDatabase(urlFor(PDNS_DB), {
        dir: path.join(TMP, `pdns-${STAMP}`),
        apiKey: PDNS_KEY,
        logFile: path.join(TMP, `pdns-${STAMP}.log`),
      });
    });
    const oursFetch = WRITES_ONLY ? undefined : await step('Zonekeeper zone fetch', () => ourZoneFetch(svc, db));
    if (pdns) {
      results.pdnsWrites = await step('PowerDNS writes', () => pdnsWrites(pdns));
      const pdnsFetch = WRITES_ONLY ? undefined : await step('PowerDNS zone fetch', () => pdnsZoneFetch(pdns));
      if (oursFetch && pdnsFetch) results.fetch = { ours: oursFetch, pdns: pdnsFetch };
      await pdns.stop();
      pdns = undefined;
    }
    pdns = await step('PowerDNS start, DNSSEC on', async () => {
      log('starting PowerDNS (pdns_server, launch=gpgsql, gpgsql-dnssec=yes)');
      return startPdnsOnDatabase(urlFor(PDNS_SIGNED_DB), {
        dir: path.join(TMP, `pdns-signed-${STAMP}`),
        apiKey: PDNS_KEY,
        logFile: path.join(TMP, `pdns-signed-${STAMP}.log`),
        extraConfig: ['gpgsql-dnssec=yes'],
      });
    });
    if (pdns) {
      results.pdnsSignedWrites = await step('PowerDNS signed writes', () => pdnsWrites(pdns, { signed: true }));
      await pdns.stop();
      pdns = undefined;
    }

    // 2. the 100,000-record list
    if (!WRITES_ONLY) results.list = await step('record list', () => recordList(svc, db));
    await db.end();
    db = undefined;
    await svc.stop();
    svc = undefined;

    // 3b. statements per GraphQL request
    if (dumped) {
      results.statements = await step('statement count', () => countStatements(dumpFile));
      if (!results.statements) results.statementsError = results.failures[results.failures.length - 1];
    }
  } finally {
    await db?.end().catch(() => undefined);
    await svc?.stop();
    await pdns?.stop();
    fs.rmSync(dumpFile, { force: true });
    if (process.env.BENCH_KEEP_DATABASES !== '1') {
      await admin.query(`drop database if exists "${ZK_DB}" with (force)`).catch(() => undefined);
      await admin.query(`drop database if exists "${PDNS_DB}" with (force)`).catch(() => undefined);
      await admin.query(`drop database if exists "${PDNS_SIGNED_DB}" with (force)`).catch(() => undefined);
    }
    await admin.end();
  }
  for (const [name, r] of [['Zonekeeper writes', results.writes?.run], ['PowerDNS writes', results.pdnsWrites?.run],
    ['Zonekeeper signed writes', results.signedWrites?.run], ['PowerDNS signed writes', results.pdnsSignedWrites?.run], ['GraphQL c1', results.graphql?.c1], ['GraphQL c16', results.graphql?.c16],
    ['Zonekeeper zone fetch c1', results.fetch?.ours.c1], ['Zonekeeper zone fetch c16', results.fetch?.ours.c16], ['PowerDNS zone fetch c1', results.fetch?.pdns.c1], ['PowerDNS zone fetch c16', results.fetch?.pdns.c16]]) {
    if (r && (r.non2xx || r.bad || r.errors || r.timeouts)) results.failures.push(`${name}: ${r.non2xx} non-2xx, ${r.bad} wrong answers, ${r.errors} errors, ${r.timeouts} timeouts${r.badExample ? ` (e.g. ${r.badExample})` : ''}`);
  }
  results.wallSeconds = (Date.now() - started) / 1000;
  results.cpuRun = cpuShare(cpuStart, cpuStat());
  results.busyAtEnd = await busyProcesses();
  if (WRITES_ONLY) {
    results.loadavgEnd = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const rps = (r) => r?.run?.rps;
    const file = path.join(TMP, `writes-${STAMP}.json`);
    fs.writeFileSync(file, JSON.stringify(results, null, 2));
    log(`writes c16: Zonekeeper ${rps(results.writes)?.toFixed(1)}, floor ${rps(results.floorWrites)?.toFixed(1)}, floor before zone heads ${rps(results.floorReadWrites)?.toFixed(1)}, PowerDNS ${rps(results.pdnsWrites)?.toFixed(1)} req/s; ` +
      `÷ PowerDNS ${(rps(results.writes) / rps(results.pdnsWrites)).toFixed(2)}×, ÷ floor ${(rps(results.writes) / rps(results.floorWrites)).toFixed(2)}; ` +
      `signed: Zonekeeper ${rps(results.signedWrites)?.toFixed(1)}, PowerDNS ${rps(results.pdnsSignedWrites)?.toFixed(1)} req/s, ÷ PowerDNS ${(rps(results.signedWrites) / rps(results.pdnsSignedWrites)).toFixed(2)}×; ` +
      `load ${results.loadavgStart} → ${results.loadavgEnd}; ${file}`);
    process.exit(results.failures.length ? 1 : 0);
  }
  const file = writeResults(path.join(__dirname, 'RESULTS.md'), results);
  log(`results written to ${path.relative(ROOT, file)} (${results.wallSeconds.toFixed(0)} s)`);
  if (results.failures.length) {
    for (const failure of results.failures) log(`FAILED: ${failure}`);
    process.exitCode = 1;
  }
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack || error.message}\n`);
  process.exit(1);
});
