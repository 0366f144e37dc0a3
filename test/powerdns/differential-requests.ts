/**
 * The request sequence of the PowerDNS API differential (differential.test.ts), one request a row, in order:
 * what the PowerDNS clients Zonekeeper means to serve send (read in their client code):
 *
 * - lego (providers/dns/pdns): GET /api (its API version), GET the zone, PATCH of one TXT rrset by REPLACE with
 *   TTL 120 and a `kind` in the rrset (a field PowerDNS ignores), PUT …/notify when the zone is a Master;
 *   clean-up by REPLACE of what remains, or DELETE of the last;
 * - acme.sh (dnsapi/dns_pdns.sh): the zone list, PATCH REPLACE of TXT with TTL 60, DELETE on clean-up;
 * - cert-manager's PowerDNS webhook: REPLACE of the whole TXT rrset, an empty REPLACE when the last goes;
 * - external-dns (provider/pdns): the zone list, one PATCH of several rrsets (A, CNAME, its TXT registry),
 *   absolute names, DELETE;
 * - octoDNS (octodns-powerdns): the server's version, POST of a zone with `kind` and `nameservers`, GET of the
 *   zone, REPLACE/DELETE of every record type it manages;
 * - DNSControl (providers/powerdns): POST with `kind: Native` and `soa_edit_api`, REPLACE/DELETE, cryptokeys;
 * - Terraform's pan-net/powerdns: POST with `account` and `masters`, REPLACE with `set-ptr` in each record,
 *   PUT of the zone's kind/account, DELETE of the zone;
 * - PowerDNS-Admin: the config, zones with rrsets, `comments` and `disabled`, search-data, the zone's export,
 *   the SOA edited as a record;
 * - the Ansible collection (kpfleming.powerdns_auth): a zone created with its SOA and NS in `rrsets`, their TTLs
 *   as strings (`"ttl": str(props["ttl"])` in its zone module); TSIG keys created, then found by name in the
 *   list and deleted by the list's `id` (its tsigkey module).
 *
 * `axfr` names the zone both servers' AXFRs are compared on after the request: every request that is not a
 * GET and names a zone (…/zones…) has one, the zone deleted or never made included (then both must refuse its
 * transfer). A write that concerns no zone (a TSIG key) has `noAxfr` instead, the reason there is none; the test
 * checks both rules. A request PowerDNS 4.7 cannot take (EXTEND and PRUNE came in 4.9) has `powerDns`: what 4.7
 * gets instead to reach the same zone, with the reason; Zonekeeper gets the request as written. A path with
 * `{id}` names something each server numbers itself (a cryptokey, a TSIG key): `idFrom` says where each server's
 * id is read, as the clients read it (DNSControl the active key of the cryptokey list, Ansible the TSIG key of
 * its name in the key list).
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiRequest {
  /** who sends this and why it is in the sequence */
  what: string;
  method: Method;
  /** the path from the server's root (/api…) */
  path: string;
  /** the JSON body; a string is sent as it is (malformed JSON) */
  body?: unknown;
  /** the zone whose AXFRs are compared after the request */
  axfr?: string;
  /** a write without `axfr`: why no zone is compared after it */
  noAxfr?: string;
  /** `{id}` in `path`, on each server: the `id` of the first entry of the list at `list` whose fields are `match`'s */
  idFrom?: { list: string; match: Record<string, unknown> };
  /** what PowerDNS 4.7 is sent instead (same resulting zone), and why */
  powerDns?: { body: unknown; reason: string };
  /** request headers besides the key (the export's `Accept: application/json`) */
  headers?: Record<string, string>;
  /** a zone's GET whose rrsets' contents are compared as read back, text for text (not only the answer's shape) */
  contents?: boolean;
  /**
   * fields whose values must be the same in both answers (of the object, or of each element of a list, compared
   * as a set), beyond the shape: what a search finds, the secret a TSIG key reads back with
   */
  sameFields?: string[];
  /** the answers, lists, must be as long (a search's `max`) */
  sameCount?: boolean;
}

const SERVER = '/api/v1/servers/localhost';
const ZONES = `${SERVER}/zones`;

type Changetype = 'REPLACE' | 'DELETE' | 'EXTEND' | 'PRUNE';

/** an rrset of a PATCH; `contents` become records with `disabled: false`, as every client sends them */
function rrset(changetype: Changetype, name: string, type: string, ttl: number | undefined, contents: string[] = [], extra: object = {}) {
  return {
    name,
    type,
    ...(ttl === undefined ? {} : { ttl }),
    changetype,
    ...(changetype === 'DELETE' ? {} : { records: contents.map((content) => ({ content, disabled: false })) }),
    ...extra,
  };
}

const replace = (name: string, type: string, ttl: number | undefined, contents: string[], extra: object = {}) =>
  rrset('REPLACE', name, type, ttl, contents, extra);
const remove = (name: string, type: string) => rrset('DELETE', name, type, undefined);

function patch(zone: string, what: string, ...rrsets: object[]): ApiRequest {
  return { what, method: 'PATCH', path: `${ZONES}/${zone}`, body: { rrsets }, axfr: zone };
}
function get(what: string, path: string): ApiRequest {
  return { what, method: 'GET', path };
}
/**
 * A user some zones are made for: the admin key may name a zone's owner in `account` (Terraform's `account`);
 * PowerDNS keeps it as a label. Most tools send no account (octoDNS, DNSControl, external-dns) or `""`
 * (PowerDNS-Admin): the zone is then the operator's (OPERATOR_ACCOUNT). A user's own key needs none.
 */
export const ACCOUNT = 'differential@zonekeeper.test';

/** the zone a name makes, with its final dot (a relative name's too: what either server made of it is compared) */
const zoneName = (name: string) => (name.endsWith('.') ? name : `${name}.`).toLowerCase();

/** a zone created as the tool sends it (with or without `account`) */
function createZone(what: string, body: Record<string, unknown>): ApiRequest {
  return { what, method: 'POST', path: ZONES, body, axfr: zoneName(String(body.name)) };
}
/** a zone's setting changed by PUT (Terraform's kind, the `dnssec` switch) */
function putZone(zone: string, what: string, body: object): ApiRequest {
  return { what, method: 'PUT', path: `${ZONES}/${zone}`, body, axfr: zone };
}

/** the SOA content both servers give a new zone (test/support/powerdns-server.ts COMPARABLE_SOA), serial aside */
const soa = (serial: number, refresh = 3600) => `ns1.example.net. hostmaster.example.net. ${serial} ${refresh} 1800 604800 86400`;
/** the TSIG keys; the Ansible collection's tsigkey module finds a key's id in this list by its name */
const TSIG_KEYS = `${SERVER}/tsigkeys`;
/** why a TSIG key's write has no AXFR after it */
const NO_ZONE = 'a TSIG key belongs to no zone: nothing to transfer';
function tsigKeyOf(name: string): ApiRequest['idFrom'] {
  return { list: TSIG_KEYS, match: { name } };
}
/** secrets of keys moved in (32 octets each, as `tsig-keygen` and `pdnsutil generate-tsig-key` make them) */
const MOVED_SECRET = Buffer.alloc(32, 7).toString('base64');
const ROTATED_SECRET = Buffer.alloc(32, 9).toString('base64');
/** what a secondary zone reads back with: its kind, primaries, transfer key, and serial 0 until its first transfer */
const SECONDARY_FIELDS = ['name', 'kind', 'masters', 'slave_tsig_key_ids', 'serial'];
const tsigBody = (name: string, key: string) => ({ name, algorithm: 'hmac-sha256', key });

/** lego puts the zone kind into each rrset */
const LEGO = { kind: 'Master' };
/** an EXTEND or PRUNE of one record at multi.eta.test. A; PowerDNS 4.7 gets the REPLACE giving `after` */
function extendOrPrune(what: string, changetype: 'EXTEND' | 'PRUNE', content: string, after: string[]): ApiRequest {
  return {
    ...patch('eta.test.', what, rrset(changetype, 'multi.eta.test.', 'A', 300, [content])),
    powerDns: {
      body: { rrsets: [after.length ? replace('multi.eta.test.', 'A', 300, after) : remove('multi.eta.test.', 'A')] },
      reason: `${changetype} is PowerDNS 4.9+`,
    },
  };
}

const NS = ['ns1.example.net.', 'ns2.example.net.'];

/** a 2048-bit DKIM key's record as octoDNS sends it: one string of 410 octets (PowerDNS serves it cut at 255) */
const DKIM = `v=DKIM1; k=rsa; p=${Buffer.from(Array.from({ length: 294 }, (_, i) => (i * 37) % 256)).toString('base64')}`;

