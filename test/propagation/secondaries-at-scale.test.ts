/**
 * Every secondary in step at a hoster's scale (docs/scale.md, «Every secondary in step»): 9,000 zones made in bulk
 * (`createDomains`, 1,000 a call), then a Knot DNS and a BIND secondary configured from the text the CLI prints
 * for the nameserver set (`zonekeeper nameserver-set secondary-config default <primary> --software …`, sized for the
 * zones), each with only its own address, folders and log added; both serve every zone at its serial, and
 * `zonekeeper_secondary_zones_behind` falls back to 0 for both. Then the last 1,000 made in bulk while they run: the
 * catalog moves by IXFR (one step a call), each new zone is NOTIFYed at its secondary's pace, both serve every zone
 * and `zones_behind` is 0 again.
 *
 * SECONDARIES_AT_SCALE_SOFTWARE names the secondaries (`knot,bind` by default; `nsd` and `powerdns` too, alone or
 * together), each configured from its printed text and following its printed steps: NSD 4.6 is given the catalog's
 * members by the printed `nsd-control addzones` line, PowerDNS's members their key by the printed statement on its
 * backend, each run as an operator's cron would (every 2 s, and a second more per 10,000 zones). PowerDNS's backend is
 * gsqlite3, or gpgsql with SECONDARIES_AT_SCALE_POWERDNS_BACKEND=gpgsql (a database of its own on the run's
 * PostgreSQL; Debian package pdns-backend-pgsql).
 * SECONDARIES_AT_SCALE_ZONES and SECONDARIES_AT_SCALE_WAIT_SECONDS (600: the bound docs/scale.md sets) size it
 * for a measurement.
 *
 * Each secondary listens and transfers from its own loopback address (BIND 127.0.0.1, Knot 127.0.0.2, NSD 127.0.0.3,
 * PowerDNS 127.0.0.4): the primary tells secondaries apart by their address (the NOTIFY pace follows what each asks
 * for). BIND listens only on an interface's addresses.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { querySoaSerial } from '../../src/dns-client/dns-client';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { createUser } from '../support/fixtures';
import { namedConfFrom, startNamed } from '../support/bind-secondary';
import { startNsd } from '../support/nsd-secondary';
import { PowerDnsBackend, startPowerDns } from '../support/powerdns-server';
import { startTestApp, TestApp } from '../support/test-app';
import { sleep, waitFor } from '../support/wait-for';
import { findBinary, freePort, startKnotd } from './knot';

/**
 * the zones made: a hoster's migration, nine in ten before the secondaries are configured (the printed text is
 * sized for the zones held then), the rest made in bulk while they run. BIND's sized `serial-query-rate` sets the
 * pace (80 refreshes a second at 9,000 zones held); bench/FINDINGS.md, «Secondaries at a hoster's scale».
 */
const ZONES = Number(process.env.SECONDARIES_AT_SCALE_ZONES ?? 10_000);
const FIRST = Math.round(ZONES * 0.9);
const WAIT_MS = Number(process.env.SECONDARIES_AT_SCALE_WAIT_SECONDS ?? 600) * 1000;
/**
 * SECONDARIES_AT_SCALE_CHANGE_EVERY_ZONE=1 adds a third step for a measurement (docs/scale.md): a change to every
 * zone through the API, as a hoster's tool makes it (one `applyZoneChanges` a zone, 100 a request, 4 requests at
 * once), then every secondary serves every zone at its new serial, each zone by IXFR at Knot.
 * SECONDARIES_AT_SCALE_CHANGE_EVERY_ZONE=ns-follow makes that change one call instead: the zones are in a nameserver
 * set of their own (`scale`, the secondaries' and the catalog's), and the set's NS names change with its zones
 * following (`zonesFollow`: the worker changes each zone).
 */
