'use strict';
const { serveCommand } = require('./service');
// Writes bench/RESULTS.md from the measured numbers (never edited by hand).
const fs = require('node:fs');

const MiB = 2 ** 20;
const ms = (v) => (v === undefined ? '–' : `${Number(v).toFixed(v < 10 ? 1 : 0)} ms`);
const rps = (v) => (v === undefined ? '–' : `${v.toFixed(1)} req/s`);
const mib = (v) => `${(v / MiB).toFixed(1)} MiB`;
const yes = (ok) => (ok ? '**met**' : '**missed**');
const ratio = (a, b) => (a && b ? `${(a / b).toFixed(2)}×` : '–');

function loadRow(label, r) {
  const cpu = r.cpu ? `${r.cpu.busy.toFixed(0)}% / ${r.cpu.steal.toFixed(0)}%` : '–';
  return `| ${label} | ${r.tool} | ${r.connections} | ${r.requests} in ${r.seconds} s | ${rps(r.rps)} | ${ms(r.p50)} | ${ms(r.p90)} | ${ms(r.p99)} | ${ms(r.max)} | ${r.non2xx} | ${r.bad} | ${r.errors + r.timeouts} | ${cpu} |`;
}
const LOAD_HEAD = '| run | tool | concurrency | requests | throughput | p50 | p90 | p99 | max | non-2xx | wrong answers | errors/timeouts | machine CPU busy / steal |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';

