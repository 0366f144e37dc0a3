/**
 * Negative answers of an ordinary zone by index (issue 17): empty non-terminals (RFC 4592 §2.2.2) and the
 * closest encloser of a wildcard (RFC 4592 §3.3.1) are found by a range of reversed owner names, so these
 * answers must stay exactly what they were: NODATA at a name with descendants only, NXDOMAIN elsewhere,
 * wildcard synthesis below an existing encloser, and names that share a suffix but not a label apart.
 */
import { startTestApp, TestApp } from '../support/test-app';
import { dig, freePort, records } from './knot';

const ZONE = 'ent.zk-lookup.test';
let app: TestApp;
let dnsPort: number;

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  const user = await app.gql(`mutation { createUser(input: {email: "lookup@example.com"}) { id } }`);
  const zone = await app.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "${ZONE}"}) { id } }`, { u: user.data.createUser.id });
  expect(zone.errors).toBeUndefined();
  for (const [owner, type, rdata] of [
    ['a.b.c', 'A', '192.0.2.1'],
    ['*.w', 'A', '192.0.2.2'],
    ['_dmarc.mail', 'TXT', '"v=DMARC1; p=none"'],
    ['x.bc', 'A', '192.0.2.3'],
  ]) {
    const res = await app.gql(`mutation($r: RecordInput!) { createRecord(input: $r) { id } }`, { r: { zone: ZONE, owner, type, rdata, ttl: 300 } });
    expect(res.errors).toBeUndefined();
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const ask = async (name: string, type = 'A') => {
  const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', name === '' ? ZONE : `${name}.${ZONE}`, type]);
  return { status: result.status, answers: records(result).filter((r) => r.type === type).map((r) => r.rdata) };
};

test.each([
  // empty non-terminals: NODATA
  ['b.c', 'NOERROR', []],
  ['c', 'NOERROR', []],
  ['mail', 'NOERROR', []],
  ['w', 'NOERROR', []],
  ['bc', 'NOERROR', []],
  // a suffix of a label is not a parent: `c` is a descendant of nothing in `bc`, `b` is not above `a.b.c`
  ['b', 'NXDOMAIN', []],
  ['zz.c', 'NXDOMAIN', []],
  ['dmarc.mail', 'NXDOMAIN', []],
  ['y.bc', 'NXDOMAIN', []],
  ['a.b.c.d', 'NXDOMAIN', []],
  // existing names and wildcard synthesis below the closest encloser `w`
  ['a.b.c', 'NOERROR', ['192.0.2.1']],
  ['q.w', 'NOERROR', ['192.0.2.2']],
  ['deep.q.w', 'NOERROR', ['192.0.2.2']],
])('%s → %s', async (name, status, answers) => {
  expect(await ask(name as string)).toEqual({ status, answers });
});
