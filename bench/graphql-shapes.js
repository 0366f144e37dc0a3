'use strict';
// `npm run bench:graphql-shapes`: every GraphQL shape the console asks for, beside its floor (bench/README.md,
// «The console's GraphQL shapes beside their floors»).
//
// The service is the built one, started as `npm run serve` starts it (bench/lib/service.js), on a database of the
// run's own. Five shapes, each sent as the console sends it (the documents of console/src/operations.graphql,
// with their fragments, and the console's variables):
//   1. the zone page: ZoneRecords, every page of the zone at the largest page the API allows (MAX_PAGE_SIZE,
//      10,000 by default; the console itself asks 1,000 a page), then ZoneDisabledRecords (the console asks no
//      RRset comments on that page);
//   2. the zone list: Zones, the first page of 50 by name, filtered to one account (the console's owner filter);
//   3. a zone's history: ZoneHistory, the newest 20 changes with their records;
//   4. the search: SearchRecords, the first 50 matches with their zones;
//   5. an account's members and keys: Members, then ApiKeys.
// Each at three sizes (1,000, 10,000 and 100,000 records in the zone, zones in the account, changes in the
// history, matches of the search; members and keys stay a small team's: they do not grow), seeded by SQL.
//
// The floor (bench/lib/shapes-floor.js): the same rows read with plain SELECTs of the same tables and columns,
// JSON.stringify, node `http`, in a process of its own, on the same database in the same run. The client asks
// one request at a time, the service's and the floor's in turn (so that the shared host's load, which comes and
// goes, weighs on both alike): a warm-up of 50 each, then 200 each; p50 and p99 of each, and their ratio. A shape
// of several requests (the zone page) counts as one: the sum of its requests' times. Every answer is checked
// (status 200, no `errors`, the expected number of items), the service's and the floor's; one wrong answer ends
// the run with exit code 1. Written to bench/RESULTS-graphql-shapes.md.
//
// BENCH_QUICK=1: sizes 1,000 and 10,000, 5 + 20 requests (for work on the bench itself; not for comparison).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { Client } = require('pg');
const { consoleOperation } = require('./lib/console-operations');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { startService, serveCommand, ROOT } = require('./lib/service');
const { startShapesFloor } = require('./lib/shapes-floor');

const QUICK = process.env.BENCH_QUICK === '1';
// BENCH_SIZES=100000, BENCH_ONLY=zonePage,search: some sizes or shapes alone (work on the bench; not for the results)
const SIZES = process.env.BENCH_SIZES ? process.env.BENCH_SIZES.split(',').map(Number) : QUICK ? [1_000, 10_000] : [1_000, 10_000, 100_000];
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',') : undefined;
const PARTIAL = QUICK || !!process.env.BENCH_SIZES || !!ONLY;
const WARMUP = QUICK ? 5 : 50;
const REQUESTS = QUICK ? 20 : 200;
/** MAX_PAGE_SIZE's default (src/config/settings.ts): the largest page a GraphQL list gives */
const LARGEST_PAGE = 10_000;
/** the console's own page sizes (console/src/zones.tsx, history.tsx, search.tsx) */
const ZONES_PAGE = 50;
const HISTORY_PAGE = 20;
const SEARCH_PAGE = 50;
/** the zone page's disabled records, and the team of the members and keys shape */
const DISABLED = 10;
const MEMBERS = 12;
const KEYS = 8;
/** the product's aim: each shape within 1.5× of its floor at p50, 2× at p99 */
const AIM = { p50: 1.5, p99: 2 };
const TMP = path.join(__dirname, '.tmp');
// a quick or partial run's results go to bench/.tmp, not beside the full runs' ones
const RESULTS = PARTIAL ? path.join(TMP, 'RESULTS-graphql-shapes-quick.md') : path.join(__dirname, 'RESULTS-graphql-shapes.md');
const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

// ---------------------------------------------------------------------------------------------------------
// seeding: accounts and zones through the REST API (as a user makes them), their bulk by SQL

