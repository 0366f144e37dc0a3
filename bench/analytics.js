'use strict';
// `npm run bench:analytics`: the query analytics' collector and reads (docs/analytics.md), written to
// bench/RESULTS-analytics.md.
//
// On a database of the run's own: the service (ROLES=api, as `npm run serve` starts it) and the collector as a
// process of its own (ROLES=collector, dnstap over TCP on loopback); 10,000 zones (one through the REST API, the
// rest copied by SQL), the first 100 with 10 A records each.
//   1. throughput: FRAMES dnstap responses (AUTH_RESPONSE, made with the service's own encoder) spread over the
//      10,000 zones, 10 owners, 2 types and 2 RCODEs, sent over 2 Frame Streams connections as fast as the socket
//      takes them; timed from the first frame to the last one counted in PostgreSQL. Reported: frames decoded and
//      stored per second of wall time and per second of the collector's CPU, its RSS (peak, sampled every 20 ms),
//      the minute rows written, and PostgreSQL's size of the analytics tables per million queries counted;
//   2. the nested GraphQL answer: `domains(first: 100) { records { … } }` with and without each record's
//      `queryCount` over a day and `lastQueried`, one round trip each, 5 warm-ups and 30 timed, alternating.
// BENCH_QUICK=1: 100,000 frames (for work on the bench; not for comparison).
// ANALYTICS_BENCH=nested: the nested answer alone (the frames are still sent, as its counts): its section of
// RESULTS-analytics.md is written again, the collector's kept as it was.
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { Client } = require('pg');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { startService, ROOT } = require('./lib/service');
const { freePort, startProcess, memoryOf, request } = require('./lib/proc');

const QUICK = process.env.BENCH_QUICK === '1';
const NESTED_ONLY = process.env.ANALYTICS_BENCH === 'nested';
const FRAMES = Number(process.env.BENCH_FRAMES ?? (QUICK ? 100_000 : 1_000_000));
const ZONES = 10_000;
const NESTED_ZONES = 100;
const TMP = path.join(__dirname, '.tmp');
const RESULTS = QUICK ? path.join(TMP, 'RESULTS-analytics-quick.md') : path.join(__dirname, 'RESULTS-analytics.md');
const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const { encodeDnstap } = require(path.join(ROOT, 'dist', 'src', 'analytics', 'dnstap.js'));
const { encodeControlFrame, encodeDataFrame, CONTROL, DNSTAP_CONTENT_TYPE } = require(
  path.join(ROOT, 'dist', 'src', 'analytics', 'frame-streams.js'),
);

const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const zoneName = (z) => `z${z}.analytics.bench`;

/** a response to `name`/`type` with `rcode`: header and question (RFC 1035 §4.1), as counted */
function response(name, type, rcode) {
  const labels = name.split('.').map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)]));
  const message = Buffer.concat([Buffer.alloc(12), ...labels, Buffer.alloc(5)]);
  message.writeUInt16BE(0x8400 | rcode, 2);
  message.writeUInt16BE(1, 4);
  message.writeUInt16BE(type, message.length - 4);
  message.writeUInt16BE(1, message.length - 2);
  return message;
}

/** the frames, distinct ones cycled: each zone × 10 owners × (A, AAAA) × (NOERROR, NXDOMAIN) over the run */
function makeFrames(count) {
  const now = Math.floor(Date.now() / 1000);
  const distinct = Math.min(count, 200_000);
  const frames = [];
  for (let i = 0; i < distinct; i++) {
    const zone = i % ZONES;
    const owner = Math.floor(i / ZONES) % 10;
    const payload = encodeDnstap({
      identity: `bench-${i % 2}`,
      type: 2,
      queryTimeSec: now,
      responseTimeSec: now,
      responseMessage: response(`o${owner}.${zoneName(zone)}`, i % 3 === 0 ? 28 : 1, i % 5 === 0 ? 3 : 0),
    });
    frames.push(encodeDataFrame(payload));
  }
  return frames;
}

