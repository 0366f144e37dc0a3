/**
 * BIND (Debian's `named`) as a customer's primary: one zone from a zone file, dynamic (nsupdate with the key
 * changes it), transfers allowed with the key only, and a NOTIFY signed with the key to the service's primary
 * on every change (`also-notify`). It runs in the foreground on a free loopback port (bind-secondary.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, servedSerial } from '../propagation/knot';
import { waitFor } from './wait-for';
import { namedOptions, startNamed } from './bind-secondary';

export interface BindPrimary {
  port: number;
  log(): string;
  stop(): Promise<void>;
}

export async function startBindPrimary(options: {
  zone: string;
  /** the zone file's records after the SOA, in the zone's origin */
  records: string[];
  /** the SOA's serial and timers (RFC 1035 §3.3.13) */
  soa: { serial: number; refresh: number; retry: number; expire: number };
  notifyPort: number;
  tsig: { name: string; secret: string };
  /** the port to listen on (a restart keeps it); a free one by default */
  port?: number;
}): Promise<BindPrimary> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-bind-primary-'));
  const { serial, refresh, retry, expire } = options.soa;
  writeFileSync(
    path.join(dir, `${options.zone}.db`),
    [
      `$ORIGIN ${options.zone}.`,
      '$TTL 300',
      `@ IN SOA ns1.${options.zone}. hostmaster.${options.zone}. ${serial} ${refresh} ${retry} ${expire} 300`,
      ...options.records,
      '',
    ].join('\n'),
  );
  const config = `${namedOptions(dir, port)}
};
key "${options.tsig.name}" { algorithm hmac-sha256; secret "${options.tsig.secret}"; };
zone "${options.zone}" {
  type primary;
  file "${dir}/${options.zone}.db";
  allow-transfer { key "${options.tsig.name}"; };
  allow-update { key "${options.tsig.name}"; };
  notify explicit;
  also-notify { 127.0.0.1 port ${options.notifyPort} key "${options.tsig.name}"; };
};
`;
  const named = await startNamed(dir, config);
  // "running" is logged once named listens; the zone is asked for until it is served at the file's serial, so
  // that a transfer asked at once meets the zone and not a server still loading it (SERVFAIL)
  try {
    await waitFor(
      `BIND to serve ${options.zone} at serial ${serial}`,
      async () => ((await servedSerial(port, options.zone)) === serial ? true : undefined),
      10_000,
      50,
    );
  } catch (error) {
    await named.stop();
    throw new Error(`${(error as Error).message}:\n${named.log()}`, { cause: error });
  }
  return { port, ...named };
}
