#!/usr/bin/env node
/**
 * The cost of views (`npm run bench:views`; docs/views.md).
 *
 * a. What a base change costs in a zone with views: `POST /api/record/add` of a new owner (an A record) into
 *    zones with no view's zone and into zones with 3 views' zones, each view overlaying one RRset of its own
 *    (the write touches another, so the write engine's statement steps every view's serial with the base's); at
 *    concurrency 1 and 16, each case over ZONES zones, a warm-up unmeasured first. The same for signed zones
 *    (ECDSAP256SHA256, NSEC), where each step also signs every view's zone again. p50 / p99 and writes a second,
 *    and the ratio views ÷ no views (the aim: a zone with 3 views costs at most 3× one without). After each
 *    views case, each view's serial of one zone is read by its key: it must have stepped with the base.
 * b. Serving at flat cost: 3 views (each its own TSIG key) overlaying one RRset each in every zone; SOA queries
 *    signed with each view's key and unsigned, and AXFRs signed with a view's key, against the same 10 zones × 3
 *    views, with 10 zones in the database and then with 1,000. The queries are the service's own DNS client
 *    (dist/src/dns-client: the SOA over UDP, the AXFR over TCP, each request TSIG-signed and its answer's TSIG
 *    verified), one at a time. Each answer is checked: a view's SOA has the view's serial, an unsigned one the
 *    base's, a view's AXFR holds the view's own record and not the base's.
 *
 * The service runs as `npm run serve` (bench/lib/service.js) with ROLES=api,dns (the write and the primary; no
 * worker: no view here has secondaries to NOTIFY). Zones, keys, views and overlays are made through the API as
 * an operator makes them, several requests at a time. Writes bench/RESULTS-views.md with the machine, the date
 * and the load average before and after. BENCH_QUICK=1 shortens the runs (numbers not for comparison);
 * BENCH_VIEWS_ZONES changes the large zone count (1,000). Needs PostgreSQL on BENCH_ADMIN_URL and a build.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { withDatabase } = require('./lib/database');
const { load } = require('./lib/load');
const { machineInfo } = require('./lib/machine');
const { busyProcesses, sleep } = require('./lib/proc');
const { startService, ROOT } = require('./lib/service');

const QUICK = Boolean(process.env.BENCH_QUICK);
const SECONDS = QUICK ? 3 : 8;
const WARMUP_SECONDS = QUICK ? 1 : 2;
const ZONES = 16;
const VIEWS = ['inside', 'lab', 'partner'];
const LARGE = Number(process.env.BENCH_VIEWS_ZONES || 1_000);
const SAMPLE_ZONES = 10;
const SOA_PER_VIEW = QUICK ? 5 : 30;
const AXFR_PER_VIEW = QUICK ? 2 : 8;
const SEED_CONCURRENCY = 8;
const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const TMP = path.join(__dirname, '.tmp');
const OUT = path.join(__dirname, 'RESULTS-views.md');
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const stats = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p99: pct(s, 99), max: s[s.length - 1] };
};
const f2 = (v) => (v === undefined || Number.isNaN(v) ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(1));

// the service's own DNS client, as built
const { primarySoa, axfr } = require(path.join(ROOT, 'dist', 'src', 'dns-client', 'zone-transfer-in.js'));

/** runs `task` over `items`, `concurrency` at a time */
async function pool(items, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

const SET_OVERLAY = (alias, zone, view, owner, rdata) =>
  `${alias}: setViewOverlay(zone: "${zone}", view: "${view}", owner: "${owner}", type: "A", action: REPLACE, records: [{ rdata: "${rdata}", ttl: 300 }])`;

/** a view's own address for a zone: distinct per view and zone, so a leak of another view's would show */
const viewAddress = (v, z) => `10.${v + 1}.${(z >> 8) & 255}.${z & 255}`;

/**
 * zones `<prefix><i>.<suffix>` from `from` to `to`, each with one base A RRset per view (`v<k>`, the base's
 * address) and, when `views`, each view replacing its own one: three overlays in one GraphQL document a zone
 */
async function makeZones(svc, userId, prefix, suffix, from, to, { views = true, dnssec = false } = {}) {
  const zones = [];
  for (let z = from; z < to; z++) zones.push({ z, zone: `${prefix}${z}.${suffix}` });
  await pool(zones, SEED_CONCURRENCY, async ({ z, zone }) => {
    await svc.api('POST', '/domain/add', { user_id: userId, zone });
    const text = `$ORIGIN ${zone}.\n${VIEWS.map((_, k) => `v${k} 300 IN A 192.0.2.${k + 1}`).join('\n')}\n`;
    await svc.graphql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`, { z: zone, t: text });
    if (dnssec)
      await svc.graphql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { enabled } }`, { i: { zone, denial: 'NSEC' } });
    if (views)
      await svc.graphql(`mutation { ${VIEWS.map((v, k) => SET_OVERLAY(`o${k}`, zone, v, `v${k}`, viewAddress(k, z))).join(' ')} }`);
  });
  return zones.map((x) => x.zone);
}