/** `count` A records in the zone `domainId`, owners `<prefix><n>`, addresses from 10.0.0.0 up */
async function seedRecords(db, domainId, count, prefix) {
  await db.query(
    `insert into records (domain_id, owner, type, rdata, ttl)
     select $1, $3 || g, 'A', '10.' || ((g >> 16) & 255) || '.' || ((g >> 8) & 255) || '.' || (g & 255), 3600
       from generate_series(0, $2::int - 1) as g`,
    [domainId, count, prefix],
  );
}

async function recordCount(db, domainId) {
  return (await db.query('select count(*)::int as n from records where domain_id = $1', [domainId])).rows[0].n;
}

/** a zone of `size` records (its 4 default ones and A records) with DISABLED disabled records */
async function seedZonePage(svc, db, userId, size) {
  const zone = `page${size}.shapes.example`;
  const { id } = await svc.api('POST', '/domain/add', { user_id: userId, zone });
  await seedRecords(db, id, size - (await recordCount(db, id)), 'h');
  await db.query(
    `insert into disabled_records (domain_id, owner, type, ttl, rdata)
     select $1, 'off' || g, 'A', 3600, '192.0.2.' || (g + 1) from generate_series(0, $2::int - 1) as g`,
    [id, DISABLED],
  );
  return { zone, expect: { records: await recordCount(db, id), disabled: DISABLED } };
}

/** an account of `size` zones: one made through the API, the others copies of its row by SQL (the list reads no records) */
async function seedZoneList(svc, db, size) {
  const user = await svc.api('POST', '/user/add', { email: `list${size}@shapes.example` });
  const { id } = await svc.api('POST', '/domain/add', { user_id: user.id, zone: `l0.list${size}.shapes.example` });
  await db.query(
    `insert into domains (user_id, name, serial, catalog_serial, record_count, kind, serving, nameserver_set)
     select t.user_id, 'l' || g || '.list' || $3 || '.shapes.example', t.serial, t.catalog_serial, t.record_count, t.kind, t.serving, t.nameserver_set
       from domains t, generate_series(1, $2::int - 1) as g where t.id = $1`,
    [id, size, size],
  );
  await db.query('update users set zone_count = (select count(*) from domains where user_id = $1) where id = $1', [user.id]);
  return { userId: String(user.id), expect: { total: size, nodes: Math.min(size, ZONES_PAGE) } };
}

/** a zone with `size` changes in its history: its creation, then edits by SQL (one record added, the SOA replaced) */
async function seedHistory(svc, db, userId, size) {
  const zone = `history${size}.shapes.example`;
  const { id } = await svc.api('POST', '/domain/add', { user_id: userId, zone });
  const soa = (serial) => `ns1.example.net. hostmaster.example.net. ${serial} 3600 1800 604800 86400`;
  const {
    rows: [{ serial }],
  } = await db.query('select serial::bigint as serial from domains where id = $1', [id]);
  await db.query(
    `insert into changes (domain_id, zone, kind, serial_before, serial_after, added, removed, created_at, published_at,
                          author_key_id, author_key_name)
     select $1, $2, 'zone-changed', $3::bigint + g - 1, $3::bigint + g,
            jsonb_build_array(jsonb_build_object('owner', 'e' || g, 'type', 'A', 'ttl', 3600, 'rdata', '192.0.2.' || (g % 250 + 1)),
                              jsonb_build_object('owner', '@', 'type', 'SOA', 'ttl', 3600, 'rdata', replace($5, '#', ($3::bigint + g)::text))),
            jsonb_build_array(jsonb_build_object('owner', '@', 'type', 'SOA', 'ttl', 3600, 'rdata', replace($5, '#', ($3::bigint + g - 1)::text))),
            now() - make_interval(secs => $4::int - g), now(), 1, 'admin (API_KEY setting)'
       from generate_series(1, $4::int - 1) as g`,
    [id, zone, serial, size, soa('#')],
  );
  const {
    rows: [{ n }],
  } = await db.query(`select count(*)::int as n from changes where domain_id = $1 and kind <> 'zone-signed'`, [id]);
  return { zone, expect: { total: n, nodes: Math.min(n, HISTORY_PAGE) } };
}

