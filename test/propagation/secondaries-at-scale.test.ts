/**
 * Every secondary in step at a hoster's scale (docs/scale.md, «Every secondary in step»): 9,000 zones made in bulk
 * (`createDomains`, 1,000 a call), then a Knot DNS and a BIND secondary configured from the text the CLI prints
 * for the nameserver set (`zonekeeper nameserver-set secondary-config default <primary> --software …`, sized for the
 * zones), each with only its own address, folders and log added; both serve every zone at its serial, and
 * `zonekeeper_secondary_zones_behind` falls back to 0 for both. Then the last 1,000 made in bulk while they run: the
 * catalog moves by IXFR (one step a call), each new zone is NOTIFYed at its secondary's pace, both serve every zone
 * and `zones_behind` is 0 again.
 *
 * Knot listens and transfers from 127.0.0.2 (`via`), BIND from 127.0.0.1: the primary tells secondaries apart by
 * their address (the NOTIFY pace follows what each asks for). BIND listens only on an interface's addresses.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { querySoaSerial } from '../../src/dns-client/dns-client';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { createUser } from '../support/fixtures';
import { namedConfFrom, startNamed } from '../support/bind-secondary';
import { startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { freePort, Knot, startKnotd } from './knot';

/**
 * the zones made: a hoster's migration, nine in ten before the secondaries are configured (the printed text is
 * sized for the zones held then), the rest made in bulk while they run. BIND's sized `serial-query-rate` sets the
 * pace (80 refreshes a second at 9,000 zones held); bench/FINDINGS.md, «Secondaries at a hoster's scale».
 */
const ZONES = Number(process.env.SECONDARIES_AT_SCALE_ZONES ?? 10_000);
const FIRST = Math.round(ZONES * 0.9);
const CATALOG = 'catalog.scale.test';
const PLACEHOLDER = "<the key's secret, as given when it was made>";
const tsig = { name: 'scale-fleet', secret: randomBytes(32).toString('base64') };
const KNOT_ADDRESS = '127.0.0.2';

let app: TestApp;
let knot: Knot | undefined;
let bind: { log(): string; stop(): Promise<void> } | undefined;
let bindDir: string | undefined;
let dnsPort: number;
let knotPort: number;
let bindPort: number;
let userId: string;
const names = Array.from({ length: ZONES }, (_, i) => `z${i}.scale.test`);
const started = Date.now();
const at = (what: string) => process.stdout.write(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

beforeAll(async () => {
  buildOnce();
  [dnsPort, knotPort, bindPort] = await Promise.all([freePort(), freePort(), freePort()]);
  app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    SECONDARIES: `${KNOT_ADDRESS}:${knotPort},127.0.0.1:${bindPort}`,
    TSIG_KEY: `${tsig.name}:hmac-sha256:${tsig.secret}`,
    CATALOG_ZONE: CATALOG,
  });
  userId = await createUser(app, 'hoster@example.org');
}, 120_000);

afterAll(async () => {
  await knot?.stop();
  await bind?.stop();
  await app?.close();
  if (bindDir) rmSync(bindDir, { recursive: true, force: true });
});

/** the zones' serials as the database holds them */
async function serials(): Promise<Map<string, number>> {
  const rows = await app.service.database.db.rows<{ name: string; serial: string }>(
    `select name, serial from domains where name like '%.scale.test'`,
  );
  return new Map(rows.map((r) => [r.name, Number(r.serial)]));
}

/**
 * the zones of `want` that `port` at `host` does not serve at their serial (SOA queries, 200 at a time): a zone
 * found served is not asked again, since nothing changes it while the test waits
 */
async function notServedAtSerial(host: string, port: number, want: Map<string, number>): Promise<Map<string, number>> {
  const left = new Map<string, number>();
  const zones = [...want.keys()];
  for (let i = 0; i < zones.length; i += 200) {
    const batch = zones.slice(i, i + 200);
    const answers = await Promise.all(batch.map((zone) => querySoaSerial({ host, port }, zone, 3000)));
    answers.forEach((a, j) => {
      if (!(a.ok && a.serial === want.get(batch[j]))) left.set(batch[j], want.get(batch[j])!);
    });
  }
  return left;
}

