import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from './free-port';
import { waitUntil } from './wait-for';

/** Debian's PostgreSQL 15 (scripts/ensure-test-tools.sh): the version pg_auto_failover's package is built for */
export const PG_BIN = '/usr/lib/postgresql/15/bin';

const isRoot = process.getuid?.() === 0;
/**
 * PostgreSQL refuses to run as root: as root, its commands run as the postgres user. Asynchronous: the service
 * under test runs in this process, and must go on serving while a promotion or a switchover runs.
 */
export async function runAsPostgres(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Promise<string> {
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  const { stdout } = await promisify(execFile)(file, argv, {
    encoding: 'utf8',
    timeout: options.timeout ?? 60_000,
    env: options.env ?? process.env,
  });
  return stdout;
}

/** a folder PostgreSQL (as the postgres user when we are root) may own */
export function postgresDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  chmodSync(dir, 0o755);
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  return dir;
}

export interface PostgresNode {
  name: string;
  port: number;
  dataDir: string;
  url(database?: string): string;
  /** the postmaster's process id (postmaster.pid) */
  postmasterPid(): number;
}

/**
 * A primary and a streaming standby of Debian's PostgreSQL 15 on loopback ports, with synchronous replication
 * (synchronous_commit=on, the standby synchronous: a commit is acknowledged once the standby has it), as a
 * failover manager keeps them; the test plays the failover manager's part (kill -9, promote).
 */
export interface ReplicationOptions {
  /**
   * false: an asynchronous standby (a commit is acknowledged without it), as a standby for reads is kept; it may
   * then be stopped without holding up the primary's commits. True (the default): synchronous, as a failover
   * manager keeps it
   */
  synchronous?: boolean;
  /** the standby's recovery_min_apply_delay, in ms: it applies each commit that much after the primary made it */
  applyDelayMs?: number;
}

export class ReplicatedPostgres {
  readonly dir = postgresDir('zonekeeper-replicated-');
  primary!: PostgresNode;
  standby!: PostgresNode;
  private readonly synchronous: boolean;

  constructor(private readonly options: ReplicationOptions = {}) {
    this.synchronous = options.synchronous ?? true;
  }

