/**
 * Test support: the service (api, dns, worker) with one Knot as its fleet, Knot a secondary of the service's DNS
 * edge for every zone of the catalog, its transfers signed with a TSIG key made for the test.
 */
import { randomBytes } from 'node:crypto';
import { freePort, Knot, startKnot } from '../propagation/knot';
import { startTestApp, TestApp } from './test-app';

export interface KnotFleet {
  app: TestApp;
  knot: Knot;
  /** the service's DNS port (Knot's primary) */
  dnsPort: number;
}

/** `catalog` names the catalog zone, `keyName` the fleet's TSIG key; `env` adds settings of the service */
export async function startWithKnotFleet(catalog: string, keyName: string, env: Record<string, string> = {}): Promise<KnotFleet> {
  const tsig = { name: keyName, secret: randomBytes(32).toString('base64') };
  const dnsPort = await freePort();
  const knot = await startKnot({ catalogZone: catalog, primaryPort: dnsPort, tsig });
  const app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    SECONDARIES: `127.0.0.1:${knot.port}`,
    TSIG_KEY: `${tsig.name}:hmac-sha256:${tsig.secret}`,
    CATALOG_ZONE: catalog,
    ...env,
  });
  return { app, knot, dnsPort };
}