/** one Frame Streams sender: READY, ACCEPT, START, the frames (as fast as the socket drains), STOP, FINISH */
function send(port, frames, count) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let stage = 'ready';
    socket.on('connect', () => socket.write(encodeControlFrame(CONTROL.READY, [DNSTAP_CONTENT_TYPE])));
    socket.on('error', reject);
    socket.on('data', () => {
      if (stage === 'ready') {
        stage = 'sending';
        socket.write(encodeControlFrame(CONTROL.START, [DNSTAP_CONTENT_TYPE]));
        let i = 0;
        const pump = () => {
          while (i < count) {
            const batch = [];
            for (let j = 0; j < 512 && i < count; j++, i++) batch.push(frames[i % frames.length]);
            if (!socket.write(Buffer.concat(batch))) return socket.once('drain', pump);
          }
          stage = 'stopping';
          socket.write(encodeControlFrame(CONTROL.STOP));
        };
        pump();
      } else if (stage === 'stopping') {
        socket.end();
        resolve();
      }
    });
  });
}

const cpuSeconds = (pid) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  await withDatabase('zk_bench_analytics', async (url) => {
    const svc = await startService({
      databaseUrl: url,
      apiKey: API_KEY,
      logFile: path.join(TMP, 'analytics-service.log'),
      env: { ROLES: 'api' },
    });
    const db = new Client({ connectionString: url });
    await db.connect();
    try {
      log(`seeding ${ZONES} zones`);
      const user = await svc.api('POST', '/user/add', { email: 'analytics@bench.example' });
      const { id } = await svc.api('POST', '/domain/add', { user_id: user.id, zone: zoneName(0) });
      await db.query(
        `insert into domains (user_id, name, serial, catalog_serial, record_count, kind, serving, nameserver_set)
         select t.user_id, 'z' || g || '.analytics.bench', t.serial, t.catalog_serial, t.record_count, t.kind, t.serving, t.nameserver_set
           from domains t, generate_series(1, $2::int - 1) as g where t.id = $1`,
        [id, ZONES],
      );
      await db.query(
        `insert into records (domain_id, owner, type, rdata, ttl)
         select d.id, 'o' || g, 'A', '192.0.2.' || (g + 1), 3600
           from (select id from domains order by id limit $1) d, generate_series(0, 9) g`,
        [NESTED_ZONES],
      );
      await db.query('update users set zone_count = (select count(*) from domains where user_id = $1) where id = $1', [user.id]);

      const dnstapPort = await freePort();
      const collector = startProcess(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], {
        cwd: ROOT,
        logFile: path.join(TMP, 'analytics-collector.log'),
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: url,
          API_KEY,
          ROLES: 'collector',
          HOST: '127.0.0.1',
          PORT: String(await freePort()),
          DNS_LISTEN: '',
          ANALYTICS_DNSTAP_LISTEN: `127.0.0.1:${dnstapPort}`,
        },
      });
      for (const deadline = Date.now() + 60_000; ;) {
        const open = await new Promise((resolve) =>
          net
            .connect(dnstapPort, '127.0.0.1')
            .once('connect', function () {
              this.destroy();
              resolve(true);
            })
            .once('error', () => resolve(false)),
        );
        if (open) break;
        if (Date.now() > deadline) throw new Error('the collector did not listen');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const sizeOf = async () =>
        Number(
          (
            await db.query(
              `select sum(pg_total_relation_size(c.oid))::bigint as n from pg_class c where c.relname in ('query_counts', 'query_coverage', 'query_last_seen', 'query_secondaries')`,
            )
          ).rows[0].n,
        );
      const sizeBefore = await sizeOf();
      log(`making ${FRAMES} frames`);
      const frames = makeFrames(FRAMES);
      const rssBefore = memoryOf(collector.pid).rss;
      let peakRss = rssBefore;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, memoryOf(collector.pid).rss)), 20);
      const cpuBefore = cpuSeconds(collector.pid);
      const began = Date.now();
      log('sending');
      await Promise.all([send(dnstapPort, frames, Math.ceil(FRAMES / 2)), send(dnstapPort, frames.slice(1), Math.floor(FRAMES / 2))]);
      const sentAt = Date.now();
      let stored = 0;
      while (stored < FRAMES) {
        stored = Number(
          (await db.query(`select coalesce(sum("count"), 0)::bigint as n from query_counts where resolution = 60`)).rows[0].n,
        );
        if (Date.now() - sentAt > 300_000) throw new Error(`only ${stored} of ${FRAMES} counted after 5 minutes`);
        if (stored < FRAMES) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const elapsed = (Date.now() - began) / 1000;
      clearInterval(sampler);
      const cpu = cpuSeconds(collector.pid) - cpuBefore;
      const rows = Number((await db.query(`select count(*)::bigint as n from query_counts where resolution = 60`)).rows[0].n);
      const minutes = Number((await db.query(`select count(distinct bucket)::int as n from query_counts where resolution = 60`)).rows[0].n);
      const dropped = Number(
        (await db.query(`select coalesce(sum(dropped + malformed + unmatched), 0)::bigint as n from query_coverage`)).rows[0].n,
      );
      await db.query('vacuum analyze query_counts, query_coverage, query_last_seen');
      const sizeAfter = await sizeOf();
      await collector.stop();
      const throughput = {
        elapsed,
        perSecond: FRAMES / elapsed,
        perCpuSecond: FRAMES / cpu,
        cpu,
        rssBefore,
        peakRss,
        rows,
        minutes,
        dropped,
        sizeBefore,
        sizeAfter,
      };
      log(`throughput: ${JSON.stringify(throughput)}`);

      // the nested answer
      const since = new Date(Date.now() - 86_400_000).toISOString();
      const withCounts = `query($since: DateTimeISO!) { domains(first: ${NESTED_ZONES}) { nodes { name records { owner type ttl lastQueried queryCount(since: $since) } } } }`;
      const without = `query { domains(first: ${NESTED_ZONES}) { nodes { name records { owner type ttl } } } }`;
      const time = async (query) => {
        const start = process.hrtime.bigint();
        const res = await request('POST', `${svc.base}/graphql`, { headers: svc.headers, body: { query, variables: { since } } });
        if (res.status !== 200 || res.json?.errors) throw new Error(`GraphQL → ${res.status} ${res.text.slice(0, 300)}`);
        const zones = res.json.data.domains.nodes;
        if (zones.length !== NESTED_ZONES) throw new Error(`${zones.length} zones answered`);
        return {
          ms: Number(process.hrtime.bigint() - start) / 1e6,
          counted: zones.reduce((s, z) => s + z.records.reduce((t, r) => t + (r.queryCount ?? 0), 0), 0),
          records: zones.reduce((s, z) => s + z.records.length, 0),
        };
      };
      for (let i = 0; i < 5; i++) await Promise.all([time(withCounts), time(without)]);
      const a = [];
      const b = [];
      let sample;
      for (let i = 0; i < 30; i++) {
        sample = await time(withCounts);
        a.push(sample.ms);
        b.push((await time(without)).ms);
      }
      const nested = {
        withP50: percentile(a, 50),
        withP99: percentile(a, 99),
        withoutP50: percentile(b, 50),
        withoutP99: percentile(b, 99),
        records: sample.records,
        counted: sample.counted,
      };
      log(`nested: ${JSON.stringify(nested)}`);
      write({ throughput, nested, machine });
    } finally {
      await db.end();
      await svc.stop();
    }
  });
}

