/**
 * The mnemonic and code of every type the model knows (IANA's «Resource Record (RR) TYPEs» registry, RFC 6895
 * §3.1): the types of the registry (index.ts), the flattened ALIAS and ANAME, and the signer's own (RRSIG, NSEC,
 * NSEC3, NSEC3PARAM). RDATA that names a type (an RRSIG's type covered, an NSEC's bitmap, DSYNC's RRtype) reads
 * and writes it through this table, which imports nothing: a type's file cannot import the registry that holds
 * it. Each definition's own `code` is this table's (test/dns/record-type-codes.test.ts holds the two equal).
 */
export const TYPE_CODES: Readonly<Record<string, number>> = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  HINFO: 13,
  MX: 15,
  TXT: 16,
  RP: 17,
  AAAA: 28,
  LOC: 29,
  SRV: 33,
  NAPTR: 35,
  CERT: 37,
  DNAME: 39,
  APL: 42,
  DS: 43,
  SSHFP: 44,
  IPSECKEY: 45,
  RRSIG: 46,
  NSEC: 47,
  DNSKEY: 48,
  DHCID: 49,
  NSEC3: 50,
  NSEC3PARAM: 51,
  TLSA: 52,
  SMIMEA: 53,
  CDS: 59,
  CDNSKEY: 60,
  OPENPGPKEY: 61,
  ZONEMD: 63,
  SVCB: 64,
  HTTPS: 65,
  DSYNC: 66,
  SPF: 99,
  NID: 104,
  L32: 105,
  L64: 106,
  LP: 107,
  EUI48: 108,
  EUI64: 109,
  URI: 256,
  CAA: 257,
  ANAME: 65305,
  ALIAS: 65401,
};

const MNEMONICS = new Map(Object.entries(TYPE_CODES).map(([name, code]) => [code, name]));

/** the mnemonic of a type code: the model's name, or RFC 3597's TYPEnnn for another */
export const typeMnemonicOf = (code: number): string => MNEMONICS.get(code) ?? `TYPE${code}`;

/** the code of a mnemonic the model knows (upper case), undefined for another */
export const typeCodeOf = (name: string): number | undefined => (Object.hasOwn(TYPE_CODES, name) ? TYPE_CODES[name] : undefined);
