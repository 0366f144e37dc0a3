/**
 * Test support: a real Knot DNS secondary (knotd) configured only with the catalog zone, and dig.
 * Debian packages: knot (knotd), bind9-dnsutils (dig). Missing binaries make the tests FAIL with a message.
 */
import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { accessSync, chmodSync, chownSync, constants, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/free-port';
import { sleep, waitFor } from '../support/wait-for';

export function findBinary(name: string): string {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin', '/usr/bin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* next */
    }
  }
  throw new Error(`${name} not found: install the Debian packages knot and bind9-dnsutils (apt-get install -y knot bind9-dnsutils)`);
}

// one port picker for every test (test/support/free-port.ts)
export { freePort };

// the polling helpers live in test/support/wait-for.ts; the propagation tests import them from here too
export { sleep, waitFor };

export interface DigResult {
  stdout: string;
  status: string | undefined;
  lines: string[];
}

/** runs dig; `status` is the RCODE from the header line (NOERROR, NXDOMAIN, REFUSED, ...) */
export function dig(args: string[], timeoutMs?: number): Promise<DigResult> {
  const bin = findBinary('dig');
  // a transfer's first message follows the primary's reads of the zone (its key, its SOA, its sets, its records): on
  // a host a whole CI run loads, more than the 2 s a look-up is given
  const transfer = args.some((arg) => arg === 'AXFR' || arg.startsWith('IXFR'));
  const wait = transfer ? 15 : 2;
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      [`+time=${wait}`, '+tries=1', ...args],
      { timeout: timeoutMs ?? (wait + 8) * 1000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout) => {
        if (error && !stdout) return reject(error);
        const status = /status: ([A-Z]+)/.exec(stdout)?.[1];
        const lines = stdout.split('\n').filter((l) => l.trim() && !l.startsWith(';'));
        resolve({ stdout, status, lines });
      },
    );
  });
}

/** the answer records of `dig +short`-like output as [name, ttl, class, type, rdata] rows */
export function records(result: DigResult): { name: string; ttl: number; type: string; rdata: string }[] {
  return result.lines
    .map((line) => {
      const [name, ttl, , type, ...rest] = line.split(/\s+/);
      return { name: name.toLowerCase(), ttl: Number(ttl), type, rdata: rest.join(' ') };
    })
    .filter((r) => r.type !== 'TSIG');
}

/** the SOA serial Knot (or any server) serves for a zone, undefined when it does not serve it */
export async function servedSerial(port: number, zone: string): Promise<number | undefined> {
  const result = await dig(['@127.0.0.1', '-p', String(port), '+norec', zone, 'SOA']);
  if (result.status !== 'NOERROR') return undefined;
  const soa = records(result).find((r) => r.type === 'SOA');
  return soa ? Number(soa.rdata.split(/\s+/)[2]) : undefined;
}

export interface Knot {
  port: number;
  dir: string;
  log(): string;
  stop(): Promise<void>;
}

export interface KnotOptions {
  catalogZone: string;
  primaryPort: number;
  /** more primaries (several Zonekeeper processes with the dns role): Knot asks them in order, `primaryPort` first */
  morePrimaryPorts?: number[];
  tsig: { name: string; secret: string };
  port?: number;
  /**
   * the loopback address it listens on and transfers from (default 127.0.0.1): the primary tells secondaries
   * apart by their address (nameserver sets, docs/transfers.md)
   */
  address?: string;
}

function nobody(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'nobody']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'nobody']).toString().trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

function chownTree(dir: string, owner: { uid: number; gid: number }): void {
  chownSync(dir, owner.uid, owner.gid);
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) chownTree(full, owner);
    else chownSync(full, owner.uid, owner.gid);
  }
}

/**
 * Starts knotd as an unprivileged secondary (as `nobody` when the tests run as root) with its own config,
 * storage and rundir in a temporary folder, listening on a free loopback port. Its only zone is the catalog
 * (catalog-role: interpret); member zones come from the catalog with a template that transfers them from the
 * service, TSIG-signed, and accepts NOTIFY from it.
 */
