/**
 * One request to the hidden primary and its answers (server.ts decides what they say): the request read
 * (header, question, OPT, an UPDATE's sections), and the answers written as it asks — its id and RD echoed,
 * the OPT when it sent one or an Extended DNS Error has to be carried, TSIG-signed when it was signed (each
 * message of a transfer chained to the one before, RFC 8945 §5.3.1), cut to its UDP payload size.
 */
import {
  FLAG,
  MessageWriter,
  OutgoingRecord,
  RCODE_FORMERR,
  RCODE_NOTAUTH,
  readWireMessage,
  signMessage,
  TYPE_OPT,
  typeMnemonic,
  WireMessage,
  WireQuestion,
} from '../dns/wire';
import type { TsigKey } from '../dns/wire/tsig';
import { ExtendedError, extendedErrorOption } from '../dns/extended-error';
import { dnsQueries } from '../metrics';
import { readUpdate } from './update';

export const RCODE = {
  NOERROR: 0,
  FORMERR: RCODE_FORMERR,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  NOTAUTH: RCODE_NOTAUTH,
} as const;
export const OPCODE_QUERY = 0;
/** RFC 1996 §3 */
export const OPCODE_NOTIFY = 4;
/** RFC 2136 §1 */
export const OPCODE_UPDATE = 5;
const { QR: FLAG_QR, TC: FLAG_TC, RD: FLAG_RD } = FLAG;
const UDP_DEFAULT = 512;
const UDP_MAX = 1232;
/** the DO bit of an OPT record's flags (RFC 3225 §3, RFC 6891 §6.1.4) */
const EDNS_DO = 0x8000;

export interface Reply {
  rcode: number;
  flags?: number;
  answers?: OutgoingRecord[];
  authorities?: OutgoingRecord[];
  /** the additional section's records (addresses of targets, glue), before the OPT */
  additionals?: OutgoingRecord[];
  /** the additionals are glue a referral needs: if they do not fit, truncate rather than leave them out (RFC 9471 §3) */
  glueRequired?: boolean;
  /** TSIG error to report (NOTAUTH answers) */
  tsigError?: number;
  /** why the answer is an error, in words (RFC 8914) */
  ede?: ExtendedError;
}

const RCODE_NAMES = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
];
export const rcodeName = (rcode: number) => RCODE_NAMES[rcode] ?? String(rcode);
/** the question type as a metric label: a mnemonic the model knows, else OTHER (a bounded set of labels) */
const qtypeLabel = (qtype: string) => (/^[A-Z][A-Z0-9]{0,9}$/.test(qtype) && !/^TYPE[0-9]+$/.test(qtype) ? qtype : 'OTHER');

/** Signs a sequence of messages: the first with the request MAC, the next ones chained (RFC 8945 §5.3.1) */
export class Signer {
  private prior: Buffer | undefined;
  constructor(
    private readonly key: TsigKey | undefined,
    private readonly requestMac: Buffer | undefined,
  ) {}
  get active(): boolean {
    return Boolean(this.key && this.requestMac);
  }
  sign(message: Buffer): Buffer {
    if (!this.key || !this.requestMac) return message;
    const signed = this.prior
      ? signMessage(message, this.key, { priorMac: this.prior })
      : signMessage(message, this.key, { requestMac: this.requestMac });
    this.prior = signed.mac;
    return signed.message;
  }
}

/** a request as read: `framed` is the message whole (absent for an UPDATE that does not parse as one) */
export interface DnsRequest {
  id: number;
  flags: number;
  opcode: number;
  framed?: WireMessage;
  question?: WireQuestion;
  /** the requestor takes DNSSEC records (DO, RFC 3225 §3): answers then carry RRSIGs, and the bit is copied back */
  dnssecOk: boolean;
  hasOpt: boolean;
  /** the most octets an answer over UDP may take */
  udpLimit: number;
  /** an UPDATE's sections as update.ts reads them: present exactly when the opcode is UPDATE */
  update?: ReturnType<typeof readUpdate>;
}

/**
 * Reads a request message (not a response: the caller checks QR); undefined when it is no DNS message at all,
 * which is answered with a bare FORMERR header (`formerrHeader`).
 */
export function readRequest(raw: Buffer): DnsRequest | undefined {
  const id = raw.readUInt16BE(0);
  const flags = raw.readUInt16BE(2);
  const opcode = (flags >> 11) & 0xf;
  let framed: WireMessage | undefined;
  try {
    framed = readWireMessage(raw);
  } catch {
    framed = undefined;
  }
  let question: WireQuestion | undefined;
  let update: ReturnType<typeof readUpdate> | undefined;
  if (opcode === OPCODE_UPDATE) {
    // UPDATE's records of CLASS ANY/NONE have empty RDATA (RFC 2136 §2.5.2): update.ts reads them by section
    update = readUpdate(raw, framed);
    question = update.ok ? update.message.questions[0] : undefined;
  } else {
    if (!framed) return undefined;
    question = framed.questions[0];
  }
  const requestOpt = framed?.additionals.find((r) => r.type === TYPE_OPT);
  const dnssecOk = opcode === OPCODE_QUERY && Boolean(requestOpt && requestOpt.ttl & EDNS_DO);
  const hasOpt = Boolean(requestOpt) && (opcode !== OPCODE_UPDATE || Boolean(update?.ok));
  // the OPT's CLASS is the requestor's UDP payload size (RFC 6891 §6.2.3), held between 512 and our maximum
  const udpLimit = opcode !== OPCODE_UPDATE && requestOpt ? Math.min(Math.max(requestOpt.klass, UDP_DEFAULT), UDP_MAX) : UDP_DEFAULT;
  return { id, flags, opcode, framed, question, dnssecOk, hasOpt, udpLimit, update };
}