/** one write case: warm-up, then the measured load; throws on any answer but 201 */
let runCount = 0;
async function writeCase(svc, name, zones, connections) {
  let n = 0;
  const run = ++runCount; // each run's owners its own
  const body = (tag) => () => {
    n++;
    return JSON.stringify({ zone: zones[n % zones.length], owner: `${tag}${n}`, rtype: 'A', ttl: '3600', rdata: `198.51.100.${n % 250}` });
  };
  const common = {
    url: `${svc.base}/api/record/add`,
    method: 'POST',
    connections,
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    check: (status) => status === 201,
  };
  await load({ ...common, duration: WARMUP_SECONDS, next: body(`warm${run}x`) });
  log(`${name}, c${connections}: ${SECONDS} s`);
  const result = await load({ ...common, duration: SECONDS, next: body(`w${run}x`) });
  if (result.bad || result.errors || result.non2xx)
    throw new Error(`${name} c${connections}: ${result.bad + result.non2xx} bad answers (${result.badExample ?? 'connection errors'})`);
  log(`  ${result.rps.toFixed(0)} writes/s, p50 ${result.p50} ms, p99 ${result.p99} ms`);
  // autocannon stops without waiting for the writes still in flight: let them land before the next reading
  await sleep(1000);
  return { name, connections, ...result };
}

/** two runs of one case as one: writes/s over both, the mean of their p50s, the larger p99 */
const merged = (a, b) => ({
  runs: [a, b],
  requests: a.requests + b.requests,
  seconds: a.seconds + b.seconds,
  rps: (a.requests + b.requests) / (a.seconds + b.seconds),
  p50: (a.p50 + b.p50) / 2,
  p99: Math.max(a.p99, b.p99),
});

/** each view's serial of a zone, as the primary answers an SOA query signed with the view's key */
async function viewSerials(svc, keys, zone) {
  const serials = [];
  for (const key of keys) serials.push((await primarySoa({ host: '127.0.0.1', port: svc.dnsPort, key }, zone)).serial);
  return serials;
}

/** part a: no views against 3 views, unsigned and signed, c1 and c16 */
async function writes(svc, userId, keys) {
  const groups = [
    { label: 'unsigned', dnssec: false },
    { label: 'signed (NSEC)', dnssec: true },
  ];
  const out = [];
  for (const g of groups) {
    log(`part a, ${g.label}: making ${ZONES} zones without views and ${ZONES} with 3 views`);
    const tag = g.dnssec ? 's' : 'u';
    const plain = await makeZones(svc, userId, `${tag}p`, 'writes.bench', 0, ZONES, { views: false, dnssec: g.dnssec });
    const viewed = await makeZones(svc, userId, `${tag}v`, 'writes.bench', 0, ZONES, { views: true, dnssec: g.dnssec });
    for (const connections of [1, 16]) {
      // no views, 3 views, 3 views, no views: the machine's drift and a case's place in the run fall on both sides
      const noneFirst = await writeCase(svc, `${g.label}, no views`, plain, connections);
      const before = await viewSerials(svc, keys, viewed[0]);
      const baseBefore = (await primarySoa({ host: '127.0.0.1', port: svc.dnsPort }, viewed[0])).serial;
      const threeFirst = await writeCase(svc, `${g.label}, 3 views`, viewed, connections);
      const after = await viewSerials(svc, keys, viewed[0]);
      const baseAfter = (await primarySoa({ host: '127.0.0.1', port: svc.dnsPort }, viewed[0])).serial;
      const three = merged(threeFirst, await writeCase(svc, `${g.label}, 3 views`, viewed, connections));
      const none = merged(noneFirst, await writeCase(svc, `${g.label}, no views`, plain, connections));
      // every base change touched an RRset no view overlays: each view's serial stepped with it
      if (after.some((s, i) => s <= before[i]))
        throw new Error(`${g.label} c${connections}: a view's serial did not step (${before} → ${after})`);
      out.push({ group: g.label, connections, none, three, serials: { zone: viewed[0], before, after, baseBefore, baseAfter } });
    }
  }
  return out;
}

