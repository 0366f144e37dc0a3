/**
 * The TTL policies (docs/decisions.md §3): ALLOWED_TTLS (RESTKnot's nine values by default) holds the REST layer,
 * the documented contract; ALLOWED_TTLS_BEYOND_REST holds every other edge and takes any TTL of RFC 2181 §8 unless
 * the operator sets it. A TTL is never changed: what a policy does not allow is refused naming the setting, at the
 * PowerDNS API with 422, for a LUA rrset (an octoDNS dynamic record) as for an A rrset; DNS UPDATE with REFUSED.
 * Two services: one on the default settings, one with ALLOWED_TTLS_BEYOND_REST=300-86400.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createTsigKey, createUser, createZone, CREATE_RECORD, errorCode } from '../support/fixtures';
import { KeyArg, nsupdate } from '../support/update-clients';
import { freePort } from '../support/free-port';

const ZONE = 'ttl-policies.test';
const MAX_TTL = 2147483647;

interface Service {
  app: TestApp;
  dnsPort: number;
  key: KeyArg;
}

/** a service with `env`, a user's zone and a TSIG key of the user for DNS UPDATE */
async function serviceWith(env: Record<string, string>): Promise<Service> {
  const dnsPort = await freePort();
  // the octoDNS dynamic record's check addresses are documentation addresses
  const app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}`, STEERING_ALLOW_NETWORKS: '192.0.2.0/24', ...env });
  const userId = await createUser(app, `ttl@${ZONE}`);
  await createZone(app, userId, ZONE);
  const key = await createTsigKey(app, userId, `update.${ZONE}`);
  return { app, dnsPort, key };
}

let byDefault: Service;
let withPolicy: Service;

beforeAll(async () => {
  [byDefault, withPolicy] = await Promise.all([serviceWith({}), serviceWith({ ALLOWED_TTLS_BEYOND_REST: '300-86400' })]);
}, 90_000);

afterAll(async () => {
  await Promise.all([byDefault?.app.close(), withPolicy?.app.close()]);
});

const patch = (app: TestApp, rrsets: object[]) =>
  fetch(`${app.baseUrl}/api/v1/servers/localhost/zones/${ZONE}.`, {
    method: 'PATCH',
    headers: { 'X-API-Key': ADMIN_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ rrsets }),
  });
const replace = (name: string, type: string, ttl: number, content: string) => ({
  name: `${name}.${ZONE}.`,
  type,
  ttl,
  changetype: 'REPLACE',
  records: [{ content, disabled: false }],
});
/** octodns-powerdns's LUA record of a dynamic A record, one pool of one value */
const lua = (address: string) => {
  const marker = Buffer.from(
    JSON.stringify({ pools: { only: { values: [{ value: address, weight: 1 }] } }, rules: [{ pool: 'only' }] }),
  ).toString('base64url');
  return `A ";-- octodns-dynamic:v1:${marker}\nreturn pickwhashed({{1, '${address}'}})"`;
};

/** the zone's records at `owner`, `<type> <ttl>` each, as GraphQL reads them */
async function ttlsAt(app: TestApp, owner: string): Promise<string[]> {
  const res = await app.gql(`query($n: String) { domain(name: $n) { records(first: 500) { owner type ttl } } }`, { n: ZONE });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain.records
    .filter((r: { owner: string }) => r.owner === owner)
    .map((r: { type: string; ttl: number }) => `${r.type} ${r.ttl}`);
}

const serialOf = async (app: TestApp): Promise<number> =>
  (await app.gql(`query($n: String) { domain(name: $n) { serial } }`, { n: ZONE })).data.domain.serial;

describe('on the default settings', () => {
  it('the PowerDNS API keeps a TTL of 60 as 60, for an A rrset and a LUA rrset alike', async () => {
    const res = await patch(byDefault.app, [replace('acme', 'A', 60, '192.0.2.60'), replace('dyn', 'LUA', 60, lua('192.0.2.61'))]);
    expect(res.status).toBe(204);
    expect(await ttlsAt(byDefault.app, 'acme')).toEqual(['A 60']);
    expect(await ttlsAt(byDefault.app, 'dyn')).toEqual(['A 60']);
    const zone = (await (
      await fetch(`${byDefault.app.baseUrl}/api/v1/servers/localhost/zones/${ZONE}.`, { headers: { 'X-API-Key': ADMIN_KEY } })
    ).json()) as {
      rrsets: { name: string; type: string; ttl: number }[];
    };
    expect(
      zone.rrsets.filter((s) => s.name === `acme.${ZONE}.` || s.name === `dyn.${ZONE}.`).map((s) => `${s.name} ${s.type} ${s.ttl}`),
    ).toEqual([`acme.${ZONE}. A 60`, `dyn.${ZONE}. LUA 60`]);
  });

  it('GraphQL takes any TTL from 1 to 2^31-1', async () => {
    for (const [owner, ttl] of [
      ['one', 1],
      ['max', MAX_TTL],
    ] as const) {
      const res = await byDefault.app.gql(CREATE_RECORD, { input: { zone: ZONE, owner, type: 'TXT', rdata: '"x"', ttl } });
      expect(res.errors).toBeUndefined();
      expect(res.data.createRecord.ttl).toBe(ttl);
    }
  });

  it('DNS UPDATE takes any TTL from 1 to 2^31-1, as sent', async () => {
    const run = await nsupdate(byDefault.dnsPort, byDefault.key, [
      `zone ${ZONE}`,
      `update add cm.${ZONE} 1 TXT "token"`,
      `update add long.${ZONE} ${MAX_TTL} TXT "kept"`,
      'send',
    ]);
    expect(run).toMatchObject({ code: 0 });
    expect(await ttlsAt(byDefault.app, 'cm')).toEqual(['TXT 1']);
    expect(await ttlsAt(byDefault.app, 'long')).toEqual([`TXT ${MAX_TTL}`]);
  });

  it('a GraphQL import takes any TTL from 1 to 2^31-1', async () => {
    const text = `imp-one 1 IN A 192.0.2.1\nimp-max ${MAX_TTL} IN A 192.0.2.2\n`;
    const res = await byDefault.app.gql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`, {
      z: ZONE,
      t: text,
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.importZone.added).toBe(2);
    expect(await ttlsAt(byDefault.app, 'imp-one')).toEqual(['A 1']);
    expect(await ttlsAt(byDefault.app, 'imp-max')).toEqual([`A ${MAX_TTL}`]);
  });

  it('the REST layer keeps ALLOWED_TTLS, RESTKnot list, and names it', async () => {
    const res = await byDefault.app.http
      .post('/api/record/add')
      .set('X-API-Key', ADMIN_KEY)
      .send({ zone: ZONE, owner: 'rest', rtype: 'TXT', rdata: '"x"', ttl: 60 });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([expect.objectContaining({ field: 'ttl', code: 'TTL_NOT_ALLOWED' })]);
    expect(res.body.details[0].message).toBe(
      'ttl: 60 is not one of the allowed values 300, 900, 1800, 3600, 7200, 14400, 28800, 43200, 86400 (ALLOWED_TTLS)',
    );
    const taken = await byDefault.app.http
      .post('/api/record/add')
      .set('X-API-Key', ADMIN_KEY)
      .send({ zone: ZONE, owner: 'rest', rtype: 'TXT', rdata: '"x"', ttl: 300 });
    expect(taken.status).toBe(201);
  });

  it('serverSettings answers the policy of the edge asked: any TTL for GraphQL', async () => {
    const res = await byDefault.app.gql(`{ serverSettings { allowedTtls { min max } } }`);
    expect(res.data.serverSettings.allowedTtls).toEqual([]);
  });
});

