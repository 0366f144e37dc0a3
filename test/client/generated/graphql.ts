/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** AAAA RDATA (RFC 3596 §2, RFC 4291 §2.2, RFC 5952 §4). */
export type AaaaDataInput = {
  /** IPv6 address in any RFC 4291 text form; shown in RFC 5952 canonical form */
  address: string;
};

/** A RDATA (RFC 1035 §3.4.1). */
export type ADataInput = {
  /** IPv4 address in dotted-quad form, e.g. 192.0.2.1 (no leading zeros) */
  address: string;
};

/** APL RDATA (RFC 3123 §4, RFC 3123 §5). */
export type AplDataInput = {
  /** [!]afi:address/prefix, blank-separated: 1:192.0.2.0/24 !2:2001:db8::/32 */
  items?: string | null | undefined;
};

/** CAA RDATA (RFC 8659 §4.1). */
export type CaaDataInput = {
  /** 0–255; 128 = issuer critical */
  flags: number;
  /** property tag, letters and digits (issue, issuewild, iodef, ...), stored lower-case */
  tag: string;
  /** property value, a quoted string */
  value: string;
};

/** CDNSKEY RDATA (RFC 7344 §3.2, RFC 8078, RFC 4034 §2). */
export type CdnskeyDataInput = {
  /** DNSSEC algorithm number, 0–255 */
  algorithm: number;
  /** 0–65535: 256 zone key, 257 zone key + secure entry point (RFC 4034 §2.1.1) */
  flags: number;
  /** always 3 (RFC 4034 §2.1.2) */
  protocol: number;
  /** base64, blanks allowed between pieces */
  publicKey: string;
};

/** CDS RDATA (RFC 7344 §3.1, RFC 8078, RFC 4034 §5). */
export type CdsDataInput = {
  /** DNSSEC algorithm number, 0–255 */
  algorithm: number;
  /** hexadecimal, blanks allowed between digits */
  digest: string;
  /** 1 = SHA-1 (20 octets), 2 = SHA-256 (32), 4 = SHA-384 (48) */
  digestType: number;
  /** 0–65535 */
  keyTag: number;
};

/** CERT RDATA (RFC 4398 §2). */
export type CertDataInput = {
  /** DNSSEC algorithm number 0–255 or its mnemonic */
  algorithm: string;
  /** base64, blanks allowed between pieces */
  certificate: string;
  /** 0–65535 */
  keyTag: number;
  /** certificate type, 0–65535 or a mnemonic (PKIX, SPKI, PGP, IPKIX, ISPKI, IPGP, ACPKIX, IACPKIX, URI, OID) */
  type: string;
};

/** CNAME RDATA (RFC 1035 §3.3.1, RFC 1034 §3.6.2, RFC 2181 §10.1). */
export type CnameDataInput = {
  /** the canonical (target) name of this alias */
  cname: string;
};

/** DHCID RDATA (RFC 4701 §3). */
export type DhcidDataInput = {
  /** identifier type, digest type and digest, base64 (RFC 4701 §3.4) */
  data: string;
};

/** DNAME RDATA (RFC 6672 §2.1). */
export type DnameDataInput = {
  /** the name the subtree below the owner is redirected to */
  target: string;
};

/** DNSKEY RDATA (RFC 4034 §2). */
export type DnskeyDataInput = {
  /** DNSSEC algorithm number, 0–255 */
  algorithm: number;
  /** 0–65535: 256 zone key, 257 zone key + secure entry point (RFC 4034 §2.1.1) */
  flags: number;
  /** always 3 (RFC 4034 §2.1.2) */
  protocol: number;
  /** base64, blanks allowed between pieces */
  publicKey: string;
};

/** DS RDATA (RFC 4034 §5, RFC 4509 §2.2, RFC 6605 §4). */
export type DsDataInput = {
  /** DNSSEC algorithm number, 0–255 */
  algorithm: number;
  /** hexadecimal, blanks allowed between digits */
  digest: string;
  /** 1 = SHA-1 (20 octets), 2 = SHA-256 (32), 4 = SHA-384 (48) */
  digestType: number;
  /** 0–65535 */
  keyTag: number;
};

/** DSYNC RDATA (RFC 9859 §2). */
export type DsyncDataInput = {
  /** 0–65535, where the target listens */
  port: number;
  /** the record type notified (CDS, CSYNC) as its mnemonic or TYPEnnn */
  rrtype: string;
  /** 0–255 (or its mnemonic NOTIFY = 1); 0 is ignored */
  scheme: number;
  /** host name of the notification endpoint */
  target: string;
};

