#!/usr/bin/env node
/**
 * Steering's cost (`npm run bench:steering`): what probing 1,000 health checks at a 10 s interval costs the
 * service and what it does to the API (docs/steering.md, «Cost»).
 *
 * - the targets: STEERING_CHECKS HTTP endpoints (default 1,000) on loopback, one small server process listening
 *   on that many ports of 127.0.0.1 (one endpoint a port), answering `200 healthy` at /health; it notes when each
 *   probe arrived and the bytes each probe's connection carried each way (the TCP payload)
 * - the service runs as `npm run serve` (bench/lib/service.js), every role, STEERING_CHECK_INTERVAL 10 (the
 *   default), the other STEERING_* settings at their defaults, loopback allowed (STEERING_ALLOW_NETWORKS);
 *   100 zones, each with 10 checks and one steered A RRset whose one pool's 10 members follow them, made through
 *   GraphQL as a user makes them
 * - three steps, each measured for STEERING_STEP_S seconds (default 60: six intervals): no checks, 100 checks
 *   (10 zones), 1,000 checks (100 zones); before each, the new checks' first probes settle (two intervals)
 * - scheduling lag: a probe is due one interval after the previous probe of its check was claimed (the claim
 *   moves the schedule on); its lag is how much later than that it reached its endpoint, i.e. the time between
 *   two probes of a check at the endpoint less the interval. p50 / p99 / max over every probe of the step;
 *   target p99 < 0.5 s
 * - the API meanwhile: one client reads one zone over REST (`GET /api/domain/list/zone/<zone>`, sequential, one
 *   request every READ_EVERY_MS): p50 / p99 at each step; target: the p99 with 1,000 checks as without
 * - vantages (docs/steering.md, «Vantages and the quorum»): STEERING_VANTAGES (default 2) places every check is
 *   probed from: the service's own (`primary`) and, for each more, a prober process of its own (`ROLES=prober`, a
 *   vantage of its own name, the same database); each check is then probed that many times an interval, and its
 *   lag is read between a probe and the one of two probes before it (the same vantage's)
 * - CPU of the service, of the other vantages' probers and of PostgreSQL from /proc, over each step
 * Writes bench/RESULTS-steering.md with the machine, the date and the load average (the machine is shared).
 * STEERING_CHECKS, STEERING_STEP_S change the run. Needs PostgreSQL on BENCH_ADMIN_URL (default
 * postgresql://postgres@127.0.0.1:5432/postgres) and a build (`npm run build`; the npm script builds).
 */
'use strict';
const { fork } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { busyProcesses, cpuBetween, processTimes, request, sleep, startProcess } = require('./lib/proc');
const { startService, ROOT } = require('./lib/service');

const CHECKS = Number(process.env.STEERING_CHECKS || 1_000);
const VANTAGES = Number(process.env.STEERING_VANTAGES || 2);
const STEP_S = Number(process.env.STEERING_STEP_S || 60);
const INTERVAL_S = 10;
const PER_ZONE = 10;
const READ_EVERY_MS = 50;
const TARGET_LAG_P99_MS = 500;
const API_KEY = `zk_bench_${randomBytes(12).toString('hex')}`;
const TMP = path.join(__dirname, '.tmp');
const OUT = path.join(__dirname, 'RESULTS-steering.md');
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const stats = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p99: pct(s, 99), max: s[s.length - 1] };
};
const f1 = (v) => (v === undefined || Number.isNaN(v) ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(1));
const int = (v) => Math.round(v).toLocaleString('en-US');

// ---------------------------------------------------------------------------------------------------------------
/** the endpoints' process: `node bench/steering.js --endpoints <count>` */
function runEndpoints(count) {
  /** probes since the last report: [port, arrival ms, bytes in, bytes out] */
  let probes = [];
  const handler = (req, res) => {
    const healthy = req.url === '/health';
    res.writeHead(healthy ? 200 : 404, { 'content-type': 'text/plain', connection: 'close' });
    res.end(healthy ? 'healthy' : 'no');
  };
  const servers = [];
  (async () => {
    for (let i = 0; i < count; i++) {
      const server = http.createServer(handler);
      server.on('connection', (socket) => {
        const arrived = Date.now();
        const port = socket.localPort;
        socket.on('close', () => probes.push([port, arrived, socket.bytesRead, socket.bytesWritten]));
      });
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
      servers.push(server);
    }
    process.send({ ports: servers.map((s) => s.address().port) });
    setInterval(() => {
      if (!probes.length) return;
      process.send({ probes });
      probes = [];
    }, 500);
  })().catch((error) => {
    process.send({ error: error.message });
    process.exit(1);
  });
}

