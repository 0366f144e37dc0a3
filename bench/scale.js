#!/usr/bin/env node
/**
 * Scale benchmark: grows one database step by step (SCALE_SIZES, default 1,000 / 10,000 /
 * 100,000 zones) and measures, at each size, what grew with the zone count before: catalog queries (SOA,
 * a member, a missing name), catalog AXFR and IXFR, an ordinary zone's SOA, the reads of one zone over HTTP
 * (`GET /api/domain/status/<zone>` answered in full and as 304 Not Modified, and the GraphQL one-zone query), zone
 * creation at concurrency 16, record add, the service's memory and the database's size. Run: `npm run bench:scale`
 * (builds first). Smaller runs: SCALE_SIZES=100,100000 SCALE_RECORDS_PER_ZONE=0 SCALE_BIG_ZONE=0 (the records
 * step skipped; its section of the previous results is kept, with the date it was measured).
 *
 * - the service runs as `npm run serve` would (roles api, dns, worker; bench/lib/service.js) on a scratch
 *   database created on BENCH_DATABASE_ADMIN_URL (default postgresql://postgres@127.0.0.1:5432/postgres),
 *   dropped at the end (SCALE_KEEP_DATABASE=1 keeps it)
 * - the zones are seeded by bulk SQL as the API would have written them: domains joined to the catalog one
 *   by one, their default records, a `zone-created` journal row each and one catalog journal row each (the
 *   catalog's journal as 100,000 single creates leave it); the measured operations go through the API and
 *   the DNS port
 * - DNS figures: sequential queries over UDP (TCP for transfers) from this process; p50/p99 of QUERIES each
 * - one-zone reads: sequential HTTP requests on one kept-alive connection from this process, p50/p95 of READS
 *   each; the zone is a 4-record zone from the middle of the seeded ones at every size
 * Writes bench/RESULTS-scale.md.
 */
'use strict';
const dgram = require('node:dgram');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const dnsPacket = require('dns-packet');
const { Client } = require('pg');
const { startService, ROOT } = require('./lib/service');
const { freePort, memoryOf, request, busyProcesses, sampleMemory, streamTimed } = require('./lib/proc');
const { machineInfo } = require('./lib/machine');

const SIZES = (process.env.SCALE_SIZES || '1000,10000,100000').split(',').map(Number);
const QUERIES = Number(process.env.SCALE_QUERIES || 400);
/**
 * untimed queries before the timed ones of each figure: each pooled connection of the primary prepares its
 * statements on first use and V8 compiles the path late, so the first queries of a kind are the slow tail
 */
const QUERY_WARMUP = Number(process.env.SCALE_QUERY_WARMUP ?? 100);
/** untimed zone creates at the same concurrency before the timed ones, for the same reason */
const CREATE_WARMUP = Number(process.env.SCALE_CREATE_WARMUP ?? 160);
const CREATES = Number(process.env.SCALE_CREATES || 800);
const CONCURRENCY = 16;
const RECORD_ADDS = Number(process.env.SCALE_RECORD_ADDS || 200);
/**
 * untimed adds before the timed ones: the first few hundred requests of a kind run while V8 is still compiling
 * their code (measured: p50 4.5 ms for the first 200 adds, 2.6–3.2 ms after 1,000, in an empty database and in
 * one of 3 million records alike), so without them the figure measures the JIT, not the database's size
 */
const RECORD_WARMUP = Number(process.env.SCALE_RECORD_WARMUP ?? 600);
/** one-zone reads per figure, after READ_WARMUP untimed ones (same reason as the DNS warm-up) */
const READS = Number(process.env.SCALE_READS || 400);
const READ_WARMUP = Number(process.env.SCALE_READ_WARMUP ?? 200);
const ONE_ZONE_QUERY = 'query($z: String!) { domain(name: $z) { id name serial records { owner type rdata ttl } } }';
/** after the zone steps: grow every zone to RECORDS_PER_ZONE records and add one zone of BIG_ZONE records (0: skip) */
const RECORDS_PER_ZONE = Number(process.env.SCALE_RECORDS_PER_ZONE ?? 100);
const BIG_ZONE = Number(process.env.SCALE_BIG_ZONE ?? 1_000_000);
const RECORD_LIST = process.env.SCALE_RECORD_LIST !== '0';
const EXPORT = process.env.SCALE_EXPORT !== '0';
const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const API_KEY = 'bench-scale-admin-key-0123456789';
const CATALOG = 'catalog.scale.test';
const OUT = path.join(__dirname, 'RESULTS-scale.md');
const LOG = path.join(os.tmpdir(), `zk-bench-scale-${process.pid}.log`);