function writeResults(file, r) {
  const m = r.machine;
  const out = [];
  const push = (...lines) => out.push(...lines);
  /** a table of load runs, one row each, and the blank line after it */
  const loadTable = (...rows) => push(LOAD_HEAD, ...rows, '');
  push('# Benchmark results', '');
  push('Written by `npm run bench` (bench/run.js) on every run; **do not edit by hand**. What the numbers mean, the');
  push('profiles of the missed targets and the proposed fixes are in [FINDINGS.md](FINDINGS.md).', '');
  if (r.failures.length) {
    push('## ⚠ This run FAILED', '');
    for (const f of r.failures) push(`- ${f}`);
    push('');
  }
  push('## Machine and run', '');
  push('| | |', '|---|---|');
  push(`| date | ${m.date} |`);
  push(`| git commit | \`${m.commit}\` (${m.commitSubject})${m.dirty ? ` + ${m.dirty} uncommitted change(s) in src/package files` : ''} |`);
  push(`| CPUs (nproc) | ${m.nproc} |`);
  push(`| memory | ${m.memoryGiB.toFixed(1)} GiB |`);
  push(`| CPU model | ${m.cpuModel} |`);
  push(`| kernel | ${m.kernel} |`);
  push(`| Node.js | ${m.node} |`);
  push(`| PostgreSQL (127.0.0.1:5432) | ${m.postgres}; a new session takes ${m.connectMs === undefined ? 'n/a' : `${m.connectMs.toFixed(1)} ms`} (median of 5: PowerDNS's API opens one per request) |`);
  push(`| PowerDNS Authoritative | ${m.pdns} (Debian package, gpgsql backend) |`);
  push(`| load generators | autocannon ${m.autocannon} (GraphQL, in the bench process) and wrk ${m.wrk} (writes, zone fetch), on the same machine |`);
  const procs = (list) => (list.length ? list.map((p) => `\`${p.command.replace(/\|/g, '\\|')}\` ${(100 * p.share).toFixed(0)}%`).join('; ') : 'none');
  push(`| other work on the machine | before the run: ${procs(r.quiet.busyAtStart)}; ${r.quiet.quiet ? `waited ${(r.quiet.waitedMs / 1000).toFixed(0)} s for a quiet machine` : `**still ${r.quiet.busyPercent.toFixed(0)}% busy after ${(r.quiet.waitedMs / 1000).toFixed(0)} s: measured anyway, numbers disturbed**`}; after the run: ${procs(r.busyAtEnd ?? [])} |`);
  push(`| load average at start | ${r.loadavgStart} |`);
  push(`| machine CPU over the whole run | ${r.cpuRun.busy.toFixed(0)}% busy, ${r.cpuRun.steal.toFixed(0)}% stolen by the hypervisor |`);
  push(`| whole run | ${r.wallSeconds.toFixed(0)} s${r.settings.quick ? ' (BENCH_QUICK=1: shortened runs, not for comparison)' : ''} |`);
  push('');
  push(`The service runs as a user runs it: \`${serveCommand().text}\` (\`npm run serve\`, what \`npm start\` runs after \`npm run build\`), every role (api, dns, worker),`);
  push('default log level, on free loopback ports, with `DATABASE_URL` pointing at a fresh database on the machine\'s');
  push('PostgreSQL at 127.0.0.1:5432. PowerDNS runs from its own config dir with `launch=gpgsql` on its own fresh');
  push('database on the same PostgreSQL. The load generator, the service, PostgreSQL and PowerDNS share the CPUs.', '');

  // summary
  const w = r.writes?.run;
  const worstList = r.list ? r.list.runs.reduce((a, b) => (b.totalMs > a.totalMs ? b : a)) : undefined;
  const maxGrowth = r.list ? Math.max(...r.list.runs.map((x) => x.growth)) : undefined;
  const g = r.graphql?.c1;
  const pw = r.pdnsWrites?.run;
  const counts = r.statements?.results;
  const constantStatements = counts ? counts.every((c) => c.dataPerRequest === counts[0].dataPerRequest) : undefined;
  push('## Targets', '');
  push('| # | measure | target | this run | |', '|---|---|---|---|---|');
  if (w) {
    push(`| 1 | \`POST /api/record/add\`, concurrency 16, 100 zones: throughput | ≥ 500 req/s | ${rps(w.rps)} | ${yes(w.rps >= 500)} |`);
    push(`| 1 | same: p99 latency | < 100 ms | ${ms(w.p99)} (p50 ${ms(w.p50)}) | ${yes(w.p99 < 100)} |`);
    push(`| 1 | same: non-2xx answers | 0 | ${w.non2xx + w.bad} | ${yes(w.non2xx + w.bad === 0)} |`);
  }
  if (worstList) {
    push(`| 2 | \`GET /api/record/list\`, ${r.list.total.toLocaleString('en')} records: time to last byte (slowest of ${r.list.runs.length}) | < 1.5 s | ${ms(worstList.totalMs)} | ${yes(worstList.totalMs < 1500)} |`);
    push(`| 2 | same: peak memory growth of the service (largest of ${r.list.runs.length}) | < 150 MB | ${mib(maxGrowth)} (${(maxGrowth / 1e6).toFixed(1)} MB) | ${yes(maxGrowth < 150e6)} |`);
  }
  if (g) push(`| 3 | GraphQL \`users { domains { records } }\`, 100 × 10 × 10, concurrency 1: p50 | < 50 ms | ${ms(g.p50)} (p99 ${ms(g.p99)}) | ${yes(g.p50 < 50)} |`);
  if (counts) push(`| 3 | same: SQL statements per request reading users/zones/records, for 1 / 10 / 100 users (all statements incl. the API-key check) | constant | ${counts.map((c) => c.dataPerRequest).join(' / ')} (${counts.map((c) => c.perRequest).join(' / ')}) | ${yes(constantStatements)} |`);
  if (w && pw) push(`| 4 | write throughput, Zonekeeper ÷ PowerDNS | ≥ 5× | ${ratio(w.rps, pw.rps)} | ${yes(w.rps / pw.rps >= 5)} |`);
  const fw = r.floorWrites?.run;
  if (w && fw) push(`| 4 | write throughput, Zonekeeper ÷ the write floor of the same run (bench/lib/write-floor.js) | ≥ 0.9 | ${ratio(w.rps, fw.rps)} (floor ${rps(fw.rps)}) | ${yes(w.rps / fw.rps >= 0.9)} |`);
  const sw = r.signedWrites?.run;
  const psw = r.pdnsSignedWrites?.run;
  if (sw && psw) push(`| 4 | write throughput on signed zones, Zonekeeper ÷ PowerDNS (each serving the same zones signed) | ≥ 3× | ${ratio(sw.rps, psw.rps)} (${rps(sw.rps)} against ${rps(psw.rps)}) | ${yes(sw.rps / psw.rps >= 3)} |`);
  push('');

  if (r.writes) {
    push('## 1. Writes: `POST /api/record/add`', '');
    push('One A record per request (JSON body), each a distinct owner `h<i>` with address `10.x.y.z` from the same counter,');
    push(`spread round-robin over 100 zones of one user; a ${SECONDS(r, 'writeWarmup')} s warm-up first (its own distinct records, checked, not in`);
    push(`the numbers), then ${SECONDS(r, 'write')} s of load. Every answer must be 201. Load generator: wrk (see section 4 for why).`, '');
    loadTable(loadRow('warm-up', r.writes.warmup), loadRow('Zonekeeper', r.writes.run));
    if (r.floorWrites) {
      push('The write floor, right after, with the same load on other owners of the same zones: a plain node `http` server');
      push('with a `pg` pool running the service\'s own statements (readZone, writeZoneChange) and nothing else (no express,');
      push('GraphQL, authentication, validation or rules): what the service costs above it is its framework and its checks.', '');
      loadTable(loadRow('floor warm-up', r.floorWrites.warmup), loadRow('floor', r.floorWrites.run));
    }
    if (r.signedWrites) {
      push('The same writes into 100 other zones, each signed (`enableDnssec` with its defaults: ECDSAP256SHA256, a KSK and a');
      push('ZSK, NSEC): each write re-signs its RRset, the SOA and the NSEC records around the new owner in its serial step. PowerDNS');
      push('runs the same against zones it signs (section 4).', '');
      loadTable(loadRow('signed warm-up', r.signedWrites.warmup), loadRow('Zonekeeper, zones signed', r.signedWrites.run));
    }
  }

  if (r.list) {
    push('## 2. `GET /api/record/list` with 100,000 records', '');
    push(`The database holds ${r.list.total.toLocaleString('en')} records (the zones of the other benchmarks, topped up with A records with`);
    push('distinct owners, TTL 3600, by one bulk SQL insert into 100 zones). Each run streams the whole answer, counts its');
    push('records (all must be there) and samples the service\'s `/proc/<pid>/status` VmRSS every 5 ms; when VmHWM rose during');
    push('the request it is taken as the exact peak. Growth = peak − VmRSS just before the request.', '');
    push('| run | records | bytes | first byte | last byte | RSS before | peak RSS | growth | VmHWM before → after | samples |');
    push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    r.list.runs.forEach((x, i) => push(`| ${i + 1} | ${x.items} | ${(x.bytes / 1e6).toFixed(1)} MB | ${ms(x.ttfbMs)} | ${ms(x.totalMs)} | ${mib(x.rssBefore)} | ${mib(x.peak)} | ${mib(x.growth)} | ${mib(x.hwmBefore)} → ${mib(x.hwmAfter)} | ${x.samples} |`));
    push('', `Service RSS right after start: ${mib(r.startRss)}.`, '');
  }

  if (r.graphql) {
    push('## 3. GraphQL: `users { domains { records } }`', '');
    push('```graphql', '{ users(first: 100) { nodes { email domains(first: 10) { name records(first: 10) { owner type rdata ttl } } } } }', '```', '');
    const s = r.graphSeed;
    push(`${s.users} users × ${s.zones / s.users} zones each × 10 records: the zones are created through the REST API, so each has its 4`);
    push(`default records (SOA, 2 NS, www CNAME), and 6 A records are added by bulk SQL: ${s.records.toLocaleString('en')} records in the answer`);
    push(`(${s.aRecords.toLocaleString('en')} of them A), ${(r.graphql.bytes / 1e6).toFixed(2)} MB of JSON.`);
    push('Every answer is checked (status 200, no `errors`); the first one in full (users, zones, records counted).', '');
    loadTable(loadRow('latency', r.graphql.c1), loadRow('throughput', r.graphql.c16));
  }
  if (r.statements) {
    push('### SQL statements per GraphQL request', '');
    push('Counted by `pg_stat_statements` on a dedicated temporary PostgreSQL cluster (the project\'s embedded PostgreSQL');
    push(`binaries, ${r.statements.postgres}, \`shared_preload_libraries=pg_stat_statements\`) holding a copy (pg_dump) of this run's`);
    push('GraphQL data, served by a second service (the same command) with `ROLES=api` (so that the worker\'s polling is not');
    push(`counted): one warm-up request, reset, ${COUNT(r)} identical requests, all statements of that database counted and divided.`, '');
    push('| `users(first: N)` | users + zones + records in the answer | statements per request | of which reading users/zones/records | of which the API-key check | other (the service\'s background work in the window) |', '|---:|---:|---:|---:|---:|---:|');
    for (const c of r.statements.results) push(`| ${c.first} | ${c.rowsPerAnswer.toLocaleString('en')} | ${c.perRequest} | ${c.dataPerRequest} | ${c.keyPerRequest} | ${c.otherPerRequest ?? 0} |`);
    const others = r.statements.results.flatMap((c) => (c.otherStatements ?? []).map((st) => ({ ...st, first: c.first })));
    if (others.length) {
      push('', 'Other statements in the window (not part of the answers):', '', '| `first` | calls | statement |', '|---:|---:|---|');
      for (const st of others) push(`| ${st.first} | ${st.calls} | \`${st.query.replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 240)}\` |`);
    }
    const last = r.statements.results[r.statements.results.length - 1];
    push('', `Statements seen for \`first: ${last.first}\` (calls over ${COUNT(r)} requests):`, '');
    push('| calls | statement |', '|---:|---|');
    for (const st of last.statements) push(`| ${st.calls} | \`${st.query.replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 240)}\` |`);
    push('');
  } else if (r.statementsError) {
    push('### SQL statements per GraphQL request', '', `Not measured in this run: ${r.statementsError}`, '');
  }

  if (r.pdnsWrites || r.fetch) {
    push('## 4. Side by side with PowerDNS Authoritative', '');
    push(`PowerDNS ${m.pdns} from Debian's packages, \`launch=gpgsql\` on its own fresh database on the same PostgreSQL`);
    push('(schema `/usr/share/pdns-backend-pgsql/schema/schema.pgsql.sql`), HTTP API on a loopback port with an API key,');
    push('default settings otherwise (`soa-edit-api=DEFAULT`: the SOA serial rises on every API change, as ours does).');
    push('Both systems are loaded with wrk and the same generated Lua script: PowerDNS\'s API closes the connection after');
    push('every answer, which autocannon mis-times (it writes the next request into the closing socket: ECONNRESETs and');
    push('inflated latencies); wrk reconnects cleanly. Zonekeeper keeps its connections open.', '');
    push('**Writes**: one A record per request at concurrency 16 into 100 zones. PowerDNS: `PATCH /api/v1/servers/localhost/zones/<zone>`');
    push('with one rrset of a new name, `changetype: REPLACE`; every answer must be 204. Same warm-up and duration as ours.', '');
    push(LOAD_HEAD);
    if (r.writes) push(loadRow('Zonekeeper `POST /api/record/add`', r.writes.run));
    if (r.pdnsWrites) push(loadRow('PowerDNS `PATCH …/zones/<zone>`', r.pdnsWrites.run));
    push('');
    if (r.signedWrites || r.pdnsSignedWrites) {
      push('**Writes on signed zones**: the same, into 100 other zones each side signs. PowerDNS: a second instance on a database');
      push('of its own with its backend\'s DNSSEC on (`gpgsql-dnssec=yes`), the zones made with `dnssec: true` (its default key, one');
      push('ECDSAP256SHA256 CSK; an active key is checked for), signed as it answers; each PATCH rectifies the zone');
      push('(`api-rectify`, its default), so that what it serves of the new owner is signed and denied right.', '');
      push(LOAD_HEAD);
      if (r.signedWrites) push(loadRow('Zonekeeper `POST /api/record/add`, signed', r.signedWrites.run));
      if (r.pdnsSignedWrites) push(loadRow('PowerDNS `PATCH …/zones/<zone>`, signed', r.pdnsSignedWrites.run));
      push('');
    }
    if (r.fetch) {
      push('**Zone fetch**: a zone of 1,000 records (SOA, 2 NS, www CNAME, 996 A). Ours: `GET /api/domain/list/zone/:id`; PowerDNS:');
      push('`GET /api/v1/servers/localhost/zones/<zone>`. The first answer of each is checked to hold 1,000 records.', '');
      push(LOAD_HEAD);
      push(loadRow('Zonekeeper', r.fetch.ours.c1), loadRow('PowerDNS', r.fetch.pdns.c1));
      push(loadRow('Zonekeeper', r.fetch.ours.c16), loadRow('PowerDNS', r.fetch.pdns.c16), '');
      push(`Answer sizes: Zonekeeper ${(r.fetch.ours.bytes / 1e3).toFixed(0)} kB, PowerDNS ${(r.fetch.pdns.bytes / 1e3).toFixed(0)} kB.`, '');
    }
    push('**Ratios** (Zonekeeper ÷ PowerDNS; above 1 means Zonekeeper is faster):', '');
    push('| measure | Zonekeeper | PowerDNS | ratio |', '|---|---:|---:|---:|');
    if (r.writes && r.pdnsWrites) {
      push(`| write throughput, concurrency 16 | ${rps(r.writes.run.rps)} | ${rps(r.pdnsWrites.run.rps)} | ${ratio(r.writes.run.rps, r.pdnsWrites.run.rps)} |`);
      push(`| write p99 latency (PowerDNS ÷ Zonekeeper) | ${ms(r.writes.run.p99)} | ${ms(r.pdnsWrites.run.p99)} | ${ratio(r.pdnsWrites.run.p99, r.writes.run.p99)} |`);
    }
    if (r.signedWrites && r.pdnsSignedWrites) {
      push(`| write throughput on signed zones, concurrency 16 | ${rps(r.signedWrites.run.rps)} | ${rps(r.pdnsSignedWrites.run.rps)} | ${ratio(r.signedWrites.run.rps, r.pdnsSignedWrites.run.rps)} |`);
      push(`| same: p99 latency (PowerDNS ÷ Zonekeeper) | ${ms(r.signedWrites.run.p99)} | ${ms(r.pdnsSignedWrites.run.p99)} | ${ratio(r.pdnsSignedWrites.run.p99, r.signedWrites.run.p99)} |`);
    }
    if (r.fetch) {
      push(`| zone fetch throughput, concurrency 16 | ${rps(r.fetch.ours.c16.rps)} | ${rps(r.fetch.pdns.c16.rps)} | ${ratio(r.fetch.ours.c16.rps, r.fetch.pdns.c16.rps)} |`);
      push(`| zone fetch p50 latency, concurrency 1 (PowerDNS ÷ Zonekeeper) | ${ms(r.fetch.ours.c1.p50)} | ${ms(r.fetch.pdns.c1.p50)} | ${ratio(r.fetch.pdns.c1.p50, r.fetch.ours.c1.p50)} |`);
    }
    push('');
  }
  fs.writeFileSync(file, `${out.join('\n')}\n`);
  return file;
}

const SECONDS = (r, key) => r.settings.seconds[key];
const COUNT = () => 10;

module.exports = { writeResults };