/** `size` records matching `find<size>x`, over 10 zones */
async function seedSearch(svc, db, userId, size) {
  const ids = [];
  for (let z = 0; z < 10; z++)
    ids.push((await svc.api('POST', '/domain/add', { user_id: userId, zone: `s${z}.search${size}.shapes.example` })).id);
  await db.query(
    `insert into records (domain_id, owner, type, rdata, ttl)
     select ($1::bigint[])[1 + g % 10], 'find' || $3 || 'x' || g, 'A', '10.' || ((g >> 16) & 255) || '.' || ((g >> 8) & 255) || '.' || (g & 255), 3600
       from generate_series(0, $2::int - 1) as g`,
    [ids, size, size],
  );
  return { query: `find${size}x`, expect: { total: size, nodes: Math.min(size, SEARCH_PAGE) } };
}

/** a team: MEMBERS people in one account (SQL) and KEYS API keys (the createApiKey mutation) */
async function seedTeam(svc, db) {
  const user = await svc.api('POST', '/user/add', { email: 'team@shapes.example' });
  const roles = ['owner', 'admin', 'editor', 'viewer'];
  await db.query(
    `with p as (insert into people (email) select 'member' || g || '@shapes.example' from generate_series(1, $2::int) as g returning id)
     insert into memberships (person_id, user_id, role, zones) select p.id, $1, ($3::text[])[1 + (row_number() over () % 4)::int], null from p`,
    [user.id, MEMBERS, roles],
  );
  for (let k = 0; k < KEYS; k++) {
    await svc.graphql('mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }', {
      input: { name: `deploy ${k}`, userId: String(user.id) },
    });
  }
  return { userId: String(user.id), expect: { members: MEMBERS, keys: KEYS } };
}

