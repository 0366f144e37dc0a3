/**
 * The DNS edge of UPDATE (RFC 2136): reads the message (RFC 2136 §2: zone, prerequisite and update sections,
 * §3.1–§3.4.1 checks of form) into a `DnsUpdateRequest` in presentation form for DnsUpdatesService, and turns
 * the service's answer into an RCODE. No rule of the zone is decided here.
 */
import { getRecordType } from '../dns/record-types';
import { isDataTypeCode, SIGNER_TYPE_CODES } from '../dns/record-types/generic';
import { presentedRdata, readWireMessage, WireFormatError, WireMessage } from '../dns/wire';
import { DomainError } from '../errors/catalogue';
import type { DnsUpdateRequest, UpdateOperation, UpdatePrerequisite } from '../services/transfers/dns-updates.service';

/** RFC 1035 §4.1.1, RFC 2136 §2.2 */
export const UPDATE_RCODE = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  YXDOMAIN: 6,
  YXRRSET: 7,
  NXRRSET: 8,
  NOTAUTH: 9,
  NOTZONE: 10,
} as const;
const CLASS_IN = 1;
const CLASS_NONE = 254;
const CLASS_ANY = 255;
const TYPE_SOA = 6;
const TYPE_ANY = 255;
/**
 * Meta and query types (OPT, TSIG, IXFR, AXFR, MAILB, MAILA, ANY…: RFC 2136 §3.4.1.2, FORMERR in an update):
 * what the model says is not zone data, the signer's types aside (those are data, just not taken here)
 */
const isMetaType = (code: number) => !isDataTypeCode(code) && !SIGNER_TYPE_CODES.has(code);

export type ReadUpdate = { ok: true; message: WireMessage; request: DnsUpdateRequest } | { ok: false; rcode: number; reason: string };

const refuse = (rcode: number, reason: string): ReadUpdate => ({ ok: false, rcode, reason });

/** the mnemonic the model uses for a type code (`TYPEnnn` when it has none) */
function typeName(code: number): string {
  return getRecordType(`TYPE${code}`)?.type ?? `TYPE${code}`;
}

/**
 * Reads an UPDATE message; on a malformed one, the RCODE to answer (FORMERR, or REFUSED for a type not taken).
 * `framed` is the message as the exchange already framed it, when it could: framing is a third of the reading
 * of 1,000 RRs, and was done twice.
 */
