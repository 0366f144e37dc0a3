import { Client } from 'pg';
import { isDatabaseUnavailable } from '../../src/db/availability';
import { Database } from '../../src/db/pool';
import type { QueueRun } from '../../src/services/write-engine';
import { createUser, createZone } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { createTestDatabase } from '../support/test-db';
import { sleep, waitUntil } from '../support/wait-for';

/**
 * DATABASE_FAILOVER_WAIT_MS (src/db/pool.ts, `failoverWait`): a unit of work that met no writable primary
 * where nothing of it can have committed runs again; one whose outcome is unknown never does. On a real
 * PostgreSQL, the failures made as a switchover makes them: a session ended by the server (57P01,
 * pg_terminate_backend), a write refused as read-only (25006), and a session ended while its COMMIT runs.
 */
describe('the data layer waits for the primary and runs again only what cannot have committed', () => {
  let scratch: { url: string; drop(): Promise<void> };
  let admin: Client;
  const open: Database[] = [];
  const database = (failoverWaitMs: number) => {
    const db = new Database({ connectionString: scratch.url, poolSize: 4, failoverWaitMs });
    open.push(db);
    return db;
  };
  const count = async (tag: string) =>
    (await admin.query<{ n: number }>('select count(*)::int as n from writes where tag = $1', [tag])).rows[0].n;

  beforeAll(async () => {
    scratch = await createTestDatabase();
    admin = new Client({ connectionString: scratch.url });
    await admin.connect();
    await admin.query('create table writes (id serial primary key, tag text not null)');
    // a deferred constraint trigger runs at COMMIT: pg_sleep there holds the COMMIT in flight long enough to end
    // the session during it
    await admin.query(`create function slow_commit() returns trigger language plpgsql as $$
      begin if new.tag like 'slow%' then perform pg_sleep(2); end if; return null; end $$`);
    await admin.query(
      'create constraint trigger slow_commit after insert on writes deferrable initially deferred for each row execute function slow_commit()',
    );
  }, 30_000);

  afterAll(async () => {
    for (const db of open) await db.close();
    await admin?.end();
    await scratch?.drop();
  });

  it('a transaction whose session the server ended before COMMIT runs again, and its write is there once', async () => {
    const db = database(2000);
    let attempts = 0;
    const id = await db.transaction(async (sql) => {
      attempts++;
      const [row] = await sql.rows<{ id: number }>("insert into writes (tag) values ('ended') returning id");
      // the server ends the session as a fast stop does (57P01): the transaction is rolled back
      if (attempts === 1) await sql.rows('select pg_terminate_backend(pg_backend_pid())');
      return row.id;
    });
    expect(attempts).toBe(2);
    expect(id).toBeGreaterThan(0);
    expect(await count('ended')).toBe(1);
  });

  it('with DATABASE_FAILOVER_WAIT_MS=0 the same transaction fails at once as unavailable (503), nothing written', async () => {
    const db = database(0);
    let attempts = 0;
    const failure = await db
      .transaction(async (sql) => {
        attempts++;
        await sql.rows("insert into writes (tag) values ('no-wait')");
        await sql.rows('select pg_terminate_backend(pg_backend_pid())');
      })
      .catch((error: unknown) => error);
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect(attempts).toBe(1);
    expect(await count('no-wait')).toBe(0);
  });

  it('a write refused as read-only (25006) on a connection without a transaction runs again on a new connection', async () => {
    const db = database(2000);
    let attempts = 0;
    await db.connection(async (sql) => {
      attempts++;
      // this session alone read-only, as a primary made read-only for a switchover is to every session
      if (attempts === 1) await sql.rows('set session characteristics as transaction read only');
      await sql.affected("insert into writes (tag) values ('read-only')");
    });
    expect(attempts).toBe(2);
    expect(await count('read-only')).toBe(1);
  });

  /** ends the session whose COMMIT is in flight, once there is one (a 'slow…' write's COMMIT waits in pg_sleep) */
  const endSessionInCommit = async () => {
    const inCommit = "datname = current_database() and query = 'commit' and state = 'active'";
    await waitUntil(
      'the COMMIT in flight',
      async () => (await admin.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where ${inCommit}`)).rows[0].n === 1,
      5000,
      20,
    );
    await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where ${inCommit}`);
  };

  it('a session ended while its COMMIT is in flight is not run again: its outcome is unknown, it answers 503', async () => {
    const db = database(2000);
    let attempts = 0;
    const failure = db
      .transaction(async (sql) => {
        attempts++;
        await sql.rows("insert into writes (tag) values ('slow-commit')");
      })
      .catch((error: unknown) => error);
    // the COMMIT waits in the deferred trigger's pg_sleep: end that session then
    await endSessionInCommit();
    expect(isDatabaseUnavailable(await failure)).toBe(true);
    expect(attempts).toBe(1);
  });

  it('a connection lost after a statement was sent without a transaction is not run again (that statement may have committed)', async () => {
    const db = database(2000);
    let attempts = 0;
    const failure = await db
      .connection(async (sql) => {
        attempts++;
        await sql.affected("insert into writes (tag) values ('autocommitted')");
        await sql.rows('select pg_terminate_backend(pg_backend_pid())');
      })
      .catch((error: unknown) => error);
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect(attempts).toBe(1);
    expect(await count('autocommitted')).toBe(1);
  });

  /** the sessions of the scratch database that wait for a lock, as a statement blocked behind `admin`'s does */
  const waitingForLock = async () =>
    (
      await admin.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      )
    ).rows[0].n;

  it('a statement under its generic plan whose session ends before its COMMIT runs again, and its write is there once', async () => {
    const db = database(2000);
    let attempts = 0;
    // the insert waits behind this lock, held by a session of its own (a transaction sees pg_stat_activity as it
    // first read it): the insert's session is ended while it waits, inside its own transaction
    const locker = new Client({ connectionString: scratch.url });
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table writes in exclusive mode');
    const written = db.connection(async (sql) => {
      attempts++;
      return sql.rows("insert into writes (tag) values ('generic-ended') returning id", [], { plan: 'generic' });
    });
    await waitUntil('the insert waiting for the lock', async () => (await waitingForLock()) === 1, 5000, 20);
    await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    await locker.query('commit');
    await locker.end();
    expect(await written).toHaveLength(1);
    expect(attempts).toBe(2);
    expect(await count('generic-ended')).toBe(1);
  });

  it('a statement under its generic plan whose session ends while its COMMIT is in flight is not run again', async () => {
    const db = database(2000);
    let attempts = 0;
    const failure = db
      .connection(async (sql) => {
        attempts++;
        await sql.rows("insert into writes (tag) values ('slow-generic')", [], { plan: 'generic' });
      })
      .catch((error: unknown) => error);
    await endSessionInCommit();
    expect(isDatabaseUnavailable(await failure)).toBe(true);
    expect(attempts).toBe(1);
  });

  it('the wait is bounded: a primary that stays read-only fails the write after DATABASE_FAILOVER_WAIT_MS, nothing written', async () => {
    const db = database(600);
    let attempts = 0;
    const startedAt = Date.now();
    const failure = await db
      .transaction(async (sql) => {
        attempts++;
        await sql.rows('set transaction read only');
        await sql.rows("insert into writes (tag) values ('never')");
      })
      .catch((error: unknown) => error);
    const elapsed = Date.now() - startedAt;
    expect((failure as { code?: string }).code).toBe('25006');
    expect(attempts).toBeGreaterThan(1);
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(3000);
    expect(await count('never')).toBe(0);
  });

  it('withFailoverWaitAtMost caps the wait of the work run through it (the DNS primary: a query answers SERVFAIL at once)', async () => {
    const db = database(2000);
    let attempts = 0;
    const startedAt = Date.now();
    const failure = await db
      .withFailoverWaitAtMost(0)
      .transaction(async (sql) => {
        attempts++;
        await sql.rows('set transaction read only');
        await sql.rows("insert into writes (tag) values ('capped')");
      })
      .catch((error: unknown) => error);
    expect((failure as { code?: string }).code).toBe('25006');
    expect(attempts).toBe(1);
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(await count('capped')).toBe(0);
    // a view of the same pool: its base is the database, which the write engine made on it takes it for
    // (write-engine/index.ts; test/integration/write-engine-instances.test.ts)
    const view = db.withFailoverWaitAtMost(0);
    expect(view.base).toBe(db);
    // the view caps its own work only: the database it was made from still waits
    let laterAttempts = 0;
    const later = await db
      .transaction(async (sql) => {
        laterAttempts++;
        await sql.rows('set transaction read only');
        await sql.rows("insert into writes (tag) values ('uncapped')");
      })
      .catch((error: unknown) => error);
    expect((later as { code?: string }).code).toBe('25006');
    expect(laterAttempts).toBeGreaterThan(1);
  });
});