/** zonekeeper_secondary_zones_behind per server, from /metrics */
async function zonesBehind(): Promise<Map<string, number>> {
  const res = await app.http.get('/metrics');
  const behind = new Map<string, number>();
  for (const [, server, value] of res.text.matchAll(/^zonekeeper_secondary_zones_behind\{server="([^"]+)"\} (\d+)$/gm))
    behind.set(server, Number(value));
  return behind;
}

/** each secondary's NOTIFY pace and queue, as /metrics says (`server=pace/queued`), for the test's log */
async function paces(): Promise<string> {
  const text = (await app.http.get('/metrics')).text;
  return [...text.matchAll(/^zonekeeper_notify_(pace|queued)\{server="([^"]+)"\} ([\d.]+)$/gm)]
    .map(([, kind, server, value]) => `${kind} ${server} ${value}`)
    .join(', ');
}

async function everyZoneServedByBoth(what: string, deadlineMs: number, zones: number): Promise<void> {
  const sampling = setInterval(() => void paces().then((line) => at(`  ${line}`)), 5000);
  try {
    await servedByBoth(what, deadlineMs, zones);
  } finally {
    clearInterval(sampling);
  }
}

/** the resident memory of the server process run on `config` (its command line names it), in MB */
function rssMb(config: string): number | undefined {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(config)) continue;
      const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (kb) return Math.round(Number(kb[1]) / 102.4) / 10;
    } catch {
      /* gone meanwhile */
    }
  }
  return undefined;
}

/**
 * The service's own account first: `zonekeeper_secondary_zones_behind` at 0 for both (the worker's SOA queries
 * after each change). Then each secondary asked for every zone's SOA by the test itself: what the metric says
 * served must be served. Only a query that timed out on a busy host is asked again; the zones asked once each
 * keep the test's own queries from taking the cores the secondaries refresh with.
 */
