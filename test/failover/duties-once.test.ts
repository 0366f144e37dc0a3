import 'reflect-metadata';
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { createUser, createZone } from '../support/fixtures';
import { startTestApp, TestApp, ADMIN_KEY } from '../support/test-app';
import { waitFor, waitUntil } from '../support/wait-for';

/**
 * The duties that must run once (key roll steps, signature refresh, the outbox, catalog admission) with two
 * worker processes (ROLES=worker, real processes) on one database: each zone's step is taken under its row
 * lock after the due state is read again inside it, leases move what is due, and claims skip locked rows
 * (docs/deployment.md, «Several processes»). Every key of the zones goes through each state once (one key
 * event per key and state), the journal's serial chain has no gap, and when one worker is killed with SIGKILL
 * mid-roll the other takes the remaining steps: every roll ends.
 */
const ZONES = Array.from({ length: 6 }, (_, index) => `duty${index}.zk-once.test`);
const root = path.resolve(__dirname, '..', '..');

describe('duties done once with two worker processes', () => {
  let app: TestApp;
  let db: Client;
  const workers: { child: ChildProcess; output: () => string }[] = [];

  const startWorker = () => {
    const child = spawn(process.execPath, ['--require', '@swc-node/register', 'src/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: app.settings.databaseUrl,
        API_KEY: ADMIN_KEY,
        ROLES: 'worker',
        DNS_LISTEN: '',
        SECONDARIES: '',
        ALLOWED_TTLS: 'any',
        DNSSEC_PROPAGATION_DELAY: '1',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const worker = { child, output: () => output };
    workers.push(worker);
    return worker;
  };

  beforeAll(async () => {
    app = await startTestApp({ ROLES: 'api', ALLOWED_TTLS: 'any', DNSSEC_PROPAGATION_DELAY: '1' });
    const userId = await createUser(app, 'once@example.org');
    for (const zone of ZONES) {
      await createZone(app, userId, zone);
      const imported = await app.gql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t) { serial } }`, {
        z: zone,
        t: `$ORIGIN ${zone}.\n@ 1 IN SOA ns1.${zone}. hostmaster.${zone}. 1 7200 3600 1209600 1\n@ 1 IN NS ns1.${zone}.\nns1 1 IN A 192.0.2.1\n`,
      });
      expect(imported.errors).toBeUndefined();
      const enabled = await app.gql(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { keys { keyTag } } }`, { z: zone });
      expect(enabled.errors).toBeUndefined();
    }
    db = new Client({ connectionString: app.settings.databaseUrl });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    for (const { child } of workers) if (child.exitCode === null) child.kill('SIGKILL');
    await db?.end();
    await app?.close();
  });

  it('two workers take each key roll step once; one killed, the other finishes every roll', async () => {
    const [first] = [startWorker(), startWorker()];
    for (const zone of ZONES) {
      const rolled = await app.gql(`mutation($z: String!) { rollDnssecKey(zone: $z, role: ZSK) { keys { keyTag } } }`, { z: zone });
      expect(rolled.errors).toBeUndefined();
    }
    const removed = async () =>
      (
        await db.query<{ n: number }>(
          "select count(*)::int as n from dnssec_key_events e where e.to_state = 'removed' and e.reason <> 'disabled' and e.role = 'ZSK'",
        )
      ).rows[0].n;
    // the workers are stepping the rolls: one is killed with SIGKILL in the middle of them
    await waitUntil(
      'key roll steps taken by the workers',
      async () =>
        (await db.query<{ n: number }>("select count(*)::int as n from dnssec_key_events where reason = 'scheduled'")).rows[0].n > 0,
      60_000,
    );
    expect(workers.map(({ child }) => child.exitCode)).toEqual([null, null]);
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    await waitFor(
      'every roll to end (the old ZSK removed) on the worker left',
      async () => ((await removed()) === ZONES.length ? true : undefined),
      90_000,
    );
    process.stdout.write(`duties: every roll ended ${Date.now() - killedAt} ms after one of the two workers was killed\n`);

    const twice = await db.query(
      'select key_id, to_state, count(*)::int as n from dnssec_key_events group by key_id, to_state having count(*) > 1',
    );
    expect(twice.rows).toEqual([]);
    // the journal of each zone: every change starts at the serial the one before it ended at
    const chains = await db.query<{ zone: string; before: number; after: number }>(
      "select zone, serial_before::int as before, serial_after::int as after from changes where zone like '%.zk-once.test' order by zone, id",
    );
    const breaks = chains.rows.filter(
      (link, index, all) => index > 0 && all[index - 1].zone === link.zone && link.before !== all[index - 1].after,
    );
    expect(breaks).toEqual([]);
    expect(workers[1].child.exitCode).toBeNull();
  }, 180_000);
});
