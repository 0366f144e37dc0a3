/**
 * dnstap's payloads (https://dnstap.info): a protocol buffers message, `dnstap.Dnstap`, decoded with protobufjs
 * from the schema of the dnstap project (dnstap.proto, public domain), kept here as the spec text it is. Only what
 * the query counts need is taken from a decoded message: the sender's identity, the message's type and time, and
 * from the DNS response it carries the question and the RCODE (RFC 1035 §4.1.1, §4.1.2).
 */
import protobuf from 'protobufjs';
import { OPCODE, opcodeOf } from '../dns/wire/message';
import { readName } from '../dns/wire/name';

/** the schema of dnstap.proto (the dnstap project's, field for field); comments ours */
const DNSTAP_PROTO = `
syntax = "proto2";
package dnstap;

message Dnstap {
  optional bytes identity = 1;   // the server's identity (its NSID, as a rule)
  optional bytes version = 2;    // the server's version string
  optional bytes extra = 3;      // free annotation
  enum Type { MESSAGE = 1; }
  required Type type = 15;
  optional Message message = 14;
}

enum SocketFamily { INET = 1; INET6 = 2; }
enum SocketProtocol { UDP = 1; TCP = 2; DOT = 3; DOH = 4; DNSCryptUDP = 5; DNSCryptTCP = 6; DOQ = 7; }
enum HttpProtocol { HTTP1 = 1; HTTP2 = 2; HTTP3 = 3; }

message Policy {
  enum Match { QNAME = 1; CLIENT_IP = 2; RESPONSE_IP = 3; NS_NAME = 4; NS_IP = 5; }
  enum Action { NXDOMAIN = 1; NODATA = 2; PASS = 3; DROP = 4; TRUNCATE = 5; LOCAL_DATA = 6; }
  optional string type = 1;
  optional bytes rule = 2;
  optional Action action = 3;
  optional Match match = 4;
  optional bytes value = 5;
}

message Message {
  enum Type {
    AUTH_QUERY = 1; AUTH_RESPONSE = 2; RESOLVER_QUERY = 3; RESOLVER_RESPONSE = 4;
    CLIENT_QUERY = 5; CLIENT_RESPONSE = 6; FORWARDER_QUERY = 7; FORWARDER_RESPONSE = 8;
    STUB_QUERY = 9; STUB_RESPONSE = 10; TOOL_QUERY = 11; TOOL_RESPONSE = 12;
    UPDATE_QUERY = 13; UPDATE_RESPONSE = 14;
  }
  required Type type = 1;
  optional SocketFamily socket_family = 2;
  optional SocketProtocol socket_protocol = 3;
  optional bytes query_address = 4;
  optional bytes response_address = 5;
  optional uint32 query_port = 6;
  optional uint32 response_port = 7;
  optional uint64 query_time_sec = 8;
  optional fixed32 query_time_nsec = 9;
  optional bytes query_message = 10;
  optional bytes query_zone = 11;
  optional uint64 response_time_sec = 12;
  optional fixed32 response_time_nsec = 13;
  optional bytes response_message = 14;
  optional Policy policy = 15;
  optional HttpProtocol http_protocol = 16;
}
`;

/** dnstap's Message.Type values */
export const MESSAGE_TYPE = {
  AUTH_QUERY: 1,
  AUTH_RESPONSE: 2,
  CLIENT_QUERY: 5,
  CLIENT_RESPONSE: 6,
} as const;

const root = protobuf.parse(DNSTAP_PROTO, { keepCase: true }).root;
const DnstapType = root.lookupType('dnstap.Dnstap');

/** a uint64 as protobufjs hands it: a number, or a Long where the `long` package is installed */
type Uint64 = number | { toNumber(): number } | null | undefined;
const numberOf = (value: Uint64): number | undefined =>
  value === null || value === undefined ? undefined : typeof value === 'number' ? value : value.toNumber();

interface DecodedDnstap {
  identity?: Uint8Array;
  type: number;
  message?: {
    type: number;
    query_time_sec?: Uint64;
    query_time_nsec?: number;
    query_message?: Uint8Array;
    response_time_sec?: Uint64;
    response_time_nsec?: number;
    response_message?: Uint8Array;
  };
}

