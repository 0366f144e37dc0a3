/**
 * Frame Streams' framing (src/analytics/frame-streams.ts) and dnstap's payloads (src/analytics/dnstap.ts): frames
 * read whatever the chunks a socket hands them in, the receiver's handshake, the bounds that close a stream out
 * of step, and the question and RCODE read from a dnstap response. The handshake against libfstrm's own tools is
 * test/integration/frame-streams-tools.test.ts.
 */
import {
  CONTROL,
  DNSTAP_CONTENT_TYPE,
  encodeControlFrame,
  encodeDataFrame,
  Frame,
  FrameReader,
  FrameStreamsError,
  FrameStreamsReceiver,
  MAX_DATA_FRAME,
} from '../../src/analytics/frame-streams';
import { encodeDnstap, MESSAGE_TYPE, readDnstap } from '../../src/analytics/dnstap';
import { encodeMessage, FLAG, OPCODE } from '../../src/dns/wire/message';

const stream = Buffer.concat([
  encodeControlFrame(CONTROL.READY, [DNSTAP_CONTENT_TYPE, 'protobuf:other']),
  encodeControlFrame(CONTROL.START, [DNSTAP_CONTENT_TYPE]),
  encodeDataFrame(Buffer.from('one')),
  encodeDataFrame(Buffer.alloc(3000, 7)),
  encodeControlFrame(CONTROL.STOP),
]);

const summary = (frames: Frame[]) =>
  frames.map((frame) =>
    frame.kind === 'data' ? `data:${frame.payload.length}` : `control:${frame.control.type}:${frame.control.contentTypes.join('|')}`,
  );

const EXPECTED = [
  `control:${CONTROL.READY}:${DNSTAP_CONTENT_TYPE}|protobuf:other`,
  `control:${CONTROL.START}:${DNSTAP_CONTENT_TYPE}`,
  'data:3',
  'data:3000',
  `control:${CONTROL.STOP}:`,
];

describe('FrameReader', () => {
  it('reads the frames of a stream handed in one chunk', () => {
    expect(summary(new FrameReader().push(stream))).toEqual(EXPECTED);
  });

  it('reads the same frames from a stream handed one octet at a time, and from chunks of every size', () => {
    for (const size of [1, 2, 3, 5, 7, 11, 64, 1000]) {
      const reader = new FrameReader();
      const frames: Frame[] = [];
      for (let at = 0; at < stream.length; at += size) frames.push(...reader.push(stream.subarray(at, at + size)));
      expect(summary(frames)).toEqual(EXPECTED);
      expect(reader.buffered).toBe(0);
    }
  });

  it('keeps the payloads read intact when the next chunks arrive (nothing is written over)', () => {
    const reader = new FrameReader();
    const first = encodeDataFrame(Buffer.from('first payload'));
    const frames = reader.push(Buffer.concat([first, encodeDataFrame(Buffer.from('second')).subarray(0, 6)]));
    reader.push(encodeDataFrame(Buffer.from('second')).subarray(6));
    reader.push(encodeDataFrame(Buffer.alloc(100, 0x41)));
    expect(frames.map((frame) => frame.kind === 'data' && frame.payload.toString())).toEqual(['first payload']);
  });

  it('refuses a data frame over its bound and an oversized control frame before reading them', () => {
    const long = Buffer.alloc(4);
    long.writeUInt32BE(MAX_DATA_FRAME + 1, 0);
    expect(() => new FrameReader().push(long)).toThrow(FrameStreamsError);
    const control = Buffer.alloc(8);
    control.writeUInt32BE(513, 4);
    expect(() => new FrameReader().push(control)).toThrow(/control frame of 513 octets/);
  });

  it('refuses a control frame of an unknown type and a field that runs past its frame', () => {
    const unknown = Buffer.from([0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 9]);
    expect(() => new FrameReader().push(unknown)).toThrow(/unknown control frame type 9/);
    const truncated = encodeControlFrame(CONTROL.START, [DNSTAP_CONTENT_TYPE]);
    truncated.writeUInt32BE(200, 16); // the field's length, past the frame's end
    expect(() => new FrameReader().push(truncated)).toThrow(/runs past its frame/);
  });
});

