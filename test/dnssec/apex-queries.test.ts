/**
 * A signed zone's apex DNSKEY, CDS and CDNSKEY asked of the primary itself (a parent's CDS scanner, an operator
 * checking the keys with dig): answered as its AXFR holds them, with their RRSIGs when the query sets DO, as
 * every other RRset of the zone is; NODATA before.
 */
import { dig, records } from '../propagation/knot';
import { freePort } from '../support/free-port';
import { createUser, createZone } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';

const ZONE = 'apex-queries.test';
let app: TestApp;
let dnsPort: number;
let axfr: { name: string; ttl: number; type: string; rdata: string }[];

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  await createZone(app, await createUser(app, 'apex@apex-queries.test'), ZONE);
  const enabled = await app.gql(`mutation { enableDnssec(input: {zone: "${ZONE}"}) { state } }`);
  expect(enabled.errors).toBeUndefined();
  axfr = records(await dig(['@127.0.0.1', '-p', String(dnsPort), ZONE, 'AXFR', '+nocomments', '+nostats']));
}, 60_000);
afterAll(async () => app?.close());

const ask = async (type: string, ...flags: string[]) => {
  const answer = await dig(['@127.0.0.1', '-p', String(dnsPort), ZONE, type, '+norecurse', '+nostats', ...flags]);
  return { status: answer.status, rrs: records(answer).filter((r) => r.name === `${ZONE}.`) };
};
const rdatas = (rrs: { type: string; rdata: string }[], type: string) =>
  rrs
    .filter((r) => r.type === type)
    .map((r) => r.rdata)
    .sort();
const covering = (rrs: { type: string; rdata: string }[], type: string) =>
  rrs.filter((r) => r.type === 'RRSIG' && r.rdata.startsWith(`${type} `));

it.each(['DNSKEY', 'CDS', 'CDNSKEY'])('answers %s at the apex as the AXFR holds it, with its RRSIGs under DO', async (type) => {
  const held = rdatas(
    axfr.filter((r) => r.name === `${ZONE}.`),
    type,
  );
  // enabling publishes the keys and, for the parent, their CDS and CDNSKEY (RFC 7344 §4)
  expect(held.length).toBeGreaterThan(0);
  const plain = await ask(type);
  expect(plain.status).toBe('NOERROR');
  expect(rdatas(plain.rrs, type)).toEqual(held);
  expect(plain.rrs.filter((r) => r.type === 'RRSIG')).toEqual([]);
  const signed = await ask(type, '+dnssec');
  expect(rdatas(signed.rrs, type)).toEqual(held);
  expect(
    covering(signed.rrs, type)
      .map((r) => r.rdata)
      .sort(),
  ).toEqual(
    covering(
      axfr.filter((r) => r.name === `${ZONE}.`),
      type,
    )
      .map((r) => r.rdata)
      .sort(),
  );
});

it('signs the other answers under DO too (the apex SOA and NS)', async () => {
  for (const type of ['SOA', 'NS']) {
    const signed = await ask(type, '+dnssec');
    expect(rdatas(signed.rrs, type).length).toBeGreaterThan(0);
    expect(covering(signed.rrs, type).length).toBeGreaterThan(0);
  }
});
