import { FLATTENED_TYPE_NAMES, getRecordType, getServedRecordType, listRecordTypes } from '../../src/dns/record-types';
import { SIGNER_RECORD_TYPES } from '../../src/dns/record-types/signer-types';
import { TYPE_CODES, typeCodeOf, typeMnemonicOf } from '../../src/dns/record-types/type-codes';
import { parseApiRecord } from '../../src/dns/record';
import { TXT } from '../../src/dns/record-types/txt';

const ZONE = 'example.com';

function parse(type: string, rdata: string) {
  const definition = getRecordType(type);
  if (!definition) throw new Error(`no type ${type}`);
  return definition.parse(rdata, ZONE);
}

function codes(type: string, rdata: string): string[] {
  const result = parse(type, rdata);
  return result.ok ? [] : result.problems.map((p) => p.code);
}

/** [type, input, canonical] */
const valid: [string, string, string][] = [
  ['A', '192.0.2.1', '192.0.2.1'],
  ['A', ' 0.0.0.0 ', '0.0.0.0'],
  ['A', '255.255.255.255', '255.255.255.255'],
  ['A', '\t10.0.0.1', '10.0.0.1'],
  ['AAAA', '2001:DB8::1', '2001:db8::1'],
  ['AAAA', '2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
  ['AAAA', '::', '::'],
  ['AAAA', '::1', '::1'],
  ['AAAA', '2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
  ['AAAA', '2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
  ['AAAA', '::ffff:192.0.2.1', '::ffff:192.0.2.1'],
  ['AAAA', '0:0:0:0:0:ffff:c000:0201', '::ffff:192.0.2.1'],
  ['AAAA', '64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
  ['AAAA', 'fe80::', 'fe80::'],
  ['AAAA', ' 2001:db8::2 ', '2001:db8::2'],
  ['MX', '10 mail', '10 mail.example.com.'],
  ['MX', '10 Mail.Example.NET.', '10 mail.example.net.'],
  ['MX', '0 .', '0 .'],
  ['MX', '65535 @', '65535 example.com.'],
  ['SRV', '10 60 5060 sip.example.net.', '10 60 5060 sip.example.net.'],
  ['SRV', '0 0 0 .', '0 0 0 .'],
  ['SRV', '1 2 3 host', '1 2 3 host.example.com.'],
  [
    'SOA',
    'ns1.example.net. hostmaster.example.net. 2024010100 3600 1800 604800 86400',
    'ns1.example.net. hostmaster.example.net. 2024010100 3600 1800 604800 86400',
  ],
  ['SOA', 'ns1 hostmaster 4294967295 1h 30m 1w 1d', 'ns1.example.com. hostmaster.example.com. 4294967295 3600 1800 604800 86400'],
  ['SOA', 'ns1. h. 0 0 0 0 2147483647', 'ns1. h. 0 0 0 0 2147483647'],
  ['TXT', 'hello', '"hello"'],
  ['TXT', '"hello world"', '"hello world"'],
  ['TXT', '"a" "b"  c', '"a" "b" "c"'],
  ['TXT', '""', '""'],
  ['TXT', '"say \\"hi\\""', '"say \\"hi\\""'],
  ['TXT', '"back\\\\slash"', '"back\\\\slash"'],
  ['TXT', '"\\065\\066C"', '"ABC"'],
  ['TXT', '"tab\\009"', '"tab\\009"'],
  ['TXT', 'café', '"caf\\195\\169"'],
  ['TXT', '"v=spf1 -all"', '"v=spf1 -all"'],
  ['TXT', '"a;b"', '"a;b"'],
  ['TXT', `"${'x'.repeat(255)}"`, `"${'x'.repeat(255)}"`],
  ['DSYNC', 'CDS 1 5359 ds-scanner.example.net.', 'CDS 1 5359 ds-scanner.example.net.'],
  // RFC 9859 §2.2: the type by its mnemonic in any case, the scheme by number or mnemonic (NOTIFY, as BIND writes it)
  ['DSYNC', 'cds NOTIFY 5359 ds-scanner.example.net.', 'CDS 1 5359 ds-scanner.example.net.'],
  ['DSYNC', 'TYPE62 1 53 scanner', 'CSYNC 1 53 scanner.example.com.'],
  ['DSYNC', 'csync 1 53 scanner.example.', 'CSYNC 1 53 scanner.example.'],
  // RFC 3597 §5's generic form of DSYNC is its wire format (§2.1), stored in the presentation form
  ['TYPE66', '\\# 29 003B0114EF0A64732D7363616E6E6572076578616D706C65036E657400', 'CDS 1 5359 ds-scanner.example.net.'],
  ['DSYNC', '\\# 29 003b0114ef0a64732d7363616e6e6572076578616d706c65036e657400', 'CDS 1 5359 ds-scanner.example.net.'],
  ['CAA', '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'],
  ['CAA', '128 ISSUE letsencrypt.org', '128 issue "letsencrypt.org"'],
  ['CAA', '0 iodef "mailto:security@example.com"', '0 iodef "mailto:security@example.com"'],
  ['CAA', '0 issuewild ";"', '0 issuewild ";"'],
  ['DS', '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118', '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118'],
  [
    'DS',
    '1 8 2 e2d3c916f6deeac73294e8268fb5885044a833fc5459588f4a9184cf c41a5766',
    '1 8 2 E2D3C916F6DEEAC73294E8268FB5885044A833FC5459588F4A9184CFC41A5766',
  ],
  ['DS', '65535 255 4 ' + 'ab'.repeat(48), '65535 255 4 ' + 'AB'.repeat(48)],
  ['TLSA', '3 1 1 ' + 'ab'.repeat(32), '3 1 1 ' + 'AB'.repeat(32)],
  ['TLSA', '0 0 2 ' + '01'.repeat(64), '0 0 2 ' + '01'.repeat(64)],
  ['TLSA', '2 0 0 30 82', '2 0 0 3082'],
  ['SSHFP', '1 1 ' + 'ab'.repeat(20), '1 1 ' + 'AB'.repeat(20)],
  ['SSHFP', '4 2 ' + 'cd'.repeat(32), '4 2 ' + 'CD'.repeat(32)],
  ['SSHFP', '4 9 0102', '4 9 0102'],
  ['NAPTR', '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .', '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .'],
  ['NAPTR', '10 0 s SIP+D2U "" _sip._udp', '10 0 "s" "SIP+D2U" "" _sip._udp.example.com.'],
  ['NAPTR', '1 1 "" "" "" .', '1 1 "" "" "" .'],
  ['NAPTR', '1 1 "u" "x" "/(a)(b)/\\\\2\\\\1/i" .', '1 1 "u" "x" "/(a)(b)/\\\\2\\\\1/i" .'],
  ['CNAME', 'target', 'target.example.com.'],
  ['CNAME', 'Target.Example.Org.', 'target.example.org.'],
  ['DNAME', 'example.net.', 'example.net.'],
  ['NS', 'ns1.example.net.', 'ns1.example.net.'],
  ['NS', 'ns1', 'ns1.example.com.'],
  ['PTR', 'host.example.com.', 'host.example.com.'],
  ['NS', 'bücher.example.', 'xn--bcher-kva.example.'],
  ['SVCB', '0 svc.example.net.', '0 svc.example.net.'],
  ['SVCB', '1 . alpn=h2', '1 . alpn="h2"'],
  ['SVCB', '1 . port=8443 alpn="h3,h2" mandatory=port,alpn', '1 . mandatory=alpn,port alpn="h3,h2" port=8443'],
  ['HTTPS', '1 . ipv6hint=2001:DB8::1,::1 ipv4hint=192.0.2.1,192.0.2.2', '1 . ipv4hint=192.0.2.1,192.0.2.2 ipv6hint=2001:db8::1,::1'],
  ['HTTPS', '1 svc alpn=h2 no-default-alpn', '1 svc.example.com. alpn="h2" no-default-alpn'],
  ['HTTPS', '2 . key65000="x y" key65001', '2 . key65000="x y" key65001'],
  ['HTTPS', '3 . key3=443', '3 . port=443'],
  [
    'HTTPS',
    '1 . ech=AEX+DQBBpQAgACDbpkD6xlg7lnT07TUhfFJMKK3nOHtbA6zxpdzf1+ZKNgAEAAEAAQASY2xvdWRmbGFyZS1lY2guY29tAAA=',
    '1 . ech="AEX+DQBBpQAgACDbpkD6xlg7lnT07TUhfFJMKK3nOHtbA6zxpdzf1+ZKNgAEAAEAAQASY2xvdWRmbGFyZS1lY2guY29tAAA="',
  ],
  ['HTTPS', '1 . alpn="a\\\\,b,c"', '1 . alpn="a\\\\,b,c"'],
  ['SPF', 'v=spf1 -all', '"v=spf1" "-all"'],
  ['HINFO', '"Generic PC clone" NetBSD-1.4', '"Generic PC clone" "NetBSD-1.4"'],
  ['RP', 'mbox-dname txt-dname.example.net.', 'mbox-dname.example.com. txt-dname.example.net.'],
  ['RP', '. .', '. .'],
  ['URI', '10 1 "ftp://ftp1.example.com/public"', '10 1 "ftp://ftp1.example.com/public"'],
  ['CERT', 'PGP 0 PRIVATEOID AQID', '3 0 254 AQID'],
  ['CERT', '65534 65535 254 AQID BA==', '65534 65535 254 AQIDBA=='],
  ['OPENPGPKEY', 'AQID BA==', 'AQIDBA=='],
  ['DHCID', 'AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA=', 'AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA='],
  [
    'SMIMEA',
    '3 1 1 a9cdf989b504fe5dca90c0d2167b6550570734f7c763e09fdf88904e06157065',
    '3 1 1 A9CDF989B504FE5DCA90C0D2167B6550570734F7C763E09FDF88904E06157065',
  ],
  ['DNSKEY', '257 3 13 AQID BA==', '257 3 13 AQIDBA=='],
  ['CDNSKEY', '256 3 8 AQID', '256 3 8 AQID'],
  ['CDS', '60485 5 1 2bb183af5f22588179a53b0a98631fad1a292118', '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118'],
  [
    'IPSECKEY',
    '10 1 2 192.0.2.38 AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==',
    '10 1 2 192.0.2.38 AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==',
  ],
  ['IPSECKEY', '10 3 2 gw AQID', '10 3 2 gw.example.com. AQID'],
  ['IPSECKEY', '10 2 2 2001:0DB8:0:8002::2000:1 AQID', '10 2 2 2001:db8:0:8002::2000:1 AQID'],
  ['APL', '1:192.168.32.0/21 !1:192.168.38.0/28', '1:192.168.32.0/21 !1:192.168.38.0/28'],
  ['APL', '2:FF00:0:0:0:0:0:0:0/8', '2:ff00::/8'],
  ['APL', '', ''],
  ['LOC', '42 21 54 N 71 06 18 W -24m 30m', '42 21 54.000 N 71 6 18.000 W -24.00m 30m 10000m 10m'],
  ['LOC', '32 7 19 S 116 2 25 E 10m', '32 7 19.000 S 116 2 25.000 E 10.00m 1m 10000m 10m'],
  ['LOC', '52 N 0 E 0 15m 0.5m 0m', '52 0 0.000 N 0 0 0.000 E 0.00m 10m 0.50m 0m'],
  ['NID', '10 0014:4fff:ff20:ee64', '10 0014:4fff:ff20:ee64'],
  ['L64', '10 2001:0DB8:1140:1000', '10 2001:0db8:1140:1000'],
  ['L32', '10 192.0.2.1', '10 192.0.2.1'],
  ['LP', '10 l64-subnet1', '10 l64-subnet1.example.com.'],
  ['EUI48', '00-00-5E-00-53-2a', '00-00-5e-00-53-2a'],
  ['EUI64', '00-00-5e-ef-10-00-00-2a', '00-00-5e-ef-10-00-00-2a'],
  [
    'ZONEMD',
    '2018031900 1 1 62e6cf51b02e54b9b5f967d547ce43136792901f9f88e637493daaf401c92c279dd10f0edb1c56f8080211f8480ee306',
    '2018031900 1 1 62E6CF51B02E54B9B5F967D547CE43136792901F9F88E637493DAAF401C92C279DD10F0EDB1C56F8080211F8480EE306',
  ],
  ['NS', '.', '.'],
  ['SOA', 'ns1. . 1 2 3 4 5', 'ns1. . 1 2 3 4 5'],
  ['MX', '10 A\\.b\\100', '10 a\\.bd.example.com.'],
  ['SVCB', '1 . alpn=h2 dohpath=/dns-query{?dns} ohttp', '1 . alpn="h2" dohpath="/dns-query{?dns}" ohttp'],
];

/** [type, input, expected codes (all of them, in order)] */
const invalid: [string, string, string[]][] = [
  ['A', '01.2.3.4', ['INVALID_IPV4']],
  ['A', '1.2.3', ['INVALID_IPV4']],
  ['A', '256.1.1.1', ['INVALID_IPV4']],
  ['A', '1.2.3.4.5', ['INVALID_IPV4']],
  ['A', '1.2.3.4.', ['INVALID_IPV4']],
  ['A', '1..3.4', ['INVALID_IPV4']],
  ['A', '1.2.3.256', ['INVALID_IPV4']],
  ['A', '1.2.3.1234', ['INVALID_IPV4']],
  ['A', '10.0.0.1 ; a comment', ['RDATA_FIELD_COUNT']],
  ['AAAA', '2001:db8::1 ; a comment', ['RDATA_FIELD_COUNT']],
  ['AAAA', '2001:db8:::1', ['INVALID_IPV6']],
  ['A', '( 10.0.0.2 )', ['RDATA_FIELD_COUNT']],
  ['A', '::1', ['INVALID_IPV4']],
  ['A', '1.2.3.4 5.6.7.8', ['RDATA_FIELD_COUNT']],
  ['A', '', ['RDATA_FIELD_COUNT']],
  ['AAAA', '1.2.3.4', ['INVALID_IPV6']],
  ['AAAA', '2001:db8::1::2', ['INVALID_IPV6']],
  ['AAAA', '1:2:3:4:5:6:7:8:9', ['INVALID_IPV6']],
  ['AAAA', '1:2:3:4:5:6:7', ['INVALID_IPV6']],
  ['AAAA', '12345::', ['INVALID_IPV6']],
  ['AAAA', 'fe80::1%eth0', ['INVALID_IPV6']],
  ['AAAA', '::ffff:01.2.3.4', ['INVALID_IPV6']],
  ['MX', '70000 mail', ['MX_PREFERENCE_RANGE']],
  ['MX', '-1 mail', ['INVALID_INTEGER']],
  ['MX', 'ten mail', ['INVALID_INTEGER']],
  ['MX', '10', ['RDATA_FIELD_COUNT']],
  ['MX', '10 .', ['MX_NULL_PREFERENCE']],
  ['MX', '10 bad host', ['RDATA_FIELD_COUNT']],
  ['MX', '70000 a..b', ['MX_PREFERENCE_RANGE', 'NAME_EMPTY_LABEL']],
  ['SRV', '1 2 65536 host', ['SRV_PORT_RANGE']],
  ['SRV', '65536 65536 1 host', ['SRV_PRIORITY_RANGE', 'SRV_WEIGHT_RANGE']],
  ['SRV', '1 2 3', ['RDATA_FIELD_COUNT']],
  ['SOA', 'ns1. h. 4294967296 1 1 1 1', ['SOA_SERIAL_RANGE']],
  ['SOA', 'ns1. h. 1 2147483648 1 1 1', ['SOA_REFRESH_RANGE']],
  ['SOA', 'ns1. h. 1 1 x 1 1', ['INVALID_INTEGER']],
  ['SOA', 'ns1. h. 1 1 1 1', ['RDATA_FIELD_COUNT']],
  ['SOA', 'ns1. hostmaster@example.net. 1 1 1 1 1', ['SOA_RNAME_AT_SIGN']],
  ['TXT', '', ['RDATA_FIELD_COUNT']],
  ['TXT', '"unterminated', ['UNTERMINATED_QUOTE']],
  ['TXT', 'x'.repeat(256), ['TXT_STRING_TOO_LONG']],
  ['TXT', `"${'x'.repeat(256)}"`, ['TXT_STRING_TOO_LONG']],
  ['TXT', '"\\256"', ['INVALID_ESCAPE']],
  ['TXT', '"\\12"', ['INVALID_ESCAPE']],
  ['TXT', 'a"b"c', ['INVALID_QUOTING']],
  ['TXT', Array.from({ length: 260 }, () => `"${'y'.repeat(255)}"`).join(' '), ['RDATA_TOO_LONG']],
  ['CAA', '256 issue "x"', ['CAA_FLAGS_RANGE']],
  ['DSYNC', 'CDS 256 5359 ds-scanner.example.net.', ['DSYNC_SCHEME_RANGE']],
  ['DSYNC', 'CDS 1 65536 ds-scanner.example.net.', ['DSYNC_PORT_RANGE']],
  ['DSYNC', 'CDS 1 5359', ['RDATA_FIELD_COUNT']],
  ['DSYNC', 'TYPE0 1 5359 ds-scanner.example.net.', ['TYPE_UNKNOWN']],
  // generic RDATA that is not DSYNC's wire format: a stray octet after the target, too short, a compressed target
  ['TYPE66', '\\# 30 003B0114EF0A64732D7363616E6E6572076578616D706C65036E65740000', ['DSYNC_WIRE_FORMAT']],
  ['TYPE66', '\\# 5 003B0114EF', ['DSYNC_WIRE_FORMAT']],
  ['TYPE66', '\\# 7 003B0114EFC000', ['DSYNC_WIRE_FORMAT']],
  ['TYPE66', '\\# 29 00000114EF0A64732D7363616E6E6572076578616D706C65036E657400', ['TYPE_UNKNOWN']],
  ['TYPE66', '\\# 4 003B01', ['GENERIC_RDATA_LENGTH']],
  ['CAA', '0 is-sue "x"', ['CAA_TAG_INVALID']],
  ['CAA', '0 abcdefghijklmnop "x"', ['CAA_TAG_INVALID']],
  ['CAA', '0 issue', ['RDATA_FIELD_COUNT']],
  ['DS', '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A2921', ['DS_DIGEST_LENGTH']],
  ['DS', '60485 5 2 2BB183AF5F22588179A53B0A98631FAD1A292118', ['DS_DIGEST_LENGTH']],
  ['DS', '60485 5 4 ab', ['DS_DIGEST_LENGTH']],
  ['DS', '70000 256 1 zz', ['DS_KEY_TAG_RANGE', 'DS_ALGORITHM_RANGE', 'INVALID_HEX']],
  ['DS', '1 2 2 abc', ['INVALID_HEX']],
  ['DS', '1 8 3 abcd', ['DS_DIGEST_TYPE_UNSUPPORTED']],
  ['DS', '1 8 0 abcd', ['DS_DIGEST_TYPE_UNSUPPORTED']],
  ['DS', '1 2 3', ['RDATA_FIELD_COUNT']],
  ['TLSA', '4 0 0 ab', ['TLSA_USAGE_RANGE']],
  ['TLSA', '0 2 3 ab', ['TLSA_SELECTOR_RANGE', 'TLSA_MATCHING_TYPE_RANGE']],
  ['TLSA', '3 1 1 abcd', ['TLSA_DATA_LENGTH']],
  ['TLSA', '3 1 2 ' + 'ab'.repeat(32), ['TLSA_DATA_LENGTH']],
  ['SSHFP', '1 1 abcd', ['SSHFP_FINGERPRINT_LENGTH']],
  ['SSHFP', '1 2 ' + 'ab'.repeat(20), ['SSHFP_FINGERPRINT_LENGTH']],
  ['SSHFP', '256 1 ' + 'ab'.repeat(20), ['SSHFP_ALGORITHM_RANGE']],
  ['SSHFP', '1 1 xyz', ['INVALID_HEX']],
  ['NAPTR', '100 10 "U" "E2U+sip" "!^.*$!sip:x!" host', ['NAPTR_REGEXP_WITH_REPLACEMENT']],
  ['NAPTR', '1 1 "U+" "" "" .', ['NAPTR_FLAGS_INVALID']],
  ['NAPTR', '1 1 "" "" "1abc1" .', ['NAPTR_REGEXP_INVALID']],
  ['NAPTR', '1 1 "" "" "!a!b" .', ['NAPTR_REGEXP_INVALID']],
  ['NAPTR', '1 1 "" "" "!a!\\\\1!" .', ['NAPTR_REGEXP_INVALID']],
  ['NAPTR', '1 1 "" "" ""', ['RDATA_FIELD_COUNT']],
  ['CNAME', '.', ['NAME_ROOT_NOT_ALLOWED']],
  ['CNAME', 'a b', ['RDATA_FIELD_COUNT']],
  ['CNAME', '*.example.com.', ['NAME_WILDCARD_POSITION']],
  ['NS', `${'a'.repeat(64)}.example.com.`, ['NAME_LABEL_TOO_LONG']],
  ['NS', Array.from({ length: 130 }, () => 'a').join('.') + '.', ['NAME_TOO_LONG']],
  ['NS', 'a\\0.b.example.com.', ['INVALID_ESCAPE']],
  ['PTR', '', ['RDATA_FIELD_COUNT']],
  ['SVCB', '0 . alpn=h2', ['SVCB_ALIAS_WITH_PARAMS']],
  ['SVCB', '1 . alpn=h2 alpn=h3', ['SVCB_PARAM_DUPLICATE']],
  ['SVCB', '1 . foo=bar', ['SVCB_PARAM_UNKNOWN']],
  ['SVCB', '1 . key65535=x', ['SVCB_PARAM_UNKNOWN']],
  ['SVCB', '1 . port=70000', ['SVCB_PARAM_VALUE']],
  ['SVCB', '1 . mandatory=port', ['SVCB_MANDATORY_MISSING']],
  ['SVCB', '1 . mandatory=mandatory', ['SVCB_PARAM_VALUE']],
  ['SVCB', '1 . no-default-alpn', ['SVCB_ALPN_REQUIRED']],
  ['SVCB', '1 . no-default-alpn=x alpn=h2', ['SVCB_PARAM_VALUE']],
  ['SVCB', '1 . ipv4hint=1.2.3.4,01.2.3.4', ['SVCB_PARAM_VALUE']],
  ['SVCB', '1 . ipv6hint=1.2.3.4', ['SVCB_PARAM_VALUE']],
  ['SVCB', '1 . ech=not-base64', ['INVALID_BASE64']],
  ['SVCB', '1 . alpn=', ['SVCB_PARAM_VALUE']],
  ['SVCB', '1 . alpn=h2,,h3', ['SVCB_PARAM_VALUE']],
  ['HTTPS', '1', ['RDATA_FIELD_COUNT']],
  ['HTTPS', '65536 .', ['HTTPS_PRIORITY_RANGE']],
  ['HINFO', '"one"', ['RDATA_FIELD_COUNT']],
  ['URI', '10 1 ""', ['URI_TARGET_EMPTY']],
  ['CERT', 'BOGUS 0 1 AQID', ['INVALID_INTEGER']],
  ['DNSKEY', '257 2 13 AQID', ['DNSKEY_PROTOCOL']],
  ['IPSECKEY', '10 0 0 .', ['IPSECKEY_ALGORITHM', 'IPSECKEY_KEY_MISSING']],
  ['IPSECKEY', '10 1 2 gw.example. AQID', ['IPSECKEY_GATEWAY']],
  ['APL', '3:192.0.2.0/24', ['APL_ITEM_INVALID']],
  ['APL', '1:192.0.2.0/33', ['APL_ITEM_INVALID']],
  ['LOC', '91 N 0 E 0', ['LOC_INVALID']],
  ['LOC', '42 21 54 N 71 06 18 X -24m', ['LOC_INVALID']],
  ['NID', '10 0014:4fff:ff20', ['NID_NODE_ID_INVALID']],
  ['EUI48', '00-00-5e-00-53', ['EUI48_ADDRESS_INVALID']],
  ['ZONEMD', '1 1 1 abcd', ['ZONEMD_DIGEST_LENGTH']],
  ['SOA', 'ns1. hostmaster@example.net. 1 2 3 4 5', ['SOA_RNAME_AT_SIGN']],
  ['SVCB', '1 . dohpath=/dns-query', ['SVCB_PARAM_VALUE']],
  ['SVCB', '1 . ohttp=1', ['SVCB_PARAM_VALUE']],
  ['CNAME', '.', ['NAME_ROOT_NOT_ALLOWED']],
];

describe('record types: valid RDATA and its canonical form', () => {
  it.each(valid)('%s %s', (type, input, canonical) => {
    const result = parse(type, input);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.canonical).toBe(canonical);
  });

  it.each(valid)('%s %s: canonical form is stable (parse(format(v)) == format(v))', (type, input) => {
    const definition = getRecordType(type)!;
    const first = definition.parse(input, ZONE);
    if (!first.ok) throw new Error('first parse failed');
    expect(definition.format(first.value)).toBe(first.canonical);
    const second = definition.parse(first.canonical, 'elsewhere.test');
    if (!second.ok) throw new Error(JSON.stringify(second.problems));
    expect(second.canonical).toBe(first.canonical);
  });
});

describe('record types: invalid RDATA', () => {
  it.each(invalid)('%s %j', (type, input, expected) => {
    expect(codes(type, input)).toEqual(expected);
  });

  it('messages name the field, the reason and the limit', () => {
    const result = parse('MX', '70000 mail');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]).toEqual({
      field: 'rdata',
      code: 'MX_PREFERENCE_RANGE',
      message: 'rdata: MX preference 70000 is out of range 0–65535',
      limit: 65535,
    });
    const txt = parse('TXT', 'x'.repeat(300));
    expect(!txt.ok && txt.problems[0].limit).toBe(255);
    expect(!txt.ok && txt.problems[0].message).toMatch(/300 octets.*255/);
  });
});

describe('registry', () => {
  it("names each type in RDATA by the definitions' own codes: the type table holds the registry's, the flattened and the signer's types, each as its file does", () => {
    const definitions = [...listRecordTypes(), ...[...FLATTENED_TYPE_NAMES].map((name) => getRecordType(name)!), ...SIGNER_RECORD_TYPES];
    expect(Object.fromEntries(definitions.map((t) => [t.type, t.code]))).toEqual(TYPE_CODES);
    for (const t of definitions) expect([typeMnemonicOf(t.code), typeCodeOf(t.type)]).toEqual([t.type, t.code]);
    expect([typeMnemonicOf(62), typeCodeOf('CSYNC')]).toEqual(['TYPE62', undefined]);
  });

  it('lists every required type with its IANA code, RFCs and fields', () => {
    const types = listRecordTypes()
      .map((t) => `${t.type}=${t.code}`)
      .sort();
    expect(types).toEqual(
      [
        'A=1',
        'AAAA=28',
        'APL=42',
        'CAA=257',
        'CDNSKEY=60',
        'CDS=59',
        'CERT=37',
        'CNAME=5',
        'DHCID=49',
        'DNAME=39',
        'DNSKEY=48',
        'DS=43',
        'DSYNC=66',
        'EUI48=108',
        'EUI64=109',
        'HINFO=13',
        'HTTPS=65',
        'IPSECKEY=45',
        'L32=105',
        'L64=106',
        'LOC=29',
        'LP=107',
        'MX=15',
        'NAPTR=35',
        'NID=104',
        'NS=2',
        'OPENPGPKEY=61',
        'PTR=12',
        'RP=17',
        'SMIMEA=53',
        'SOA=6',
        'SPF=99',
        'SRV=33',
        'SSHFP=44',
        'SVCB=64',
        'TLSA=52',
        'TXT=16',
        'URI=256',
        'ZONEMD=63',
      ].sort(),
    );
    for (const t of listRecordTypes()) {
      expect(t.rfcs.length).toBeGreaterThan(0);
      expect(t.fields.length).toBeGreaterThan(0);
    }
  });

  it('looks types up case-insensitively', () => {
    expect(getRecordType('mx')?.type).toBe('MX');
    expect(getRecordType(' Https ')?.type).toBe('HTTPS');
    expect(getRecordType('spf')?.type).toBe('SPF');
    expect(getRecordType('LOCX')).toBeUndefined();
  });

  it('takes TYPEnnn (RFC 3597 §5): a known code is its type, another is the generic type, meta types are refused', () => {
    expect(getRecordType('TYPE15')?.type).toBe('MX');
    expect(getRecordType('type65534')?.type).toBe('TYPE65534');
    expect(getRecordType('TYPE65534')?.parse('\\# 3 abcdef', 'example.com')).toMatchObject({ ok: true, canonical: '\\# 3 ABCDEF' });
    expect(getRecordType('TYPE65534')?.parse('\\# 0', 'example.com')).toMatchObject({ ok: true, canonical: '\\# 0' });
    const wrong = getRecordType('TYPE65534')?.parse('\\# 4 abcdef', 'example.com');
    expect(wrong?.ok === false && wrong.problems.map((p) => p.code)).toEqual(['GENERIC_RDATA_LENGTH']);
    for (const meta of ['TYPE0', 'TYPE41', 'TYPE46', 'TYPE251', 'TYPE255', 'TYPE65535']) expect(getRecordType(meta)).toBeUndefined();
  });
});

describe('a row stored as TYPEnnn before its type had a file', () => {
  it('is served octet for octet as stored (DSYNC data taken before the type was read), while new data is checked', () => {
    const stray = '\\# 30 003B0114EF0A64732D7363616E6E6572076578616D706C65036E65740000';
    expect(codes('TYPE66', stray)).toEqual(['DSYNC_WIRE_FORMAT']);
    const served = getServedRecordType('TYPE66')!.parse(stray, ZONE);
    expect(served).toMatchObject({ ok: true, canonical: stray });
    expect(getServedRecordType('TYPE66')!.code).toBe(66);
    expect(getServedRecordType('DSYNC')!.type).toBe('DSYNC');
  });
});

describe('unquoted TXT text typed into the API, longer than one character-string', () => {
  const dkim = `v=DKIM1; k=rsa; p=${'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'.repeat(9)}`;

  test('is split into strings of 255 octets, with a TXT_SPLIT warning; joined, it is the text', () => {
    const parsed = parseApiRecord('example.com', { owner: 'sel._domainkey', type: 'TXT', rdata: dkim, ttl: 3600 }, []);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.warnings.map((w) => w.code)).toEqual(['TXT_SPLIT']);
    const value = TXT.parse(parsed.record.rdata, 'example.com');
    if (!value.ok) throw new Error('stored TXT does not parse');
    expect(value.value.strings.map((s) => s.length)).toEqual([255, dkim.length - 255]);
    expect(Buffer.concat(value.value.strings).toString()).toBe(dkim);
  });

  test('keeps UTF-8 characters whole at the split', () => {
    const text = `${'a'.repeat(254)}é${'b'.repeat(10)}`;
    const parsed = parseApiRecord('example.com', { owner: 'x', type: 'TXT', rdata: text, ttl: 3600 }, []);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const value = TXT.parse(parsed.record.rdata, 'example.com');
    if (!value.ok) throw new Error('stored TXT does not parse');
    expect(value.value.strings.map((s) => s.toString('utf8'))).toEqual(['a'.repeat(254), `é${'b'.repeat(10)}`]);
  });

  test('quoted, an over-long string stays refused, saying how to split it', () => {
    const parsed = parseApiRecord('example.com', { owner: 'x', type: 'TXT', rdata: `"${dkim}"`, ttl: 3600 }, []);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems[0].code).toBe('TXT_STRING_TOO_LONG');
    expect(parsed.problems[0].message).toMatch(/several quoted strings/);
  });

  test('at most 255 octets, it is one string and no warning', () => {
    const parsed = parseApiRecord('example.com', { owner: 'x', type: 'TXT', rdata: 'v=spf1 include:example.net -all', ttl: 3600 }, []);
    expect(parsed.ok && parsed.warnings).toEqual([]);
    expect(parsed.ok && parsed.record.rdata).toBe('"v=spf1 include:example.net -all"');
  });
});