const log = (...a) => console.log(new Date().toISOString().slice(11, 19), ...a);
const MiB = 2 ** 20;
const mib = (v) => `${(v / MiB).toFixed(0)} MiB`;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const stats = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return { p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99), max: s[s.length - 1], n: s.length };
};
const f1 = (v) => (v === undefined ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(1));

/**
 * Sequential UDP queries from one bound socket, as a resolver's connection to its primary: a socket made and
 * bound per query put the client's own work (and its garbage) into every timing, a millisecond or more of the
 * tail (measured: 2,000 SOA queries, p99 5.2–6.6 ms from node with a socket each, 2.6–4.6 ms from a python
 * client on one socket, against the same service)
 */
function udpClient(port) {
  const socket = dgram.createSocket('udp4');
  const bound = new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
  let waiting;
  socket.on('message', (raw) => waiting?.(raw));
  let nextId = 1;
  return {
    async query(name, type) {
      await bound;
      const id = (nextId = (nextId % 65535) + 1);
      const message = dnsPacket.encode({ id, type: 'query', flags: 0, questions: [{ type, name, class: 'IN' }] });
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => { waiting = undefined; reject(new Error(`no answer for ${name} ${type}`)); }, 5000);
        const start = process.hrtime.bigint();
        waiting = (raw) => {
          const ms = Number(process.hrtime.bigint() - start) / 1e6;
          if (raw.readUInt16BE(0) !== id) return; // a late answer to an earlier query
          clearTimeout(timer);
          waiting = undefined;
          resolve({ ms, packet: dnsPacket.decode(raw) });
        };
        socket.send(message, port, '127.0.0.1');
      });
    },
    close: () => socket.close(),
  };
}

/**
 * One transfer over TCP (AXFR, or IXFR from `fromSerial`); ends when the SOA of `serial` has been seen
 * `endSoas` times (AXFR: 2; an IXFR of one change: 3). Returns ms, octets, messages, records.
 */
function transfer(port, zone, type, serial, endSoas, fromSerial) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const packet = { id: 1, type: 'query', flags: 0, questions: [{ type, name: zone, class: 'IN' }] };
    if (type === 'IXFR') packet.authorities = [{ type: 'SOA', name: zone, ttl: 0, data: { mname: 'invalid.', rname: 'invalid.', serial: fromSerial, refresh: 0, retry: 0, expire: 0, minimum: 0 } }];
    const query = dnsPacket.encode(packet);
    const frame = Buffer.alloc(2);
    frame.writeUInt16BE(query.length);
    let buffered = Buffer.alloc(0);
    let octets = 0;
    let messages = 0;
    let rrs = 0;
    let soas = 0;
    const start = process.hrtime.bigint();
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`${type} of ${zone} did not end`)); }, 120_000);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const length = buffered.readUInt16BE(0);
        const msg = dnsPacket.decode(buffered.subarray(2, 2 + length));
        buffered = buffered.subarray(2 + length);
        octets += length + 2;
        messages += 1;
        rrs += msg.answers.length;
        if (msg.rcode && msg.rcode !== 'NOERROR') { socket.destroy(); clearTimeout(timer); return reject(new Error(`${type}: ${msg.rcode}`)); }
        for (const a of msg.answers) if (a.type === 'SOA' && a.data.serial === serial) soas += 1;
        if (soas >= endSoas) {
          const ms = Number(process.hrtime.bigint() - start) / 1e6;
          clearTimeout(timer);
          socket.destroy();
          return resolve({ ms, octets, messages, rrs });
        }
      }
    });
    socket.write(Buffer.concat([frame, query]));
  });
}

async function timedQueries(port, name, type, expectRcode) {
  const client = udpClient(port);
  try {
    for (let i = 0; i < QUERY_WARMUP; i++) await client.query(name, type);
    const times = [];
    for (let i = 0; i < QUERIES; i++) {
      const { ms, packet } = await client.query(name, type);
      if (packet.rcode !== expectRcode) throw new Error(`${name} ${type}: ${packet.rcode}, expected ${expectRcode}`);
      times.push(ms);
    }
    return stats(times);
  } finally {
    client.close();
  }
}

