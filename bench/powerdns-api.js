'use strict';
// `npm run bench:powerdns-api`: the PowerDNS API edge (src/powerdns) beside PowerDNS itself, in the same run.
// PATCH of 1 rrset and of 1,000 rrsets (changetype REPLACE, A records at new names: every request a real
// change), each at 1 and at 16 connections, a closed loop (each connection sends its next request when the
// last is answered), each connection on a zone of its own (16 clients, 16 zones: lego/cert-manager fleets),
// against:
//   - PowerDNS (Debian's pdns-server) on gsqlite3 and on gpgsql (the same PostgreSQL as ours),
//   - Zonekeeper's PATCH /api/v1/servers/localhost/zones/<zone>,
//   - Zonekeeper's GraphQL applyZoneChanges with the same change set (REPLACE_RRSET per rrset).
// Targets: Zonekeeper's edge ≥ 5× PowerDNS's throughput; the edge within 10 % of GraphQL.
// Beside them, the write floor (bench/lib/write-floor.js): a plain node `http` server running only the service's
// own write statement (writeZoneChange on the zone's head, one round trip) for the same change set, with nothing
// above it: what any edge on this data layer can reach on this machine, each request one durable commit; and the
// floor before zone heads (readZone, then writeZoneChange: two round trips), kept for comparison.
// Written to bench/RESULTS-powerdns-api.md with the machine and the date. BENCH_QUICK=1: shorter cases.
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const os = require('node:os');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { startPdnsOnDatabase, startPdnsOnSqlite, pdnsVersion } = require('./lib/pdns');
const { request } = require('./lib/proc');
const { startService, ROOT } = require('./lib/service');
const { startWriteFloor } = require('./lib/write-floor');

const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const PDNS_KEY = 'pdns-bench-key';
const SECONDS = Number(process.env.BENCH_SECONDS ?? (process.env.BENCH_QUICK ? 2 : 5));
// each case with its bar: the edge's throughput ÷ PowerDNS's better backend
const CASES = [
  { rrsets: 1, connections: 1, bar: 3 },
  { rrsets: 1, connections: 16, bar: 8 },
  { rrsets: 1000, connections: 1, bar: 5 },
  { rrsets: 1000, connections: 16, bar: 5 },
];
const NS = ['ns1.example.net.', 'ns2.example.net.'];
const EDGE = 'Zonekeeper PowerDNS API';
const GRAPHQL = 'Zonekeeper GraphQL applyZoneChanges';
const FLOOR = 'write floor';
const FLOOR_READ = 'write floor, read + write';
const TMP = path.join(__dirname, '.tmp');
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const ip = (n) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
const zoneName = (connection) => `c${connection}.pdns-bench.example`;

/** the change set: `count` A rrsets at new names from `from` */
const names = (from, count) => Array.from({ length: count }, (_, i) => ({ owner: `h${from + i}`, rdata: ip(from + i) }));
const patchBody = (zone, from, count) => ({
  rrsets: names(from, count).map((n) => ({
    name: `${n.owner}.${zone}.`,
    type: 'A',
    ttl: 3600,
    changetype: 'REPLACE',
    records: [{ content: n.rdata, disabled: false }],
  })),
});
const APPLY = `mutation($zone: String!, $changes: [ZoneChangeInput!]!) { applyZoneChanges(zone: $zone, changes: $changes) { serial } }`;
const graphqlBody = (zone, from, count) => ({
  query: APPLY,
  variables: {
    zone,
    changes: names(from, count).map((n) => ({ kind: 'REPLACE_RRSET', owner: n.owner, type: 'A', rdatas: [n.rdata], ttl: 3600 })),
  },
});

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * A closed loop of `connections` clients for `seconds`: client c sends send(c, i) for i = 0, 1, … and waits
 * for its answer; every answer must pass `ok`. Good answers per second over the whole time, the others
 * counted as bad, and latency percentiles (ms) of all.
 */
