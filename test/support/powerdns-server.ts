/**
 * Test support: PowerDNS Authoritative (Debian's pdns-server 4.7 with pdns-backend-sqlite3) as its own process,
 * the reference the PowerDNS API edge (src/powerdns) is held against. Everything in a temp dir: the config dir
 * (never /etc/powerdns), the gsqlite3 database made from the package's schema, the control socket. Its HTTP API
 * and its DNS port (AXFR allowed from loopback) on free loopback ports. A missing binary makes the test FAIL.
 * Debian packages: pdns-server, pdns-backend-sqlite3, sqlite3 (to load the schema).
 */
import { ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findBinary, freePort } from '../propagation/knot';
import { killGroup, spawnGroup } from './process-group';
import { createTestDatabase } from './test-db';
import { waitFor } from './wait-for';

const SQLITE_SCHEMA = [
  '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql',
  '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql',
];

export const POWERDNS_API_KEY = 'powerdns-reference-key';

/**
 * The SOA PowerDNS gives a zone created without one: Zonekeeper's defaults (DEFAULT_SOA_MNAME/RNAME and its
 * timers, src/services/zones/domains.service.ts), so that the two servers' zones differ by the serial only.
 */
export const COMPARABLE_SOA = 'ns1.example.net. hostmaster.example.net. 0 3600 1800 604800 86400';

export interface PowerDnsServer {
  /** http://127.0.0.1:<port> (the API is under /api) */
  baseUrl: string;
  apiKey: string;
  /** the DNS port (UDP and TCP; AXFR allowed from 127.0.0.0/8) */
  dnsPort: number;
  /** "4.7.3" */
  version: string;
  /** its configuration folder (pdnsutil's `--config-dir`) and its database (gsqlite3's file, gpgsql's URL) */
  configDir: string;
  database: string;
  log(): string;
  stop(): Promise<void>;
}

export function schemaFile(): string {
  const found = SQLITE_SCHEMA.find((file) => existsSync(file));
  if (!found) throw new Error('the gsqlite3 schema is missing: install the Debian package pdns-backend-sqlite3');
  return found;
}

