#!/usr/bin/env node
/**
 * Zone health at scale (`npm run bench:health`): how many zones the worker's health duty checks an hour, what a
 * check costs (DNS questions, CPU of the service and of PostgreSQL) and what the API's latency is meanwhile.
 *
 * - a DNS tree of its own at port 53 of loopback addresses 127.0.54.x (the test's tree is at 127.0.53.x, so the
 *   two can run side by side): Knot as the root (.1) delegating `hb.` to Knot as the TLD (.2), which delegates
 *   every zone to two Knot secondaries (.11, .12), named ns1.nic.hb and ns2.nic.hb (addresses in the TLD zone)
 * - HEALTH_ZONES zones (default 10,000) seeded by bulk SQL as the API would have written them (SOA, the two NS),
 *   served by both secondaries from zone files with the same serial, and HEALTH_SIGNED zones (default 100) made
 *   through the API and signed by the service (enableDnssec), which both secondaries transfer from the service's
 *   primary (TSIG) and whose DS the TLD publishes: every zone is healthy, each check asks what a real one asks
 * - the service runs as `npm run serve` (bench/lib/service.js), every role, HEALTH_ROOT_HINTS the bench's root; the
 *   seeded zones' schedule rows are made a day out, then every zone is made due at once: the worker drains the
 *   backlog at its full rate (HEALTH_ZONES_AT_ONCE at a time), the bench counts checked zones every second
 * - before and during the drain one client reads one zone over REST (`GET /api/domain/list/zone/<zone>`,
 *   sequential, one request every READ_EVERY_MS): p50 / p99 quiet and under the checks
 * - DNS questions are counted by the servers themselves (Knot's mod-stats), CPU from /proc
 * Writes bench/RESULTS-health.md with the machine, the date and the load average (the machine is shared).
 * HEALTH_ZONES, HEALTH_SIGNED, HEALTH_ZONES_AT_ONCE, HEALTH_MAX_DRAIN_S, HEALTH_QUIET_S change the run; BENCH_PROFILE=1
 * profiles the service (--cpu-prof into bench/.tmp).
 * Needs root (port 53), knotd, PostgreSQL on BENCH_ADMIN_URL (default postgresql://postgres@127.0.0.1:5432/postgres).
 */
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { randomBytes, randomInt } = require('node:crypto');
const dgram = require('node:dgram');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const dnsPacket = require('dns-packet');
const { Client } = require('pg');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { busyProcesses, cpuBetween, freePort, processTimes, request, sleep } = require('./lib/proc');
const { startService, ROOT } = require('./lib/service');

const ZONES = Number(process.env.HEALTH_ZONES || 10_000);
const SIGNED = Number(process.env.HEALTH_SIGNED ?? 100);
const ZONES_AT_ONCE = process.env.HEALTH_ZONES_AT_ONCE || '50';
/** the drain is cut after this long (then the rate is what was checked so far) */
const MAX_DRAIN_S = Number(process.env.HEALTH_MAX_DRAIN_S || 900);
const QUIET_S = Number(process.env.HEALTH_QUIET_S || 20);
const READ_EVERY_MS = 50;
const TARGET_PER_HOUR = 100_000;
const NET = '127.0.54';
const ROOT_ADDRESS = `${NET}.1`;
const TLD_ADDRESS = `${NET}.2`;
const SECONDARIES = [`${NET}.11`, `${NET}.12`];
const TLD = 'hb';
const NS = ['ns1.nic.hb.', 'ns2.nic.hb.'];
const SERIAL = 2026112601;
const KEY_NAME = 'bench-health-key';
const SECRET = randomBytes(32).toString('base64');
const API_KEY = `zk_bench_${randomBytes(12).toString('hex')}`;
const TMP = path.join(__dirname, '.tmp');
const OUT = path.join(__dirname, 'RESULTS-health.md');
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const stats = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p99: pct(s, 99), max: s[s.length - 1] };
};
const f1 = (v) => (v === undefined || Number.isNaN(v) ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(1));
const int = (v) => Math.round(v).toLocaleString('en-US');

function findBinary(name) {
  for (const dir of [...(process.env.PATH || '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin']) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      /* next */
    }
  }
  throw new Error(`${name} not found: apt-get install -y knot`);
}