async function closedLoop({ connections, seconds, send, ok }) {
  const latencies = [];
  let bad = 0;
  let badExample;
  const started = process.hrtime.bigint();
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      for (let i = 0; Date.now() < deadline; i++) {
        const t0 = process.hrtime.bigint();
        const res = await send(c, i);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (!ok(res)) {
          bad += 1;
          badExample ??= `${res.status} ${res.text.slice(0, 200)}`;
        }
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    // answers that were right, per second: an error answered fast is no throughput
    rps: (latencies.length - bad) / elapsed,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    bad,
    badExample,
  };
}

/**
 * Runs every case against every target, the targets one after another within each case (so that a change in
 * the machine's load touches every target alike); `target.send(connection, from, count)`.
 */
async function runCases(targets) {
  const results = Object.fromEntries(targets.map((t) => [t.label, []]));
  // each case writes new names: a counter per connection, far apart per case
  let caseBase = 0;
  for (const { rrsets, connections } of CASES) {
    caseBase += 10_000_000;
    for (const target of targets) {
      // warm-up: one request per connection
      await Promise.all(Array.from({ length: connections }, (_, c) => target.send(c, caseBase - 1_000_000, rrsets)));
      const result = await closedLoop({
        connections,
        seconds: SECONDS,
        send: (c, i) => target.send(c, caseBase + i * rrsets, rrsets),
        ok: target.ok,
      });
      log(
        `${target.label}: ${rrsets} rrset(s) c${connections}: ${result.rps.toFixed(1)} req/s (${(result.rps * rrsets).toFixed(0)} rrsets/s), p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms${result.bad ? `, ${result.bad} BAD (${result.badExample})` : ''}`,
      );
      results[target.label].push({ rrsets, connections, ...result });
    }
  }
  return results;
}

/** a started PowerDNS with its 16 zones, as a target */
async function powerdnsTarget(label, start) {
  const pdns = await start();
  for (let c = 0; c < 16; c++) await pdns.api('POST', '/zones', { name: `${zoneName(c)}.`, kind: 'Native', nameservers: NS });
  // PowerDNS's web server answers one request per connection: a fresh connection each time, as its clients do
  const agent = new http.Agent({ keepAlive: false });
  return {
    label,
    stop: () => pdns.stop(),
    send: (c, from, count) =>
      request('PATCH', `${pdns.base}/zones/${zoneName(c)}.`, { headers: pdns.headers, body: patchBody(zoneName(c), from, count), agent }),
    ok: (res) => res.status === 204,
  };
}

/** a started Zonekeeper with its 16 zones, as two targets: the PowerDNS API and GraphQL */
async function zonekeeperTargets(databaseUrl) {
  const svc = await startService({ databaseUrl, apiKey: API_KEY, logFile: path.join(TMP, 'powerdns-api.log'), env: { LOG_LEVEL: 'warn' } });
  const user = await svc.api('POST', '/user/add', { email: 'pdns@bench.example' });
  for (let c = 0; c < 16; c++) await svc.api('POST', '/domain/add', { user_id: user.id, zone: zoneName(c) });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const edge = {
    label: EDGE,
    stop: () => svc.stop(),
    send: (c, from, count) =>
      request('PATCH', `${svc.base}/api/v1/servers/localhost/zones/${zoneName(c)}.`, {
        headers: svc.headers,
        body: patchBody(zoneName(c), from, count),
        agent,
      }),
    ok: (res) => res.status === 204,
  };
  // the same change sets through GraphQL, on names the edge does not write (a separate range)
  const graphql = {
    label: GRAPHQL,
    stop: async () => undefined,
    send: (c, from, count) =>
      request('POST', `${svc.base}/graphql`, { headers: svc.headers, body: graphqlBody(zoneName(c), 500_000_000 + from, count), agent }),
    ok: (res) => res.status === 200 && !res.json?.errors,
  };
  // the floors write the same change sets on the same database, on names neither edge writes
  const floorTarget = async (label, options, offset) => {
    const server = await startWriteFloor(databaseUrl, options);
    return {
      label,
      stop: () => server.stop(),
      send: (c, from, count) =>
        request('POST', `${server.base}/floor`, {
          body: {
            zone: zoneName(c),
            records: names(offset + from, count).map((n) => ({ owner: n.owner, rtype: 'A', rdata: n.rdata, ttl: 3600 })),
          },
          agent,
        }),
      ok: (res) => res.status === 201,
    };
  };
  const floor = await floorTarget(FLOOR, { head: true }, 1_000_000_000);
  const floorRead = await floorTarget(FLOOR_READ, {}, 1_500_000_000);
  return [edge, graphql, floor, floorRead];
}

