/**
 * What the secondaries ask a DNS primary for, told to the workers of other processes (worker/notify-pacing.ts): the
 * NOTIFY pace of a secondary follows the zones it asks for after its NOTIFYs, and the primary that hears them may
 * run in another process than the worker that sends them (ROLES=api,dns beside ROLES=worker; several processes of
 * the `dns` role, each a primary the secondary asks).
 *
 * Through PostgreSQL's LISTEN/NOTIFY on RELAY_CHANNEL, the one link every process of a deployment shares: each
 * process with the `dns` role gathers what its primary is asked and sends it at most every RELAY_INTERVAL_MS (one
 * `pg_notify` carrying the requests of that time, each request once), and each process with the `worker` role hears
 * the others' on its LISTEN connection (db/notifications.ts). A process hears its own primary in the process
 * (secondary-requests.ts) and skips its own notifications.
 *
 * What it costs: nothing while no secondary asks; while one does, at most 1000 / RELAY_INTERVAL_MS statements a
 * second (more only when a batch outgrows a notification's 8,000 octets: a few hundred requests each). A
 * notification is a wake-up, not a record: one lost (the LISTEN connection away, the process stopping) is a few
 * requests the pace does not count, as a request to another process's primary was before; nothing waits on it.
 */
import type { Database } from '../../db/pool';
import { noteDatabaseFailure } from '../../db/availability';
import { logger } from '../../logger';
import { PacedRun } from '../../paced-run';
import type { SecondaryRequests } from './secondary-requests';

/** the LISTEN channel of the secondaries' requests, between processes */
export const RELAY_CHANNEL = 'zonekeeper_secondary_requests';

/**
 * how often a primary's process sends what it was asked: the paces adapt once a second (notify-pacing.ts), and a
 * request a quarter of a second late is counted in the same second or the next
 */
export const RELAY_INTERVAL_MS = 250;

/** PostgreSQL's bound on a notification's payload is 8,000 octets (NOTIFY); a batch is cut below it */
const PAYLOAD_OCTETS = 7_500;

/** the requests held for the next notification at most: a secondary asks far fewer in RELAY_INTERVAL_MS */
const HELD_AT_MOST = 20_000;

/** a request as a notification carries it: the secondary's address, the zone, the TSIG key's name or null */
type RelayedRequest = [address: string, zone: string, keyName: string | null];

interface RelayMessage {
  from: string;
  requests: RelayedRequest[];
}

/**
 * The `dns` role's half: what this process's primary is asked, sent to the other processes every
 * RELAY_INTERVAL_MS. The function returned stops it, sending what is held first.
 */
export function relaySecondaryRequests(db: Database, requests: SecondaryRequests): () => Promise<void> {
  let held = new Map<string, RelayedRequest>();
  const send = async () => {
    const batch = [...held.values()];
    held = new Map();
    for (const payload of payloadsOf(requests.id, batch)) await db.rows('select pg_notify($1, $2)', [RELAY_CHANNEL, payload]);
  };
  const run = new PacedRun(RELAY_INTERVAL_MS, () =>
    send().catch((error: unknown) => {
      if (!noteDatabaseFailure(error, 'secondary requests relay'))
        logger.warn({ err: error }, "secondary requests relay: NOTIFY failed; the other processes' NOTIFY paces miss these requests");
    }),
  );
  const stopForwarding = requests.forward((address, zone, keyName) => {
    if (held.size >= HELD_AT_MOST) return;
    held.set(`${address} ${zone} ${keyName ?? ''}`, [address, zone, keyName ?? null]);
    run.request();
  });
  return async () => {
    stopForwarding();
    await run.stop({ runPending: true });
  };
}

/** the requests as notifications' payloads, each under PAYLOAD_OCTETS */
function payloadsOf(from: string, batch: RelayedRequest[]): string[] {
  const payloads: string[] = [];
  let part: RelayedRequest[] = [];
  let octets = 0;
  const flush = () => {
    if (part.length) payloads.push(JSON.stringify({ from, requests: part } satisfies RelayMessage));
    part = [];
    octets = 0;
  };
  for (const request of batch) {
    // a request's own octets, and its share of the brackets, quotes and commas around it
    const size = Buffer.byteLength(request[0]) + Buffer.byteLength(request[1]) + Buffer.byteLength(request[2] ?? 'null') + 12;
    if (octets + size > PAYLOAD_OCTETS - 64) flush();
    part.push(request);
    octets += size;
  }
  flush();
  return payloads;
}

/**
 * The `worker` role's half: the requests the other processes' primaries were asked, told to this process's
 * listeners (the notifier) as its own primary's are. While the LISTEN connection listens, what the secondaries ask
 * is seen here (`SecondaryRequests.observing`). The function returned stops it.
 */
export async function hearSecondaryRequests(db: Database, requests: SecondaryRequests): Promise<() => void> {
  const stopHearing = requests.hearOthers(() => db.notifications.connected);
  const unsubscribe = await db.notifications.subscribe(RELAY_CHANNEL, (payload) => {
    let message: RelayMessage;
    try {
      message = JSON.parse(payload) as RelayMessage;
    } catch {
      return;
    }
    if (message.from === requests.id || !Array.isArray(message.requests)) return;
    for (const request of message.requests) {
      if (!Array.isArray(request) || typeof request[0] !== 'string' || typeof request[1] !== 'string') continue;
      requests.heard(request[0], request[1], typeof request[2] === 'string' ? request[2] : undefined);
    }
  });
  return () => {
    unsubscribe();
    stopHearing();
  };
}
