import { viewZoneSoa } from './views';
import type { Sql } from '../db/pool';
import { insertEventsSql } from './events';
import { FanoutPass, fanoutPassOf, fanoutPassSql } from './webhooks';
import { SecondaryToNotify, secondariesOf, secondariesToNotifySql } from './zone-secondaries';

/**
 * The propagation worker's SQL (worker/duties/outbox-drain.ts, worker/duties/status-checks.ts, worker/notifier.ts):
 * the outbox claim, the per-secondary status rows and the SOA a NOTIFY carries. Plain statements on the process's pool (src/db/pool.ts), each committing on
 * its own.
 */
export interface ClaimedChange {
  id: number;
  domainId: number;
  zone: string;
  kind: string;
  serialAfter: number;
  /** the zone's extra secondaries to NOTIFY (docs/transfers.md); none for a deleted zone */
  extraSecondaries: SecondaryToNotify[];
}
export interface DueCheck {
  id: number;
  server: string;
  zone: string;
  serial: number;
  attempts: number;
}

/** what a status check found, to be stored (`recordChecks`) */
export interface CheckOutcome {
  id: number;
  served: number | null;
  state: ServerState;
  error: string | null;
  /** the zone's serial the check was for */
  checkedSerial: number;
  attempts: number;
  /** when the next check is due, from now, unless the server is in sync */
  nextInMs: number;
}
export type ServerState = 'pending' | 'in_sync' | 'error';

/**
 * The outbox claim (PropagationRepository.claimChanges), as the WITH part of a statement: up to $1 journal rows
 * locked (SKIP LOCKED) and marked published, and their zones' status rows set to pending for every server of
 * their nameserver set ($2: the default set's), first checked after $3 ms.
 *
 * The claim commits without waiting for its WAL to reach the disk (synchronous_commit off for this transaction
 * alone; PostgreSQL's WAL writer flushes it within wal_writer_delay). A claim lost to a crash or a failover is
 * only undone, never half done: its journal rows are unpublished again and claimed again after the restart, and
 * the secondaries get one more NOTIFY (RFC 1996 §3.7 lets a secondary be told any number of times). The write
 * it follows was durable before it was acknowledged; what the claim saves is the second disk flush per write,
 * which at concurrency 1 waits beside the next write's own (bench/FINDINGS.md, «The worker's claim without its
 * own flush»).
 */
const CLAIM_CTES = `claimed as (
               update changes set published_at = now()
                where id in (select id from changes where published_at is null order by id limit $1 for update skip locked)
                  and (select set_config('synchronous_commit', 'off', true)) is not null
               returning id, domain_id, zone, kind, serial_after),
             locked as (
               -- the claimed zones' status rows, locked in id order before the upsert below updates them, as
               -- recordChecks and checkSoon lock theirs: two statements over the same rows wait, never deadlock.
               -- An array of the claimed zones, so that they are probed by the index, whatever the batch's plan
               select s.id from zone_server_status s
                where s.domain_id = any(array(select domain_id from claimed where domain_id <> 0 and kind <> 'zone-deleted'))
                order by s.id for update),
             pending as (
               -- zones deleted meanwhile match no domain row (their status rows went with them, FK cascade). Each
               -- claimed zone is looked up by its key (a lateral probe): planned for a full batch, a join read
               -- every zone to hash them, a scan that grew with the zones for a claim of a few
               insert into zone_server_status (domain_id, server, state, error, attempts, next_check_at, updated_at)
               select d.id, s.server, 'pending', null, 0, now() + make_interval(secs => $3::float8 / 1000), now()
                 from (select distinct domain_id from claimed where domain_id <> 0 and kind <> 'zone-deleted') c
                      cross join lateral (select x.id, x.nameserver_set from domains x where x.id = c.domain_id limit 1) d
                      join nameserver_sets n on n.id = d.nameserver_set
                      cross join unnest(coalesce(n.secondaries, $2::text[])) as s(server)
                where (select count(*) from locked) >= 0
               on conflict (domain_id, server) do update
                 set state = 'pending', error = null, attempts = 0, next_check_at = excluded.next_check_at, updated_at = now())`;

/** the claimed rows, each with its zone's extra secondaries (none for a deleted zone) */
const CLAIMED_SELECT = `select id, domain_id, zone, kind, serial_after,
                    case when kind <> 'zone-deleted' then ${secondariesToNotifySql('claimed.domain_id')} end as extra
               from claimed order by id`;

interface ClaimedRow {
  id: string | number;
  domain_id: string | number;
  zone: string;
  kind: string;
  serial_after: string | number;
  extra: Parameters<typeof secondariesOf>[1];
}