function table(rows) {
  const header = `| | ${CASES.map((c) => `${c.rrsets} rrset${c.rrsets > 1 ? 's' : ''} c${c.connections}`).join(' | ')} |\n| --- |${CASES.map(() => ' ---: |').join('')}`;
  const cell = (r) =>
    `${r.rps.toFixed(1)} req/s<br>p50 ${r.p50.toFixed(1)} / p90 ${r.p90.toFixed(1)} / p99 ${r.p99.toFixed(1)} ms${r.bad ? `<br>**${r.bad} bad**` : ''}`;
  return [header, ...rows.map(([label, results]) => `| ${label} | ${results.map(cell).join(' | ')} |`)].join('\n');
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  const version = pdnsVersion();
  log(`${SECONDS} s a case; cases: ${CASES.map((c) => `${c.rrsets}×c${c.connections}`).join(', ')}`);
  const loadBefore = os.loadavg();
  const { sqlite, pgsql, zk } = await withDatabase('pdns_bench_api', (pdnsUrl) =>
    withDatabase('zk_bench_pdns_api', async (zkUrl) => {
      const targets = [];
      try {
        targets.push(
          await powerdnsTarget(`PowerDNS ${version} gsqlite3`, () =>
            startPdnsOnSqlite({
              dir: path.join(TMP, `pdns-api-sqlite-${Date.now()}`),
              apiKey: PDNS_KEY,
              logFile: path.join(TMP, 'pdns-api-sqlite.log'),
            }),
          ),
        );
        targets.push(
          await powerdnsTarget(`PowerDNS ${version} gpgsql`, () =>
            startPdnsOnDatabase(pdnsUrl, {
              dir: path.join(TMP, `pdns-api-pgsql-${Date.now()}`),
              apiKey: PDNS_KEY,
              logFile: path.join(TMP, 'pdns-api-pgsql.log'),
            }),
          ),
        );
        targets.push(...(await zonekeeperTargets(zkUrl)));
        const results = await runCases(targets);
        return {
          sqlite: results[targets[0].label],
          pgsql: results[targets[1].label],
          zk: { edge: results[EDGE], graphql: results[GRAPHQL], floor: results[FLOOR], floorRead: results[FLOOR_READ] },
        };
      } finally {
        // every target stopped, even after one that fails to stop (a pool left open meets the database's drop)
        for (const target of targets) await target.stop().catch((error) => log(`${target.label}: stop failed: ${error.message}`));
      }
    }),
  );
  const loadAfter = os.loadavg();

  const ratios = CASES.map((c, i) => {
    const best = Math.max(sqlite[i].rps, pgsql[i].rps);
    return {
      label: `${c.rrsets} rrset${c.rrsets > 1 ? 's' : ''} c${c.connections}`,
      bar: c.bar,
      vsPowerDns: zk.edge[i].rps / best,
      vsGraphql: zk.edge[i].rps / zk.graphql[i].rps,
      floorVsPowerDns: zk.floor[i].rps / best,
      edgeVsFloor: zk.edge[i].rps / zk.floor[i].rps,
      graphqlVsFloor: zk.graphql[i].rps / zk.floor[i].rps,
      floorVsRead: zk.floor[i].rps / zk.floorRead[i].rps,
    };
  });
  const verdict = (ok) => (ok ? 'met' : '**MISSED**');
  const ratioRows = ratios
    .map(
      (r) =>
        `| ${r.label} | ${r.vsPowerDns.toFixed(1)}× (≥ ${r.bar}×: ${verdict(r.vsPowerDns >= r.bar)}) | ${(r.vsGraphql * 100).toFixed(0)} % (${verdict(r.vsGraphql >= 0.9)}) | ${r.floorVsPowerDns.toFixed(1)}× | ${(r.edgeVsFloor * 100).toFixed(0)} % | ${(r.graphqlVsFloor * 100).toFixed(0)} % | ${r.floorVsRead.toFixed(2)}× |`,
    )
    .join('\n');
  for (const r of ratios) {
    log(
      `${r.label}: edge/PowerDNS ${r.vsPowerDns.toFixed(2)}×, edge/GraphQL ${(r.vsGraphql * 100).toFixed(0)} %, floor/PowerDNS ${r.floorVsPowerDns.toFixed(2)}×`,
    );
  }

  fs.writeFileSync(
    path.join(__dirname, 'RESULTS-powerdns-api.md'),
    `# PowerDNS API benchmark (\`npm run bench:powerdns-api\`)

Machine: ${machine.cpuModel}, ${machine.nproc} cores, ${machine.memoryGiB.toFixed(1)} GiB, Linux ${machine.kernel}, Node ${machine.node}.
Date: ${machine.date}. Commit: ${machine.commit.slice(0, 12)}. PowerDNS ${version}; gpgsql on the same PostgreSQL as Zonekeeper.
Load average (1 min) before the run ${loadBefore[0].toFixed(1)}, after ${loadAfter[0].toFixed(1)}: the machine is shared.${process.env.BENCH_QUICK ? ' **BENCH_QUICK: short run, not for comparison.**' : ''}

PATCH of 1 and of 1,000 rrsets (REPLACE of an A rrset at a new name each: every request a real change), closed
loop for ${SECONDS} s a case at 1 and 16 connections, each connection on a zone of its own; after one request of
warm-up per connection. All five servers run at once; within each case they take their turn one after another. Zonekeeper on its default settings with the rate limits off (as every benchmark);
GraphQL sends the same change set (\`applyZoneChanges\`, one \`REPLACE_RRSET\` per rrset) on the same service.
PowerDNS's web server closes each connection after its answer, so its client opens one per request (as its
clients do); Zonekeeper's keep theirs open. Throughput counts right answers only (204, or GraphQL without
errors); a case's wrong answers are shown as "bad" (PowerDNS on gsqlite3 answers 500 to some writes at 16
connections: SQLite takes one writer at a time and PowerDNS gives up on the lock).
Targets: the edge's throughput ÷ PowerDNS's (the better of its two backends) ≥ 3× at 1 rrset c1, ≥ 8× at 1 rrset
c16, ≥ 5× at 1,000 rrsets; the edge within 10 % of GraphQL; every edge at ≥ 85 % of the write floor.
The write floor (bench/lib/write-floor.js) is no target: a plain node \`http\` server and \`pg\` pool that runs
only the service's write statement (writeZoneChange on the zone's head held in the process, one round trip) for
the same change set on the same database, without express, authentication, validation or rules; each request is
one durable commit, as each of ours is. Floor ÷ PowerDNS is the most any edge on this data layer could show on
this machine. The floor before zone heads (readZone, then writeZoneChange: two round trips) runs beside it.

Requests per second and latency percentiles (ms):

${table([
  [`PowerDNS gsqlite3`, sqlite],
  [`PowerDNS gpgsql`, pgsql],
  ['Zonekeeper `PATCH …/zones/<zone>`', zk.edge],
  ['Zonekeeper GraphQL `applyZoneChanges`', zk.graphql],
  ['write floor (the write on the zone head alone)', zk.floor],
  ['write floor before zone heads (read + write)', zk.floorRead],
])}

| case | edge ÷ best PowerDNS | edge ÷ GraphQL (≥ 90 %) | floor ÷ best PowerDNS | edge ÷ floor | GraphQL ÷ floor | floor ÷ floor before |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
${ratioRows}
`,
  );
  log('written bench/RESULTS-powerdns-api.md');
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack || error.message}\n`);
  process.exit(1);
});
