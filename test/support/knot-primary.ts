/**
 * Test support: knotd as a plain primary serving zone files as they are. No Knot signing (dnssec-signing off),
 * no journal, no zone-file write-back: what the file holds, signatures included, is what Knot serves, so a test
 * can put a zone signed by the model (or tampered with) in front of a resolver.
 * Debian package: knot. A missing binary makes the test FAIL.
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dig, findBinary, freePort } from '../propagation/knot';
import { sleep, waitFor } from './wait-for';

export interface ServedZone {
  /** the zone's apex, without the trailing dot */
  zone: string;
  /** its zone file (absolute path) */
  file: string;
}

export interface KnotPrimary {
  port: number;
  log(): string;
  /** reads every zone file again (knotc zone-reload); the test raises the SOA serial of a file it rewrote */
  reload(): Promise<void>;
  stop(): Promise<void>;
}

/** a zone's name with its trailing dot (the root: '.') */
const fqdn = (zone: string) => (zone.endsWith('.') ? zone : `${zone}.`);

export async function startKnotPrimary(
  zones: ServedZone[],
  /**
   * allowTransfer: AXFR and IXFR allowed from loopback (an ACL); none by default. Knot's tcp-io-timeout is then
   * 10 s, not 500 ms: on a loaded machine a reader of a large transfer can stall longer than that, and Knot cuts
   * the transfer ("closed the connection before the transfer's last SOA")
   */
  options: { allowTransfer?: boolean; address?: string; port?: number } = {},
): Promise<KnotPrimary> {
  const knotd = findBinary('knotd');
  // a given address and port (a DNS hierarchy on loopback addresses at port 53: test/integration/health-hierarchy.test.ts)
  const address = options.address ?? '127.0.0.1';
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-knot-primary-'));
  for (const sub of ['run', 'db']) mkdirSync(path.join(dir, sub));
  const config = `server:
    rundir: "${dir}/run"
    listen: ${address}@${port}
    udp-workers: 1
    tcp-workers: 1
    background-workers: 1
${options.allowTransfer ? '    tcp-io-timeout: 10000\n' : ''}database:
    storage: "${dir}/db"
log:
  - target: stderr
    any: info
${options.allowTransfer ? 'acl:\n  - id: loopback-transfer\n    address: 127.0.0.0/8\n    action: transfer\n' : ''}template:
  - id: default
    dnssec-signing: off
    zonefile-load: whole
    zonefile-sync: -1
    journal-content: none
${options.allowTransfer ? '    acl: loopback-transfer\n' : ''}zone:
${zones.map((z) => `  - domain: ${fqdn(z.zone)}\n    file: "${z.file}"`).join('\n')}
`;
  const configFile = path.join(dir, 'knot.conf');
  writeFileSync(configFile, config);
  let output = '';
  const child: ChildProcess = spawn(knotd, ['-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  // every zone loaded: each answers its SOA with authority
  for (const { zone } of zones) {
    await waitFor(
      `knotd to serve ${zone}`,
      async () => {
        if (exited) throw new Error(`knotd exited: ${output}`);
        const result = await dig([`@${address}`, '-p', String(port), '+norec', fqdn(zone), 'SOA']).catch(() => undefined);
        return result?.status === 'NOERROR' && /flags:[^;]* aa/.test(result.stdout) ? true : undefined;
      },
      15_000,
      100,
    );
  }
  return {
    port,
    log: () => output,
    async reload() {
      await promisify(execFile)(findBinary('knotc'), ['-c', configFile, 'zone-reload']);
    },
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        await waitFor('knotd to exit', async () => (exited ? true : undefined), 10_000, 50).catch(async () => {
          child.kill('SIGKILL');
          await sleep(100);
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
