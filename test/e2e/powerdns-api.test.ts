/**
 * The PowerDNS HTTP API edge (docs/powerdns-api.md) on the real service: the calls the PowerDNS clients make
 * (lego, acme.sh, cert-manager's webhook, external-dns, octoDNS, DNSControl, PowerDNS-Admin), answered in
 * PowerDNS's shapes, each write one change set through the write engine.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, zoneEventsUntil } from '../support/fixtures';

const ZONE = 'pdns-one.test';
const OTHER = 'pdns-two.test';
const ZONES = '/api/v1/servers/localhost/zones';

let app: TestApp;
let userId: string;
let userKey: string;

/** a journal row's records without the SOA, whose serial step every change holds */
const noSoa = (records: any[]) => records.filter((r) => r.type !== 'SOA');
const HISTORY = `query($z: String!) { domain(name: $z) { serial changes(first: 50) { totalCount nodes { serialBefore serialAfter author { keyId keyName admin } added { owner type rdata ttl } removed { owner type rdata } } } } }`;

async function history(zone: string) {
  const res = await app.gql(HISTORY, { z: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain as { serial: number; changes: { totalCount: number; nodes: any[] } };
}

const get = (path: string, key = userKey) => app.http.get(path).set('X-API-Key', key);
const patch = (zone: string, rrsets: unknown[], key = userKey) =>
  app.http.patch(`${ZONES}/${zone}.`).set('X-API-Key', key).set('content-type', 'application/json').send({ rrsets });

/** the zone's rrsets as `name type ttl content|content` lines, as GET answers them */
async function rrsets(zone: string, key = userKey): Promise<string[]> {
  const res = await get(`${ZONES}/${zone}.`, key);
  expect(res.status).toBe(200);
  return res.body.rrsets.map((r: any) => `${r.name} ${r.type} ${r.ttl} ${r.records.map((x: any) => x.content).join('|')}`);
}

async function makeKey(input: Record<string, unknown>): Promise<string> {
  const res = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
    input: { userId, name: 'pdns', ...input },
  });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.createApiKey.secret;
}

beforeAll(async () => {
  // the documentation ranges stand for a customer's own servers in the metadata tests (ALSO-NOTIFY, ALLOW-AXFR-FROM):
  // the outbound rule refuses them to a user's key unless the operator allows them (test/e2e/outbound-rule.test.ts)
  app = await startTestApp({ TRANSFER_SERVERS_ALLOW: '192.0.2.0/24,198.51.100.0/24,2001:db8::/32' });
  userId = await createUser(app, 'pdns@example.org');
  userKey = await createUserKey(app, userId);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

describe('servers and discovery', () => {
  it('answers GET /api, the server list, the server and its config as PowerDNS does', async () => {
    const discovery = await get('/api');
    expect(discovery.status).toBe(200);
    expect(discovery.body).toEqual([{ url: '/api/v1', version: 1 }]);
    const root = await get('/api/v1');
    expect(root.status).toBe(200);
    expect(root.body).toEqual([{ api_features: [], server_url: '/api/v1/servers{/server}' }]);
    const servers = await get('/api/v1/servers');
    expect(servers.body).toEqual([
      expect.objectContaining({ id: 'localhost', daemon_type: 'authoritative', url: '/api/v1/servers/localhost' }),
    ]);
    const server = await get('/api/v1/servers/localhost');
    // octoDNS parses x.y.z and needs 4.3 or later
    const [major, minor] = String(server.body.version).split('.').map(Number);
    expect(major * 100 + minor).toBeGreaterThanOrEqual(403);
    const config = await get('/api/v1/servers/localhost/config');
    expect(config.body).toContainEqual({ type: 'ConfigSetting', name: 'api', value: 'yes' });
  });

  it('answers 401 {"error"} without or with a wrong X-API-Key, 404 {"error"} on an unknown path', async () => {
    const none = await app.http.get(ZONES);
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: 'Unauthorized' });
    expect((await get(ZONES, 'wrong-key-0123456789')).status).toBe(401);
    const unknown = await get('/api/v1/servers/localhost/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Not Found' });
    // another method on a path of the API, and a body that is not JSON: PowerDNS's 405 and 400
    expect((await app.http.post('/api/v1/servers/localhost').set('X-API-Key', userKey)).status).toBe(405);
    const broken = await app.http
      .patch(`${ZONES}/x.test.`)
      .set('X-API-Key', userKey)
      .set('content-type', 'application/json')
      .send('{"rrsets": [');
    expect(broken.status).toBe(400);
    expect(typeof broken.body.error).toBe('string');
    // the REST layer's documented paths are untouched
    expect((await get('/api/domain/list')).status).toBe(200);
  });
});