async function servedByBoth(what: string, deadlineMs: number, zones: number): Promise<void> {
  const want = await serials();
  expect(want.size).toBe(zones);
  let behind = new Map<string, number>();
  await waitFor(
    `zonekeeper_secondary_zones_behind at 0 for both (${what})`,
    async () => {
      behind = await zonesBehind();
      return behind.get(`${KNOT_ADDRESS}:${knotPort}`) === 0 && behind.get(`127.0.0.1:${bindPort}`) === 0 ? true : undefined;
    },
    deadlineMs,
    1000,
  ).catch((error: Error) => {
    // what each server said, to see why
    throw new Error(
      `${error.message}; behind: ${JSON.stringify([...behind])}; Knot's log ends:\n${knot!.log().split('\n').slice(-20).join('\n')}\nBIND's log ends:\n${bind!.log().split('\n').slice(-20).join('\n')}`,
    );
  });
  at(`zones_behind 0 for both (${what})`);
  for (const [name, host, port] of [
    ['Knot', KNOT_ADDRESS, knotPort],
    ['BIND', '127.0.0.1', bindPort],
  ] as const) {
    let left = want;
    await waitFor(
      `${name} to answer every zone's SOA at its serial (${what})`,
      async () => ((left = await notServedAtSerial(host, port, left)).size === 0 ? true : undefined),
      30_000,
      1000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; ${left.size} not at their serial, such as ${[...left.keys()].slice(0, 5).join(', ')}`);
    });
  }
  at(
    `both serve every zone at its serial (${what}); resident memory: Knot ${rssMb(`${knot!.dir}/knot.conf`)} MB, BIND ${rssMb(`${bindDir}/named.conf`)} MB`,
  );
}

/** makes zones `from` to `to` (exclusive) in bulk, 1,000 a call */
async function makeZones(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 1000) {
    const res = await app.gql(`mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id } }`, {
      input: names.slice(i, Math.min(i + 1000, to)).map((zone) => ({ userId, zone })),
    });
    expect(res.errors).toBeUndefined();
  }
  at(`zones ${from} to ${to - 1} made`);
}

test(`${FIRST} zones made in bulk, then Knot and BIND configured from the printed text serve every one; zones_behind back to 0`, async () => {
  await makeZones(0, FIRST);
  // until they run, the secondaries serve nothing: every zone is behind for both, once the worker published it
  await waitFor(
    `every zone behind for both secondaries`,
    async () => {
      const behind = await zonesBehind();
      return behind.get(`${KNOT_ADDRESS}:${knotPort}`) === FIRST && behind.get(`127.0.0.1:${bindPort}`) === FIRST ? true : undefined;
    },
    60_000,
    500,
  );

  const print = async (software: string) => {
    const out = await runCli(app.baseUrl, [
      'nameserver-set',
      'secondary-config',
      'default',
      `127.0.0.1:${dnsPort}`,
      '--software',
      software,
    ]);
    expect(out).toMatchObject({ code: 0, err: '' });
    // sized for the zones the set holds now
    expect(out.out).toContain(` zones (${FIRST.toLocaleString('en-US')} now;`);
    return out.out.replace(PLACEHOLDER, tsig.secret);
  };
  const [knotText, bindText] = [await print('knot'), await print('bind')];
  // the sizing, as printed: BIND's limiter and transfer slots, Knot's workers (secondary-sizing.ts)
  expect(bindText).toMatch(/^ {2}serial-query-rate \d+;$/m);
  expect(bindText).toMatch(/^ {2}transfers-per-ns \d+;$/m);
  expect(knotText).toMatch(/^ {4}background-workers: \d+$/m);

  // Knot's own lines: its address, for answers and for its refresh queries and transfers (`via`), its folders
  knot = await startKnotd({
    port: knotPort,
    address: KNOT_ADDRESS,
    config: (dir) => `server:
    rundir: "${dir}/run"
    listen: ${KNOT_ADDRESS}@${knotPort}
database:
    storage: "${dir}/db"
log:
  - target: stderr
    any: info
${knotText
  .replaceAll('"/var/lib/knot/default"', `"${dir}/zones"`)
  .replace(`    address: 127.0.0.1@${dnsPort}\n`, `    address: 127.0.0.1@${dnsPort}\n    via: ${KNOT_ADDRESS}\n`)}`,
  });
  bindDir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-scale-bind-'));
  // BIND's own lines: its address and folder
  bind = await startNamed(bindDir, namedConfFrom([bindText], bindDir, bindPort));
  at('Knot and BIND started from the printed text');
  await everyZoneServedByBoth('the first zones', 600_000, FIRST);
}, 800_000);

test('the last zones made in bulk while they run: the catalog moves by IXFR, each zone NOTIFYed at its secondary’s pace, all served', async () => {
  const catalogTransfers = () =>
    knot!
      .log()
      .split('\n')
      .filter((line) => line.includes(`[${CATALOG}.] `) && /[AI]XFR, incoming/.test(line));
  const before = catalogTransfers().length;
  await makeZones(FIRST, ZONES);
  await everyZoneServedByBoth('the last zones', 300_000, ZONES);
  // RFC 9432 §5: each call's catalog step reached Knot by IXFR (one step a call, maybe several in one transfer)
  const after = catalogTransfers().slice(before);
  expect(after.length).toBeGreaterThan(0);
  expect(after.filter((line) => line.includes('AXFR, incoming'))).toEqual([]);
  // how long a zone's transfer took, as each secondary logs it (secondary-sizing.ts sizes for about 50 ms)
  const seconds = (pattern: RegExp, log: string) => {
    const all = [...log.matchAll(pattern)].map((m) => Number(m[1])).sort((a, b) => a - b);
    return all.length ? `median ${all[Math.floor(all.length / 2)]} s, p90 ${all[Math.floor(all.length * 0.9)]} s of ${all.length}` : 'none';
  };
  at(
    `transfers: BIND ${seconds(/Transfer completed: .*, ([\d.]+) secs/g, bind!.log())}; Knot ${seconds(/XFR, incoming, .*finished, ([\d.]+) seconds/g, knot!.log())}`,
  );
  // the paces, as /metrics gives them: each secondary's, learnt from what it took
  const metrics = (await app.http.get('/metrics')).text;
  for (const server of [`${KNOT_ADDRESS}:${knotPort}`, `127.0.0.1:${bindPort}`]) {
    const pace = new RegExp(`^zonekeeper_notify_pace\\{server="${server.replaceAll('.', '\\.')}"\\} ([\\d.]+)$`, 'm').exec(metrics);
    expect(pace).not.toBeNull();
    process.stdout.write(`NOTIFY pace of ${server}: ${pace![1]} a second\n`);
  }
}, 400_000);