const CHANGE_EVERY_ZONE = ['1', 'ns-follow'].includes(process.env.SECONDARIES_AT_SCALE_CHANGE_EVERY_ZONE ?? '');
const NS_FOLLOW = process.env.SECONDARIES_AT_SCALE_CHANGE_EVERY_ZONE === 'ns-follow';
/** the zones' set: `default` (the settings'), or in the ns-follow mode one made for them */
const SET = NS_FOLLOW ? 'scale' : 'default';
const SET_NS = ['ns1.scale.test.', 'ns2.scale.test.'];
/**
 * SECONDARIES_AT_SCALE_DEFAULTS=1 runs each secondary on its software's defaults for what the printed text sizes
 * (docs/scale.md, the printed configuration's table): those lines taken out of the text, the rest (the catalog, the
 * key, the steps) kept. For a measurement beside the printed text's: CI runs the printed text.
 */
const DEFAULTS = process.env.SECONDARIES_AT_SCALE_DEFAULTS === '1';
/** the options each software's printed text sets for what secondary-sizing.ts sizes (Knot's: and what a zone writes) */
const SIZED_OPTIONS = {
  bind: ['serial-query-rate', 'transfers-in', 'transfers-per-ns'],
  knot: ['background-workers', 'zonefile-sync', 'zonefile-load', 'journal-content'],
  nsd: ['xfrd-tcp-max', 'xfrd-tcp-pipeline'],
  powerdns: ['retrieval-threads', 'xfr-cycle-interval'],
} as const;
/** the printed lines that set `software`'s sized options, each as its software writes an option */
const sizedLines = (software: keyof typeof SIZED_OPTIONS): RegExp => {
  const options = `(?:${SIZED_OPTIONS[software].join('|')})`;
  const line = { bind: ` {2}${options} \\d+;`, knot: ` {4}${options}: \\S+`, nsd: ` {4}${options}: \\d+`, powerdns: `${options}=\\d+` }[
    software
  ];
  return new RegExp(`^${line}$\\n?`, 'gm');
};
const CATALOG = 'catalog.scale.test';
const PLACEHOLDER = "<the key's secret, as given when it was made>";
const tsig = { name: 'scale-fleet', secret: randomBytes(32).toString('base64') };
const run = promisify(execFile);

const SOFTWARE = { knot: 'Knot', bind: 'BIND', nsd: 'NSD', powerdns: 'PowerDNS' } as const;
type Software = keyof typeof SOFTWARE;
const ADDRESSES: Record<Software, string> = { bind: '127.0.0.1', knot: '127.0.0.2', nsd: '127.0.0.3', powerdns: '127.0.0.4' };
const POWERDNS_BACKEND = (process.env.SECONDARIES_AT_SCALE_POWERDNS_BACKEND ?? 'gsqlite3') as PowerDnsBackend;
if (!['gsqlite3', 'gpgsql'].includes(POWERDNS_BACKEND))
  throw new Error(`SECONDARIES_AT_SCALE_POWERDNS_BACKEND: ${POWERDNS_BACKEND} is neither gsqlite3 nor gpgsql`);
const chosen = (process.env.SECONDARIES_AT_SCALE_SOFTWARE ?? 'knot,bind').split(',').map((name) => name.trim());
for (const name of chosen)
  if (!(name in SOFTWARE)) throw new Error(`SECONDARIES_AT_SCALE_SOFTWARE: ${name} is none of ${Object.keys(SOFTWARE).join(', ')}`);

interface Secondary {
  software: Software;
  name: string;
  host: string;
  port: number;
  /** host:port, as SECONDARIES and the metrics name it */
  server: string;
  running?: { log(): string; rssMb(): number | undefined; stop(): Promise<void> };
}
const secondaries: Secondary[] = [];
const all = chosen.map((software) => SOFTWARE[software as Software]).join(' and ');

