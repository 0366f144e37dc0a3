'use strict';
// `npm run bench:dns-update`: DNS UPDATE (RFC 2136). Single-record UPDATEs (one A record added per
// message, TSIG hmac-sha256), over TCP at concurrency 16 (16 connections, each sending its next UPDATE when
// the last is answered), from a load client built on dns-packet: Zonekeeper's primary against PowerDNS
// Authoritative (dnsupdate=yes, gpgsql) in the same run on the same PostgreSQL. Target: ≥ 2× PowerDNS's
// updates per second; p99 reported. Written to bench/RESULTS-dns-update.md with the machine and the date.
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const dnsPacket = require('dns-packet');
const { withDatabase } = require('./lib/database');
const { machineInfo } = require('./lib/machine');
const { startPdnsOnDatabase, pdnsVersion } = require('./lib/pdns');
const { startService, ROOT } = require('./lib/service');

const { signMessage } = require(path.join(ROOT, 'dist', 'src', 'dns', 'wire', 'tsig.js'));

const API_KEY = `zk_bench_${randomBytes(16).toString('hex')}`;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECONDS = process.env.BENCH_QUICK ? 3 : 15;
const WARMUP = 300;
/** ZONES zones, connection i updating zone i % ZONES: one zone (every client on one zone) and one per connection */
const zoneName = (i) => `upd${i}.example`;
const TMP = path.join(__dirname, '.tmp');
const log = (line) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const ip = (n) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

/** one TCP connection that sends a message and waits for its answer (RFC 1035 §4.2.2 framing) */
function connect(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let buffered = Buffer.alloc(0);
    let waiting;
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= buffered.readUInt16BE(0) + 2) {
        const message = buffered.subarray(2, buffered.readUInt16BE(0) + 2);
        buffered = buffered.subarray(message.length + 2);
        const done = waiting;
        waiting = undefined;
        done?.resolve(message);
      }
    });
    socket.on('error', (error) => (waiting ? waiting.reject(error) : undefined));
    socket.once('connect', () =>
      resolve({
        exchange(message) {
          return new Promise((res, rej) => {
            waiting = { resolve: res, reject: rej };
            const frame = Buffer.alloc(2);
            frame.writeUInt16BE(message.length, 0);
            socket.write(Buffer.concat([frame, message]));
          });
        },
        close: () => socket.destroy(),
      }),
    );
    socket.once('error', reject);
  });
}

function update(key, zone, n) {
  const message = dnsPacket.encode({
    id: n & 0xffff,
    type: 'query',
    flags: 5 << 11,
    questions: [{ name: zone, type: 'SOA', class: 'IN' }],
    authorities: [{ name: `h${n}.${zone}`, type: 'A', class: 'IN', ttl: 3600, data: ip(n) }],
  });
  return signMessage(message, key).message;
}

/** CONCURRENCY connections sending UPDATEs for `seconds`; every answer must be NOERROR */
async function load(port, key, zones, first, seconds) {
  const connections = await Promise.all(Array.from({ length: CONCURRENCY }, () => connect(port)));
  let next = first;
  const latencies = [];
  let failures = 0;
  const rcodes = new Map();
  const until = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(connections.map(async (connection, i) => {
    while (Date.now() < until) {
      const n = next++;
      const sent = process.hrtime.bigint();
      const answer = await connection.exchange(update(key, zoneName(i % zones), n));
      latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
      const rcode = answer.readUInt16BE(2) & 0xf;
      if (rcode !== 0) {
        failures++;
        rcodes.set(rcode, (rcodes.get(rcode) ?? 0) + 1);
      }
    }
  }));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  connections.forEach((c) => c.close());
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { count: latencies.length, rate: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), failures, rcodes: [...rcodes], next };
}

async function ours(databaseUrl) {
  // BENCH_NODE_ARGS: e.g. --cpu-prof --cpu-prof-dir=bench/.tmp/prof-update (a profile of the service's side)
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const svc = await startService({ databaseUrl, apiKey: API_KEY, nodeArgs, logFile: path.join(TMP, 'dns-update.log'), env: { LOG_LEVEL: 'warn', ROLES: 'api,dns,worker', SECONDARIES: '' } });
  try {
    const user = await svc.api('POST', '/user/add', { email: 'updates@bench.example' });
    for (let i = 0; i < CONCURRENCY; i++) await svc.api('POST', '/domain/add', { user_id: user.id, zone: zoneName(i) });
    const created = await svc.graphql('mutation($u: ID!) { createTsigKey(input: {userId: $u, name: "bench-key"}) { secret } }', { u: user.id });
    const key = { name: 'bench-key', algorithm: 'hmac-sha256', secret: Buffer.from(created.createTsigKey.secret, 'base64') };
    return await runs(svc.dnsPort, key);
  } finally {
    await svc.stop();
  }
}

