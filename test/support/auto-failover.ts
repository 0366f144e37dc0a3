import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from './free-port';
import { PG_BIN, postgresDir, runAsPostgres } from './replicated-postgres';
import { waitFor } from './wait-for';

export interface FormationNode {
  name: string;
  port: number;
  state: string;
}

/**
 * A pg_auto_failover formation from Debian's postgresql-15-auto-failover (scripts/ensure-test-tools.sh): a
 * monitor and two data nodes on free loopback ports in a folder of its own, run by `pg_autoctl` (as the
 * postgres user when we are root: PostgreSQL refuses root). Its replication is synchronous by default (one
 * standby: `synchronous_standby_names = 'ANY 1 (…)'`, synchronous_commit on).
 */
export class AutoFailoverFormation {
  readonly dir = postgresDir('zonekeeper-auto-failover-');
  private readonly runs: ChildProcess[] = [];
  monitorPort = 0;
  nodePorts: number[] = [];

  private get env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      PATH: `${PG_BIN}:${process.env.PATH}`,
      PG_CONFIG: `${PG_BIN}/pg_config`,
      XDG_CONFIG_HOME: path.join(this.dir, 'config'),
      XDG_DATA_HOME: path.join(this.dir, 'data'),
      XDG_RUNTIME_DIR: path.join(this.dir, 'run'),
    };
  }

  /** `pg_autoctl create … --run`, in the background for as long as the formation lives */
  private run(args: string[]): void {
    const command = ['pg_autoctl', ...args];
    const child =
      process.getuid?.() === 0
        ? spawn('runuser', ['-u', 'postgres', '--', ...command], { env: this.env, stdio: 'ignore' })
        : spawn(command[0], args, { env: this.env, stdio: 'ignore' });
    this.runs.push(child);
  }

  private get monitorUrl(): string {
    return `postgres://autoctl_node@127.0.0.1:${this.monitorPort}/pg_auto_failover`;
  }

  async start(): Promise<void> {
    this.monitorPort = await freePort();
    this.nodePorts = [await freePort(), await freePort()];
    const common = ['--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl', '--run'];
    this.run(['create', 'monitor', '--pgdata', path.join(this.dir, 'monitor'), '--pgport', String(this.monitorPort), ...common]);
    await waitFor('the monitor', () => this.nodes().catch(() => undefined), 60_000, 200);
    for (const [index, port] of this.nodePorts.entries()) {
      this.run([
        'create',
        'postgres',
        '--pgdata',
        path.join(this.dir, `node${index + 1}`),
        '--pgport',
        String(port),
        '--monitor',
        this.monitorUrl,
        ...common,
      ]);
      // one node at a time: the first is the primary, the second its standby (pg_basebackup from it)
      await this.settled(index + 1);
    }
  }

  /** the data nodes as the monitor knows them */
  async nodes(): Promise<FormationNode[]> {
    const client = new Client({
      connectionString: `postgres://postgres@127.0.0.1:${this.monitorPort}/pg_auto_failover`,
      connectionTimeoutMillis: 2000,
    });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; port: number; reported: string; goal: string }>(
        'select nodename as name, nodeport as port, reportedstate::text as reported, goalstate::text as goal from pgautofailover.node order by nodeid',
      );
      return rows.map(({ name, port, reported, goal }) => ({ name, port, state: reported === goal ? reported : `${reported}>${goal}` }));
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** waits until `count` nodes are there, one primary (`single` when alone) and the others secondaries; returns the primary */
  async settled(count = 2, timeoutMs = 90_000): Promise<FormationNode> {
    return waitFor(
      `a primary and ${count - 1} secondaries`,
      async () => {
        const nodes = await this.nodes();
        // alone, the first node is `single`; with a standby, `primary`
        const primary = nodes.find((node) => node.state === (count === 1 ? 'single' : 'primary'));
        return nodes.length === count && primary && nodes.every((node) => node === primary || node.state === 'secondary')
          ? primary
          : undefined;
      },
      timeoutMs,
      200,
    );
  }

  /** DATABASE_URL of `database` over both data nodes, as `pg_autoctl show uri` gives it */
  url(database: string): string {
    return `postgresql://postgres@${this.nodePorts.map((port) => `127.0.0.1:${port}`).join(',')}/${database}?target_session_attrs=read-write`;
  }

  nodeUrl(port: number, database = 'postgres'): string {
    return `postgresql://postgres@127.0.0.1:${port}/${database}`;
  }

  /** kill -9 of the postmaster on `port` (its keeper, pg_autoctl, lives on) */
  killPostmaster(port: number): void {
    const index = this.nodePorts.indexOf(port);
    const pid = Number(readFileSync(path.join(this.dir, `node${index + 1}`, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 1) throw new Error(`no postmaster pid for port ${port}`);
    process.kill(pid, 'SIGKILL');
  }

  /**
   * `pg_autoctl perform switchover` (waits until it is done). The monitor's perform_failover can meet a node's
   * own state report in a deadlock (pg_auto_failover 2.0: "deadlock detected" on pgautofailover.node): it is
   * asked again then, as an operator would.
   */
  async switchover(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await runAsPostgres('pg_autoctl', ['perform', 'switchover', '--pgdata', path.join(this.dir, 'node1')], {
          env: this.env,
          timeout: 120_000,
        });
        return;
      } catch (error) {
        if (attempt >= 3 || !/deadlock detected/.test(String((error as { stderr?: string }).stderr ?? error))) throw error;
      }
    }
  }

  async stop(): Promise<void> {
    for (const name of ['node2', 'node1', 'monitor']) {
      try {
        await runAsPostgres('pg_autoctl', ['stop', '--pgdata', path.join(this.dir, name)], { env: this.env, timeout: 30_000 });
      } catch {
        // not running
      }
    }
    const running = this.runs.filter((child) => child.exitCode === null);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(running.map((child) => new Promise((resolve) => child.once('exit', resolve)))),
      new Promise((resolve) => (timer = setTimeout(resolve, 20_000))),
    ]);
    clearTimeout(timer);
    for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