describe('zones', () => {
  it('creates a zone with nameservers and rrsets (201, the zone with its rrsets), 409 for a second time', async () => {
    const res = await app.http
      .post(ZONES)
      .set('X-API-Key', userKey)
      .send({
        name: `${ZONE}.`,
        kind: 'Native',
        nameservers: ['ns1.pdns.test.', 'ns2.pdns.test.'],
        soa_edit_api: 'DEFAULT',
        rrsets: [{ name: `WWW.${ZONE}.`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1', disabled: false }], comments: [] }],
      });
    expect(res.status).toBe(201);
    // `kind` reads back as given (Terraform compares it at every plan); no `account`: "", as PowerDNS reads it back
    expect(res.body).toMatchObject({ id: `${ZONE}.`, name: `${ZONE}.`, kind: 'Native', dnssec: false, account: '' });
    expect(res.body.url).toBe(`${ZONES}/${ZONE}.`);
    for (const field of ['serial', 'notified_serial', 'edited_serial']) expect(typeof res.body[field]).toBe('number');
    expect(res.body.masters).toEqual([]);
    const lines = res.body.rrsets.map((r: any) => `${r.name} ${r.type} ${r.records.map((x: any) => x.content).join('|')}`);
    expect(lines).toEqual(expect.arrayContaining([`${ZONE}. NS ns1.pdns.test.|ns2.pdns.test.`, `www.${ZONE}. A 192.0.2.1`]));
    // only what was asked: no default www CNAME beside it
    expect(lines.filter((l: string) => l.includes('CNAME'))).toEqual([]);
    const again = await app.http
      .post(ZONES)
      .set('X-API-Key', userKey)
      .send({ name: `${ZONE}.`, kind: 'Native' });
    expect(again.status).toBe(409);
    expect(typeof again.body.error).toBe('string');
  });

  it('refuses a zone whose rrsets are wrong with 422 {"error"} naming the rrset, and creates nothing', async () => {
    const res = await app.http
      .post(ZONES)
      .set('X-API-Key', userKey)
      .send({
        name: 'pdns-bad.test.',
        kind: 'Native',
        rrsets: [{ name: 'x.pdns-bad.test.', type: 'A', ttl: 300, records: [{ content: '1.2.3.999' }] }],
      });
    expect(res.status).toBe(422);
    expect(res.body.error).toContain('RRset x.pdns-bad.test. IN A');
    expect((await get(`${ZONES}/pdns-bad.test.`)).status).toBe(404);
  });

  it('lists zones, with ?zone= as an exact lookup; gets one; 404 for a missing zone', async () => {
    const list = await get(ZONES);
    expect(list.status).toBe(200);
    expect(list.body.map((z: any) => z.name)).toContain(`${ZONE}.`);
    expect(list.body[0].rrsets).toBeUndefined();
    const one = await get(`${ZONES}?zone=${ZONE}.`);
    expect(one.body.map((z: any) => z.name)).toEqual([`${ZONE}.`]);
    expect((await get(`${ZONES}?zone=nothing.${ZONE}.`)).body).toEqual([]);
    const missing = await get(`${ZONES}/missing.test.`);
    expect(missing.status).toBe(404);
    expect(typeof missing.body.error).toBe('string');
    // without the final dot, as some clients send it
    expect((await get(`${ZONES}/${ZONE}`)).status).toBe(200);
    // `?zone=` takes the name as PowerDNS does, with its final dot
    const relative = await get(`${ZONES}?zone=${ZONE}`);
    expect(relative.status).toBe(422);
    expect(relative.body).toEqual({ error: `DNS Name '${ZONE}' is not canonical` });
  });

  it("creates a zone with its SOA in rrsets (Terraform, Ansible): the SOA's fields as given, the serial Zonekeeper's", async () => {
    const res = await app.http
      .post(ZONES)
      .set('X-API-Key', userKey)
      .send({
        name: 'soa-edit.test.',
        kind: 'Native',
        nameservers: [],
        rrsets: [
          {
            name: 'soa-edit.test.',
            type: 'SOA',
            ttl: '86400',
            records: [{ content: 'ns9.example.org. admin.example.org. 5 7200 900 1209600 300', disabled: false }],
          },
          { name: 'soa-edit.test.', type: 'NS', ttl: '86400', records: [{ content: 'ns1.pdns.test.', disabled: false }] },
        ],
      });
    expect(res.status).toBe(201);
    const serial = (await history('soa-edit.test')).serial;
    expect(serial).not.toBe(5);
    const lines = res.body.rrsets.map((r: any) => `${r.name} ${r.type} ${r.ttl} ${r.records.map((x: any) => x.content).join('|')}`);
    expect(lines).toEqual([
      'soa-edit.test. NS 86400 ns1.pdns.test.',
      `soa-edit.test. SOA 86400 ns9.example.org. admin.example.org. ${serial} 7200 900 1209600 300`,
    ]);
  });

  it('PUTs (204), notifies (200), exports the zone file, deletes (204)', async () => {
    const created = await app.http.post(ZONES).set('X-API-Key', userKey).send({ name: 'pdns-gone.test.', kind: 'Master', nameservers: [] });
    expect(created.status).toBe(201);
    const put = await app.http.put(`${ZONES}/pdns-gone.test.`).set('X-API-Key', userKey).send({ kind: 'Master', soa_edit_api: 'DEFAULT' });
    expect(put.status).toBe(204);
    const notify = await app.http.put(`${ZONES}/pdns-gone.test./notify`).set('X-API-Key', userKey);
    expect(notify.status).toBe(200);
    expect(notify.body).toEqual({ result: 'Notification queued' });
    const exported = await get(`${ZONES}/pdns-gone.test./export`);
    expect(exported.status).toBe(200);
    expect(exported.text).toMatch(/SOA/);
    // to a client that accepts JSON, PowerDNS answers the zone file as `{"zone": "…"}`
    const asJson = await get(`${ZONES}/pdns-gone.test./export`).set('Accept', 'application/json');
    expect(asJson.status).toBe(200);
    expect(asJson.body).toEqual({ zone: exported.text });
    expect((await app.http.delete(`${ZONES}/pdns-gone.test.`).set('X-API-Key', userKey)).status).toBe(204);
    expect((await get(`${ZONES}/pdns-gone.test.`)).status).toBe(404);
  });
});

describe('PATCH of rrsets', () => {
  it('REPLACE, EXTEND, PRUNE, DELETE and an empty REPLACE, each one serial step and one journal row naming the key', async () => {
    const before = await history(ZONE);
    const steps: [string, unknown[]][] = [
      [
        'replace',
        [{ name: `mail.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.10', disabled: false }] }],
      ],
      ['extend', [{ name: `mail.${ZONE}.`, type: 'A', ttl: 300, changetype: 'EXTEND', records: [{ content: '192.0.2.11' }] }]],
      ['prune', [{ name: `mail.${ZONE}.`, type: 'A', ttl: 300, changetype: 'PRUNE', records: [{ content: '192.0.2.10' }] }]],
      ['delete', [{ name: `mail.${ZONE}.`, type: 'A', changetype: 'DELETE' }]],
    ];
    for (const [, body] of steps) expect((await patch(ZONE, body)).status).toBe(204);
    const after = await history(ZONE);
    expect(after.changes.totalCount - before.changes.totalCount).toBe(steps.length);
    const newest = after.changes.nodes.slice(0, steps.length).reverse();
    for (const node of newest) {
      expect(node.author).toMatchObject({ keyName: 'test', admin: false });
      expect(node.serialAfter).not.toBe(node.serialBefore);
    }
    expect(noSoa(newest[0].added)).toEqual([{ owner: 'mail', type: 'A', rdata: '192.0.2.10', ttl: 300 }]);
    expect(noSoa(newest[1].added).map((r: any) => r.rdata)).toEqual(['192.0.2.11']);
    expect(noSoa(newest[2].removed).map((r: any) => r.rdata)).toEqual(['192.0.2.10']);
    expect(noSoa(newest[3].removed).map((r: any) => r.rdata)).toEqual(['192.0.2.11']);

    // an EXTEND of a record that is there, a PRUNE of one that is not: nothing to do, no serial step
    const unchanged = (await history(ZONE)).serial;
    expect(
      (await patch(ZONE, [{ name: `www.${ZONE}.`, type: 'A', ttl: 300, changetype: 'EXTEND', records: [{ content: '192.0.2.1' }] }]))
        .status,
    ).toBe(204);
    expect(
      (await patch(ZONE, [{ name: `www.${ZONE}.`, type: 'A', ttl: 300, changetype: 'PRUNE', records: [{ content: '192.0.2.99' }] }]))
        .status,
    ).toBe(204);
    expect((await history(ZONE)).serial).toBe(unchanged);

    // cert-manager's clean-up: REPLACE with no records deletes the RRset
    expect(
      (await patch(ZONE, [{ name: `tmp.${ZONE}.`, type: 'TXT', ttl: 300, changetype: 'REPLACE', records: [{ content: '"x"' }] }])).status,
    ).toBe(204);
    expect((await patch(ZONE, [{ name: `tmp.${ZONE}.`, type: 'TXT', ttl: 300, changetype: 'REPLACE', records: [] }])).status).toBe(204);
    expect((await rrsets(ZONE)).filter((l) => l.startsWith(`tmp.${ZONE}.`))).toEqual([]);
  });

  it('the same PATCH twice (REPLACE with what the RRset then holds, comments and all): one serial step, one journal row, one event', async () => {
    const { serial: start, changes: startChanges } = await history(ZONE);
    const cursor = (await zoneEventsUntil(app, ZONE, start)).next;
    const same = [
      {
        name: `twice.${ZONE}.`,
        type: 'MX',
        ttl: 600,
        changetype: 'REPLACE',
        records: [{ content: '10 mx1.example.net.' }, { content: '20 mx2.example.net.', disabled: true }],
      },
      { name: `twice.${ZONE}.`, type: 'TXT', ttl: 600, changetype: 'REPLACE', records: [{ content: '"v=spf1 -all"' }] },
    ];
    expect((await patch(ZONE, same)).status).toBe(204);
    const once = await history(ZONE);
    expect(once.serial).not.toBe(start);
    expect(once.changes.totalCount).toBe(startChanges.totalCount + 1);
    // the second time, and the SOA replaced by its own fields: nothing to change, nothing written
    const soa = (await get(`${ZONES}/${ZONE}.`)).body.rrsets.find((r: any) => r.type === 'SOA');
    expect((await patch(ZONE, same)).status).toBe(204);
    expect((await patch(ZONE, [{ ...soa, changetype: 'REPLACE' }])).status).toBe(204);
    const twice = await history(ZONE);
    expect(twice.serial).toBe(once.serial);
    expect(twice.changes.totalCount).toBe(once.changes.totalCount);
    // one zone.changed in the feed, the first PATCH's; a later change shows the feed moved on without a second
    expect((await patch(ZONE, [{ ...same[1], records: [{ content: '"v=spf1 mx -all"' }] }])).status).toBe(204);
    const last = (await history(ZONE)).serial;
    const { events } = await zoneEventsUntil(app, ZONE, last, cursor);
    expect(events.map((e) => [e.type, e.data.serial])).toEqual([
      ['zone.changed', once.serial],
      ['zone.changed', last],
    ]);
  });

  it('several rrsets in one PATCH are one change: one serial step, one journal row', async () => {
    const before = await history(ZONE);
    const res = await patch(ZONE, [
      { name: `a.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.20' }, { content: '192.0.2.21' }] },
      { name: `b.${ZONE}.`, type: 'AAAA', ttl: 300, changetype: 'REPLACE', records: [{ content: '2001:db8::1' }] },
      { name: `c.${ZONE}.`, type: 'MX', ttl: 300, changetype: 'REPLACE', records: [{ content: '10 mail.example.net.' }] },
    ]);
    expect(res.status).toBe(204);
    const after = await history(ZONE);
    expect(after.changes.totalCount).toBe(before.changes.totalCount + 1);
    expect(noSoa(after.changes.nodes[0].added)).toHaveLength(4);
  });

  it('takes TXT content quoted as PowerDNS wants it, names fully qualified, and ignores unknown fields', async () => {
    const res = await patch(ZONE, [
      {
        name: `_acme-challenge.${ZONE}.`,
        type: 'TXT',
        ttl: 300,
        changetype: 'REPLACE',
        kind: 'replace', // lego's field per rrset
        'set-ptr': false, // Terraform's
        records: [{ content: '"token with spaces"', disabled: false, 'set-ptr': false }],
        comments: [],
      },
      { name: `alias.${ZONE}.`, type: 'CNAME', ttl: 300, changetype: 'REPLACE', records: [{ content: 'target.example.net.' }] },
      // a TTL written as digits in a string, as the Ansible collection sends it and PowerDNS 4.7 takes it
      { name: `strings.${ZONE}.`, type: 'TXT', ttl: '300', changetype: 'REPLACE', records: [{ content: '"a" "b"' }] },
    ]);
    expect(res.status).toBe(204);
    const lines = await rrsets(ZONE);
    expect(lines).toContain(`_acme-challenge.${ZONE}. TXT 300 "token with spaces"`);
    expect(lines).toContain(`alias.${ZONE}. CNAME 300 target.example.net.`);
    expect(lines).toContain(`strings.${ZONE}. TXT 300 "a" "b"`);
    // one RRset by name and type (PowerDNS 4.8's rrset_name, rrset_type), in any letter case
    const one = await get(`${ZONES}/${ZONE}.?rrset_name=_ACME-challenge.${ZONE}.&rrset_type=TXT`);
    expect(one.body.rrsets).toEqual([
      {
        name: `_acme-challenge.${ZONE}.`,
        type: 'TXT',
        ttl: 300,
        records: [{ content: '"token with spaces"', disabled: false }],
        comments: [],
      },
    ]);
  });

  it('takes DSYNC (RFC 9859) by its name, as GraphQL does, and refuses TYPE66 data that is not DSYNC naming the rrset', async () => {
    const res = await patch(ZONE, [
      {
        name: `_dsync.${ZONE}.`,
        type: 'DSYNC',
        ttl: 300,
        changetype: 'REPLACE',
        records: [{ content: 'CDS NOTIFY 5359 ds-scanner.example.net.' }],
      },
    ]);
    expect(res.status).toBe(204);
    expect(await rrsets(ZONE)).toContain(`_dsync.${ZONE}. DSYNC 300 CDS 1 5359 ds-scanner.example.net.`);
    const created = await app.gql(
      `mutation($i: RecordInput!) { createRecord(input: $i) { type rdata data { ... on DSYNCData { rrtype scheme port target } } } }`,
      {
        i: {
          zone: ZONE,
          owner: 'child._dsync',
          type: 'DSYNC',
          data: { dsync: { rrtype: 'CSYNC', scheme: 1, port: 53, target: 'scanner.example.net.' } },
          ttl: 300,
        },
      },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createRecord).toEqual({
      type: 'DSYNC',
      rdata: 'CSYNC 1 53 scanner.example.net.',
      data: { rrtype: 'CSYNC', scheme: 1, port: 53, target: 'scanner.example.net.' },
    });
    // generic data with a stray octet after the target: every client reading it as DSYNC would break on it
    const stray = await patch(ZONE, [
      {
        name: `other._dsync.${ZONE}.`,
        type: 'TYPE66',
        ttl: 300,
        changetype: 'REPLACE',
        records: [{ content: '\\# 30 003B0114EF0A64732D7363616E6E6572076578616D706C65036E65740000' }],
      },
    ]);
    expect(stray.status).toBe(422);
    expect(stray.body.error).toContain(`other._dsync.${ZONE}.`);
    expect(stray.body.error).toContain('DSYNC');
    expect((await rrsets(ZONE)).some((line) => line.startsWith(`other._dsync.${ZONE}.`))).toBe(false);
  });

  it('keeps a TTL as sent (acme.sh 60, lego 120): ALLOWED_TTLS_BEYOND_REST takes any TTL by default', async () => {
    expect(
      (await patch(ZONE, [{ name: `ttl.${ZONE}.`, type: 'TXT', ttl: 60, changetype: 'REPLACE', records: [{ content: '"a"' }] }])).status,
    ).toBe(204);
    expect(
      (await patch(ZONE, [{ name: `ttl2.${ZONE}.`, type: 'TXT', ttl: 120, changetype: 'REPLACE', records: [{ content: '"b"' }] }])).status,
    ).toBe(204);
    const lines = await rrsets(ZONE);
    expect(lines).toContain(`ttl.${ZONE}. TXT 60 "a"`);
    expect(lines).toContain(`ttl2.${ZONE}. TXT 120 "b"`);
  });

  it('refuses a wrong PATCH with 422 {"error"} naming the rrset and writes nothing', async () => {
    const before = await history(ZONE);
    const cases: [unknown[], string][] = [
      [
        [
          { name: `ok.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] },
          { name: `bad.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: 'not-an-address' }] },
        ],
        `RRset bad.${ZONE}. IN A`,
      ],
      [
        [{ name: `www.${ZONE}.`, type: 'CNAME', ttl: 300, changetype: 'REPLACE', records: [{ content: 'x.example.net.' }] }],
        `RRset www.${ZONE}. IN CNAME`,
      ],
      [
        [{ name: 'out.example.net.', type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] }],
        'RRset out.example.net. IN A',
      ],
      [
        [{ name: `rel`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] }],
        "DNS Name 'rel' is not canonical",
      ],
      [[{ name: `x.${ZONE}.`, type: 'A', ttl: 300, changetype: 'UPSERT', records: [] }], "Changetype 'UPSERT' is not a valid value"],
      [
        [{ name: `x.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1', disabled: 'yes' }] }],
        `RRset x.${ZONE}. IN A: a record's disabled is not a boolean`,
      ],
      // content as PowerDNS 4.7 refuses it: unquoted character-strings, names without their final dot
      [
        [{ name: `spf.${ZONE}.`, type: 'TXT', ttl: 300, changetype: 'REPLACE', records: [{ content: 'v=spf1 mx -all' }] }],
        `RRset spf.${ZONE}. IN TXT: TXT string 1 "v=spf1" is not quoted`,
      ],
      [
        [{ name: `spf.${ZONE}.`, type: 'TXT', ttl: 300, changetype: 'REPLACE', records: [{ content: '"a" b' }] }],
        `RRset spf.${ZONE}. IN TXT: TXT string 2 "b" is not quoted`,
      ],
      [
        [{ name: `${ZONE}.`, type: 'CAA', ttl: 300, changetype: 'REPLACE', records: [{ content: '0 issue letsencrypt.org' }] }],
        `RRset ${ZONE}. IN CAA: CAA value "letsencrypt.org" is not quoted`,
      ],
      [
        [{ name: `c.${ZONE}.`, type: 'CNAME', ttl: 300, changetype: 'REPLACE', records: [{ content: 'www' }] }],
        `RRset c.${ZONE}. IN CNAME: the name "www" is not in expected format`,
      ],
      // one label is suggested as the zone's name, as a zone file would have read it
      [
        [{ name: `${ZONE}.`, type: 'MX', ttl: 300, changetype: 'REPLACE', records: [{ content: '10 mail' }] }],
        `the name "mail" is not in expected format: a name in record content is fully qualified, ending with the root's dot; did you mean "mail.${ZONE}."?`,
      ],
      [
        [{ name: `_sip._tcp.${ZONE}.`, type: 'SRV', ttl: 300, changetype: 'REPLACE', records: [{ content: '10 5 5060 sip.example.net' }] }],
        'did you mean "sip.example.net."?',
      ],
      [[{ name: `x.${ZONE}.`, type: 'A', ttl: '3x', changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] }], 'ttl'],
      // the SOA's fields change by REPLACE (below); a zone keeps its SOA
      [[{ name: `${ZONE}.`, type: 'SOA', changetype: 'DELETE' }], `RRset ${ZONE}. IN SOA: a zone keeps its SOA`],
      [
        [
          {
            name: `${ZONE}.`,
            type: 'SOA',
            ttl: 300,
            changetype: 'REPLACE',
            records: [{ content: 'a. b. 1 2 3 4 5' }, { content: 'c. d. 1 2 3 4 5' }],
          },
        ],
        `RRset ${ZONE}. IN SOA`,
      ],
      [
        [{ name: `${ZONE}.`, type: 'SOA', ttl: 300, changetype: 'REPLACE', records: [{ content: 'a b. 1 2 3 4 5' }] }],
        `RRset ${ZONE}. IN SOA`,
      ],
      [
        // ALIAS is flattened by the worker through ALIAS_RESOLVERS (docs/templates-and-alias.md): unset here
        [{ name: `x.${ZONE}.`, type: 'ALIAS', ttl: 300, changetype: 'REPLACE', records: [{ content: 'a.example.net.' }] }],
        `(ALIAS at x.${ZONE})`,
      ],
      [
        [
          { name: `d.${ZONE}.`, type: 'A', changetype: 'DELETE' },
          { name: `D.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] },
        ],
        `Duplicate RRset D.${ZONE}. IN A`,
      ],
      [
        // a removal that breaks a zone rule names its rrset too: the apex left without NS (RFC 1034 §4.2.1)
        [
          { name: `ok.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] },
          { name: `${ZONE}.`, type: 'NS', changetype: 'DELETE' },
        ],
        `RRset ${ZONE}. IN NS: `,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await patch(ZONE, body);
      expect({ status: res.status, body }).toEqual({ status: 422, body });
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(res.body.error).toContain(message);
    }
    // `"rrsets": []` changes nothing, as PowerDNS answers it (204)
    expect((await patch(ZONE, [])).status).toBe(204);
    const after = await history(ZONE);
    expect(after.serial).toBe(before.serial);
    expect(after.changes.totalCount).toBe(before.changes.totalCount);
    expect((await patch(OTHER, [{ name: `x.${OTHER}.`, type: 'A', changetype: 'DELETE' }])).status).toBe(404);
  });

  it("changes the SOA's fields by REPLACE (PowerDNS-Admin's SOA editor): its serial stays the zone's and steps", async () => {
    const before = await history(ZONE);
    const soa = (serial: number) => `ns9.example.org. admin.example.org. ${serial} 7200 900 1209600 300`;
    expect(
      (await patch(ZONE, [{ name: `${ZONE}.`, type: 'SOA', ttl: 3600, changetype: 'REPLACE', records: [{ content: soa(1) }] }])).status,
    ).toBe(204);
    const after = await history(ZONE);
    expect(after.serial).toBeGreaterThan(before.serial);
    expect(after.changes.totalCount).toBe(before.changes.totalCount + 1);
    expect(await rrsets(ZONE)).toContain(`${ZONE}. SOA 3600 ${soa(after.serial)}`);
    // the same fields again: nothing to change, no serial step
    expect(
      (await patch(ZONE, [{ name: `${ZONE}.`, type: 'SOA', ttl: 3600, changetype: 'REPLACE', records: [{ content: soa(7) }] }])).status,
    ).toBe(204);
    expect((await history(ZONE)).serial).toBe(after.serial);
  });
});

describe('keys', () => {
  beforeAll(async () => {
    const created = await app.http
      .post(ZONES)
      .set('X-API-Key', ADMIN_KEY)
      .send({ name: `${OTHER}.`, kind: 'Native', account: 'pdns@example.org' });
    expect(created.status).toBe(201);
  });

  it("the admin key names the user in account, or the zone is the operator's; account and kind read back as given", async () => {
    const owner = async (zone: string) => {
      const res = await app.gql(`query($z: String!) { domain(name: $z) { user { email } } }`, { z: zone });
      if (res.errors) throw new Error(JSON.stringify(res.errors));
      return res.data.domain.user.email as string;
    };
    const create = (body: Record<string, unknown>) =>
      app.http
        .post(ZONES)
        .set('X-API-Key', ADMIN_KEY)
        .send({ kind: 'Native', ...body });
    // octoDNS, DNSControl, Terraform, external-dns send no account; PowerDNS-Admin sends ""
    const none = await create({ name: 'pdns-orphan.test.' });
    expect(none.status).toBe(201);
    expect(none.body).toMatchObject({ account: '', kind: 'Native' });
    expect(await owner('pdns-orphan.test')).toBe('operator@localhost.localdomain');
    const empty = await create({ name: 'pdns-orphan2.test.', account: '', kind: 'Master' });
    expect(empty.status).toBe(201);
    expect(empty.body).toMatchObject({ account: '', kind: 'Master' });
    expect(await owner('pdns-orphan2.test')).toBe('operator@localhost.localdomain');
    // an account text that names no user: the operator's zone, the text read back as given
    const label = await create({ name: 'pdns-orphan3.test.', account: 'team-blue', kind: 'Primary' });
    expect(label.body).toMatchObject({ account: 'team-blue', kind: 'Master' });
    expect(await owner('pdns-orphan3.test')).toBe('operator@localhost.localdomain');
    expect((await get(`${ZONES}/pdns-orphan3.test.`, ADMIN_KEY)).body).toMatchObject({ account: 'team-blue', kind: 'Master' });
    // a PUT sets kind and account as PowerDNS does (the owner stays)
    expect(
      (await app.http.put(`${ZONES}/pdns-orphan3.test.`).set('X-API-Key', ADMIN_KEY).send({ kind: 'Native', account: 'x' })).status,
    ).toBe(204);
    expect((await get(`${ZONES}/pdns-orphan3.test.`, ADMIN_KEY)).body).toMatchObject({ account: 'x', kind: 'Native' });
    expect(await owner('pdns-orphan3.test')).toBe('operator@localhost.localdomain');
    // several creates at once make one operator's user
    const many = await Promise.all(['pdns-op1.test.', 'pdns-op2.test.', 'pdns-op3.test.'].map((name) => create({ name })));
    expect(many.map((res) => res.status)).toEqual([201, 201, 201]);
    const operators = await app.gql(`{ users(email: "OPERATOR@localhost.localdomain") { totalCount } }`);
    if (operators.errors) throw new Error(JSON.stringify(operators.errors));
    expect(operators.data.users.totalCount).toBe(1);
    // a user's key creates for its user; the account it gives is read back as given
    const mine = await app.http
      .post(ZONES)
      .set('X-API-Key', userKey)
      .send({ name: 'labelled-mine.test.', kind: 'Native', account: 'team-red' });
    expect(mine.body).toMatchObject({ account: 'team-red', kind: 'Native' });
    expect(await owner('labelled-mine.test')).toBe('pdns@example.org');
    // a create without kind is 422, as PowerDNS answers it
    const noKind = await app.http.post(ZONES).set('X-API-Key', ADMIN_KEY).send({ name: 'pdns-nokind.test.' });
    expect(noKind.status).toBe(422);
    expect(noKind.body.error).toBe("Key 'kind' not present or not a String");
    const list = await get(ZONES, ADMIN_KEY);
    expect(list.body.map((z: any) => z.name)).toEqual(expect.arrayContaining([`${ZONE}.`, `${OTHER}.`]));
  });

  it('a one-zone key lists and changes only its zone', async () => {
    const key = await makeKey({ preset: 'ONE_ZONE', zone: ZONE });
    expect((await get(ZONES, key)).body.map((z: any) => z.name)).toEqual([`${ZONE}.`]);
    expect((await get(`${ZONES}/${OTHER}.`, key)).status).toBe(404);
    expect(
      (await patch(OTHER, [{ name: `x.${OTHER}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] }], key))
        .status,
    ).toBe(404);
    expect(
      (await patch(ZONE, [{ name: `one.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] }], key))
        .status,
    ).toBe(204);
  });

  it('an ACME key does what lego and cert-manager do, and nothing else', async () => {
    const key = await makeKey({ preset: 'ACME', zone: ZONE });
    expect((await get('/api/v1/servers/localhost', key)).status).toBe(200);
    const zone = await get(`${ZONES}/${ZONE}.`, key);
    expect(zone.status).toBe(200);
    const challenge = {
      name: `_acme-challenge.lego.${ZONE}.`,
      type: 'TXT',
      ttl: 120,
      changetype: 'REPLACE',
      records: [{ content: '"lego-token"' }],
    };
    expect((await patch(ZONE, [challenge], key)).status).toBe(204);
    expect((await app.http.put(`${ZONES}/${ZONE}./notify`).set('X-API-Key', key)).status).toBe(200);
    expect((await patch(ZONE, [{ ...challenge, records: [] }], key)).status).toBe(204);
    const refused = await patch(
      ZONE,
      [{ name: `www.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.9' }] }],
      key,
    );
    expect(refused.status).toBe(403);
    expect(typeof refused.body.error).toBe('string');
    expect((await get(`${ZONES}/${OTHER}.`, key)).status).toBe(404);
    expect((await app.http.delete(`${ZONES}/${ZONE}.`).set('X-API-Key', key)).status).toBe(403);
  });

  it('a key that may create zones but not sign them is refused a signed zone before anything is written', async () => {
    const key = await makeKey({ policy: { mayCreateZones: true, rules: [{ types: ['A', 'TXT'], access: 'WRITE' }] } });
    const res = await app.http.post(ZONES).set('X-API-Key', key).send({ name: 'unsigned-pdns.test.', kind: 'Native', dnssec: true });
    expect(res.status).toBe(403);
    expect((await get(`${ZONES}/unsigned-pdns.test.`, ADMIN_KEY)).status).toBe(404);
    // the same zone unsigned, the key may create
    expect((await app.http.post(ZONES).set('X-API-Key', key).send({ name: 'unsigned-pdns.test.', kind: 'Native' })).status).toBe(201);
  });

  it('a key that may create zones creates one only with the records its rules allow (403 naming the rrset, nothing written)', async () => {
    const key = await makeKey({ policy: { mayCreateZones: true, rules: [{ types: ['A', 'TXT'], access: 'WRITE' }] } });
    const zone = 'rules-at-creation.test';
    const rrsetsGiven = [
      { name: `www.${zone}.`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] },
      { name: `${zone}.`, type: 'MX', ttl: 300, records: [{ content: `10 mail.${zone}.` }] },
    ];
    const refused = await app.http
      .post(ZONES)
      .set('X-API-Key', key)
      .send({ name: `${zone}.`, kind: 'Native', rrsets: rrsetsGiven });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(new RegExp(`^RRset ${zone}\\. IN MX: `));
    expect((await get(`${ZONES}/${zone}.`, ADMIN_KEY)).status).toBe(404);
    // what its rules allow, it creates
    const created = await app.http
      .post(ZONES)
      .set('X-API-Key', key)
      .send({ name: `${zone}.`, kind: 'Native', rrsets: [rrsetsGiven[0]] });
    expect(created.status).toBe(201);
  });

  it('a read-only key reads and cannot write', async () => {
    const key = await makeKey({ preset: 'READ_ONLY' });
    expect((await get(`${ZONES}/${ZONE}.`, key)).status).toBe(200);
    const res = await patch(
      ZONE,
      [{ name: `ro.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] }],
      key,
    );
    expect(res.status).toBe(403);
  });
});

