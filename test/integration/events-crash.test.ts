import type { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { buildOnce } from '../support/build';
import { startServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';
import { freePort } from '../support/free-port';
import { createTestDatabase } from '../support/test-db';

/**
 * Events are written in the transaction of what they describe (docs/events.md): the service process killed
 * (SIGKILL) in the middle of a burst of changes loses no acknowledged change's event, and every change that
 * committed, acknowledged or not, has exactly one. The built service is run as an operator runs it, on a
 * database of its own; the events are read from the database and from the feed of the service started again.
 */
const API_KEY = 'events-crash-admin-key-0123456789abcdef';
const ZONE = 'crash-events.test';

let database: { url: string; drop(): Promise<void> };
let children: ChildProcess[] = [];

async function startService(): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const service = startServiceProcess({
    DATABASE_URL: database.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    DNS_LISTEN: '',
    ROLES: 'api',
    API_KEY,
    LOG_LEVEL: 'info',
  });
  const { child } = service;
  children.push(child);
  await waitFor(
    'the service to start',
    async () => {
      if (child.exitCode !== null) throw new Error(`the service exited:\n${service.output()}`);
      return service.output().includes('HTTP API listening') ? true : undefined;
    },
    60_000,
    100,
  );
  return { child, port };
}

async function gql(port: number, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
    body: JSON.stringify({ query, variables }),
  });
  return res.json();
}

beforeAll(async () => {
  buildOnce();
  database = await createTestDatabase({ migrated: true });
}, 600_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children = [];
  await database?.drop();
});

test('kill -9 during a burst of changes: every acknowledged change has its event, every committed change exactly one', async () => {
  const first = await startService();
  const user = await gql(first.port, `mutation { createUser(input: {email: "crash@example.org"}) { id } }`);
  const zone = await gql(first.port, `mutation($u: ID!) { createDomain(input: {userId: $u, zone: "${ZONE}"}) { id } }`, {
    u: user.data.createUser.id,
  });
  expect(zone.errors).toBeUndefined();

  // a burst: 16 writers, each adding records one by one, until the process is killed under them
  const acknowledged: string[] = [];
  let n = 0;
  let killed = false;
  const writer = async () => {
    while (!killed) {
      const owner = `w${n++}`;
      try {
        const res = await gql(
          first.port,
          `mutation($o: String!) { createRecord(input: {zone: "${ZONE}", owner: $o, type: "A", rdata: "192.0.2.1", ttl: 3600}) { id } }`,
          {
            o: owner,
          },
        );
        if (res.data?.createRecord?.id) acknowledged.push(owner);
      } catch {
        return; // the connection went with the process
      }
    }
  };
  const writers = Array.from({ length: 16 }, writer);
  while (acknowledged.length < 60) await new Promise((resolve) => setTimeout(resolve, 10));
  first.child.kill('SIGKILL');
  killed = true;
  await Promise.all(writers);
  expect(acknowledged.length).toBeGreaterThanOrEqual(60);

  const db = new Client({ connectionString: database.url });
  await db.connect();
  try {
    // every committed change of the zone's records (its journal rows), acknowledged or not, has one event
    const { rows: changes } = await db.query(
      `select c.id, (select count(*) from events e where e.change_id = c.id and e.type = 'zone.changed')::int as events
         from changes c where c.zone = $1 and c.kind = 'zone-changed' order by c.id`,
      [ZONE],
    );
    expect(changes.length).toBeGreaterThanOrEqual(acknowledged.length);
    expect(changes.filter((c) => c.events !== 1)).toEqual([]);
  } finally {
    await db.end();
  }

  // the feed of the service started again holds an event naming every acknowledged record, in serial order
  const second = await startService();
  const seen = new Set<string>();
  const serials: number[] = [];
  let after = '';
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${second.port}/api/events?limit=1000&after=${encodeURIComponent(after)}`, {
      headers: { 'x-api-key': API_KEY },
    });
    const page = (await res.json()) as { events: any[]; next: string };
    if (!page.events.length) break;
    for (const event of page.events)
      if (event.type === 'zone.changed' && event.zone === ZONE) {
        serials.push(event.data.serial);
        for (const record of event.data.added) seen.add(record.owner);
      }
    after = page.next;
  }
  expect(acknowledged.filter((owner) => !seen.has(owner))).toEqual([]);
  expect([...serials].sort((a, b) => a - b)).toEqual(serials);
  second.child.kill('SIGTERM');
}, 180_000);
