/**
 * Secondary zones (docs/transfers.md) with real parts: a customer's BIND as the primary of a zone we serve as a
 * secondary, our Knot secondary taking it through the catalog like any zone. A change on BIND (nsupdate) reaches
 * Knot after BIND's NOTIFY (the zone's REFRESH is an hour: only the NOTIFY explains it); the zone is read-only
 * through the API and DNS UPDATE; a NOTIFY from elsewhere is refused; BIND stopped past the SOA's EXPIRE: the
 * status says expired and the zone is not served; promoted, it is ours and an edit reaches Knot. A one-shot
 * import by AXFR, and a primary that answers garbage, too.
 */
import dgram from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { TestApp } from '../support/test-app';
import { startWithKnotFleet } from '../support/knot-fleet';
import { CREATE_RECORD, CREATE_SECONDARY, createSecondary, createTsigKey, createUser, createZone, errorCode } from '../support/fixtures';
import { KeyArg, nsupdate, python } from '../support/update-clients';
import { BindPrimary, startBindPrimary } from '../support/bind-primary';
import { waitFor } from '../support/wait-for';
import { dig, Knot, records } from './knot';

const ZONE = 'customer-sec.zk.test';
const CATALOG = 'catalog.zk-sec.test';

let app: TestApp;
let knot: Knot;
let bind: BindPrimary | undefined;
let dnsPort: number;
let userId: string;
let key: KeyArg;

/** the A records at `name` a server serves (none when it does not serve the zone) */
async function served(port: number, name: string): Promise<string[]> {
  const result = await dig(['@127.0.0.1', '-p', String(port), '+norec', name, 'A']);
  return records(result)
    .filter((r) => r.type === 'A' && r.name === `${name}.`)
    .map((r) => r.rdata)
    .sort();
}
const servesA = (port: number, name: string, address: string) =>
  waitFor(`${name} A ${address} at port ${port}`, async () => ((await served(port, name)).includes(address) ? true : undefined));

/** the time of the first line of named's log (`25-Nov-2026 03:56:30.333 …`, the machine's local time) that says `what` */
function bindLogTime(log: string, what: string): number {
  const line = log.split('\n').find((l) => l.includes(what));
  if (!line) throw new Error(`BIND's log has no "${what}":\n${log}`);
  const [, day, month, year, hours, minutes, seconds, millis] = /^(\d+)-(\w+)-(\d+) (\d+):(\d+):(\d+)\.(\d+)/.exec(line)!;
  const monthIndex = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'].indexOf(month);
  return new Date(+year, monthIndex, +day, +hours, +minutes, +seconds, +millis).getTime();
}