let app: TestApp;
let dnsPort: number;
let userId: string;
/** the loops that follow the catalog for NSD and PowerDNS, as an operator's cron does, until the test ends */
let following = true;
const followers: Promise<void>[] = [];
const names = Array.from({ length: ZONES }, (_, i) => `z${i}.scale.test`);
const started = Date.now();
const at = (what: string) => process.stdout.write(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

beforeAll(async () => {
  buildOnce();
  dnsPort = await freePort();
  for (const software of chosen as Software[]) {
    const port = await freePort();
    const host = ADDRESSES[software];
    secondaries.push({ software, name: SOFTWARE[software], host, port, server: `${host}:${port}` });
  }
  const fleet = secondaries.map((s) => s.server);
  app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    SECONDARIES: NS_FOLLOW ? '' : fleet.join(','),
    TSIG_KEY: `${tsig.name}:hmac-sha256:${tsig.secret}`,
    CATALOG_ZONE: NS_FOLLOW ? `default.${CATALOG}` : CATALOG,
  });
  userId = await createUser(app, 'hoster@example.org');
  if (NS_FOLLOW) {
    const made = await app.gql(`mutation($i: NameserverSetInput!) { createNameserverSet(input: $i) { name } }`, {
      i: { name: SET, secondaries: fleet, nsNames: SET_NS, catalogZone: CATALOG },
    });
    expect(made.errors).toBeUndefined();
  }
}, 120_000);

afterAll(async () => {
  following = false;
  await Promise.all(followers);
  for (const secondary of secondaries) await secondary.running?.stop();
  await app?.close();
});

/**
 * runs `step` until the test ends, as cron would, every 2 s and a second more per 10,000 zones (NSD's line reads
 * the whole catalog and adds every member again); a failed run is tried again at the next
 */
function follow(what: string, step: () => Promise<unknown>): void {
  followers.push(
    (async () => {
      while (following) {
        await step().catch((error: Error) => at(`  ${what} failed (tried again): ${error.message.slice(0, 300)}`));
        await sleep(Math.max(2000, ZONES / 10));
      }
    })(),
  );
}

/** the printed line that follows `prefix` in a comment (`#   …`), the secret in place of its placeholder */
function printedStep(text: string, prefix: string): string {
  const line = text.split('\n').find((l) => l.startsWith(`#   ${prefix}`));
  expect(line).toBeDefined();
  return line!.slice(4).replace(PLACEHOLDER, tsig.secret);
}

/** starts `secondary` on its printed text, with only its own address, folders and log added */
async function startFromText(secondary: Secondary, text: string): Promise<NonNullable<Secondary['running']>> {
  const { host, port } = secondary;
  switch (secondary.software) {
    case 'knot': {
      const knot = await startKnotd({
        port,
        address: host,
        config: (dir) => `server:
    rundir: "${dir}/run"
    listen: ${host}@${port}
database:
    storage: "${dir}/db"
log:
  - target: stderr
    any: info
${text
  .replaceAll('"/var/lib/knot/default"', `"${dir}/zones"`)
  .replace(`    address: 127.0.0.1@${dnsPort}\n`, `    address: 127.0.0.1@${dnsPort}\n    via: ${host}\n`)}`,
      });
      return { ...knot, rssMb: () => rssMb(`${knot.dir}/knot.conf`) };
    }
    case 'bind': {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-scale-bind-'));
      const bind = await startNamed(dir, namedConfFrom([text], dir, port, '', host));
      return { ...bind, rssMb: () => rssMb(`${dir}/named.conf`) };
    }
    case 'nsd': {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-scale-nsd-'));
      const nsd = await startNsd(
        dir,
        `server:
    ip-address: ${host}
    port: ${port}
    do-ip6: no
    username: ""
    chroot: ""
    zonesdir: "${dir}"
    database: ""
    zonelistfile: "${dir}/zone.list"
    xfrdfile: "${dir}/xfrd.state"
    xfrdir: "${dir}"
    pidfile: "${dir}/nsd.pid"
remote-control:
    control-enable: yes
    control-interface: ${dir}/nsd.ctl
${text.replaceAll('"/var/lib/nsd/default/', `"${dir}/`).replace(/^( {4}request-xfr: .*)$/m, `$1\n    outgoing-interface: ${host}`)}`,
        port,
        host,
      );
      // NSD 4.6 reads no catalog: its members are added by the printed line, as cron would run it, dig reading the
      // key from the printed file (in the test's folder)
      const keyFile = path.join(dir, 'dig.key');
      writeFileSync(keyFile, `${printedStep(text, 'key "')}\n`, { mode: 0o600 });
      const members = printedStep(text, 'dig ')
        .replace(/ -k \S+ /, ` -k ${keyFile} `)
        .replace("--filter='nsd-control addzones'", `--filter='${findBinary('nsd-control')} -c ${nsd.configFile} addzones'`);
      follow('the NSD members added', () =>
        run('bash', ['-c', `set -o pipefail; ${members}`], { maxBuffer: 256 * 1024 * 1024, timeout: 300_000 }),
      );
      return { ...nsd, rssMb: () => rssMb(nsd.configFile) };
    }
    case 'powerdns': {
      const settings = text.split('\n').filter((line) => /^[a-z-]+=/.test(line));
      const pdns = await startPowerDns(
        [...settings, `local-address=${host}`, `local-port=${port}`, `query-local-address=${host}`],
        POWERDNS_BACKEND,
      );
      // the printed pdnsutil steps, one by one, on its backend
      for (const line of text.split('\n').filter((l) => l.startsWith('pdnsutil '))) {
        const args = [...line.slice('pdnsutil '.length).matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]);
        await run(findBinary('pdnsutil'), [`--config-dir=${pdns.configDir}`, ...args.map((a) => a.replace(PLACEHOLDER, tsig.secret))]);
      }
      // a member takes the catalog's primaries but not its key: the printed statement, as cron would run it
      const statement = printedStep(text, 'insert into domainmetadata');
      follow('the PowerDNS members given the key', () =>
        POWERDNS_BACKEND === 'gpgsql'
          ? run(findBinary('psql'), ['-v', 'ON_ERROR_STOP=1', '-q', pdns.database, '-c', statement], { timeout: 60_000 })
          : run(findBinary('sqlite3'), ['-cmd', '.timeout 10000', pdns.database, statement], { timeout: 60_000 }),
      );
      return { ...pdns, rssMb: () => rssMb(pdns.configDir) };
    }
  }
}

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

