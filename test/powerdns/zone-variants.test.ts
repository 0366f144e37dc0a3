/**
 * A zone variant as PowerDNS 5 addresses it (`example.org..internal`) held against PowerDNS 4.7 (Debian's
 * pdns-server with its HTTP API): both answer 422 on GET, PATCH, PUT and DELETE of such a zone id. Zonekeeper's
 * message says where a view is addressed (the views API), and nothing is read or written: the zone and its view
 * named in the id are as they were (docs/powerdns-api.md, docs/views.md).
 * Debian packages: pdns-server, pdns-backend-sqlite3, sqlite3.
 */
import { startPowerDns, PowerDnsServer } from '../support/powerdns-server';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createTsigKey, createUser, createZone } from '../support/fixtures';

const ZONE = 'variant.example';
const ID = `${ZONE}..internal`;

let app: TestApp;
let powerdns: PowerDnsServer;

beforeAll(async () => {
  [app, powerdns] = await Promise.all([startTestApp(), startPowerDns()]);
  const userId = await createUser(app, 'variants@variant.example');
  await createZone(app, userId, ZONE);
  const key = await createTsigKey(app, null, 'variant-internal-key');
  const view = await app.gql(`mutation($i: ViewInput!) { createView(input: $i) { id } }`, {
    i: { name: 'internal', tsigKeyId: key.id, networks: ['10.0.0.0/8'] },
  });
  expect(view.errors).toBeUndefined();
  const overlay = await app.gql(
    `mutation { setViewOverlay(zone: "${ZONE}", view: "internal", owner: "api", type: "A", action: REPLACE, records: [{ rdata: "10.1.2.3", ttl: 300 }]) }`,
  );
  expect(overlay.errors).toBeUndefined();
  const made = await fetch(`${powerdns.baseUrl}/api/v1/servers/localhost/zones`, {
    method: 'POST',
    headers: { 'X-API-Key': powerdns.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `${ZONE}.`, kind: 'Native', nameservers: ['ns1.example.net.'] }),
  });
  expect(made.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await powerdns?.stop();
  await app?.close();
});

const REQUESTS: Array<[string, unknown]> = [
  ['GET', undefined],
  [
    'PATCH',
    {
      rrsets: [{ name: `www.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1', disabled: false }] }],
    },
  ],
  ['PUT', { kind: 'Native' }],
  ['DELETE', undefined],
];

async function call(baseUrl: string, key: string, method: string, path: string, body: unknown) {
  const res = await fetch(`${baseUrl}/api/v1/servers/localhost/zones/${path}`, {
    method,
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', json: (await res.json()) as { error: string } };
}

test("a zone variant's id (zone..view) is 422 on GET, PATCH, PUT and DELETE, as PowerDNS 4.7 answers it; the message names the views API", async () => {
  const serialBefore = (await app.gql(`{ domain(name: "${ZONE}") { serial } }`)).data.domain.serial;
  for (const [method, body] of REQUESTS) {
    const reference = await call(powerdns.baseUrl, powerdns.apiKey, method, ID, body);
    const ours = await call(app.baseUrl, ADMIN_KEY, method, ID, body);
    expect({ method, status: reference.status, error: reference.json.error }).toEqual({
      method,
      status: 422,
      error: `Unable to parse DNS Name '${ID}'`,
    });
    expect({ method, status: ours.status }).toEqual({ method, status: reference.status });
    expect(ours.type).toMatch(/^application\/json/);
    expect(ours.json.error).toBe(
      `Unable to parse DNS Name '${ID}': Zonekeeper has no zone variants; a view ('internal') of zone ${ZONE}. is addressed through the views API (GET /api/domain/views/${ZONE}/internal, GraphQL viewZone), not as a zone variant`,
    );
  }
  // the routes below a zone too (PowerDNS 4.7 answers them 422 alike)
  for (const sub of ['export', 'metadata', 'cryptokeys']) {
    const ours = await call(app.baseUrl, ADMIN_KEY, 'GET', `${ID}/${sub}`, undefined);
    const reference = await call(powerdns.baseUrl, powerdns.apiKey, 'GET', `${ID}/${sub}`, undefined);
    expect({ sub, ours: ours.status, reference: reference.status }).toEqual({ sub, ours: 422, reference: 422 });
  }
  // nothing read or written: the zone, its serial, and the view's overlay are as they were
  const after = await app.gql(
    `{ domain(name: "${ZONE}") { serial } viewZone(zone: "${ZONE}", view: "internal") { records { owner type rdata overlay } } }`,
  );
  expect(after.errors).toBeUndefined();
  expect(after.data.domain.serial).toBe(serialBefore);
  expect(after.data.viewZone.records.filter((r: any) => r.type === 'A')).toEqual([
    { owner: 'api', type: 'A', rdata: '10.1.2.3', overlay: 'REPLACE' },
  ]);
  // the zone itself is still addressed as PowerDNS addresses it
  const zone = await call(app.baseUrl, ADMIN_KEY, 'GET', `${ZONE}.`, undefined);
  expect(zone.status).toBe(200);
});
