/**
 * The default records of a new zone are a setting: RESTKnot's SOA, NS and `www CNAME <zone>.` by default
 * (the REST contract's sample listing), only SOA and NS with DEFAULT_WWW_CNAME=off.
 */
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';

const typesOf = async (app: TestApp, zone: string) => {
  const res = await app.gql(`query($n: String) { domain(name: $n) { records(first: 100) { owner type rdata } } }`, { n: zone });
  expect(res.errors).toBeUndefined();
  return res.data.domain.records.map((r: any) => `${r.owner} ${r.type}${r.type === 'CNAME' ? ` ${r.rdata}` : ''}`).sort();
};

test.each([
  [{}, ['@ NS', '@ NS', '@ SOA', 'www CNAME default-records.test.']],
  [{ DEFAULT_WWW_CNAME: 'off' }, ['@ NS', '@ NS', '@ SOA']],
])('a new zone with %j holds %j', async (env, expected) => {
  const app = await startTestApp(env);
  try {
    const userId = await createUser(app, 'owner@default-records.test');
    await createZone(app, userId, 'default-records.test');
    expect(await typesOf(app, 'default-records.test')).toEqual(expected);
  } finally {
    await app.close();
  }
});

test('with DEFAULT_WWW_CNAME=off, a zone name too long for a www label is still a zone', async () => {
  const app = await startTestApp({ DEFAULT_WWW_CNAME: 'off' });
  try {
    const userId = await createUser(app, 'owner@long.test');
    // 252 octets on the wire: `www.` would pass the 255-octet limit (RFC 1035 §2.3.4), the zone itself does not
    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(55)}.test`;
    await createZone(app, userId, long);
    expect(await typesOf(app, long)).toEqual(['@ NS', '@ NS', '@ SOA']);
  } finally {
    await app.close();
  }
});