/** the bare header answering a message that is no DNS message: its id, FORMERR */
export function formerrHeader(raw: Buffer): Buffer {
  const b = Buffer.alloc(12);
  b.writeUInt16BE(raw.readUInt16BE(0), 0);
  b.writeUInt16BE(FLAG_QR | (raw.readUInt16BE(2) & 0x7900) | (RCODE.FORMERR & 0xf), 2);
  return b;
}

/**
 * One request and its answers. An answer with an error carries an Extended DNS Error (RFC 8914) saying why.
 * RFC 6891 §7 would leave the OPT out when the request had none, but the clients that send UPDATEs (nsupdate,
 * dnspython under certbot, miekg/dns under lego) send none, and would then get a bare REFUSED; they all read an
 * OPT in any answer, so error answers carry one regardless (docs/dns-known-differences.md).
 */
export class Exchange {
  /** the request's TSIG signer once it verified (`signWith`); until then answers go unsigned */
  private signer = new Signer(undefined, undefined);
  private counted = false;

  constructor(
    readonly raw: Buffer,
    readonly request: DnsRequest,
    readonly remote: string,
    readonly transport: 'udp' | 'tcp',
    private readonly send: (message: Buffer) => Promise<void>,
  ) {}

  signWith(signer: Signer): void {
    this.signer = signer;
  }

  /** a response's header and question; its records follow, then `end` */
  start(reply: Reply, withQuestion = true): MessageWriter {
    const { id, flags, opcode, question } = this.request;
    // one count per query, whatever the number of messages its answer takes (a transfer, a retry with TC)
    if (opcode === OPCODE_QUERY && question && !this.counted) {
      this.counted = true;
      dnsQueries.inc({ qtype: qtypeLabel(typeMnemonic(question.type)), rcode: rcodeName(reply.rcode) });
    }
    const writer = new MessageWriter({
      id,
      flags: FLAG_QR | (opcode << 11) | (reply.flags ?? 0) | (flags & FLAG_RD) | (reply.rcode & 0xf),
    });
    if (withQuestion && question) writer.question(question);
    return writer;
  }

  /** the additional section and the OPT (RFC 6891 §6.1.1: the requestor's, or an EDE to carry) */
  end(writer: MessageWriter, reply: Reply): Buffer {
    for (const record of reply.additionals ?? []) writer.record('additional', record);
    const options = reply.ede && reply.rcode !== RCODE.NOERROR ? [extendedErrorOption(reply.ede)] : [];
    if (this.request.hasOpt || options.length)
      writer.edns({ udpPayloadSize: UDP_MAX, extendedRcode: 0, version: 0, flags: this.request.dnssecOk ? EDNS_DO : 0, options });
    return writer.finish();
  }

  /** a whole answer of one message, unsigned */
  build(reply: Reply, withQuestion = true): Buffer {
    const writer = this.start(reply, withQuestion);
    for (const record of reply.answers ?? []) writer.record('answer', record);
    for (const record of reply.authorities ?? []) writer.record('authority', record);
    return this.end(writer, reply);
  }

  /** an answer sent before (or without) the request's TSIG verifying: unsigned */
  unsigned(reply: Reply): Promise<void> {
    return this.send(this.build(reply));
  }

  /** a message sent as it is (a TSIG error, signed its own way) */
  sendAsIs(message: Buffer): Promise<void> {
    return this.send(message);
  }

  /** one message of an answer of several (a transfer), signed in the chain */
  sendSigned(message: Buffer): Promise<void> {
    return this.send(this.signer.sign(message));
  }

  /**
   * The answer in one message, signed when the request was: over UDP without the additional section's courtesy
   * addresses when they do not fit, truncated (TC) when the rest does not.
   */
  readonly reply = async (r: Reply): Promise<void> => {
    const overUdp = this.transport === 'udp';
    let message = this.signer.sign(this.build(r));
    if (overUdp && message.length > this.request.udpLimit && r.additionals?.length && !r.glueRequired) {
      // addresses of targets are a courtesy (RFC 2181 §9: no TC for the additional section)
      message = this.signer.sign(this.build({ ...r, additionals: [] }));
    }
    if (overUdp && message.length > this.request.udpLimit) {
      message = this.signer.sign(this.build({ rcode: r.rcode, flags: (r.flags ?? 0) | FLAG_TC }));
    }
    await this.send(message);
  };
}
