'use strict';
// `npm run bench:dnssec-writes`: single-record writes with DNSSEC on against the same with DNSSEC off, in one
// run on one service (issue 28: target ≥ 70 %). Each write is signed incrementally in its serial step: the
// touched RRset's RRSIG, the SOA's, and the NSEC/NSEC3 neighbours around a new owner. Writes are
// `POST /api/record/add` of a new owner (the costlier case: the denial chain moves), 16 connections, spread
// over 16 zones per case (one zone takes one change at a time: the per-zone queue), each zone preloaded with
// 1,000 records. Cases run one after the other, unsigned first and again last, so drift shows. Written to
// bench/RESULTS-dnssec-writes.md with the machine and the date. Not a test: the numbers depend on the machine.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { withDatabase } = require('./lib/database');
const { load } = require('./lib/load');
const { machineInfo } = require('./lib/machine');
const { startService, ROOT } = require('./lib/service');

const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const SECONDS = process.env.BENCH_QUICK ? 4 : 15;
/**
 * Each case's own load, unmeasured, before its measured seconds: V8 compiles a write's code as it runs it, and
 * the signed write's code (the signer's, the larger statements' handling) first runs in its own case. Without
 * this its compilation fell inside the signed cases' seconds (a quarter of the service's CPU in the 8 s after a
 * 2-second warm-up at 60–150 writes/s, against 5 % after 20 s: `perf record -e cpu-clock`), and the signed cases
 * paid for it while the second unsigned case ran warm: a process serving for days does not.
 */
const WARMUP_SECONDS = process.env.BENCH_QUICK ? 1 : 5;
const CONNECTIONS = 16;
const ZONES = 16;
const PRELOAD = 1000;
const TMP = path.join(__dirname, '.tmp');
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/**
 * Before each case, what autovacuum does on a production server: the planner's statistics of the seeded tables,
 * and the dead rows of the previous case's writes cleared. The machine's PostgreSQL runs with autovacuum off (its
 * CI settings), so without this the tables are never analyzed: on a database aged by earlier cases the signed
 * write's read switched to bitmap scans visiting every dead row of the apex (each signed write replaces the SOA's
 * RRSIG), 870–1,800 heap blocks a write, and each case paid for the ones before it.
 */
async function vacuumAnalyze(databaseUrl) {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('vacuum analyze');
  } finally {
    await client.end();
  }
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  const loadBefore = os.loadavg()[0];
  const results = await withDatabase('zk_bench_dnssec_writes', async (databaseUrl) => {
    const svc = await startService({
      databaseUrl,
      apiKey: API_KEY,
      logFile: path.join(TMP, 'dnssec-writes.log'),
      env: { LOG_LEVEL: 'warn', ROLES: 'api' },
    });
    try {
      const user = await svc.api('POST', '/user/add', { email: 'writes@dnssec.example' });
      const cases = [
        { name: 'unsigned', prefix: 'u', dnssec: null },
        { name: 'signed, NSEC', prefix: 'n', dnssec: { denial: 'NSEC' } },
        { name: 'signed, NSEC3', prefix: 'h', dnssec: { denial: 'NSEC3' } },
        { name: 'unsigned (again)', prefix: 'v', dnssec: null },
      ];
      for (const c of cases) {
        c.zones = [];
        for (let z = 0; z < ZONES; z++) {
          const zone = `${c.prefix}${z}.writes.example`;
          await svc.api('POST', '/domain/add', { user_id: user.id, zone });
          const lines = Array.from({ length: PRELOAD }, (_, i) => `pre${i} 3600 IN A 10.${(i >> 8) & 255}.${i & 255}.1`);
          await svc.graphql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`, {
            z: zone,
            t: `$ORIGIN ${zone}.\n${lines.join('\n')}\n`,
          });
          if (c.dnssec)
            await svc.graphql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }`, { i: { zone, ...c.dnssec } });
          c.zones.push(zone);
        }
      }
      const out = [];
      for (const c of cases) {
        let warm = 0;
        await load({
          url: `${svc.base}/api/record/add`,
          method: 'POST',
          connections: CONNECTIONS,
          duration: WARMUP_SECONDS,
          headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
          next: () => {
            warm++;
            return JSON.stringify({
              zone: c.zones[warm % ZONES],
              owner: `warm${warm}`,
              rtype: 'A',
              ttl: '3600',
              rdata: `192.0.2.${warm % 250}`,
            });
          },
          check: (status) => status === 201,
        });
        await vacuumAnalyze(databaseUrl);
        let n = 0;
        log(`${c.name}: POST /api/record/add, ${CONNECTIONS} connections over ${ZONES} zones, ${SECONDS} s`);
        const result = await load({
          url: `${svc.base}/api/record/add`,
          method: 'POST',
          connections: CONNECTIONS,
          duration: SECONDS,
          headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
          next: () => {
            n++;
            return JSON.stringify({ zone: c.zones[n % ZONES], owner: `w${n}`, rtype: 'A', ttl: '3600', rdata: `192.0.2.${n % 250}` });
          },
          check: (status) => status === 201,
        });
        if (result.bad || result.errors)
          throw new Error(`${c.name}: ${result.bad} bad answers (${result.badExample ?? 'connection errors'})`);
        log(`  ${result.rps.toFixed(0)} writes/s, p50 ${result.p50} ms, p99 ${result.p99} ms`);
        out.push({ name: c.name, ...result });
      }
      return out;
    } finally {
      await svc.stop();
    }
  });
  const loadAfter = os.loadavg()[0];
  const unsigned = (results[0].rps + results[3].rps) / 2;
  const row = (r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${((r.rps / unsigned) * 100).toFixed(0)} % | ${r.p50} | ${r.p99} |`;
  fs.writeFileSync(
    path.join(__dirname, 'RESULTS-dnssec-writes.md'),
    `# Writes with DNSSEC on and off (\`npm run bench:dnssec-writes\`)

Measured ${machine.date} on ${machine.cpuModel}, ${machine.nproc} CPUs, ${machine.memoryGiB.toFixed(1)} GiB, Node ${machine.node},
commit ${machine.commit.slice(0, 12)} (${machine.commitSubject})${machine.dirty ? `, ${machine.dirty} changed files` : ''}.${process.env.BENCH_QUICK ? ' BENCH_QUICK: short runs, not for comparison.' : ''}
Load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after (other work on the machine shows here).

One API process (\`ROLES=api\`) on PostgreSQL. \`POST /api/record/add\` of a new owner (an A record), ${CONNECTIONS}
connections for ${SECONDS} s after ${WARMUP_SECONDS} s of the same load unmeasured (V8's compilation of the case's code), spread over ${ZONES} zones per case, each zone preloaded with ${PRELOAD} records. A
signed zone is ECDSAP256SHA256 with a KSK and a ZSK; each write re-signs the new RRset, the SOA and the
denial-chain neighbours in its serial step. Before each case the database is vacuumed and analyzed (\`VACUUM
ANALYZE\`: what autovacuum does on a production server; this machine's PostgreSQL runs with it off). The share is
against the mean of the two unsigned runs. Target: signed ≥ 75 % of unsigned.

| case | writes/s | of unsigned | p50 ms | p99 ms |
| --- | --- | --- | --- | --- |
${results.map(row).join('\n')}
`,
  );
  log('written bench/RESULTS-dnssec-writes.md');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
