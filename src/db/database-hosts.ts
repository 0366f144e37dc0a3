import { ConnectionString, HostType } from 'connection-string';
import { Client, ClientConfig } from 'pg';

/**
 * DATABASE_URL with several hosts, as libpq takes it (PostgreSQL's documentation, «Connection Strings»,
 * 34.1.1.3 «Specifying Multiple Hosts»): a URL `postgresql://user@a:5432,b:5433/db?target_session_attrs=read-write`
 * or keyword/value pairs `host=a,b port=5432,5433 dbname=db target_session_attrs=read-write`. node-postgres takes
 * one host (a connection string with a host list fails there), so the host is chosen here, as libpq chooses it: the hosts in order, each
 * connection checked (target_session_attrs), the first that fits taken. Every pool, the LISTEN connection and
 * the migrator connect to the host found (DatabaseHosts.primary); a connection that finds itself on a standby
 * or a read-only server, or loses its server, makes the next connection look again (DatabaseHosts.lost).
 */

/** what a session must be for the service: `read-write` (libpq's check, the default with several hosts), `primary` (not in recovery), or `any` */
export type SessionAttrs = 'any' | 'read-write' | 'primary';

export interface DatabaseTarget {
  host: string;
  port: number;
  /** a one-host URL of this host, with every other parameter of DATABASE_URL: what pg and MikroORM parse */
  url: string;
}

export interface ParsedDatabaseUrl {
  targets: DatabaseTarget[];
  sessionAttrs: SessionAttrs;
}

export class DatabaseUrlError extends Error {}

const DEFAULT_PORT = 5432;

/**
 * libpq's keyword/value form (34.1.1.1): `key = value` pairs separated by whitespace; a value in single quotes
 * may hold spaces, and a backslash escapes the next character in either form.
 */
function keywordPairs(text: string): Map<string, string> {
  const pairs = new Map<string, string>();
  let at = 0;
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at])) at++;
  };
  while ((skipSpace(), at < text.length)) {
    const key = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at))?.[0];
    if (!key) throw new DatabaseUrlError(`DATABASE_URL: expected a keyword at "${text.slice(at, at + 20)}"`);
    at += key.length;
    skipSpace();
    if (text[at] !== '=') throw new DatabaseUrlError(`DATABASE_URL: missing "=" after "${key}"`);
    at++;
    skipSpace();
    let value = '';
    const quoted = text[at] === "'";
    if (quoted) at++;
    for (; at < text.length; at++) {
      const char = text[at];
      if (quoted && char === "'") break;
      if (!quoted && /\s/.test(char)) break;
      if (char === '\\' && at + 1 < text.length) value += text[++at];
      else value += char;
    }
    if (quoted) {
      if (text[at] !== "'") throw new DatabaseUrlError(`DATABASE_URL: unterminated quoted value of "${key}"`);
      at++;
    }
    pairs.set(key, value);
  }
  return pairs;
}

const list = (value: string | undefined) => (value === undefined ? [] : value.split(',').map((item) => item.trim()));

/** the hosts and ports of `host=a,b port=1,2` (one port for all, or one each; an empty one is 5432) */
function hostList(hosts: string[], ports: string[]): { host: string; port: number }[] {
  if (ports.length > 1 && ports.length !== hosts.length)
    throw new DatabaseUrlError(`DATABASE_URL: ${hosts.length} hosts but ${ports.length} ports (give one port, or one per host)`);
  return hosts.map((host, index) => {
    const text = ports.length > 1 ? ports[index] : ports[0];
    const port = text ? Number(text) : DEFAULT_PORT;
    if (!host) throw new DatabaseUrlError('DATABASE_URL: an empty host in the host list');
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new DatabaseUrlError(`DATABASE_URL: "${text}" is not a port`);
    return { host, port };
  });
}

function sessionAttrsOf(value: string | undefined, hosts: number): SessionAttrs {
  // the service writes: with several hosts, the one to use is the writable one unless told otherwise
  if (value === undefined) return hosts > 1 ? 'read-write' : 'any';
  if (value === 'any' || value === 'read-write' || value === 'primary') return value;
  throw new DatabaseUrlError(`DATABASE_URL: target_session_attrs must be read-write, primary or any (the service writes), not "${value}"`);
}

/**
 * Parses DATABASE_URL (a postgres:// or postgresql:// URL, or libpq's keyword/value pairs) into its hosts, each
 * with a one-host URL carrying the other parameters (sslmode, application_name…) for pg and MikroORM.
 */
