/**
 * DNS UPDATE carries every record type the DNS model knows: each is sent by BIND's nsupdate (which writes the
 * wire form itself), read back from the wire by the type's own reader, and stored in the same canonical form
 * the record API stores. A type added to the model without a wire reader fails here by name.
 */
import { listRecordTypes, getRecordType } from '../../src/dns/record-types';
import { startTestApp, TestApp } from '../support/test-app';
import { createTsigKey, createUser, createZone } from '../support/fixtures';
import { KeyArg, nsupdate } from '../support/update-clients';
import { freePort } from './knot';

const ZONE = 'types.zk.test';

/** one RDATA per type, in presentation form (the SOA is the zone's own, changed by serial only) */
const SAMPLES: Record<string, string> = {
  A: '192.0.2.1',
  AAAA: '2001:db8::1',
  APL: '1:192.168.32.0/21 !1:192.168.38.0/28 2:2001:db8::/32',
  CAA: '0 issue "letsencrypt.org"',
  CDNSKEY: '256 3 8 AQID',
  CDS: '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118',
  CERT: '3 0 254 AQID',
  CNAME: 'target.example.com.',
  DHCID: 'AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA=',
  DNAME: 'example.net.',
  DNSKEY: '257 3 13 AQIDBA==',
  DS: '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118',
  DSYNC: 'CDS 1 5359 ds-scanner.example.net.',
  EUI48: '00-00-5e-00-53-2a',
  EUI64: '00-00-5e-ef-10-00-00-2a',
  HINFO: '"Generic PC clone" "NetBSD-1.4"',
  HTTPS: '1 . alpn=h2,h3 ipv4hint=192.0.2.1,192.0.2.2 ipv6hint=2001:db8::1,::1',
  IPSECKEY: '10 1 2 192.0.2.38 AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==',
  L32: '10 192.0.2.1',
  L64: '10 2001:0db8:1140:1000',
  LOC: '42 21 54.000 N 71 6 18.000 W -24.00m 30m 10000m 10m',
  LP: '10 l64-subnet1.example.com.',
  MX: '10 mail.example.com.',
  NAPTR: '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .',
  NID: '10 0014:4fff:ff20:ee64',
  NS: 'ns1.example.net.',
  OPENPGPKEY: 'AQIDBA==',
  PTR: 'host.example.com.',
  RP: 'mbox-dname.example.com. txt-dname.example.net.',
  SMIMEA: '3 1 1 A9CDF989B504FE5DCA90C0D2167B6550570734F7C763E09FDF88904E06157065',
  SPF: '"v=spf1" "-all"',
  SRV: '10 60 5060 sip.example.net.',
  SSHFP: '1 1 ABABABABABABABABABABABABABABABABABABABAB',
  SVCB: '1 svc.example.net. port=8443 alpn=h2',
  TLSA: '3 1 1 ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB',
  TXT: '"hello" "world"',
  URI: '10 1 "ftp://ftp1.example.com/public"',
  ZONEMD: '2018031900 1 1 62E6CF51B02E54B9B5F967D547CE43136792901F9F88E637493DAAF401C92C279DD10F0EDB1C56F8080211F8480EE306',
};
/** where each goes: its own name, except what only the apex may hold */
const ownerOf = (type: string) => (type === 'ZONEMD' ? '@' : type.toLowerCase());

let app: TestApp;
let dnsPort: number;
let key: KeyArg;

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  const userId = await createUser(app, 'owner@types.zk.test');
  await createZone(app, userId, ZONE);
  key = await createTsigKey(app, userId, 'types-key');
}, 60_000);

afterAll(async () => {
  await app?.close();
});

test('the samples cover every type of the model', () => {
  expect(
    listRecordTypes()
      .map((t) => t.type)
      .filter((t) => t !== 'SOA')
      .sort(),
  ).toEqual(Object.keys(SAMPLES).sort());
});

test.each(Object.keys(SAMPLES))('%s: added by nsupdate, stored as the record API stores it', async (type) => {
  const owner = ownerOf(type);
  const name = owner === '@' ? `${ZONE}.` : `${owner}.${ZONE}.`;
  const run = await nsupdate(dnsPort, key, [`zone ${ZONE}`, `update add ${name} 3600 ${type} ${SAMPLES[type]}`, 'send']);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  const res = await app.gql(`query($n: String) { domain(name: $n) { records(first: 1000) { owner type rdata } } }`, { n: ZONE });
  const parsed = getRecordType(type)!.parse(SAMPLES[type], ZONE);
  expect(parsed.ok).toBe(true);
  const stored = res.data.domain.records.filter((r: any) => r.owner === owner && r.type === type).map((r: any) => r.rdata);
  expect(stored).toEqual([(parsed as { canonical: string }).canonical]);
});