/** A response a server sent, as counted: its question, its RCODE, when it was sent and by whom. */
export interface AnsweredQuery {
  /** the sender's identity (dnstap's `identity`, BIND's and Knot's server-id), if it sends one */
  identity: string | undefined;
  /** the question's name, lower case, absolute (`www.example.com.`) */
  name: string;
  /** the question's type code */
  type: number;
  /** the header's RCODE (RFC 1035 §4.1.1) */
  rcode: number;
  /** when the response was sent (ms since the epoch; the query's time if the sender gave no response time) */
  at: number;
}

/** What one dnstap payload is to the counts. */
export type DnstapReading =
  | { kind: 'answer'; answer: AnsweredQuery }
  /** a query, a resolver's message, the answer to a NOTIFY or an UPDATE: not an answer to a query, so not counted */
  | { kind: 'other'; identity: string | undefined }
  /** not a dnstap message, or a response without a readable question */
  | { kind: 'malformed'; identity: string | undefined; reason: string };

/** the responses a server sends its queriers: an authoritative server's, or a front end's (Knot, dnsdist) */
const ANSWER_TYPES = new Set<number>([MESSAGE_TYPE.AUTH_RESPONSE, MESSAGE_TYPE.CLIENT_RESPONSE]);

/** Reads one dnstap payload (a Frame Streams data frame of `protobuf:dnstap.Dnstap`). */
export function readDnstap(payload: Uint8Array): DnstapReading {
  let decoded: DecodedDnstap;
  try {
    decoded = DnstapType.decode(payload) as unknown as DecodedDnstap;
  } catch (error) {
    return { kind: 'malformed', identity: undefined, reason: `not a dnstap message: ${(error as Error).message}` };
  }
  const identity = decoded.identity?.length ? Buffer.from(decoded.identity).toString('utf8') : undefined;
  const message = decoded.message;
  if (!message || !ANSWER_TYPES.has(message.type)) return { kind: 'other', identity };
  const wire = message.response_message;
  if (!wire || wire.length < 12) return { kind: 'malformed', identity, reason: 'a response without its DNS message' };
  const response = Buffer.from(wire.buffer, wire.byteOffset, wire.length);
  // the answer to a NOTIFY (RFC 1996) or an UPDATE (RFC 2136) names the zone in its question but asked for nothing
  if (opcodeOf(response.readUInt16BE(2)) !== OPCODE.QUERY) return { kind: 'other', identity };
  if (response.readUInt16BE(4) < 1) return { kind: 'malformed', identity, reason: 'a response without a question' };
  let question: { name: string; octets: number };
  try {
    question = readName(response, 12);
  } catch (error) {
    return { kind: 'malformed', identity, reason: (error as Error).message };
  }
  if (12 + question.octets + 4 > response.length) return { kind: 'malformed', identity, reason: 'a question cut short' };
  const seconds = numberOf(message.response_time_sec) ?? numberOf(message.query_time_sec);
  const nanoseconds = message.response_time_sec != null ? message.response_time_nsec : message.query_time_nsec;
  return {
    kind: 'answer',
    answer: {
      identity,
      name: question.name.toLowerCase(),
      type: response.readUInt16BE(12 + question.octets),
      rcode: response.readUInt16BE(2) & 0xf,
      at: seconds === undefined ? Date.now() : seconds * 1000 + Math.floor((nanoseconds ?? 0) / 1e6),
    },
  };
}

/** What a dnstap payload is made from, for a sender written here (the tests' and the bench's generator). */
export interface DnstapMessageFields {
  identity?: string;
  type: number;
  queryTimeSec?: number;
  responseTimeSec?: number;
  responseTimeNsec?: number;
  queryMessage?: Buffer;
  responseMessage?: Buffer;
}

/** Encodes one dnstap payload, as a server sends it. */
export function encodeDnstap(fields: DnstapMessageFields): Buffer {
  const message = DnstapType.create({
    identity: fields.identity === undefined ? undefined : Buffer.from(fields.identity, 'utf8'),
    type: 1,
    message: {
      type: fields.type,
      socket_family: 1,
      socket_protocol: 1,
      query_time_sec: fields.queryTimeSec,
      query_message: fields.queryMessage,
      response_time_sec: fields.responseTimeSec,
      response_time_nsec: fields.responseTimeNsec,
      response_message: fields.responseMessage,
    },
  });
  return Buffer.from(DnstapType.encode(message).finish());
}
