'use strict';
// `npm run bench:webhooks`: the webhook delivery duty's throughput (docs/events.md, «The delivery duty»). A backlog
// of N `zone.changed` events over 100 zones is fanned out to 1 and then to 10 subscriptions, all on one local
// receiver (127.0.0.1, allowed by WEBHOOK_ALLOW) that answers 200 at once on keep-alive connections: deliveries a
// second from the first event's commit to the last delivery taken, and the event-to-delivery latency (the
// receiver's clock minus the event's timestamp, one machine's clock) at p50 and p99. Target: 1,000 deliveries/s.
// The events are written by SQL, in transactions of 1,000, as the write path writes them (one row per change, the
// zone's id and name, the zone's user): the write path's own rate is bench/run.js's, and here it would bound the
// rate of events, not of deliveries. Written to bench/RESULTS-webhooks.md with the machine, the date and the load of
// the machine (other work shares it).
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { busyProcesses, cpuShare, cpuStat, cpuBetween, processTimes, sleep } = require('./lib/proc');
const { startService, ROOT } = require('./lib/service');

const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS || (process.env.BENCH_QUICK ? 2000 : 20000));
const SUBSCRIPTIONS = (process.env.BENCH_WEBHOOK_SUBSCRIPTIONS || '1,10').split(',').map(Number);
/** a case that has not delivered everything by then is reported with what it delivered (a rate, still) */
const MAX_SECONDS = Number(process.env.BENCH_WEBHOOK_MAX_SECONDS || 120);
const ZONES = 100;
const TARGET = 1000;
const TMP = path.join(__dirname, '.tmp');
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** the receiver: every request taken (200), first receipt per (subscription path, webhook-id) timed */
function startReceiver() {
  const seen = new Map();
  let requests = 0;
  let connections = 0;
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      requests += 1;
      const key = `${req.url} ${req.headers['webhook-id']}`;
      if (!seen.has(key)) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        seen.set(key, Date.now() - Date.parse(body.timestamp));
      }
      res.end('ok');
    });
  });
  // connections opened: the duty's keep-alive agent should open a handful, not one per delivery
  server.on('connection', () => (connections += 1));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        seen,
        requests: () => requests,
        connections: () => connections,
        reset() {
          seen.clear();
          requests = 0;
          connections = 0;
        },
        close: () => new Promise((done) => { server.closeAllConnections(); server.close(done); }),
      }),
    ),
  );
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

