/**
 * Test support: the service (api, dns, worker) with one Knot as its fleet, Knot a secondary of the service's DNS
 * edge for every zone of the catalog, its transfers signed with a TSIG key made for the test.
 */
import { randomBytes } from 'node:crypto';
import { freePort, Knot, startKnot } from '../propagation/knot';
import { createUser } from './fixtures';
import { startTestApp, TestApp } from './test-app';

export interface KnotFleet {
  app: TestApp;
  knot: Knot;
  /** the service's DNS port (Knot's primary) */
  dnsPort: number;
  /** the id of the user made at the start (`user`), empty when none was asked for */
  userId: string;
}

export interface ServiceWithKnotOptions {
  /** the catalog zone's name: Knot takes its member zones from it */
  catalog: string;
  /** the key of the transfers and NOTIFYs between the service and its secondaries */
  tsig: { name: string; secret: string };
  /** the service's DNS port, for a test that starts a server of its own that must know it first (a BIND secondary) */
  dnsPort?: number;
  /** more secondaries the service NOTIFYs, after Knot (`address:port` each) */
  extraSecondaries?: string[];
  /** more settings of the service; they win over the ones here (ROLES without the worker, say) */
  env?: Record<string, string>;
  /** the email of a user to make once the service runs (the owner of the test's zones) */
  user?: string;
}

/**
 * Knot first, listening for the catalog of a primary at the service's DNS port, then the service, which
 * NOTIFYs it, then the user. What started is stopped again when a later part fails, so that a failed start
 * leaves no server running behind the suite.
 */
export async function startServiceWithKnot(options: ServiceWithKnotOptions): Promise<KnotFleet> {
  const { catalog, tsig } = options;
  const dnsPort = options.dnsPort ?? (await freePort());
  const knot = await startKnot({ catalogZone: catalog, primaryPort: dnsPort, tsig });
  let app: TestApp | undefined;
  try {
    app = await startTestApp({
      ROLES: 'api,dns,worker',
      DNS_LISTEN: `127.0.0.1:${dnsPort}`,
      SECONDARIES: [`127.0.0.1:${knot.port}`, ...(options.extraSecondaries ?? [])].join(','),
      TSIG_KEY: `${tsig.name}:hmac-sha256:${tsig.secret}`,
      CATALOG_ZONE: catalog,
      ...options.env,
    });
    const userId = options.user === undefined ? '' : await createUser(app, options.user);
    return { app, knot, dnsPort, userId };
  } catch (error) {
    await app?.close();
    await knot.stop();
    throw error;
  }
}

/** `catalog` names the catalog zone, `keyName` the fleet's TSIG key; `env` adds settings of the service */
export async function startWithKnotFleet(catalog: string, keyName: string, env: Record<string, string> = {}): Promise<KnotFleet> {
  return startServiceWithKnot({ catalog, tsig: { name: keyName, secret: randomBytes(32).toString('base64') }, env });
}