export async function startKnot(options: KnotOptions): Promise<Knot> {
  const port = options.port ?? (await freePort());
  const address = options.address ?? '127.0.0.1';
  const config = (dir: string) => `
server:
    rundir: "${dir}/run"
    listen: ${address}@${port}${
      port < 1024 && nobody()
        ? `
    # a privileged port: knotd starts as root, binds, then runs as nobody
    user: nobody:nogroup`
        : ''
    }
    udp-workers: 2
    tcp-workers: 2
    background-workers: 2
database:
    storage: "${dir}/db"
log:
  - target: stderr
    any: info
key:
  - id: ${options.tsig.name}
    algorithm: hmac-sha256
    secret: ${options.tsig.secret}
remote:
  - id: zonekeeper
    address: [${[options.primaryPort, ...(options.morePrimaryPorts ?? [])].map((port) => `127.0.0.1@${port}`).join(', ')}]
    key: ${options.tsig.name}${
      options.address
        ? `
    via: ${address}`
        : ''
    }
    # a leaf secondary, configured as docs/propagation.md advises: without it, a NOTIFY for a zone that
    # changed less than a second ago can wait up to a second in Knot's scheduler
    block-notify-after-transfer: on
acl:
  - id: notify-from-zonekeeper
    address: 127.0.0.1
    key: ${options.tsig.name}
    action: notify
  # the tests read a secondary's copy of a zone back (a signed zone's AXFR, checked by the DNSSEC verifiers)
  - id: transfer-to-tests
    address: 127.0.0.1
    action: transfer
template:
  - id: default
    storage: "${dir}/zones"
    zonefile-sync: -1
    zonefile-load: none
    journal-content: changes
    refresh-min-interval: 2
    retry-min-interval: 1
    retry-max-interval: 3
  - id: member
    storage: "${dir}/zones"
    master: zonekeeper
    acl: [notify-from-zonekeeper, transfer-to-tests]
    zonefile-sync: -1
    zonefile-load: none
    journal-content: changes
    refresh-min-interval: 2
    retry-min-interval: 1
    retry-max-interval: 3
zone:
  - domain: ${options.catalogZone}.
    master: zonekeeper
    acl: notify-from-zonekeeper
    catalog-role: interpret
    catalog-template: member
`;
  return startKnotd({ port, address, config });
}

/**
 * Starts knotd with a configuration made for its folder (`dir`, holding run/, db/ and zones/), as an unprivileged
 * process (as `nobody` when the tests run as root), and waits until it answers on `address`@`port`.
 */
export async function startKnotd(options: { port: number; address?: string; config: (dir: string) => string }): Promise<Knot> {
  const knotd = findBinary('knotd');
  const { port } = options;
  const address = options.address ?? '127.0.0.1';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-knot-'));
  for (const sub of ['run', 'db', 'zones']) mkdirSync(path.join(dir, sub));
  const config = options.config(dir);
  const configFile = path.join(dir, 'knot.conf');
  writeFileSync(configFile, config);
  const owner = nobody();
  if (owner) chownTree(dir, owner);
  chmodSync(dir, 0o755);
  let output = '';
  const child: ChildProcess = spawn(knotd, ['-c', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(owner && port >= 1024 ? { uid: owner.uid, gid: owner.gid } : {}),
  });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  await waitFor(
    'knotd to listen',
    async () => {
      if (exited) throw new Error(`knotd exited: ${output}`);
      const result = await dig([`@${address}`, '-p', String(port), '+norec', 'version.server', 'CH', 'TXT']).catch(() => undefined);
      return result?.status ? true : undefined;
    },
    15_000,
    100,
  );
  return {
    port,
    dir,
    log: () => output,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        await waitFor('knotd to exit', async () => (exited ? true : undefined), 10_000, 50).catch(() => child.kill('SIGKILL'));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
