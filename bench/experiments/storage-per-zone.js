#!/usr/bin/env node
/**
 * PostgreSQL's bytes per zone and per record, as the service leaves them (docs/scale.md, «A million on paper»):
 * STORAGE_ZONES zones made through the API (`createDomains`, 1,000 a call: each with its SOA, two NS and the `www`
 * CNAME, its journal row and event), with STORAGE_SECONDARIES secondaries configured (a status row per zone and
 * secondary; nothing listens there, the rows stay pending) and the worker publishing the journal; then
 * STORAGE_RECORDS records added to each of STORAGE_CHANGED_ZONES zones (one change set each: one journal row and one
 * event a zone). After each step, `VACUUM FULL ANALYZE` and `pg_total_relation_size` of every table (its indexes
 * and TOAST included), against the empty database's: the rows' own bytes, without the dead rows' space that a busy
 * table holds until it is reused.
 *
 * Beside them, what the DNS primary sends and holds up at that size: the catalog's AXFR (bytes a member), the
 * catalog's IXFR for one zone made, a zone's AXFR (`dig`'s own count of a transfer's bytes); and the primary's pace
 * for STORAGE_DNS_SECONDS each: SOA queries a second (64 at once, over UDP), and refreshes a second as a new member
 * costs a secondary (an SOA query, then the zone's AXFR over TCP; 32 at once).
 *
 * Run: node bench/experiments/storage-per-zone.js (after `node scripts/build-once.cjs`).
 */
'use strict';
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { execFileSync } = require('node:child_process');
const { Client } = require('pg');
const { startService } = require('../lib/service');
const { request } = require('../lib/proc');

const ZONES = Number(process.env.STORAGE_ZONES || 20000);
const SECONDARIES = Number(process.env.STORAGE_SECONDARIES || 2);
const CHANGED_ZONES = Number(process.env.STORAGE_CHANGED_ZONES || 1000);
const RECORDS = Number(process.env.STORAGE_RECORDS || 50);
const DNS_SECONDS = Number(process.env.STORAGE_DNS_SECONDS || 10);
const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const API_KEY = 'bench-storage-admin-key-0123456789';
const LOG = path.join(os.tmpdir(), `zk-storage-${process.pid}.log`);
const log = (...a) => console.log(new Date().toISOString().slice(11, 19), ...a);

async function sizes(db) {
  // compacted: what the rows and their indexes take, without the space dead rows leave until it is reused
  await db.query('vacuum full analyze');
  const { rows } = await db.query(
    `select c.relname as name, pg_total_relation_size(c.oid)::bigint as bytes
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r'`,
  );
  return new Map(rows.map((r) => [r.name, Number(r.bytes)]));
}

const grown = (after, before) =>
  [...after]
    .map(([name, bytes]) => [name, bytes - (before.get(name) ?? 0)])
    .filter(([, bytes]) => bytes > 0)
    .sort((a, b) => b[1] - a[1]);

/** dig's count of a transfer: records, messages, bytes */
function xfrSize(port, zone, kind) {
  const out = execFileSync('dig', ['@127.0.0.1', '-p', String(port), zone, kind, '+stats'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const m = /XFR size: (\d+) records \(messages (\d+), bytes (\d+)\)/.exec(out);
  if (!m) throw new Error(`no transfer size in dig's answer:\n${out.slice(-500)}`);
  return { records: Number(m[1]), messages: Number(m[2]), bytes: Number(m[3]) };
}

/** how many times `one` completes in `seconds`, `atOnce` at a time */
async function pace(atOnce, seconds, one) {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      while (Date.now() < until) {
        if (
          await one().then(
            () => true,
            () => false,
          )
        )
          done += 1;
        else failed += 1;
      }
    }),
  );
  return { perSecond: Math.round(done / seconds), failed };
}

