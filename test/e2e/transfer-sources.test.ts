/**
 * Servers a user's key may have the service transfer a zone from (a secondary zone's primaries, a one-shot
 * import's source): not the service's own host nor the link (loopback, unspecified, link-local where cloud
 * metadata answers, multicast), which a tenant could otherwise probe through the transfer's error
 * (src/services/server-entries.ts, HOST_ONLY_NETWORKS; docs/transfers.md). 422 naming the field,
 * nothing written; a private or public address is taken; the admin key names any server.
 */
import 'reflect-metadata';
import { CREATE_SECONDARY, createUser, createUserKey } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';

let app: TestApp;
let userId: string;
let userKey: string;

beforeAll(async () => {
  app = await startTestApp();
  userId = await createUser(app, 'sources@example.org');
  userKey = await createUserKey(app, userId);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

it('a user’s key may not name this host or the link as a primary (422 naming the address, no zone made)', async () => {
  const host = ['127.0.0.1', '127.8.9.10', '0.0.0.0', '169.254.169.254', '::1', 'fe80::1', '::ffff:127.0.0.1', '224.0.0.251'];
  for (const [i, address] of host.entries()) {
    const zone = `host-${i}.sources.test`;
    const res = await app.gql(CREATE_SECONDARY, { u: userId, z: zone, p: [{ address: '192.0.2.53' }, { address, port: 5432 }] }, userKey);
    expect({
      address,
      code: res.errors?.[0]?.extensions?.details?.[0]?.code,
      field: res.errors?.[0]?.extensions?.details?.[0]?.field,
    }).toEqual({
      address,
      code: 'ADDRESS_NOT_ALLOWED',
      field: 'primaries[1].address',
    });
    expect((await app.gql(`query($z: String!) { domain(name: $z) { id } }`, { z: zone })).data?.domain ?? null).toBeNull();
  }
  // a private or a public address is a customer's server
  for (const [i, address] of ['10.1.2.3', '192.0.2.53', '2001:db8::53'].entries()) {
    const res = await app.gql(CREATE_SECONDARY, { u: userId, z: `far-${i}.sources.test`, p: [{ address }] }, userKey);
    expect({ address, errors: res.errors }).toEqual({ address, errors: undefined });
  }
  // the admin key names any server (an operator's own)
  const admin = await app.gql(CREATE_SECONDARY, { u: userId, z: 'operator.sources.test', p: [{ address: '127.0.0.1', port: 5300 }] });
  expect(admin.errors).toBeUndefined();
});

it('nor as the source of a one-shot import (422 naming from.address, the zone unchanged)', async () => {
  const zone = 'import.sources.test';
  const made = await app.gql(
    `mutation($u: ID!, $z: String!) { createDomain(input: { userId: $u, zone: $z }) { serial } }`,
    { u: userId, z: zone },
    userKey,
  );
  expect(made.errors).toBeUndefined();
  const res = await app.gql(
    `mutation($z: String!, $f: ServerInput!) { importZoneByTransfer(zone: $z, from: $f) { records } }`,
    { z: zone, f: { address: '169.254.169.254', port: 53 } },
    userKey,
  );
  expect(res.errors?.[0]?.extensions?.details?.[0]).toMatchObject({ field: 'from.address', code: 'ADDRESS_NOT_ALLOWED' });
  const after = await app.gql(`query($z: String!) { domain(name: $z) { serial } }`, { z: zone }, userKey);
  expect(after.data.domain.serial).toBe(made.data.createDomain.serial);
});