/**
 * One record of every type the DNS model knows (src/dns/record-types), as PowerDNS 4.7 takes it (its own text:
 * `1.00m`, `alpn=h2,h3`; hex digests in either case), at `<name>types.test.`: what each server reads back is
 * compared text for text, so a type whose text PowerDNS writes otherwise fails by name. The last four are the
 * kept differences of a client's own text (differential.test.ts, KEPT_DIFFERENCES).
 */
export const EVERY_TYPE: [name: string, type: string, content: string][] = [
  ['', 'DNSKEY', '257 3 13 AQIDBA=='],
  ['', 'ZONEMD', `2018031900 1 1 ${'62E6CF51B02E54B9'.repeat(6)}`],
  ['a.', 'A', '192.0.2.1'],
  ['aaaa.', 'AAAA', '2001:db8::1'],
  ['apl.', 'APL', '1:192.168.32.0/21 !1:192.168.38.0/28 2:2001:db8::/32'],
  ['caa.', 'CAA', '0 issue "letsencrypt.org"'],
  ['cdnskey.', 'CDNSKEY', '256 3 8 AQID'],
  ['cds.', 'CDS', '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118'],
  ['cert.', 'CERT', '3 0 254 AQID'],
  ['cname.', 'CNAME', 'target.example.com.'],
  ['dhcid.', 'DHCID', 'AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA='],
  ['dname.', 'DNAME', 'example.net.'],
  ['sub.', 'NS', 'ns1.example.net.'],
  ['sub.', 'DS', '60485 13 2 ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789'],
  ['eui48.', 'EUI48', '00-00-5e-00-53-2a'],
  ['eui64.', 'EUI64', '00-00-5e-ef-10-00-00-2a'],
  ['hinfo.', 'HINFO', '"Generic PC clone" "NetBSD-1.4"'],
  ['https.', 'HTTPS', '1 . alpn=h2,h3 ipv4hint=192.0.2.1,192.0.2.2 ipv6hint=2001:db8::1'],
  ['https2.', 'HTTPS', '1 . mandatory=alpn,port alpn=h2 port=8443 key65000="x"'],
  ['ipseckey.', 'IPSECKEY', '10 1 2 192.0.2.38 AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ=='],
  ['l32.', 'L32', '10 192.0.2.1'],
  ['l64.', 'L64', '10 2001:0db8:1140:1000'],
  ['loc.', 'LOC', '51 30 12.748 N 0 7 39.611 W 0.00m 1.00m 10000.00m 10.00m'],
  ['loc2.', 'LOC', '0 0 0.000 S 0 0 0.000 W -24.00m 30.00m 2.00m 0.05m'],
  ['lp.', 'LP', '10 l64-subnet1.example.com.'],
  ['mx.', 'MX', '10 mail.example.com.'],
  ['naptr.', 'NAPTR', '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .'],
  ['nid.', 'NID', '10 0014:4fff:ff20:ee64'],
  ['openpgpkey.', 'OPENPGPKEY', 'AQIDBA=='],
  ['ptr.', 'PTR', 'host.example.com.'],
  ['rp.', 'RP', 'mbox-dname.example.com. txt-dname.example.net.'],
  ['smimea.', 'SMIMEA', '3 1 1 A9CDF989B504FE5DCA90C0D2167B6550570734F7C763E09FDF88904E06157065'],
  ['spf.', 'SPF', '"v=spf1 -all"'],
  ['srv.', 'SRV', '10 60 5060 sip.example.net.'],
  ['sshfp.', 'SSHFP', '1 1 0123456789ABCDEF0123456789ABCDEF01234567'],
  ['svcb.', 'SVCB', '1 svc.example.net. alpn=h2 port=8443'],
  ['doh.', 'SVCB', '1 doh.example.net. alpn=h2 key7="/dns-query{?dns}"'],
  ['ohttp.', 'HTTPS', '1 . alpn=h2 key8=""'],
  ['tlsa.', 'TLSA', '3 1 1 ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB'],
  ['txt.', 'TXT', '"hello" "world"'],
  ['dkim.', 'TXT', `"${DKIM}"`],
  ['long.', 'TXT', `"ab" "${'c'.repeat(600)}"`],
  // one string of 300 octets, as octoDNS sends a DKIM key: PowerDNS 4.7 serves 255 and 45 octets and reads back
  // the one string it was sent (a client that compares what it sent with what it reads plans nothing)
  ['dkim300.', 'TXT', `"${'d'.repeat(300)}"`],
  ['uri.', 'URI', '10 1 "ftp://ftp1.example.com/public"'],
  ['generic.', 'TYPE65280', '\\# 4 0A000001'],
  // a client's own text, which PowerDNS keeps as written and Zonekeeper reads into its data
  ['cut.', 'TXT', `"${'a'.repeat(255)}" "${'b'.repeat(40)}"`],
  ['escaped.', 'TXT', '"v=DKIM1\\; k=rsa"'],
  ['utf8.', 'TXT', '"café"'],
  ['upper.', 'MX', '10 MAIL.Example.COM.'],
  ['upper.', 'CAA', '0 ISSUE "letsencrypt.org"'],
];
/** an rrset of a new zone, TTL 300 */
const rrsetOf = (name: string, type: string, contents: string[]) => ({
  name,
  type,
  ttl: 300,
  records: contents.map((content) => ({ content, disabled: false })),
});
const SSHFP = '1 1 0123456789abcdef0123456789abcdef01234567';