async function everyZoneServed(what: string, deadlineMs: number, zones: number): Promise<void> {
  const sampling = setInterval(
    () =>
      void Promise.all([zonesBehind(), paces()]).then(([behind, line]) =>
        at(`  behind ${secondaries.map((s) => `${s.name} ${behind.get(s.server)}`).join(', ')}; ${line}`),
      ),
    5000,
  );
  try {
    await servedByAll(what, deadlineMs, zones);
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
 * The service's own account first: `zonekeeper_secondary_zones_behind` at 0 for each secondary (the worker's SOA
 * queries after each change). Then each secondary asked for every zone's SOA by the test itself: what the metric
 * says served must be served. Only a query that timed out on a busy host is asked again; the zones asked once each
 * keep the test's own queries from taking the cores the secondaries refresh with.
 */
async function servedByAll(what: string, deadlineMs: number, zones: number): Promise<void> {
  const want = await serials();
  expect(want.size).toBe(zones);
  // the account covers every zone first: a status row for each zone and secondary (made as the worker publishes
  // the zone), then the metric's aggregate made again (every 500 ms at most), so that a 0 is never the one before
  await waitFor(
    `a status row for every zone and secondary (${what})`,
    async () => {
      const [row] = await app.service.database.db.rows<{ n: number }>(
        'select count(*)::int as n from zone_server_status where server = any($1::text[])',
        [secondaries.map((s) => s.server)],
      );
      return row.n === zones * secondaries.length ? true : undefined;
    },
    60_000 + zones,
    500,
  );
  await sleep(1000);
  let behind = new Map<string, number>();
  await waitFor(
    `zonekeeper_secondary_zones_behind at 0 for ${all} (${what})`,
    async () => {
      behind = await zonesBehind();
      return secondaries.every((s) => behind.get(s.server) === 0) ? true : undefined;
    },
    deadlineMs,
    1000,
  ).catch((error: Error) => {
    // what each server said, to see why
    const logs = secondaries.map((s) => `${s.name}'s log ends:\n${s.running!.log().split('\n').slice(-20).join('\n')}`);
    throw new Error(`${error.message}; behind: ${JSON.stringify([...behind])}; ${logs.join('\n')}`);
  });
  at(`zones_behind 0 for ${all} (${what})`);
  for (const { name, host, port } of secondaries) {
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
    `${all} serve every zone at its serial (${what}); resident memory: ${secondaries.map((s) => `${s.name} ${s.running!.rssMb()} MB`).join(', ')}`,
  );
}

/** makes zones `from` to `to` (exclusive) in bulk, 1,000 a call */
async function makeZones(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 1000) {
    const res = await app.gql(`mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id } }`, {
      input: names.slice(i, Math.min(i + 1000, to)).map((zone) => ({ userId, zone, ...(NS_FOLLOW ? { nameserverSet: SET } : {}) })),
    });
    expect(res.errors).toBeUndefined();
  }
  at(`zones ${from} to ${to - 1} made`);
}