/** part b: the sample's queries, one at a time; each answer checked */
async function serve(svc, keys, sample, base) {
  const server = (key) => ({ host: '127.0.0.1', port: svc.dnsPort, key });
  const times = { soaView: [], soaUnsigned: [], axfrView: [] };
  let wrong = 0;
  let wrongExample;
  const miss = (what) => {
    wrong++;
    wrongExample ??= what;
  };
  const timed = async (list, task) => {
    const started = process.hrtime.bigint();
    const result = await task();
    list.push(Number(process.hrtime.bigint() - started) / 1e6);
    return result;
  };
  let axfrRecords = 0;
  for (let round = 0; round < SOA_PER_VIEW; round++)
    for (const { zone, z } of sample) {
      for (const [k, key] of keys.entries()) {
        const soa = await timed(times.soaView, () => primarySoa(server(key), zone));
        if (soa.serial !== base.get(zone).views[k])
          miss(`SOA ${zone} by ${key.name}: ${soa.serial}, not the view's ${base.get(zone).views[k]}`);
        const unsigned = await timed(times.soaUnsigned, () => primarySoa(server(), zone));
        if (unsigned.serial !== base.get(zone).base)
          miss(`SOA ${zone} unsigned: ${unsigned.serial}, not the base's ${base.get(zone).base}`);
        if (round >= AXFR_PER_VIEW) continue;
        const zoneOfView = await timed(times.axfrView, () => axfr(server(key), zone));
        axfrRecords = zoneOfView.records.length + 1;
        const own = zoneOfView.records.filter((r) => r.owner === `v${k}` && r.type === 'A').map((r) => r.rdata);
        if (own.length !== 1 || own[0] !== viewAddress(k, z)) miss(`AXFR ${zone} by ${key.name}: v${k} A is ${own.join(',') || 'absent'}`);
      }
    }
  return {
    soaView: stats(times.soaView),
    soaUnsigned: stats(times.soaUnsigned),
    axfrView: stats(times.axfrView),
    wrong,
    wrongExample,
    axfrRecords,
  };
}

/** what each sampled zone's SOA should be: the base's serial (the API's) and each view's (viewZone) */
async function expectedSerials(svc, sample) {
  const out = new Map();
  for (const { zone } of sample) {
    const views = [];
    for (const v of VIEWS) views.push((await svc.graphql(`query { viewZone(zone: "${zone}", view: "${v}") { serial } }`)).viewZone.serial);
    const soa = (await svc.graphql(`query { domain(name: "${zone}") { serial } }`)).domain.serial;
    out.set(zone, { base: Number(soa), views: views.map(Number) });
  }
  return out;
}

