'use strict';
// `npm run bench:hostile`: the service's memory through a corpus of 10,000 hostile and malformed requests
// (the target: RSS below 400 MB through such a run). The corpus is seeded, so a run replays:
// REST requests over every path of the route table with hostile values in JSON, form, multipart and query
// encodings; GraphQL operations that are each a new document (new aliases), so Apollo's document store and
// the compiled-query cache see a stream of distinct documents; bodies at and past BODY_LIMIT in every
// encoding (multipart with many large fields); zone-file imports of garbage; fragment chains and token floods.
// Sixteen requests are in flight at a time. Then, so that the figure holds for such input in general and not
// for one mix, phases that each send one heavy kind only, 16 at a time (3 rounds): valid 1 MB zone files
// (dry runs), answers of 30,000 records, zone-file exports of a 20,000-record zone, and 200 clients each
// sending a 1 MB body slowly (half, then the rest 3 s later). VmRSS of the service is sampled every 5 ms;
// written to bench/RESULTS-hostile.md with the machine and the date.
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { memoryOf, sampleMemory, sleep } = require('./lib/proc');
const { startService, ROOT } = require('./lib/service');

const API_KEY = `zk_bench_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
const REQUESTS = Number(process.env.BENCH_HOSTILE_REQUESTS || 10_000);
const CONCURRENCY = 16;
const TARGET_RSS_MB = 400;
const TMP = path.join(__dirname, '.tmp');
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** mulberry32, as the hostile-generator test uses: a deterministic corpus */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ONE_MB = 1024 * 1024;
const HOSTILE_VALUES = [
  '', 'a\u0000b', '\ud800', '\u{1F600}', '../../etc/passwd', "'; drop table users; --", '-1', '2147483648', '1e309', 'NaN',
  'a'.repeat(5000), 'é'.repeat(300), 'example.com', '@', '*', 'TXT', 'SOA', '192.0.2.1', 'ops@example.org', -1, 0, 3600, 2147483648,
  true, null, [], {}, { nested: 'x' },
];

function send(base, { method, path: target, headers = {}, body, slowMs = 0 }) {
  return new Promise((resolve) => {
    const req = http.request(`${base}${target}`, { method, headers: { 'x-api-key': API_KEY, ...headers, ...(body !== undefined ? { 'content-length': Buffer.byteLength(body) } : {}) } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => { bytes += chunk.length; });
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
      res.on('error', () => resolve({ status: 0, bytes }));
    });
    req.on('error', () => resolve({ status: 0, bytes: 0 }));
    if (body !== undefined && slowMs > 0) {
      // a slow client: half the body now, the rest later
      const half = Math.floor(body.length / 2);
      req.write(body.slice(0, half));
      setTimeout(() => req.end(body.slice(half)), slowMs);
      return;
    }
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const graphql = (query, variables) => ({ method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });

/** the heavy phases: one kind of request each, `concurrency` at a time for `rounds` rounds */
function heavyPhases() {
  const oneMbZone = (n) => Array.from({ length: 28000 }, (_, i) => `n${n}-${i} 3600 IN A 10.0.${(i >> 8) & 255}.${i & 255}`).join('\n').slice(0, ONE_MB - 300);
  const imports = [0, 1, 2, 3].map((n) => graphql('mutation($t: String!) { importZone(zone: "hostile.example", text: $t, mode: MERGE, dryRun: true) { added } }', { t: oneMbZone(n) }));
  const bigAnswer = graphql(`{ ${[1, 2, 3].map((a) => `a${a}: records(zone: "big.hostile.example", first: 10000) { nodes { id owner type rdata ttl } }`).join(' ')} }`);
  return [
    { name: 'valid 1 MB zone files (dry-run imports)', concurrency: 16, rounds: 3, make: (i) => imports[i % 4] },
    { name: 'answers of 30,000 records (3 aliases of 10,000)', concurrency: 16, rounds: 3, make: () => bigAnswer },
    { name: 'exportZone of a 20,000-record zone', concurrency: 16, rounds: 3, make: () => graphql('{ exportZone(zone: "big.hostile.example") }') },
    { name: '200 slow clients, 1 MB bodies (3 s between halves)', concurrency: 200, rounds: 1, make: (i) => ({ ...imports[i % 4], slowMs: 3000 }) },
  ];
}

function multipart(fields) {
  const boundary = `----zk${Math.random().toString(16).slice(2)}`;
  const parts = Object.entries(fields).map(([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  return { body: `${parts.join('')}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}

function fragmentChain(depth) {
  const fragments = [];
  for (let i = 1; i <= depth; i++) fragments.push(`fragment F${i} on User { a${i}: id ${i < depth ? `...F${i + 1} ...F${i + 1}` : ''} }`);
  return `{ users { nodes { ...F1 } } } ${fragments.join(' ')}`;
}