test(
  `${FIRST} zones made in bulk, then ${all} configured from the printed text serve every one; zones_behind back to 0`,
  async () => {
    await makeZones(0, FIRST);
    // until they run, the secondaries serve nothing: every zone is behind for each, once the worker published it
    await waitFor(
      `every zone behind for each secondary`,
      async () => {
        const behind = await zonesBehind();
        return secondaries.every((s) => behind.get(s.server) === FIRST) ? true : undefined;
      },
      60_000 + ZONES,
      500,
    );

    const print = async (software: string) => {
      const out = await runCli(app.baseUrl, ['nameserver-set', 'secondary-config', SET, `127.0.0.1:${dnsPort}`, '--software', software]);
      expect(out).toMatchObject({ code: 0, err: '' });
      // sized for the zones the set holds now
      expect(out.out).toContain(` zones (${FIRST.toLocaleString('en-US')} now;`);
      return out.out.replace(PLACEHOLDER, tsig.secret);
    };
    for (const secondary of secondaries) {
      const text = await print(secondary.software);
      // the sizing, as printed (secondary-sizing.ts): each sized option once
      const sized = [...text.matchAll(sizedLines(secondary.software))].map((m) => m[0].trim());
      expect(sized.map((line) => /^[a-z-]+/.exec(line)![0]).sort()).toEqual([...SIZED_OPTIONS[secondary.software]].sort());
      if (DEFAULTS) at(`${secondary.name} on its defaults for: ${sized.join(' ')}`);
      secondary.running = await startFromText(secondary, DEFAULTS ? text.replace(sizedLines(secondary.software), '') : text);
    }
    at(`${all} started from the printed text${DEFAULTS ? ', on their defaults for what it sizes' : ''}`);
    await everyZoneServed('the first zones', WAIT_MS, FIRST);
  },
  WAIT_MS + 200_000,
);

test(
  'the last zones made in bulk while they run: the catalog moves by IXFR, each zone NOTIFYed at its secondary’s pace, all served',
  async () => {
    const knot = secondaries.find((s) => s.software === 'knot')?.running;
    const bind = secondaries.find((s) => s.software === 'bind')?.running;
    const catalogTransfers = () =>
      (knot?.log() ?? '').split('\n').filter((line) => line.includes(`[${CATALOG}.] `) && /[AI]XFR, incoming/.test(line));
    const before = catalogTransfers().length;
    await makeZones(FIRST, ZONES);
    await everyZoneServed('the last zones', WAIT_MS / 2, ZONES);
    // RFC 9432 §5: each call's catalog step reached Knot by IXFR (one step a call, maybe several in one transfer)
    if (knot) {
      const after = catalogTransfers().slice(before);
      expect(after.length).toBeGreaterThan(0);
      expect(after.filter((line) => line.includes('AXFR, incoming'))).toEqual([]);
    }
    // how long a zone's transfer took, as each secondary logs it (secondary-sizing.ts sizes for about 50 ms)
    const seconds = (pattern: RegExp, log: string) => {
      const times = [...log.matchAll(pattern)].map((m) => Number(m[1])).sort((a, b) => a - b);
      return times.length
        ? `median ${times[Math.floor(times.length / 2)]} s, p90 ${times[Math.floor(times.length * 0.9)]} s of ${times.length}`
        : 'none';
    };
    if (bind) at(`transfers: BIND ${seconds(/Transfer completed: .*, ([\d.]+) secs/g, bind.log())}`);
    if (knot) at(`transfers: Knot ${seconds(/XFR, incoming, .*finished, ([\d.]+) seconds/g, knot.log())}`);
    // the paces, as /metrics gives them: each secondary's, learnt from what it took
    const metrics = (await app.http.get('/metrics')).text;
    for (const { server } of secondaries) {
      const pace = new RegExp(`^zonekeeper_notify_pace\\{server="${server.replaceAll('.', '\\.')}"\\} ([\\d.]+)$`, 'm').exec(metrics);
      expect(pace).not.toBeNull();
      process.stdout.write(`NOTIFY pace of ${server}: ${pace![1]} a second\n`);
    }
  },
  WAIT_MS / 2 + 100_000,
);