describe('with ALLOWED_TTLS_BEYOND_REST=300-86400', () => {
  it('the PowerDNS API refuses a TTL of 60 with 422 naming the setting, for an A rrset and a LUA rrset alike, and writes nothing', async () => {
    const before = await serialOf(withPolicy.app);
    for (const rrset of [replace('acme', 'A', 60, '192.0.2.60'), replace('dyn', 'LUA', 60, lua('192.0.2.61'))]) {
      const res = await patch(withPolicy.app, [rrset]);
      expect(res.status).toBe(422);
      const { error } = (await res.json()) as { error: string };
      expect(error).toContain(`RRset ${rrset.name} IN ${rrset.type}`);
      expect(error).toContain(': 60 is not one of the allowed values 300–86400 (ALLOWED_TTLS_BEYOND_REST)');
    }
    expect(await serialOf(withPolicy.app)).toBe(before);
    expect(await ttlsAt(withPolicy.app, 'acme')).toEqual([]);
    expect(await ttlsAt(withPolicy.app, 'dyn')).toEqual([]);
    // a TTL the policy allows is taken as it is
    expect(
      (await patch(withPolicy.app, [replace('acme', 'A', 600, '192.0.2.60'), replace('dyn', 'LUA', 600, lua('192.0.2.61'))])).status,
    ).toBe(204);
    expect(await ttlsAt(withPolicy.app, 'acme')).toEqual(['A 600']);
    expect(await ttlsAt(withPolicy.app, 'dyn')).toEqual(['A 600']);
  });

  it('GraphQL refuses a TTL outside it, naming the setting', async () => {
    const res = await withPolicy.app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'gql', type: 'TXT', rdata: '"x"', ttl: 60 } });
    expect(errorCode(res)).toBe('INVALID_TTL');
    expect(res.errors![0].extensions.details[0].message).toContain('(ALLOWED_TTLS_BEYOND_REST)');
  });

  it('DNS UPDATE is REFUSED, its Extended DNS Error naming the setting, and nothing is written', async () => {
    const before = await serialOf(withPolicy.app);
    const run = await nsupdate(withPolicy.dnsPort, withPolicy.key, [`zone ${ZONE}`, `update add cm.${ZONE} 60 TXT "token"`, 'send'], {
      debug: true,
    });
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toContain('REFUSED');
    expect(run.stdout + run.stderr).toContain('ALLOWED_TTLS_BEYOND_REST');
    expect(await serialOf(withPolicy.app)).toBe(before);
    expect(await ttlsAt(withPolicy.app, 'cm')).toEqual([]);
  });
});
