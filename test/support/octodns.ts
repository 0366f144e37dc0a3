/**
 * octoDNS as its users run it: the released octodns 1.22.0 and octodns-powerdns 1.2.0 wheels of
 * ../shared/tools/wheels (OCTODNS_WHEELS names another folder), installed in a venv of Debian's python3 that sees
 * Debian's python3-* packages (scripts/ensure-test-tools.sh installs those octoDNS needs); fqdn, which Debian does
 * not package, comes from the machine's Python package index. The venv is kept in the temp folder for the next run.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from './pebble';

export const OCTODNS = '1.22.0';
export const OCTODNS_POWERDNS = '1.2.0';
const WHEELS = process.env.OCTODNS_WHEELS ?? path.resolve(__dirname, '../../../shared/tools/wheels');
const VENV = path.join(os.tmpdir(), `zonekeeper-octodns-${OCTODNS}-${OCTODNS_POWERDNS}`);

/** the venv's python with octoDNS, made once (in a folder of its own, then renamed: a run cut short leaves no half venv) */
export async function octodnsVenv(): Promise<string> {
  const python = path.join(VENV, 'bin', 'python');
  if (existsSync(python)) return python;
  if (!existsSync(WHEELS))
    throw new Error(`the octoDNS wheels are not at ${WHEELS} (../shared/tools/wheels; OCTODNS_WHEELS names another folder)`);
  const building = `${VENV}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const steps: [string, string[]][] = [
    // Debian's python3, whose venv sees Debian's python3-yaml, -requests, -dnspython, -natsort, -dateutil
    ['/usr/bin/python3', ['-m', 'venv', '--system-site-packages', building]],
    [
      path.join(building, 'bin', 'pip'),
      ['install', '--quiet', '--retries', '0', '--find-links', WHEELS, `octodns==${OCTODNS}`, `octodns-powerdns==${OCTODNS_POWERDNS}`],
    ],
  ];
  for (const [bin, args] of steps) {
    const run = await runProcess(bin, args, {});
    if (run.code !== 0) throw new Error(`${bin} ${args.join(' ')}: ${run.output.slice(-2000)}`);
  }
  try {
    renameSync(building, VENV);
  } catch (error) {
    // another run made it meanwhile: that one serves
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(python)) throw error;
  }
  return python;
}

/** `octodns-sync` of a configuration (`--doit` applies the plan), its output (octoDNS logs to stderr); `env`: the API keys it names */
export async function octodnsSync(config: string, doit: boolean, env: Record<string, string>): Promise<string> {
  const python = await octodnsVenv();
  const run = await runProcess(python, ['-m', 'octodns.cmds.sync', '--config-file', config, ...(doit ? ['--doit'] : [])], env);
  if (run.code !== 0) throw new Error(`octodns-sync: ${run.output.slice(-3000)}`);
  return run.output;
}

/** an octoDNS provider section for a PowerDNS API at `baseUrl`, its key read from the environment variable `keyVariable` */
export function powerDnsProvider(baseUrl: string, keyVariable: string): string {
  const url = new URL(baseUrl);
  return `    class: octodns_powerdns.PowerDnsProvider\n    host: ${url.hostname}\n    port: ${url.port}\n    scheme: http\n    api_key: env/${keyVariable}\n`;
}
