/**
 * Test support: dnsdist (Debian's 1.7, PowerDNS's DNS load balancer) as its own process, run from a test's Lua
 * configuration on a free loopback port, everything in a temp dir. The test's configuration is what an operator
 * pastes; this adds what a test needs: no security-status query to the internet, and a console (its own key) on
 * which dnsdist's rules tell their counters, a Frame Streams logger's frames sent and dropped among them.
 * Debian package: dnsdist (installed by scripts/ensure-test-tools.sh). A missing binary makes the test FAIL.
 */
import { ChildProcess, execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { dig, findBinary, freePort } from '../propagation/knot';
import { killGroup, spawnGroup } from './process-group';
import { waitFor } from './wait-for';

const run = promisify(execFile);

export interface Dnsdist {
  /** where it takes queries: 127.0.0.1, UDP and TCP */
  port: number;
  /** what `showResponseRules()` prints on its console: each rule's matches and action, a logger's counters in it */
  responseRules(): Promise<string>;
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts dnsdist from `config` (Lua) with `listen(port)` the line that makes it listen on the port chosen here, and
 * waits until it answers (a question for a name nobody serves, over TCP: any answer will do).
 */
export async function startDnsdist(options: { config: string; listen: (port: number) => string }): Promise<Dnsdist> {
  const binary = findBinary('dnsdist');
  const port = await freePort();
  const consolePort = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-dnsdist-'));
  const file = path.join(dir, 'dnsdist.conf');
  writeFileSync(
    file,
    `${options.listen(port)}
${options.config}
-- the test's own: no security-status query to the internet, a console for the rules' counters
setSecurityPollSuffix("")
controlSocket("127.0.0.1:${consolePort}")
setKey("${randomBytes(32).toString('base64')}")
`,
  );
  let output = '';
  // in the foreground without its console on stdin (--supervised), a process group of its own (process-group.ts)
  const child: ChildProcess = spawnGroup(binary, ['--supervised', '--disable-syslog', '-C', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH },
  });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  const stop = async () => {
    if (!exited) {
      killGroup(child, 'SIGTERM');
      await waitFor('dnsdist to exit', async () => (exited ? true : undefined), 10_000, 50).catch(async () => {
        killGroup(child, 'SIGKILL');
        await waitFor('dnsdist to be killed', async () => (exited ? true : undefined), 10_000, 50);
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      'dnsdist to answer',
      async () => {
        if (exited) throw new Error(`dnsdist exited: ${output.slice(-2000)}`);
        const answer = await dig(['@127.0.0.1', '-p', String(port), '+tcp', '+norec', 'invalid.', 'SOA']).catch(() => undefined);
        return answer?.status ? true : undefined;
      },
      20_000,
      200,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  // the console's client reads the same file for the socket and the key
  const responseRules = async () => (await run(binary, ['-C', file, '-c', '-e', 'showResponseRules()'])).stdout;
  return { port, responseRules, log: () => output, stop };
}
