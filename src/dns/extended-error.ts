/**
 * Extended DNS Errors (RFC 8914): an EDNS option (OPTION-CODE 15) that says in words why an answer is an
 * error. The INFO-CODEs the primary answers with (RFC 8914 §4), and the option's code and data, which the wire module's message writer puts in the OPT record
 * (src/dns/wire/message.ts).
 */
export const EDE_OPTION_CODE = 15;

export const EDE = {
  /** §4.1: none of the others fits; the text says what happened */
  OTHER: 0,
  /** §4.15: the server cannot answer yet (for us: what it would transfer is not yet on the database's standby) */
  NOT_READY: 14,
  /** §4.19: the request is not allowed (address not in an allow-list, key not allowed, …) */
  PROHIBITED: 18,
  /** §4.21: the name is not in a zone this server serves */
  NOT_AUTHORITATIVE: 20,
  /** §4.22: the operation or opcode is not supported */
  NOT_SUPPORTED: 21,
  /** §4.24: the server cannot reach what it needs to answer (for us: the database) */
  NETWORK_ERROR: 23,
} as const;

export interface ExtendedError {
  code: number;
  text: string;
}

/**
 * EXTRA-TEXT is kept short: an error answer must still fit in 512 octets over UDP without EDNS, and a reason
 * in words needs no more (§2: UTF-8, not NUL-terminated).
 */
const MAX_TEXT_OCTETS = 300;

/** the option's wire form: INFO-CODE (16 bits), then EXTRA-TEXT (RFC 8914 §2) */
export function extendedErrorOption(error: ExtendedError): { code: number; data: Buffer } {
  const code = Buffer.alloc(2);
  code.writeUInt16BE(error.code, 0);
  let text = Buffer.from(error.text, 'utf8');
  if (text.length > MAX_TEXT_OCTETS) {
    // cut on a character boundary, and say that it was cut
    text = Buffer.from(
      `${Buffer.from(error.text, 'utf8')
        .subarray(0, MAX_TEXT_OCTETS - 3)
        .toString('utf8')
        .replace(/\uFFFD$/, '')}...`,
      'utf8',
    );
  }
  return { code: EDE_OPTION_CODE, data: Buffer.concat([code, text]) };
}

/** reads an EDE option back (INFO-CODE and text), for clients and tests */
export function readExtendedError(data: Buffer): ExtendedError | undefined {
  if (data.length < 2) return undefined;
  return { code: data.readUInt16BE(0), text: data.subarray(2).toString('utf8') };
}