/** one request of the corpus, chosen by the seeded generator */
function corpusRequest(random, routes, n) {
  const pick = (items) => items[Math.floor(random() * items.length)];
  const text = (v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  let kind = random();
  // BENCH_HOSTILE_ONLY=rest|graphql|large|import|flood: one kind of request only, to find what holds memory
  const only = { rest: 0.2, graphql: 0.6, large: 0.85, import: 0.9, flood: 0.97 }[process.env.BENCH_HOSTILE_ONLY];
  if (only !== undefined) kind = only;
  if (kind < 0.45) {
    const route = pick(routes);
    const target = `/api${route.path.replace(/:(\w+)/g, () => { try { return encodeURIComponent(text(pick(HOSTILE_VALUES))); } catch { return '%ED%A0%80'; } })}`;
    const fields = {};
    for (const name of Object.keys({ ...route.body, ...route.query })) if (random() < 0.8) fields[name] = pick(HOSTILE_VALUES);
    const encoding = pick(['json', 'form', 'multipart', 'query']);
    const method = route.method.toUpperCase();
    if (encoding === 'json') return { method, path: target, headers: { 'content-type': 'application/json' }, body: JSON.stringify(fields) };
    if (encoding === 'form') return { method, path: target, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, text(v)])).toString() };
    if (encoding === 'multipart') {
      const m = multipart(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, text(v).replace(/\u0000/g, '') || ' '])));
      return { method, path: target, headers: { 'content-type': m.type }, body: m.body };
    }
    let qs = '';
    try { qs = new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, text(v)])).toString(); } catch { qs = 'x=%ED%A0%80'; }
    return { method, path: `${target}?${qs}`, headers: {} };
  }
  if (kind < 0.8) {
    // a new document every time: distinct aliases and literals
    const alias = `a${n}_${Math.floor(random() * 1e9)}`;
    const shapes = [
      `{ ${alias}: users(first: ${1 + (n % 50)}) { nodes { id email domains(first: 10) { name serial records(first: 5) { owner type rdata } } } } }`,
      `{ ${alias}: records(zone: "hostile.example", owner: ${JSON.stringify(text(pick(HOSTILE_VALUES)))}) { nodes { id } } }`,
      `mutation { ${alias}: createUser(input: {email: ${JSON.stringify(`${alias}@${text(pick(HOSTILE_VALUES))}`)}}) { id } }`,
      `{ ${alias}: exportZone(zone: "hostile.example") }`,
      `query ${alias} { __schema { types { name fields { name args { name } } } } }`,
    ];
    return { method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: pick(shapes) }) };
  }
  if (kind < 0.88) {
    // large bodies: at the limit, past it, and multipart with many large fields
    const size = pick([ONE_MB - 4096, ONE_MB + 1, 2 * ONE_MB]);
    const which = pick(['json-graphql', 'json-rest', 'form', 'multipart-many']);
    if (which === 'json-graphql') return { method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation($t: String!) { importZone(zone: "hostile.example", text: $t, mode: MERGE) { added } }', variables: { t: 'x'.repeat(size - 200) } }) };
    if (which === 'json-rest') return { method: 'POST', path: '/api/user/add', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'y'.repeat(size - 20) }) };
    if (which === 'form') return { method: 'POST', path: '/api/record/add', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `zone=${'z'.repeat(size)}` };
    const m = multipart(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, 'm'.repeat(ONE_MB - 1024)])));
    return { method: 'POST', path: '/api/record/add', headers: { 'content-type': m.type }, body: m.body };
  }
  if (kind < 0.94) {
    const zoneText = Array.from({ length: 2000 }, (_, i) => `h${i}-${n} 3600 IN ${pick(['A 10.0.0.1', 'TXT "x"', 'MX 10 mail', 'BOGUS x', 'A 999.1.1.1'])}`).join('\n');
    return { method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation($t: String!) { importZone(zone: "hostile.example", text: $t, mode: MERGE) { added } }', variables: { t: zoneText } }) };
  }
  const flood = random() < 0.5 ? fragmentChain(20 + Math.floor(random() * 20)) : `{ ${'users { nodes { id } } '.repeat(2000)} }`;
  return { method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: flood }) };
}


