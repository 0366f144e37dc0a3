/**
 * Customers' own transfers (docs/transfers.md) with the fleet's TSIG_KEY set: a user's TSIG key transfers that
 * user's zones (AXFR, IXFR) and no other user's, beside the fleet key that transfers every zone; external-dns's
 * way of working (AXFR, then UPDATE, one key) works; a zone's extra secondary (a customer's own BIND) takes its
 * zone with the customer's key and follows its changes on our NOTIFY; outside TRANSFER_ALLOW and UPDATE_ALLOW a
 * user's key transfers only from an address the zone lists as its extra secondary with that key. The same for a
 * customer's own PowerDNS (Debian's pdns-server, a secondary zone set up through its own API).
 */
import { randomBytes } from 'node:crypto';
import { startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createTsigKey, createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { KeyArg, nsupdate, python } from '../support/update-clients';
import { BindSecondary, startBindSecondary } from '../support/bind-secondary';
import { PowerDnsServer, startPowerDns } from '../support/powerdns-server';
import { waitFor } from '../support/wait-for';
import { dig, DigResult, freePort, records, servedSerial } from './knot';

const ALICE_ZONE = 'alice-xfr.zk.test';
const BOB_ZONE = 'bob-xfr.zk.test';
const FLEET_KEY: KeyArg = { algorithm: 'hmac-sha256', name: 'zk-fleet-xfr', secret: randomBytes(32).toString('base64') };
/** a loopback address outside TRANSFER_ALLOW and UPDATE_ALLOW (Linux answers for all of 127.0.0.0/8) */
const OUTSIDE = '127.0.0.2';

let app: TestApp;
let dnsPort: number;
let aliceId: string;
let bobId: string;
let alice: KeyArg;
let bob: KeyArg;
let bind: BindSecondary | undefined;
let powerdns: PowerDnsServer | undefined;
let movedBind: BindSecondary | undefined;

const transfer = (key: KeyArg, zone: string, type = 'AXFR', from = '127.0.0.1'): Promise<DigResult> =>
  dig(['-b', from, '-y', `${key.algorithm}:${key.name}:${key.secret}`, '@127.0.0.1', '-p', String(dnsPort), zone, type]);
const soaCount = (result: DigResult) => records(result).filter((r) => r.type === 'SOA').length;

/** dig prints only "Transfer failed" for a refused transfer: dnspython reads the first answer's RCODE and EDE */
const DNSPYTHON_AXFR = `
import sys, dns.message, dns.query, dns.tsigkeyring, dns.rcode
zone, port, name, secret, source = sys.argv[1:6]
q = dns.message.make_query(zone, 'AXFR', use_edns=0)
q.use_tsig(dns.tsigkeyring.from_text({name: secret}), keyname=name, algorithm='hmac-sha256')
r = dns.query.tcp(q, '127.0.0.1', port=int(port), timeout=5, source=source)
print(dns.rcode.to_text(r.rcode()), *[o.text for o in (r.options or []) if o.otype == 15])
`;
const refusal = async (key: KeyArg, zone: string, from = '127.0.0.1') =>
  (await python(DNSPYTHON_AXFR, [zone, String(dnsPort), key.name, key.secret, from])).stdout.trim();

const SET_SECONDARIES = `mutation($z: String!, $s: [ZoneSecondaryInput!]!) {
  setZoneSecondaries(zone: $z, secondaries: $s) { address port tsigKeyName } }`;

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    TSIG_KEY: `${FLEET_KEY.name}:hmac-sha256:${FLEET_KEY.secret}`,
    TRANSFER_ALLOW: '127.0.0.1/32',
    UPDATE_ALLOW: '127.0.0.1/32',
  });
  aliceId = await createUser(app, 'alice@xfr.zk.test');
  bobId = await createUser(app, 'bob@xfr.zk.test');
  await createZone(app, aliceId, ALICE_ZONE);
  await createZone(app, bobId, BOB_ZONE);
  alice = await createTsigKey(app, aliceId, 'alice-xfr-key');
  bob = await createTsigKey(app, bobId, 'bob-xfr-key');
}, 60_000);

afterAll(async () => {
  await movedBind?.stop();
  await bind?.stop();
  await powerdns?.stop();
  await app?.close();
});

