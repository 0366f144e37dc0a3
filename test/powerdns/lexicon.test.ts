/**
 * dns-lexicon's PowerDNS provider (Debian's lexicon: the library behind many certbot DNS plugins and ACME
 * hooks) against Zonekeeper's PowerDNS API with a key made with the ONE_ZONE preset: it creates, lists and
 * deletes records as it does against PowerDNS (a GET of the zone with a JSON body `{}`, a REPLACE carrying the
 * records already there, a REPLACE with an empty list when the last record of an rrset goes, NOTIFY for a
 * Master zone). The same key cannot write to another zone of its user.
 * Debian package: lexicon.
 */
import { createUser, createZone } from '../support/fixtures';
import { runProcess } from '../support/pebble';
import { startTestApp, TestApp } from '../support/test-app';
import { findBinary } from '../propagation/knot';

// lexicon finds the zone of a name from the public suffix list: a name under a real suffix
const ZONE = 'zonekeeper-lexicon.org';
const OTHER_ZONE = 'zonekeeper-lexicon-other.org';

let app: TestApp;
let key: string;

function lexicon(args: string[]) {
  return runProcess(findBinary('lexicon'), ['powerdns', '--auth-token', key, '--pdns-server', app.baseUrl, ...args], {});
}

async function recordsOf(zone: string): Promise<string[]> {
  const res = await app.gql(`query($n: String) { domain(name: $n) { records(first: 100) { owner type rdata ttl } } }`, { n: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return (
    res.data.domain.records
      // the zone's default records aside (SOA, NS, the www CNAME of DEFAULT_WWW_CNAME)
      .filter((r: any) => r.type !== 'SOA' && r.type !== 'NS' && !(r.owner === 'www' && r.type === 'CNAME'))
      .map((r: any) => `${r.owner} ${r.ttl} ${r.type} ${r.rdata}`)
      .sort()
  );
}

beforeAll(async () => {
  app = await startTestApp();
  const userId = await createUser(app, 'lexicon@zonekeeper-lexicon.org');
  await createZone(app, userId, ZONE);
  await createZone(app, userId, OTHER_ZONE);
  const created = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
    input: { userId, name: 'lexicon', preset: 'ONE_ZONE', zone: ZONE },
  });
  if (created.errors) throw new Error(JSON.stringify(created.errors));
  key = created.data.createApiKey.secret;
}, 60_000);

afterAll(async () => {
  await app?.close();
});

test('lexicon creates, lists and deletes records in its zone', async () => {
  const ok = { code: 0 };
  expect(await lexicon(['create', ZONE, 'A', '--name', 'host', '--content', '192.0.2.1', '--ttl', '300'])).toMatchObject(ok);
  expect(await lexicon(['create', ZONE, 'TXT', '--name', '_acme-challenge', '--content', 'token-1', '--ttl', '300'])).toMatchObject(ok);
  // the second token: lexicon REPLACEs the rrset with the record already there beside the new one
  expect(await lexicon(['create', ZONE, 'TXT', '--name', '_acme-challenge', '--content', 'token-2', '--ttl', '300'])).toMatchObject(ok);
  expect(await recordsOf(ZONE)).toEqual(['_acme-challenge 300 TXT "token-1"', '_acme-challenge 300 TXT "token-2"', 'host 300 A 192.0.2.1']);

  const list = await lexicon(['list', ZONE, 'TXT', '--output', 'JSON']);
  expect(list.code).toBe(0);
  const listed = JSON.parse(list.output.slice(list.output.indexOf('[')));
  expect(listed.map((r: any) => `${r.name} ${r.content}`).sort()).toEqual([
    `_acme-challenge.${ZONE} token-1`,
    `_acme-challenge.${ZONE} token-2`,
  ]);

  // one token goes (a REPLACE with the other), then the last (a REPLACE with an empty list)
  expect(await lexicon(['delete', ZONE, 'TXT', '--name', '_acme-challenge', '--content', 'token-1'])).toMatchObject(ok);
  expect(await recordsOf(ZONE)).toEqual(['_acme-challenge 300 TXT "token-2"', 'host 300 A 192.0.2.1']);
  expect(await lexicon(['delete', ZONE, 'TXT', '--name', '_acme-challenge', '--content', 'token-2'])).toMatchObject(ok);
  expect(await recordsOf(ZONE)).toEqual(['host 300 A 192.0.2.1']);
  expect(await lexicon(['delete', ZONE, 'A', '--name', 'host'])).toMatchObject(ok);
  expect(await recordsOf(ZONE)).toEqual([]);
}, 120_000);

test('the one-zone key cannot write to another zone of its user', async () => {
  const run = await lexicon(['create', OTHER_ZONE, 'A', '--name', 'host', '--content', '192.0.2.9', '--ttl', '300']);
  expect(run.code).not.toBe(0);
  expect(run.output).toMatch(/404|403/);
  expect(await recordsOf(OTHER_ZONE)).toEqual([]);
}, 60_000);