// ---------------------------------------------------------------------------------------------------------
// the client: one request at a time on one kept-alive connection per server, timed to its last byte

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** one request: its time (ms, to the last byte), status and text */
function timed(method, url, { headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          resolve({ ms, status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

/** a GraphQL request of the console's document `name` (the time, and the parsed answer, checked for errors) */
function graphqlStep(svc, name) {
  const query = consoleOperation(name);
  return async (variables) => {
    const res = await timed('POST', `${svc.base}/graphql`, { headers: svc.headers, body: JSON.stringify({ query, variables }) });
    const json = parsed(res, name);
    if (json.errors) throw new WrongAnswer(`${name}: errors ${JSON.stringify(json.errors).slice(0, 300)}`);
    return { ms: res.ms, bytes: Buffer.byteLength(res.text), data: json.data };
  };
}

/** a request of the floor's (GET /<path>?<variables>) */
function floorStep(floor, route) {
  return async (variables) => {
    const query = new URLSearchParams(Object.entries(variables).filter(([, v]) => v !== undefined && v !== null));
    const res = await timed('GET', `${floor.base}/${route}?${query}`);
    return { ms: res.ms, bytes: Buffer.byteLength(res.text), data: parsed(res, `floor /${route}`).data };
  };
}

class WrongAnswer extends Error {}

function parsed(res, label) {
  if (res.status !== 200) throw new WrongAnswer(`${label}: status ${res.status} ${res.text.slice(0, 300)}`);
  try {
    return JSON.parse(res.text);
  } catch {
    throw new WrongAnswer(`${label}: not JSON: ${res.text.slice(0, 300)}`);
  }
}

function expectCount(label, what, got, wanted) {
  if (got !== wanted) throw new WrongAnswer(`${label}: ${got} ${what}, expected ${wanted}`);
}

// ---------------------------------------------------------------------------------------------------------
// the shapes: each a function of (step makers) → one "request" of the shape: { ms, bytes, requests }, checked

/**
 * The shape's one request, for the service (`graphql`) or the floor (`floor`): runs its requests in order and
 * checks what it read. `steps` gives, per request of the shape, the console's operation and the floor's route.
 */
const SHAPES = {
  zonePage: {
    label: 'zone page: ZoneRecords (every page) + ZoneDisabledRecords',
    steps: { records: ['ZoneRecords', 'records'], disabled: ['ZoneDisabledRecords', 'disabled'] },
    async run(step, { zone, expect }, label) {
      let ms = 0;
      let bytes = 0;
      let requests = 0;
      let items = 0;
      let after = null;
      do {
        const page = await step.records({ zone, first: LARGEST_PAGE, after });
        ms += page.ms;
        bytes += page.bytes;
        requests += 1;
        const records = page.data.records;
        expectCount(label, 'records in all', records.totalCount, expect.records);
        items += records.nodes.length;
        after = records.pageInfo.hasNextPage ? records.pageInfo.endCursor : null;
      } while (after);
      expectCount(label, 'records read over the pages', items, expect.records);
      const disabled = await step.disabled({ zone });
      expectCount(label, 'disabled records', disabled.data.domain.disabledRecords.length, expect.disabled);
      return { ms: ms + disabled.ms, bytes: bytes + disabled.bytes, requests: requests + 1 };
    },
  },
  zoneList: {
    label: 'zone list: Zones (first page of 50 by name, one account)',
    steps: { zones: ['Zones', 'zones'] },
    async run(step, { userId, expect }, label) {
      const page = await step.zones({ first: ZONES_PAGE, orderBy: 'NAME', userId });
      expectCount(label, 'zones in all', page.data.domains.totalCount, expect.total);
      expectCount(label, 'zones on the page', page.data.domains.nodes.length, expect.nodes);
      return { ms: page.ms, bytes: page.bytes, requests: 1 };
    },
  },
  history: {
    label: 'history: ZoneHistory (the newest 20 changes)',
    steps: { history: ['ZoneHistory', 'history'] },
    async run(step, { zone, expect }, label) {
      const page = await step.history({ name: zone, first: HISTORY_PAGE });
      const changes = page.data.domain.changes;
      expectCount(label, 'changes in all', changes.totalCount, expect.total);
      expectCount(label, 'changes on the page', changes.nodes.length, expect.nodes);
      return { ms: page.ms, bytes: page.bytes, requests: 1 };
    },
  },
  search: {
    label: 'search: SearchRecords (first 50 matches, with their zones)',
    steps: { search: ['SearchRecords', 'search'] },
    async run(step, { query, expect }, label) {
      const page = await step.search({ query, first: SEARCH_PAGE });
      expectCount(label, 'matches in all', page.data.searchRecords.totalCount, expect.total);
      expectCount(label, 'matches on the page', page.data.searchRecords.nodes.length, expect.nodes);
      return { ms: page.ms, bytes: page.bytes, requests: 1 };
    },
  },
  team: {
    label: 'members and keys: Members + ApiKeys',
    steps: { members: ['Members', 'members'], keys: ['ApiKeys', 'keys'] },
    async run(step, { userId, expect }, label) {
      const members = await step.members({ userId });
      expectCount(label, 'members', members.data.members.length, expect.members);
      const keys = await step.keys({ userId });
      expectCount(label, 'API keys', keys.data.apiKeys.length, expect.keys);
      return { ms: members.ms + keys.ms, bytes: members.bytes + keys.bytes, requests: 2 };
    },
  },
};

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** the shape at one size: warm-up, then REQUESTS of each, the service's and the floor's in turn */
async function measure(svc, floor, shapeKey, size, input) {
  const shape = SHAPES[shapeKey];
  const ours = {};
  const theirs = {};
  for (const [key, [operation, route]] of Object.entries(shape.steps)) {
    ours[key] = graphqlStep(svc, operation);
    theirs[key] = floorStep(floor, route);
  }
  const label = `${shapeKey} at ${size}`;
  const one = (step, who) => shape.run(step, input, `${label} (${who})`);
  for (let i = 0; i < WARMUP; i++) {
    await one(ours, 'service');
    await one(theirs, 'floor');
  }
  const times = { service: [], floor: [] };
  let last;
  for (let i = 0; i < REQUESTS; i++) {
    const a = await one(ours, 'service');
    const b = await one(theirs, 'floor');
    times.service.push(a.ms);
    times.floor.push(b.ms);
    last = { service: a, floor: b };
  }
  const stats = (list) => {
    const sorted = list.slice().sort((x, y) => x - y);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
  };
  const row = {
    shape: shapeKey,
    size,
    service: { ...stats(times.service), bytes: last.service.bytes, requests: last.service.requests },
    floor: { ...stats(times.floor), bytes: last.floor.bytes, requests: last.floor.requests },
  };
  row.ratio = { p50: row.service.p50 / row.floor.p50, p99: row.service.p99 / row.floor.p99 };
  log(
    `${label}: service p50 ${row.service.p50.toFixed(1)} / p99 ${row.service.p99.toFixed(1)} ms, floor p50 ${row.floor.p50.toFixed(1)} / p99 ${row.floor.p99.toFixed(1)} ms, ratio ${row.ratio.p50.toFixed(2)}× / ${row.ratio.p99.toFixed(2)}×`,
  );
  return row;
}

// ---------------------------------------------------------------------------------------------------------
// the results

const fixed = (v) => (v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0));
const load = (l) => l.map((v) => v.toFixed(2)).join(' / ');
const kb = (bytes) => (bytes < 1e6 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(2)} MB`);

const SIZE_WORDS = {
  zonePage: (n) => `${n.toLocaleString('en')} records`,
  zoneList: (n) => `${n.toLocaleString('en')} zones`,
  history: (n) => `${n.toLocaleString('en')} changes`,
  search: (n) => `${n.toLocaleString('en')} matches`,
  team: () => `${MEMBERS} members, ${KEYS} keys`,
};

function writeResults(machine, run) {
  const verdict = (r) => (r.ratio.p50 <= AIM.p50 && r.ratio.p99 <= AIM.p99 ? 'met' : '**missed**');
  const rows = run.rows.map(
    (r) =>
      `| ${SHAPES[r.shape].label} | ${SIZE_WORDS[r.shape](r.size)} | ${r.service.requests} | ${fixed(r.service.p50)} / ${fixed(r.service.p99)} | ${fixed(r.floor.p50)} / ${fixed(r.floor.p99)} | ${r.ratio.p50.toFixed(2)}× / ${r.ratio.p99.toFixed(2)}× | ${fixed(r.service.p50 - r.floor.p50)} | ${verdict(r)} | ${kb(r.service.bytes)} / ${kb(r.floor.bytes)} |`,
  );
  const misses = run.rows.filter((r) => verdict(r) !== 'met');
  const busy = Math.max(run.loadBefore[0], run.loadAfter[0]) > machine.nproc;
  const text = `# The console's GraphQL shapes beside their floors (\`npm run bench:graphql-shapes\`)

Written by bench/graphql-shapes.js on every run; **do not edit by hand**. What is measured and how: bench/README.md,
«The console's GraphQL shapes beside their floors».${PARTIAL ? '\n\n**A quick or partial run (BENCH_QUICK, BENCH_SIZES or BENCH_ONLY): not for comparison.**' : ''}

| | |
| --- | --- |
| date | ${machine.date} |
| commit | \`${machine.commit.slice(0, 12)}\` (${machine.commitSubject})${machine.dirty ? `, ${machine.dirty} uncommitted change(s) in src/package files` : ''} |
| machine | ${machine.cpuModel}, ${machine.nproc} cores, ${machine.memoryGiB.toFixed(1)} GiB, Linux ${machine.kernel}, Node ${machine.node} |
| PostgreSQL | ${run.postgres} at 127.0.0.1:5432 |
| service | the built service, \`${serveCommand().text}\`, ROLES=api, no rate limits |
| load average (1 / 5 / 15 min) | ${load(run.loadBefore)} before, ${load(run.loadAfter)} after, on ${machine.nproc} cores: ${busy ? 'a busy host (other runs beside): the times are longer than a quiet host gives, the ratios less so (the two take turns)' : 'a quiet host'} |
| requests | c1 (one at a time), ${WARMUP} warm-up then ${REQUESTS} measured of each, the service's and the floor's in turn |
| run time | ${Math.round(run.seconds)} s, of which seeding ${Math.round(run.seedSeconds)} s |

Times in ms, to the answer's last byte; a shape of several requests (the zone page: its pages and the disabled
records; members and keys) is the sum of its requests. The aim: within ${AIM.p50}× of the floor at p50 and ${AIM.p99}× at p99.
The floor's answers have the service's fields and, as the last column shows, its size.

| shape | size | requests | ours p50 / p99 | floor p50 / p99 | ratio p50 / p99 | ours − floor at p50 | aim | answer bytes (ours / floor) |
| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |
${rows.join('\n')}

${misses.length ? `Missed: ${misses.length} of ${run.rows.length} rows (${misses.map((r) => `${r.shape} at ${SIZE_WORDS[r.shape](r.size)}`).join('; ')}).` : `Every row within the aim.`}
The zone page is read at ${LARGEST_PAGE.toLocaleString('en')} records a page (MAX_PAGE_SIZE's default, the largest page the API gives):
100,000 records are ${100_000 / LARGEST_PAGE} pages, each a request after the one before (the cursor of one is the \`after\` of the next).
The zone list, the history and the search are one page as the console asks it (${ZONES_PAGE}, ${HISTORY_PAGE} and ${SEARCH_PAGE} items): what grows
is the data behind it (the count and the ordering), not the answer. Members and keys do not grow.
`;
  fs.writeFileSync(RESULTS, text);
  log(`written ${path.relative(ROOT, RESULTS)}`);
}

// ---------------------------------------------------------------------------------------------------------

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  const loadBefore = os.loadavg();
  const started = performance.now();
  log(`load average ${load(loadBefore)}; sizes ${SIZES.join(', ')}; ${WARMUP} + ${REQUESTS} requests of each`);
  const run = await withDatabase('zk_bench_shapes', async (databaseUrl) => {
    const db = new Client({ connectionString: databaseUrl });
    const svc = await startService({
      databaseUrl,
      apiKey: API_KEY,
      logFile: path.join(TMP, 'graphql-shapes-service.log'),
      env: { ROLES: 'api', DNS_LISTEN: '', HEALTH_CHECK_INTERVAL: '0', LOG_LEVEL: 'warn', RATE_LIMIT_CONCURRENCY: '0' },
      // BENCH_NODE_ARGS: more node options for the service (e.g. --cpu-prof --cpu-prof-dir=bench/.tmp/prof-shapes)
      nodeArgs: process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [],
    });
    let floor;
    try {
      await db.connect();
      const postgres = (await db.query('show server_version')).rows[0].server_version;
      const seedStarted = performance.now();
      const inputs = { zonePage: {}, zoneList: {}, history: {}, search: {} };
      for (const size of SIZES) {
        log(
          `seeding size ${size.toLocaleString('en')}: a zone of that many records, an account of that many zones, a history of that many changes, that many search matches`,
        );
        const user = await svc.api('POST', '/user/add', { email: `account${size}@shapes.example` });
        inputs.zonePage[size] = await seedZonePage(svc, db, user.id, size);
        inputs.zoneList[size] = await seedZoneList(svc, db, size);
        inputs.history[size] = await seedHistory(svc, db, user.id, size);
        inputs.search[size] = await seedSearch(svc, db, user.id, size);
      }
      const team = await seedTeam(svc, db);
      await db.query('vacuum analyze');
      const seedSeconds = (performance.now() - seedStarted) / 1000;
      log(`seeded in ${seedSeconds.toFixed(0)} s`);
      floor = await startShapesFloor(databaseUrl, serveCommand().nodeOptions);
      const rows = [];
      const wanted = (shape) => !ONLY || ONLY.includes(shape);
      for (const shape of ['zonePage', 'zoneList', 'history', 'search'].filter(wanted)) {
        for (const size of SIZES) rows.push(await measure(svc, floor, shape, size, inputs[shape][size]));
      }
      if (wanted('team')) rows.push(await measure(svc, floor, 'team', MEMBERS + KEYS, team));
      return { rows, postgres, seedSeconds };
    } finally {
      agent.destroy();
      if (floor) await floor.stop();
      await svc.stop();
      await db.end().catch(() => undefined);
    }
  });
  writeResults(machine, { ...run, loadBefore, loadAfter: os.loadavg(), seconds: (performance.now() - started) / 1000 });
}

main().catch((error) => {
  process.stderr.write(`${error instanceof WrongAnswer ? `wrong answer: ${error.message}` : (error.stack ?? error)}\n`);
  process.exit(1);
});
