/**
 * Test hosts in network namespaces the test makes itself (iproute2, as root): each a namespace with a veth pair
 * to this machine, its own address (198.18.N.2, this machine's side 198.18.N.1: the benchmarking range of RFC
 * 2544, never a public address), a route to the test's endpoint network (addresses this machine holds on its
 * loopback device, in 198.19.255.0/24), and a TCP relay on this machine's side to a loopback port (PostgreSQL),
 * so that a process started in the namespace reaches the database and the endpoints as a prober elsewhere
 * would, and loses the endpoints, not the database, when its route is taken away. Everything made is removed by
 * `remove()`, and the names carry the test process's id, so that two runs side by side never meet.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/** the endpoints' network: addresses this machine holds on lo, reached from a test host through its veth */
export const ENDPOINT_NETWORK = '198.19.255.0/24';

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** an address of the endpoints' network held on this machine's loopback device, removed by the returned function */
export function holdEndpointAddress(host: number): { address: string; release(): void } {
  const address = `198.19.255.${host}`;
  ip('addr', 'add', `${address}/32`, 'dev', 'lo');
  return { address, release: () => ip('addr', 'del', `${address}/32`, 'dev', 'lo') };
}

export interface TestHost {
  /** the namespace's name */
  name: string;
  /** this machine's address as the host sees it (its veth peer) */
  gateway: string;
  /** a port on `gateway` relayed to the loopback port given at its making */
  relayPort: number;
  /** a process started in the namespace */
  spawn(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess;
  /** takes the route to the endpoints' network away (the host is cut off from them), or gives it back */
  cutOff(): void;
  reconnect(): void;
  remove(): Promise<void>;
}

/**
 * makes test host number `index` (1–200): its namespace, veth pair and addresses, its route to the endpoints, and
 * a relay on this machine's side of its veth to `relayTo` (a loopback port)
 */
export async function makeTestHost(index: number, relayTo: number): Promise<TestHost> {
  const name = `zk${process.pid}h${index}`;
  const outside = `zk${process.pid % 100_000}o${index}`.slice(0, 15);
  const inside = `zk${process.pid % 100_000}i${index}`.slice(0, 15);
  const gateway = `198.18.${index}.1`;
  const address = `198.18.${index}.2`;
  ip('netns', 'add', name);
  try {
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
    ip('link', 'set', inside, 'netns', name);
    ip('addr', 'add', `${gateway}/30`, 'dev', outside);
    ip('link', 'set', outside, 'up');
    ip('-n', name, 'addr', 'add', `${address}/30`, 'dev', inside);
    ip('-n', name, 'link', 'set', inside, 'up');
    ip('-n', name, 'link', 'set', 'lo', 'up');
    ip('-n', name, 'route', 'add', ENDPOINT_NETWORK, 'via', gateway);
  } catch (error) {
    removeNamespace(name, outside);
    throw error;
  }
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    const upstream = net.connect(relayTo, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, gateway, resolve));
  const relayPort = (relay.address() as net.AddressInfo).port;
  return {
    name,
    gateway,
    relayPort,
    spawn: (command, args, env) =>
      spawn('ip', ['netns', 'exec', name, command, ...args], {
        cwd: path.resolve(__dirname, '..', '..'),
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    cutOff: () => ip('-n', name, 'route', 'del', ENDPOINT_NETWORK),
    reconnect: () => ip('-n', name, 'route', 'add', ENDPOINT_NETWORK, 'via', gateway),
    async remove() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => relay.close(resolve));
      removeNamespace(name, outside);
    },
  };
}

function removeNamespace(name: string, outside: string): void {
  // the veth pair goes with either of its ends
  for (const args of [
    ['link', 'del', outside],
    ['netns', 'del', name],
  ])
    try {
      ip(...args);
    } catch {
      // already gone
    }
}
