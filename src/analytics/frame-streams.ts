/**
 * Frame Streams (the transport of dnstap, https://farsightsec.github.io/fstrm/): a stream of frames, each a
 * 32-bit big-endian length and that many octets. A length of 0 escapes a control frame: its own 32-bit length,
 * then a 32-bit control type and its fields (a 32-bit field type, a 32-bit length, the value). The one field is
 * CONTENT_TYPE, naming what the data frames hold (`protobuf:dnstap.Dnstap`).
 *
 * Over a socket the handshake is bidirectional: the sender sends READY with the content types it offers, the
 * receiver answers ACCEPT with the one it takes, the sender sends START, its data frames, then STOP, and the
 * receiver answers FINISH before both close. A file (and a unidirectional sender) has START, data frames, STOP.
 *
 * No I/O here: a reader that takes a stream's chunks and hands back whole frames, and the frames' encoders.
 */

/** control frame types */
export const CONTROL = { ACCEPT: 0x01, START: 0x02, STOP: 0x03, READY: 0x04, FINISH: 0x05 } as const;
export type ControlType = (typeof CONTROL)[keyof typeof CONTROL];
const CONTROL_NAMES = new Map<number, string>(Object.entries(CONTROL).map(([name, code]) => [code, name]));
export const controlName = (type: number): string => CONTROL_NAMES.get(type) ?? `CONTROL${type}`;

/** the control frame field naming a content type */
const FIELD_CONTENT_TYPE = 0x01;
/** the longest control frame, as libfstrm reads them (FSTRM_CONTROL_FRAME_LENGTH_MAX) */
export const MAX_CONTROL_FRAME = 512;
/** the longest content type, as libfstrm takes them (FSTRM_CONTENT_TYPE_LENGTH_MAX) */
const MAX_CONTENT_TYPE = 256;
/**
 * The longest data frame read: a dnstap payload holds at most a query and a response (64 KiB each, RFC 1035
 * §4.2.2) and a few addresses and names; a longer frame is a stream out of step, not a message.
 */
export const MAX_DATA_FRAME = 256 * 1024;

/** the content type of dnstap's data frames */
export const DNSTAP_CONTENT_TYPE = 'protobuf:dnstap.Dnstap';

export interface ControlFrame {
  type: ControlType;
  contentTypes: string[];
}

export type Frame = { kind: 'data'; payload: Buffer } | { kind: 'control'; control: ControlFrame };

/** a stream that breaks Frame Streams' framing: the connection cannot be read further */
export class FrameStreamsError extends Error {}

/** A control frame as sent: the escape, its length, its type and its content types. */
export function encodeControlFrame(type: ControlType, contentTypes: readonly string[] = []): Buffer {
  const fields = contentTypes.map((contentType) => {
    const value = Buffer.from(contentType, 'utf8');
    const field = Buffer.alloc(8 + value.length);
    field.writeUInt32BE(FIELD_CONTENT_TYPE, 0);
    field.writeUInt32BE(value.length, 4);
    value.copy(field, 8);
    return field;
  });
  const body = Buffer.concat([Buffer.alloc(4), ...fields]);
  body.writeUInt32BE(type, 0);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(0, 0);
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
}

/** A data frame as sent: its length and its payload. */
export function encodeDataFrame(payload: Uint8Array): Buffer {
  if (payload.length === 0) throw new FrameStreamsError('a data frame is never empty (its length 0 escapes a control frame)');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(payload.length, 0);
  return Buffer.concat([head, payload]);
}

function decodeControlFrame(body: Buffer): ControlFrame {
  if (body.length < 4) throw new FrameStreamsError('a control frame shorter than its type');
  const type = body.readUInt32BE(0);
  if (!CONTROL_NAMES.has(type)) throw new FrameStreamsError(`unknown control frame type ${type}`);
  const contentTypes: string[] = [];
  let position = 4;
  while (position < body.length) {
    if (position + 8 > body.length) throw new FrameStreamsError('a control field runs past its frame');
    const fieldType = body.readUInt32BE(position);
    const length = body.readUInt32BE(position + 4);
    position += 8;
    if (position + length > body.length) throw new FrameStreamsError('a control field runs past its frame');
    if (fieldType === FIELD_CONTENT_TYPE) {
      if (length > MAX_CONTENT_TYPE) throw new FrameStreamsError(`a content type over ${MAX_CONTENT_TYPE} octets`);
      contentTypes.push(body.toString('utf8', position, position + length));
    }
    // other field types are future extensions: skipped, as libfstrm does
    position += length;
  }
  return { type: type as ControlType, contentTypes };
}

