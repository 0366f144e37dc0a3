'use strict';
// `npm run bench:standby-reads`: reading from standbys (docs/deployment.md, «Reading from standbys»).
//
// 1. What a standby takes off the primary. A primary and an asynchronous streaming standby of Debian's PostgreSQL
//    15 (made by pg_basebackup -R, test/support/replicated-postgres.ts), 20 zones of 200 records. The service
//    (`npm run serve`'s command, ROLES=api) runs the same reads twice, once on the primary alone and once with
//    DATABASE_REPLICA_URL naming the standby: the console's (its own operations from console/src/operations.graphql:
//    the zone list, a zone, its records, its history, as a page shows them) and a GitOps plan's (octoDNS's
//    PowerDNS provider: the zone list, then each zone's RRsets, through the PowerDNS API). Measured on each
//    cluster: transactions (pg_stat_database.xact_commit: every statement the service sends outside a
//    transaction is one), rows read (tup_returned + tup_fetched), and the CPU time of the postmaster and its
//    children (/proc).
// 2. Read-your-writes across processes at full size: the integration test's scenario
//    (test/integration/read-replicas-processes.test.ts: processes A and B, 200 ms apply delay) with 10,000
//    write-on-A, read-on-B pairs sending the token (STANDBY_PAIRS=10000), its figures taken from its output.
//    `BENCH_SKIP_PAIRS=1` leaves it out.
// 3. What reading your own writes adds to a read: the same scenario one pair at a time (STANDBY_AT_ONCE=1,
//    BENCH_ADDED_PAIRS pairs, 300 by default), so that a read comes right after its write and its time is its own,
//    not its turn among twenty: the read sending the token, less the same read again at once without it (the
//    standby has the write by then), p50 and p95 against the standby's lag (its 200 ms apply delay); the
//    requirement is p95 ≤ the lag + 30 ms. `BENCH_SKIP_ADDED=1` leaves it out.
//
// `BENCH_SKIP_OFFLOAD=1` leaves part 1 out. A part left out keeps its section of the results as the last run that
// measured it wrote it. Written to bench/RESULTS-standby-reads.md with the machine, and each part with its date,
// commit and the host's load average at its start and end (this machine is shared: other runs beside).
require('@swc-node/register');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { consoleOperation } = require('./lib/console-operations');
const { machineInfo } = require('./lib/machine');
const { request } = require('./lib/proc');
const { startService, ROOT } = require('./lib/service');
const { ReplicatedPostgres } = require('../test/support/replicated-postgres');

const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const ZONES = 20;
const RECORDS = 200;
const LANES = 8;
const CONSOLE_PAGES = process.env.BENCH_QUICK ? 100 : 500;
const PLANS = process.env.BENCH_QUICK ? 2 : 20;
const TMP = path.join(__dirname, '.tmp');
const RESULTS = path.join(__dirname, 'RESULTS-standby-reads.md');
const ADDED_PAIRS = Number(process.env.BENCH_ADDED_PAIRS ?? 300);
const SECTIONS = {
  offload: '## What a standby takes off the primary',
  pairs: '## Read-your-writes across two processes, 10,000 pairs',
  added: '## What reading your own writes adds to a read, one pair at a time',
};
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** CPU seconds of a cluster: its postmaster and every process it started (backends, walsender, startup, …) */
function clusterCpu(postmasterPid) {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(entry) === postmasterPid || Number(fields[1]) === postmasterPid) total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      /* gone */
    }
  }
  return total;
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  const offload = process.env.BENCH_SKIP_OFFLOAD ? undefined : await measured(machine, measureOffload);
  const pairs = process.env.BENCH_SKIP_PAIRS ? undefined : await measured(machine, () => runPairs({ pairs: 10_000 }));
  const added = process.env.BENCH_SKIP_ADDED ? undefined : await measured(machine, () => runPairs({ pairs: ADDED_PAIRS, atOnce: 1 }));
  writeResults(machine, { offload, pairs, added });
}

/** a part's result with when it ran and the host's load around it */
async function measured(machine, part) {
  const started = { at: new Date().toISOString(), load: os.loadavg() };
  const t0 = performance.now();
  const result = await part();
  return { result, started, seconds: (performance.now() - t0) / 1000, load: os.loadavg(), commit: machine.commit };
}

