/**
 * The outbound rule (src/outbound/addresses.ts, `mayConnect`) as each caller a user drives through the API meets
 * it: a webhook's URL (WEBHOOK_ALLOW), a secondary zone's primaries, an import's source and a zone's extra
 * secondaries (TRANSFER_SERVERS_ALLOW), another signer's server for its DNSKEYs (DNSSEC_FOREIGN_KEYS_FETCH_ALLOW).
 * Every address of the table is refused by every caller with ADDRESS_NOT_ALLOWED naming the field, nothing
 * written; the one address each caller's setting names (127.0.0.2 here) is taken; the admin key names any
 * transfer server (an operator's own). The health checker's queries: test/integration/health-hierarchy.test.ts.
 */
import 'reflect-metadata';
import { CREATE_SECONDARY, createUser, createUserKey } from '../support/fixtures';
import { REFUSED_ADDRESSES } from '../support/outbound-table';
import { startTestApp, TestApp } from '../support/test-app';

/** named by every caller's allow-list: loopback, so what a caller then sends stays on this host */
const ALLOWED = '127.0.0.2';

let app: TestApp;
let userId: string;
let userKey: string;
const ZONE = 'own.outbound.test';

beforeAll(async () => {
  app = await startTestApp({
    WEBHOOK_ALLOW: `${ALLOWED}/32`,
    TRANSFER_SERVERS_ALLOW: `${ALLOWED}/32`,
    DNSSEC_FOREIGN_KEYS_FETCH_ALLOW: `${ALLOWED}/32`,
  });
  userId = await createUser(app, 'outbound@example.org');
  userKey = await createUserKey(app, userId);
  const made = await app.gql(
    `mutation($u: ID!, $z: String!) { createDomain(input: { userId: $u, zone: $z }) { id } }`,
    { u: userId, z: ZONE },
    userKey,
  );
  expect(made.errors).toBeUndefined();
  const key = await app.gql(
    `mutation($u: ID!) { createTsigKey(input: { userId: $u, name: "outbound-xfr" }) { secret } }`,
    { u: userId },
    userKey,
  );
  expect(key.errors).toBeUndefined();
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const detail = (res: { errors?: { extensions?: { details?: { field: string; code: string; message: string }[] } }[] }) =>
  res.errors?.[0]?.extensions?.details?.[0];
const url = (address: string) => `http://${address.includes(':') ? `[${address}]` : address}:8080/hook`;

/** each caller, driven with a user's key to one address: what it answered, as { code, field } (none: taken) */
const CALLERS: Record<string, (address: string, i: number) => Promise<{ code?: string; field?: string; message?: string }>> = {
  async webhook(address) {
    const res = await app.http
      .post('/api/webhook/add')
      .set('X-API-Key', userKey)
      .send({ url: url(address) });
    if (res.status === 200 || res.status === 201) return {};
    const first = res.body.error?.details?.[0] ?? res.body.details?.[0] ?? res.body;
    return { code: first.code, field: first.field, message: first.message };
  },
  async primaries(address, i) {
    const res = await app.gql(CREATE_SECONDARY, { u: userId, z: `sec-${i}.outbound.test`, p: [{ address, port: 5300 }] }, userKey);
    return { ...detail(res) };
  },
  async importSource(address) {
    const res = await app.gql(
      `mutation($z: String!, $f: ServerInput!) { importZoneByTransfer(zone: $z, from: $f) { records } }`,
      { z: ZONE, f: { address, port: 9 } },
      userKey,
    );
    return { ...detail(res) };
  },
  async extraSecondaries(address) {
    const res = await app.gql(
      `mutation($z: String!, $s: [ZoneSecondaryInput!]!) { setZoneSecondaries(zone: $z, secondaries: $s) { address } }`,
      { z: ZONE, s: [{ address, tsigKeyName: 'outbound-xfr' }] },
      userKey,
    );
    return { ...detail(res) };
  },
  async foreignKeys(address) {
    const res = await app.gql(
      `mutation($i: AddForeignDnskeysInput!) { addForeignDnskeys(input: $i) { zone } }`,
      { i: { zone: ZONE, fetchFrom: address } },
      userKey,
    );
    return { ...detail(res) };
  },
};
const FIELDS: Record<string, string> = {
  webhook: 'url',
  primaries: 'primaries[0].address',
  importSource: 'from.address',
  extraSecondaries: 'secondaries[0].address',
  foreignKeys: 'fetchFrom',
};

test.each(Object.keys(CALLERS))(
  '%s: every address of the table is refused the same way; the one its setting names is taken',
  async (caller) => {
    const answers = [];
    for (const [i, [address]] of REFUSED_ADDRESSES.entries()) answers.push({ address, ...(await CALLERS[caller](address, i)) });
    expect(answers.map(({ address, code, field }) => ({ address, code, field }))).toEqual(
      REFUSED_ADDRESSES.map(([address]) => ({ address, code: 'ADDRESS_NOT_ALLOWED', field: FIELDS[caller] })),
    );
    // the same reason, whoever asks (the caller adds its field and setting)
    for (const { message } of answers) expect(message).toMatch(/non-public address/);
    const allowed = await CALLERS[caller](ALLOWED, 99);
    // taken: no refusal of the address (fetching the DNSKEYs or the transfer then fails: nothing listens there)
    expect(allowed.code).not.toBe('ADDRESS_NOT_ALLOWED');
  },
);

test('nothing refused was written: no secondary zone made, no webhook, no extra secondary', async () => {
  for (const i of REFUSED_ADDRESSES.keys())
    expect(
      (await app.gql(`query($z: String!) { domain(name: $z) { id } }`, { z: `sec-${i}.outbound.test` })).data?.domain ?? null,
    ).toBeNull();
  expect((await app.gql(`query($z: String!) { domain(name: $z) { id } }`, { z: 'sec-99.outbound.test' })).data?.domain).not.toBeNull();
  const hooks = await app.http.get('/api/webhook/list').set('X-API-Key', userKey);
  expect(hooks.body.map((h: { url: string }) => h.url)).toEqual([url(ALLOWED)]);
  const extra = await app.gql(`query($z: String!) { domain(name: $z) { extraSecondaries { address } } }`, { z: ZONE }, userKey);
  expect(extra.data.domain.extraSecondaries).toEqual([{ address: ALLOWED }]);
});

test('the admin key names any transfer server (an operator’s own)', async () => {
  const admin = await app.gql(CREATE_SECONDARY, { u: userId, z: 'operator.outbound.test', p: [{ address: '127.0.0.1', port: 5300 }] });
  expect(admin.errors).toBeUndefined();
});