export function readUpdate(raw: Buffer, framed?: WireMessage): ReadUpdate {
  let message: WireMessage;
  try {
    message = framed ?? readWireMessage(raw);
  } catch (error) {
    return refuse(UPDATE_RCODE.FORMERR, (error as Error).message);
  }
  // §3.1.1: exactly one zone, of type SOA
  const [zone] = message.questions;
  if (message.questions.length !== 1 || zone.type !== TYPE_SOA)
    return refuse(UPDATE_RCODE.FORMERR, 'the zone section must hold one SOA question');
  if (zone.klass !== CLASS_IN) return refuse(UPDATE_RCODE.NOTAUTH, 'only class IN zones are served');
  try {
    const prerequisites: UpdatePrerequisite[] = [];
    for (const rr of message.answers) {
      // §3.2.1: TTL 0; ANY and NONE carry no RDATA
      if (rr.ttl !== 0) return refuse(UPDATE_RCODE.FORMERR, 'a prerequisite has a TTL');
      if (rr.klass === CLASS_ANY || rr.klass === CLASS_NONE) {
        if (rr.rdataLength !== 0) return refuse(UPDATE_RCODE.FORMERR, 'a class ANY/NONE prerequisite has RDATA');
        const inUse = rr.klass === CLASS_ANY;
        if (rr.type === TYPE_ANY) prerequisites.push({ kind: inUse ? 'NAME_IN_USE' : 'NAME_NOT_IN_USE', name: rr.name });
        else prerequisites.push({ kind: inUse ? 'RRSET_EXISTS' : 'RRSET_DOES_NOT_EXIST', name: rr.name, type: typeName(rr.type) });
      } else if (rr.klass === CLASS_IN) {
        const presented = presentedRdata(raw, rr);
        if ('unsupported' in presented) return refuse(UPDATE_RCODE.REFUSED, `${presented.unsupported} RDATA is not taken over UPDATE`);
        prerequisites.push({ kind: 'RRSET_EQUALS', name: rr.name, type: typeName(rr.type), rdata: presented.rdata });
      } else {
        return refuse(UPDATE_RCODE.FORMERR, `a prerequisite of class ${rr.klass}`);
      }
    }
    const updates: UpdateOperation[] = [];
    for (const rr of message.authorities) {
      // §3.4.1.2: meta types never; ANY only to delete every RRset of a name
      if (isMetaType(rr.type) && !(rr.type === TYPE_ANY && rr.klass === CLASS_ANY))
        return refuse(UPDATE_RCODE.FORMERR, `an update of type ${rr.type}`);
      if (rr.klass === CLASS_IN) {
        const presented = presentedRdata(raw, rr);
        if ('unsupported' in presented) return refuse(UPDATE_RCODE.REFUSED, `${presented.unsupported} RDATA is not taken over UPDATE`);
        updates.push({ kind: 'ADD', name: rr.name, type: typeName(rr.type), rdata: presented.rdata, ttl: rr.ttl });
      } else if (rr.klass === CLASS_ANY) {
        if (rr.ttl !== 0 || rr.rdataLength !== 0) return refuse(UPDATE_RCODE.FORMERR, 'a class ANY update has a TTL or RDATA');
        updates.push(
          rr.type === TYPE_ANY ? { kind: 'DELETE_NAME', name: rr.name } : { kind: 'DELETE_RRSET', name: rr.name, type: typeName(rr.type) },
        );
      } else if (rr.klass === CLASS_NONE) {
        if (rr.ttl !== 0) return refuse(UPDATE_RCODE.FORMERR, 'a class NONE update has a TTL');
        const presented = presentedRdata(raw, rr);
        if ('unsupported' in presented) return refuse(UPDATE_RCODE.REFUSED, `${presented.unsupported} RDATA is not taken over UPDATE`);
        updates.push({ kind: 'DELETE_RR', name: rr.name, type: typeName(rr.type), rdata: presented.rdata });
      } else {
        return refuse(UPDATE_RCODE.FORMERR, `an update of class ${rr.klass}`);
      }
    }
    return { ok: true, message, request: { zone: zone.name, prerequisites, updates } };
  } catch (error) {
    if (error instanceof WireFormatError) return refuse(UPDATE_RCODE.FORMERR, error.message);
    throw error;
  }
}

/**
 * The RCODE of a refused update: a failed prerequisite its own (§3.2), a name outside the zone NOTZONE, a zone
 * the key may not update NOTAUTH (§3.1.1), a record or change the model refuses REFUSED; undefined for
 * anything else (the database: SERVFAIL).
 */
export function updateRcodeOf(error: unknown): number | undefined {
  if (!(error instanceof DomainError)) return undefined;
  switch (error.code) {
    case 'UPDATE_PREREQUISITE_FAILED':
      return UPDATE_RCODE[error.details[0]?.code as 'YXDOMAIN' | 'NXDOMAIN' | 'YXRRSET' | 'NXRRSET'] ?? UPDATE_RCODE.NXRRSET;
    case 'NAME_NOT_IN_ZONE':
      return UPDATE_RCODE.NOTZONE;
    case 'ZONE_NOT_FOUND':
    case 'INVALID_ZONE_NAME':
      return UPDATE_RCODE.NOTAUTH;
    case 'DATABASE_UNAVAILABLE':
    case 'INTERNAL':
      return undefined;
    default:
      return UPDATE_RCODE.REFUSED;
  }
}