/**
 * The write engine's batches (several queued changes of one zone in one transaction, zone-queue.ts) run again
 * whole by the data layer: each change answered with its own outcome, written once, the serial chain whole.
 */
describe("the write engine's batches under a database that turns read-only", () => {
  let app: TestApp;
  let admin: Client;
  const ZONE = 'batch-wait.example';
  const database = () => new URL(app.settings.databaseUrl!).pathname.slice(1);
  /** new sessions of the app's database read-only (or not), and its sessions now ended: the next ones are made anew */
  const readOnly = async (on: boolean) => {
    await admin.query(
      `alter database "${database()}" ${on ? 'set default_transaction_read_only = on' : 'reset default_transaction_read_only'}`,
    );
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [
      database(),
    ]);
  };

  beforeAll(async () => {
    app = await startTestApp({ DATABASE_FAILOVER_WAIT_MS: '1500', ZONE_CHANGES_PER_SECOND: '0' });
    await createZone(app, await createUser(app, 'batch-wait@example.org'), ZONE);
    admin = new Client({ connectionString: app.settings.databaseUrl });
    await admin.connect();
  }, 30_000);

  afterAll(async () => {
    await admin?.end();
    await app?.close();
  });

  it('changes queued while no write is possible: each answered with its own record once it is, written once', async () => {
    const runs: QueueRun[] = [];
    const stop = app.service.services.writeEngine.watchZoneQueues((run) => runs.push(run));
    await readOnly(true);
    const owners = Array.from({ length: 10 }, (_, index) => `queued${index}`);
    const answers = Promise.all(
      owners.map((owner) =>
        app.gql(
          'mutation($o: String!) { createRecord(input: {zone: "' +
            ZONE +
            '", owner: $o, type: "A", rdata: "192.0.2.7", ttl: 3600}) { owner } }',
          {
            o: owner,
          },
        ),
      ),
    );
    // the first change waits (1.5 s) and is refused; the others, queued behind it, run together and wait too
    await sleep(2000);
    await readOnly(false);
    const results = await answers;
    stop();
    const written = results.flatMap((result, index) =>
      result.errors ? [] : [{ asked: owners[index], got: result.data.createRecord.owner }],
    );
    const refused = results.filter((result) => result.errors);
    expect(refused.every((result) => result.status === 503 && result.errors![0].extensions.code === 'DATABASE_UNAVAILABLE')).toBe(true);
    expect(written.length).toBeGreaterThan(1);
    // each answer is its own change's, not another's of the same batch
    expect(written.filter(({ asked, got }) => asked !== got)).toEqual([]);
    expect(runs.some((run) => 'together' in run && run.together && run.jobs.length > 1)).toBe(true);
    const stored = await admin.query<{ owner: string; n: number }>(
      "select r.owner, count(*)::int as n from records r join domains d on d.id = r.domain_id where d.name = $1 and r.owner like 'queued%' group by r.owner order by r.owner",
      [ZONE],
    );
    expect(stored.rows).toEqual(written.map(({ asked }) => ({ owner: asked, n: 1 })).sort((a, b) => a.owner.localeCompare(b.owner)));
    const chain = await admin.query<{ before: number; after: number }>(
      'select serial_before::int as before, serial_after::int as after from changes where zone = $1 order by id',
      [ZONE],
    );
    expect(chain.rows.filter((link, index, all) => index > 0 && link.before !== all[index - 1].after)).toEqual([]);
  }, 30_000);
});