describe('quotas', () => {
  it('refuses what a user\'s quotas do not allow with 403 {"error"}, and writes nothing', async () => {
    const quotaUser = await createUser(app, 'pdns-quota@example.org');
    const key = await createUserKey(app, quotaUser);
    const limits = await app.gql(`mutation($id: ID!) { setUserLimits(id: $id, input: {maxZones: 1, maxRecordsPerZone: 4}) { maxZones } }`, {
      id: quotaUser,
    });
    expect(limits.errors).toBeUndefined();
    const zone = 'pdns-quota.test';
    expect(
      (
        await app.http
          .post(ZONES)
          .set('X-API-Key', key)
          .send({ name: `${zone}.`, kind: 'Native', nameservers: ['ns1.pdns.test.'] })
      ).status,
    ).toBe(201);
    const second = await app.http.post(ZONES).set('X-API-Key', key).send({ name: 'pdns-quota2.test.', kind: 'Native' });
    expect(second.status).toBe(403);
    expect(Object.keys(second.body)).toEqual(['error']);
    const before = await rrsets(zone, key);
    const many = await patch(
      zone,
      [
        {
          name: `a.${zone}.`,
          type: 'A',
          ttl: 300,
          changetype: 'REPLACE',
          records: ['192.0.2.1', '192.0.2.2', '192.0.2.3'].map((content) => ({ content })),
        },
      ],
      key,
    );
    expect(many.status).toBe(403);
    expect(typeof many.body.error).toBe('string');
    expect(await rrsets(zone, key)).toEqual(before);
    // the records a zone is created with count too (its SOA and NS with them): 4 allowed, 5 refused, nothing written
    await app.http.delete(`${ZONES}/${zone}.`).set('X-API-Key', key).expect(204);
    const rrsetsOf = (count: number) =>
      Array.from({ length: count }, (_, i) => ({
        name: `h${i}.${zone}.`,
        type: 'A',
        ttl: 300,
        records: [{ content: `192.0.2.${i + 1}` }],
      }));
    const tooMany = await app.http
      .post(ZONES)
      .set('X-API-Key', key)
      .send({ name: `${zone}.`, kind: 'Native', nameservers: ['ns1.pdns.test.'], rrsets: rrsetsOf(3) });
    expect(tooMany.status).toBe(403);
    expect(tooMany.body.error).toContain('maxRecordsPerZone');
    expect((await get(`${ZONES}/${zone}.`, ADMIN_KEY)).status).toBe(404);
    expect(
      (
        await app.http
          .post(ZONES)
          .set('X-API-Key', key)
          .send({ name: `${zone}.`, kind: 'Native', nameservers: ['ns1.pdns.test.'], rrsets: rrsetsOf(2) })
      ).status,
    ).toBe(201);
  });
});

