/**
 * Test support for steering (docs/steering.md): the HTTP endpoints a test starts and stops on loopback, and the
 * question the steering tests ask every secondary many times a second (what A records it serves at a name),
 * asked over UDP from this process rather than with a dig per question, so that polling four secondaries every
 * 50 ms costs the shared machine nothing and the moment a change is first served is known to the poll.
 */
import dgram from 'node:dgram';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';

/** an HTTP endpoint answering 200 "healthy" at /health (404 elsewhere; 503 while failing), stopped and started again on its port */
export class Endpoint {
  private server: http.Server | undefined;
  port = 0;
  /**
   * answers 503 at /health while set: down to a check, while it keeps its port (an endpoint stopped and started
   * again every second may find its port taken meanwhile, by another socket's ephemeral port)
   */
  failing = false;

  constructor(private readonly address = '127.0.0.1') {}

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const healthy = req.url === '/health' && !this.failing;
      res.writeHead(healthy ? 200 : req.url === '/health' ? 503 : 404, { 'content-type': 'text/plain', connection: 'close' });
      res.end(healthy ? 'healthy' : 'no');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.address, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** stops listening (a probe then finds its port refused) and ends the connections open */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

let nextId = 1;

/**
 * the A records a server on a loopback port answers at `name` (recursion not desired), sorted; an answer with
 * none (NODATA) is []. Fails on silence (1 s) or an RCODE other than NOERROR.
 */
export async function servedA(port: number, name: string, timeoutMs = 1000): Promise<string[]> {
  const id = (nextId = (nextId % 65_000) + 1);
  const query = dnsPacket.encode({ type: 'query', id, flags: 0, questions: [{ type: 'A', class: 'IN', name }] });
  const socket = dgram.createSocket('udp4');
  try {
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer from port ${port} for ${name} A`)), timeoutMs);
      socket.on('message', (message) => {
        if (message.readUInt16BE(0) !== id) return;
        clearTimeout(timer);
        resolve(message);
      });
      socket.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.send(query, port, '127.0.0.1');
    });
    const decoded = dnsPacket.decode(answer) as any;
    if (decoded.rcode !== 'NOERROR') throw new Error(`port ${port} answered ${name} A with ${decoded.rcode}`);
    return (decoded.answers ?? [])
      .filter((r: any) => r.type === 'A' && r.name.toLowerCase() === name.toLowerCase().replace(/\.$/, ''))
      .map((r: any) => r.data as string)
      .sort();
  } finally {
    socket.close();
  }
}

/**
 * Polls every server (by name) every `everyMs` until each serves `expected` at `name`; answers the moment each
 * first did (Date.now()). Fails after `timeoutMs` naming the servers that did not, with what they served.
 */
export async function whenServed(
  servers: Record<string, number>,
  name: string,
  expected: string[],
  timeoutMs: number,
  everyMs = 50,
): Promise<Record<string, number>> {
  const wanted = JSON.stringify([...expected].sort());
  const seen: Record<string, number> = {};
  const last: Record<string, string> = {};
  const deadline = Date.now() + timeoutMs;
  while (Object.keys(seen).length < Object.keys(servers).length) {
    const started = Date.now();
    await Promise.all(
      Object.entries(servers)
        .filter(([server]) => seen[server] === undefined)
        .map(async ([server, port]) => {
          try {
            const answer = await servedA(port, name, Math.max(200, everyMs * 4));
            last[server] = JSON.stringify(answer);
            if (last[server] === wanted) seen[server] = started;
          } catch (error) {
            last[server] = (error as Error).message;
          }
        }),
    );
    if (Date.now() > deadline) {
      const missing = Object.keys(servers).filter((server) => seen[server] === undefined);
      if (missing.length)
        throw new Error(
          `after ${timeoutMs} ms, ${missing.map((server) => `${server} serves ${last[server]}`).join(', ')} at ${name} (wanted ${wanted})`,
        );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, everyMs - (Date.now() - started))));
  }
  return seen;
}

/** a GraphQL call that answers its data (and fails on errors) */
type GqlOk = (query: string, variables: Record<string, unknown>) => Promise<any>;

/** an HTTP check of `/health` at the address and port, made through GraphQL as a user makes it: its id */
export async function createHealthCheck(gql: GqlOk, zone: string, name: string, address: string, port: number): Promise<string> {
  const made = await gql(`mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id } }`, {
    z: zone,
    i: { name, protocol: 'http', address, port, path: '/health' },
  });
  return made.createSteeringCheck.id;
}

/**
 * the zone's steered A RRset at `app`: the first two checks' members (192.0.2.1, 192.0.2.2) in the first pool,
 * the third's (198.51.100.1) in the fallback pool, as a team's first failover record
 */
export async function steerWithFallback(gql: GqlOk, zone: string, [first, second, fallback]: string[]): Promise<void> {
  await gql(`mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`, {
    z: zone,
    i: {
      owner: 'app',
      type: 'A',
      pools: [
        {
          members: [
            { value: '192.0.2.1', checkId: first },
            { value: '192.0.2.2', checkId: second },
          ],
        },
        { members: [{ value: '198.51.100.1', checkId: fallback }] },
      ],
    },
  });
}