const STATUS = `query($z: String) { domain(name: $z) { kind serial secondary { state lastError transfers lastSuccessAt primaries { address port tsigKeyName } } } }`;
async function status(zone = ZONE): Promise<any> {
  const res = await app.gql(STATUS, { z: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain;
}

/** dnspython: a NOTIFY for the zone from `source`, printing the answer's RCODE and EDE text */
const DNSPYTHON_NOTIFY = `
import sys, dns.message, dns.query, dns.opcode, dns.rcode, dns.flags
zone, port, source = sys.argv[1:4]
q = dns.message.make_query(zone, 'SOA', use_edns=0)
q.set_opcode(dns.opcode.NOTIFY)
q.flags |= dns.flags.AA
r = dns.query.udp(q, '127.0.0.1', port=int(port), timeout=5, source=source)
print(dns.rcode.to_text(r.rcode()), *[o.text for o in (r.options or []) if o.otype == 15])
`;

beforeAll(async () => {
  ({ app, knot, dnsPort } = await startWithKnotFleet(CATALOG, 'zk-sec-fleet'));
  userId = await createUser(app, 'customer@zk-sec.test');
  key = await createTsigKey(app, userId, 'customer-sec-key');
  bind = await startBindPrimary({
    zone: ZONE,
    records: [`@ NS ns1.${ZONE}.`, 'ns1 A 192.0.2.53', 'www A 192.0.2.1'],
    soa: { serial: 100, refresh: 3600, retry: 1, expire: 3600 },
    notifyPort: dnsPort,
    tsig: key,
  });
}, 60_000);

afterAll(async () => {
  await bind?.stop();
  await app?.close();
  await knot?.stop();
});

test('a one-shot import by AXFR replaces a primary zone’s records with the server’s, as one change', async () => {
  await createZone(app, userId, ZONE);
  const imported = await app.gql(
    `mutation($z: String!, $f: ServerInput!) { importZoneByTransfer(zone: $z, from: $f) { records zone { kind records { owner type rdata } } } }`,
    { z: ZONE, f: { address: '127.0.0.1', port: bind!.port, tsigKeyName: key.name } },
  );
  expect(imported.errors).toBeUndefined();
  expect(imported.data.importZoneByTransfer.records).toBe(3);
  const rows = imported.data.importZoneByTransfer.zone.records.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`);
  expect(rows).toEqual(expect.arrayContaining(['www A 192.0.2.1', `@ NS ns1.${ZONE}.`]));
  expect(rows.filter((r: string) => !r.includes('SOA'))).toHaveLength(3);
  // the same records again change nothing: the serial stays, no history entry
  const HISTORY = `query($z: String!) { domain(name: $z) { serial changes(first: 100) { totalCount } } }`;
  const before = (await app.gql(HISTORY, { z: ZONE })).data.domain;
  const again = await app.gql(`mutation($z: String!, $f: ServerInput!) { importZoneByTransfer(zone: $z, from: $f) { records } }`, {
    z: ZONE,
    f: { address: '127.0.0.1', port: bind!.port, tsigKeyName: key.name },
  });
  expect(again.data.importZoneByTransfer.records).toBe(3);
  expect((await app.gql(HISTORY, { z: ZONE })).data.domain).toEqual(before);
  // a server that refuses the transfer (no key): a clear error naming `from`, nothing written
  const refused = await app.gql(`mutation($z: String!, $f: ServerInput!) { importZoneByTransfer(zone: $z, from: $f) { records } }`, {
    z: ZONE,
    f: { address: '127.0.0.1', port: bind!.port },
  });
  expect(errorCode(refused)).toBe('INVALID_INPUT');
  expect(refused.errors![0].extensions.details[0]).toMatchObject({ field: 'from', code: 'TRANSFER_FAILED' });
  expect(refused.errors![0].message).toMatch(/REFUSED/);
  const deleted = await app.gql(`mutation($z: String) { deleteDomain(zone: $z) }`, { z: ZONE });
  expect(deleted.errors).toBeUndefined();
});

test('a secondary zone is taken from BIND and served by our Knot through the catalog', async () => {
  const created = await app.gql(CREATE_SECONDARY, {
    u: userId,
    z: ZONE,
    p: [{ address: '127.0.0.1', port: bind!.port, tsigKeyName: key.name }],
  });
  expect(created.errors).toBeUndefined();
  expect(created.data.createDomain.kind).toBe('SECONDARY');
  await servesA(dnsPort, `www.${ZONE}`, '192.0.2.1');
  await servesA(knot.port, `www.${ZONE}`, '192.0.2.1');
  const state = await status();
  expect(state).toMatchObject({ kind: 'SECONDARY', serial: 100 });
  expect(state.secondary).toMatchObject({
    state: 'IN_SYNC',
    lastError: null,
    transfers: 1,
    primaries: [{ address: '127.0.0.1', port: bind!.port, tsigKeyName: key.name }],
  });
});

test("a change on BIND reaches Knot after BIND's NOTIFY; the history shows the transfer", async () => {
  const update = await nsupdate(bind!.port, key, [`zone ${ZONE}`, `update add new.${ZONE} 300 A 192.0.2.2`, 'send']);
  expect(update.code).toBe(0);
  await servesA(knot.port, `new.${ZONE}`, '192.0.2.2');
  const servedAt = Date.now();
  // the bar: Knot serves the change within 2 s of BIND's NOTIFY. Measured from the NOTIFY BIND logs, not
  // from nsupdate: BIND spaces a zone's NOTIFYs (about 5 s after the previous one, its notify-delay)
  const notifiedAt = bindLogTime(bind!.log(), `sending notifies (serial 101)`);
  expect(servedAt - notifiedAt).toBeLessThan(2000);
  const history = await app.gql(
    `query($z: String) { domain(name: $z) { changes(first: 1) { nodes { serialAfter author { keyName } added { owner type rdata } } } } }`,
    { z: ZONE },
  );
  const last = history.data.domain.changes.nodes[0];
  expect(last.serialAfter).toBe(101);
  // BIND keeps a journal of its dynamic zone: the change comes as an incremental transfer (RFC 1995)
  expect(last.author.keyName).toBe(`transfer from 127.0.0.1#${bind!.port} (IXFR)`);
  expect(last.added).toContainEqual({ owner: 'new', type: 'A', rdata: '192.0.2.2' });
});

test('the secondary zone is read-only through the API and DNS UPDATE; a NOTIFY from elsewhere is refused', async () => {
  const created = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'mine', type: 'A', rdata: '192.0.2.9', ttl: 300 } });
  expect(errorCode(created)).toBe('ZONE_IS_SECONDARY');
  expect(created.errors![0].message).toContain('SECONDARY');
  const update = await nsupdate(dnsPort, key, [`zone ${ZONE}`, `update add mine.${ZONE} 300 A 192.0.2.9`, 'send']);
  expect(update.code).not.toBe(0);
  expect(update.stdout + update.stderr).toMatch(/REFUSED/);
  const notify = await python(DNSPYTHON_NOTIFY, [ZONE, String(dnsPort), '127.0.0.2']);
  expect(notify.stdout.trim()).toBe(`REFUSED NOTIFY for ${ZONE} from 127.0.0.2 refused: not one of the zone's primaries`);
  expect(await served(dnsPort, `mine.${ZONE}`)).toEqual([]);
});

