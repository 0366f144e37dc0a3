/**
 * Typed RDATA from the field lists: every type's canonical RDATA splits into its named fields and the fields
 * put back together give the same canonical RDATA (through the type's own parse).
 */
import { fieldApiName, rdataFields, rdataFromFields } from '../../src/dns/rdata-fields';
import { getRecordType, listRecordTypes } from '../../src/dns/record-types';

const ZONE = 'example.com';

/** [type, canonical RDATA]: every type of the model at least once */
const SAMPLES: [string, string][] = [
  ['A', '192.0.2.1'],
  ['AAAA', '2001:db8::1'],
  ['APL', '1:192.168.32.0/21 !1:192.168.38.0/28'],
  ['APL', ''],
  ['CAA', '0 issue "letsencrypt.org"'],
  ['DSYNC', 'CDS 1 5359 ds-scanner.example.net.'],
  ['CAA', '128 iodef "mailto:security@example.com"'],
  ['CDNSKEY', '257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ=='],
  ['CDS', '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118'],
  ['CERT', '3 0 254 AQID'],
  ['CNAME', 'target.example.net.'],
  ['DHCID', 'AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA='],
  ['DNAME', 'example.net.'],
  ['DNSKEY', '257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ=='],
  ['DS', '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118'],
  ['EUI48', '00-00-5e-00-53-2a'],
  ['EUI64', '00-00-5e-ef-10-00-00-2a'],
  ['HINFO', '"Generic PC clone" "NetBSD-1.4"'],
  ['HTTPS', '1 . ipv4hint=192.0.2.1,192.0.2.2 ipv6hint=2001:db8::1,::1'],
  ['HTTPS', '0 svc.example.net.'],
  ['IPSECKEY', '10 1 2 192.0.2.38 AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ=='],
  ['L32', '10 10.1.2.0'],
  ['L64', '10 2001:0db8:1140:1000'],
  ['LOC', '42 21 54.000 N 71 6 18.000 W -24.00m 30m 10000m 10m'],
  ['LP', '10 l64-subnet.example.com.'],
  ['MX', '10 mail.example.com.'],
  ['MX', '0 .'],
  ['NAPTR', '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .'],
  ['NID', '10 0014:4fff:ff20:ee64'],
  ['NS', 'ns1.example.net.'],
  ['OPENPGPKEY', 'mQENBFVHm5sBCADqZw=='],
  ['PTR', 'host.example.com.'],
  ['RP', 'mbox-dname.example.com. txt-dname.example.net.'],
  ['SMIMEA', '3 1 1 ' + 'AB'.repeat(32)],
  ['SOA', 'ns1.example.net. hostmaster.example.net. 4294967295 3600 1800 604800 86400'],
  ['SPF', '"v=spf1 -all"'],
  ['SRV', '10 60 5060 sip.example.net.'],
  ['SSHFP', '1 1 ' + 'AB'.repeat(20)],
  ['SVCB', '1 . mandatory=alpn,port alpn="h3,h2" port=8443'],
  ['TLSA', '3 1 1 ' + 'AB'.repeat(32)],
  ['TXT', '"v=spf1 -all" "say \\"hi\\"" "caf\\195\\169"'],
  ['URI', '10 1 "ftp://ftp1.example.com/public"'],
  ['ZONEMD', '2018031900 1 1 ' + 'AB'.repeat(48)],
];

test('every type of the model has a sample here', () => {
  expect(
    listRecordTypes()
      .map((t) => t.type)
      .filter((type) => !SAMPLES.some(([sample]) => sample === type)),
  ).toEqual([]);
});

test.each(SAMPLES)('%s %s: fields and back', (type, canonical) => {
  const definition = getRecordType(type)!;
  expect(definition.parse(canonical, ZONE)).toMatchObject({ ok: true, canonical });
  const fields = rdataFields(definition, canonical);
  expect(Object.keys(fields)).toEqual(definition.fields.map((f) => fieldApiName(f.name)));
  const back = rdataFromFields(definition, fields, 'data');
  if (!back.ok) throw new Error(JSON.stringify(back.problems));
  expect(definition.parse(back.rdata, ZONE)).toMatchObject({ ok: true, canonical });
});

test('fields read as their kind says: numbers, decoded texts, the serial beyond Int', () => {
  expect(rdataFields(getRecordType('MX')!, '10 mail.example.com.')).toEqual({ preference: 10, exchange: 'mail.example.com.' });
  expect(rdataFields(getRecordType('TXT')!, '"v=spf1 -all" "say \\"hi\\"" "caf\\195\\169"')).toEqual({
    txtData: ['v=spf1 -all', 'say "hi"', 'café'],
  });
  expect(rdataFields(getRecordType('SOA')!, 'ns1.example.net. h.example.net. 4294967295 1 2 3 4').serial).toBe(4294967295);
  expect(rdataFields(getRecordType('CAA')!, '0 issue "letsencrypt.org"')).toEqual({ flags: 0, tag: 'issue', value: 'letsencrypt.org' });
  expect(rdataFields(getRecordType('LOC')!, '42 21 54.000 N 71 6 18.000 W -24.00m 30m 10000m 10m')).toEqual({
    latitude: '42 21 54.000 N',
    longitude: '71 6 18.000 W',
    altitude: '-24.00m',
    sizeAndPrecision: '30m 10000m 10m',
  });
});

test('missing or mistyped fields are named', () => {
  const result = rdataFromFields(getRecordType('MX')!, { preference: 1.5 }, 'input.data.mx');
  expect(result.ok).toBe(false);
  expect(!result.ok && result.problems.map((p) => p.field)).toEqual(['input.data.mx.preference', 'input.data.mx.exchange']);
});