async function serving(svc, userId, keys) {
  const out = [];
  const suffix = 'serve.bench';
  log(`part b: ${SAMPLE_ZONES} zones × ${VIEWS.length} views`);
  let started = Date.now();
  await makeZones(svc, userId, 'z', suffix, 0, SAMPLE_ZONES);
  const sample = Array.from({ length: SAMPLE_ZONES }, (_, z) => ({ z, zone: `z${z}.${suffix}` }));
  const base = await expectedSerials(svc, sample);
  out.push({ zones: SAMPLE_ZONES, seededSeconds: (Date.now() - started) / 1000, ...(await serve(svc, keys, sample, base)) });
  log(`  SOA by a view's key p50 ${f2(out[0].soaView.p50)} ms, AXFR p50 ${f2(out[0].axfrView.p50)} ms, ${out[0].wrong} wrong`);
  log(`part b: making zones ${SAMPLE_ZONES}–${LARGE - 1}, each with ${VIEWS.length} overlays`);
  started = Date.now();
  await makeZones(svc, userId, 'z', suffix, SAMPLE_ZONES, LARGE);
  const seededSeconds = (Date.now() - started) / 1000;
  log(`  made in ${seededSeconds.toFixed(0)} s`);
  out.push({ zones: LARGE, seededSeconds, ...(await serve(svc, keys, sample, base)) });
  log(`  SOA by a view's key p50 ${f2(out[1].soaView.p50)} ms, AXFR p50 ${f2(out[1].axfrView.p50)} ms, ${out[1].wrong} wrong`);
  return out;
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  const loadBefore = os.loadavg();
  const busyBefore = await busyProcesses(2000, 0.1).catch(() => []);
  const started = Date.now();
  const result = await withDatabase('zk_bench_views', async (databaseUrl) => {
    const svc = await startService({
      databaseUrl,
      apiKey: API_KEY,
      logFile: path.join(TMP, 'views-service.log'),
      env: { LOG_LEVEL: 'warn', ROLES: 'api,dns', TRANSFER_ALLOW: '127.0.0.1/32' },
    });
    try {
      const keys = [];
      for (const [k, name] of VIEWS.entries()) {
        const made = await svc.graphql(`mutation($i: CreateTsigKeyInput!) { createTsigKey(input: $i) { secret } }`, {
          i: { userId: null, name: `${name}-key`, algorithm: 'hmac-sha256' },
        });
        keys.push({ name: `${name}-key`, algorithm: 'hmac-sha256', secret: Buffer.from(made.createTsigKey.secret, 'base64') });
        const id = (await svc.graphql(`{ tsigKeys { id name } }`)).tsigKeys.find((t) => t.name === `${name}-key`).id;
        await svc.graphql(`mutation($i: ViewInput!) { createView(input: $i) { id } }`, {
          i: { name, tsigKeyId: id, networks: [`10.${k + 1}.0.0/16`], precedence: k },
        });
      }
      const user = await svc.api('POST', '/user/add', { email: 'views@bench.example' });
      return { writes: await writes(svc, user.id, keys), serving: await serving(svc, user.id, keys) };
    } finally {
      await svc.stop();
    }
  });
  write(machine, loadBefore, os.loadavg(), busyBefore, (Date.now() - started) / 1000, result);
  log(`wrote ${path.relative(ROOT, OUT)}`);
  if (result.serving.some((s) => s.wrong)) process.exitCode = 1;
}