export const REQUESTS: ApiRequest[] = [
  // discovery: what octoDNS, PowerDNS-Admin and lego probe before anything else
  get('PowerDNS-Admin: the API versions', '/api'),
  get('the API root', '/api/v1'),
  get('PowerDNS-Admin: the servers', '/api/v1/servers'),
  get('octoDNS, lego: the server and its version', SERVER),
  get('octoDNS, PowerDNS-Admin: the configuration', `${SERVER}/config`),
  get('a server other than localhost', '/api/v1/servers/elsewhere'),
  get('the zone list, empty', ZONES),

  // zones made as each tool makes them
  createZone('octoDNS: a Master zone with its name servers', { name: 'alpha.test.', kind: 'Master', nameservers: NS }),
  createZone('DNSControl: a Native zone with soa_edit_api', {
    name: 'beta.test.',
    kind: 'Native',
    nameservers: NS,
    soa_edit_api: 'DEFAULT',
  }),
  createZone('Terraform: account and (empty) masters', {
    name: 'gamma.test.',
    kind: 'Native',
    account: ACCOUNT,
    nameservers: NS,
    masters: [],
    soa_edit_api: 'DEFAULT',
  }),
  createZone('PowerDNS-Admin: a zone with rrsets (and `account: ""`)', {
    name: 'delta.test.',
    kind: 'Native',
    account: '',
    nameservers: NS,
    rrsets: [
      { name: 'www.delta.test.', type: 'A', ttl: 300, records: [{ content: '192.0.2.10', disabled: false }] },
      { name: 'delta.test.', type: 'MX', ttl: 3600, records: [{ content: '10 mail.delta.test.', disabled: false }] },
      { name: 'mail.delta.test.', type: 'A', ttl: 3600, records: [{ content: '192.0.2.25', disabled: false }] },
      { name: 'delta.test.', type: 'TXT', ttl: 3600, records: [{ content: '"v=spf1 mx -all"', disabled: false }] },
    ],
  }),
  createZone('octoDNS, DNSControl, external-dns: the admin key creating a zone without an account', {
    name: 'ownerless.test.',
    kind: 'Native',
    nameservers: NS,
  }),
  get('the zone without an account (the kind Native read back)', `${ZONES}/ownerless.test.`),
  createZone('a zone created without kind (PowerDNS: 422)', { name: 'kindless.test.', nameservers: NS }),
  createZone('a zone of a kind PowerDNS does not know', { name: 'oddkind.test.', kind: 'Mastr', nameservers: NS }),
  createZone('Terraform: a Native zone with its SOA in rrsets and no nameservers', {
    name: 'tfsoa.test.',
    kind: 'Native',
    nameservers: [],
    rrsets: [
      {
        name: 'tfsoa.test.',
        type: 'SOA',
        ttl: 3600,
        records: [{ content: 'ns9.example.org. admin.example.org. 1 7200 900 1209600 300', disabled: false }],
      },
      { name: 'tfsoa.test.', type: 'NS', ttl: 3600, records: NS.map((content) => ({ content, disabled: false })) },
    ],
  }),
  patch(
    'tfsoa.test.',
    "Terraform: the SOA managed as a record (REPLACE, a serial lower than the zone's)",
    replace('tfsoa.test.', 'SOA', 3600, ['ns8.example.org. admin.example.org. 2 3600 900 1209600 300']),
  ),
  patch('tfsoa.test.', 'a DELETE of the SOA rrset', remove('tfsoa.test.', 'SOA')),
  createZone('a mixed-case zone name (stored lower-case)', { name: 'Epsilon.TEST.', kind: 'Native', nameservers: NS }),
  createZone('a zone for the refusals', { name: 'zeta.test.', kind: 'Native', nameservers: NS }),
  createZone('conflict: the zone exists already', { name: 'alpha.test.', kind: 'Native', nameservers: NS }),
  createZone('conflict: the same zone in other letter case', { name: 'ALPHA.test.', kind: 'Native', nameservers: NS }),
  createZone('a relative zone name', { name: 'relative.test', kind: 'Native', nameservers: NS }),
  createZone('a zone whose rrsets have a bad record', {
    name: 'broken.test.',
    kind: 'Native',
    nameservers: NS,
    rrsets: [{ name: 'www.broken.test.', type: 'A', ttl: 300, records: [{ content: 'not-an-address', disabled: false }] }],
  }),
  get('the zone that was refused is not there', `${ZONES}/broken.test.`),
  { what: 'malformed JSON', method: 'POST', path: ZONES, body: '{"name": "bad.test.", "kind": ', axfr: 'bad.test.' },
  get('the zone list, six zones', ZONES),
  get('acme.sh: the list filtered to one zone', `${ZONES}?zone=alpha.test.`),
  get('acme.sh: a candidate that is no zone', `${ZONES}?zone=_acme-challenge.www.alpha.test.`),
  get('acme.sh: the parent of the candidate', `${ZONES}?zone=www.alpha.test.`),
  get('the list filtered by a name without its final dot (PowerDNS: 422)', `${ZONES}?zone=alpha.test`),
  get('octoDNS: the zone', `${ZONES}/alpha.test.`),
  get('the zone named without the trailing dot', `${ZONES}/alpha.test`),
  get('a missing zone', `${ZONES}/missing.test.`),

  // lego (default TTL 120, kept as PowerDNS keeps it)
  get('lego: the zone before its challenge', `${ZONES}/alpha.test.`),
  patch('alpha.test.', 'lego: its challenge, TTL 120', replace('_acme-challenge.alpha.test.', 'TXT', 120, ['"lego-token-1"'], LEGO)),
  { what: 'lego: NOTIFY after its change (a Master zone)', method: 'PUT', path: `${ZONES}/alpha.test./notify`, axfr: 'alpha.test.' },
  patch(
    'alpha.test.',
    'lego: a second challenge for the same name (wildcard + apex) by REPLACE of both',
    replace('_acme-challenge.alpha.test.', 'TXT', 120, ['"lego-token-1"', '"lego-token-2"'], LEGO),
  ),
  patch('alpha.test.', 'lego: clean-up keeps what remains', replace('_acme-challenge.alpha.test.', 'TXT', 120, ['"lego-token-2"'], LEGO)),
  patch('alpha.test.', 'lego: clean-up of the last one', remove('_acme-challenge.alpha.test.', 'TXT')),
  { what: 'NOTIFY of a missing zone', method: 'PUT', path: `${ZONES}/missing.test./notify`, axfr: 'missing.test.' },

  // acme.sh (TTL 60)
  patch('alpha.test.', 'acme.sh: its challenge, TTL 60', replace('_acme-challenge.www.alpha.test.', 'TXT', 60, ['"acme-sh-token"'])),
  get('acme.sh: the zone with its challenge', `${ZONES}/alpha.test.`),
  patch('alpha.test.', 'acme.sh: clean-up by DELETE', remove('_acme-challenge.www.alpha.test.', 'TXT')),
  patch('alpha.test.', 'acme.sh: a DELETE of what is not there', remove('_acme-challenge.www.alpha.test.', 'TXT')),

  // cert-manager's webhook (allowed TTL here; the TTL rule has its cases above)
  patch('alpha.test.', 'cert-manager: the first token', replace('_acme-challenge.api.alpha.test.', 'TXT', 300, ['"cm-token-a"'])),
  patch(
    'alpha.test.',
    'cert-manager: a second token, the whole rrset',
    replace('_acme-challenge.api.alpha.test.', 'TXT', 300, ['"cm-token-a"', '"cm-token-b"']),
  ),
  patch('alpha.test.', 'cert-manager: one token cleaned up', replace('_acme-challenge.api.alpha.test.', 'TXT', 300, ['"cm-token-b"'])),
  patch('alpha.test.', 'cert-manager: the last cleaned up by an empty REPLACE', replace('_acme-challenge.api.alpha.test.', 'TXT', 300, [])),
  patch('alpha.test.', 'an empty REPLACE of an rrset that is not there', replace('_acme-challenge.api.alpha.test.', 'TXT', 300, [])),
  get('cert-manager: the zone after its clean-up', `${ZONES}/alpha.test.`),

  // external-dns: several rrsets in one PATCH, its TXT registry beside each
  get('external-dns: the zone list', ZONES),
  patch(
    'beta.test.',
    'external-dns: an A, a CNAME and their registry records',
    replace('app.beta.test.', 'A', 300, ['192.0.2.1', '192.0.2.2']),
    replace('www.beta.test.', 'CNAME', 300, ['app.beta.test.']),
    replace('app.beta.test.', 'TXT', 300, ['"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app"']),
    replace('cname-www.beta.test.', 'TXT', 300, [
      '"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/www"',
    ]),
  ),
  patch('beta.test.', 'external-dns: an endpoint moves', replace('app.beta.test.', 'A', 300, ['192.0.2.3'])),
  patch('beta.test.', 'external-dns: an AAAA beside the A', replace('app.beta.test.', 'AAAA', 300, ['2001:db8::1', '2001:db8::2'])),
  patch(
    'beta.test.',
    'external-dns: an endpoint goes (DELETE of its records and its registry)',
    remove('www.beta.test.', 'CNAME'),
    remove('cname-www.beta.test.', 'TXT'),
  ),
  patch('beta.test.', 'external-dns: a CNAME to another zone', replace('ext.beta.test.', 'CNAME', 300, ['lb.example.net.'])),
  get('external-dns: the zone', `${ZONES}/beta.test.`),

  // octoDNS: every type it manages
  patch(
    'gamma.test.',
    'octoDNS: A, AAAA, CAA, MX, SRV, TXT, SSHFP, PTR and a delegation in one PATCH',
    replace('gamma.test.', 'A', 3600, ['192.0.2.50']),
    replace('gamma.test.', 'AAAA', 3600, ['2001:db8::50']),
    replace('gamma.test.', 'CAA', 3600, ['0 issue "letsencrypt.org"', '0 iodef "mailto:security@gamma.test"']),
    replace('gamma.test.', 'MX', 3600, ['10 mx1.gamma.test.', '20 mx2.gamma.test.']),
    replace('_sip._tcp.gamma.test.', 'SRV', 3600, ['10 5 5060 sip.gamma.test.']),
    replace('gamma.test.', 'TXT', 3600, ['"v=spf1 -all"', '"google-site-verification=abc"']),
    replace('host.gamma.test.', 'SSHFP', 3600, [SSHFP]),
    replace('ptr.gamma.test.', 'PTR', 3600, ['host.gamma.test.']),
    replace('sub.gamma.test.', 'NS', 3600, ['ns1.sub.example.net.', 'ns2.sub.example.net.']),
  ),
  get('octoDNS: the zone it populated', `${ZONES}/gamma.test.`),
  patch(
    'gamma.test.',
    'octoDNS: TXT with semicolons (escaped by octoDNS)',
    replace('dkim.gamma.test.', 'TXT', 3600, ['"v=DKIM1; k=rsa; p=MIGf"']),
  ),
  patch(
    'gamma.test.',
    'octoDNS: a TXT of two strings (a long value split)',
    replace('long.gamma.test.', 'TXT', 3600, [`"${'a'.repeat(255)}" "${'b'.repeat(40)}"`]),
  ),
  patch('gamma.test.', 'octoDNS: TXT with an escaped quote', replace('quote.gamma.test.', 'TXT', 3600, ['"say \\"hi\\""'])),
  patch('gamma.test.', 'octoDNS: TXT with a backslash escape', replace('escape.gamma.test.', 'TXT', 3600, ['"a\\\\b"'])),
  patch('gamma.test.', 'octoDNS: an empty TXT string', replace('empty.gamma.test.', 'TXT', 3600, ['""'])),
  patch('gamma.test.', 'octoDNS: an MX of priority 0 to the root (null MX)', replace('nomail.gamma.test.', 'MX', 3600, ['0 .'])),
  patch('gamma.test.', 'octoDNS: the A changes', replace('gamma.test.', 'A', 3600, ['192.0.2.51', '192.0.2.52'])),
  patch('gamma.test.', 'octoDNS: the SRV goes', remove('_sip._tcp.gamma.test.', 'SRV')),
  patch('gamma.test.', 'octoDNS: the CAA goes', remove('gamma.test.', 'CAA')),
  patch('gamma.test.', 'octoDNS: the delegation goes', remove('sub.gamma.test.', 'NS')),
  patch('gamma.test.', 'a wildcard', replace('*.gamma.test.', 'A', 300, ['192.0.2.99'])),
  patch('gamma.test.', 'a name under the wildcard', replace('x.gamma.test.', 'TXT', 300, ['"beside the wildcard"'])),
  patch('gamma.test.', 'an AAAA written long-hand (stored canonical)', replace('v6.gamma.test.', 'AAAA', 300, ['2001:DB8:0:0:0:0:0:1'])),
  patch(
    'gamma.test.',
    'an apex NS rrset replaced (the name servers change)',
    replace('gamma.test.', 'NS', 3600, [...NS, 'ns3.example.net.']),
  ),
  patch('gamma.test.', 'the apex NS back to two', replace('gamma.test.', 'NS', 3600, NS)),
  patch('gamma.test.', 'a DELETE of the apex NS rrset (a zone left without NS)', remove('gamma.test.', 'NS')),
  patch('gamma.test.', 'the apex NS given back after its DELETE', replace('gamma.test.', 'NS', 3600, NS)),

  // DNSControl
  patch(
    'epsilon.test.',
    'DNSControl: records of the mixed-case zone',
    replace('www.epsilon.test.', 'A', 300, ['192.0.2.70']),
    replace('epsilon.test.', 'MX', 300, ['10 mail.epsilon.test.']),
  ),
  patch(
    'epsilon.test.',
    'DNSControl: a change and a deletion in one PATCH',
    replace('www.epsilon.test.', 'A', 300, ['192.0.2.71']),
    remove('epsilon.test.', 'MX'),
  ),
  get('DNSControl: the cryptokeys of an unsigned zone', `${ZONES}/epsilon.test./cryptokeys`),
  get('DNSControl: the zone', `${ZONES}/epsilon.test.`),
  get('the zone by its mixed-case name', `${ZONES}/EPSILON.test.`),
  patch('EPSILON.test.', 'a PATCH to the zone named in other letter case', replace('case.epsilon.test.', 'A', 300, ['192.0.2.72'])),
  patch('epsilon.test.', 'a mixed-case record name', replace('MiXeD.Epsilon.TEST.', 'A', 300, ['192.0.2.73'])),
  patch('epsilon.test.', 'the same name in other case replaces it', replace('mixed.epsilon.test.', 'A', 300, ['192.0.2.74'])),
  patch('epsilon.test.', 'a CNAME target in mixed case', replace('alias.epsilon.test.', 'CNAME', 300, ['Target.Example.NET.'])),
  patch('epsilon.test.', 'a type in lower case', replace('lower.epsilon.test.', 'a', 300, ['192.0.2.75'])),

  // Terraform (pan-net/powerdns): set-ptr in each record, the zone's PUT, the zone's DELETE
  patch('gamma.test.', 'Terraform: set-ptr in each record (ignored)', {
    name: 'tf.gamma.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [{ content: '192.0.2.80', disabled: false, 'set-ptr': false }],
  }),
  get('Terraform: the zone', `${ZONES}/gamma.test.`),
  putZone('gamma.test.', 'Terraform: the zone kind changes', { kind: 'Master' }),
  get('the zone after its PUT', `${ZONES}/gamma.test.`),
  putZone('missing.test.', 'a PUT of a missing zone', { kind: 'Master' }),
  putZone('gamma.test.', 'Terraform: the zone kind back', { kind: 'Native' }),

  // PowerDNS-Admin: comments, the export, search-data
  patch('delta.test.', 'PowerDNS-Admin: an rrset with a comment', {
    name: 'commented.delta.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [{ content: '192.0.2.90', disabled: false }],
    comments: [{ content: 'the build server', account: 'admin', modified_at: 1700000000 }],
  }),
  get('PowerDNS-Admin: the zone with the comment', `${ZONES}/delta.test.`),
  patch('delta.test.', 'PowerDNS-Admin: the comment changed, records left as they are', {
    name: 'commented.delta.test.',
    type: 'A',
    changetype: 'REPLACE',
    comments: [{ content: 'moved to rack 4', account: 'admin', modified_at: 1700000100 }],
  }),
  patch('delta.test.', 'a comment on an rrset that has no records', {
    name: 'reserved.delta.test.',
    type: 'TXT',
    changetype: 'REPLACE',
    comments: [{ content: 'keep this name free', account: 'ops', modified_at: 1700000200 }],
  }),
  get('the zone with an rrset of comments only', `${ZONES}/delta.test.`),
  patch('delta.test.', 'a comment without its account', {
    name: 'commented.delta.test.',
    type: 'A',
    changetype: 'REPLACE',
    comments: [{ content: 'no account' }],
  }),
  patch('delta.test.', 'DELETE of the rrset of comments only', { name: 'reserved.delta.test.', type: 'TXT', changetype: 'DELETE' }),
  get('the zone without it', `${ZONES}/delta.test.`),
  patch('delta.test.', 'PowerDNS-Admin: the comment removed', {
    name: 'commented.delta.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [{ content: '192.0.2.90', disabled: false }],
    comments: [],
  }),
  patch('delta.test.', 'PowerDNS-Admin: a disabled record beside an enabled one', {
    name: 'half.delta.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [
      { content: '192.0.2.91', disabled: true },
      { content: '192.0.2.92', disabled: false },
    ],
  }),
  get('PowerDNS-Admin: the zone with the disabled record', `${ZONES}/delta.test.`),
  // PowerDNS-Admin's toggle sends the whole rrset again (REPLACE), each record with its `disabled`
  patch('delta.test.', 'PowerDNS-Admin: the disabled record enabled', {
    name: 'half.delta.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [
      { content: '192.0.2.91', disabled: false },
      { content: '192.0.2.92', disabled: false },
    ],
  }),
  patch('delta.test.', 'PowerDNS-Admin: the other record disabled', {
    name: 'half.delta.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [
      { content: '192.0.2.91', disabled: false },
      { content: '192.0.2.92', disabled: true },
    ],
  }),
  patch('delta.test.', 'PowerDNS-Admin: every record of the rrset disabled', {
    name: 'half.delta.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [
      { content: '192.0.2.91', disabled: true },
      { content: '192.0.2.92', disabled: true },
    ],
  }),
  get('PowerDNS-Admin: the zone with an rrset of disabled records only', `${ZONES}/delta.test.`),
  patch(
    'delta.test.',
    'a CNAME where only disabled records are (PowerDNS counts served records only)',
    replace('half.delta.test.', 'CNAME', 300, ['target.example.net.']),
  ),
  patch('delta.test.', 'clean-up: the CNAME', remove('half.delta.test.', 'CNAME')),
  patch('delta.test.', 'a disabled CNAME beside an A', {
    name: 'www.delta.test.',
    type: 'CNAME',
    ttl: 300,
    changetype: 'REPLACE',
    records: [{ content: 'target.example.net.', disabled: true }],
  }),
  patch('delta.test.', 'clean-up: the disabled CNAME', remove('www.delta.test.', 'CNAME')),
  patch('delta.test.', 'the same content served and disabled in one rrset', {
    name: 'half.delta.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [
      { content: '192.0.2.93', disabled: true },
      { content: '192.0.2.93', disabled: false },
    ],
  }),
  patch('delta.test.', 'disabled that is not a boolean', {
    name: 'half.delta.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [{ content: '192.0.2.94', disabled: 'yes' }],
  }),
  patch('delta.test.', 'PowerDNS-Admin: both records enabled again', {
    name: 'half.delta.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [
      { content: '192.0.2.91', disabled: false },
      { content: '192.0.2.92', disabled: false },
    ],
  }),
  patch('delta.test.', 'clean-up: the rrset the requests before left', remove('half.delta.test.', 'A')),
  patch('delta.test.', 'PowerDNS-Admin: the www changes', replace('www.delta.test.', 'A', 300, ['192.0.2.11'])),
  // PowerDNS-Admin (SOA among the types its settings let users edit) sends an edited SOA as any rrset; the
  // second puts back what the zone had, so that both compare again
  patch(
    'delta.test.',
    'PowerDNS-Admin: the SOA edited as a record (its refresh)',
    replace('delta.test.', 'SOA', 3600, [soa(2024010101, 7200)]),
  ),
  patch('delta.test.', 'PowerDNS-Admin: the SOA edited back', replace('delta.test.', 'SOA', 3600, [soa(2024010102)])),
  get('PowerDNS-Admin: the export', `${ZONES}/delta.test./export`),
  { ...get('the export as JSON (Accept: application/json)', `${ZONES}/delta.test./export`), headers: { Accept: 'application/json' } },
  get('the export of a missing zone', `${ZONES}/missing.test./export`),
  get('PowerDNS-Admin: search-data for a name', `${SERVER}/search-data?q=mail.delta*&max=10`),
  get('PowerDNS-Admin: search-data for zones', `${SERVER}/search-data?q=delt*&max=10&object_type=zone`),
  get('PowerDNS-Admin: search-data for a content', `${SERVER}/search-data?q=192.0.2.25&max=10&object_type=record`),
  get('PowerDNS-Admin: search-data for names in any letter case', `${SERVER}/search-data?q=*.DELTA.test&max=100`),
  get('PowerDNS-Admin: search-data for nothing', `${SERVER}/search-data?q=nothing-like-this&max=10`),
  // search-data by content, as PowerDNS's SQL backend matches it: names without their final dot, an MX's or
  // SRV's priority apart (its own column), `*` and `?`, any letter case; `max` zones and `max` records
  createZone('a zone to search', {
    name: 'srch.test.',
    kind: 'Native',
    nameservers: NS,
    rrsets: [
      rrsetOf('srch.test.', 'MX', ['10 mail.srch.test.']),
      rrsetOf('mail.srch.test.', 'A', ['192.0.2.160']),
      rrsetOf('www.srch.test.', 'CNAME', ['Target.Srch.Example.']),
      rrsetOf('ptr.srch.test.', 'PTR', ['host.srch-target.example.']),
      rrsetOf('_sip._tcp.srch.test.', 'SRV', ['10 5 5060 sip.srch.test.']),
      rrsetOf('sub.srch.test.', 'NS', ['ns1.srch-sub.example.']),
      rrsetOf('txt.srch.test.', 'TXT', ['"srch text."']),
      rrsetOf('srch.test.', 'CAA', ['0 issue "srch-ca.example"']),
    ],
  }),
  ...[
    ['an MX by its target, and the A of that name', 'q=mail.srch.test'],
    ['a name and an MX target by a prefix', 'q=mail.srch*'],
    ['in capitals', 'q=MAIL.SRCH.TEST'],
    ['one character by ?', 'q=m%3Fil.srch.test'],
    ['a CNAME by its target (written in mixed case)', 'q=target.srch.example'],
    ['a PTR by its target', 'q=host.srch-target.example'],
    ['a delegation NS by its name server', 'q=ns1.srch-sub.example'],
    ['an SRV by its fields after the priority', 'q=*5060%20sip.srch.test'],
    ['an MX with its priority (PowerDNS keeps it apart: nothing)', 'q=10%20mail.srch.test'],
    ['a CAA by its value', 'q=*srch-ca.example*'],
    ['a TXT whole, its final dot inside the quotes kept', 'q=%22srch%20text.%22'],
    ['every record of the zone', 'q=*.srch.test&object_type=record'],
    ['the zone by its name', 'q=srch*&object_type=zone'],
    ['a name server target with its final dot', 'q=ns1.srch-sub.example.'],
  ].map(([what, query]): ApiRequest => ({
    ...get(`search-data: ${what}`, `${SERVER}/search-data?${query}`),
    sameFields: ['object_type', 'name', 'type', 'content'],
  })),
  { ...get('search-data: max bounds the zones and the records apart', `${SERVER}/search-data?q=*srch*&max=1`), sameCount: true },
  { ...get('search-data: max of the records', `${SERVER}/search-data?q=*.srch.test&max=3&object_type=record`), sameCount: true },
  get('PowerDNS-Admin: the TSIG keys', `${SERVER}/tsigkeys`),
  get('PowerDNS-Admin: the zone list with its details', ZONES),

  // refusals: wrong content, each answered 422 naming the rrset, nothing written
  patch('zeta.test.', 'an A that is no address', replace('a.zeta.test.', 'A', 300, ['not-an-address'])),
  patch('zeta.test.', 'an A of five octets', replace('a.zeta.test.', 'A', 300, ['192.0.2.1.5'])),
  patch('zeta.test.', 'an AAAA that is no address', replace('a.zeta.test.', 'AAAA', 300, ['2001:db8::zz'])),
  patch('zeta.test.', 'an MX without its preference', replace('zeta.test.', 'MX', 300, ['mail.zeta.test.'])),
  patch('zeta.test.', 'a TXT without quotes', replace('t.zeta.test.', 'TXT', 300, ['unquoted text'])),
  patch('zeta.test.', 'a TXT with an open quote', replace('t.zeta.test.', 'TXT', 300, ['"unterminated'])),
  patch('zeta.test.', 'a TXT string over 255 octets', replace('t.zeta.test.', 'TXT', 300, [`"${'x'.repeat(256)}"`])),
  patch('zeta.test.', 'clean-up: the TXT the three requests before may have left', remove('t.zeta.test.', 'TXT')),
  patch('zeta.test.', 'an SPF text without quotes', replace('spf.zeta.test.', 'TXT', 300, ['v=spf1 mx -all'])),
  patch('zeta.test.', 'a TXT of a quoted string and a bare word', replace('spf.zeta.test.', 'TXT', 300, ['"a" b'])),
  patch('zeta.test.', 'a TXT of a quoted string and text right after it', replace('spf.zeta.test.', 'TXT', 300, ['"a"b'])),
  patch('zeta.test.', 'an SPF record without quotes', replace('spf.zeta.test.', 'SPF', 300, ['v=spf1 -all'])),
  patch('zeta.test.', 'a TXT of two quoted strings', replace('two.zeta.test.', 'TXT', 300, ['"a" "b"'])),
  patch('zeta.test.', 'a TXT of two quoted strings two spaces apart', replace('two.zeta.test.', 'TXT', 300, ['"a"  "c"'])),
  patch('zeta.test.', 'clean-up: the TXT of two strings', remove('two.zeta.test.', 'TXT')),
  patch('zeta.test.', 'an MX whose fields are two spaces apart', replace('mx2.zeta.test.', 'MX', 300, ['10  mail.example.net.'])),
  patch('zeta.test.', 'clean-up: the MX the request before may have left', remove('mx2.zeta.test.', 'MX')),
  patch('zeta.test.', 'a CAA value without quotes', replace('zeta.test.', 'CAA', 300, ['0 issue letsencrypt.org'])),
  patch('zeta.test.', 'a CNAME target without the trailing dot', replace('c.zeta.test.', 'CNAME', 300, ['target.example.net'])),
  patch('zeta.test.', 'a CNAME to a relative name', replace('c.zeta.test.', 'CNAME', 300, ['www'])),
  patch('zeta.test.', 'an MX to a relative name', replace('zeta.test.', 'MX', 300, ['10 mail'])),
  patch('zeta.test.', 'an SRV target without the trailing dot', replace('_sip._tcp.zeta.test.', 'SRV', 300, ['10 5 5060 sip.zeta.test'])),
  patch('zeta.test.', 'a delegation to a name server without the trailing dot', replace('sub.zeta.test.', 'NS', 300, ['ns1.example.net'])),
  patch('zeta.test.', 'a PTR without the trailing dot', replace('p.zeta.test.', 'PTR', 300, ['host.example.net'])),
  patch('zeta.test.', 'an empty rrsets list (nothing to change)'),
  patch('zeta.test.', 'an SRV with too few fields', replace('_x._tcp.zeta.test.', 'SRV', 300, ['10 5 target.zeta.test.'])),
  patch('zeta.test.', 'a CAA with an unknown tag form', replace('zeta.test.', 'CAA', 300, ['0 issue'])),
  patch('zeta.test.', 'an unknown type', replace('u.zeta.test.', 'FOO', 300, ['1'])),
  patch('zeta.test.', 'a relative record name', replace('www', 'A', 300, ['192.0.2.1'])),
  patch('zeta.test.', 'a record name outside the zone', replace('www.other.test.', 'A', 300, ['192.0.2.1'])),
  patch('zeta.test.', 'a name in a zone that merely ends alike', replace('www.xzeta.test.', 'A', 300, ['192.0.2.1'])),
  patch('zeta.test.', 'a REPLACE without a TTL', replace('nottl.zeta.test.', 'A', undefined, ['192.0.2.1'])),
  patch('zeta.test.', 'a TTL that is a string', replace('strttl.zeta.test.', 'A', '300' as unknown as number, ['192.0.2.1'])),
  patch('zeta.test.', 'clean-up: the A the request before may have left', remove('strttl.zeta.test.', 'A')),
  patch('zeta.test.', 'no changetype', { name: 'x.zeta.test.', type: 'A', ttl: 300, records: [{ content: '192.0.2.1', disabled: false }] }),
  patch('zeta.test.', 'an unknown changetype', rrset('UPSERT' as Changetype, 'x.zeta.test.', 'A', 300, ['192.0.2.1'])),
  patch('zeta.test.', 'no type', {
    name: 'x.zeta.test.',
    ttl: 300,
    changetype: 'REPLACE',
    records: [{ content: '192.0.2.1', disabled: false }],
  }),
  patch('zeta.test.', 'no name', { type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1', disabled: false }] }),
  patch('zeta.test.', 'a record without content', {
    name: 'x.zeta.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [{ disabled: false }],
  }),
  patch('zeta.test.', 'the same record twice in an rrset', replace('dup.zeta.test.', 'A', 300, ['192.0.2.1', '192.0.2.1'])),
  patch(
    'zeta.test.',
    'the same rrset twice in one PATCH',
    replace('dup.zeta.test.', 'A', 300, ['192.0.2.1']),
    replace('dup.zeta.test.', 'A', 300, ['192.0.2.2']),
  ),
  { what: 'a PATCH without rrsets', method: 'PATCH', path: `${ZONES}/zeta.test.`, body: {}, axfr: 'zeta.test.' },
  { what: 'a PATCH of malformed JSON', method: 'PATCH', path: `${ZONES}/zeta.test.`, body: '{"rrsets": [', axfr: 'zeta.test.' },
  patch('missing.test.', 'a PATCH to a missing zone', replace('www.missing.test.', 'A', 300, ['192.0.2.1'])),

  // CNAME beside other data (RFC 1034 §3.6.2), and atomicity: one bad rrset refuses the whole PATCH
  patch('zeta.test.', 'an A to stand beside', replace('www.zeta.test.', 'A', 300, ['192.0.2.1'])),
  patch('zeta.test.', 'a CNAME where an A is', replace('www.zeta.test.', 'CNAME', 300, ['target.example.net.'])),
  patch('zeta.test.', 'a CNAME alone', replace('alias.zeta.test.', 'CNAME', 300, ['target.example.net.'])),
  patch('zeta.test.', 'a TXT where the CNAME is', replace('alias.zeta.test.', 'TXT', 300, ['"beside"'])),
  patch(
    'zeta.test.',
    'a CNAME and an A at one name in one PATCH',
    replace('both.zeta.test.', 'CNAME', 300, ['target.example.net.']),
    replace('both.zeta.test.', 'A', 300, ['192.0.2.1']),
  ),
  patch('zeta.test.', 'a CNAME at the apex', replace('zeta.test.', 'CNAME', 300, ['target.example.net.'])),
  patch(
    'zeta.test.',
    'the A swapped for a CNAME in one PATCH (DELETE then REPLACE)',
    remove('www.zeta.test.', 'A'),
    replace('www.zeta.test.', 'CNAME', 300, ['target.example.net.']),
  ),
  patch(
    'zeta.test.',
    'one good rrset and one bad: nothing written',
    replace('good.zeta.test.', 'A', 300, ['192.0.2.1']),
    replace('bad.zeta.test.', 'A', 300, ['not-an-address']),
  ),
  get('the good rrset of the refused PATCH is not there', `${ZONES}/zeta.test.`),
  patch(
    'zeta.test.',
    'a good rrset and one out of zone: nothing written',
    replace('good.zeta.test.', 'A', 300, ['192.0.2.1']),
    replace('www.elsewhere.test.', 'A', 300, ['192.0.2.1']),
  ),

  // unknown fields are ignored, as PowerDNS ignores them
  patch('zeta.test.', 'an unknown field in the rrset', replace('u1.zeta.test.', 'A', 300, ['192.0.2.1'], { priority: 0 })),
  patch('zeta.test.', 'an unknown field in a record', {
    name: 'u2.zeta.test.',
    type: 'A',
    ttl: 300,
    changetype: 'REPLACE',
    records: [{ content: '192.0.2.2', disabled: false, note: 'x' }],
  }),
  {
    what: 'an unknown field beside rrsets',
    method: 'PATCH',
    path: `${ZONES}/zeta.test.`,
    body: { rrsets: [replace('u3.zeta.test.', 'A', 300, ['192.0.2.3'])], comment: 'x' },
    axfr: 'zeta.test.',
  },
  createZone('an unknown field in a new zone', { name: 'eta.test.', kind: 'Native', nameservers: NS, catalog: '', foo: 'bar' }),
  get('the zone made with an unknown field', `${ZONES}/eta.test.`),

  // EXTEND and PRUNE (PowerDNS 4.9+, one record each): Zonekeeper takes them; 4.7 gets the REPLACE they amount to
  extendOrPrune('EXTEND adds a record to an rrset that is not there', 'EXTEND', '192.0.2.1', ['192.0.2.1']),
  extendOrPrune('EXTEND adds a second record', 'EXTEND', '192.0.2.2', ['192.0.2.1', '192.0.2.2']),
  extendOrPrune('EXTEND with a record that is there already', 'EXTEND', '192.0.2.2', ['192.0.2.1', '192.0.2.2']),
  patch(
    'eta.test.',
    'EXTEND with two records (refused by both: one record each)',
    rrset('EXTEND', 'multi.eta.test.', 'A', 300, ['192.0.2.3', '192.0.2.4']),
  ),
  extendOrPrune('PRUNE removes one record', 'PRUNE', '192.0.2.1', ['192.0.2.2']),
  extendOrPrune('PRUNE of a record that is not there', 'PRUNE', '192.0.2.9', ['192.0.2.2']),
  extendOrPrune('PRUNE of the last record', 'PRUNE', '192.0.2.2', []),
  patch('eta.test.', 'a REPLACE after the PRUNE', replace('multi.eta.test.', 'TXT', 300, ['"after prune"'])),

  // more of each client's daily writes, so that every changetype meets every zone
  patch(
    'alpha.test.',
    'lego: a second domain of the certificate',
    replace('_acme-challenge.shop.alpha.test.', 'TXT', 300, ['"lego-shop"']),
  ),
  patch('alpha.test.', 'lego: its clean-up', remove('_acme-challenge.shop.alpha.test.', 'TXT')),
  patch('alpha.test.', 'an A at the apex', replace('alpha.test.', 'A', 300, ['192.0.2.200'])),
  patch('alpha.test.', 'a TXT at the apex beside the A', replace('alpha.test.', 'TXT', 300, ['"apex text"'])),
  patch('alpha.test.', 'the apex A and TXT go in one PATCH', remove('alpha.test.', 'A'), remove('alpha.test.', 'TXT')),
  patch(
    'beta.test.',
    'external-dns: ten A rrsets at once',
    ...Array.from({ length: 10 }, (_, i) => replace(`svc${i}.beta.test.`, 'A', 300, [`198.51.100.${i + 1}`])),
  ),
  patch('beta.test.', 'external-dns: five of them go', ...Array.from({ length: 5 }, (_, i) => remove(`svc${i}.beta.test.`, 'A'))),
  patch('beta.test.', 'a deep name', replace('a.b.c.d.beta.test.', 'A', 300, ['198.51.100.99'])),
  patch('beta.test.', 'an underscore name', replace('_dmarc.beta.test.', 'TXT', 300, ['"v=DMARC1; p=none"'])),
  patch('beta.test.', 'a TTL of a day', replace('daily.beta.test.', 'A', 86400, ['198.51.100.100'])),
  patch('beta.test.', 'the TTL of an rrset changes alone', replace('daily.beta.test.', 'A', 3600, ['198.51.100.100'])),
  patch(
    'delta.test.',
    'PowerDNS-Admin: the MX changes',
    replace('delta.test.', 'MX', 3600, ['10 mail.delta.test.', '20 backup.example.net.']),
  ),
  patch('delta.test.', 'PowerDNS-Admin: the SPF changes', replace('delta.test.', 'TXT', 3600, ['"v=spf1 mx include:example.net -all"'])),
  patch('delta.test.', 'PowerDNS-Admin: a record deleted', remove('mail.delta.test.', 'A')),
  get('the zone list filtered to a missing zone', `${ZONES}?zone=missing.test.`),
  get('the list filtered by a mixed-case name', `${ZONES}?zone=Delta.Test.`),

  // zone deletion: after it, both servers refuse the zone's transfer
  { what: 'Terraform: the zone deleted', method: 'DELETE', path: `${ZONES}/eta.test.`, axfr: 'eta.test.' },
  get('the deleted zone is gone', `${ZONES}/eta.test.`),
  { what: 'a DELETE of a missing zone', method: 'DELETE', path: `${ZONES}/eta.test.`, axfr: 'eta.test.' },
  patch('eta.test.', 'a PATCH to the deleted zone', replace('www.eta.test.', 'A', 300, ['192.0.2.1'])),
  createZone('the deleted zone made again', { name: 'eta.test.', kind: 'Native', nameservers: NS }),
  patch('eta.test.', 'a record in the new zone', replace('www.eta.test.', 'A', 300, ['192.0.2.1'])),
  // DNSSEC as DNSControl's AUTODNSSEC and PowerDNS-Admin's DNSSEC page turn it on
  createZone('DNSControl: a zone to sign', { name: 'signed.test.', kind: 'Native', nameservers: NS }),
  {
    what: 'DNSControl AUTODNSSEC: a CSK, active and published',
    method: 'POST',
    path: `${ZONES}/signed.test./cryptokeys`,
    body: { keytype: 'csk', active: true, published: true, algorithm: 'ECDSAP256SHA256' },
    axfr: 'signed.test.',
  },
  get('DNSControl: the cryptokeys of the signed zone', `${ZONES}/signed.test./cryptokeys`),
  get('PowerDNS-Admin: the signed zone (dnssec true)', `${ZONES}/signed.test.`),
  patch('signed.test.', 'a record in the signed zone', replace('www.signed.test.', 'A', 300, ['192.0.2.120'])),
  get('the cryptokeys of a missing zone', `${ZONES}/missing.test./cryptokeys`),
  // DNSControl's AUTODNSSEC off: the DELETE of the key its list shows active and published
  {
    what: 'DNSControl AUTODNSSEC off: the active key deleted',
    method: 'DELETE',
    path: `${ZONES}/signed.test./cryptokeys/{id}`,
    idFrom: { list: `${ZONES}/signed.test./cryptokeys`, match: { active: true, published: true } },
    axfr: 'signed.test.',
  },
  get('DNSControl: the cryptokeys after the delete', `${ZONES}/signed.test./cryptokeys`),
  get('the zone after its key was deleted', `${ZONES}/signed.test.`),
  {
    what: 'a DELETE of a cryptokey that is not there',
    method: 'DELETE',
    path: `${ZONES}/signed.test./cryptokeys/987654`,
    axfr: 'signed.test.',
  },
  patch('signed.test.', 'a record in the zone after its key was deleted', replace('www.signed.test.', 'A', 300, ['192.0.2.121'])),

  // the zone's `dnssec` switched by PUT (a field of PowerDNS's Zone, which 4.7's PUT takes: keys made or dropped)
  createZone('a zone to sign by its PUT', { name: 'theta.test.', kind: 'Native', nameservers: NS }),
  putZone('theta.test.', 'the zone signed by PUT dnssec: true', { dnssec: true }),
  get('the cryptokeys made by the PUT', `${ZONES}/theta.test./cryptokeys`),
  get('the zone signed by its PUT (dnssec true)', `${ZONES}/theta.test.`),
  patch('theta.test.', 'a record in the zone signed by its PUT', replace('www.theta.test.', 'A', 300, ['192.0.2.130'])),
  putZone('theta.test.', 'PUT dnssec: true of a signed zone (nothing to do)', { dnssec: true }),
  // the zone's DS never went to a parent: nothing to wait for, both unsign it at once (docs/dnssec.md, «Disable»)
  putZone('theta.test.', 'PUT dnssec: false of a zone whose DS was never published', { dnssec: false }),
  get('the zone unsigned by its PUT (dnssec false)', `${ZONES}/theta.test.`),
  get('the cryptokeys after the PUT dnssec: false', `${ZONES}/theta.test./cryptokeys`),
  putZone('missing.test.', 'PUT dnssec of a missing zone', { dnssec: true }),
  createZone('DNSControl dnssec_on_create: a zone created signed', {
    name: 'kappa.test.',
    type: 'Zone',
    kind: 'Native',
    nameservers: NS,
    soa_edit_api: 'DEFAULT',
    dnssec: true,
  }),
  get('the zone created signed (dnssec true)', `${ZONES}/kappa.test.`),

  // TSIG keys as the Ansible collection manages them: created without a secret, found by name, deleted by id
  get('Ansible: the TSIG keys before', TSIG_KEYS),
  {
    what: 'Ansible: a TSIG key created (hmac-sha256, the secret made by the server)',
    method: 'POST',
    path: TSIG_KEYS,
    body: { name: 'ansible-key.', algorithm: 'hmac-sha256' },
    noAxfr: NO_ZONE,
  },
  get('Ansible: the TSIG keys with the new one (its secret left out)', TSIG_KEYS),
  { what: 'Ansible: the TSIG key by its id', method: 'GET', path: `${TSIG_KEYS}/{id}`, idFrom: tsigKeyOf('ansible-key.') },
  {
    what: 'a TSIG key of a name that exists',
    method: 'POST',
    path: TSIG_KEYS,
    body: { name: 'ansible-key.', algorithm: 'hmac-sha256' },
    noAxfr: NO_ZONE,
  },
  {
    what: 'Ansible: the TSIG key deleted by its id',
    method: 'DELETE',
    path: `${TSIG_KEYS}/{id}`,
    idFrom: tsigKeyOf('ansible-key.'),
    noAxfr: NO_ZONE,
  },
  get('the TSIG keys after the delete', TSIG_KEYS),
  { what: 'a DELETE of a TSIG key that is not there', method: 'DELETE', path: `${TSIG_KEYS}/ansible-key.`, noAxfr: NO_ZONE },
  {
    what: "Ansible: a TSIG key of the module's default algorithm, hmac-md5",
    method: 'POST',
    path: TSIG_KEYS,
    body: { name: 'ansible-md5.', algorithm: 'hmac-md5' },
    noAxfr: NO_ZONE,
  },
  {
    what: 'clean-up: the hmac-md5 key, if it was made',
    method: 'DELETE',
    path: `${TSIG_KEYS}/ansible-md5.`,
    noAxfr: NO_ZONE,
  },

  // TSIG keys moved in with their secret (`pdnsutil import-tsig-key`, a key moved from PowerDNS or BIND: the
  // secondaries that hold it keep working), read back with it, and given a new secret by PUT
  {
    what: 'a TSIG key imported with its secret',
    method: 'POST',
    path: TSIG_KEYS,
    body: { name: 'moved-key.', algorithm: 'hmac-sha256', key: MOVED_SECRET },
    noAxfr: NO_ZONE,
    sameFields: ['key', 'algorithm'],
  },
  { what: 'the imported key read back with its secret', method: 'GET', path: `${TSIG_KEYS}/moved-key.`, sameFields: ['key', 'algorithm'] },
  { ...get('the imported key in the list (its secret left out)', TSIG_KEYS), sameFields: ['name', 'key'] },
  {
    what: 'a TSIG key imported with an algorithm in capitals and a final dot',
    method: 'POST',
    path: TSIG_KEYS,
    body: { name: 'moved-512.', algorithm: 'HMAC-SHA512.', key: MOVED_SECRET },
    noAxfr: NO_ZONE,
  },
  {
    what: 'a TSIG key of a secret that is not base64',
    method: 'POST',
    path: TSIG_KEYS,
    body: tsigBody('bad-secret.', 'not base64!!'),
    noAxfr: NO_ZONE,
  },
  {
    what: 'a TSIG key of a secret with a space in it',
    method: 'POST',
    path: TSIG_KEYS,
    body: tsigBody('spaced-secret.', 'YWJj ZGVm'),
    noAxfr: NO_ZONE,
  },
  {
    what: 'a TSIG key of an unknown algorithm',
    method: 'POST',
    path: TSIG_KEYS,
    body: { name: 'odd-alg.', algorithm: 'hmac-foo', key: MOVED_SECRET },
    noAxfr: NO_ZONE,
  },
  {
    what: 'a TSIG key of an empty secret (one is made)',
    method: 'POST',
    path: TSIG_KEYS,
    body: tsigBody('empty-secret.', ''),
    noAxfr: NO_ZONE,
  },
  {
    what: 'a TSIG key of a secret without its padding',
    method: 'POST',
    path: TSIG_KEYS,
    body: tsigBody('unpadded.', 'YWJjZA'),
    noAxfr: NO_ZONE,
  },
  {
    what: 'PUT: the imported key given a new secret',
    method: 'PUT',
    path: `${TSIG_KEYS}/moved-key.`,
    body: { key: ROTATED_SECRET },
    noAxfr: NO_ZONE,
    sameFields: ['key', 'algorithm'],
  },
  { what: 'the key read back with its new secret', method: 'GET', path: `${TSIG_KEYS}/moved-key.`, sameFields: ['key', 'algorithm'] },
  {
    what: 'PUT: the key given another algorithm',
    method: 'PUT',
    path: `${TSIG_KEYS}/moved-key.`,
    body: { algorithm: 'hmac-sha512' },
    noAxfr: NO_ZONE,
    sameFields: ['key', 'algorithm'],
  },
  { what: 'PUT: a secret that is not base64', method: 'PUT', path: `${TSIG_KEYS}/moved-key.`, body: { key: 'bad!' }, noAxfr: NO_ZONE },
  { what: 'PUT: an unknown algorithm', method: 'PUT', path: `${TSIG_KEYS}/moved-key.`, body: { algorithm: 'hmac-foo' }, noAxfr: NO_ZONE },
  { what: 'the key after the refused PUTs', method: 'GET', path: `${TSIG_KEYS}/moved-key.`, sameFields: ['key', 'algorithm'] },
  {
    what: 'PUT of a key that is not there',
    method: 'PUT',
    path: `${TSIG_KEYS}/no-such-key.`,
    body: { key: ROTATED_SECRET },
    noAxfr: NO_ZONE,
  },
  { what: 'PUT: the key renamed', method: 'PUT', path: `${TSIG_KEYS}/moved-512.`, body: { name: 'renamed-512.' }, noAxfr: NO_ZONE },
  ...['moved-key.', 'moved-512.', 'renamed-512.', 'empty-secret.', 'unpadded.'].map((name): ApiRequest => ({
    what: `clean-up: the TSIG key ${name}`,
    method: 'DELETE',
    path: `${TSIG_KEYS}/${name}`,
    noAxfr: NO_ZONE,
  })),
  get('the TSIG keys after the clean-up', TSIG_KEYS),

  // zones created as the Ansible collection creates them, and a comment's time past 2038
  createZone('Ansible: a zone with its SOA and NS in rrsets, TTLs as strings', {
    name: 'ansible.test.',
    kind: 'Native',
    nameservers: [],
    soa_edit_api: 'DEFAULT',
    rrsets: [
      {
        name: 'ansible.test.',
        type: 'SOA',
        ttl: '86400',
        records: [{ disabled: false, content: 'ns1.example.net. hostmaster.example.net. 1 86400 7200 3600000 172800' }],
      },
      { name: 'ansible.test.', type: 'NS', ttl: '86400', records: NS.map((content) => ({ disabled: false, content })) },
    ],
  }),
  createZone("a zone whose NS rrset's TTL is a string (Ansible's TTL without its SOA)", {
    name: 'ansible-ns.test.',
    kind: 'Native',
    nameservers: [],
    rrsets: [{ name: 'ansible-ns.test.', type: 'NS', ttl: '86400', records: NS.map((content) => ({ disabled: false, content })) }],
  }),
  createZone('a zone whose SOA is in rrsets (TTLs as numbers)', {
    name: 'ansible-soa.test.',
    kind: 'Native',
    nameservers: [],
    rrsets: [
      { name: 'ansible-soa.test.', type: 'SOA', ttl: 86400, records: [{ disabled: false, content: soa(1) }] },
      { name: 'ansible-soa.test.', type: 'NS', ttl: 86400, records: NS.map((content) => ({ disabled: false, content })) },
    ],
  }),
  createZone('a new zone whose rrset comment has a modified_at after 2038 (over 2^31 - 1)', {
    name: 'iota.test.',
    kind: 'Native',
    nameservers: NS,
    rrsets: [
      {
        name: 'www.iota.test.',
        type: 'A',
        ttl: 300,
        records: [{ content: '192.0.2.140', disabled: false }],
        comments: [{ content: 'kept until 2100', account: 'admin', modified_at: 4102444800 }],
      },
    ],
  }),
  createZone('a new zone whose comment has the last modified_at a 32-bit count holds (2^31 - 1)', {
    name: 'iota2.test.',
    kind: 'Native',
    nameservers: NS,
    rrsets: [
      {
        name: 'www.iota2.test.',
        type: 'A',
        ttl: 300,
        records: [{ content: '192.0.2.141', disabled: false }],
        comments: [{ content: 'kept until 2038', account: 'admin', modified_at: 2 ** 31 - 1 }],
      },
    ],
  }),
  get('the zone with the comment of 2038', `${ZONES}/iota2.test.`),

  // every type of the DNS model, written as PowerDNS takes it and read back: the contents compared text for text
  createZone('a zone for every record type', { name: 'types.test.', kind: 'Native', nameservers: NS }),
  patch(
    'types.test.',
    'a record of every type the DNS model knows',
    ...EVERY_TYPE.map(([name, type, content]) => replace(`${name}types.test.`, type, 300, [content])),
  ),
  { ...get('the zone of every type, read back', `${ZONES}/types.test.`), contents: true },
  // DSYNC (RFC 9859, 2025) came after PowerDNS 4.7, which refuses it as an unknown type: a kept difference
  createZone('a zone for a DSYNC', { name: 'dsync.test.', kind: 'Native', nameservers: NS }),
  patch('dsync.test.', 'a DSYNC rrset', replace('_dsync.dsync.test.', 'DSYNC', 300, ['CDS 1 5359 ds-scanner.example.net.'])),
  // secondary zones as PowerDNS makes them (Terraform's `kind`/`masters`, PowerDNS-Admin's Slave zones,
  // `pdnsutil create-secondary-zone` with `set-meta … AXFR-MASTER-TSIG`): Zonekeeper's secondary zones (docs/transfers.md)
  {
    what: 'the key a secondary zone transfers with, imported',
    method: 'POST',
    path: TSIG_KEYS,
    body: { name: 'sec-xfr.', algorithm: 'hmac-sha256', key: MOVED_SECRET },
    noAxfr: NO_ZONE,
  },
  {
    ...createZone('a secondary zone of three primaries with its transfer key', {
      name: 'sec.test.',
      kind: 'Slave',
      masters: ['192.0.2.53', '192.0.2.54:5300', '[2001:db8::53]:5300'],
      slave_tsig_key_ids: ['sec-xfr.'],
    }),
    sameFields: SECONDARY_FIELDS,
  },
  { ...get('the secondary zone, never transferred', `${ZONES}/sec.test.`), sameFields: [...SECONDARY_FIELDS, 'rrsets'] },
  {
    ...createZone('a secondary zone of kind Secondary (the 4.5 name)', {
      name: 'sec2.test.',
      kind: 'Secondary',
      masters: ['2001:db8::53'],
    }),
    sameFields: SECONDARY_FIELDS,
  },
  get('the zone list with the secondary zones', ZONES),
  createZone('a secondary zone without primaries', { name: 'sec3.test.', kind: 'Slave', masters: [] }),
  createZone('a secondary zone whose primary is no address', { name: 'sec4.test.', kind: 'Slave', masters: ['primary.example.net'] }),
  createZone('a secondary zone given rrsets', {
    name: 'sec5.test.',
    kind: 'Slave',
    masters: ['192.0.2.53'],
    rrsets: [{ name: 'www.sec5.test.', type: 'A', ttl: 300, records: [{ content: '192.0.2.1', disabled: false }] }],
  }),
  { what: 'the secondary zone deleted', method: 'DELETE', path: `${ZONES}/sec2.test.`, axfr: 'sec2.test.' },

  // zone metadata (PowerDNS-Admin's zone settings, `pdnsutil get-meta`/`set-meta` users): read from what the zone
  // holds; PowerDNS 4.7 writes none of these kinds through its API but ALSO-NOTIFY and ALLOW-AXFR-FROM
  { ...get('the metadata of a primary zone', `${ZONES}/alpha.test./metadata`), sameFields: ['kind', 'metadata'] },
  { ...get('its SOA-EDIT-API', `${ZONES}/alpha.test./metadata/SOA-EDIT-API`), sameFields: ['kind', 'metadata'] },
  { ...get('its ALSO-NOTIFY, none', `${ZONES}/alpha.test./metadata/ALSO-NOTIFY`), sameFields: ['kind', 'metadata'] },
  { ...get('the metadata of the secondary zone (its AXFR-MASTER-TSIG)', `${ZONES}/sec.test./metadata`), sameFields: ['kind', 'metadata'] },
  { ...get('its AXFR-MASTER-TSIG', `${ZONES}/sec.test./metadata/AXFR-MASTER-TSIG`), sameFields: ['kind', 'metadata'] },
  get('the metadata of a missing zone', `${ZONES}/missing.test./metadata`),
  ...['SOA-EDIT-API', 'TSIG-ALLOW-AXFR', 'AXFR-MASTER-TSIG', 'NSEC3PARAM', 'FOO'].map((kind): ApiRequest => ({
    what: `PUT of the metadata kind ${kind}`,
    method: 'PUT',
    path: `${ZONES}/alpha.test./metadata/${kind}`,
    body: { metadata: [kind === 'SOA-EDIT-API' ? 'INCREASE' : 'x.'] },
    axfr: 'alpha.test.',
  })),
  {
    what: 'POST of an ALSO-NOTIFY on a zone without secondaries',
    method: 'POST',
    path: `${ZONES}/alpha.test./metadata`,
    body: { kind: 'ALSO-NOTIFY', metadata: ['192.0.2.7'] },
    axfr: 'alpha.test.',
  },
  { what: 'DELETE of ALSO-NOTIFY', method: 'DELETE', path: `${ZONES}/alpha.test./metadata/ALSO-NOTIFY`, axfr: 'alpha.test.' },
  { ...get('the metadata after the DELETE', `${ZONES}/alpha.test./metadata`), sameFields: ['kind', 'metadata'] },

  get('the zone list at the end', ZONES),
  get('the last zone', `${ZONES}/eta.test.`),
];
