/**
 * Test support: Debian's Unbound as a VALIDATING resolver (module-config "validator iterator") that knows only
 * the zones a test gives it. Each zone is a stub-zone pointed at a server the test runs (a Knot secondary or
 * primary on a loopback port), and its trust anchor is the DS a parent would publish, so no root hints and no
 * root trust anchor are needed: validation starts at the configured anchor (RFC 4035 §4.4).
 *
 * Chosen where the brief was silent:
 * - The cache is flushed through unbound-control over a Unix socket with `control-use-cert: no`: no TLS keys to
 *   generate, and the socket lives in the resolver's own temporary folder, so nothing else can reach it.
 * - TTLs are capped (cache-max-ttl, cache-max-negative-ttl, 2 s by default) and a bogus answer is cached for
 *   1 s (val-bogus-ttl, 60 s by default) so a test that changes a zone sees the change without waiting minutes;
 *   `flush()` empties the caches at once when a test cannot wait even that long.
 * - The infrastructure cache keeps probing a server that timed out (infra-keep-probing) and forgets it after
 *   10 s, so a server restarted by a test is asked again instead of being held down for 15 minutes.
 * - Answers are read with dig with the DO bit (+dnssec): a validator sets AD only for a query with DO or AD
 *   (RFC 6840 §5.7, §5.8), and the RRSIGs come with the answer for a test that wants them.
 *
 * Debian package: unbound (installed by scripts/ensure-test-tools.sh). A missing binary makes the test FAIL.
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findBinary, freePort } from '../propagation/knot';
import { sleep, waitFor } from './wait-for';

export interface TrustAnchor {
  /** the zone's apex, with or without the trailing dot */
  zone: string;
  /** the DS RDATA in presentation form as the parent would publish it: "<tag> <algorithm> <digest type> <hex>" */
  ds: string[];
}

export interface StubZone {
  /** the zone's apex, with or without the trailing dot */
  zone: string;
  /** the authoritative server that serves it; 127.0.0.1 unless told */
  address?: string;
  port: number;
}

export interface UnboundOptions {
  trustAnchors: TrustAnchor[];
  stubs: StubZone[];
  /** the upper bound on any cached TTL, positive and negative, in seconds (default 2) */
  cacheMaxTtl?: number;
  port?: number;
  /**
   * harden-algo-downgrade: a zone must be signed with every algorithm its DS RRset names, not just one the
   * validator supports (the strict validator an algorithm rollover must not break, RFC 6781 §4.1.4)
   */
  hardenAlgoDowngrade?: boolean;
  /**
   * the loopback address the resolver asks its stub servers from (outgoing-interface), when a server answers by the
   * asker's address (a BIND secondary with views, docs/views.md); 127.0.0.1 unless told
   */
  outgoingInterface?: string;
}

export interface ResolverRecord {
  name: string;
  ttl: number;
  type: string;
  rdata: string;
}

export interface ResolverAnswer {
  /** NOERROR, NXDOMAIN, SERVFAIL, ... */
  rcode: string;
  /** the Authenticated Data flag: the validator proved the answer (RFC 4035 §3.2.3) */
  ad: boolean;
  answer: ResolverRecord[];
  authority: ResolverRecord[];
  /** dig's whole output, for a failing assertion's message */
  text: string;
}

export interface Unbound {
  port: number;
  dir: string;
  /** asks the resolver (recursion desired, DO set) */
  query(name: string, type: string): Promise<ResolverAnswer>;
  /** the RRsets in Unbound's cache, in zone-file form (unbound-control dump_cache), to see what a test's answer came from */
  cacheDump(): Promise<string>;
  /** empties the message, RRset, key, negative and bogus caches under `zone` (the root: everything) and the infrastructure cache */
  flush(zone?: string): Promise<void>;
  /** Unbound's log file: validation failures with their reason (val-log-level 2), SERVFAIL reasons */
  log(): string;
  stop(): Promise<void>;
}

const fqdn = (name: string): string => (name.endsWith('.') ? name : `${name}.`);