describe('cryptokeys, metadata, TSIG keys, search', () => {
  it('signs a zone by creating a csk, lists and gets its key, and stops signing when it is deleted', async () => {
    const url = `${ZONES}/${OTHER}./cryptokeys`;
    const created = await app.http
      .post(url)
      .set('X-API-Key', userKey)
      .send({ keytype: 'csk', active: true, published: true, algorithm: 'ECDSAP256SHA256' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: 'Cryptokey',
      keytype: 'csk',
      flags: 257,
      algorithm: 'ECDSAP256SHA256',
      active: true,
      published: true,
    });
    expect(created.body.ds.length).toBeGreaterThan(0);
    expect((await get(`${ZONES}/${OTHER}.`)).body.dnssec).toBe(true);
    const list = await get(url);
    expect(list.body.map((k: any) => k.id)).toContain(created.body.id);
    expect((await get(`${url}/${created.body.id}`)).body.dnskey).toBe(created.body.dnskey);
    expect((await get(`${url}/999999`)).status).toBe(404);
    // the parent was never given the DS (never seen there, never confirmed): nothing to wait for, the zone is
    // unsigned at once, as PowerDNS unsigns it (docs/dnssec.md, «Disable»)
    expect((await app.http.delete(`${url}/${created.body.id}`).set('X-API-Key', userKey)).status).toBe(204);
    expect((await get(`${ZONES}/${OTHER}.`)).body.dnssec).toBe(false);
    expect((await get(url)).body).toEqual([]);
    // signed again by a key (PowerDNS-Admin's algorithm by number), its DS said published: unsigning now waits
    // for the parent's DS to go (RFC 8078 §4), and no key is added meanwhile
    expect((await app.http.post(url).set('X-API-Key', userKey).send({ keytype: 'ksk', algorithm: 13 })).status).toBe(201);
    const published = await app.gql(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { state } }`, { z: OTHER });
    expect(published.errors).toBeUndefined();
    const [ksk] = (await get(url)).body;
    expect((await app.http.delete(`${url}/${ksk.id}`).set('X-API-Key', userKey)).status).toBe(204);
    expect((await get(`${ZONES}/${OTHER}.`)).body.dnssec).toBe(true);
    expect((await app.http.post(url).set('X-API-Key', userKey).send({ keytype: 'csk' })).status).toBe(409);
    // PUT with dnssec signs a zone too (PowerDNS-Admin's zone settings), and unsigns it: at once, its DS never
    // published (it stayed `disabling` for ever, none of these tools confirming anything)
    expect((await app.http.put(`${ZONES}/${ZONE}.`).set('X-API-Key', userKey).send({ dnssec: true })).status).toBe(204);
    expect((await get(`${ZONES}/${ZONE}./cryptokeys`)).body.map((k: any) => k.keytype).sort()).toEqual(['ksk', 'zsk']);
    expect((await app.http.put(`${ZONES}/${ZONE}.`).set('X-API-Key', userKey).send({ dnssec: false })).status).toBe(204);
    expect((await get(`${ZONES}/${ZONE}.`)).body.dnssec).toBe(false);
    expect((await get(`${ZONES}/${ZONE}./cryptokeys`)).body).toEqual([]);
    const status = await app.gql(`query($z: String) { domain(name: $z) { dnssec { state } } }`, { z: ZONE });
    expect(status.data.domain.dnssec.state).toBe('unsigned');
    // signed again for the tests after
    expect((await app.http.put(`${ZONES}/${ZONE}.`).set('X-API-Key', userKey).send({ dnssec: true })).status).toBe(204);
  });

  it("reads the zone's metadata from what it holds (its secondaries, the serial policy); ALSO-NOTIFY moves its secondaries; other kinds are 422", async () => {
    const metadata = `${ZONES}/${ZONE}./metadata`;
    expect((await get(metadata)).body).toEqual([{ type: 'Metadata', kind: 'SOA-EDIT-API', metadata: ['DEFAULT'] }]);
    // the zone's first secondaries come with their key (GraphQL here); then their metadata reads
    const key = await app.gql(`mutation($u: ID!) { createTsigKey(input: {userId: $u, name: "pdns-meta-xfr"}) { secret } }`, { u: userId });
    expect(key.errors).toBeUndefined();
    const set = await app.gql(
      `mutation($z: String!) { setZoneSecondaries(zone: $z, secondaries: [{address: "192.0.2.7", tsigKeyName: "pdns-meta-xfr"}, {address: "2001:db8::7", port: 5300, tsigKeyName: "pdns-meta-xfr"}]) { address } }`,
      { z: ZONE },
      userKey,
    );
    expect(set.errors).toBeUndefined();
    expect((await get(metadata)).body).toEqual([
      { type: 'Metadata', kind: 'ALLOW-AXFR-FROM', metadata: ['192.0.2.7', '2001:db8::7'] },
      { type: 'Metadata', kind: 'ALSO-NOTIFY', metadata: ['192.0.2.7', '[2001:db8::7]:5300'] },
      { type: 'Metadata', kind: 'SOA-EDIT-API', metadata: ['DEFAULT'] },
      { type: 'Metadata', kind: 'TSIG-ALLOW-AXFR', metadata: ['pdns-meta-xfr.'] },
    ]);
    // PUT replaces their addresses (the key stays theirs), POST adds one, DELETE removes them
    const put = await app.http
      .put(`${metadata}/ALSO-NOTIFY`)
      .set('X-API-Key', userKey)
      .send({ metadata: ['198.51.100.7:5353'] });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ type: 'Metadata', kind: 'ALSO-NOTIFY', metadata: ['198.51.100.7:5353'] });
    const post = await app.http
      .post(metadata)
      .set('X-API-Key', userKey)
      .send({ kind: 'ALSO-NOTIFY', metadata: ['198.51.100.8'] });
    expect(post.status).toBe(201);
    const listed = await app.gql(`query($z: String!) { domain(name: $z) { extraSecondaries { address port tsigKeyName } } }`, { z: ZONE });
    expect(listed.data.domain.extraSecondaries).toEqual([
      { address: '198.51.100.7', port: 5353, tsigKeyName: 'pdns-meta-xfr' },
      { address: '198.51.100.8', port: 53, tsigKeyName: 'pdns-meta-xfr' },
    ]);
    const bad = await app.http
      .put(`${metadata}/ALSO-NOTIFY`)
      .set('X-API-Key', userKey)
      .send({ metadata: ['ns1.example.net'] });
    expect(bad.status).toBe(422);
    // a read-only key may read them, not move them
    const reader = await makeKey({ preset: 'READ_ONLY' });
    expect((await get(`${metadata}/TSIG-ALLOW-AXFR`, reader)).body.metadata).toEqual(['pdns-meta-xfr.']);
    expect((await app.http.delete(`${metadata}/ALSO-NOTIFY`).set('X-API-Key', reader)).status).toBe(403);
    expect((await app.http.delete(`${metadata}/ALSO-NOTIFY`).set('X-API-Key', userKey)).status).toBe(204);
    expect((await get(metadata)).body).toEqual([{ type: 'Metadata', kind: 'SOA-EDIT-API', metadata: ['DEFAULT'] }]);
    for (const kind of ['ALLOW-AXFR-FROM', 'TSIG-ALLOW-AXFR', 'X-CUSTOM']) {
      const write = await app.http
        .put(`${metadata}/${kind}`)
        .set('X-API-Key', userKey)
        .send({ metadata: ['AUTO-NS'] });
      expect({ kind, status: write.status }).toEqual({ kind, status: 422 });
      expect(write.body.error).toMatch(/Zonekeeper writes ALSO-NOTIFY/);
    }
  });

  it('makes, lists and deletes TSIG keys of the caller', async () => {
    const created = await app.http
      .post('/api/v1/servers/localhost/tsigkeys')
      .set('X-API-Key', userKey)
      .send({ name: 'pdns-tsig', algorithm: 'hmac-sha256' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'TSIGKey', name: 'pdns-tsig.', id: 'pdns-tsig.', algorithm: 'hmac-sha256' });
    expect(Buffer.from(created.body.key, 'base64')).toHaveLength(32);
    expect((await get('/api/v1/servers/localhost/tsigkeys')).body.map((k: any) => k.name)).toContain('pdns-tsig.');
    expect((await get('/api/v1/servers/localhost/tsigkeys/pdns-tsig.')).status).toBe(200);
    expect((await app.http.delete('/api/v1/servers/localhost/tsigkeys/pdns-tsig.').set('X-API-Key', userKey)).status).toBe(204);
    expect((await get('/api/v1/servers/localhost/tsigkeys/pdns-tsig.')).status).toBe(404);
  });

  it('searches zones by name with wildcards', async () => {
    const res = await get('/api/v1/servers/localhost/search-data?q=pdns-*&max=10&object_type=zone');
    expect(res.status).toBe(200);
    expect(res.body.map((r: any) => r.name).sort()).toEqual([`${ZONE}.`, `${OTHER}.`]);
    const one = await get('/api/v1/servers/localhost/search-data?q=pdns-?ne.test.&object_type=zone');
    expect(one.body.map((r: any) => r.name)).toEqual([`${ZONE}.`]);
    // a pattern that would make a regular expression backtrack for ever is matched in linear passes
    expect((await get(`/api/v1/servers/localhost/search-data?q=${'*p'.repeat(40)}*x`)).body).toEqual([]);
    expect((await get('/api/v1/servers/localhost/search-data?q=')).status).toBe(422);
    // `_` and `%` are characters of the pattern, not LIKE's wildcards
    expect((await get('/api/v1/servers/localhost/search-data?q=pdns_one.test')).body).toEqual([]);
    expect((await get('/api/v1/servers/localhost/search-data?q=pdns%25')).body).toEqual([]);
  });

  it('a leading wildcard searches every zone, not the first ones listed (PowerDNS-Admin sends *q*)', async () => {
    for (let i = 0; i < 12; i++)
      expect(
        (
          await app.http
            .post(ZONES)
            .set('X-API-Key', userKey)
            .send({ name: `filler-${i}.search.test.`, kind: 'Native' })
        ).status,
      ).toBe(201);
    expect((await app.http.post(ZONES).set('X-API-Key', userKey).send({ name: 'late-match.search.test.', kind: 'Native' })).status).toBe(
      201,
    );
    const found = await get('/api/v1/servers/localhost/search-data?q=*late-match*&max=1&object_type=zone');
    expect(found.body).toEqual([{ object_type: 'zone', name: 'late-match.search.test.', zone_id: 'late-match.search.test.' }]);
  });
});

describe('comments (PowerDNS-Admin)', () => {
  const COMMENTED = 'pdns-comments.test';
  const name = `build.${COMMENTED}.`;
  const commentsOf = async (owner: string, type: string, key = userKey) => {
    const res = await get(`${ZONES}/${COMMENTED}.`, key);
    expect(res.status).toBe(200);
    return res.body.rrsets.find((r: any) => r.name === owner && r.type === type);
  };

  beforeAll(async () => {
    const created = await app.http
      .post(ZONES)
      .set('X-API-Key', userKey)
      .send({
        name: `${COMMENTED}.`,
        kind: 'Native',
        rrsets: [
          {
            name: `www.${COMMENTED}.`,
            type: 'A',
            ttl: 300,
            records: [{ content: '192.0.2.1', disabled: false }],
            comments: [{ content: 'the web server', account: 'ops', modified_at: 1700000000 }],
          },
        ],
      });
    expect(created.status).toBe(201);
    expect(created.body.rrsets.find((r: any) => r.name === `www.${COMMENTED}.`).comments).toEqual([
      { content: 'the web server', account: 'ops', modified_at: 1700000000 },
    ]);
  });

  it('keeps the comments PowerDNS-Admin sends with its records and shows them back, one per record, in order', async () => {
    const before = (await history(COMMENTED)).serial;
    // PowerDNS-Admin's record editor: the comment typed beside each record, an empty one for a record without
    const res = await patch(COMMENTED, [
      {
        name,
        type: 'A',
        ttl: 300,
        changetype: 'REPLACE',
        records: [
          { content: '192.0.2.10', disabled: false },
          { content: '192.0.2.11', disabled: false },
        ],
        comments: [
          { content: 'the build server', account: '' },
          { content: '', account: '' },
        ],
      },
    ]);
    expect(res.status).toBe(204);
    const set = await commentsOf(name, 'A');
    expect(set.records.map((r: any) => r.content)).toEqual(['192.0.2.10', '192.0.2.11']);
    expect(set.comments.map((c: any) => [c.content, c.account])).toEqual([
      ['the build server', ''],
      ['', ''],
    ]);
    // modified_at: now, in seconds, when the client gives none (PowerDNS's gatherComments)
    expect(Math.abs(set.comments[0].modified_at - Date.now() / 1000)).toBeLessThan(120);
    // the records' change is one serial step; the comments ride along in it
    const after = await history(COMMENTED);
    expect(after.serial).not.toBe(before);
    expect(after.changes.nodes[0].serialBefore).toBe(before);
  });

  it('a REPLACE with only comments changes them and no record (no serial step); one without comments keeps them', async () => {
    const before = (await history(COMMENTED)).serial;
    expect(
      (await patch(COMMENTED, [{ name, type: 'A', changetype: 'REPLACE', comments: [{ content: 'moved to rack 4', account: 'ops' }] }]))
        .status,
    ).toBe(204);
    const set = await commentsOf(name, 'A');
    expect(set.comments.map((c: any) => c.content)).toEqual(['moved to rack 4']);
    expect(set.records).toHaveLength(2);
    expect((await history(COMMENTED)).serial).toBe(before);
    // records replaced without `comments`: the comments stay (PowerDNS replaces only what is given)
    expect(
      (await patch(COMMENTED, [{ name, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.12' }] }])).status,
    ).toBe(204);
    expect((await commentsOf(name, 'A')).comments.map((c: any) => c.content)).toEqual(['moved to rack 4']);
  });

  it('an RRset with comments and no records is shown with records [] and TTL 0; DELETE removes records and comments', async () => {
    const note = `reserved.${COMMENTED}.`;
    expect(
      (await patch(COMMENTED, [{ name: note, type: 'TXT', changetype: 'REPLACE', comments: [{ content: 'keep free', account: 'ops' }] }]))
        .status,
    ).toBe(204);
    const shown = await commentsOf(note, 'TXT');
    expect(shown).toMatchObject({ name: note, type: 'TXT', ttl: 0, records: [] });
    expect(shown.comments.map((c: any) => c.content)).toEqual(['keep free']);
    expect(
      (
        await patch(COMMENTED, [
          { name: note, type: 'TXT', changetype: 'DELETE' },
          { name, type: 'A', changetype: 'DELETE' },
        ])
      ).status,
    ).toBe(204);
    expect(await commentsOf(note, 'TXT')).toBeUndefined();
    expect(await commentsOf(name, 'A')).toBeUndefined();
  });

  it('refuses a wrong comment with 422 naming the rrset, and writes nothing of the PATCH', async () => {
    const before = await rrsets(COMMENTED);
    const serial = (await history(COMMENTED)).serial;
    const good = { name: `new.${COMMENTED}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.50' }] };
    const noAccount = await patch(COMMENTED, [
      good,
      { name: `www.${COMMENTED}.`, type: 'A', changetype: 'REPLACE', comments: [{ content: 'x' }] },
    ]);
    expect(noAccount.status).toBe(422);
    expect(noAccount.body.error).toBe(`RRset www.${COMMENTED}. IN A: a comment's account is not specified or not a string`);
    const tooLong = await patch(COMMENTED, [
      good,
      { name: `www.${COMMENTED}.`, type: 'A', changetype: 'REPLACE', comments: [{ content: 'x'.repeat(65_536), account: '' }] },
    ]);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error).toContain(`RRset www.${COMMENTED}. IN A: `);
    expect(tooLong.body.error).toContain('65535 characters');
    // PowerDNS keeps modified_at in a 32-bit column: a later one is refused (a date past JavaScript's own was a 500)
    for (const modifiedAt of [2 ** 31, 9e15]) {
      const late = await patch(COMMENTED, [
        good,
        { name: `www.${COMMENTED}.`, type: 'A', changetype: 'REPLACE', comments: [{ content: 'x', account: '', modified_at: modifiedAt }] },
      ]);
      expect([late.status, late.body.error]).toEqual([422, expect.stringContaining(`RRset www.${COMMENTED}. IN A: `)]);
    }
    const outside = await patch(COMMENTED, [good, { name: 'www.elsewhere.test.', type: 'A', changetype: 'REPLACE', comments: [] }]);
    expect(outside.status).toBe(422);
    expect(outside.body.error).toContain('RRset www.elsewhere.test. IN A');
    // nothing of the three PATCHes was written: not the good rrset, not a serial step, not a comment
    expect(await rrsets(COMMENTED)).toEqual(before);
    expect((await history(COMMENTED)).serial).toBe(serial);
    expect((await commentsOf(`www.${COMMENTED}.`, 'A')).comments.map((c: any) => c.content)).toEqual(['the web server']);
  });

  it('comments follow the key: written where it may write, read where it may read, gone with the zone', async () => {
    const acme = await makeKey({ preset: 'ACME', zone: COMMENTED });
    const challenge = `_acme-challenge.${COMMENTED}.`;
    const noted = {
      name: challenge,
      type: 'TXT',
      ttl: 120,
      changetype: 'REPLACE',
      records: [{ content: '"t"' }],
      comments: [{ content: 'lego', account: '' }],
    };
    expect((await patch(COMMENTED, [noted], acme)).status).toBe(204);
    const refused = await patch(
      COMMENTED,
      [{ name: `www.${COMMENTED}.`, type: 'A', changetype: 'REPLACE', comments: [{ content: 'no', account: '' }] }],
      acme,
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain(`RRset www.${COMMENTED}. IN A`);
    expect((await commentsOf(`www.${COMMENTED}.`, 'A')).comments.map((c: any) => c.content)).toEqual(['the web server']);
    // the ACME key reads its challenge's comment; a key for another zone does not see this one
    expect((await commentsOf(challenge, 'TXT', acme)).comments.map((c: any) => c.content)).toEqual(['lego']);
    const otherZoneKey = await makeKey({ preset: 'ONE_ZONE', zone: ZONE });
    expect((await patch(COMMENTED, [{ name: challenge, type: 'TXT', changetype: 'REPLACE', comments: [] }], otherZoneKey)).status).toBe(
      404,
    );
    expect((await app.http.delete(`${ZONES}/${COMMENTED}.`).set('X-API-Key', userKey)).status).toBe(204);
    const again = await app.http
      .post(ZONES)
      .set('X-API-Key', userKey)
      .send({ name: `${COMMENTED}.`, kind: 'Native' });
    expect(again.status).toBe(201);
    expect(again.body.rrsets.flatMap((r: any) => r.comments)).toEqual([]);
  });
});
