/**
 * BIND (Debian's `named`) as a plain secondary of the service for the zones a test names: transfers signed
 * with the test's TSIG key, NOTIFY accepted from loopback, no recursion and no validation (it serves what it
 * took, as a secondary in front of resolvers does). It runs in the foreground in its own folder on a free
 * loopback port, and its log is kept for the test to read (which transfers were IXFR).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findBinary, freePort } from '../propagation/knot';

export interface BindSecondary {
  port: number;
  log(): string;
  stop(): Promise<void>;
}

export async function startBindSecondary(options: {
  zones: string[];
  primaryPort: number;
  tsig: { name: string; secret: string };
  /** more lines of the `options` block (a dnstap output, say) */
  options?: string;
  /** more statements after it (a `statistics-channels` block, say) */
  more?: string;
}): Promise<BindSecondary> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-bind-'));
  const zones = options.zones
    .map(
      (zone) => `zone "${zone}" {
  type secondary;
  primaries port ${options.primaryPort} { 127.0.0.1 key "${options.tsig.name}"; };
  file "${dir}/${zone}.db";
  allow-notify { 127.0.0.1; };
  allow-transfer { 127.0.0.1; };
};`,
    )
    .join('\n');
  const config = `${namedOptions(dir, port)}
  notify no;
  // the tests' primary answers at once: retry quickly rather than BIND's minutes
  min-refresh-time 1;
  min-retry-time 1;
${options.options ?? ''}
};
${options.more ?? ''}
key "${options.tsig.name}" { algorithm hmac-sha256; secret "${options.tsig.secret}"; };
${zones}
`;
  const named = await startNamed(dir, config);
  return { port, ...named };
}

/**
 * The start of a test named's `options` block, left open for the caller's own lines: its files in `dir`,
 * loopback on `port` only (at `address`, 127.0.0.1 unless given), authoritative only (no recursion, no validation).
 */
export function namedOptions(dir: string, port: number, address = '127.0.0.1'): string {
  return `options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  listen-on port ${port} { ${address}; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;`;
}

/**
 * A named.conf made of printed secondary configurations (`zonekeeper nameserver-set secondary-config`, `zonekeeper
 * view secondary-config`), as an operator merges them: each prints BIND's sized limits in an `options` block, and
 * named.conf holds one. The test's own options (namedOptions', then `ownOptions`) go into the first printed block;
 * the other printed blocks' options (the same limits, sized for the same server) are left out.
 */
export function namedConfFrom(printed: string[], dir: string, port: number, ownOptions = '', address = '127.0.0.1'): string {
  const OPTIONS = /^options \{\n([\s\S]*?)^\};\n/m;
  const own = `${namedOptions(dir, port, address).replace(/^options \{\n/, '')}\n${ownOptions}`;
  return printed
    .map((text, i) =>
      i === 0 ? text.replace(OPTIONS, (_, lines: string) => `options {\n${own}\n${lines}};\n`) : text.replace(OPTIONS, ''),
    )
    .join('\n');
}

/**
 * Runs `named -g` on a configuration in its own folder (its log kept), once it says it is running; `stop` ends it
 * (SIGTERM, then SIGKILL) and removes the folder. Shared by the BIND secondary here and the BIND primary
 * (bind-primary.ts).
 */
export async function startNamed(dir: string, config: string): Promise<{ log(): string; stop(): Promise<void> }> {
  const named = findBinary('named');
  const configFile = path.join(dir, 'named.conf');
  writeFileSync(configFile, config);
  let output = '';
  const child: ChildProcess = spawn(named, ['-g', '-c', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  let exited = false;
  child.on('exit', () => (exited = true));
  const deadline = Date.now() + 15_000;
  while (!/running/.test(output)) {
    if (exited || Date.now() > deadline) throw new Error(`named did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    log: () => output,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        const until = Date.now() + 5000;
        while (!exited && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
        if (!exited) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
