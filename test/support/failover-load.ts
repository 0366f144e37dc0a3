import request from 'supertest';
import { signMessage } from '../../src/dns/wire';
import { ADMIN_KEY } from './test-app';
import { rcodeOf, sendUdp, updateMessage } from './update-clients';
import { sleep, waitUntil } from './wait-for';

/** where the write load goes: the service's HTTP API and DNS port, a zone, and a TSIG key of its user */
export interface LoadTarget {
  http: ReturnType<typeof request>;
  dnsPort: number;
  zone: string;
  updateKey: { name: string; algorithm: 'hmac-sha256'; secret: Buffer };
}

/** an answer that refused a write: 503, or SERVFAIL to an UPDATE */
const REFUSED = / 503|rcode 2$/;

export interface WriteLoad {
  acknowledged: { owner: string; at: number }[];
  answers: Map<string, number>;
  /** the phase the answers from now on are counted under */
  phase: string;
  acknowledgedSince(at: number): number;
  /**
   * the longest time without an acknowledged write from `at` on (from `at` to the first acknowledgement, or
   * between two): how long writes stopped, whether they were refused or waited (DATABASE_FAILOVER_WAIT_MS)
   */
  longestPauseAfter(at: number): number;
  /** the time of the first acknowledgement after `at` */
  firstAcknowledgedAfter(at: number): number;
  /**
   * the answers other than successes and 503 / SERVFAIL (or an UPDATE's answer lost): never a 500, and no HTTP
   * request without an answer (counted as `rest no answer`, `graphql no answer`)
   */
  unexpected(): string[];
  /** the answers that refused a write (503, SERVFAIL) */
  refused(): string[];
  /** ms from the first refusal to the last (how long writes were refused) */
  refusedFor(): number;
  stop(): Promise<void>;
}

/**
 * 16 clients writing records (8 REST, 4 GraphQL, 4 DNS UPDATE) until `stop`: every answer is counted under
 * the current phase, every acknowledged record kept with the time of its acknowledgement. The failover tests'
 * load (test/failover).
 */
export function writeLoad({ http, dnsPort, zone, updateKey }: LoadTarget): WriteLoad {
  const acknowledged: { owner: string; at: number }[] = [];
  const answers = new Map<string, number>();
  let phase = 'before';
  const refusedAt: number[] = [];
  const count = (answer: string) => {
    const key = `${phase}: ${answer}`;
    answers.set(key, (answers.get(key) ?? 0) + 1);
    if (REFUSED.test(answer)) refusedAt.push(Date.now());
  };
  let running = true;
  let written = 0;
  const rdataOf = (n: number) => `198.51.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
  const owner = () => `w${Date.now().toString(36)}${(written++).toString(36)}`;
  /** an HTTP request whose connection failed (the process killed, nothing listening): counted as `no answer` */
  const answered = (res: Promise<request.Response>) => res.catch(() => undefined);
  const rest = async () => {
    while (running) {
      const name = owner();
      const res = await answered(
        http
          .post('/api/record/add')
          .set('X-API-Key', ADMIN_KEY)
          .send({ zone, owner: name, rtype: 'A', rdata: rdataOf(written), ttl: 3600 }),
      );
      if (!res) {
        count('rest no answer');
        await sleep(20);
        continue;
      }
      count(`rest ${res.status}`);
      if (res.status === 201) acknowledged.push({ owner: name, at: Date.now() });
      else await sleep(20);
    }
  };
  const graphql = async () => {
    while (running) {
      const name = owner();
      const res = await answered(
        http
          .post('/graphql')
          .set('X-API-Key', ADMIN_KEY)
          .set('content-type', 'application/json')
          .send({
            query:
              'mutation($z: String!, $o: String!, $r: String!) { createRecord(input: {zone: $z, owner: $o, type: "A", rdata: $r, ttl: 3600}) { id } }',
            variables: { z: zone, o: name, r: rdataOf(written) },
          }),
      );
      if (!res) {
        count('graphql no answer');
        await sleep(20);
        continue;
      }
      const ok = res.status === 200 && !res.body.errors;
      count(`graphql ${res.status} ${ok ? 'ok' : res.body.errors?.[0]?.extensions?.code}`);
      if (ok) acknowledged.push({ owner: name, at: Date.now() });
      else await sleep(20);
    }
  };
  const update = async () => {
    while (running) {
      const name = owner();
      const message = signMessage(
        updateMessage(zone, [{ name: `${name}.${zone}`, type: 'A', class: 'IN', ttl: 3600, data: rdataOf(written) }]),
        updateKey,
      ).message;
      const rcode = rcodeOf(await sendUdp(dnsPort, message));
      count(`update rcode ${rcode ?? 'none'}`);
      if (rcode === 0) acknowledged.push({ owner: name, at: Date.now() });
      else await sleep(20);
    }
  };
  const clients = [...Array.from({ length: 8 }, rest), ...Array.from({ length: 4 }, graphql), ...Array.from({ length: 4 }, update)];
  return {
    acknowledged,
    answers,
    get phase() {
      return phase;
    },
    set phase(name: string) {
      phase = name;
    },
    acknowledgedSince: (at: number) => acknowledged.filter((write) => write.at > at).length,
    longestPauseAfter: (at: number) => {
      const times = [at, ...acknowledged.map((write) => write.at).filter((time) => time > at)].sort((a, b) => a - b);
      return Math.max(0, ...times.slice(1).map((time, index) => time - times[index]));
    },
    firstAcknowledgedAfter: (at: number) => Math.min(...acknowledged.filter((write) => write.at > at).map((write) => write.at)),
    unexpected: () =>
      [...answers.keys()].filter(
        (key) => !/: (rest 201|rest 503|graphql 200 ok|graphql 503 DATABASE_UNAVAILABLE|update rcode (0|2|none))$/.test(key),
      ),
    refused: () => [...answers.keys()].filter((key) => REFUSED.test(key)),
    refusedFor: () => (refusedAt.length ? refusedAt[refusedAt.length - 1] - refusedAt[0] : 0),
    async stop() {
      running = false;
      await Promise.all(clients);
    },
  };
}

/**
 * Every acknowledged record of `zone` is in the database `sql` reads (the new primary), the zone's serial
 * chain in the journal has no gap (each change starts at the serial the one before it ended at, the last is
 * the zone's), and the outbox drains.
 */
export async function expectNothingLost(
  sql: (statement: string) => Promise<any[]>,
  zone: string,
  acknowledged: { owner: string }[],
): Promise<void> {
  const stored = new Set(
    (await sql(`select r.owner from records r join domains d on d.id = r.domain_id where d.name = '${zone}' and r.type = 'A'`)).map(
      (row: { owner: string }) => row.owner,
    ),
  );
  expect(acknowledged.filter(({ owner }) => !stored.has(owner))).toEqual([]);
  // one statement, one snapshot: the chain and the zone's serial as of the same moment
  const chain = await sql(
    `select c.serial_before::int as before, c.serial_after::int as after, d.serial::int as serial from changes c join domains d on d.name = c.zone where c.zone = '${zone}' order by c.id`,
  );
  const breaks = chain.slice(1).filter((link: { before: number }, index: number) => link.before !== chain[index].after);
  expect(breaks).toEqual([]);
  expect(chain[chain.length - 1].after).toBe(chain[chain.length - 1].serial);
  await waitUntil(
    'the outbox to be drained on the new primary',
    async () => (await sql('select count(*)::int as n from changes where published_at is null'))[0].n === 0,
    20_000,
  );
}