/** the line that says when a part ran, on which commit, and how busy the host was */
function measuredLine(run, nproc) {
  const load = (l) => l.map((v) => v.toFixed(1)).join(' / ');
  return `_Measured ${run.started.at} (commit ${run.commit.slice(0, 12)}), ${Math.round(run.seconds)} s; load average (1 / 5 / 15 min) ${load(run.started.load)} at the start, ${load(run.load)} at the end, on ${nproc} cores: ${run.started.load[0] > nproc || run.load[0] > nproc ? 'a busy host (other runs beside), so its times may be longer than a quiet host gives' : 'a quiet host'}._`;
}

/** the sections of the results file as the last runs wrote them, for the parts this run leaves out */
function previousSections() {
  if (!fs.existsSync(RESULTS)) return new Map();
  const text = fs.readFileSync(RESULTS, 'utf8');
  // a file written before each part had its own line: its header's date and commit stand for every part
  const date = (text.match(/^Date: (\S+?)\.?\s/m) || [])[1];
  const commit = (text.match(/Commit: ([0-9a-f]+)/) || [])[1];
  const sections = new Map();
  for (const part of text.split(/^(?=## )/m).slice(1)) {
    const [heading, ...body] = part.trimEnd().split('\n');
    let kept = body.join('\n').trim();
    if (!kept.includes('_Measured ') && date) kept = `_Measured ${date} (commit ${commit}); load average not recorded._\n\n${kept}`;
    sections.set(heading, kept);
  }
  return sections;
}

async function measureOffload() {
  const cluster = new ReplicatedPostgres({ synchronous: false });
  await cluster.init();
  try {
    await cluster.sql(cluster.primary, ['create database zk_offload']);
    const stats = async (node) => {
      const [row] = await cluster.sql(
        node,
        [
          "select xact_commit::bigint as xacts, (tup_returned + tup_fetched)::bigint as rows from pg_stat_database where datname = 'zk_offload'",
        ],
        'zk_offload',
      );
      return { xacts: Number(row.xacts), rows: Number(row.rows), cpu: clusterCpu(node.postmasterPid()) };
    };
    const queries = {
      zones: consoleOperation('Zones'),
      zone: consoleOperation('Zone'),
      records: consoleOperation('ZoneRecords'),
      history: consoleOperation('ZoneHistory'),
    };
    const zones = Array.from({ length: ZONES }, (_, i) => `z${i}.offload.example`);
    const results = [];
    for (const withStandby of [false, true]) {
      const svc = await startService({
        databaseUrl: cluster.primary.url('zk_offload'),
        apiKey: API_KEY,
        logFile: path.join(TMP, `standby-reads-${withStandby ? 'standby' : 'primary'}.log`),
        env: {
          ROLES: 'api',
          DNS_LISTEN: '',
          HEALTH_CHECK_INTERVAL: '0',
          LOG_LEVEL: 'warn',
          RATE_LIMIT_CONCURRENCY: '0',
          ...(withStandby ? { DATABASE_REPLICA_URL: cluster.standby.url('zk_offload') } : {}),
        },
      });
      try {
        if (!withStandby) {
          const user = await svc.api('POST', '/user/add', { email: 'offload@bench.example' });
          for (const zone of zones) {
            await svc.api('POST', '/domain/add', { user_id: user.id, zone });
            const lines = Array.from({ length: RECORDS }, (_, i) => `h${i} 3600 IN A 10.0.${(i >> 8) & 255}.${i & 255}`);
            await svc.graphql('mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }', {
              z: zone,
              t: `$ORIGIN ${zone}.\n${lines.join('\n')}\n`,
            });
          }
        } else {
          for (let waited = 0; ; waited += 200) {
            const ready = await request('GET', `${svc.base}/ready`);
            if (ready.json?.standbys?.[0]?.state === 'streaming') break;
            if (waited > 30_000) throw new Error(`the standby does not serve: ${ready.text}`);
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
        const gql = async (query, variables) => {
          const res = await request('POST', `${svc.base}/graphql`, { headers: svc.headers, body: { query, variables } });
          if (res.status !== 200 || res.json?.errors) throw new Error(`GraphQL → ${res.status} ${res.text.slice(0, 300)}`);
        };
        const get = async (route) => {
          const res = await request('GET', `${svc.base}${route}`, { headers: svc.headers });
          if (res.status !== 200) throw new Error(`GET ${route} → ${res.status} ${res.text.slice(0, 300)}`);
        };
        /** a person opening a zone in the console: the list, the zone, its first page of records, its history */
        const consolePage = async (i) => {
          const zone = zones[i % ZONES];
          await gql(queries.zones, { first: 50 });
          await gql(queries.zone, { name: zone });
          await gql(queries.records, { zone, first: 100 });
          await gql(queries.history, { name: zone, first: 20 });
        };
        /** octoDNS's plan against the PowerDNS API: the zone list, then every zone's RRsets */
        const plan = async () => {
          await get('/api/v1/servers/localhost/zones');
          for (const zone of zones) await get(`/api/v1/servers/localhost/zones/${zone}.`);
        };
        const run = async (label, count, one) => {
          await one(0); // warm: compiled operations, prepared connections
          const before = { primary: await stats(cluster.primary), standby: await stats(cluster.standby) };
          const started = performance.now();
          let next = 0;
          await Promise.all(
            Array.from({ length: LANES }, async () => {
              while (next < count) await one(next++);
            }),
          );
          const seconds = (performance.now() - started) / 1000;
          const after = { primary: await stats(cluster.primary), standby: await stats(cluster.standby) };
          // a backend that ended between the readings takes its CPU time with it: a difference below 0 is none
          const delta = (node) => ({
            xacts: after[node].xacts - before[node].xacts,
            rows: after[node].rows - before[node].rows,
            cpu: Math.max(0, after[node].cpu - before[node].cpu),
          });
          const row = { label, withStandby, count, seconds, primary: delta('primary'), standby: delta('standby') };
          log(`${withStandby ? 'with the standby' : 'primary alone'}, ${label}: ${JSON.stringify(row)}`);
          results.push(row);
        };
        await run(`console pages (zone list, zone, records, history) × ${CONSOLE_PAGES}`, CONSOLE_PAGES, consolePage);
        await run(`GitOps plans (${ZONES} zones each) × ${PLANS}`, PLANS, plan);
      } finally {
        await svc.stop();
      }
    }
    return results;
  } finally {
    await cluster.stop();
  }
}

/** the integration test's scenario: `pairs` pairs, `atOnce` at a time (20 unless told); its figures line */
function runPairs({ pairs, atOnce }) {
  log(`${pairs} write-on-A, read-on-B pairs, ${atOnce ?? 20} at a time (the integration test's scenario)`);
  const run = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', '.bin', 'jest'),
      'test/integration/read-replicas-processes.test.ts',
      '-t',
      'write-on-A, read-on-B pairs sending the token',
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        STANDBY_PAIRS: String(pairs),
        ...(atOnce ? { STANDBY_AT_ONCE: String(atOnce) } : {}),
        TEST_DATABASE_ADMIN_URL: process.env.BENCH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
      },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  const line = output.split('\n').find((text) => text.startsWith('standby reads across processes'));
  const figures = line ? JSON.parse(line.slice(line.indexOf('{'))) : undefined;
  log(`pairs: ${line ?? 'no figures'} (${run.status === 0 ? 'passed' : 'FAILED'})`);
  return {
    figures,
    passed: run.status === 0,
    failure:
      run.status === 0
        ? undefined
        : output
            .split('\n')
            .filter((l) => /Expected|Received|●/.test(l))
            .slice(0, 6),
  };
}

function writeResults(machine, runs) {
  const previous = previousSections();
  const section = (key, body) => {
    const run = runs[key];
    if (run) return `${SECTIONS[key]}\n\n${measuredLine(run, machine.nproc)}\n\n${body(run.result)}\n`;
    const kept = previous.get(SECTIONS[key]);
    return `${SECTIONS[key]}\n\n${kept ?? 'Not measured yet.'}\n`;
  };

  const offloadText = (offload) => {
    const rows = [];
    for (const label of [...new Set(offload.map((r) => r.label))]) {
      const alone = offload.find((r) => r.label === label && !r.withStandby);
      const shared = offload.find((r) => r.label === label && r.withStandby);
      const share = (a, b) => (a ? `${Math.round((100 * (a - b)) / a)} %` : '–');
      rows.push(
        `| ${label} | primary alone | ${alone.seconds.toFixed(1)} | ${alone.primary.xacts} | ${alone.primary.rows} | ${alone.primary.cpu.toFixed(2)} | – | – |`,
        `| | with the standby | ${shared.seconds.toFixed(1)} | ${shared.primary.xacts} (${share(alone.primary.xacts, shared.primary.xacts)} off) | ${shared.primary.rows} (${share(alone.primary.rows, shared.primary.rows)} off) | ${shared.primary.cpu.toFixed(2)} (${share(alone.primary.cpu, shared.primary.cpu)} off) | ${shared.standby.xacts} | ${shared.standby.cpu.toFixed(2)} |`,
      );
    }
    return `Debian's PostgreSQL 15, a primary and an asynchronous streaming standby on loopback; ${ZONES} zones of ${RECORDS} records; ${LANES} clients at
once. The same reads on the service with the primary alone, then with \`DATABASE_REPLICA_URL\` naming the standby (no
Consistency-Token sent: every read may go to the standby). Transactions: \`pg_stat_database.xact_commit\` of the
service's database; rows: \`tup_returned + tup_fetched\`; CPU: the cluster's postmaster and its children, user + system.
What stays on the primary with the standby is each request's authentication (the key or session, and its rate),
which the primary keeps for every request (docs/deployment.md).${process.env.BENCH_QUICK ? ' **BENCH_QUICK: short runs, not for comparison.**' : ''}

| reads | service | seconds | primary transactions | primary rows read | primary CPU s | standby transactions | standby CPU s |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}`;
  };

  const failed = (pairs) => (pairs.passed ? 'the test passed' : `the test FAILED: ${pairs.failure.join(' / ')}`);
  const pairsText = (pairs) => {
    const f = pairs.figures;
    if (!f) return `No figures: the test did not get to print them (${pairs.failure?.join(' / ')}).`;
    return `${f.pairs} pairs, 20 at a time, **${f.stale} stale** (${failed(pairs)}). What waiting for the standby
added to a read, as B measured it (zonekeeper_replica_token_wait_seconds): p95 at most ${f.waitP95AtMostSeconds} s, ${(100 * f.waitWithinLagAnd30ms).toFixed(1)} % of
the reads within the lag and 30 ms (0.23 s); as the client measured it (the read, less the same read again right after): p50
${f.addedP50} ms, p95 ${f.addedP95} ms, max ${f.addedMax} ms. A read's time: p50 ${f.readP50} ms, p95 ${f.readP95} ms (a plain read: p50
${f.plainReadP50} ms). Reads the primary answered after REPLICA_WAIT_MS: ${f.toPrimary}.`;
  };

  const addedText = (pairs) => {
    const f = pairs.figures;
    if (!f) return `No figures: the test did not get to print them (${pairs.failure?.join(' / ')}).`;
    const bound = f.applyDelayMs + 30;
    return `The integration test's scenario (processes A and B, the standby applying each commit ${f.applyDelayMs} ms after the primary
made it) with ${f.pairs} pairs one at a time: each read sends its write's token to B right after the write's answer,
and is read once more at once without it (the standby has the write by then, so that read is a plain one). ${f.stale} stale
(${failed(pairs)}).

| what the wait added to a read | p50 | p95 | max |
| --- | ---: | ---: | ---: |
| as the client measured it: the read with the token, less the same read again | ${f.addedP50} ms | **${f.addedP95} ms** | ${f.addedMax} ms |

The lag is the standby's apply delay, ${f.applyDelayMs} ms; the requirement is p95 ≤ the lag + 30 ms = ${bound} ms: **${f.addedP95 <= bound ? 'met' : 'not met'}**
(p95 ${f.addedP95} ms). The read comes a few ms after the commit, so what it waits is the delay less that, and one
5 ms poll of the standby's replay at most more. As B measured it (zonekeeper_replica_token_wait_seconds, by its
buckets): p95 at most ${f.waitP95AtMostSeconds} s, ${(100 * f.waitWithinLagAnd30ms).toFixed(1)} % of the waits within ${bound / 1000} s. A read with the token:
p50 ${f.readP50} ms, p95 ${f.readP95} ms; the same read without it: p50 ${f.plainReadP50} ms. Reads the primary answered after
REPLICA_WAIT_MS: ${f.toPrimary}.`;
  };

  fs.writeFileSync(
    RESULTS,
    `# Reading from standbys (\`npm run bench:standby-reads\`)

Machine: ${machine.cpuModel}, ${machine.nproc} cores, ${machine.memoryGiB.toFixed(1)} GiB, Linux ${machine.kernel}, Node ${machine.node}.
Each part below says when it ran and how busy the host was; a part a run left out (\`BENCH_SKIP_OFFLOAD\`,
\`BENCH_SKIP_PAIRS\`, \`BENCH_SKIP_ADDED\`) keeps what the last run that measured it wrote.

${section('offload', offloadText)}
${section('pairs', pairsText)}
${section('added', addedText)}`,
  );
  log('written bench/RESULTS-standby-reads.md');
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
