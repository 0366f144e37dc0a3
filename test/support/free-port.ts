import dgram from 'node:dgram';
import net from 'node:net';

/**
 * Ports are drawn at random below Linux's ephemeral range (32768–60999, /proc/sys/net/ipv4/ip_local_port_range):
 * a port the kernel hands out for `listen(0)` or an outgoing connection, in this process or in the other CI lane
 * running beside it, can never be one of these, where a port taken from that range and closed again was soon
 * handed to someone else before the test's server bound it.
 */
const LOWEST = 20000;
const HIGHEST = 32767;
const handedOut = new Set<number>();

function tcpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function udpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    socket.once('error', () => resolve(false));
    socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
  });
}

/** a loopback port free for both TCP and UDP a moment ago, not handed out before in this process */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1));
    if (handedOut.has(port)) continue;
    if ((await tcpFree(port)) && (await udpFree(port))) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${LOWEST} and ${HIGHEST} on 127.0.0.1`);
}