// ---------------------------------------------------------------------------------------------------------------

/** the endpoints' process, its ports, and every probe it saw */
async function startEndpoints(count) {
  const child = fork(__filename, ['--endpoints', String(count)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const probes = [];
  const ports = await new Promise((resolve, reject) => {
    child.on('message', (message) => {
      if (message.ports) resolve(message.ports);
      if (message.error) reject(new Error(message.error));
      if (message.probes) for (const probe of message.probes) probes.push(probe);
    });
    child.once('exit', (code) => reject(new Error(`the endpoints' process exited (${code})`)));
  });
  return { ports, probes, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

/** reads one zone over REST every READ_EVERY_MS until `until`: each request's time (ms) and the failures */
async function readWhile(svc, zone, until) {
  const times = [];
  let failed = 0;
  while (Date.now() < until) {
    const started = process.hrtime.bigint();
    const res = await request('GET', `${svc.base}/api/domain/list/zone/${zone}`, { headers: svc.headers }).catch(() => ({ status: 0 }));
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (res.status !== 200) failed++;
    await sleep(Math.max(0, READ_EVERY_MS - Number(process.hrtime.bigint() - started) / 1e6));
  }
  return { times, failed };
}

const CREATE_CHECK = `mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id } }`;
const CREATE_RRSET = `mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`;

/** a zone's ten checks (one endpoint each) and its steered A RRset, made through GraphQL */
async function steerZone(svc, zone, ports) {
  const members = [];
  for (const [i, port] of ports.entries()) {
    const made = await svc.graphql(CREATE_CHECK, {
      z: zone,
      i: { name: `web-${i}`, protocol: 'http', address: '127.0.0.1', port, path: '/health', host: `app.${zone}` },
    });
    members.push({ value: `192.0.2.${i + 1}`, checkId: made.createSteeringCheck.id });
  }
  await svc.graphql(CREATE_RRSET, { z: zone, i: { owner: 'app', type: 'A', pools: [{ members }], backup: ['203.0.113.1'] } });
}

/** one step: the API read and the probes seen for STEP_S, the CPU over it */
async function measure(svc, endpoints, label, checks, probers) {
  log(`${label}: measuring for ${STEP_S} s`);
  const from = Date.now();
  const until = from + STEP_S * 1000;
  const cpuBefore = processTimes();
  const loadBefore = os.loadavg();
  const reads = await readWhile(svc, 'z0.steer.bench', until);
  const cpuAfter = processTimes();
  const cpu = cpuBetween(cpuBefore, cpuAfter, svc.pid);
  cpu.probers = probers.reduce((sum, prober) => sum + cpuBetween(cpuBefore, cpuAfter, prober.pid).service, 0);
  const loadAfter = os.loadavg();
  await sleep(1000); // the endpoints' last report
  const inStep = endpoints.probes.filter(([, at]) => at >= from && at < until);
  const byPort = new Map();
  for (const [port, at] of endpoints.probes) {
    if (!byPort.has(port)) byPort.set(port, []);
    byPort.get(port).push(at);
  }
  const lags = [];
  for (const times of byPort.values()) {
    times.sort((a, b) => a - b);
    // each vantage probes each check once an interval: the probe VANTAGES before is the same vantage's
    for (let i = VANTAGES; i < times.length; i++)
      if (times[i] >= from && times[i] < until) lags.push(times[i] - times[i - VANTAGES] - INTERVAL_S * 1000);
  }
  const perSecond = new Map();
  for (const [, at] of inStep) perSecond.set(Math.floor(at / 1000), (perSecond.get(Math.floor(at / 1000)) ?? 0) + 1);
  const seconds = [...perSecond.values()];
  const bytesIn = inStep.reduce((sum, p) => sum + p[2], 0);
  const bytesOut = inStep.reduce((sum, p) => sum + p[3], 0);
  const result = {
    label,
    checks,
    probes: inStep.length,
    probesPerSecond: inStep.length / STEP_S,
    busiestSecond: seconds.length ? Math.max(...seconds) : 0,
    lag: lags.length ? stats(lags) : undefined,
    lateOverHalfSecond: lags.filter((l) => l > 500).length,
    api: stats(reads.times),
    apiFailed: reads.failed,
    cpu,
    bytesPerProbe: inStep.length ? { in: bytesIn / inStep.length, out: bytesOut / inStep.length } : undefined,
    load: [loadBefore, loadAfter],
  };
  log(
    `${label}: ${result.probes} probes (${f1(result.probesPerSecond)}/s), lag p99 ${result.lag ? int(result.lag.p99) : '–'} ms, API p99 ${f1(result.api.p99)} ms, service CPU ${f1((100 * cpu.service) / STEP_S)}%, other vantages' CPU ${f1((100 * cpu.probers) / STEP_S)}%`,
  );
  return result;
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  const loadStart = os.loadavg();
  const busyAtStart = await busyProcesses(2000, 0.1).catch(() => []);
  const zones = Math.ceil(CHECKS / PER_ZONE);
  log(`starting ${CHECKS} endpoints`);
  const endpoints = await startEndpoints(CHECKS);
  const logFile = path.join(TMP, 'steering-service.log');
  fs.writeFileSync(logFile, '');
  try {
    const steps = await withDatabase('zk_bench_steering', async (databaseUrl) => {
      const svc = await startService({
        databaseUrl,
        apiKey: API_KEY,
        logFile,
        env: { LOG_LEVEL: 'warn', STEERING_CHECK_INTERVAL: String(INTERVAL_S), STEERING_ALLOW_NETWORKS: '127.0.0.1/32', HEALTH_CHECK_INTERVAL: '0' },
      });
      // the other vantages: a prober process each, on the same database
      const probers = [];
      for (let v = 1; v < VANTAGES; v++)
        probers.push(
          startProcess(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], {
            cwd: ROOT,
            logFile: path.join(TMP, `steering-prober-${v}.log`),
            env: {
              PATH: process.env.PATH,
              HOME: process.env.HOME,
              DATABASE_URL: databaseUrl,
              API_KEY,
              ROLES: 'prober',
              STEERING_VANTAGE: `vantage-${v + 1}`,
              LOG_LEVEL: 'warn',
              STEERING_CHECK_INTERVAL: String(INTERVAL_S),
              STEERING_ALLOW_NETWORKS: '127.0.0.1/32',
            },
          }),
        );
      try {
        const user = await svc.api('POST', '/user/add', { email: 'steering@bench.example' });
        for (let z = 0; z < zones; z++) await svc.api('POST', '/domain/add', { user_id: user.id, zone: `z${z}.steer.bench` });
        const results = [await measure(svc, endpoints, 'no checks', 0, probers)];
        let made = 0;
        for (const target of [Math.min(100, CHECKS), CHECKS]) {
          if (target <= made) continue;
          log(`making checks ${made + 1}–${target}`);
          const started = Date.now();
          for (let z = made / PER_ZONE; z < target / PER_ZONE; z++)
            await steerZone(svc, `z${z}.steer.bench`, endpoints.ports.slice(z * PER_ZONE, (z + 1) * PER_ZONE));
          log(`made in ${((Date.now() - started) / 1000).toFixed(1)} s; settling for two intervals`);
          made = target;
          await sleep(2 * INTERVAL_S * 1000);
          results.push(await measure(svc, endpoints, `${int(made)} checks`, made, probers));
        }
        const states = await svc.graphql(`query { domain(name: "z0.steer.bench") { steeringChecks { status } } }`);
        results.statuses = states.domain.steeringChecks.map((c) => c.status);
        return results;
      } finally {
        for (const prober of probers) await prober.stop();
        await svc.stop();
      }
    });
    write(machine, loadStart, busyAtStart, steps);
    log(`wrote ${path.relative(ROOT, OUT)}`);
  } finally {
    endpoints.stop();
  }
}

function write(m, loadStart, busyAtStart, steps) {
  const procs = (list) => (list.length ? list.slice(0, 4).map((p) => `\`${p.command.slice(0, 60)}\` ${Math.round(p.share * 100)}%`).join('; ') : 'none above 10% of a CPU');
  const load = (l) => l.map((v) => v.toFixed(2)).join(' / ');
  const quiet = steps[0];
  const full = steps[steps.length - 1];
  const lagMet = full.lag && full.lag.p99 < TARGET_LAG_P99_MS;
  const rows = steps
    .map(
      (s) =>
        `| ${s.label} | ${int(s.probes)} (${f1(s.probesPerSecond)}/s; busiest second ${s.busiestSecond}) | ${s.lag ? `${int(s.lag.p50)} / ${int(s.lag.p99)} / ${int(s.lag.max)}` : '–'} | ${s.lateOverHalfSecond} | ${f1(s.api.p50)} / ${f1(s.api.p99)} / ${f1(s.api.max)} (${s.api.n}, ${s.apiFailed} failed) | ${f1((100 * s.cpu.service) / STEP_S)}% | ${f1((100 * s.cpu.probers) / STEP_S)}% | ${f1((100 * s.cpu.postgres) / STEP_S)}% | ${load(s.load[0])} → ${load(s.load[1])} |`,
    )
    .join('\n');
  const perProbe = full.bytesPerProbe;
  const text = `# Steering's cost (\`npm run bench:steering\`)

Written by bench/steering.js; **do not edit by hand**. How to read it: docs/steering.md, «Cost».

| | |
|---|---|
| date | ${m.date} |
| commit | \`${m.commit.slice(0, 12)}\` (${m.commitSubject})${m.dirty ? ` + ${m.dirty} changed files` : ''} |
| machine | ${m.cpuModel.replace(/ \d+-Core Processor/, '')}, ${m.nproc} CPUs, ${m.memoryGiB.toFixed(1)} GiB, kernel ${m.kernel}, Node ${m.node} |
| other work on the machine | before the run: ${procs(busyAtStart)} |
| run | \`STEERING_CHECKS=${CHECKS} STEERING_STEP_S=${STEP_S} STEERING_VANTAGES=${VANTAGES} node bench/steering.js\` |
| load average (1 / 5 / 15 min) | ${load(loadStart)} at the start |

The service: \`npm run serve\`, every role, \`STEERING_CHECK_INTERVAL=${INTERVAL_S}\`, the other \`STEERING_*\` settings at their
defaults; ${VANTAGES} vantage${VANTAGES === 1 ? '' : 's'}: the service's own${VANTAGES > 1 ? ` and ${VANTAGES - 1} prober process${VANTAGES > 2 ? 'es' : ''} (\`ROLES=prober\`) of ${VANTAGES > 2 ? 'their' : 'its'} own, so that each check is probed ${VANTAGES} times an interval and decided by the quorum` : ''}. ${CHECKS} HTTP endpoints on ports of 127.0.0.1 (one small Node server process), each the target of one
check; ${PER_ZONE} checks a zone, one steered A RRset a zone following them; every check passes (no transition: the
steady state). Each step is measured for ${STEP_S} s after the new checks' first probes settled (two intervals). The
API: one client reading one zone over REST (\`GET /api/domain/list/zone/<zone>\`), sequential, every ${READ_EVERY_MS} ms.
PostgreSQL, the endpoints, the bench and whatever else ran share the ${m.nproc} CPUs.

| step | probes in the step | scheduling lag p50 / p99 / max ms | probes > 0.5 s late | API read p50 / p99 / max ms (n) | service CPU | other vantages' CPU | PostgreSQL CPU | load average |
|---|---|---|---:|---|---:|---:|---:|---|
${rows}

- scheduling lag with ${int(full.checks)} checks: p99 **${full.lag ? int(full.lag.p99) : '–'} ms**; target < ${TARGET_LAG_P99_MS} ms: **${lagMet ? 'met' : 'missed'}**
- the API's p99: ${f1(quiet.api.p99)} ms without checks, **${f1(full.api.p99)} ms** with ${int(full.checks)} (×${f1(full.api.p99 / quiet.api.p99)})
- the checks of one zone after the run: ${Object.entries(steps.statuses.reduce((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {}))
    .map(([s, n]) => `${n} ${s}`)
    .join(', ')}

## Probe traffic

${perProbe ? `Each probe is one TCP connection (opened, one GET, closed): ${int(perProbe.in)} bytes from the prober and ${int(perProbe.out)} bytes
back, TCP payload (measured at the endpoints). ${int(full.checks)} checks at ${INTERVAL_S} s: ${int(full.checks)} connections and
${int((full.checks * (perProbe.in + perProbe.out)) / 1024)} KiB of payload an interval (${f1(full.probesPerSecond)} probes a second).` : 'No probes were seen.'}
`;
  fs.writeFileSync(OUT, text);
}

if (process.argv[2] === '--endpoints') runEndpoints(Number(process.argv[3]));
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