/** a warm-up, then the two runs: every connection on one zone, and one zone per connection */
async function runs(port, key) {
  const warm = await load(port, key, CONCURRENCY, 0, 1);
  const oneZone = await load(port, key, 1, warm.next + WARMUP, SECONDS);
  const manyZones = await load(port, key, CONCURRENCY, oneZone.next, SECONDS);
  return { oneZone, manyZones };
}

async function powerdns(databaseUrl) {
  const pdns = await startPdnsOnDatabase(databaseUrl, {
    dir: path.join(TMP, `pdns-update-${Date.now()}`),
    apiKey: 'pdns-bench-key',
    logFile: path.join(TMP, 'pdns-dns-update.log'),
    extraConfig: ['dnsupdate=yes', 'allow-dnsupdate-from=127.0.0.0/8'],
  });
  try {
    const secret = randomBytes(32);
    await pdns.api('POST', '/tsigkeys', { name: 'bench-key', algorithm: 'hmac-sha256', key: secret.toString('base64') });
    for (let i = 0; i < CONCURRENCY; i++) {
      await pdns.api('POST', '/zones', { name: `${zoneName(i)}.`, kind: 'Native', nameservers: ['ns1.example.net.', 'ns2.example.net.'] });
      await pdns.api('PUT', `/zones/${zoneName(i)}./metadata/TSIG-ALLOW-DNSUPDATE`, { metadata: ['bench-key'] });
    }
    return await runs(pdns.dnsPort, { name: 'bench-key', algorithm: 'hmac-sha256', secret });
  } finally {
    await pdns.stop();
  }
}

async function main() {
  fs.mkdirSync(TMP, { recursive: true });
  const machine = machineInfo(ROOT);
  log(`Zonekeeper: single-record UPDATEs over TCP, concurrency ${CONCURRENCY}, ${SECONDS} s`);
  const zk = await withDatabase('zk_bench_update', ours);
  log(`PowerDNS ${pdnsVersion()}: the same`);
  const pd = await withDatabase('pdns_bench_update', powerdns);
  const row = (label, r) => `| ${label} | ${r.count} | ${r.rate.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.failures}${r.rcodes.length ? ` (${r.rcodes.map(([c, n]) => `rcode ${c}: ${n}`).join(', ')})` : ''} |`;
  const section = (title, ours, theirs) => {
    const ratio = ours.rate / theirs.rate;
    log(`${title}: Zonekeeper ${ours.rate.toFixed(0)}/s p99 ${ours.p99.toFixed(1)} ms, PowerDNS ${theirs.rate.toFixed(0)}/s p99 ${theirs.p99.toFixed(1)} ms: ${ratio.toFixed(2)}x`);
    return `## ${title}

| server | UPDATEs | per second | p50 ms | p99 ms | not NOERROR |
| --- | ---: | ---: | ---: | ---: | ---: |
${row('Zonekeeper', ours)}
${row(`PowerDNS ${pdnsVersion()}`, theirs)}

**Ratio: ${ratio.toFixed(2)}×** ${ratio >= 2 ? '(target met)' : '(target MISSED)'}.
`;
  };
  fs.writeFileSync(path.join(__dirname, 'RESULTS-dns-update.md'), `# DNS UPDATE benchmark (\`npm run bench:dns-update\`)

Machine: ${machine.cpuModel}, ${machine.nproc} cores, ${machine.memoryGiB.toFixed(1)} GiB, Linux ${machine.kernel}, Node ${machine.node}.
Date: ${machine.date}. Commit: ${machine.commit.slice(0, 12)}. PowerDNS ${pdnsVersion()} (\`dnsupdate=yes\`, gpgsql on the same PostgreSQL).${process.env.BENCH_QUICK ? ' **BENCH_QUICK: short run, not for comparison.**' : ''}
Single-record UPDATEs (RFC 2136: one A record added per message, TSIG hmac-sha256) over TCP from ${CONCURRENCY}
connections, each sending its next UPDATE when the last is answered, for ${SECONDS} s per run after a 1 s warm-up;
the load client (bench/dns-update.js, dns-packet) runs on the same machine. Two runs: every connection updating
one zone (serialised per zone in both servers), and each connection its own zone.
Target: updates per second ≥ 2× PowerDNS's.

${section('One zone', zk.oneZone, pd.oneZone)}
${section(`${CONCURRENCY} zones, one per connection`, zk.manyZones, pd.manyZones)}`);
  log('written bench/RESULTS-dns-update.md');
  const failed = [zk.oneZone, zk.manyZones, pd.oneZone, pd.manyZones].some((r) => r.failures);
  if (failed) throw new Error('some UPDATEs were not answered NOERROR (see the table)');
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack || error.message}\n`);
  process.exit(1);
});
