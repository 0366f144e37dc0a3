/** The registry of supported record types. Adding a type: one file in this folder + one line below. */
import { A } from './a';
import { ALIAS } from './alias';
import { ANAME } from './aname';
import { APL } from './apl';
import { CERT } from './cert';
import { DHCID } from './dhcid';
import { EUI48 } from './eui48';
import { EUI64 } from './eui64';
import { HINFO } from './hinfo';
import { IPSECKEY } from './ipseckey';
import { L32 } from './l32';
import { L64 } from './l64';
import { LOC } from './loc';
import { LP } from './lp';
import { NID } from './nid';
import { OPENPGPKEY } from './openpgpkey';
import { RP } from './rp';
import { SMIMEA } from './smimea';
import { URI } from './uri';
import { AAAA } from './aaaa';
import { CAA } from './caa';
import { CDNSKEY } from './cdnskey';
import { CDS } from './cds';
import { CNAME } from './cname';
import { DNAME } from './dname';
import { DNSKEY } from './dnskey';
import { DS } from './ds';
import { DSYNC } from './dsync';
import { genericType, isDataTypeCode } from './generic';
import { HTTPS } from './https';
import { MX } from './mx';
import { NAPTR } from './naptr';
import { NS } from './ns';
import { PTR } from './ptr';
import { RecordTypeDefinition } from './record-type';
import { SOA } from './soa';
import { SPF } from './spf';
import { SRV } from './srv';
import { SSHFP } from './sshfp';
import { SVCB } from './svcb';
import { TLSA } from './tlsa';
import { TXT } from './txt';
import { ZONEMD } from './zonemd';
import { SIGNER_RECORD_TYPES } from './signer-types';
import { typeMnemonicOf } from './type-codes';

export type { RecordTypeDefinition, ParseResult, RecordFieldInfo } from './record-type';

const RECORD_TYPES: RecordTypeDefinition[] = [
  A,
  AAAA,
  APL,
  CAA,
  CDNSKEY,
  CDS,
  CERT,
  CNAME,
  DHCID,
  DNAME,
  DNSKEY,
  DS,
  DSYNC,
  EUI48,
  EUI64,
  HINFO,
  HTTPS,
  IPSECKEY,
  L32,
  L64,
  LOC,
  LP,
  MX,
  NAPTR,
  NID,
  NS,
  OPENPGPKEY,
  PTR,
  RP,
  SMIMEA,
  SOA,
  SPF,
  SRV,
  SSHFP,
  SVCB,
  TLSA,
  TXT,
  URI,
  ZONEMD,
];

/**
 * Types a client stores that are never served: the service flattens them into A and AAAA at their owner
 * (docs/templates-and-alias.md). Found by getRecordType (the APIs, zone files and DNS UPDATE take them), kept
 * out of listRecordTypes (the served types, which BIND and Knot cross-check) and out of every served answer.
 */
const FLATTENED_TYPES: RecordTypeDefinition[] = [ALIAS, ANAME];
export const FLATTENED_TYPE_NAMES: ReadonlySet<string> = new Set(FLATTENED_TYPES.map((t) => t.type));

const BY_NAME = new Map([...RECORD_TYPES, ...FLATTENED_TYPES].map((t) => [t.type, t]));
const BY_CODE = new Map([...RECORD_TYPES, ...FLATTENED_TYPES].map((t) => [t.code, t]));

/**
 * case-insensitive look-up by mnemonic ('mx', 'MX'), or `TYPEnnn` (RFC 3597 §5): a known code gives its
 * type, any other code that can be zone data gives the generic type stored as `TYPEnnn \# len hex`
 */
export function getRecordType(type: string): RecordTypeDefinition | undefined {
  const name = String(type ?? '')
    .trim()
    .toUpperCase();
  const known = BY_NAME.get(name);
  if (known) return known;
  const m = /^TYPE([0-9]{1,5})$/.exec(name);
  if (!m) return undefined;
  const code = Number(m[1]);
  return BY_CODE.get(code) ?? (isDataTypeCode(code) ? genericType(code) : undefined);
}

/** every supported type, sorted by mnemonic */
export function listRecordTypes(): RecordTypeDefinition[] {
  return [...RECORD_TYPES];
}

const SIGNER_BY_NAME = new Map(SIGNER_RECORD_TYPES.map((t) => [t.type, t]));

/**
 * A type the primary serves: the registry's, or one only the signer writes (signer-types.ts). Never used to
 * read what a client sends: clients cannot store signer types. A row stored as `TYPEnnn` was stored before the
 * model had a file for its code (what is written now is stored by its mnemonic): it is served octet for octet as
 * it was written then, in RFC 3597's generic form, even where its type's own reader would now refuse it (DSYNC
 * data taken before RFC 9859's type was read).
 */
export function getServedRecordType(type: string): RecordTypeDefinition | undefined {
  const stored = /^TYPE([0-9]{1,5})$/.exec(type);
  if (stored && isDataTypeCode(Number(stored[1]))) return genericType(Number(stored[1]));
  return SIGNER_BY_NAME.get(type) ?? getRecordType(type);
}

/** the mnemonic of a type code: the model's name, the signer's, or RFC 3597's TYPEnnn */
export const typeMnemonic = typeMnemonicOf;