/**
 * Reads frames from a stream's chunks as they come: each `push` answers the frames completed by the chunk, in
 * order, and keeps the rest for the next. A frame out of bounds throws FrameStreamsError.
 */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingLength = 0;

  constructor(private readonly maxDataFrame = MAX_DATA_FRAME) {}

  /** octets held that are not yet a whole frame */
  get buffered(): number {
    return this.pendingLength;
  }

  push(chunk: Buffer): Frame[] {
    let buffer = chunk;
    if (this.pendingLength > 0) {
      this.pending.push(chunk);
      buffer = Buffer.concat(this.pending, this.pendingLength + chunk.length);
      this.pending = [];
      this.pendingLength = 0;
    }
    const frames: Frame[] = [];
    let position = 0;
    for (;;) {
      if (buffer.length - position < 4) break;
      const length = buffer.readUInt32BE(position);
      if (length > 0) {
        if (length > this.maxDataFrame) throw new FrameStreamsError(`a data frame of ${length} octets (at most ${this.maxDataFrame})`);
        if (buffer.length - position < 4 + length) break;
        frames.push({ kind: 'data', payload: buffer.subarray(position + 4, position + 4 + length) });
        position += 4 + length;
        continue;
      }
      if (buffer.length - position < 8) break;
      const controlLength = buffer.readUInt32BE(position + 4);
      if (controlLength > MAX_CONTROL_FRAME)
        throw new FrameStreamsError(`a control frame of ${controlLength} octets (at most ${MAX_CONTROL_FRAME})`);
      if (buffer.length - position < 8 + controlLength) break;
      frames.push({ kind: 'control', control: decodeControlFrame(buffer.subarray(position + 8, position + 8 + controlLength)) });
      position += 8 + controlLength;
    }
    if (position < buffer.length) {
      // the data frames answered are views of this buffer: the rest is copied, never written over
      const rest = Buffer.from(buffer.subarray(position));
      this.pending.push(rest);
      this.pendingLength = rest.length;
    }
    return frames;
  }
}

/** What a receiver answers at each step of a stream: control frames to send back, and whether the stream is over. */
export interface ReceiverStep {
  /** control frames to write back (ACCEPT to a READY, FINISH to a STOP) */
  reply?: Buffer;
  /** the payload of a data frame, in an accepted stream */
  payload?: Buffer;
  /** the sender sent STOP: the stream is over (after the reply) */
  finished?: boolean;
}

/**
 * The receiving end of one stream, bidirectional (READY, ACCEPT, START … STOP, FINISH) or unidirectional (START …
 * STOP): it accepts one content type and refuses a stream of another, or data before START.
 */
export class FrameStreamsReceiver {
  private state: 'handshake' | 'accepted' | 'started' | 'stopped' = 'handshake';
  /** the sender began with READY: it waits for FINISH after its STOP */
  private bidirectional = false;

  constructor(private readonly contentType: string) {}

  get started(): boolean {
    return this.state === 'started';
  }

  step(frame: Frame): ReceiverStep {
    if (frame.kind === 'data') {
      if (this.state !== 'started') throw new FrameStreamsError('a data frame before START');
      return { payload: frame.payload };
    }
    const { type, contentTypes } = frame.control;
    switch (type) {
      case CONTROL.READY:
        if (this.state !== 'handshake') throw new FrameStreamsError('READY after the handshake');
        // a READY offers content types; none offered means "any" (libfstrm's writer without a content type)
        if (contentTypes.length && !contentTypes.includes(this.contentType))
          throw new FrameStreamsError(`the sender offers ${contentTypes.join(', ')}, not ${this.contentType}`);
        this.state = 'accepted';
        this.bidirectional = true;
        return { reply: encodeControlFrame(CONTROL.ACCEPT, [this.contentType]) };
      case CONTROL.START:
        if (this.state === 'started' || this.state === 'stopped') throw new FrameStreamsError('START twice');
        if (contentTypes.length && !contentTypes.includes(this.contentType))
          throw new FrameStreamsError(`a stream of ${contentTypes.join(', ')}, not ${this.contentType}`);
        this.state = 'started';
        return {};
      case CONTROL.STOP:
        // a bidirectional sender (it sent READY) waits for FINISH; a unidirectional one closes
        this.state = 'stopped';
        return { finished: true, reply: this.bidirectional ? encodeControlFrame(CONTROL.FINISH) : undefined };
      default:
        throw new FrameStreamsError(`${controlName(type)} is a receiver's frame, not a sender's`);
    }
  }
}