/** READS sequential requests from `send` (after READ_WARMUP untimed ones), each answer checked by `check` */
async function timedRequests(label, send, check) {
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const one = async () => {
      const res = await send(keepAlive);
      const problem = check(res);
      if (problem) throw new Error(`${label}: ${problem} (${res.status} ${res.text.slice(0, 200)})`);
    };
    for (let i = 0; i < READ_WARMUP; i++) await one();
    const times = [];
    for (let i = 0; i < READS; i++) {
      const t0 = process.hrtime.bigint();
      await one();
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return stats(times);
  } finally {
    keepAlive.destroy();
  }
}

/**
 * The reads of one zone a client polls: its status in full (200 with an ETag), the same with If-None-Match (304:
 * the ETag is computed and compared, no body), and the GraphQL query of the zone with its records. None of them
 * should grow with the number of zones (the one-zone ETag follows that zone's rows alone, commit f9f9b80).
 */
async function oneZoneReads(svc, zone) {
  const url = `${svc.base}/api/domain/status/${zone}`;
  const get = (headers) => (agent) => request('GET', url, { headers: { ...svc.headers, ...headers }, agent });
  const first = await get({})();
  const etag = first.headers?.etag;
  if (first.status !== 200 || !etag) throw new Error(`GET ${url} → ${first.status}, ETag ${etag}`);
  const full = await timedRequests('status', get({}), (res) => (res.status !== 200 ? 'expected 200' : res.headers.etag !== etag ? `ETag changed to ${res.headers.etag}` : undefined));
  const notModified = await timedRequests('status 304', get({ 'if-none-match': etag }), (res) => (res.status !== 304 ? 'expected 304' : undefined));
  const graphql = await timedRequests(
    'graphql',
    (agent) => request('POST', `${svc.base}/graphql`, { headers: svc.headers, body: { query: ONE_ZONE_QUERY, variables: { z: zone } }, agent }),
    (res) => (res.status !== 200 || res.json?.errors ? 'expected data' : res.json.data.domain.records.length !== 4 ? 'expected 4 records' : undefined),
  );
  return { full, notModified, graphql, bytes: first.text.length };
}

async function seed(db, userId, from, to) {
  await db.query('insert into catalog_state (name, serial) values ($1, 2026112200) on conflict (name) do nothing', [CATALOG]);
  const [{ serial }] = (await db.query('select serial from catalog_state where name = $1', [CATALOG])).rows;
  const base = Number(serial);
  const n = to - from + 1;
  await db.query('begin');
  const { rows: [{ first }] } = await db.query(
    `with ins as (insert into domains (user_id, name, serial, catalog_serial)
       select $1, 'z' || i || '.scale.test', 2026112201, $4::bigint + (i - $2 + 1) from generate_series($2::int, $3::int) as i returning id)
     select min(id) as first from ins`,
    [userId, from, to, base],
  );
  await db.query(
    `insert into records (domain_id, owner, type, rdata, ttl)
     select d.id, x.owner, x.type, case when x.type = 'CNAME' then d.name || '.' else x.rdata end, 3600
       from domains d cross join (values (1, '@', 'SOA', 'ns1.example.net. hostmaster.example.net. 2026112201 3600 1800 604800 86400'),
                                         (2, '@', 'NS', 'ns1.example.net.'), (3, '@', 'NS', 'ns2.example.net.'), (4, 'www', 'CNAME', '')) as x(n, owner, type, rdata)
      where d.id >= $1 order by d.id, x.n`,
    [first],
  );
  // the journal as single creates leave it: a zone-created row per zone, a catalog change per zone
  await db.query(
    `insert into changes (domain_id, zone, kind, serial_before, serial_after, removed, added, published_at)
     select d.id, d.name, 'zone-created', null, d.serial, '[]'::jsonb,
            (select jsonb_agg(jsonb_build_object('owner', r.owner, 'type', r.type, 'ttl', r.ttl, 'rdata', r.rdata) order by r.id) from records r where r.domain_id = d.id), now()
       from domains d where d.id >= $1 order by d.id`,
    [first],
  );
  await db.query(
    `insert into changes (domain_id, zone, kind, serial_before, serial_after, removed, added, published_at)
     select 0, $2, 'zone-changed', d.catalog_serial - 1, d.catalog_serial,
            jsonb_build_array(jsonb_build_object('owner', '@', 'type', 'SOA', 'ttl', 0, 'rdata', 'invalid. invalid. ' || (d.catalog_serial - 1) || ' 3600 600 2147483646 0')),
            jsonb_build_array(jsonb_build_object('owner', '@', 'type', 'SOA', 'ttl', 0, 'rdata', 'invalid. invalid. ' || d.catalog_serial || ' 3600 600 2147483646 0'),
                              jsonb_build_object('owner', 'z' || d.id || '.zones', 'type', 'PTR', 'ttl', 0, 'rdata', d.name || '.')), now()
       from domains d where d.id >= $1 order by d.id`,
    [first, CATALOG],
  );
  await db.query('update catalog_state set serial = $2 where name = $1', [CATALOG, base + n]);
  await db.query('commit');
  await db.query('vacuum analyze domains');
  await db.query('vacuum analyze records');
  await db.query('vacuum analyze changes');
  await settled(db);
}