/** The order of a zone list: CREATED (oldest first, the default), NAME or NAME_DESC (the stored names, IDN as A-labels, in alphabetical order or its reverse), RECORDS, SERIAL (the last change: serials rise with each), KIND, DNSSEC (the state: disabling, signed, unsigned) and their _DESC, ties in creation order (the reverse with _DESC). */
export type DomainOrder =
  | 'CREATED'
  | 'DNSSEC'
  | 'DNSSEC_DESC'
  | 'KIND'
  | 'KIND_DESC'
  | 'NAME'
  | 'NAME_DESC'
  | 'RECORDS'
  | 'RECORDS_DESC'
  | 'SERIAL'
  | 'SERIAL_DESC';

/** EUI48 RDATA (RFC 7043 §3). */
export type Eui48DataInput = {
  /** 6 pairs of hexadecimal digits separated by hyphens */
  address: string;
};

/** EUI64 RDATA (RFC 7043 §4). */
export type Eui64DataInput = {
  /** 8 pairs of hexadecimal digits separated by hyphens */
  address: string;
};

/** HINFO RDATA (RFC 1035 §3.3.2, RFC 8482 §4.2). */
export type HinfoDataInput = {
  /** character-string, at most 255 octets */
  cpu: string;
  /** character-string, at most 255 octets */
  os: string;
};

/** HTTPS RDATA (RFC 9460 §9, RFC 9460 §2, RFC 9460 §7). */
export type HttpsDataInput = {
  /** key=value parameters: mandatory, alpn, no-default-alpn, port, ipv4hint, ech, ipv6hint, dohpath, ohttp, keyNNNNN; shown sorted by key number */
  params?: string | null | undefined;
  /** 0 = AliasMode (no parameters), 1–65535 = ServiceMode, lower is preferred */
  priority: number;
  /** target name; '.' means the owner name (ServiceMode) or no service (AliasMode) */
  target: string;
};

/** IPSECKEY RDATA (RFC 4025 §2, RFC 4025 §3). */
export type IpseckeyDataInput = {
  /** 1 DSA, 2 RSA, 3 ECDSA (0, no key, is refused: see the public key) */
  algorithm: number;
  /** '.', an IPv4 or IPv6 address, or a domain name, as the gateway type says */
  gateway: string;
  /** 0 no gateway ('.'), 1 IPv4, 2 IPv6, 3 domain name */
  gatewayType: number;
  /** 0–255, lower is preferred */
  precedence: number;
  /** base64, blanks allowed between pieces */
  publicKey?: string | null | undefined;
};

/** L32 RDATA (RFC 6742 §2.2). */
export type L32DataInput = {
  /** dotted-quad, as an IPv4 address */
  locator32: string;
  /** 0–65535, lower is preferred */
  preference: number;
};

/** L64 RDATA (RFC 6742 §2.3). */
export type L64DataInput = {
  /** four groups of four hexadecimal digits separated by colons */
  locator64: string;
  /** 0–65535, lower is preferred */
  preference: number;
};

/** LOC RDATA (RFC 1876 §2, RFC 1876 §3). */
export type LocDataInput = {
  /** meters, -100000.00 to 42849672.95, optional m */
  altitude: string;
  /** degrees 0–90 [minutes [seconds with up to 3 decimals]] N or S */
  latitude: string;
  /** degrees 0–180 [minutes [seconds]] E or W */
  longitude: string;
  /** optional: size, horizontal and vertical precision in meters (defaults 1m 10000m 10m) */
  sizeAndPrecision: string;
};

/** LP RDATA (RFC 6742 §2.4). */
export type LpDataInput = {
  /** the name holding L32 or L64 records */
  fqdn: string;
  /** 0–65535, lower is preferred */
  preference: number;
};

/** MX RDATA (RFC 1035 §3.3.9, RFC 7505). */
export type MxDataInput = {
  /** host name of the mail server; '.' with preference 0 is the null MX (RFC 7505) */
  exchange: string;
  /** 0–65535, lower is preferred */
  preference: number;
};

/** NAPTR RDATA (RFC 3403 §4, RFC 3402 §3.2). */
export type NaptrDataInput = {
  /** character-string of letters and digits (e.g. "U", "S", "A", "P") */
  flags: string;
  /** 0–65535, lower is processed first */
  order: number;
  /** 0–65535, among equal order */
  preference: number;
  /** character-string: substitution expression delim-ere-delim-repl-delim-flags, or "" */
  regexp: string;
  /** domain name, or '.' when regexp is used */
  replacement: string;
  /** character-string (e.g. "E2U+sip") */
  services: string;
};