export function parseDatabaseUrl(text: string): ParsedDatabaseUrl {
  let base: ConnectionString;
  let hosts: { host: string; port: number }[];
  if (/^postgres(ql)?:\/\//.test(text)) {
    try {
      base = new ConnectionString(text);
    } catch (error) {
      throw new DatabaseUrlError(`DATABASE_URL: ${(error as Error).message}`);
    }
    const params = { ...(base.params ?? {}) } as Record<string, string>;
    // a host list in the query (`?host=a,b&port=1,2`) takes the place of the URL's
    if (params.host !== undefined) hosts = hostList(list(params.host), list(params.port));
    else
      hosts = (base.hosts ?? []).map(({ name, port }) => ({ host: (name ?? '').replace(/^\[(.*)\]$/, '$1'), port: port ?? DEFAULT_PORT }));
    if (!hosts.length) hosts = [{ host: 'localhost', port: DEFAULT_PORT }];
    delete params.host;
    delete params.port;
    base.params = params;
  } else if (/^\s*[A-Za-z_]+\s*=/.test(text)) {
    const pairs = keywordPairs(text);
    hosts = hostList(pairs.has('host') ? list(pairs.get('host')) : ['localhost'], list(pairs.get('port')));
    const params: Record<string, string> = {};
    for (const [key, value] of pairs) if (!['host', 'port', 'user', 'password', 'dbname'].includes(key)) params[key] = value;
    base = new ConnectionString('postgresql://');
    base.user = pairs.get('user');
    base.password = pairs.get('password');
    base.path = pairs.get('dbname') ? [pairs.get('dbname')!] : undefined;
    base.params = params;
  } else {
    throw new DatabaseUrlError('DATABASE_URL must be a postgres:// or postgresql:// URL, or libpq keyword/value pairs (host=… dbname=…)');
  }
  const params = base.params as Record<string, string>;
  const sessionAttrs = sessionAttrsOf(params.target_session_attrs, hosts.length);
  delete params.target_session_attrs;
  if (!Object.keys(params).length) base.params = undefined;
  return {
    sessionAttrs,
    targets: hosts.map(({ host, port }) => {
      const one = new ConnectionString(base.toString());
      one.protocol = 'postgresql';
      one.setDefaults({ hosts: [] });
      one.hosts = [host.includes(':') ? { name: `[${host}]`, port, type: HostType.IPv6 } : { name: host, port }];
      return { host, port, url: one.toString() };
    }),
  };
}

/** an error that says no host fits: pg's class 08 (connection exception), so availability.ts answers 503 */
export class NoSuitableHostError extends Error {
  readonly code = '08001';
}

/** how long the search waits for one host before it tries the next */
const PROBE_TIMEOUT_MS = 2000;

/**
 * The process's choice among DATABASE_URL's hosts, shared by its pool, its LISTEN connection and its migrator.
 * The host found is kept until a connection on it says it is gone or no longer writable (`lost`); the next
 * connection then tries the hosts again, from the one found last. Each search that follows a loss starts a
 * new generation: the pool's connections of an earlier one are dropped when they are next lent (pool.ts),
 * so a switchover that left the old primary read-only does not fail one request per pooled connection.
 */
export class DatabaseHosts {
  readonly targets: DatabaseTarget[];
  readonly sessionAttrs: SessionAttrs;
  private found?: DatabaseTarget;
  private searching?: Promise<DatabaseTarget>;
  /** where the next search starts (the host found last) */
  private startAt = 0;
  /** bumped at each loss: connections made before it may be on the old primary */
  generation = 0;
  private readonly lossListeners = new Set<() => void>();

  constructor(url: string | ParsedDatabaseUrl) {
    const parsed = typeof url === 'string' ? parseDatabaseUrl(url) : url;
    this.targets = parsed.targets;
    this.sessionAttrs = parsed.sessionAttrs;
  }

  /** one host, any session: nothing to choose or check (pg connects as it always did) */
  get fixed(): boolean {
    return this.targets.length === 1 && this.sessionAttrs === 'any';
  }

  /** the host to connect to: the one found, or the first that fits after a search */
  async primary(): Promise<DatabaseTarget> {
    if (this.fixed) return this.targets[0];
    if (this.found) return this.found;
    this.searching ??= this.search().finally(() => {
      this.searching = undefined;
    });
    return this.searching;
  }

  /**
   * A connection of `generation` failed in a way that may mean its host is no longer the primary (it is gone,
   * read-only, or in recovery): the next connection searches again. Losses of an earlier generation change nothing.
   */
  lost(generation: number): void {
    if (this.fixed || generation !== this.generation) return;
    this.found = undefined;
    this.generation++;
    for (const listener of this.lossListeners) listener();
  }

  /**
   * The connections made so far are not lent again (pool.ts drops them when next lent): the next ones connect
   * anew, and a host name is resolved anew with them. A standby's pool (db/read-replicas.ts) is renewed when the
   * standby stops serving, so that a name a failover manager moves to another node is followed.
   */
  renew(): void {
    this.generation++;
  }