async function runCase(svc, db, receiver, zones, subscriptions) {
  receiver.reset();
  const ids = [];
  for (let i = 0; i < subscriptions; i++) {
    const sub = await svc.api('POST', '/webhook/add', { url: `${receiver.url}/s${i}`, events: ['zone.changed'] });
    ids.push(sub.id);
  }
  const expected = EVENTS * subscriptions;
  const cpuBefore = cpuStat();
  const timesBefore = processTimes();
  const started = Date.now();
  for (let from = 0; from < EVENTS; from += 1000) {
    const n = Math.min(1000, EVENTS - from);
    await db.query(
      `insert into events (type, domain_id, zone, user_id, data)
       select 'zone.changed', ($3::bigint[])[1 + g % $6], ($4::text[])[1 + g % $6], ($5::bigint[])[1 + g % $6],
              jsonb_build_object('zone', ($4::text[])[1 + g % $6], 'serial', g)
         from generate_series($1::int, $2::int) g`,
      [from, from + n - 1, zones.map((z) => z.id), zones.map((z) => z.name), zones.map((z) => z.userId), zones.length],
    );
  }
  const written = Date.now() - started;
  let last = 0;
  let lastCount = 0;
  while (receiver.seen.size < expected && Date.now() - started < MAX_SECONDS * 1000) {
    await sleep(100);
    if (receiver.seen.size !== lastCount) {
      lastCount = receiver.seen.size;
      last = Date.now();
    }
    if (Date.now() % 5000 < 100) log(`  ${receiver.seen.size} / ${expected} delivered`);
  }
  const seconds = ((last || Date.now()) - started) / 1000;
  const cpu = cpuShare(cpuBefore, cpuStat());
  const used = cpuBetween(timesBefore, processTimes(), svc.child.pid);
  const latencies = [...receiver.seen.values()].sort((a, b) => a - b);
  const statements = await db.query(
    `select count(*) filter (where status = 'delivered')::int as delivered, count(*)::int as total from webhook_deliveries`,
  );
  for (const id of ids) await svc.api('DELETE', `/webhook/delete/${id}`, undefined, [204]);
  await db.query('delete from webhook_deliveries');
  return {
    subscriptions,
    events: EVENTS,
    expected,
    delivered: receiver.seen.size,
    requests: receiver.requests(),
    connections: receiver.connections(),
    writtenMs: written,
    seconds,
    rate: receiver.seen.size / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpu,
    serviceCpuMsPerDelivery: (1000 * used.service) / Math.max(1, receiver.seen.size),
    postgresCpuMsPerDelivery: (1000 * used.postgres) / Math.max(1, receiver.seen.size),
    rows: statements.rows[0],
  };
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  const loadBefore = os.loadavg();
  const busyBefore = await busyProcesses();
  const receiver = await startReceiver();
  const results = await withDatabase('zk_bench_webhooks', async (databaseUrl) => {
    const svc = await startService({
      databaseUrl,
      apiKey: API_KEY,
      logFile: path.join(TMP, 'webhooks.log'),
      env: { LOG_LEVEL: 'warn', WEBHOOK_ALLOW: '127.0.0.0/8', HEALTH_CHECK_INTERVAL: '0', ...(process.env.WEBHOOK_CONCURRENCY ? { WEBHOOK_CONCURRENCY: process.env.WEBHOOK_CONCURRENCY } : {}) },
    });
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const user = await svc.api('POST', '/user/add', { email: 'webhooks@bench.example' });
      const zones = [];
      for (let i = 0; i < ZONES; i++) {
        const name = `hook${i}.example`;
        const zone = await svc.api('POST', '/domain/add', { user_id: user.id, zone: name });
        zones.push({ id: Number(zone.id), name, userId: Number(user.id) });
      }
      const out = [];
      for (const subscriptions of SUBSCRIPTIONS) {
        log(`${EVENTS} events to ${subscriptions} subscription(s)`);
        const r = await runCase(svc, db, receiver, zones, subscriptions);
        log(`  ${r.delivered} / ${r.expected} in ${r.seconds.toFixed(1)} s: ${r.rate.toFixed(0)} deliveries/s, p50 ${r.p50} ms, p99 ${r.p99} ms (machine ${r.cpu.busy.toFixed(0)}% busy)`);
        out.push(r);
      }
      return out;
    } finally {
      await db.end();
      await svc.stop();
    }
  });
  await receiver.close();
  const loadAfter = os.loadavg();
  const procs = busyBefore.length ? busyBefore.map((p) => `\`${p.command.replace(/\|/g, '\\|').slice(0, 60)}\` ${(100 * p.share).toFixed(0)}%`).join('; ') : 'none';
  const table = results
    .map(
      (r) =>
        `| ${r.events.toLocaleString('en')} × ${r.subscriptions} | ${r.delivered.toLocaleString('en')} of ${r.expected.toLocaleString('en')} | ${r.requests.toLocaleString('en')} | ${r.connections.toLocaleString('en')} | ${r.seconds.toFixed(1)} s | **${r.rate.toFixed(0)}** ${r.rate >= TARGET ? '(met)' : '(MISSED)'} | ${r.p50} | ${r.p99} | ${r.serviceCpuMsPerDelivery.toFixed(2)} / ${r.postgresCpuMsPerDelivery.toFixed(2)} | ${r.cpu.busy.toFixed(0)}% / ${r.cpu.steal.toFixed(0)}% |`,
    )
    .join('\n');
  fs.writeFileSync(
    path.join(__dirname, 'RESULTS-webhooks.md'),
    `# Webhook delivery benchmark (\`npm run bench:webhooks\`)

Written by bench/webhooks.js on every run; what the numbers mean and why a target is missed: [FINDINGS.md](FINDINGS.md).

Machine: ${machine.cpuModel}, ${machine.nproc} cores, ${machine.memoryGiB.toFixed(1)} GiB, Linux ${machine.kernel}, Node ${machine.node}.
Date: ${machine.date}. Commit: ${machine.commit.slice(0, 12)}${machine.dirty ? ` + ${machine.dirty} uncommitted change(s)` : ''}.${process.env.BENCH_QUICK ? ' **BENCH_QUICK: short runs, not for comparison.**' : ''}
Load average before / after: ${loadBefore.map((v) => v.toFixed(1)).join(', ')} / ${loadAfter.map((v) => v.toFixed(1)).join(', ')}. Other work on the
machine when it began (other test runs share it): ${procs}.

A backlog of N \`zone.changed\` events over ${ZONES} zones (written by SQL in transactions of 1,000, as the write path
writes them) fanned out to S subscriptions, every one on a local receiver answering 200 at once; the service runs
as \`npm run serve\` runs it, every role, WEBHOOK_CONCURRENCY ${process.env.WEBHOOK_CONCURRENCY || 'at its default (4)'}. Throughput: distinct
deliveries taken by the receiver from the first event's write to the last delivery (a case is cut at
${MAX_SECONDS} s). Latency: the receiver's clock at first receipt minus the event's timestamp: with a backlog, mostly
time in the queue. Target: ${TARGET.toLocaleString('en')} deliveries/s.

| events × subscriptions | delivered | requests | connections | time | deliveries/s | p50 ms | p99 ms | CPU ms per delivery, service / PostgreSQL | machine busy / steal |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${table}
`,
  );
  log('written bench/RESULTS-webhooks.md');
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack || error.message}\n`);
  process.exit(1);
});
