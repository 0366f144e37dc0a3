/**
 * A root server for the health checker (HEALTH_ROOT_HINTS) on a loopback UDP port, in one of two modes:
 *
 * - `refuse`: every query REFUSED (RFC 1035 §4.1.1, RCODE 5): no root server gives an answer to work from, the
 *   checker's own state (docs/health.md, «When the checker cannot reach the root»), at once (no timeout waited for)
 * - `empty`: every query NXDOMAIN with authority (RCODE 3, AA): a root that answers and delegates nothing, so no
 *   zone is delegated (NOT_DELEGATED) and no nameserver's name outside its zone has an address (LAME_DELEGATION)
 */
import { createSocket } from 'node:dgram';

export interface FakeRoot {
  /** `127.0.0.1:<port>`, for HEALTH_ROOT_HINTS */
  hint: string;
  mode: 'refuse' | 'empty';
  stop(): Promise<void>;
}

export async function startFakeRoot(mode: FakeRoot['mode']): Promise<FakeRoot> {
  const socket = createSocket('udp4');
  const root: FakeRoot = {
    hint: '',
    mode,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (query, peer) => {
    if (query.length < 12) return;
    // the query echoed as its answer: its ID and question kept, the header's flags and RCODE set
    const answer = Buffer.from(query);
    answer[2] = (answer[2] | 0x80) & ~0x02; // QR, not truncated
    if (root.mode === 'empty') answer[2] |= 0x04; // AA
    answer[3] = (answer[3] & 0x70) | (root.mode === 'empty' ? 3 : 5);
    // no answer, authority or additional records (an EDNS OPT of the query's is not echoed)
    answer.writeUInt16BE(0, 6);
    answer.writeUInt16BE(0, 8);
    answer.writeUInt16BE(0, 10);
    const end = questionEnd(answer);
    socket.send(end ? answer.subarray(0, end) : answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  root.hint = `127.0.0.1:${socket.address().port}`;
  return root;
}

/** where the (one) question of a message ends: its name's labels, then type and class */
function questionEnd(message: Buffer): number | undefined {
  let at = 12;
  while (at < message.length && message[at] !== 0) at += message[at] + 1;
  return at + 5 <= message.length ? at + 5 : undefined;
}
