/**
 * NSD (Debian's `nsd`, NLnet Labs) as a plain secondary of the service for the zones a test names: transfers
 * (IXFR, AXFR when the primary answers so) signed with the test's TSIG key, NOTIFY taken from loopback signed
 * with it, the zones served from memory (no database file) and their copies kept in its own temporary folder.
 * It runs in the foreground (-d) on a free loopback port, and its log is kept for the test to read.
 *
 * Chosen for the tests: `xfrd-reload-timeout: 0`. NSD's transfer daemon otherwise waits a second between two
 * reloads of the served zones (its default throttle), so a change a second after the last one would be served a
 * second late; an operator who wants changes served at once sets the same. Retries are short (min-retry-time 1),
 * as the tests' primary may start after NSD.
 *
 * Debian package: nsd (installed by scripts/ensure-test-tools.sh). A missing binary makes the test FAIL.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findBinary, freePort } from '../propagation/knot';
import { sleep, waitFor } from './wait-for';
import { sendUdp } from './update-clients';

export interface NsdSecondary {
  port: number;
  log(): string;
  stop(): Promise<void>;
}

export async function startNsdSecondary(options: {
  zones: string[];
  primaryPort: number;
  tsig: { name: string; secret: string };
  /** more top-level sections of the configuration (a `dnstap:` section, say) */
  more?: string;
}): Promise<NsdSecondary> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-nsd-'));
  const zones = options.zones
    .map(
      (zone) => `zone:
  name: "${zone}"
  zonefile: "${dir}/${zone}.zone"
  request-xfr: 127.0.0.1@${options.primaryPort} ${options.tsig.name}
  allow-notify: 127.0.0.1 ${options.tsig.name}
  # the tests read a secondary's copy back
  provide-xfr: 127.0.0.1 NOKEY
  min-retry-time: 1
  min-refresh-time: 1
`,
    )
    .join('\n');
  const config = `server:
  ip-address: 127.0.0.1
  port: ${port}
  do-ip6: no
  server-count: 1
  username: ""
  chroot: ""
  zonesdir: "${dir}"
  database: ""
  zonelistfile: "${dir}/zone.list"
  xfrdfile: "${dir}/xfrd.state"
  xfrdir: "${dir}"
  pidfile: "${dir}/nsd.pid"
  verbosity: 2
  xfrd-reload-timeout: 0
remote-control:
  control-enable: no
key:
  name: "${options.tsig.name}"
  algorithm: hmac-sha256
  secret: "${options.tsig.secret}"
${options.more ?? ''}
${zones}`;
  return startNsd(dir, config, port);
}

/**
 * Runs nsd in the foreground on `config`, written into `dir` (its folder, removed when it stops), and waits until
 * it answers on `address`@`port`. The NSD configured from the text the service prints (secondaries-at-scale) runs
 * here as startNsdSecondary's does.
 */
export async function startNsd(
  dir: string,
  config: string,
  port: number,
  address = '127.0.0.1',
): Promise<NsdSecondary & { configFile: string }> {
  const nsd = findBinary('nsd');
  const configFile = path.join(dir, 'nsd.conf');
  writeFileSync(configFile, config);
  let output = '';
  const child: ChildProcess = spawn(nsd, ['-d', '-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      await waitFor('nsd to exit', async () => (exited ? true : undefined), 10_000, 50).catch(async () => {
        child.kill('SIGKILL');
        await sleep(100);
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // it answers once it listens: a question for a zone it does not serve (REFUSED) is an answer
    const question = Buffer.from('abcd0000000100000000000007696e76616c69640000010001', 'hex');
    await waitFor(
      'nsd to listen',
      async () => {
        if (exited) throw new Error(`nsd exited: ${output}`);
        return (await sendUdp(port, question, address)) ? true : undefined;
      },
      15_000,
      100,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, configFile, log: () => output, stop };
}
