/** The registry of supported record types. Adding a type: one file in this folder + one line below. */
import { A } from './a';
import { AAAA } from './aaaa';
import { CAA } from './caa';
import { CNAME } from './cname';
import { DNAME } from './dname';
import { DS } from './ds';
import { HTTPS } from './https';
import { MX } from './mx';
import { NAPTR } from './naptr';
import { NS } from './ns';
import { PTR } from './ptr';
import { RecordTypeDefinition } from './record-type';
import { SOA } from './soa';
import { SRV } from './srv';
import { SSHFP } from './sshfp';
import { SVCB } from './svcb';
import { TLSA } from './tlsa';
import { TXT } from './txt';

export type { RecordTypeDefinition, ParseResult, RecordFieldInfo } from './record-type';

const RECORD_TYPES: RecordTypeDefinition[] = [
  A, AAAA, CAA, CNAME, DNAME, DS, HTTPS, MX, NAPTR, NS, PTR, SOA, SRV, SSHFP, SVCB, TLSA, TXT,
];

const BY_NAME = new Map(RECORD_TYPES.map((t) => [t.type, t]));

/** case-insensitive look-up by mnemonic ('mx', 'MX') */
export function getRecordType(type: string): RecordTypeDefinition | undefined {
  return BY_NAME.get(String(type ?? '').trim().toUpperCase());
}

/** every supported type, sorted by mnemonic */
export function listRecordTypes(): RecordTypeDefinition[] {
  return [...RECORD_TYPES];
}