describe('FrameStreamsReceiver', () => {
  const frames = (data: Buffer) => new FrameReader().push(data);

  it('answers READY with ACCEPT of its content type, takes the data after START, and STOP with FINISH', () => {
    const receiver = new FrameStreamsReceiver(DNSTAP_CONTENT_TYPE);
    const steps = frames(stream).map((frame) => receiver.step(frame));
    expect(frames(steps[0].reply!)).toEqual([{ kind: 'control', control: { type: CONTROL.ACCEPT, contentTypes: [DNSTAP_CONTENT_TYPE] } }]);
    expect(steps.filter((step) => step.payload).map((step) => step.payload!.length)).toEqual([3, 3000]);
    expect(steps[4].finished).toBe(true);
    expect(frames(steps[4].reply!)).toEqual([{ kind: 'control', control: { type: CONTROL.FINISH, contentTypes: [] } }]);
  });

  it('takes a unidirectional stream (START … STOP, as a file holds) and sends no FINISH', () => {
    const receiver = new FrameStreamsReceiver(DNSTAP_CONTENT_TYPE);
    const steps = frames(
      Buffer.concat([
        encodeControlFrame(CONTROL.START, [DNSTAP_CONTENT_TYPE]),
        encodeDataFrame(Buffer.from('x')),
        encodeControlFrame(CONTROL.STOP),
      ]),
    ).map((frame) => receiver.step(frame));
    expect(steps.map((step) => [step.payload?.toString(), step.finished, step.reply])).toEqual([
      [undefined, undefined, undefined],
      ['x', undefined, undefined],
      [undefined, true, undefined],
    ]);
  });

  it('refuses another content type, data before START, and a receiver’s frame from the sender', () => {
    expect(() =>
      new FrameStreamsReceiver(DNSTAP_CONTENT_TYPE).step(frames(encodeControlFrame(CONTROL.READY, ['protobuf:other']))[0]),
    ).toThrow(/offers protobuf:other/);
    expect(() => new FrameStreamsReceiver(DNSTAP_CONTENT_TYPE).step(frames(encodeDataFrame(Buffer.from('x')))[0])).toThrow(/before START/);
    expect(() => new FrameStreamsReceiver(DNSTAP_CONTENT_TYPE).step(frames(encodeControlFrame(CONTROL.ACCEPT))[0])).toThrow(
      /receiver's frame/,
    );
  });
});

describe('dnstap payloads', () => {
  const response = (name: string, type: number, rcode: number) =>
    encodeMessage({ id: 7, flags: FLAG.QR | FLAG.AA | rcode, questions: [{ name, type, klass: 1 }] });

  it('reads an authoritative response: identity, lower-cased question, type, RCODE and time', () => {
    const reading = readDnstap(
      encodeDnstap({
        identity: 'ns1',
        type: MESSAGE_TYPE.AUTH_RESPONSE,
        responseTimeSec: 1_800_000_000,
        responseTimeNsec: 250_000_000,
        responseMessage: response('WWW.Example.COM.', 28, 3),
      }),
    );
    expect(reading).toEqual({
      kind: 'answer',
      answer: { identity: 'ns1', name: 'www.example.com.', type: 28, rcode: 3, at: 1_800_000_000_250 },
    });
  });

  it('passes over queries (their responses are counted) and answers to NOTIFY, and tells a response without its message', () => {
    expect(
      readDnstap(encodeDnstap({ identity: 'ns1', type: MESSAGE_TYPE.AUTH_QUERY, queryMessage: response('a.example.', 1, 0) })),
    ).toEqual({
      kind: 'other',
      identity: 'ns1',
    });
    // the answer to a NOTIFY asked for no name: not counted
    const notified = encodeMessage({
      id: 8,
      flags: FLAG.QR | FLAG.AA | (OPCODE.NOTIFY << 11),
      questions: [{ name: 'a.example.', type: 6, klass: 1 }],
    });
    expect(readDnstap(encodeDnstap({ identity: 'ns1', type: MESSAGE_TYPE.AUTH_RESPONSE, responseMessage: notified }))).toEqual({
      kind: 'other',
      identity: 'ns1',
    });
    expect(readDnstap(encodeDnstap({ type: MESSAGE_TYPE.CLIENT_RESPONSE }))).toMatchObject({ kind: 'malformed', identity: undefined });
    expect(readDnstap(Buffer.from([0xff, 0xff, 0xff]))).toMatchObject({ kind: 'malformed' });
  });
});