/** NID RDATA (RFC 6742 §2.1). */
export type NidDataInput = {
  /** four groups of four hexadecimal digits separated by colons */
  nodeId: string;
  /** 0–65535, lower is preferred */
  preference: number;
};

/** NS RDATA (RFC 1035 §3.3.11). */
export type NsDataInput = {
  /** host name of an authoritative name server (relative names are completed with the zone); '.' is loaded as written */
  nsdname: string;
};

/** OPENPGPKEY RDATA (RFC 7929 §2). */
export type OpenpgpkeyDataInput = {
  /** the OpenPGP public key, base64 (RFC 7929 §2.3) */
  data: string;
};

/** PTR RDATA (RFC 1035 §3.3.12). */
export type PtrDataInput = {
  /** the name this owner points to */
  ptrdname: string;
};

/** RP RDATA (RFC 1183 §2.2). */
export type RpDataInput = {
  /** mailbox with the @ written as a dot; '.' for none */
  mboxDname: string;
  /** name holding TXT records about the person; '.' for none */
  txtDname: string;
};

/** RDATA as typed fields: set exactly one member, the one of the record’s type (RFC 3597 TYPEnnn: use rdata). */
export type RecordDataInput = {
  a?: ADataInput | null | undefined;
  aaaa?: AaaaDataInput | null | undefined;
  apl?: AplDataInput | null | undefined;
  caa?: CaaDataInput | null | undefined;
  cdnskey?: CdnskeyDataInput | null | undefined;
  cds?: CdsDataInput | null | undefined;
  cert?: CertDataInput | null | undefined;
  cname?: CnameDataInput | null | undefined;
  dhcid?: DhcidDataInput | null | undefined;
  dname?: DnameDataInput | null | undefined;
  dnskey?: DnskeyDataInput | null | undefined;
  ds?: DsDataInput | null | undefined;
  dsync?: DsyncDataInput | null | undefined;
  eui48?: Eui48DataInput | null | undefined;
  eui64?: Eui64DataInput | null | undefined;
  hinfo?: HinfoDataInput | null | undefined;
  https?: HttpsDataInput | null | undefined;
  ipseckey?: IpseckeyDataInput | null | undefined;
  l32?: L32DataInput | null | undefined;
  l64?: L64DataInput | null | undefined;
  loc?: LocDataInput | null | undefined;
  lp?: LpDataInput | null | undefined;
  mx?: MxDataInput | null | undefined;
  naptr?: NaptrDataInput | null | undefined;
  nid?: NidDataInput | null | undefined;
  ns?: NsDataInput | null | undefined;
  openpgpkey?: OpenpgpkeyDataInput | null | undefined;
  ptr?: PtrDataInput | null | undefined;
  rp?: RpDataInput | null | undefined;
  smimea?: SmimeaDataInput | null | undefined;
  soa?: SoaDataInput | null | undefined;
  spf?: SpfDataInput | null | undefined;
  srv?: SrvDataInput | null | undefined;
  sshfp?: SshfpDataInput | null | undefined;
  svcb?: SvcbDataInput | null | undefined;
  tlsa?: TlsaDataInput | null | undefined;
  txt?: TxtDataInput | null | undefined;
  uri?: UriDataInput | null | undefined;
  zonemd?: ZonemdDataInput | null | undefined;
};

export type RecordInput = {
  /** The comment of the record’s RRset becomes this ("" removes it; absent, it stays): free text, at most MAX_COMMENT_LENGTH characters (serverSettings.maxCommentLength), kept in the history; no DNS data. */
  comment?: string | null | undefined;
  /** RDATA as typed fields (the member of the record’s type); or give `rdata` instead. */
  data?: RecordDataInput | null | undefined;
  /** Owner, relative to the zone ('@' = apex) or absolute inside it. */
  owner: string;
  /** RDATA in presentation form; or give `data` instead (exactly one of the two). */
  rdata?: string | null | undefined;
  /** The TTL: 0 to 2147483647 (RFC 2181 §8), within ALLOWED_TTLS_BEYOND_REST when the operator set it (serverSettings.allowedTtls). */
  ttl: number;
  /** Record type (case-insensitive). */
  type: string;
  /** Zone name. */
  zone: string;
};