test("a user's key transfers its own zones (AXFR, IXFR) and not another user's; the fleet key transfers both", async () => {
  expect(soaCount(await transfer(alice, ALICE_ZONE))).toBe(2);
  const refused = await transfer(alice, BOB_ZONE);
  expect(soaCount(refused)).toBe(0);
  expect(await refusal(alice, BOB_ZONE)).toBe(`REFUSED key alice-xfr-key may not transfer ${BOB_ZONE}`);
  const ixfr = await transfer(alice, ALICE_ZONE, 'IXFR=1');
  expect(soaCount(ixfr)).toBeGreaterThanOrEqual(1);
  expect(soaCount(await transfer(alice, BOB_ZONE, 'IXFR=1'))).toBe(0);
  expect(soaCount(await transfer(FLEET_KEY, ALICE_ZONE))).toBe(2);
  expect(soaCount(await transfer(FLEET_KEY, BOB_ZONE))).toBe(2);
});

test('external-dns style: AXFR and UPDATE with one user key while TSIG_KEY is set', async () => {
  const added = await nsupdate(dnsPort, alice, [`zone ${ALICE_ZONE}`, `update add edns.${ALICE_ZONE} 300 A 192.0.2.40`, 'send']);
  expect(added.code).toBe(0);
  const after = records(await transfer(alice, ALICE_ZONE));
  expect(after).toContainEqual(expect.objectContaining({ name: `edns.${ALICE_ZONE}.`, type: 'A', rdata: '192.0.2.40' }));
  // the deletion external-dns makes of a record it found by AXFR
  const removed = await nsupdate(dnsPort, alice, [`zone ${ALICE_ZONE}`, `update delete edns.${ALICE_ZONE} A 192.0.2.40`, 'send']);
  expect(removed.code).toBe(0);
  expect(records(await transfer(alice, ALICE_ZONE)).map((r) => r.name)).not.toContain(`edns.${ALICE_ZONE}.`);
});

test("outside the allow lists a user's key transfers only as one of the zone's extra secondaries", async () => {
  const before = await transfer(alice, ALICE_ZONE, 'AXFR', OUTSIDE);
  expect(soaCount(before)).toBe(0);
  expect(await refusal(alice, ALICE_ZONE, OUTSIDE)).toBe(
    `REFUSED transfers of ${ALICE_ZONE} to ${OUTSIDE} with key alice-xfr-key are not allowed (not an extra secondary of the zone with that key)`,
  );
  const set = await app.gql(SET_SECONDARIES, { z: ALICE_ZONE, s: [{ address: OUTSIDE, port: 5399, tsigKeyName: alice.name }] });
  expect(set.errors).toBeUndefined();
  expect(set.data.setZoneSecondaries).toEqual([{ address: OUTSIDE, port: 5399, tsigKeyName: alice.name }]);
  expect(soaCount(await transfer(alice, ALICE_ZONE, 'AXFR', OUTSIDE))).toBe(2);
  // the listing is for that zone and that key: not bob's zone, not the fleet key from there
  expect(soaCount(await transfer(bob, BOB_ZONE, 'AXFR', OUTSIDE))).toBe(0);
  expect(soaCount(await transfer(FLEET_KEY, ALICE_ZONE, 'AXFR', OUTSIDE))).toBe(0);
  const listed = await app.gql(`query($z: String) { domain(name: $z) { extraSecondaries { address port tsigKeyName } } }`, {
    z: ALICE_ZONE,
  });
  expect(listed.data.domain.extraSecondaries).toEqual([{ address: OUTSIDE, port: 5399, tsigKeyName: alice.name }]);
  expect((await app.gql(SET_SECONDARIES, { z: ALICE_ZONE, s: [] })).data.setZoneSecondaries).toEqual([]);
  expect(soaCount(await transfer(alice, ALICE_ZONE, 'AXFR', OUTSIDE))).toBe(0);
});

test("extra secondaries are refused when their key is not the zone's user's, or their address or port is not one", async () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ address: '127.0.0.1', tsigKeyName: bob.name }, 'secondaries[0].tsigKeyName', 'TSIG_KEY_NOT_FOUND'],
    [{ address: 'ns1.example.net', tsigKeyName: alice.name }, 'secondaries[0].address', 'INVALID_ADDRESS'],
    [{ address: '192.0.2.1', port: 70000, tsigKeyName: alice.name }, 'secondaries[0].port', 'INVALID_PORT'],
  ];
  for (const [entry, field, code] of cases) {
    const res = await app.gql(SET_SECONDARIES, { z: ALICE_ZONE, s: [entry] });
    expect(res.status).toBe(200);
    expect(errorCode(res)).toBe('INVALID_INPUT');
    expect(res.errors![0].extensions.details[0]).toMatchObject({ field, code });
  }
  const twice = await app.gql(SET_SECONDARIES, {
    z: ALICE_ZONE,
    s: [
      { address: '192.0.2.1', tsigKeyName: alice.name },
      { address: '192.0.2.1', port: 53, tsigKeyName: alice.name },
    ],
  });
  expect(twice.errors![0].extensions.details[0]).toMatchObject({ field: 'secondaries[1].address', code: 'DUPLICATE_SERVER' });
  const listed = await app.gql(`query($z: String) { domain(name: $z) { extraSecondaries { address } } }`, { z: ALICE_ZONE });
  expect(listed.data.domain.extraSecondaries).toEqual([]);
});