function write(m, loadBefore, loadAfter, busyBefore, wallSeconds, r) {
  const load = (l) => l.map((v) => v.toFixed(2)).join(' / ');
  const procs = (list) =>
    list.length
      ? list
          .slice(0, 4)
          .map((p) => `\`${p.command.slice(0, 60)}\` ${Math.round(p.share * 100)}%`)
          .join('; ')
      : 'none above 10% of a CPU';
  const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : '–');
  const writeRows = r.writes
    .map((w) => {
      const cost = w.none.rps / w.three.rps; // time per write, views ÷ no views
      const runs = (c) => c.runs.map((x) => x.rps.toFixed(0)).join(', ');
      return `| ${w.group} | ${w.connections} | ${w.none.rps.toFixed(0)} (${runs(w.none)}) | ${f2(w.none.p50)} / ${w.none.p99} | ${w.three.rps.toFixed(0)} (${runs(w.three)}) | ${f2(w.three.p50)} / ${w.three.p99} | **${cost.toFixed(2)}×** (p50 ${ratio(w.three.p50, w.none.p50)}×, p99 ${ratio(w.three.p99, w.none.p99)}×) | ${cost <= 3 ? 'met' : '**missed**'} |`;
    })
    .join('\n');
  const serialRows = r.writes
    .map(
      (w) =>
        `| ${w.group} | ${w.connections} | ${w.serials.zone} | ${w.serials.baseBefore} → ${w.serials.baseAfter} | ${w.serials.before.map((s, i) => `${s} → ${w.serials.after[i]}`).join('; ')} |`,
    )
    .join('\n');
  const [small, large] = r.serving;
  const kinds = [
    ['SOA signed with the view’s key (UDP)', 'soaView'],
    ['SOA unsigned: the base (UDP)', 'soaUnsigned'],
    ['AXFR signed with the view’s key (TCP)', 'axfrView'],
  ];
  const serveRows = kinds
    .map(
      ([label, key]) =>
        `| ${label} | ${small[key].n} | ${f2(small[key].p50)} / ${f2(small[key].p99)} | ${large[key].n} | ${f2(large[key].p50)} / ${f2(large[key].p99)} | ${ratio(large[key].p50, small[key].p50)}× / ${ratio(large[key].p99, small[key].p99)}× |`,
    )
    .join('\n');
  const text = `# The cost of views (\`npm run bench:views\`)

Written by bench/views.js; **do not edit by hand**. What views are: docs/views.md.

| | |
|---|---|
| date | ${m.date} |
| commit | \`${m.commit.slice(0, 12)}\` (${m.commitSubject})${m.dirty ? ` + ${m.dirty} changed files` : ''} |
| machine | ${m.cpuModel}, ${m.nproc} CPUs, ${m.memoryGiB.toFixed(1)} GiB, kernel ${m.kernel}, Node ${m.node} |
| load average (1 / 5 / 15 min) | ${load(loadBefore)} before, ${load(loadAfter)} after |
| other work on the machine | before the run: ${procs(busyBefore)} |
| whole run | ${wallSeconds.toFixed(0)} s${QUICK ? ' (BENCH_QUICK=1: shortened runs, not for comparison)' : ''} |

The service: \`npm run serve\` with \`ROLES=api,dns\` (no worker: no view here has secondaries to NOTIFY), on one
PostgreSQL shared with the load generator and whatever else ran on the ${m.nproc} CPUs. Three views (${VIEWS.join(', ')}),
each matched by its own TSIG key (hmac-sha256), made through GraphQL as an operator makes them.

## a. A base change in a zone with views

\`POST /api/record/add\` of a new owner (an A record) at concurrency 1 and 16, spread over ${ZONES} zones a case,
each run ${SECONDS} s after ${WARMUP_SECONDS} s of the same load unmeasured (autocannon). Each case runs twice, in the order no views,
3 views, 3 views, no views (the machine's drift falls on both); writes/s is over both runs (each run's in
brackets), p50 the mean of the two runs' p50s, p99 the larger of their p99s. Each zone holds its default records and one
A RRset per view name (\`v0\`–\`v2\`); a zone with views has each view replacing its own one, so every view has a
view's zone there, and a write (to another owner) steps, in the write engine's statement, the serial of each of
the three. Signed: ECDSAP256SHA256 KSK and ZSK, NSEC; each step also re-signs the base's changes and then each
view's zone for its new serial (docs/views.md, «DNSSEC»). Cost = the time a write takes with views ÷ without,
taken from the throughput (writes/s without ÷ with); the aim: at most 3×.

| zones | concurrency | no views: writes/s | p50 / p99 ms | 3 views: writes/s | p50 / p99 ms | cost with 3 views | aim ≤ 3× |
|---|---:|---:|---|---:|---|---|---|
${writeRows}

Each view's serial of one zone with views, read by an SOA query signed with the view's key before and after its
first measured run (every view stepped with the base; the base's serial is that of an unsigned query):

| zones | concurrency | zone | base serial | views' serials (${VIEWS.join(', ')}) |
|---|---:|---|---|---|
${serialRows}

## b. Serving: flat in the number of zones

Every zone has the three views' overlays (one replaced A RRset each), made through GraphQL (three
\`setViewOverlay\` in one document a zone, ${SEED_CONCURRENCY} zones at a time): ${small.zones} zones (made in ${small.seededSeconds.toFixed(0)} s), then
${large.zones.toLocaleString('en-US')} (the other ${(large.zones - small.zones).toLocaleString('en-US')} made in ${large.seededSeconds.toFixed(0)} s). Against the same ${SAMPLE_ZONES} zones × ${VIEWS.length} views each time, one
query at a time from the service's own DNS client (the request TSIG-signed, the answer's TSIG verified):
${SOA_PER_VIEW} rounds of an SOA query signed with each view's key and one unsigned, and ${AXFR_PER_VIEW} AXFRs of each view's zone
by its key (${small.axfrRecords} records a transfer). Every answer checked: a view's SOA carries the view's serial and
an unsigned one the base's; a view's AXFR holds the view's own record of its RRset. Wrong answers: ${small.wrong} with
${small.zones} zones, ${large.wrong} with ${large.zones.toLocaleString('en-US')}${small.wrongExample || large.wrongExample ? ` (first: ${small.wrongExample ?? large.wrongExample})` : ''}.

| query | n (${small.zones} zones) | p50 / p99 ms, ${small.zones} zones | n (${large.zones.toLocaleString('en-US')} zones) | p50 / p99 ms, ${large.zones.toLocaleString('en-US')} zones | ${large.zones.toLocaleString('en-US')} ÷ ${small.zones} (p50 / p99) |
|---|---:|---|---:|---|---|
${serveRows}

The aim is flat: a view's zone is read by its key through indexed look-ups of the zone, the view and its
overlays, so the number of zones should not show. The p99 of a few hundred sequential queries on a shared
machine is the slowest few answers: read the p50 first.
`;
  fs.writeFileSync(OUT, text);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