function execText(bin: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(bin, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${path.basename(bin)} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`));
      resolve(stdout);
    });
  });
}

/** the records of one section of dig's output (";; ANSWER SECTION:" up to the next blank line) */
function section(text: string, title: string): ResolverRecord[] {
  const start = text.indexOf(`;; ${title} SECTION:\n`);
  if (start < 0) return [];
  const body = text.slice(start).split('\n').slice(1);
  const end = body.findIndex((line) => !line.trim());
  return body
    .slice(0, end < 0 ? undefined : end)
    .filter((line) => !line.startsWith(';'))
    .map((line) => {
      const [name, ttl, , type, ...rest] = line.split(/\s+/);
      return { name: name.toLowerCase(), ttl: Number(ttl), type, rdata: rest.join(' ') };
    });
}

export function parseDigAnswer(text: string): ResolverAnswer {
  const rcode = /status: ([A-Z]+)/.exec(text)?.[1];
  const flags = /;; flags: ([a-z ]*);/.exec(text)?.[1];
  if (!rcode || flags === undefined) throw new Error(`no answer from the resolver:\n${text}`);
  return {
    rcode,
    ad: flags.split(' ').includes('ad'),
    answer: section(text, 'ANSWER'),
    authority: section(text, 'AUTHORITY'),
    text,
  };
}

export async function startUnbound(options: UnboundOptions): Promise<Unbound> {
  const unbound = findBinary('unbound');
  const unboundControl = findBinary('unbound-control');
  const digBin = findBinary('dig');
  const port = options.port ?? (await freePort());
  const maxTtl = options.cacheMaxTtl ?? 2;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-unbound-'));
  const logFile = path.join(dir, 'unbound.log');
  const controlSocket = path.join(dir, 'control.sock');
  const anchors = options.trustAnchors.flatMap((anchor) => anchor.ds.map((ds) => `    trust-anchor: "${fqdn(anchor.zone)} DS ${ds}"`));
  const stubs = options.stubs.map(
    (stub) => `stub-zone:
    name: "${fqdn(stub.zone)}"
    stub-addr: ${stub.address ?? '127.0.0.1'}@${stub.port}
    stub-first: no`,
  );
  const config = `server:
    interface: 127.0.0.1
    port: ${port}
    do-ip4: yes
    do-ip6: no
    do-udp: yes
    do-tcp: yes
    access-control: 127.0.0.0/8 allow
${options.outgoingInterface ? `    outgoing-interface: ${options.outgoingInterface}\n` : ''}    num-threads: 1
    so-reuseport: no
    # in the foreground, as whoever runs the tests, in its own folder: no chroot, no privilege drop, no pid file elsewhere
    do-daemonize: no
    chroot: ""
    username: ""
    directory: "${dir}"
    pidfile: "${dir}/unbound.pid"
    use-syslog: no
    logfile: "${logFile}"
    verbosity: 1
    log-servfail: yes
    # one line per validation failure, with the reason and the server it came from
    val-log-level: 2
    module-config: "validator iterator"
    # the zones under test are on loopback; Unbound refuses to ask localhost unless told
    do-not-query-localhost: no
    # RFC 4035 §4.3: data below an anchor that comes without signatures is bogus, not insecure
    harden-dnssec-stripped: yes
    harden-algo-downgrade: ${options.hardenAlgoDowngrade ? 'yes' : 'no'}
    # validation from the configured anchors only: no RFC 5011 root key file, no root-key-sentinel, no DLV
    trust-anchor-signaling: no
    root-key-sentinel: no
${anchors.join('\n')}
    # names under the special-use TLDs the tests use (RFC 6761: test, example, invalid…) are answered by
    # Unbound's built-in local zones with NXDOMAIN unless those are turned off for the stubbed zones' TLDs
${[...new Set(options.stubs.map((stub) => fqdn(stub.zone).split('.').slice(-2).join('.')))].map((tld) => `    local-zone: "${tld}" nodefault`).join('\n')}
    cache-min-ttl: 0
    cache-max-ttl: ${maxTtl}
    cache-max-negative-ttl: ${maxTtl}
    val-bogus-ttl: 1
    serve-expired: no
    prefetch: no
    prefetch-key: no
    infra-host-ttl: 10
    infra-keep-probing: yes
    minimal-responses: no
remote-control:
    control-enable: yes
    control-interface: "${controlSocket}"
    control-use-cert: no
${stubs.join('\n')}
`;
  const configFile = path.join(dir, 'unbound.conf');
  writeFileSync(configFile, config);
  await execText(findBinary('unbound-checkconf'), [configFile], 10_000);

  let output = '';
  const child: ChildProcess = spawn(unbound, ['-d', '-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  const log = (): string => `${output}${existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''}`;
  const control = (args: string[]): Promise<string> => execText(unboundControl, ['-c', configFile, ...args], 10_000);

  await waitFor(
    'unbound to answer',
    async () => {
      if (exited) throw new Error(`unbound exited: ${log()}`);
      // Unbound answers version.bind CH TXT itself, before any recursion
      const text = await execText(
        digBin,
        ['@127.0.0.1', '-p', String(port), '+time=1', '+tries=1', 'version.bind', 'CH', 'TXT'],
        5_000,
      ).catch(() => '');
      return /status: NOERROR/.test(text) && existsSync(controlSocket) ? true : undefined;
    },
    15_000,
    100,
  );

  return {
    port,
    dir,
    log,
    async query(name, type) {
      // a validator may ask the server several times before it calls an answer bogus: a generous timeout, one try
      const text = await execText(digBin, ['@127.0.0.1', '-p', String(port), '+dnssec', '+time=8', '+tries=1', fqdn(name), type], 15_000);
      return parseDigAnswer(text);
    },
    async cacheDump() {
      return control(['dump_cache']);
    },
    async flush(zone = '.') {
      await control(['flush_zone', fqdn(zone)]);
      await control(['flush_bogus']);
      await control(['flush_negative']);
      await control(['flush_infra', 'all']);
    },
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        await waitFor('unbound to exit', async () => (exited ? true : undefined), 10_000, 50).catch(async () => {
          child.kill('SIGKILL');
          await sleep(100);
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