test("a customer's own BIND takes its zone with the customer's key, not another customer's, and follows our NOTIFY", async () => {
  bind = await startBindSecondary({ zones: [ALICE_ZONE, BOB_ZONE], primaryPort: dnsPort, tsig: alice });
  const first = await waitFor('BIND to serve the zone', () => servedSerial(bind!.port, ALICE_ZONE));
  expect(await servedSerial(bind.port, BOB_ZONE)).toBeUndefined();
  const set = await app.gql(SET_SECONDARIES, { z: ALICE_ZONE, s: [{ address: '127.0.0.1', port: bind.port, tsigKeyName: alice.name }] });
  expect(set.errors).toBeUndefined();
  const created = await app.gql(CREATE_RECORD, {
    input: { zone: ALICE_ZONE, owner: 'notified', type: 'A', rdata: '192.0.2.41', ttl: 300 },
  });
  expect(created.errors).toBeUndefined();
  // the zone's SOA refresh is an hour: only our NOTIFY brings the change this soon
  await waitFor('BIND to take the change', async () => ((await servedSerial(bind!.port, ALICE_ZONE))! > first ? true : undefined));
  const answer = await dig(['@127.0.0.1', '-p', String(bind.port), '+norec', `notified.${ALICE_ZONE}`, 'A']);
  expect(
    records(answer)
      .filter((r) => r.type === 'A')
      .map((r) => r.rdata),
  ).toEqual(['192.0.2.41']);
  expect(await servedSerial(bind.port, BOB_ZONE)).toBeUndefined();
});