async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  require('reflect-metadata'); // the route table imports the GraphQL argument classes
  const { ROUTES } = require(path.join(ROOT, 'dist', 'src', 'rest', 'routes.js'));
  const routes = ROUTES.map((r) => ({ method: r.method, path: r.path, body: r.body ?? {}, query: r.query ?? {} }));
  const result = await withDatabase('zk_bench_hostile', async (databaseUrl) => {
    const svc = await startService({ databaseUrl, apiKey: API_KEY, logFile: path.join(TMP, 'hostile.log'), env: { LOG_LEVEL: 'warn' } });
    try {
      const user = await svc.api('POST', '/user/add', { email: 'hostile@bench.example' });
      await svc.api('POST', '/domain/add', { user_id: user.id, zone: 'hostile.example' });
      await svc.api('POST', '/domain/add', { user_id: user.id, zone: 'big.hostile.example' });
      const bigZone = Array.from({ length: 20000 }, (_, i) => `h${i} 3600 IN TXT "${'x'.repeat(20)} ${i}"`).join('\n');
      const seeded = await send(svc.base, graphql('mutation($t: String!) { importZone(zone: "big.hostile.example", text: $t, mode: MERGE) { added } }', { t: bigZone }));
      if (seeded.status !== 200) throw new Error(`seeding big.hostile.example: ${seeded.status}`);
      await sleep(500);
      const atStart = memoryOf(svc.pid);
      const sampler = sampleMemory(svc.pid, 5);
      const random = prng(20261122);
      const statuses = new Map();
      const checkpoints = [];
      let next = 0;
      let done = 0;
      const started = Date.now();
      const worker = async () => {
        while (next < REQUESTS) {
          const n = next++;
          const res = await send(svc.base, corpusRequest(random, routes, n));
          const bucket = res.status === 0 ? 'connection closed' : `${res.status}`;
          statuses.set(bucket, (statuses.get(bucket) ?? 0) + 1);
          done += 1;
          if (done % 1000 === 0) {
            const { rss } = memoryOf(svc.pid);
            checkpoints.push({ done, rssMb: rss / ONE_MB });
            log(`${done} requests, RSS ${(rss / ONE_MB).toFixed(0)} MB`);
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const ms = Date.now() - started;
      const memory = sampler.stop();
      const phases = [];
      for (const phase of heavyPhases()) {
        const phaseSampler = sampleMemory(svc.pid, 5);
        const phaseStatuses = new Map();
        for (let round = 0; round < phase.rounds; round++) {
          const answers = await Promise.all(Array.from({ length: phase.concurrency }, (_, i) => send(svc.base, phase.make(round * phase.concurrency + i))));
          for (const res of answers) phaseStatuses.set(`${res.status || 'closed'}`, (phaseStatuses.get(`${res.status || 'closed'}`) ?? 0) + 1);
        }
        const peak = phaseSampler.stop().peakRss;
        phases.push({ name: phase.name, requests: phase.concurrency * phase.rounds, peak, statuses: phaseStatuses });
        log(`${phase.name}: peak RSS ${(peak / ONE_MB).toFixed(0)} MB`);
      }
      await sleep(2000);
      const settled = memoryOf(svc.pid);
      const health = await send(svc.base, { method: 'GET', path: '/health' });
      return { ms, atStart, memory, settled, statuses, checkpoints, phases, healthStatus: health.status };
    } finally {
      await svc.stop();
    }
  });
  const mb = (bytes) => (bytes / ONE_MB).toFixed(0);
  const peakMb = Math.max(result.memory.peakRss, ...result.phases.map((p) => p.peak)) / ONE_MB;
  const phaseRows = result.phases
    .map((p) => `| ${p.name} | ${p.requests} | ${(p.peak / ONE_MB).toFixed(0)} MB | ${[...p.statuses.entries()].map(([s, c]) => `${s}: ${c}`).join(', ')} |`)
    .join('\n');
  const statusRows = [...result.statuses.entries()].sort().map(([s, c]) => `| ${s} | ${c} |`).join('\n');
  const checkpointRow = result.checkpoints.map((c) => `${c.done}: ${c.rssMb.toFixed(0)}`).join(', ');
  fs.writeFileSync(path.join(__dirname, 'RESULTS-hostile.md'), `# Hostile-input memory benchmark (\`npm run bench:hostile\`)

Machine: ${machine.cpuModel}, ${machine.nproc} cores (\`nproc\`), ${machine.memoryGiB.toFixed(1)} GiB, Linux ${machine.kernel}, Node ${machine.node}; shared with other work while it ran (RSS is what is measured here, not time).
Date: ${machine.date}. Commit: ${machine.commit.slice(0, 12)}. Service started with \`npm run serve\`'s command line.
Target: the service's RSS stays below ${TARGET_RSS_MB} MB through ${REQUESTS.toLocaleString('en')} hostile requests (${CONCURRENCY} in flight).

| figure | value |
| --- | ---: |
| requests | ${REQUESTS} in ${(result.ms / 1000).toFixed(1)} s |
| RSS before the corpus | ${mb(result.atStart.rss)} MB |
| peak RSS through the corpus | ${(result.memory.peakRss / ONE_MB).toFixed(0)} MB |
| **peak RSS, corpus and heavy phases (sampled every 5 ms)** | **${peakMb.toFixed(0)} MB** (${peakMb < TARGET_RSS_MB ? 'target met' : 'target MISSED'}) |
| RSS 2 s after the last request | ${mb(result.settled.rss)} MB |
| /health after the corpus | ${result.healthStatus} |

RSS (MB) after every 1,000 answers: ${checkpointRow}.

| status | answers |
| --- | ---: |
${statusRows}

Heavy phases, after the corpus (one kind each; HEAVY_REQUESTS_AT_ONCE lets 4 run at once, the others wait):

| phase | requests | peak RSS | statuses |
| --- | ---: | ---: | --- |
${phaseRows}
`);
  log(`peak RSS ${peakMb.toFixed(0)} MB; written bench/RESULTS-hostile.md`);
  if (result.statuses.has('500') || result.statuses.has('connection closed') || result.healthStatus !== 200) {
    process.stderr.write('bench: the corpus met server errors or closed connections (see RESULTS-hostile.md)\n');
    process.exitCode = 1;
  }
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack || error.message}\n`);
  process.exit(1);
});