async function main() {
  const dbName = `zk_bench_storage_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${dbName}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  log(`database ${dbName}; service log ${LOG}`);
  const secondaries = Array.from({ length: SECONDARIES }, (_, i) => `127.0.0.1:${40000 + i}`).join(',');
  const svc = await startService({
    databaseUrl: url.toString(),
    apiKey: API_KEY,
    logFile: LOG,
    env: {
      LOG_LEVEL: 'warn',
      ROLES: 'api,dns,worker',
      HEALTH_CHECK_INTERVAL: '0',
      SECONDARIES: secondaries,
      CATALOG_ZONE: 'catalog.storage.test',
    },
  });
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  const gql = async (query, variables) => {
    const res = await request('POST', `${svc.base}/graphql`, { headers: svc.headers, body: { query, variables } });
    if (res.status !== 200 || res.json.errors) throw new Error(`${res.status} ${res.text.slice(0, 300)}`);
    return res.json.data;
  };
  const unpublished = async () => Number((await db.query('select count(*) from changes where published_at is null')).rows[0].count);
  const settle = async () => {
    while ((await unpublished()) > 0) await new Promise((r) => setTimeout(r, 500));
  };
  const counts = async () =>
    (
      await db.query(`select (select count(*) from domains)::int as zones, (select count(*) from records)::int as records,
        (select count(*) from changes)::int as journal, (select count(*) from events)::int as events,
        (select count(*) from zone_server_status)::int as status`)
    ).rows[0];
  try {
    const user = (await gql(`mutation { createUser(input: {email: "storage@example.org"}) { id } }`)).createUser.id;
    const empty = await sizes(db);
    const t0 = Date.now();
    for (let i = 0; i < ZONES; i += 1000) {
      const input = Array.from({ length: Math.min(1000, ZONES - i) }, (_, j) => ({ userId: user, zone: `z${i + j}.storage.test` }));
      await gql(`mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id } }`, { input });
    }
    await settle();
    log(`${ZONES} zones in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const made = await sizes(db);
    const afterZones = await counts();
    const t1 = Date.now();
    for (let i = 0; i < CHANGED_ZONES; i += 10)
      await Promise.all(
        Array.from({ length: Math.min(10, CHANGED_ZONES - i) }, (_, j) =>
          gql(`mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`, {
            z: `z${i + j}.storage.test`,
            c: Array.from({ length: RECORDS }, (_, k) => ({
              kind: 'ADD',
              owner: `host${k}`,
              type: 'A',
              rdata: `192.0.2.${k % 250}`,
              ttl: 3600,
            })),
          }),
        ),
      );
    await settle();
    log(`${CHANGED_ZONES} change sets of ${RECORDS} records in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
    const changed = await sizes(db);
    const afterRecords = await counts();

    // the primary at this size: the catalog and a zone on the wire, and its pace
    const { querySoaSerial } = require('../../dist/src/dns-client/dns-client');
    const { axfr } = require('../../dist/src/dns-client/zone-transfer-in');
    const catalog = xfrSize(svc.dnsPort, 'catalog.storage.test', 'AXFR');
    const before = Number((await db.query(`select serial from catalog_state where name = 'catalog.storage.test'`)).rows[0].serial);
    await gql(`mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id } }`, {
      input: [{ userId: user, zone: 'one-more.storage.test' }],
    });
    const oneMore = xfrSize(svc.dnsPort, 'catalog.storage.test', `IXFR=${before}`);
    const zone = xfrSize(svc.dnsPort, `z${ZONES - 1}.storage.test`, 'AXFR');
    const server = { host: '127.0.0.1', port: svc.dnsPort };
    const pick = () => `z${Math.floor(Math.random() * ZONES)}.storage.test`;
    const soa = await pace(64, DNS_SECONDS, async () => {
      const r = await querySoaSerial(server, pick(), 2000);
      if (!r.ok) throw new Error(r.reason);
    });
    const refresh = await pace(32, DNS_SECONDS, async () => {
      const name = pick();
      const r = await querySoaSerial(server, name, 2000);
      if (!r.ok) throw new Error(r.reason);
      await axfr(server, name);
    });

    const perZone = grown(made, empty);
    const perRecord = grown(changed, made);
    const total = (list) => list.reduce((sum, [, bytes]) => sum + bytes, 0);
    const addedRecords = afterRecords.records - afterZones.records;
    console.log(
      `\n${ZONES} zones (${afterZones.records} records, ${afterZones.journal} journal rows, ${afterZones.events} events, ${afterZones.status} status rows for ${SECONDARIES} secondaries):`,
    );
    console.log(`| table | bytes | bytes a zone |\n| --- | ---: | ---: |`);
    for (const [name, bytes] of perZone) console.log(`| ${name} | ${bytes.toLocaleString('en-US')} | ${Math.round(bytes / ZONES)} |`);
    console.log(`| all | ${total(perZone).toLocaleString('en-US')} | ${Math.round(total(perZone) / ZONES)} |`);
    console.log(`\n${addedRecords} records added in ${CHANGED_ZONES} change sets (${RECORDS} each):`);
    console.log(`| table | bytes | bytes a record |\n| --- | ---: | ---: |`);
    for (const [name, bytes] of perRecord)
      console.log(`| ${name} | ${bytes.toLocaleString('en-US')} | ${Math.round(bytes / addedRecords)} |`);
    console.log(`| all | ${total(perRecord).toLocaleString('en-US')} | ${Math.round(total(perRecord) / addedRecords)} |`);
    console.log(
      `\nthe catalog's AXFR at ${ZONES} members: ${catalog.records} records, ${catalog.messages} messages, ${catalog.bytes} bytes (${(catalog.bytes / ZONES).toFixed(1)} bytes a member)`,
    );
    console.log(`the catalog's IXFR for one zone made: ${oneMore.records} records, ${oneMore.bytes} bytes`);
    console.log(`a new zone's AXFR: ${zone.records} records, ${zone.bytes} bytes`);
    console.log(
      `the primary: ${soa.perSecond} SOA queries a second (64 at once, ${soa.failed} failed); ${refresh.perSecond} refreshes a second, an SOA query and an AXFR each (32 at once, ${refresh.failed} failed)`,
    );
  } finally {
    await db.end();
    await svc.stop();
    await admin.query(`drop database "${dbName}" with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