const mib = (bytes) => (bytes / 1048576).toFixed(1);

function write({ throughput: t, nested: n, machine }) {
  const perMillion = (t.sizeAfter - t.sizeBefore) / (FRAMES / 1e6);
  const nested = `## The nested answer: ${NESTED_ZONES} zones, their records, each record's counts over a day
${NESTED_ONLY ? `\nRun ${new Date().toISOString().slice(0, 10)} by \`ANALYTICS_BENCH=nested\` (commit ${machine.commit.slice(0, 10)}, ${FRAMES.toLocaleString('en')} frames sent first).\n` : ''}
\`domains(first: ${NESTED_ZONES}) { nodes { name records { owner type ttl lastQueried queryCount(since: a day ago) } } }\`, one
round trip (${n.records} records, ${n.counted.toLocaleString('en')} queries counted in the answer), against the same query without
\`lastQueried\` and \`queryCount\`; 5 warm-ups, 30 each, alternating.

| query | p50 | p99 |
| --- | --- | --- |
| with counts | ${n.withP50.toFixed(1)} ms | ${n.withP99.toFixed(1)} ms |
| without | ${n.withoutP50.toFixed(1)} ms | ${n.withoutP99.toFixed(1)} ms |
| ratio | ${(n.withP50 / n.withoutP50).toFixed(2)}× | ${(n.withP99 / n.withoutP99).toFixed(2)}× |
`;
  if (NESTED_ONLY && fs.existsSync(RESULTS)) {
    const kept = fs.readFileSync(RESULTS, 'utf8').split('## The nested answer')[0];
    fs.writeFileSync(RESULTS, kept + nested);
    log(`written ${RESULTS} (the nested answer's section)`);
    return;
  }
  const text = `# Query analytics: the collector and the nested reads

Run ${new Date().toISOString().slice(0, 10)} by \`npm run bench:analytics\` (bench/analytics.js)${QUICK ? ' — BENCH_QUICK: not for comparison' : ''}.
Machine: ${machine.nproc} CPUs (${machine.cpuModel}), ${machine.memoryGiB.toFixed(1)} GiB, node ${machine.node}, commit ${machine.commit.slice(0, 10)}; shared with other work (its load not controlled).

## The collector (ROLES=collector, its own process, dnstap over TCP on loopback)

${FRAMES.toLocaleString('en')} dnstap responses over 2 Frame Streams connections, across ${ZONES.toLocaleString('en')} zones × 10 owners × 2
types × 2 RCODEs, timed from the first frame sent to the last one counted in PostgreSQL (flushes every 5 s, the
default).

| measure | value |
| --- | --- |
| frames decoded and stored per second (wall) | ${Math.round(t.perSecond).toLocaleString('en')} |
| frames per second of the collector's CPU (one core) | ${Math.round(t.perCpuSecond).toLocaleString('en')} |
| the collector's CPU time | ${t.cpu.toFixed(1)} s over ${t.elapsed.toFixed(1)} s |
| the collector's RSS: idle → peak | ${mib(t.rssBefore)} MiB → ${mib(t.peakRss)} MiB |
| minute rows written (query_counts) | ${t.rows.toLocaleString('en')} over ${t.minutes} minute(s), ${Math.round(t.rows / Math.max(1, t.minutes)).toLocaleString('en')} a minute |
| frames not counted (dropped, malformed, unmatched) | ${t.dropped} |
| PostgreSQL's size of the analytics tables (with indexes) | ${mib(t.sizeBefore)} MiB → ${mib(t.sizeAfter)} MiB |
| size per million queries counted | ${mib(perMillion)} MiB |

The size follows the distinct (zone, owner, type, RCODE, secondary, minute) rows, not the queries: here
${t.rows.toLocaleString('en')} rows a minute, ${((t.sizeAfter - t.sizeBefore) / Math.max(1, t.rows)) | 0} bytes a row with its indexes.

${nested}`;
  fs.writeFileSync(RESULTS, text);
  log(`written ${RESULTS}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