test('BIND stopped past the EXPIRE: the zone is expired and not served; promoted, it is ours and an edit reaches Knot', async () => {
  // a short EXPIRE from now on (BIND raises the serial of an SOA changed by UPDATE)
  const soa = `${ZONE} 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. 200 3600 1 3 300`;
  expect((await nsupdate(bind!.port, key, [`zone ${ZONE}`, `update add ${soa}`, 'send'])).code).toBe(0);
  await waitFor('the short EXPIRE taken', async () => ((await status()).serial === 200 ? true : undefined));
  await bind!.stop();
  bind = undefined;
  await waitFor('the zone to expire', async () => ((await status()).secondary.state === 'EXPIRED' ? true : undefined));
  // the zone expires at its EXPIRE, before the refresh due then has failed: then that failure's reason is shown
  await waitFor('the failed refresh to be shown', async () =>
    /127\.0\.0\.1/.test((await status()).secondary.lastError) ? true : undefined,
  );
  expect((await status()).secondary.state).toBe('EXPIRED');
  const refused = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', `www.${ZONE}`, 'A']);
  expect(refused.status).toBe('REFUSED');

  const promoted = await app.gql(`mutation($z: String!) { promoteZone(zone: $z) { kind } }`, { z: ZONE });
  expect(promoted.errors).toBeUndefined();
  expect(promoted.data.promoteZone.kind).toBe('PRIMARY');
  expect((await status()).secondary).toBeNull();
  const edit = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'edit', type: 'A', rdata: '192.0.2.3', ttl: 300 } });
  expect(edit.errors).toBeUndefined();
  await servesA(dnsPort, `www.${ZONE}`, '192.0.2.1');
  await servesA(knot.port, `edit.${ZONE}`, '192.0.2.3');
});

test('a primary that answers garbage: a clear status, the zone pending and not served, no error from the API', async () => {
  const garbage = dgram.createSocket('udp4');
  garbage.on('message', (_message, from) => garbage.send(randomBytes(40), from.port, from.address));
  await new Promise<void>((resolve) => garbage.bind(0, '127.0.0.1', () => resolve()));
  try {
    const zone = 'garbage-sec.zk.test';
    await createSecondary(app, userId, zone, [{ address: '127.0.0.1', port: garbage.address().port }]);
    const state = await waitFor('the garbage to be noted', async () => {
      const current = (await status(zone)).secondary;
      return current.lastError ? current : undefined;
    });
    expect(state.state).toBe('PENDING');
    expect(state.lastError).toMatch(/127\.0\.0\.1/);
    const answer = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', zone, 'SOA']);
    expect(answer.status).toBe('REFUSED');
  } finally {
    garbage.close();
  }
  const bad = await app.gql(CREATE_SECONDARY, { u: userId, z: 'bad-sec.zk.test', p: [] });
  expect(bad.errors![0].extensions.details[0]).toMatchObject({ field: 'primaries', code: 'PRIMARIES_REQUIRED' });
  const badKey = await app.gql(CREATE_SECONDARY, { u: userId, z: 'bad-sec.zk.test', p: [{ address: '127.0.0.1', tsigKeyName: 'nope' }] });
  expect(badKey.errors![0].extensions.details[0]).toMatchObject({ field: 'primaries[0].tsigKeyName', code: 'TSIG_KEY_NOT_FOUND' });
  expect((await app.gql(`query { domains(name: "bad-sec.zk.test") { totalCount } }`)).data.domains.totalCount).toBe(0);
});