export function powerDnsVersion(): string {
  // `--version` prints the banner and exits 99 in 4.7; the banner is what counts
  let text: string;
  try {
    text = execFileSync(findBinary('pdns_server'), ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error: any) {
    text = `${error.stdout ?? ''}${error.stderr ?? ''}`;
  }
  const version = /PowerDNS Authoritative Server (\d+\.\d+\.\d+)/.exec(text)?.[1];
  if (!version) throw new Error(`pdns_server --version said: ${text.slice(0, 300)}`);
  return version;
}

/**
 * Its backend: gsqlite3 (a file in its folder), or gpgsql on a database of its own on the run's PostgreSQL
 * (`createTestDatabase`; Debian package pdns-backend-pgsql), as a hoster's PowerDNS keeps its zones in a database
 * server (four times slower than gsqlite3 at taking 100,000 zones: a new connection a transfer, docs/scale.md).
 */
export type PowerDnsBackend = 'gsqlite3' | 'gpgsql';

const PGSQL_SCHEMA = '/usr/share/pdns-backend-pgsql/schema/schema.pgsql.sql';

/** the backend's database made and its settings; `database` is the file or the connection URL */
async function backendDatabase(
  backend: PowerDnsBackend,
  dir: string,
): Promise<{ database: string; config: string[]; drop(): Promise<void> }> {
  if (backend === 'gsqlite3') {
    const database = path.join(dir, 'pdns.sqlite3');
    execFileSync(findBinary('sqlite3'), [database], { input: readFileSync(schemaFile()), stdio: ['pipe', 'ignore', 'pipe'] });
    // its DNSSEC tables: cryptokeys as DNSControl's AUTODNSSEC and PowerDNS-Admin make them
    return {
      database,
      config: ['launch=gsqlite3', `gsqlite3-database=${database}`, 'gsqlite3-dnssec=yes'],
      drop: async () => undefined,
    };
  }
  if (!existsSync(PGSQL_SCHEMA)) throw new Error('the gpgsql schema is missing: install the Debian package pdns-backend-pgsql');
  const created = await createTestDatabase();
  execFileSync(findBinary('psql'), ['-v', 'ON_ERROR_STOP=1', '-q', created.url], {
    input: readFileSync(PGSQL_SCHEMA),
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  const url = new URL(created.url);
  return {
    database: created.url,
    config: [
      'launch=gpgsql',
      `gpgsql-host=${url.hostname}`,
      `gpgsql-port=${url.port || 5432}`,
      `gpgsql-user=${decodeURIComponent(url.username)}`,
      `gpgsql-password=${decodeURIComponent(url.password)}`,
      `gpgsql-dbname=${url.pathname.slice(1)}`,
      // its DNSSEC tables, as gsqlite3's
      'gpgsql-dnssec=yes',
    ],
    drop: () => created.drop(),
  };
}

export async function startPowerDns(extraConfig: string[] = [], backend: PowerDnsBackend = 'gsqlite3'): Promise<PowerDnsServer> {
  const binary = findBinary('pdns_server');
  const version = powerDnsVersion();
  if (!version.startsWith('4.7.')) throw new Error(`the differential is against PowerDNS 4.7 (Debian bookworm); found ${version}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-powerdns-'));
  const { database, config: backendConfig, drop } = await backendDatabase(backend, dir);
  const apiPort = await freePort();
  const dnsPort = await freePort();
  const config = [
    ...backendConfig,
    'api=yes',
    `api-key=${POWERDNS_API_KEY}`,
    'webserver=yes',
    'webserver-address=127.0.0.1',
    `webserver-port=${apiPort}`,
    'webserver-allow-from=127.0.0.0/8',
    'local-address=127.0.0.1',
    `local-port=${dnsPort}`,
    'allow-axfr-ips=127.0.0.0/8',
    // no NOTIFY to the zones' name servers (ns1.example.net. is on the internet)
    'disable-axfr=no',
    'only-notify=',
    `socket-dir=${dir}`,
    'daemon=no',
    'guardian=no',
    'disable-syslog=yes',
    'loglevel=4',
    // no security-status query to the internet
    'security-poll-suffix=',
    // every answer fresh: the differential reads each zone right after a write
    'cache-ttl=0',
    'negquery-cache-ttl=0',
    'query-cache-ttl=0',
    'zone-cache-refresh-interval=0',
    `default-soa-content=${COMPARABLE_SOA}`,
    ...extraConfig,
  ].join('\n');
  writeFileSync(path.join(dir, 'pdns.conf'), `${config}\n`);
  let output = '';
  // a process group of its own, killed as a group, and with the test process should it end first (process-group.ts)
  const child: ChildProcess = spawnGroup(binary, [`--config-dir=${dir}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH },
  });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  const baseUrl = `http://127.0.0.1:${apiPort}`;
  const stop = async () => {
    if (!exited) {
      killGroup(child, 'SIGTERM');
      await waitFor('pdns_server to exit', async () => (exited ? true : undefined), 10_000, 50).catch(async () => {
        killGroup(child, 'SIGKILL');
        await waitFor('pdns_server to be killed', async () => (exited ? true : undefined), 10_000, 50);
      });
    }
    rmSync(dir, { recursive: true, force: true });
    await drop();
  };
  try {
    await waitFor(
      'the PowerDNS API to answer',
      async () => {
        if (exited) throw new Error(`pdns_server exited: ${output.slice(-2000)}`);
        const res = await fetch(`${baseUrl}/api/v1/servers/localhost`, { headers: { 'X-API-Key': POWERDNS_API_KEY } });
        return res.status === 200 ? true : undefined;
      },
      20_000,
      100,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, apiKey: POWERDNS_API_KEY, dnsPort, version, configDir: dir, database, log: () => output, stop };
}

/**
 * PowerDNS as a plain secondary of the service for the zones a test names: `secondary=yes`, NOTIFY taken from
 * loopback, each zone created through its API as a secondary zone of our primary with the test's TSIG key for
 * its transfers (what an operator does with `pdnsutil create-secondary-zone` and `activate-tsig-key`). No
 * configuration of anything the service publishes (ALIAS flattening included): it serves what it transferred.
 */
export async function startPowerDnsSecondary(options: {
  zones: string[];
  primaryPort: number;
  tsig: { name: string; secret: string };
}): Promise<PowerDnsServer> {
  const server = await startPowerDns([
    'secondary=yes',
    'allow-notify-from=127.0.0.0/8',
    // its own check of the primary's serials, besides NOTIFY: every second, as the tests' primary answers at once
    'xfr-cycle-interval=1',
  ]);
  try {
    const api = async (pathname: string, body: unknown) => {
      const res = await fetch(`${server.baseUrl}/api/v1/servers/localhost${pathname}`, {
        method: 'POST',
        headers: { 'X-API-Key': server.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`PowerDNS ${pathname}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string };
    };
    const key = await api('/tsigkeys', { name: options.tsig.name, algorithm: 'hmac-sha256', key: options.tsig.secret });
    for (const zone of options.zones)
      await api('/zones', {
        name: zone.endsWith('.') ? zone : `${zone}.`,
        kind: 'Slave',
        masters: [`127.0.0.1:${options.primaryPort}`],
        slave_tsig_key_ids: [key.id],
      });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

/** one RRset of a zone created or changed through PowerDNS's API: REPLACE with its contents, DELETE without */
export function powerDnsRrset(name: string, type: string, contents: string[]) {
  return {
    name: `${name}.`,
    type,
    ttl: 300,
    changetype: contents.length ? 'REPLACE' : 'DELETE',
    records: contents.map((content) => ({ content, disabled: false })),
  };
}

/** PowerDNS's HTTP API for its zones (`pathname` below /zones); a 3xx or worse fails the test */
export async function powerDnsZonesApi(server: PowerDnsServer, method: string, pathname: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.baseUrl}/api/v1/servers/localhost/zones${pathname}`, {
    method,
    headers: { 'X-API-Key': server.apiKey, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`PowerDNS ${method} ${pathname}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/**
 * The zone's serial once PowerDNS's primary loop has NOTIFYed it (notified_serial = serial). A change is made only
 * then: when the loop's write of notified_serial lands inside an API change's transaction, PowerDNS answers the
 * change 500 (its log: `GSQLBackend unable to delete RRSet …: database is locked (5)`; 7 of 1,500 PATCHes made back
 * to back on fresh zones, and once in secondary-pdns-primary before it waited)
 */
export function powerDnsNotified(server: PowerDnsServer, zone: string): Promise<number> {
  return waitFor('PowerDNS to have NOTIFYed its serial', async () => {
    const state = await powerDnsZonesApi(server, 'GET', `/${zone}.`);
    return state.notified_serial === state.serial ? (state.serial as number) : undefined;
  });
}

/**
 * PowerDNS as the hidden primary of a secondary zone of the service: `zone` made through its API as a Master zone
 * of `rrsets` (soa_edit_api INCREASE: each API change raises the serial), its changes NOTIFYed to our DNS edge at
 * `notifyPort`.
 */
export async function startPowerDnsPrimary(options: {
  notifyPort: number;
  zone: string;
  rrsets: ReturnType<typeof powerDnsRrset>[];
}): Promise<PowerDnsServer> {
  const server = await startPowerDns([
    // a primary: it NOTIFYs its Master zones' changes to our DNS edge (only-notify stays empty: not to the NS)
    'primary=yes',
    `also-notify=127.0.0.1:${options.notifyPort}`,
    // its check of its Master zones' serials, that sends the NOTIFYs: every second
    'xfr-cycle-interval=1',
  ]);
  try {
    await powerDnsZonesApi(server, 'POST', '', {
      name: `${options.zone}.`,
      kind: 'Master',
      soa_edit_api: 'INCREASE',
      rrsets: options.rrsets,
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