  private node(name: string, port: number): PostgresNode {
    const dataDir = path.join(this.dir, name);
    return {
      name,
      port,
      dataDir,
      url: (database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`,
      postmasterPid: () => Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
    };
  }

  private async start(node: PostgresNode): Promise<void> {
    await runAsPostgres(`${PG_BIN}/pg_ctl`, ['-D', node.dataDir, '-l', `${node.dataDir}.log`, '-o', `-p ${node.port}`, '-w', 'start']);
  }

  async init(): Promise<void> {
    this.primary = this.node('a', await freePort());
    this.standby = this.node('b', await freePort());
    await runAsPostgres(`${PG_BIN}/initdb`, [
      '-D',
      this.primary.dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--encoding=UTF8',
      '--locale=C.UTF-8',
    ]);
    writeFileSync(
      path.join(this.primary.dataDir, 'postgresql.auto.conf'),
      [
        "listen_addresses = '127.0.0.1'",
        "unix_socket_directories = ''",
        'max_connections = 200',
        // a kill -9 of the postmaster keeps the operating system's page cache: fsync buys the test nothing
        'fsync = off',
        'synchronous_commit = on',
        "application_name = 'zonekeeper-test'",
        '',
      ].join('\n'),
    );
    await this.start(this.primary);
    await runAsPostgres(`${PG_BIN}/pg_basebackup`, [
      '-h',
      '127.0.0.1',
      '-p',
      String(this.primary.port),
      '-U',
      'postgres',
      '-D',
      this.standby.dataDir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    if (this.options.applyDelayMs !== undefined) {
      const conf = path.join(this.standby.dataDir, 'postgresql.auto.conf');
      writeFileSync(conf, `${readFileSync(conf, 'utf8')}recovery_min_apply_delay = '${this.options.applyDelayMs}ms'\n`);
    }
    await this.start(this.standby);
    if (!this.synchronous) {
      await this.streaming(this.primary);
      return;
    }
    // one synchronous standby: from now on a commit waits for the standby's flush
    await this.sql(this.primary, ["alter system set synchronous_standby_names = '*'", 'select pg_reload_conf()']);
    await waitUntil(
      'the standby to be synchronous',
      async () =>
        (await this.sql(this.primary, ["select count(*)::int as n from pg_stat_replication where sync_state = 'sync'"]))[0].n === 1,
      20_000,
    );
  }

  /** statements on `node`'s postgres database, the rows of the last */
  async sql(node: PostgresNode, statements: string[], database = 'postgres'): Promise<any[]> {
    const client = new Client({ connectionString: node.url(database) });
    client.on('error', () => undefined);
    await client.connect();
    try {
      let rows: any[] = [];
      for (const statement of statements) rows = (await client.query(statement)).rows;
      return rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** kill -9 of the primary's postmaster: its backends end when they see it gone, nothing is shut down in order */
  killPrimary(): void {
    process.kill(this.primary.postmasterPid(), 'SIGKILL');
  }

  /**
   * Promotes the standby (what the failover manager does once the primary is gone); alone, it stops waiting
   * for a synchronous standby (pg_auto_failover does the same: otherwise every commit would wait for a standby
   * that is not there). The promoted node is the primary from then on, the killed one the `standby` (stopped).
   */
  async promoteStandby(steps: { promoted?: () => void } = {}): Promise<void> {
    await runAsPostgres(`${PG_BIN}/pg_ctl`, ['-D', this.standby.dataDir, '-w', 'promote']);
    steps.promoted?.();
    await this.sql(this.standby, ["alter system set synchronous_standby_names = ''", 'select pg_reload_conf()']);
    [this.primary, this.standby] = [this.standby, this.primary];
  }

  /**
   * A planned switchover, in pg_auto_failover's order: the primary is made read-only
   * (default_transaction_read_only), the standby catches up, the primary stops (fast) and the standby is
   * promoted; then the old primary comes back as the new one's synchronous standby (it stopped at a point the
   * standby had: it follows the new timeline without pg_rewind). Returns when the old primary is made
   * read-only, promoted, and back: the callbacks mark the steps.
   */
  async switchover(steps: { promoted?: () => void } = {}): Promise<void> {
    const [old, next] = [this.primary, this.standby];
    await this.sql(old, ['alter system set default_transaction_read_only = on', 'select pg_reload_conf()']);
    const [{ lsn }] = await this.sql(old, ['select pg_current_wal_lsn()::text as lsn']);
    await waitUntil(
      'the standby to replay what the old primary wrote',
      async () => (await this.sql(next, [`select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as caught`]))[0].caught === true,
      20_000,
    );
    await runAsPostgres(`${PG_BIN}/pg_ctl`, ['-D', old.dataDir, '-m', 'fast', '-w', 'stop']);
    await runAsPostgres(`${PG_BIN}/pg_ctl`, ['-D', next.dataDir, '-w', 'promote']);
    steps.promoted?.();
    this.primary = next;
    this.standby = old;
    await this.follow(old, next);
  }

  /** `node` (stopped) starts as `primary`'s standby, which then waits for it (synchronous) */
  private async follow(node: PostgresNode, primary: PostgresNode): Promise<void> {
    const conf = path.join(node.dataDir, 'postgresql.auto.conf');
    writeFileSync(
      conf,
      `${readFileSync(conf, 'utf8')}default_transaction_read_only = off\nprimary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres application_name=${node.name}'\n`,
    );
    writeFileSync(path.join(node.dataDir, 'standby.signal'), '');
    if (isRoot) execFileSync('chown', ['postgres:postgres', conf, path.join(node.dataDir, 'standby.signal')]);
    await this.start(node);
    await waitUntil(
      'the old primary to stream from the new one',
      async () => (await this.sql(primary, ["select count(*)::int as n from pg_stat_replication where state = 'streaming'"]))[0].n === 1,
      30_000,
    );
    await this.sql(primary, ["alter system set synchronous_standby_names = '*'", 'select pg_reload_conf()']);
    await waitUntil(
      'the old primary to be the synchronous standby',
      async () => (await this.sql(primary, ["select count(*)::int as n from pg_stat_replication where sync_state = 'sync'"]))[0].n === 1,
      20_000,
    );
  }

  /** the standby's recovery_min_apply_delay changed (a reload: it applies to what it replays from then on) */
  async setApplyDelay(ms: number): Promise<void> {
    await this.sql(this.standby, [`alter system set recovery_min_apply_delay = '${ms}ms'`, 'select pg_reload_conf()']);
  }

  /** the standby stopped (fast): from now on a commit on the primary waits for it */
  async stopStandby(): Promise<void> {
    await runAsPostgres(`${PG_BIN}/pg_ctl`, ['-D', this.standby.dataDir, '-m', 'fast', '-w', 'stop']);
  }

  /** `primary` sends its WAL to one standby */
  private async streaming(primary: PostgresNode): Promise<void> {
    await waitUntil(
      'the standby to stream',
      async () => (await this.sql(primary, ["select count(*)::int as n from pg_stat_replication where state = 'streaming'"]))[0].n === 1,
      30_000,
    );
  }

  /** the stopped standby started again: it takes the WAL it missed and is the synchronous standby again */
  async startStandby(): Promise<void> {
    await this.start(this.standby);
    if (!this.synchronous) {
      await this.streaming(this.primary);
      return;
    }
    await waitUntil(
      'the standby to be synchronous again',
      async () =>
        (await this.sql(this.primary, ["select count(*)::int as n from pg_stat_replication where sync_state = 'sync'"]))[0].n === 1,
      30_000,
    );
  }

  async stop(): Promise<void> {
    for (const node of [this.primary, this.standby]) {
      if (!node) continue;
      try {
        await runAsPostgres(`${PG_BIN}/pg_ctl`, ['-D', node.dataDir, '-m', 'immediate', 'stop'], { timeout: 20_000 });
      } catch {
        // already stopped (the killed primary)
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
