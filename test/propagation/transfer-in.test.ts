/**
 * Transfers in against hostile primaries (src/dns-client/zone-transfer-in.ts): a zone bigger than the bound stops the
 * transfer with the reason, however much the server would send; a server that answers garbage over TCP, or a
 * record outside the zone, or a transfer that does not start with the SOA, is a TransferError naming what it did.
 * The servers here are plain TCP sockets writing messages made with the wire module.
 */
import net from 'node:net';
import { encodeMessage, FLAG, outgoingRecord } from '../../src/dns/wire';
import { axfr, DEFAULT_TRANSFER_LIMITS, TransferError } from '../../src/dns-client/zone-transfer-in';

const ZONE = 'hostile.zk.test';
const SOA = { owner: '@', type: 'SOA', rdata: `ns1.${ZONE}. hostmaster.${ZONE}. 7 3600 600 86400 300`, ttl: 300 };

/** a TCP server that answers each framed request with what `answer` writes, given the request's ID */
async function hostileServer(answer: (id: number, write: (message: Buffer) => boolean, socket: net.Socket) => void): Promise<net.Server> {
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', (chunk) => answer(chunk.readUInt16BE(2), (message) => frame(socket, message), socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return server;
}

function frame(socket: net.Socket, message: Buffer): boolean {
  if (socket.destroyed) return false;
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length);
  return socket.write(Buffer.concat([length, message]));
}

const answerWith = (id: number, records: { owner: string; type: string; rdata: string; ttl: number }[]) =>
  encodeMessage({ id, flags: FLAG.QR | FLAG.AA, answers: records.map((r) => outgoingRecord(ZONE, r)) });

// the idle and overall bounds are not what these tests prove: loose enough that a loaded machine's pause between
// two messages is not taken for a silent server
const limits = { ...DEFAULT_TRANSFER_LIMITS, maxRecords: 1000, idleMs: 20_000, timeoutMs: 40_000 };
const source = (server: net.Server) => ({ host: '127.0.0.1', port: (server.address() as net.AddressInfo).port });

async function refusal(server: net.Server): Promise<TransferError> {
  try {
    await axfr(source(server), ZONE, limits);
  } catch (error) {
    return error as TransferError;
  } finally {
    server.close();
  }
  throw new Error('the transfer was taken');
}

test('a zone past the record bound stops the transfer, however much the server would send (1M records)', async () => {
  let sent = 0;
  const server = await hostileServer((id, write, socket) => {
    // a million A records after the SOA, 500 a message, never the closing SOA; it stops when the client hangs up
    const batch = (from: number) =>
      answerWith(
        id,
        Array.from({ length: 500 }, (_, i) => ({ owner: `h${from + i}`, type: 'A', rdata: '192.0.2.1', ttl: 300 })),
      );
    write(answerWith(id, [SOA]));
    const pump = () => {
      while (sent < 1_000_000 && !socket.destroyed) {
        sent += 500;
        if (!write(batch(sent))) return socket.once('drain', pump);
      }
    };
    pump();
  });
  const { port } = source(server);
  const error = await refusal(server);
  expect(error).toBeInstanceOf(TransferError);
  expect(error.message).toBe(`the zone at 127.0.0.1:${port} has more than 1000 records (the most a transfer in takes)`);
  expect(sent).toBeLessThan(1_000_000);
});

test('garbage, a record outside the zone, and a transfer not starting with the SOA are refused with the reason', async () => {
  const garbage = await refusal(await hostileServer((_id, write) => write(Buffer.from('not a dns message at all'))));
  expect(garbage.message).toMatch(/sent a malformed message/);
  const outside = await refusal(
    await hostileServer((id, write) =>
      write(answerWith(id, [SOA, { owner: 'www.example.org.', type: 'A', rdata: '192.0.2.1', ttl: 300 }])),
    ),
  );
  expect(outside.message).toMatch(/sent www\.example\.org\., outside hostile\.zk\.test/);
  const noSoa = await refusal(
    await hostileServer((id, write) => write(answerWith(id, [{ owner: 'www', type: 'A', rdata: '192.0.2.1', ttl: 300 }]))),
  );
  expect(noSoa.message).toMatch(/does not begin with the SOA/);
});

test('records whose text is far larger than their wire form stop the transfer at the text bound (maxText)', async () => {
  // TXT strings of octets outside printable ASCII: 4 characters an octet as text (\DDD)
  const octets = Array.from({ length: 200 }, (_, i) => `\\${String(128 + (i % 100)).padStart(3, '0')}`).join('');
  const server = await hostileServer((id, write) => {
    write(answerWith(id, [SOA]));
    for (let from = 0; from < 200; from += 20)
      write(
        answerWith(
          id,
          Array.from({ length: 20 }, (_, i) => ({ owner: `t${from + i}`, type: 'TXT', rdata: `"${octets}"`, ttl: 300 })),
        ),
      );
    write(answerWith(id, [SOA]));
  });
  const { port } = source(server);
  // 200 records of ~210 octets on the wire (~42 KB), ~810 characters each as text (~160,000): under every bound but maxText
  try {
    await axfr(source(server), ZONE, { ...limits, maxText: 100_000 });
    throw new Error('the transfer was taken');
  } catch (error) {
    expect(error).toBeInstanceOf(TransferError);
    expect((error as Error).message).toBe(
      `the zone at 127.0.0.1:${port} has more than 100000 characters of records as text (the most a transfer in holds in memory)`,
    );
  } finally {
    server.close();
  }
  // the same zone under a larger bound is taken whole, each TXT as its \\DDD text
  const again = await hostileServer((id, write) => {
    write(answerWith(id, [SOA, { owner: 't0', type: 'TXT', rdata: `"${octets}"`, ttl: 300 }, SOA]));
  });
  const taken = await axfr(source(again), ZONE, { ...limits, maxText: 100_000 });
  again.close();
  expect(taken.records).toEqual([{ owner: 't0', type: 'TXT', ttl: 300, rdata: `"${octets}"` }]);
});