/** SMIMEA RDATA (RFC 8162 §2, RFC 6698 §2). */
export type SmimeaDataInput = {
  /** hexadecimal, blanks allowed between digits */
  certificateAssociationData: string;
  /** 0 = exact, 1 = SHA-256 (32 octets), 2 = SHA-512 (64 octets) */
  matchingType: number;
  /** 0 = full certificate, 1 = SubjectPublicKeyInfo */
  selector: number;
  /** 0–3: PKIX-TA, PKIX-EE, DANE-TA, DANE-EE (RFC 7218) */
  usage: number;
};

/** SOA RDATA (RFC 1035 §3.3.13, RFC 1982, RFC 2181 §8, RFC 2308 §4). */
export type SoaDataInput = {
  /** seconds after which a secondary stops answering without a refresh, 0–2147483647 */
  expire: number;
  /** negative-caching TTL in seconds (RFC 2308 §4), 0–2147483647 */
  minimum: number;
  /** host name of the primary name server */
  mname: string;
  /** seconds between secondary refresh checks, 0–2147483647 */
  refresh: number;
  /** seconds before a failed refresh is retried, 0–2147483647 */
  retry: number;
  /** mailbox of the person responsible, with the @ written as a dot (hostmaster.example.net.) */
  rname: string;
  /** zone version, 0–4294967295, compared in RFC 1982 serial arithmetic */
  serial: number;
};

/** SPF RDATA (RFC 4408 §3.1.1, RFC 7208 §3.1, RFC 1035 §3.3.14). */
export type SpfDataInput = {
  /** one or more character-strings, quoted or single words, each at most 255 octets; escapes \" \\ \DDD */
  txtData: Array<string>;
};

/** SRV RDATA (RFC 2782). */
export type SrvDataInput = {
  /** 0–65535 */
  port: number;
  /** 0–65535, lower is tried first */
  priority: number;
  /** host name of the server; '.' means the service is not available */
  target: string;
  /** 0–65535, relative share among equal priorities */
  weight: number;
};

/** SSHFP RDATA (RFC 4255 §3, RFC 6594, RFC 7479, RFC 8709). */
export type SshfpDataInput = {
  /** key algorithm, 0–255 (1 RSA, 2 DSA, 3 ECDSA, 4 Ed25519, 6 Ed448) */
  algorithm: number;
  /** hexadecimal, blanks allowed between digits */
  fingerprint: string;
  /** 0–255 (1 = SHA-1, 20 octets; 2 = SHA-256, 32 octets) */
  fingerprintType: number;
};

/** SVCB RDATA (RFC 9460 §2, RFC 9460 §7, RFC 9460 §8). */
export type SvcbDataInput = {
  /** key=value parameters: mandatory, alpn, no-default-alpn, port, ipv4hint, ech, ipv6hint, dohpath, ohttp, keyNNNNN; shown sorted by key number */
  params?: string | null | undefined;
  /** 0 = AliasMode (no parameters), 1–65535 = ServiceMode, lower is preferred */
  priority: number;
  /** target name; '.' means the owner name (ServiceMode) or no service (AliasMode) */
  target: string;
};

/** TLSA RDATA (RFC 6698 §2, RFC 7218). */
export type TlsaDataInput = {
  /** hexadecimal, blanks allowed between digits */
  certificateAssociationData: string;
  /** 0 = exact, 1 = SHA-256 (32 octets), 2 = SHA-512 (64 octets) */
  matchingType: number;
  /** 0 = full certificate, 1 = SubjectPublicKeyInfo */
  selector: number;
  /** 0–3: PKIX-TA, PKIX-EE, DANE-TA, DANE-EE (RFC 7218) */
  usage: number;
};

/** TXT RDATA (RFC 1035 §3.3.14, RFC 1035 §5.1). */
export type TxtDataInput = {
  /** one or more character-strings, quoted or single words, each at most 255 octets; escapes \" \\ \DDD */
  txtData: Array<string>;
};

/** URI RDATA (RFC 7553 §4). */
export type UriDataInput = {
  /** 0–65535, lower is preferred */
  priority: number;
  /** the URI (RFC 3986), quoted */
  target: string;
  /** 0–65535, relative weight among equal priorities */
  weight: number;
};

/** ZONEMD RDATA (RFC 8976 §2, RFC 8976 §2.3). */
export type ZonemdDataInput = {
  /** hexadecimal, at least 12 octets, blanks allowed between digits */
  digest: string;
  /** 1 = SHA-384 (48 octets), 2 = SHA-512 (64) */
  hashAlgorithm: number;
  /** 1 = SIMPLE (RFC 8976 §5.2) */
  scheme: number;
  /** SOA serial the digest was computed at, 0–4294967295 */
  serial: number;
};

