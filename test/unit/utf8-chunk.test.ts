/** Text gathered as UTF-8 in one buffer (src/http/send-stream.ts), as a streamed answer's chunk of many pieces. */
import { Utf8Chunk } from '../../src/http/send-stream';

describe('Utf8Chunk', () => {
  it('holds the pieces as Buffer.from of their joined text, however far it grows past its first size', () => {
    const pieces = ['[', '{"a":"x"}', ',', 'é', '😀', '\u2028', 'plain '.repeat(100), ']'];
    const chunk = new Utf8Chunk(4);
    for (const piece of pieces) chunk.add(piece);
    expect(chunk.bytes().equals(Buffer.from(pieces.join('')))).toBe(true);
  });

  it('is empty before a piece is added', () => {
    expect(new Utf8Chunk(100).bytes().length).toBe(0);
  });
});