  /** calls `listener` at each loss (the LISTEN connection moves with the pool); returns the stop */
  onLoss(listener: () => void): () => void {
    this.lossListeners.add(listener);
    return () => this.lossListeners.delete(listener);
  }

  /**
   * Why a session that reported `settings` (ParameterStatus at its start: PostgreSQL 14 and later report
   * in_hot_standby and default_transaction_read_only, which is how libpq checks without a query) does not fit;
   * undefined when it fits or the server did not say (then the search's own check stands).
   */
  unfit(settings: ReadonlyMap<string, string>): string | undefined {
    if (this.sessionAttrs === 'any') return undefined;
    if (settings.get('in_hot_standby') === 'on') return 'a standby (in recovery)';
    if (this.sessionAttrs === 'read-write' && settings.get('default_transaction_read_only') === 'on')
      return 'read-only (default_transaction_read_only)';
    return undefined;
  }

  private async search(): Promise<DatabaseTarget> {
    const reasons: string[] = [];
    for (let step = 0; step < this.targets.length; step++) {
      const index = (this.startAt + step) % this.targets.length;
      const target = this.targets[index];
      const reason = await this.check(target);
      if (!reason) {
        this.startAt = index;
        this.found = target;
        return target;
      }
      reasons.push(`${target.host}:${target.port} ${reason}`);
    }
    throw new NoSuitableHostError(`no ${this.sessionAttrs} PostgreSQL server among DATABASE_URL's hosts (${reasons.join('; ')})`);
  }

  /**
   * libpq's check for target_session_attrs (fe-connect.c): `read-write` asks transaction_read_only, `primary`
   * pg_is_in_recovery(); here both in one query. A just-promoted standby stays read-only for a moment under
   * pg_auto_failover, and an old primary is made read-only before a switchover: not in recovery is not writable.
   */
  private async check(target: DatabaseTarget): Promise<string | undefined> {
    const client = new Client({ connectionString: target.url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ recovery: boolean; read_only: string }>(
        "select pg_is_in_recovery() as recovery, current_setting('transaction_read_only') as read_only",
      );
      if (rows[0].recovery) return 'is a standby (in recovery)';
      if (this.sessionAttrs === 'read-write' && rows[0].read_only === 'on') return 'is read-only';
      return undefined;
    } catch (error) {
      return `cannot be reached (${(error as Error).message})`;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** a pg Client that connects to the host DatabaseHosts found, and knows the generation it was made in */
export interface HostedClient extends Client {
  readonly generation: number;
}

/** the generation of a connection made by hostedClientClass's clients */
export function generationOf(client: Client): number {
  return (client as Partial<HostedClient>).generation ?? 0;
}

/**
 * The pg Client class of a process's connections (the pool's `Client`, the LISTEN connection): before it
 * connects it asks `hosts` for the host; once connected it checks what the server reported (unfit), and a
 * session that does not fit is closed and counted as a loss.
 */
export function hostedClientClass(hosts: DatabaseHosts): new (config?: ClientConfig) => HostedClient {
  return class extends Client implements HostedClient {
    generation = hosts.generation;
    private readonly reported = new Map<string, string>();

    constructor(config?: ClientConfig) {
      super(config);
      // a connection whose server goes away may say so (57P01, a reset) when nobody holds it: that is a loss
      // of the primary, never a reason for the process to end (an 'error' event without a listener throws)
      this.on('error', () => hosts.lost(this.generation));
      this.connection.on('parameterStatus', (message: { parameterName: string; parameterValue: string }) => {
        this.reported.set(message.parameterName, message.parameterValue);
      });
    }

    connect(): Promise<Client>;
    connect(callback: (error: Error | undefined) => void): void;
    connect(callback?: (error: Error | undefined) => void): Promise<Client> | void {
      const connecting = this.connectToPrimary();
      if (!callback) return connecting;
      connecting.then(
        () => callback(undefined),
        (error: Error) => callback(error),
      );
    }

    private async connectToPrimary(): Promise<Client> {
      this.generation = hosts.generation;
      if (!hosts.fixed) {
        const target = await hosts.primary();
        this.host = target.host;
        this.port = target.port;
        (this as unknown as { connectionParameters: { host: string; port: number } }).connectionParameters.host = target.host;
        (this as unknown as { connectionParameters: { host: string; port: number } }).connectionParameters.port = target.port;
      }
      await super.connect();
      const unfit = hosts.unfit(this.reported);
      if (unfit) {
        hosts.lost(this.generation);
        await this.end().catch(() => undefined);
        throw new NoSuitableHostError(`${this.host}:${this.port} is ${unfit} now`);
      }
      return this;
    }
  };
}