/** one UDP question; the decoded answer, or undefined after timeoutMs */
function query(address, name, type, timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    const id = randomInt(0, 65536);
    const timer = setTimeout(() => {
      socket.close();
      resolve(undefined);
    }, timeoutMs);
    socket.on('message', (raw) => {
      if (raw.readUInt16BE(0) !== id) return;
      clearTimeout(timer);
      socket.close();
      try {
        resolve(dnsPacket.decode(raw));
      } catch {
        resolve(undefined);
      }
    });
    socket.send(dnsPacket.encode({ id, type: 'query', flags: 0, questions: [{ name, type, class: 'IN' }] }), 53, address);
  });
}

async function waitFor(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * knotd at `address`:53 serving `files` (zone → file) as they are and transferring `transferred` from the service's
 * primary; mod-stats counts the questions it receives (`questions()`)
 */
async function startKnot(label, address, { files = [], transferred = [], dnsPort } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `zonekeeper-bench-health-${label}-`));
  for (const sub of ['run', 'db', 'transferred']) fs.mkdirSync(path.join(dir, sub));
  const transfers = transferred.length
    ? `key:
  - id: ${KEY_NAME}
    algorithm: hmac-sha256
    secret: ${SECRET}
remote:
  - id: zonekeeper
    address: 127.0.0.1@${dnsPort}
    key: ${KEY_NAME}
`
    : '';
  const config = `server:
    rundir: "${dir}/run"
    listen: ${address}@53
    background-workers: 1
database:
    storage: "${dir}/db"
log:
  - target: stderr
    any: warning
${transfers}mod-stats:
  - id: questions
    request-protocol: on
template:
  - id: default
    global-module: mod-stats/questions
    dnssec-signing: off
    zonefile-load: whole
    zonefile-sync: -1
    journal-content: none
    semantic-checks: off
${
  transferred.length
    ? `  - id: transferred
    master: zonekeeper
    storage: "${dir}/transferred"
    zonefile-load: none
    zonefile-sync: -1
    journal-content: changes