export type ZoneChangeInput = {
  /** The comment of the RRset the change names by owner and type becomes this ("" removes it; absent, it stays), at most MAX_COMMENT_LENGTH characters (serverSettings.maxCommentLength); needs owner and type (a change by id alone names no RRset: COMMENT_NEEDS_RRSET). COMMENT: the comment alone. */
  comment?: string | null | undefined;
  /** ADD, EXTEND_RRSET: the records come disabled (kept, not served). */
  disabled?: boolean | null | undefined;
  /** REPLACE_RRSET: the RRset’s disabled records become these (with `ttl`); without it, they stay as they are. */
  disabledRdatas?: Array<string> | null | undefined;
  /** The record, for REMOVE by id and REPLACE. */
  id?: string | number | null | undefined;
  kind: ZoneChangeKind;
  /** Owner, relative to the zone ('@' = apex) or absolute inside it. */
  owner?: string | null | undefined;
  /** RDATA in presentation form (ADD, REPLACE, REMOVE by content). */
  rdata?: string | null | undefined;
  /** The RRset’s RDATA (REPLACE_RRSET, EXTEND_RRSET, PRUNE_RRSET). */
  rdatas?: Array<string> | null | undefined;
  /** TTL (ADD, REPLACE, REPLACE_RRSET, EXTEND_RRSET). */
  ttl?: number | null | undefined;
  /** Record type (case-insensitive). */
  type?: string | null | undefined;
};

export type ZoneChangeKind =
  /** Add a record: owner, type, rdata, ttl. */
  | 'ADD'
  /** The comment of the RRset of owner and type becomes `comment` ("" removes it); its records stay. A comment is no DNS data: a set of comments alone steps no serial, and the history keeps it (COMMENTS_CHANGED). */
  | 'COMMENT'
  /** Disable a served record (by id, or by owner, type and rdata): it is no longer served and is kept (Domain.disabledRecords); the history shows it toggled. */
  | 'DISABLE'
  /** Enable a disabled record (by owner, type and rdata): it is served again with its TTL. */
  | 'ENABLE'
  /** Those of `rdatas` (with `ttl`) the RRset of owner and type lacks are added; the rest stays (PowerDNS EXTEND). */
  | 'EXTEND_RRSET'
  /** Those of `rdatas` the RRset of owner and type holds, served or disabled, are removed; the rest stays (PowerDNS PRUNE). */
  | 'PRUNE_RRSET'
  /** Remove a record: by id, or by owner, type and rdata. */
  | 'REMOVE'
  /** Replace the record `id` with owner, type, rdata, ttl. */
  | 'REPLACE'
  /** Every record of owner and type becomes one of `rdatas` with `ttl` (an empty list removes the RRset). */
  | 'REPLACE_RRSET';

export type ZoneQueryVariables = Exact<{
  name: string;
}>;

export type ZoneQuery = {
  domain: {
    id: string;
    name: string;
    serial: number;
    recordCount: number;
    records: Array<{ id: string; owner: string; type: string; rdata: string; ttl: number }>;
  };
};

export type ApplyChangesMutationVariables = Exact<{
  zone: string;
  changes: Array<ZoneChangeInput> | ZoneChangeInput;
}>;

export type ApplyChangesMutation = {
  applyZoneChanges: {
    domain: { id: string; serial: number; recordCount: number } | null;
    change: {
      removedRecordIds: Array<string>;
      records: Array<{ id: string; owner: string; type: string; rdata: string; ttl: number }>;
    } | null;
  };
};

export type CreateRecordMutationVariables = Exact<{
  input: RecordInput;
}>;

export type CreateRecordMutation = {
  createRecord: {
    id: string;
    owner: string;
    type: string;
    rdata: string;
    ttl: number;
    domain: {
      id: string;
      serial: number;
      recordCount: number;
      soa: { id: string; owner: string; type: string; rdata: string; ttl: number } | null;
    };
  };
};

export type RemoveRecordMutationVariables = Exact<{
  id: string | number;
}>;

export type RemoveRecordMutation = {
  removeRecord: {
    id: string;
    domain: {
      id: string;
      serial: number;
      recordCount: number;
      soa: { id: string; owner: string; type: string; rdata: string; ttl: number } | null;
    } | null;
  };
};

export type ZoneChangedSubscriptionVariables = Exact<{
  zone: string;
}>;

export type ZoneChangedSubscription = {
  zoneChanged: {
    domain: { id: string; serial: number; recordCount: number } | null;
    change: { removedRecordIds: Array<string>; records: Array<{ id: string; owner: string; type: string; rdata: string; ttl: number }> };
  };
};

