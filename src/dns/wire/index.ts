/**
 * The wire module: everything of the DNS model that is octets on the wire. Names (name.ts: the one codec,
 * compression, the canonical form), RDATA (reader.ts, writer.ts and each record type's `fromWire`/`toWire`),
 * the RFC lists of which RDATA names compress and which fold (rules.ts), messages (message.ts: header,
 * sections, EDNS), the canonical forms DNSSEC signs (canonical.ts) and TSIG (tsig.ts).
 */
export { WireFormatError } from './errors';
export { canonicalNameWire, lowercaseLabel, nameToWire, nameWireLength, readName, wireLabels } from './name';
export { RdataReader } from './reader';
export { WireWriter } from './writer';
export type { NameRules } from './writer';
export { COMPRESSIBLE_RDATA_TYPES, LOWERCASED_RDATA_TYPES } from './rules';
export {
  CLASS,
  classMnemonic,
  EDNS_DO,
  encodeMessage,
  FLAG,
  MessageWriter,
  OPCODE,
  opcodeOf,
  outgoingRecord,
  presentedRdata,
  readEdns,
  readRdata,
  readWireMessage,
  TYPE_OPT,
  typedRdata,
  typeMnemonic,
} from './message';
export type {
  Edns,
  EdnsOption,
  OutgoingMessage,
  OutgoingRdata,
  OutgoingRecord,
  Section,
  WireMessage,
  WireQuestion,
  WireRecord,
} from './message';
export { canonicalRecordWire, canonicalRRsetOrder, compareCanonicalNames, rdataToWire } from './canonical';
export * from './tsig';