test("a customer's own PowerDNS takes its zone with the customer's key, not another customer's, and follows our NOTIFY", async () => {
  // PowerDNS as its operators run a secondary: its own API makes the TSIG key and the two secondary zones
  // ("Slave", with slave_tsig_key_ids: its AXFR-MASTER-TSIG, the key it signs its SOA checks and transfers
  // with; master_tsig_key_ids would be the keys it allows as a primary), its secondary
  // loop every second (xfr-cycle-interval) instead of a minute, so that the first transfer comes soon; loglevel 6
  // logs the NOTIFYs it receives
  powerdns = await startPowerDns(['secondary=yes', 'xfr-cycle-interval=1', 'loglevel=6']);
  const api = (method: string, route: string, body?: unknown) =>
    fetch(`${powerdns!.baseUrl}/api/v1/servers/localhost${route}`, {
      method,
      headers: { 'X-API-Key': powerdns!.apiKey, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const key = await api('POST', '/tsigkeys', { name: alice.name, algorithm: 'hmac-sha256', key: alice.secret });
  expect(key.status).toBe(201);
  const keyId = ((await key.json()) as { id: string }).id;
  for (const zone of [ALICE_ZONE, BOB_ZONE]) {
    const created = await api('POST', '/zones', {
      name: `${zone}.`,
      kind: 'Slave',
      masters: [`127.0.0.1:${dnsPort}`],
      slave_tsig_key_ids: [keyId],
    });
    expect(created.status).toBe(201);
  }
  const first = await waitFor('PowerDNS to serve the zone', () => servedSerial(powerdns!.dnsPort, ALICE_ZONE), 10_000, 200);
  // Bob's zone asked for with Alice's key: refused (PowerDNS logs the refusal and serves nothing for it)
  expect(await servedSerial(powerdns.dnsPort, BOB_ZONE)).toBeUndefined();
  expect(powerdns.log()).toMatch(new RegExp(`${BOB_ZONE.replace(/\./g, '\\.')}.*(REFUSED|Refused|refused)`));
  const set = await app.gql(SET_SECONDARIES, {
    z: ALICE_ZONE,
    s: [{ address: '127.0.0.1', port: powerdns.dnsPort, tsigKeyName: alice.name }],
  });
  expect(set.errors).toBeUndefined();
  const created = await app.gql(CREATE_RECORD, {
    input: { zone: ALICE_ZONE, owner: 'pdns-notified', type: 'A', rdata: '192.0.2.42', ttl: 300 },
  });
  expect(created.errors).toBeUndefined();
  await waitFor('PowerDNS to take the change', async () =>
    (await servedSerial(powerdns!.dnsPort, ALICE_ZONE))! > first ? true : undefined,
  );
  const answer = await dig(['@127.0.0.1', '-p', String(powerdns.dnsPort), '+norec', `pdns-notified.${ALICE_ZONE}`, 'A']);
  expect(
    records(answer)
      .filter((r) => r.type === 'A')
      .map((r) => r.rdata),
  ).toEqual(['192.0.2.42']);
  expect(await servedSerial(powerdns.dnsPort, BOB_ZONE)).toBeUndefined();
  // the change came on our NOTIFY, signed with the customer's key (PowerDNS logs it at loglevel 6)
  expect(powerdns.log()).toContain(`Received secure NOTIFY for ${ALICE_ZONE} from 127.0.0.1, with TSIG key '${alice.name}'`);
});

test("a key moved in through the PowerDNS API with its secret keeps the customer's BIND transferring; a new secret by PUT, then BIND's old one is refused", async () => {
  // the key the customer's BIND already holds (its own key file, or a key moved from PowerDNS: `pdnsutil
  // import-tsig-key`), given to us by the customer's own API key as PowerDNS takes it
  const moved: KeyArg = { algorithm: 'hmac-sha256', name: 'alice-moved-key', secret: randomBytes(32).toString('base64') };
  const key = await createUserKey(app, aliceId);
  const api = (method: string, route: string, body?: unknown) =>
    fetch(`${app.baseUrl}/api/v1/servers/localhost/tsigkeys${route}`, {
      method,
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const imported = await api('POST', '', { name: `${moved.name}.`, algorithm: 'hmac-sha256', key: moved.secret });
  expect(imported.status).toBe(201);
  expect(await imported.json()).toMatchObject({ key: moved.secret, algorithm: 'hmac-sha256' });
  // read back as PowerDNS answers it, to the user who may manage it; another user's key finds no such key
  expect(await (await api('GET', `/${moved.name}.`)).json()).toMatchObject({ key: moved.secret });
  const bobKey = await createUserKey(app, bobId);
  const asBob = await fetch(`${app.baseUrl}/api/v1/servers/localhost/tsigkeys/${moved.name}.`, { headers: { 'X-API-Key': bobKey } });
  expect(asBob.status).toBe(404);
  expect(await asBob.text()).not.toContain(moved.secret);
  movedBind = await startBindSecondary({ zones: [ALICE_ZONE, BOB_ZONE], primaryPort: dnsPort, tsig: moved });
  await waitFor('BIND to transfer the zone with the moved key', () => servedSerial(movedBind!.port, ALICE_ZONE));
  expect(await servedSerial(movedBind.port, BOB_ZONE)).toBeUndefined();
  // the secret rotated by PUT: a transfer signed with the old one is refused at once, one with the new one works
  const rotated = randomBytes(32).toString('base64');
  const put = await api('PUT', `/${moved.name}.`, { key: rotated });
  expect(put.status).toBe(200);
  expect(await put.json()).toMatchObject({ key: rotated });
  expect(soaCount(await transfer(moved, ALICE_ZONE))).toBe(0);
  expect(soaCount(await transfer({ ...moved, secret: rotated }, ALICE_ZONE))).toBe(2);
  // the audit log: made with a given secret, its secret read (the GET, the PUT's answer) and changed, never shown
  const audit = await app.gql(`{ auditEvents(first: 100) { nodes { kind detail } } }`);
  const ofKey = audit.data.auditEvents.nodes.filter((e: any) => e.detail?.name === moved.name);
  expect(ofKey.map((e: any) => e.kind).sort()).toEqual([
    'tsig-key-changed',
    'tsig-key-created',
    'tsig-key-secret-read',
    'tsig-key-secret-read',
  ]);
  expect(ofKey.find((e: any) => e.kind === 'tsig-key-created').detail.imported).toBe(true);
  expect(ofKey.find((e: any) => e.kind === 'tsig-key-changed').detail.changes).toEqual({ secret: { before: 'kept', after: 'changed' } });
  expect(JSON.stringify(audit.data)).not.toContain(rotated);
});