`
    : ''
}zone:
${files.map(([zone, file]) => `  - domain: ${zone}.\n    file: "${file}"`).join('\n')}
${transferred.map((zone) => `  - domain: ${zone}.\n    template: transferred`).join('\n')}
`;
  const configFile = path.join(dir, 'knot.conf');
  fs.writeFileSync(configFile, config);
  let output = '';
  const child = spawn(findBinary('knotd'), ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => (output = (output + d).slice(-20_000)));
  child.stderr.on('data', (d) => (output = (output + d).slice(-20_000)));
  const knotc = (...args) => execFileSync(findBinary('knotc'), ['-c', configFile, ...args], { encoding: 'utf8' });
  return {
    label,
    address,
    pid: child.pid,
    log: () => output,
    /** questions received so far (mod-stats request-protocol, every protocol) */
    questions() {
      try {
        return [...knotc('stats', 'mod-stats.request-protocol').matchAll(/= (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      } catch {
        return NaN;
      }
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        setTimeout(resolve, 5000);
      });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const soaLine = (zone, serial) => `${zone}. 3600 IN SOA ${NS[0]} hostmaster.nic.hb. ${serial} 3600 1800 604800 86400`;

/** the seeded zones, as the API would have written them: the zone, its SOA and two NS; their schedule rows a day out */
async function seed(db, userId, count) {
  await db.query('begin');
  const {
    rows: [{ first }],
  } = await db.query(
    `with ins as (insert into domains (user_id, name, serial, catalog_serial)
       select $1, 'z' || i || '.${TLD}', $3, i from generate_series(1, $2::int) as i returning id)
     select min(id) as first from ins`,
    [userId, count, SERIAL],
  );
  await db.query(
    `insert into records (domain_id, owner, type, rdata, ttl)
     select d.id, x.owner, x.type, x.rdata, 3600
       from domains d cross join (values (1, '@', 'SOA', $2::text), (2, '@', 'NS', $3::text), (3, '@', 'NS', $4::text)) as x(n, owner, type, rdata)
      where d.id >= $1 order by d.id, x.n`,
    [first, `${NS[0]} hostmaster.nic.hb. ${SERIAL} 3600 1800 604800 86400`, NS[0], NS[1]],
  );
  await db.query(`insert into zone_health (domain_id, next_check_at) select id, now() + interval '1 day' from domains where id >= $1`, [
    first,
  ]);
  await db.query('commit');
  for (const table of ['domains', 'records', 'zone_health']) await db.query(`vacuum analyze ${table}`);
  await db.query('checkpoint');
}

/** sequential reads of one zone, one every READ_EVERY_MS, until stop(): their latencies (ms) */
function reader(svc, zone) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  let failures = 0;
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const t0 = process.hrtime.bigint();
      const res = await request('GET', `${svc.base}/api/domain/list/zone/${zone}`, { headers: svc.headers, agent });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (res.status !== 200) failures++;
      else times.push(ms);
      await sleep(Math.max(0, READ_EVERY_MS - ms));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
      agent.destroy();
      return { ...stats(times), failures };
    },
  };
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  const loadStart = os.loadavg();
  const busyAtStart = await busyProcesses(2000, 0.1).catch(() => []);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-bench-health-zones-'));
  const servers = [];
  const seededZones = Array.from({ length: ZONES }, (_, i) => `z${i + 1}.${TLD}`);
  const signedZones = Array.from({ length: SIGNED }, (_, i) => `s${i + 1}.${TLD}`);
  try {
    const result = await withDatabase('zk_bench_health', async (databaseUrl) => {
      const dnsPort = await freePort();
      const svc = await startService({
        databaseUrl,
        apiKey: API_KEY,
        logFile: path.join(TMP, 'health.log'),
        // BENCH_PROFILE=1: the service under --cpu-prof, its profile in bench/.tmp (the whole run, set-up included)
        nodeArgs: process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${TMP}`] : [],
        env: {
          LOG_LEVEL: 'warn',
          ROLES: 'api,dns,worker',
          DNS_LISTEN: `127.0.0.1:${dnsPort}`,
          TSIG_KEY: `${KEY_NAME}:hmac-sha256:${SECRET}`,
          DEFAULT_NS: NS.join(','),
          DEFAULT_SOA_MNAME: NS[0],
          DEFAULT_SOA_RNAME: 'hostmaster.nic.hb.',
          DEFAULT_WWW_CNAME: 'off',
          HEALTH_ROOT_HINTS: ROOT_ADDRESS,
          HEALTH_ALLOW_NETWORKS: `${NET}.0/24`,
          HEALTH_ZONES_AT_ONCE: ZONES_AT_ONCE,
          ...(process.env.HEALTH_QUERY_TIMEOUT_MS ? { HEALTH_QUERY_TIMEOUT_MS: process.env.HEALTH_QUERY_TIMEOUT_MS } : {}),
        },
      });
      const db = new Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        const { createUser } = await svc.graphql('mutation { createUser(input: {email: "health@bench.test"}) { id } }');
        // the signed zones through the API: the service signs them, the secondaries transfer them, the TLD gets their DS
        const ds = [];
        for (const zone of signedZones) {
          await svc.graphql('mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }', {
            u: createUser.id,
            z: zone,
          });
          const signed = await svc.graphql('mutation($z: String!) { enableDnssec(input: {zone: $z}) { ds } }', { z: zone });
          ds.push(...signed.enableDnssec.ds.map((d) => `${zone}. 3600 IN DS ${d}`));
        }
        // no check before the tree is up: the signed zones' first checks (adopted within a tick) put a day out
        await waitFor('the signed zones to be adopted', async () => {
          const [{ n }] = (await db.query(`select count(*)::int as n from zone_health`)).rows;
          return n >= SIGNED;
        });
        await db.query(`update zone_health set next_check_at = now() + interval '1 day'`);
        const t0 = Date.now();
        await seed(db, Number(createUser.id), ZONES);
        log(`${SIGNED} signed zones through the API, ${ZONES} zones seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

        // the tree: zone files of the root, the TLD and every seeded zone
        fs.writeFileSync(
          path.join(dir, 'root.zone'),
          [
            `. 3600 IN SOA a.root.hb. hostmaster.nic.hb. 1 3600 600 86400 60`,
            `. 3600 IN NS a.root-servers.bench.`,
            `a.root-servers.bench. 3600 IN A ${ROOT_ADDRESS}`,
            `${TLD}. 3600 IN NS ns.nic.${TLD}.`,
            `ns.nic.${TLD}. 3600 IN A ${TLD_ADDRESS}`,
            '',
          ].join('\n'),
        );
        const tldLines = [
          `${TLD}. 3600 IN SOA ns.nic.${TLD}. hostmaster.nic.${TLD}. 1 3600 600 86400 60`,
          `${TLD}. 3600 IN NS ns.nic.${TLD}.`,
          `ns.nic.${TLD}. 3600 IN A ${TLD_ADDRESS}`,
          ...NS.map((ns, i) => `${ns} 3600 IN A ${SECONDARIES[i]}`),
          ...[...seededZones, ...signedZones].flatMap((zone) => NS.map((ns) => `${zone}. 3600 IN NS ${ns}`)),
          ...ds,
        ];
        fs.writeFileSync(path.join(dir, 'tld.zone'), `${tldLines.join('\n')}\n`);
        fs.mkdirSync(path.join(dir, 'zones'));
        const files = seededZones.map((zone) => {
          const file = path.join(dir, 'zones', `${zone}.zone`);
          fs.writeFileSync(file, `${soaLine(zone, SERIAL)}\n${NS.map((ns) => `${zone}. 3600 IN NS ${ns}`).join('\n')}\n`);
          return [zone, file];
        });
        servers.push(await startKnot('root', ROOT_ADDRESS, { files: [['', path.join(dir, 'root.zone')]] }));
        servers.push(await startKnot('tld', TLD_ADDRESS, { files: [[TLD, path.join(dir, 'tld.zone')]] }));
        for (const [i, address] of SECONDARIES.entries())
          servers.push(await startKnot(`ns${i + 1}`, address, { files, transferred: signedZones, dnsPort }));
        const answers = async (address, zone, type) => {
          const answer = await query(address, `${zone}.`, type);
          return answer?.rcode === 'NOERROR' && answer.answers.some((a) => a.type === type);
        };
        await waitFor(
          'the root and the TLD',
          async () => (await answers(ROOT_ADDRESS, '', 'SOA')) && (await answers(TLD_ADDRESS, TLD, 'SOA')),
        );
        for (const address of SECONDARIES)
          for (const zone of [seededZones[0], seededZones[ZONES - 1], ...signedZones])
            await waitFor(`${address} to serve ${zone}`, () => answers(address, zone, 'SOA'), 300_000);
        log(`Knot serves the tree (${ZONES + SIGNED} zones at each secondary)`);

        // the worker idle (every zone's check a day out), then a quiet measure of the API; the drain starts more than
        // a check round (30 s) after the last check that may have run before the tree was up (a round remembers the
        // servers that did not answer)
        await db.query(`update zone_health set next_check_at = now() + interval '1 day'`);
        await sleep(3000);
        const readZone = seededZones[Math.floor(ZONES / 2)];
        const warm = reader(svc, readZone);
        await sleep(10_000);
        await warm.stop();
        log(`quiet: reading ${readZone} for ${QUIET_S} s`);
        let reads = reader(svc, readZone);
        await sleep(QUIET_S * 1000);
        const quiet = await reads.stop();
        log(`quiet reads p50 ${f1(quiet.p50)} ms, p99 ${f1(quiet.p99)} ms`);

        // every zone due at once: the worker drains the backlog at its full rate
        const total = ZONES + SIGNED;
        const questionsBefore = servers.map((s) => s.questions());
        const timesBefore = processTimes();
        const loadBefore = os.loadavg();
        reads = reader(svc, readZone);
        const at = (await db.query(`update zone_health set next_check_at = now() returning now() as at`)).rows[0].at;
        const started = process.hrtime.bigint();
        const progress = [];
        let checked = 0;
        let seconds = 0;
        while (checked < total && seconds < MAX_DRAIN_S) {
          await sleep(1000);
          checked = Number((await db.query(`select count(*) as n from zone_health where checked_at >= $1`, [at])).rows[0].n);
          seconds = Number(process.hrtime.bigint() - started) / 1e9;
          progress.push([seconds, checked]);
          if (progress.length % 10 === 0) log(`${checked} of ${total} checked in ${seconds.toFixed(0)} s`);
        }
        const during = await reads.stop();
        const timesAfter = processTimes();
        const questionsAfter = servers.map((s) => s.questions());
        const loadAfter = os.loadavg();
        const cpu = cpuBetween(timesBefore, timesAfter, svc.pid);
        const knotCpu = servers.reduce((sum, s) => sum + ((timesAfter.get(s.pid)?.cpu ?? 0) - (timesBefore.get(s.pid)?.cpu ?? 0)), 0);
        const states = (await db.query(`select state, count(*)::int as n from zone_health group by state order by state`)).rows;
        const findings = (
          await db.query(`select code, severity, count(*)::int as n from zone_health_findings group by 1, 2 order by 3 desc`)
        ).rows;
        const questions = servers.map((s, i) => ({ label: s.label, n: questionsAfter[i] - questionsBefore[i] }));
        // where the next checks fall: spread over the interval (HEALTH_CHECK_INTERVAL, an hour), or back together
        const minutes = (
          await db.query(
            `select floor(extract(epoch from next_check_at - now()) / 60)::int as minute, count(*)::int as n from zone_health group by 1`,
          )
        ).rows;
        const busiestMinute = Math.max(...minutes.map((m) => m.n));
        const spread = { busiestMinute, mean: total / 60, minutes: minutes.length };
        // the steady part of the drain: from the first 10% of the zones to 90% (the start and the tail aside)
        const at10 = progress.find(([, n]) => n >= total * 0.1);
        const at90 = progress.find(([, n]) => n >= total * 0.9);
        const steady = at10 && at90 && at90[0] > at10[0] ? (at90[1] - at10[1]) / (at90[0] - at10[0]) : undefined;
        log(
          `${checked} zones checked in ${seconds.toFixed(1)} s: ${int((checked / seconds) * 3600)} an hour; reads p50 ${f1(during.p50)} ms, p99 ${f1(during.p99)} ms`,
        );
        return {
          spread,
          checked,
          total,
          seconds,
          steady,
          quiet,
          during,
          cpu,
          knotCpu,
          questions,
          states,
          findings,
          loadBefore,
          loadAfter,
          readZone,
        };
      } finally {
        await db.end();
        await svc.stop();
      }
    });
    write(machine, loadStart, busyAtStart, result);
    log(`written ${path.relative(ROOT, OUT)}`);
  } catch (error) {
    for (const s of servers) process.stderr.write(`${s.label} log:\n${s.log().slice(-3000)}\n`);
    throw error;
  } finally {
    for (const s of servers) await s.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function write(m, loadStart, busyAtStart, r) {
  const perHour = (r.checked / r.seconds) * 3600;
  const steadyPerHour = r.steady === undefined ? undefined : r.steady * 3600;
  const allQuestions = r.questions.reduce((sum, q) => sum + q.n, 0);
  const perZone = allQuestions / r.checked;
  const serviceMsPerZone = (1000 * r.cpu.service) / r.checked;
  const postgresMsPerZone = (1000 * r.cpu.postgres) / r.checked;
  const knotMsPerZone = (1000 * r.knotCpu) / r.checked;
  // at the target's pace (100,000 an hour, 27.8 zones a second), the share of one core each takes
  const share = (msPerZone) => `${((msPerZone * TARGET_PER_HOUR) / 3600 / 10).toFixed(1)}%`;
  const procs = (list) =>
    list.length ? list.map((p) => `\`${p.command.replace(/\|/g, '\\|').slice(0, 60)}\` ${(100 * p.share).toFixed(0)}%`).join('; ') : 'none';
  const load = (l) => l.map((v) => v.toFixed(2)).join(' / ');
  const out = `# Zone health at scale (\`npm run bench:health\`)

Written by bench/health.js; **do not edit by hand**. How to read it: bench/FINDINGS.md, «Zone health at scale», and
docs/health.md, «Cost».

| | |
|---|---|
| date | ${m.date} |
| commit | \`${m.commit.slice(0, 12)}\` (${m.commitSubject})${m.dirty ? `, ${m.dirty} changed files` : ''} |
| machine | ${m.cpuModel}, ${m.nproc} CPUs, ${m.memoryGiB.toFixed(1)} GiB, kernel ${m.kernel}, Node ${m.node} |
| other work on the machine | before the run: ${procs(busyAtStart)} |
| run | \`${['HEALTH_ZONES', 'HEALTH_SIGNED', 'HEALTH_ZONES_AT_ONCE', 'HEALTH_QUERY_TIMEOUT_MS', 'BENCH_PROFILE']
    .filter((k) => process.env[k])
    .map((k) => `${k}=${process.env[k]} `)
    .join('')}node bench/health.js\` |
| load average (1 / 5 / 15 min) | ${load(loadStart)} at the start; ${load(r.loadBefore)} when the checks began; ${load(r.loadAfter)} when they ended |

The tree: Knot as the root (${ROOT_ADDRESS}) and the TLD \`${TLD}.\` (${TLD_ADDRESS}), two Knot secondaries (${SECONDARIES.join(', ')}) serving
${int(ZONES)} unsigned zones (seeded by SQL, served from zone files with the same serial) and ${SIGNED} zones signed by the
service (enableDnssec; transferred from its primary; their DS at the TLD), all at port 53. The service: \`npm run serve\`,
every role, \`HEALTH_ZONES_AT_ONCE=${ZONES_AT_ONCE}\`, the other \`HEALTH_*\` settings at their defaults. Every zone was
made due at once; the worker drained the backlog at its full rate while one client read one zone over REST
(\`GET /api/domain/list/zone/${r.readZone}\`, one request every ${READ_EVERY_MS} ms, sequential). PostgreSQL, Knot, the
bench and whatever else ran share the ${m.nproc} CPUs.

## Rate

| | |
|---|---|
| zones checked | ${int(r.checked)} of ${int(r.total)} in ${r.seconds.toFixed(1)} s${r.checked < r.total ? ` (**cut after ${MAX_DRAIN_S} s**)` : ''} |
| rate, whole drain | **${int(perHour)} zones an hour** (${(r.checked / r.seconds).toFixed(1)} a second) |
| rate, 10% → 90% of the drain | ${steadyPerHour === undefined ? '–' : `${int(steadyPerHour)} zones an hour`} |
| target | ${int(TARGET_PER_HOUR)} an hour: **${perHour >= TARGET_PER_HOUR ? 'met' : 'missed'}** (${(perHour / TARGET_PER_HOUR).toFixed(1)}×) |
| zones by state after the drain | ${r.states.map((s) => `${s.state} ${int(s.n)}`).join(', ')} |
| the next checks | over ${r.spread.minutes} distinct minutes; the busiest minute holds ${int(r.spread.busiestMinute)} zones (${(r.spread.busiestMinute / r.spread.mean).toFixed(1)}× an even spread's ${int(r.spread.mean)} a minute) |
| findings | ${r.findings.length ? r.findings.map((f) => `${f.code} (${f.severity}) ${f.n}`).join(', ') : 'none'} |

## Cost per zone

| | |
|---|---|
| DNS questions received, per zone checked | **${f1(perZone)}** (${r.questions.map((q) => `${q.label} ${int(q.n)}`).join(', ')}; counted by Knot's mod-stats) |
| CPU of the service | ${r.cpu.service.toFixed(1)} s over ${r.seconds.toFixed(1)} s (${((100 * r.cpu.service) / r.seconds).toFixed(0)}% of one core): **${f1(serviceMsPerZone)} ms a zone** |
| CPU of PostgreSQL | ${r.cpu.postgres.toFixed(1)} s: ${f1(postgresMsPerZone)} ms a zone |
| CPU of the four Knot servers | ${r.knotCpu.toFixed(1)} s: ${f1(knotMsPerZone)} ms a zone |
| at ${int(TARGET_PER_HOUR)} zones an hour (27.8 a second), of one core | service ${share(serviceMsPerZone)}, PostgreSQL ${share(postgresMsPerZone)} |

## The API meanwhile

| reads of one zone | n | p50 ms | p99 ms | max ms | failed |
|---|---:|---:|---:|---:|---:|
| quiet (no check due), ${QUIET_S} s | ${r.quiet.n} | ${f1(r.quiet.p50)} | ${f1(r.quiet.p99)} | ${f1(r.quiet.max)} | ${r.quiet.failures} |
| during the drain (the worker at full rate) | ${r.during.n} | ${f1(r.during.p50)} | ${f1(r.during.p99)} | ${f1(r.during.max)} | ${r.during.failures} |

The drain is the worst case: the worker runs as fast as it can. At ${int(TARGET_PER_HOUR)} zones an hour spread over
the interval it runs ${steadyPerHour ? `${((100 * TARGET_PER_HOUR) / steadyPerHour).toFixed(0)}% of` : 'a fraction of'} that time.
`;
  fs.writeFileSync(OUT, out);
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error.stack || error}\n`);
  process.exit(1);
});
