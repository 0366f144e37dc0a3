/**
 * Test support: one DNS query over TCP, its first answer decoded, and the Extended DNS Error it carries
 * (RFC 8914). dig and kdig print only "Transfer failed" / "REFUSED" for a refused transfer: this reads the answer.
 */
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { readExtendedError } from '../../src/dns/extended-error';

/** one query over TCP, its first answer decoded */
export function askTcp(port: number, query: Buffer): Promise<any> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(query.length, 0);
    socket.write(Buffer.concat([length, query]));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 2 && received.length >= received.readUInt16BE(0) + 2) {
        socket.destroy();
        resolve(dnsPacket.decode(received.subarray(2, received.readUInt16BE(0) + 2)));
      }
    });
    socket.on('error', reject);
  });
}

/** the answer's Extended DNS Error, if it has one */
export const extendedError = (answer: any) => {
  const option = answer.additionals?.find((r: any) => r.type === 'OPT')?.options?.find((o: any) => o.code === 15);
  return option && readExtendedError(option.data);
};