export type ZonePagesQueryVariables = Exact<{
  orderBy?: DomainOrder | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
}>;

export type ZonePagesQuery = {
  domains: {
    edges: Array<{ cursor: string; node: { id: string; name: string } }>;
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  };
};

export const ZoneDocument = {
  kind: 'Document',
  definitions: [
    {
      kind: 'OperationDefinition',
      operation: 'query',
      name: { kind: 'Name', value: 'Zone' },
      variableDefinitions: [
        {
          kind: 'VariableDefinition',
          variable: { kind: 'Variable', name: { kind: 'Name', value: 'name' } },
          type: { kind: 'NonNullType', type: { kind: 'NamedType', name: { kind: 'Name', value: 'String' } } },
        },
      ],
      selectionSet: {
        kind: 'SelectionSet',
        selections: [
          {
            kind: 'Field',
            name: { kind: 'Name', value: 'domain' },
            arguments: [
              {
                kind: 'Argument',
                name: { kind: 'Name', value: 'name' },
                value: { kind: 'Variable', name: { kind: 'Name', value: 'name' } },
              },
            ],
            selectionSet: {
              kind: 'SelectionSet',
              selections: [
                { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                { kind: 'Field', name: { kind: 'Name', value: 'name' } },
                { kind: 'Field', name: { kind: 'Name', value: 'serial' } },
                { kind: 'Field', name: { kind: 'Name', value: 'recordCount' } },
                {
                  kind: 'Field',
                  name: { kind: 'Name', value: 'records' },
                  selectionSet: {
                    kind: 'SelectionSet',
                    selections: [
                      { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'owner' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'type' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'rdata' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'ttl' } },
                    ],
                  },
                },
              ],
            },
          },
        ],
      },
    },
  ],
} as unknown as DocumentNode<ZoneQuery, ZoneQueryVariables>;
export const ApplyChangesDocument = {
  kind: 'Document',
  definitions: [
    {
      kind: 'OperationDefinition',
      operation: 'mutation',
      name: { kind: 'Name', value: 'ApplyChanges' },
      variableDefinitions: [
        {
          kind: 'VariableDefinition',
          variable: { kind: 'Variable', name: { kind: 'Name', value: 'zone' } },
          type: { kind: 'NonNullType', type: { kind: 'NamedType', name: { kind: 'Name', value: 'String' } } },
        },
        {
          kind: 'VariableDefinition',
          variable: { kind: 'Variable', name: { kind: 'Name', value: 'changes' } },
          type: {
            kind: 'NonNullType',
            type: {
              kind: 'ListType',
              type: { kind: 'NonNullType', type: { kind: 'NamedType', name: { kind: 'Name', value: 'ZoneChangeInput' } } },
            },
          },
        },
      ],
      selectionSet: {
        kind: 'SelectionSet',
        selections: [
          {
            kind: 'Field',
            name: { kind: 'Name', value: 'applyZoneChanges' },
            arguments: [
              {
                kind: 'Argument',
                name: { kind: 'Name', value: 'zone' },
                value: { kind: 'Variable', name: { kind: 'Name', value: 'zone' } },
              },
              {
                kind: 'Argument',
                name: { kind: 'Name', value: 'changes' },
                value: { kind: 'Variable', name: { kind: 'Name', value: 'changes' } },
              },
            ],
            selectionSet: {
              kind: 'SelectionSet',
              selections: [
                {
                  kind: 'Field',
                  name: { kind: 'Name', value: 'domain' },
                  selectionSet: {
                    kind: 'SelectionSet',
                    selections: [
                      { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'serial' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'recordCount' } },
                    ],
                  },
                },
                {
                  kind: 'Field',
                  name: { kind: 'Name', value: 'change' },
                  selectionSet: {
                    kind: 'SelectionSet',
                    selections: [
                      { kind: 'Field', name: { kind: 'Name', value: 'removedRecordIds' } },
                      {
                        kind: 'Field',
                        name: { kind: 'Name', value: 'records' },
                        selectionSet: {
                          kind: 'SelectionSet',
                          selections: [
                            { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'owner' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'type' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'rdata' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'ttl' } },
                          ],
                        },
                      },
                    ],
                  },
                },
              ],
            },
          },
        ],
      },
    },
  ],
} as unknown as DocumentNode<ApplyChangesMutation, ApplyChangesMutationVariables>;
export const CreateRecordDocument = {
  kind: 'Document',
  definitions: [
    {
      kind: 'OperationDefinition',
      operation: 'mutation',
      name: { kind: 'Name', value: 'CreateRecord' },
      variableDefinitions: [
        {
          kind: 'VariableDefinition',
          variable: { kind: 'Variable', name: { kind: 'Name', value: 'input' } },
          type: { kind: 'NonNullType', type: { kind: 'NamedType', name: { kind: 'Name', value: 'RecordInput' } } },
        },
      ],
      selectionSet: {
        kind: 'SelectionSet',
        selections: [
          {
            kind: 'Field',
            name: { kind: 'Name', value: 'createRecord' },
            arguments: [
              {
                kind: 'Argument',
                name: { kind: 'Name', value: 'input' },
                value: { kind: 'Variable', name: { kind: 'Name', value: 'input' } },
              },
            ],
            selectionSet: {
              kind: 'SelectionSet',
              selections: [
                { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                { kind: 'Field', name: { kind: 'Name', value: 'owner' } },
                { kind: 'Field', name: { kind: 'Name', value: 'type' } },
                { kind: 'Field', name: { kind: 'Name', value: 'rdata' } },
                { kind: 'Field', name: { kind: 'Name', value: 'ttl' } },
                {
                  kind: 'Field',
                  name: { kind: 'Name', value: 'domain' },
                  selectionSet: {
                    kind: 'SelectionSet',
                    selections: [
                      { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'serial' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'recordCount' } },
                      {
                        kind: 'Field',
                        name: { kind: 'Name', value: 'soa' },
                        selectionSet: {
                          kind: 'SelectionSet',
                          selections: [
                            { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'owner' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'type' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'rdata' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'ttl' } },
                          ],
                        },
                      },
                    ],
                  },
                },
              ],
            },
          },
        ],
      },
    },
  ],
} as unknown as DocumentNode<CreateRecordMutation, CreateRecordMutationVariables>;
export const RemoveRecordDocument = {
  kind: 'Document',
  definitions: [
    {
      kind: 'OperationDefinition',
      operation: 'mutation',
      name: { kind: 'Name', value: 'RemoveRecord' },
      variableDefinitions: [
        {
          kind: 'VariableDefinition',
          variable: { kind: 'Variable', name: { kind: 'Name', value: 'id' } },
          type: { kind: 'NonNullType', type: { kind: 'NamedType', name: { kind: 'Name', value: 'ID' } } },
        },
      ],
      selectionSet: {
        kind: 'SelectionSet',
        selections: [
          {
            kind: 'Field',
            name: { kind: 'Name', value: 'removeRecord' },
            arguments: [
              { kind: 'Argument', name: { kind: 'Name', value: 'id' }, value: { kind: 'Variable', name: { kind: 'Name', value: 'id' } } },
            ],
            selectionSet: {
              kind: 'SelectionSet',
              selections: [
                { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                {
                  kind: 'Field',
                  name: { kind: 'Name', value: 'domain' },
                  selectionSet: {
                    kind: 'SelectionSet',
                    selections: [
                      { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'serial' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'recordCount' } },
                      {
                        kind: 'Field',
                        name: { kind: 'Name', value: 'soa' },
                        selectionSet: {
                          kind: 'SelectionSet',
                          selections: [
                            { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'owner' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'type' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'rdata' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'ttl' } },
                          ],
                        },
                      },
                    ],
                  },
                },
              ],
            },
          },
        ],
      },
    },
  ],
} as unknown as DocumentNode<RemoveRecordMutation, RemoveRecordMutationVariables>;
export const ZoneChangedDocument = {
  kind: 'Document',
  definitions: [
    {
      kind: 'OperationDefinition',
      operation: 'subscription',
      name: { kind: 'Name', value: 'ZoneChanged' },
      variableDefinitions: [
        {
          kind: 'VariableDefinition',
          variable: { kind: 'Variable', name: { kind: 'Name', value: 'zone' } },
          type: { kind: 'NonNullType', type: { kind: 'NamedType', name: { kind: 'Name', value: 'String' } } },
        },
      ],
      selectionSet: {
        kind: 'SelectionSet',
        selections: [
          {
            kind: 'Field',
            name: { kind: 'Name', value: 'zoneChanged' },
            arguments: [
              {
                kind: 'Argument',
                name: { kind: 'Name', value: 'zone' },
                value: { kind: 'Variable', name: { kind: 'Name', value: 'zone' } },
              },
            ],
            selectionSet: {
              kind: 'SelectionSet',
              selections: [
                {
                  kind: 'Field',
                  name: { kind: 'Name', value: 'domain' },
                  selectionSet: {
                    kind: 'SelectionSet',
                    selections: [
                      { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'serial' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'recordCount' } },
                    ],
                  },
                },
                {
                  kind: 'Field',
                  name: { kind: 'Name', value: 'change' },
                  selectionSet: {
                    kind: 'SelectionSet',
                    selections: [
                      { kind: 'Field', name: { kind: 'Name', value: 'removedRecordIds' } },
                      {
                        kind: 'Field',
                        name: { kind: 'Name', value: 'records' },
                        selectionSet: {
                          kind: 'SelectionSet',
                          selections: [
                            { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'owner' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'type' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'rdata' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'ttl' } },
                          ],
                        },
                      },
                    ],
                  },
                },
              ],
            },
          },
        ],
      },
    },
  ],
} as unknown as DocumentNode<ZoneChangedSubscription, ZoneChangedSubscriptionVariables>;
export const ZonePagesDocument = {
  kind: 'Document',
  definitions: [
    {
      kind: 'OperationDefinition',
      operation: 'query',
      name: { kind: 'Name', value: 'ZonePages' },
      variableDefinitions: [
        {
          kind: 'VariableDefinition',
          variable: { kind: 'Variable', name: { kind: 'Name', value: 'orderBy' } },
          type: { kind: 'NamedType', name: { kind: 'Name', value: 'DomainOrder' } },
        },
        {
          kind: 'VariableDefinition',
          variable: { kind: 'Variable', name: { kind: 'Name', value: 'first' } },
          type: { kind: 'NamedType', name: { kind: 'Name', value: 'Int' } },
        },
        {
          kind: 'VariableDefinition',
          variable: { kind: 'Variable', name: { kind: 'Name', value: 'after' } },
          type: { kind: 'NamedType', name: { kind: 'Name', value: 'String' } },
        },
        {
          kind: 'VariableDefinition',
          variable: { kind: 'Variable', name: { kind: 'Name', value: 'last' } },
          type: { kind: 'NamedType', name: { kind: 'Name', value: 'Int' } },
        },
        {
          kind: 'VariableDefinition',
          variable: { kind: 'Variable', name: { kind: 'Name', value: 'before' } },
          type: { kind: 'NamedType', name: { kind: 'Name', value: 'String' } },
        },
      ],
      selectionSet: {
        kind: 'SelectionSet',
        selections: [
          {
            kind: 'Field',
            name: { kind: 'Name', value: 'domains' },
            arguments: [
              {
                kind: 'Argument',
                name: { kind: 'Name', value: 'orderBy' },
                value: { kind: 'Variable', name: { kind: 'Name', value: 'orderBy' } },
              },
              {
                kind: 'Argument',
                name: { kind: 'Name', value: 'first' },
                value: { kind: 'Variable', name: { kind: 'Name', value: 'first' } },
              },
              {
                kind: 'Argument',
                name: { kind: 'Name', value: 'after' },
                value: { kind: 'Variable', name: { kind: 'Name', value: 'after' } },
              },
              {
                kind: 'Argument',
                name: { kind: 'Name', value: 'last' },
                value: { kind: 'Variable', name: { kind: 'Name', value: 'last' } },
              },
              {
                kind: 'Argument',
                name: { kind: 'Name', value: 'before' },
                value: { kind: 'Variable', name: { kind: 'Name', value: 'before' } },
              },
            ],
            selectionSet: {
              kind: 'SelectionSet',
              selections: [
                {
                  kind: 'Field',
                  name: { kind: 'Name', value: 'edges' },
                  selectionSet: {
                    kind: 'SelectionSet',
                    selections: [
                      { kind: 'Field', name: { kind: 'Name', value: 'cursor' } },
                      {
                        kind: 'Field',
                        name: { kind: 'Name', value: 'node' },
                        selectionSet: {
                          kind: 'SelectionSet',
                          selections: [
                            { kind: 'Field', name: { kind: 'Name', value: 'id' } },
                            { kind: 'Field', name: { kind: 'Name', value: 'name' } },
                          ],
                        },
                      },
                    ],
                  },
                },
                {
                  kind: 'Field',
                  name: { kind: 'Name', value: 'pageInfo' },
                  selectionSet: {
                    kind: 'SelectionSet',
                    selections: [
                      { kind: 'Field', name: { kind: 'Name', value: 'hasNextPage' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'hasPreviousPage' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'startCursor' } },
                      { kind: 'Field', name: { kind: 'Name', value: 'endCursor' } },
                    ],
                  },
                },
              ],
            },
          },
        ],
      },
    },
  ],
} as unknown as DocumentNode<ZonePagesQuery, ZonePagesQueryVariables>;