const claimedChangeOf = (r: ClaimedRow): ClaimedChange => ({
  id: Number(r.id),
  domainId: Number(r.domain_id),
  zone: r.zone,
  kind: r.kind,
  serialAfter: Number(r.serial_after),
  extraSecondaries: secondariesOf(r.zone, r.extra),
});

/**
 * zones among `candidates` (a condition on `domains d`) whose servers all serve their serial and that were not
 * announced at it: marked announced (`propagated_serial`), each with its `zone.propagated` event
 */
function announcePropagatedSql(candidates: string): string {
  return `with z as (
         update domains d set propagated_serial = d.serial
          where ${candidates} and d.propagated_serial is distinct from d.serial
            and not exists (select 1 from zone_server_status o
                             where o.domain_id = d.id and (o.state <> 'in_sync' or o.served_serial is distinct from d.serial))
          returning d.id, d.name, d.user_id, d.serial)
       ${insertEventsSql(`select 'zone.propagated', z.id, z.name, z.user_id, null, jsonb_build_object('zone', z.name, 'serial', z.serial,
           'servers', (select coalesce(jsonb_agg(o.server order by o.server), '[]'::jsonb) from zone_server_status o where o.domain_id = z.id))
         from z`)}`;
}

export class PropagationRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Prunes the journal (the change history, and IXFR's source): published rows older than `keepDays`, and
   * beyond the newest `keepRows` of a zone. Only the oldest rows of a zone go, so what is kept is a contiguous
   * run up to the present: IXFR from a serial before it finds no start and falls back to AXFR (RFC 1995 §4),
   * and the history answers HISTORY_EXPIRED. The newest row of every zone name stays whatever its age (it
   * holds the last serial the name had, which a zone created again with that name must exceed).
   */
  async pruneJournal(keepDays: number, keepRows: number): Promise<number> {
    return this.sql.affected(
      `with aged as (
               select c.id from changes c
                where c.published_at is not null and c.created_at < now() - make_interval(days => $1::int)
                  and c.id < (select max(l.id) from changes l where l.zone = c.zone)),
             capped as (
               select id from (select id, published_at, row_number() over (partition by zone order by id desc) as rn from changes) x
                where x.rn > $2::int and x.published_at is not null)
             delete from changes where id in (select id from aged union select id from capped)`,
      [keepDays, keepRows],
    );
  }

  /**
   * Claims and publishes up to `batch` journal rows in one statement: the rows are locked (SKIP LOCKED:
   * another worker takes others), marked published, and their zones' status rows set to `pending` for every
   * server, first check after `firstCheckMs`, all or nothing; each row comes with its zone's extra secondaries
   * (the notifier's other addressees). Four round trips per drain (BEGIN, claim,
   * update, COMMIT) were as many PostgreSQL statements as the API's own writes
   * (docs/performance.md, «The journal's readers»).
   */
  async claimChanges(batch: number, servers: string[], firstCheckMs: number): Promise<ClaimedChange[]> {
    const rows = await this.sql.rows<ClaimedRow>(`with ${CLAIM_CTES} ${CLAIMED_SELECT}`, [batch, servers, firstCheckMs]);
    return rows.map(claimedChangeOf);
  }

  /**
   * claimChanges and the webhook fan-out's step while no subscription is enabled (fanoutPassSql, up to
   * `fanoutBatch` events) in one statement: what the worker does after a write, one commit and one WAL flush
   * where the two statements were two, each beside the next write at concurrency 1 (bench/FINDINGS.md, «The
   * worker's work after a write in one commit»). Either both or neither commit; the fan-out's answer is
   * fanoutPassOf's (undefined: another process holds its place).
   */
  async claimChangesPassingFanout(
    batch: number,
    servers: string[],
    firstCheckMs: number,
    fanoutBatch: number,
  ): Promise<{ claimed: ClaimedChange[]; fanout: FanoutPass | undefined }> {
    const pass = fanoutPassSql('$4');
    const [row] = await this.sql.rows<{ claimed: ClaimedRow[] | null } & Parameters<typeof fanoutPassOf>[0]>(
      `with ${CLAIM_CTES}, ${pass.ctes}
       select (select json_agg(c order by c.id) from (${CLAIMED_SELECT}) c) as claimed, ${pass.columns}`,
      [batch, servers, firstCheckMs, fanoutBatch],
    );
    return { claimed: (row.claimed ?? []).map(claimedChangeOf), fanout: fanoutPassOf(row) };
  }

  /** the zones and servers not known to be in sync (after a restart, they get a NOTIFY) */
  async unsyncedZoneServers(): Promise<{ zone: string; server: string }[]> {
    const rows = await this.sql.rows<{ name: string; server: string }>(
      `select d.name, s.server from zone_server_status s join domains d on d.id = s.domain_id where s.state <> 'in_sync'`,
    );
    return rows.map((row) => ({ zone: row.name, server: row.server }));
  }

  /** claims up to `batch` due checks (SKIP LOCKED) and leases them for `leaseSeconds` */
  async claimDueChecks(batch: number, leaseSeconds: number): Promise<DueCheck[]> {
    const rows = await this.sql.rows<{ id: string; server: string; name: string; serial: string; attempts: number }>(
      `with due as (
         select s.id from zone_server_status s
          where s.state <> 'in_sync' and s.next_check_at <= now()
          order by s.next_check_at limit $1 for update skip locked)
       update zone_server_status s set next_check_at = now() + make_interval(secs => $2::float8)
         from due, domains d where s.id = due.id and d.id = s.domain_id
       returning s.id, s.server, d.name, d.serial, s.attempts`,
      [batch, leaseSeconds],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      server: row.server,
      zone: row.name,
      serial: Number(row.serial),
      attempts: row.attempts,
    }));
  }

  /**
   * Brings forward to `inMs` from now the checks of zones their secondary has just asked for (`server` and `zone`,
   * pairwise: its refresh, an SOA query then a transfer), when not in sync and due later: a server that lagged long
   * has its next check minutes away (a backed-off schedule), and the zone would be shown behind that long after
   * the server took it. Its attempts are brought back to `attemptsAtMost`, so that the checks after that one come
   * at a short interval again: a secondary may serve a transfer only when it next loads its zones (NSD's reload, a
   * second or more at a hoster's scale), after the check a second later.
   */
  async checkSoon(servers: string[], zones: string[], inMs: number, attemptsAtMost: number): Promise<void> {
    await this.sql.affected(
      `with locked as (
         select s.id from zone_server_status s join domains d on d.id = s.domain_id
                join unnest($1::text[], $2::text[]) as a(server, zone) on d.name = a.zone and s.server = a.server
          where s.state <> 'in_sync' and s.next_check_at > now() + make_interval(secs => $3::float8 / 1000)
          order by s.id for update of s)
       update zone_server_status s set next_check_at = now() + make_interval(secs => $3::float8 / 1000),
              attempts = least(s.attempts, $4::int)
        where s.id in (select id from locked)
          and s.state <> 'in_sync' and s.next_check_at > now() + make_interval(secs => $3::float8 / 1000)`,
      [servers, zones, inMs, attemptsAtMost],
    );
  }

  /**
   * Deletes up to `batch` status rows of servers not in their zone's nameserver set (for the default set: no
   * longer in SECONDARIES, `servers`); returns how many. Every worker is meant to run with the same
   * SECONDARIES: a worker with another list would delete what the first keeps.
   */
  async forgetServersOtherThan(servers: string[], batch: number): Promise<number> {
    const rowCount = await this.sql.affected(
      `delete from zone_server_status where id in (
         select s.id from zone_server_status s join domains d on d.id = s.domain_id join nameserver_sets n on n.id = d.nameserver_set
          where s.server <> all(coalesce(n.secondaries, $1::text[])) limit $2)`,
      [servers, batch],
    );
    return rowCount;
  }

  /**
   * Gives the zones with ids above `afterId` (up to `batch` of them, in id order) a status row for every
   * server of their nameserver set they lack (`servers`: the default set's, SECONDARIES): pending, first checked within `spreadMs` (spread so that a new secondary's
   * 100,000 zones are not asked at once). The check then learns what the server already serves. Returns the
   * last zone id looked at (undefined when there are no more zones).
   */
  async adoptZones(servers: string[], afterId: number, batch: number, spreadMs: number): Promise<number | undefined> {
    const rows = await this.sql.rows<{ last_id: string | null }>(
      `with zones as (select id from domains where id > $2 order by id limit $3),
             adopted as (
               insert into zone_server_status (domain_id, server, state, error, attempts, next_check_at, updated_at)
               select z.id, s.server, 'pending', null, 0, now() + make_interval(secs => random() * $4::float8 / 1000), now()
                 from zones z join domains d on d.id = z.id join nameserver_sets n on n.id = d.nameserver_set
                      cross join unnest(coalesce(n.secondaries, $1::text[])) as s(server)
               on conflict (domain_id, server) do nothing)
       select max(id) as last_id from zones`,
      [servers, afterId, batch, spreadMs],
    );
    return rows[0]?.last_id == null ? undefined : Number(rows[0].last_id);
  }

  /** a status row of a server no longer configured: error, never checked again */
  async markServerRemoved(id: number): Promise<void> {
    await this.sql.affected(
      `update zone_server_status set state = 'error', error = 'server no longer in SECONDARIES', next_check_at = 'infinity', updated_at = now() where id = $1`,
      [id],
    );
  }

  /**
   * Stores checks' outcomes, one statement for them all: a round at a hoster's scale is hundreds of checks, and a
   * statement each was most of the database's work while secondaries took a change to every zone. The zone's
   * serial is re-read in the update: a change committed since a check was claimed keeps its row pending (no lost
   * update). The rows are locked in id order first, as `checkSoon` locks them: two statements over overlapping rows
   * (two workers' checks, a lease run out) wait for each other instead of deadlocking.
   */
  async recordChecks(checks: readonly CheckOutcome[]): Promise<void> {
    if (!checks.length) return;
    await this.sql.affected(
      `with locked as (select id from zone_server_status where id = any($1::bigint[]) order by id for update)
       update zone_server_status s
          set served_serial = coalesce(c.served, s.served_serial),
              state = case when c.state = 'in_sync' and d.serial <> c.checked_serial then 'pending' else c.state end,
              error = case when c.state = 'in_sync' and d.serial <> c.checked_serial then null else c.error end,
              attempts = case when c.state = 'in_sync' then 0 else c.attempts end,
              next_check_at = case when c.state = 'in_sync' and d.serial = c.checked_serial then 'infinity'::timestamptz
                                   when c.state = 'in_sync' then now() else now() + make_interval(secs => c.next_in_ms / 1000) end,
              updated_at = now()
         from unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::int[], $7::float8[])
                as c(id, served, state, error, checked_serial, attempts, next_in_ms),
              domains d
        where s.id = c.id and d.id = s.domain_id and s.id in (select id from locked)`,
      [
        checks.map((c) => c.id),
        checks.map((c) => c.served),
        checks.map((c) => c.state),
        checks.map((c) => c.error),
        checks.map((c) => c.checkedSerial),
        checks.map((c) => c.attempts),
        checks.map((c) => c.nextInMs),
      ],
    );
  }

  /**
   * The `zone.propagated` event (repositories/events.ts) of the zones of the status rows `ids`, each once every
   * server of its set serves its serial, once per serial (`domains.propagated_serial`). A statement of its own,
   * after the checks' own committed: of two servers found in sync at the same time, each statement sees the
   * other's row committed or the other's announcement made, so the event is neither lost nor said twice (the
   * update of the zone row checks `propagated_serial` again once it holds the row).
   */
  async announcePropagated(ids: readonly number[]): Promise<void> {
    if (!ids.length) return;
    await this.sql.affected(announcePropagatedSql('d.id in (select domain_id from zone_server_status where id = any($1::bigint[]))'), [
      ids,
    ]);
  }

  /**
   * The `zone.propagated` event of every zone that is owed one: each of its servers serves its serial and it was
   * not announced. A check's outcome commits before its announcement (`announcePropagated`), so a process that
   * stopped, or a database that failed, between the two leaves the zone in sync and never checked again; this
   * says what was not said. The number of zones announced.
   */
  async announceOwedPropagations(): Promise<number> {
    return this.sql.affected(announcePropagatedSql('exists (select 1 from zone_server_status s where s.domain_id = d.id)'), []);
  }

  /** the catalog zone's serial (0 before its first change) */
  async catalogSerial(catalogZone: string): Promise<number> {
    const rows = await this.sql.rows<{ serial: string }>('select serial from catalog_state where name = $1', [catalogZone]);
    return rows[0] ? Number(rows[0].serial) : 0;
  }

  /** a zone's SOA record and its current serial, for the NOTIFY that announces it */
  async zoneSoa(zone: string): Promise<{ rdata: string; ttl: number; serial: number } | undefined> {
    const rows = await this.sql.rows<{ rdata: string; ttl: number; serial: string }>(
      `select r.rdata, r.ttl, d.serial from domains d join records r on r.domain_id = d.id and r.owner = '@' and r.type = 'SOA'
        where d.name = $1 limit 1`,
      [zone],
    );
    return rows[0] ? { rdata: rows[0].rdata, ttl: rows[0].ttl, serial: Number(rows[0].serial) } : undefined;
  }

  /** a view's zone's SOA (docs/views.md): the base's with the view's serial */
  viewZoneSoa(zone: string, viewId: number): Promise<{ rdata: string; ttl: number; serial: number } | undefined> {
    return viewZoneSoa(this.sql, zone, viewId);
  }
}