/** one zone's change: a TXT record added at its apex, one IXFR */
const changeOf = (zone: string, i: number) =>
  `c${i}: applyZoneChanges(zone: "${zone}", changes: [{kind: ADD, owner: "@", type: "TXT", rdata: "\\"every zone changed\\"", ttl: 300}]) { serial }`;

if (CHANGE_EVERY_ZONE)
  test(
    'a change to every zone through the API: every secondary serves every zone at its new serial, by IXFR',
    async () => {
      const knot = secondaries.find((s) => s.software === 'knot')?.running;
      const knotFrom = knot?.log().split('\n').length ?? 0;
      const changeStarted = Date.now();
      if (NS_FOLLOW) {
        const changed = await app.gql(
          `mutation($i: NameserverSetUpdateInput!) { updateNameserverSet(name: "${SET}", input: $i) { nsNames } }`,
          {
            i: {
              secondaries: secondaries.map((s) => s.server),
              nsNames: ['ns1.renamed.scale.test.', 'ns2.renamed.scale.test.'],
              zonesFollow: true,
            },
          },
        );
        expect(changed.errors).toBeUndefined();
        const read = `{ nameserverSet(name: "${SET}") { nsFollow { zonesChanged zonesLeft } } }`;
        await waitFor(
          "the set's zones to follow its new NS names",
          async () => {
            const follow = (await app.gql(read)).data?.nameserverSet.nsFollow;
            if (follow) at(`  NS follow: ${follow.zonesChanged} changed, ${follow.zonesLeft} left`);
            return follow === null ? true : undefined;
          },
          WAIT_MS,
          5000,
        );
        const [ended] = await app.service.database.db.rows<{ detail: { zonesChanged: number } }>(
          `select detail from audit_events where kind = 'nameserver-set-ns-followed'`,
        );
        expect(ended.detail.zonesChanged).toBe(ZONES);
      }
      let next = NS_FOLLOW ? ZONES : 0;
      const requests = Array.from({ length: 4 }, async () => {
        while (next < ZONES) {
          const from = next;
          next += 100;
          const res = await app.gql(
            `mutation { ${names
              .slice(from, from + 100)
              .map(changeOf)
              .join('\n')} }`,
          );
          expect(res.errors).toBeUndefined();
        }
      });
      await Promise.all(requests);
      const changeSeconds = (Date.now() - changeStarted) / 1000;
      at(`every zone changed ${NS_FOLLOW ? 'by the NS follow' : 'through the API'} (${Math.round(ZONES / changeSeconds)} zones a second)`);
      await everyZoneServed('every zone changed', WAIT_MS, ZONES);
      at(`every zone changed served by ${all}: ${((Date.now() - changeStarted) / 1000).toFixed(1)} s after the first change`);
      // each zone's change reached Knot by IXFR: no member zone transferred whole since the change began
      if (knot) {
        const lines = knot
          .log()
          .split('\n')
          .slice(knotFrom - 1);
        const incoming = lines.filter((line) => /\.scale\.test\.\] [AI]XFR, incoming, .*finished/.test(line));
        expect(incoming.length).toBeGreaterThan(0);
        expect(incoming.filter((line) => line.includes('AXFR, incoming'))).toEqual([]);
      }
    },
    WAIT_MS + 600_000,
  );