async function createZones(svc, userId, prefix, count, { timed = true } = {}) {
  if (timed && CREATE_WARMUP > 0) await createZones(svc, userId, `warm-${prefix}`, CREATE_WARMUP, { timed: false });
  const times = [];
  let next = 0;
  const start = process.hrtime.bigint();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const t0 = process.hrtime.bigint();
      const res = await request('POST', `${svc.base}/graphql`, {
        headers: svc.headers,
        body: { query: 'mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }', variables: { u: userId, z: `${prefix}${i}.scale.test` } },
      });
      if (res.status !== 200 || res.json?.errors) throw new Error(`createDomain → ${res.status} ${res.text.slice(0, 200)}`);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { perSecond: count / seconds, ...stats(times) };
}

/** how many times addRecords ran: its owners differ per run, as a size that seeds no new zone adds to the same zone */
let addRuns = 0;

async function addRecords(svc, zone) {
  const run = addRuns++;
  for (let i = 0; i < RECORD_WARMUP; i++) {
    await svc.graphql('mutation($r: RecordInput!) { createRecord(input: $r) { id } }', {
      r: { zone, owner: `warm${i}-${run}`, type: 'A', rdata: `198.51.100.${(i % 250) + 1}`, ttl: 3600 },
    });
  }
  const times = [];
  for (let i = 0; i < RECORD_ADDS; i++) {
    const t0 = process.hrtime.bigint();
    await svc.graphql('mutation($r: RecordInput!) { createRecord(input: $r) { id } }', {
      r: { zone, owner: `h${i}-${run}`, type: 'A', rdata: `198.51.100.${(i % 250) + 1}`, ttl: 3600 },
    });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return stats(times);
}

/** more records in every zone (A records at h<n>), in batches of zones, as bulk SQL */
async function seedRecords(db, perZone) {
  const { rows: [{ min, max }] } = await db.query('select min(id)::int as min, max(id)::int as max from domains');
  for (let from = min; from <= max; from += 5000) {
    await db.query(
      `insert into records (domain_id, owner, type, rdata, ttl)
       select d.id, 'h' || n, 'A', '198.51.' || (n / 250) || '.' || (n % 250 + 1), 3600
         from domains d cross join generate_series(1, $3::int) as n
        where d.id between $1 and $2`,
      [from, Math.min(max, from + 4999), perZone - 4],
    );
  }
  await db.query('vacuum analyze records');
  await settled(db);
}

/**
 * After a bulk seed, PostgreSQL's checkpointer still has the seed's pages to write out (gigabytes at 10 million
 * records); a checkpoint here keeps that work out of the figures measured next, as a database grown over months
 * would not be writing it either.
 */
async function settled(db) {
  await db.query('checkpoint');
}

async function streamed(svc, url) {
  const memory = sampleMemory(svc.pid, 5);
  const result = await streamTimed(url, svc.headers);
  const mem = memory.stop();
  if (result.status !== 200) throw new Error(`GET ${url} → ${result.status}`);
  return { ...result, rssBefore: mem.before.rss, peak: Math.max(mem.peakRss, mem.after.hwm > mem.before.hwm ? mem.after.hwm : 0) };
}

async function recordsStep(svc, db, userId, dnsPort) {
  const t0 = Date.now();
  if (RECORDS_PER_ZONE > 4) await seedRecords(db, RECORDS_PER_ZONE);
  log(`grew the zones to ${RECORDS_PER_ZONE} records in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const big = 'big.scale.test';
  await svc.graphql('mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }', { u: userId, z: big });
  const bigId = (await db.query('select id from domains where name = $1', [big])).rows[0].id;
  const t1 = Date.now();
  for (let from = 1; from <= BIG_ZONE; from += 200_000) {
    await db.query(
      `insert into records (domain_id, owner, type, rdata, ttl)
       select $1, 'r' || n, 'A', '10.' || (n / 65536 % 256) || '.' || (n / 256 % 256) || '.' || (n % 256), 3600 from generate_series($2::int, $3::int) as n`,
      [bigId, from, Math.min(BIG_ZONE, from + 199_999)],
    );
  }
  await db.query('vacuum analyze records');
  await settled(db);
  log(`seeded ${BIG_ZONE} records into ${big} in ${((Date.now() - t1) / 1000).toFixed(0)} s`);
  const records = Number((await db.query('select count(*) from records')).rows[0].count);
  const zones = Number((await db.query('select count(*) from domains')).rows[0].count);
  const rssRest = memoryOf(svc.pid).rss;
  const adds = await addRecords(svc, 'z77.scale.test');
  const bigAdds = await addRecords(svc, big);
  const serial = Number((await db.query('select serial from domains where id = $1', [bigId])).rows[0].serial);
  const bigSoa = await timedQueries(dnsPort, big, 'SOA', 'NOERROR');
  const bigNx = await timedQueries(dnsPort, `nope.r77.${big}`, 'A', 'NXDOMAIN');
  const hit = BIG_ZONE > 0 ? await timedQueries(dnsPort, `r${Math.ceil(BIG_ZONE / 2)}.${big}`, 'A', 'NOERROR') : bigSoa;
  const memory = sampleMemory(svc.pid, 5);
  const axfr = await transfer(dnsPort, big, 'AXFR', serial, 2);
  const axfrMem = memory.stop();
  await svc.graphql('mutation($r: RecordInput!) { createRecord(input: $r) { id } }', { r: { zone: big, owner: 'ixfr', type: 'A', rdata: '192.0.2.77', ttl: 3600 } });
  const after = Number((await db.query('select serial from domains where id = $1', [bigId])).rows[0].serial);
  const ixfrTimes = [];
  for (let i = 0; i < 20; i++) ixfrTimes.push((await transfer(dnsPort, big, 'IXFR', after, 3, serial)).ms);
  const exportRun = EXPORT ? await streamed(svc, `${svc.base}/api/domain/export/${big}`) : undefined;
  if (exportRun) log(`export of ${big}: ${(exportRun.bytes / 1e6).toFixed(0)} MB in ${(exportRun.totalMs / 1000).toFixed(1)} s`);
  const list = RECORD_LIST ? await streamed(svc, `${svc.base}/api/record/list`) : undefined;
  if (list) log(`GET /api/record/list: ${(list.bytes / 1e6).toFixed(0)} MB in ${(list.totalMs / 1000).toFixed(1)} s`);
  const dbBytes = Number((await db.query('select pg_database_size(current_database()) as b')).rows[0].b);
  return { zones, records, rssRest, adds, bigAdds, bigSoa, bigNx, hit, axfr, axfrPeak: axfrMem.peakRss, axfrRssBefore: axfrMem.before.rss, ixfr: stats(ixfrTimes), exportRun, list, dbBytes };
}

async function main() {
  const machine = machineInfo(ROOT);
  const dbName = `zk_bench_scale_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${dbName}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  const busy = await busyProcesses(2000, 0.1).catch(() => []);
  log(`database ${dbName}; service log ${LOG}`);
  const dnsPort = await freePort();
  const svc = await startService({ databaseUrl, apiKey: API_KEY, logFile: LOG, nodeArgs: (process.env.SCALE_NODE_ARGS || '').split(' ').filter(Boolean), env: { CATALOG_ZONE: CATALOG, LOG_LEVEL: 'warn', ROLES: 'api,dns,worker', DNS_LISTEN: `127.0.0.1:${dnsPort}` } });
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const rows = [];
  let recordsRow;
  let emptyAdds;
  try {
    const { createUser } = await svc.graphql('mutation { createUser(input: {email: "scale@example.com"}) { id } }');
    const userId = createUser.id;
    await svc.graphql('mutation($u: ID!) { createDomain(input: {userId: $u, zone: "first.scale.test"}) { id } }', { u: userId });
    // the baseline the record-add figures are compared with (the target: "unchanged from an empty database")
    emptyAdds = await addRecords(svc, 'first.scale.test');
    log(`record add on the empty database: p50 ${f1(emptyAdds.p50)} ms, p99 ${f1(emptyAdds.p99)} ms`);
    let seeded = 0;
    let created = 1;
    for (const size of SIZES) {
      const target = size - created;
      if (target > seeded) {
        const t0 = Date.now();
        for (let from = seeded + 1; from <= target; from += 50_000) await seed(db, userId, from, Math.min(target, from + 49_999));
        log(`seeded ${target - seeded} zones in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
        seeded = target;
      }
      const zones = Number((await db.query('select count(*) from domains')).rows[0].count);
      const serial = Number((await db.query('select serial from catalog_state where name = $1', [CATALOG])).rows[0].serial);
      const member = (await db.query('select id from domains where catalog_serial is not null order by id offset $1 limit 1', [Math.floor(zones / 2)])).rows[0].id;
      const zone = `z${Math.max(1, Math.floor(seeded / 2))}.scale.test`;
      const journal = Number((await db.query('select count(*) from changes')).rows[0].count);
      log(`${zones} zones, catalog serial ${serial}, ${journal} journal rows`);
      const rssRest = memoryOf(svc.pid).rss;
      const soa = await timedQueries(dnsPort, CATALOG, 'SOA', 'NOERROR');
      const ptr = await timedQueries(dnsPort, `z${member}.zones.${CATALOG}`, 'PTR', 'NOERROR');
      const rssBeforeNx = memoryOf(svc.pid).rss;
      const nx = await timedQueries(dnsPort, `z999999999.zones.${CATALOG}`, 'PTR', 'NXDOMAIN');
      const rssAfterNx = memoryOf(svc.pid).rss;
      const zoneSoa = await timedQueries(dnsPort, zone, 'SOA', 'NOERROR');
      // a zone of 4 records at every size: the record adds below go to `zone`, and a size may seed no new zone
      const readZone = `z${Math.floor(seeded / 2) + 1}.scale.test`;
      const reads = await oneZoneReads(svc, readZone);
      log(`one-zone reads of ${readZone}: status p50 ${f1(reads.full.p50)} / p95 ${f1(reads.full.p95)} ms, 304 p50 ${f1(reads.notModified.p50)} / p95 ${f1(reads.notModified.p95)} ms, GraphQL p50 ${f1(reads.graphql.p50)} / p95 ${f1(reads.graphql.p95)} ms`);
      const axfr = await transfer(dnsPort, CATALOG, 'AXFR', serial, 2);
      const rssAfterAxfr = memoryOf(svc.pid);
      const ixfrTimes = [];
      for (let i = 0; i < 20; i++) ixfrTimes.push((await transfer(dnsPort, CATALOG, 'IXFR', serial, 3, serial - 1)).ms);
      const ixfr = stats(ixfrTimes);
      const creates = await createZones(svc, userId, `c${size}-`, CREATES);
      created += CREATES + CREATE_WARMUP;
      const adds = await addRecords(svc, zone);
      const dbBytes = Number((await db.query('select pg_database_size(current_database()) as b')).rows[0].b);
      const row = { size, zones, journal, serial, reads, soa, ptr, nx, zoneSoa, axfr, ixfr, creates, adds, rssRest, rssBeforeNx, rssAfterNx, hwm: rssAfterAxfr.hwm, dbBytes };
      rows.push(row);
      log(JSON.stringify({ size, soaP50: soa.p50, soa: soa.p99, ptr: ptr.p99, nx: nx.p99, zoneSoa: zoneSoa.p99, axfrMs: axfr.ms, axfrMB: axfr.octets / 1e6, ixfr: ixfr.p50, createsPerS: creates.perSecond, createP50: creates.p50, addP50: adds.p50, rssMiB: rssRest / MiB, dbMiB: dbBytes / MiB }));
    }
    if (RECORDS_PER_ZONE > 4 || BIG_ZONE > 0) {
      recordsRow = await recordsStep(svc, db, userId, dnsPort);
      log(JSON.stringify(recordsRow, (k, v) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v)));
    }
  } finally {
    await db.end();
    await svc.stop();
    if (process.env.SCALE_KEEP_DATABASE !== '1') await admin.query(`drop database if exists "${dbName}" with (force)`);
    await admin.end();
  }
  writeResults(machine, busy, rows, recordsRow, emptyAdds);
  log(`wrote ${OUT}`);
}

function writeResults(m, busy, rows, big, emptyAdds) {
  const out = [];
  const push = (...l) => out.push(...l);
  push('# Scale benchmark results', '');
  push('Written by `npm run bench:scale` (bench/scale.js); **do not edit by hand**. One row per size; the zones are seeded');
  push('by bulk SQL as the API writes them (default records, a `zone-created` and a catalog journal row each), the');
  push('measured operations go through the DNS port (UDP queries, TCP transfers) and the GraphQL API.', '');
  push('| | |', '|---|---|');
  push(`| date | ${m.date} |`);
  push(`| git commit | \`${m.commit}\` (${m.commitSubject})${m.dirty ? ` + ${m.dirty} uncommitted change(s)` : ''} |`);
  push(`| machine | ${m.nproc} CPUs (${m.cpuModel}), ${m.memoryGiB.toFixed(1)} GiB, kernel ${m.kernel}, Node.js ${m.node} |`);
  push(`| other load | the machine is shared: ${busy.length ? busy.slice(0, 6).map((b) => `${String(b.command).split(" ").slice(0, 2).map((w) => path.basename(w)).join(" ")} ${Math.round(b.share * 100)}%`).join(', ') : 'none seen'} at the start; other engineers' tests and builds ran meanwhile |`);
  push(`| per figure | ${QUERIES} sequential UDP queries from one socket (p50 / p99); catalog IXFR: 20 transfers of one change; creates: ${CREATES} GraphQL createDomain at concurrency ${CONCURRENCY}; record add: ${RECORD_ADDS} sequential GraphQL createRecord after ${RECORD_WARMUP} untimed ones; before each timed figure, ${QUERY_WARMUP} untimed queries and ${CREATE_WARMUP} untimed creates |`);
  if (emptyAdds) push(`| record add on the empty database (one zone, before any seeding) | p50 ${f1(emptyAdds.p50)} ms, p99 ${f1(emptyAdds.p99)} ms |`);
  push('');
  push('| zones | journal rows | catalog SOA p50 / p99 | catalog member PTR p50 / p99 | catalog missing name (NXDOMAIN) p50 / p99 | ordinary zone SOA p50 / p99 | catalog AXFR | catalog IXFR (one change) p50 | zone create at c16 | create p50 / p99 | record add p50 | service RSS at rest | RSS before → after the NXDOMAIN queries | service peak RSS (HWM) | database size |');
  push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    push(`| ${r.zones.toLocaleString('en')} | ${r.journal.toLocaleString('en')} | ${f1(r.soa.p50)} / ${f1(r.soa.p99)} ms | ${f1(r.ptr.p50)} / ${f1(r.ptr.p99)} ms | ${f1(r.nx.p50)} / ${f1(r.nx.p99)} ms | ${f1(r.zoneSoa.p50)} / ${f1(r.zoneSoa.p99)} ms | ${f1(r.axfr.ms)} ms, ${(r.axfr.octets / 1e6).toFixed(2)} MB, ${r.axfr.messages} messages | ${f1(r.ixfr.p50)} ms | **${r.creates.perSecond.toFixed(0)} zones/s** | ${f1(r.creates.p50)} / ${f1(r.creates.p99)} ms | ${f1(r.adds.p50)} ms | ${(r.rssRest / MiB).toFixed(0)} MiB | ${(r.rssBeforeNx / MiB).toFixed(0)} → ${(r.rssAfterNx / MiB).toFixed(0)} MiB | ${(r.hwm / MiB).toFixed(0)} MiB | ${(r.dbBytes / MiB).toFixed(0)} MiB |`);
  }
  push('');
  push('Targets: catalog and other DNS queries p99 < 5 ms at 100,000 zones; catalog AXFR of 100,000 members');
  push('< 1 s, streamed; catalog IXFR by index; zone creation ≥ 500 zones/s at concurrency 16.', '');
  push('## One-zone reads', '');
  push(`The reads a client polling one zone makes, at each size: ${READS} sequential requests on one kept-alive connection`);
  push(`after ${READ_WARMUP} untimed ones, p50 / p95; the zone is one of the seeded 4-record zones, its status has no`);
  push('secondaries (SECONDARIES unset). The status ETag follows that zone\'s rows alone, so none of these should grow', 'with the number of zones.', '');
  push('| zones | `GET /api/domain/status/<zone>` (200, with ETag) | same with `If-None-Match` (304) | GraphQL `domain(name) { id name serial records { owner type rdata ttl } }` |');
  push('|---:|---:|---:|---:|');
  for (const r of rows) {
    push(`| ${r.zones.toLocaleString('en')} | ${f1(r.reads.full.p50)} / ${f1(r.reads.full.p95)} ms | ${f1(r.reads.notModified.p50)} / ${f1(r.reads.notModified.p95)} ms | ${f1(r.reads.graphql.p50)} / ${f1(r.reads.graphql.p95)} ms |`);
  }
  push('');
  if (big) {
    const mb = (v) => `${(v / 1e6).toFixed(0)} MB`;
    const run = (r) => `${mib(r.rssBefore)} → peak ${mib(r.peak)}`;
    push(`## ${big.records.toLocaleString('en')} records`, '');
    push(`Every zone grown to ${RECORDS_PER_ZONE} records by bulk SQL, and one zone (\`big.scale.test\`) of ${BIG_ZONE.toLocaleString('en')} records; then:`, '');
    push('| figure | value |', '|---|---:|');
    push(`| zones / records | ${big.zones.toLocaleString('en')} / ${big.records.toLocaleString('en')} |`);
    push(`| database size | ${mib(big.dbBytes)} |`);
    push(`| service RSS at rest | ${mib(big.rssRest)} |`);
    push(`| record add p50 / p99 (a ${RECORDS_PER_ZONE}-record zone) | ${f1(big.adds.p50)} / ${f1(big.adds.p99)} ms |`);
    push(`| record add p50 / p99 (the big zone) | ${f1(big.bigAdds.p50)} / ${f1(big.bigAdds.p99)} ms |`);
    push(`| big zone: SOA p50 / p99 | ${f1(big.bigSoa.p50)} / ${f1(big.bigSoa.p99)} ms |`);
    push(`| big zone: a name (A) p50 / p99 | ${f1(big.hit.p50)} / ${f1(big.hit.p99)} ms |`);
    push(`| big zone: NXDOMAIN p50 / p99 | ${f1(big.bigNx.p50)} / ${f1(big.bigNx.p99)} ms |`);
    push(`| big zone: AXFR | ${(big.axfr.ms / 1000).toFixed(1)} s, ${mb(big.axfr.octets)}, ${big.axfr.messages} messages; service RSS ${mib(big.axfrRssBefore)} → peak ${mib(big.axfrPeak)} |`);
    push(`| big zone: IXFR of one change p50 / p99 | ${f1(big.ixfr.p50)} / ${f1(big.ixfr.p99)} ms |`);
    if (big.exportRun) push(`| big zone: \`GET /api/domain/export\` | ${(big.exportRun.totalMs / 1000).toFixed(1)} s, ${mb(big.exportRun.bytes)}, first byte ${f1(big.exportRun.ttfbMs)} ms; RSS ${run(big.exportRun)} |`);
    if (big.list) push(`| \`GET /api/record/list\` (every record) | ${(big.list.totalMs / 1000).toFixed(1)} s, ${mb(big.list.bytes)}, first byte ${f1(big.list.ttfbMs)} ms; RSS ${run(big.list)} |`);
    push('');
  } else {
    // a run that skipped the records step keeps the last measured records section, saying when it was measured
    const kept = previousRecordsSection();
    if (kept) push(...kept, '');
  }
  fs.writeFileSync(OUT, out.join('\n'));
}

/** the `## … records` section of the results file as it is, dated by the run that wrote it (an earlier keep: its own date) */
function previousRecordsSection() {
  let text;
  try {
    text = fs.readFileSync(OUT, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^## [\d,]+ records$/.test(line));
  if (start < 0) return undefined;
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  const section = lines.slice(start, end < 0 ? undefined : end);
  while (section.length && section[section.length - 1].trim() === '') section.pop();
  if (section.some((line) => line.startsWith('_Kept from'))) return section;
  const date = (text.match(/^\| date \| (\S+) \|$/m) || [])[1] ?? 'an earlier run';
  const commit = (text.match(/^\| git commit \| `([0-9a-f]{7})/m) || [])[1];
  return [section[0], '', `_Kept from the run of ${date}${commit ? ` (commit ${commit})` : ''}: this run skipped the records step._`, ...section.slice(1)];
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
