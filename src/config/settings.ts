import path from 'node:path';
import { isIP } from 'node:net';
import { parseCidr } from '../dns/ip';
import { AllowedTtls, DEFAULT_ALLOWED_TTLS, namedTtlPolicy, parseAllowedTtls } from '../dns/ttl';
import type { TsigKey } from '../dns/wire/tsig';
import { parseDatabaseUrl } from '../db/database-hosts';
import { isEmail } from 'class-validator';
import { AnalyticsSettings, loadAnalyticsSettings } from './analytics-settings';

/**
 * Every setting of the service, read from the environment once, validated as a whole: a wrong value stops
 * the start with one message that names every bad setting (docs/decisions.md §5).
 */
export type SerialPolicy = 'date' | 'increment' | 'unixtime';
/**
 * a process's roles (ROLES): the HTTP API, the DNS primary, the worker (every duty, the steering prober among
 * them), or the steering prober alone (`prober`: a vantage elsewhere needs only the database and its own network),
 * and the query analytics' dnstap collector (`collector`, docs/analytics.md)
 */
export type Role = 'api' | 'dns' | 'worker' | 'prober' | 'collector';
const ROLE_NAMES: readonly Role[] = ['api', 'dns', 'worker', 'prober', 'collector'];
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface HostPort {
  host: string;
  port: number;
}
/** a server as SECONDARIES names it and status rows store it: `address:port`, `[v6]:port` */
export const hostPortName = (server: HostPort) =>
  server.host.includes(':') ? `[${server.host}]:${server.port}` : `${server.host}:${server.port}`;

export interface Settings {
  port: number;
  /** HOST: the HTTP listen address; loopback unless told otherwise (a fresh start exposes nothing) */
  host: string;
  /**
   * METRICS_ALLOW: addresses / CIDRs whose GET /metrics needs no key; from anywhere else it needs the admin key
   * (the metrics name secondaries and tenants' activity)
   */
  metricsAllow: string[];
  databaseUrl: string | undefined;
  dataDir: string;
  apiKey: string | undefined;
  /** ALLOWED_TTLS: the REST layer's TTLs (RESTKnot's nine by default), values and ranges; empty = any TTL */
  allowedTtls: AllowedTtls;
  /**
   * ALLOWED_TTLS_BEYOND_REST: the TTLs of every other edge (the PowerDNS API, GraphQL, the console and the CLI,
   * DNS UPDATE, zone-file imports there); empty (`any`, the default) = any TTL of RFC 2181 §8
   */
  allowedTtlsBeyondRest: AllowedTtls;
  defaultSoaMname: string;
  defaultSoaRname: string;
  defaultNs: string[];
  /**
   * OPERATOR_ACCOUNT: the e-mail of the user owning the zones the admin key creates through the PowerDNS API
   * without naming a user in `account` (docs/powerdns-api.md); made on first need
   */
  operatorAccount: string;
  /** DEFAULT_WWW_CNAME: whether a new zone also gets `www CNAME <zone>.` (RESTKnot's default records) */
  defaultWwwCname: boolean;
  serialPolicy: SerialPolicy;
  restEnvelope: 'none' | 'restknot';
  /** named prepared statements for the fixed SQL (off behind PgBouncer < 1.21 in transaction pooling) */
  preparedStatements: 'on' | 'off';
  /**
   * DATABASE_POOL_SIZE: the connections of the process's one pool (src/db/database.ts), shared by every role it
   * runs; the LISTEN connection (src/db/notifications.ts) is one more
   */
  databasePoolSize: number;
  /**
   * DATABASE_FAILOVER_WAIT_MS: how long a unit of work that met no writable primary (a switchover, a failover)
   * where nothing of it can have committed waits for the primary and runs again before it answers 503
   * (src/db/pool.ts, docs/deployment.md); 0 = 503 at once
   */
  databaseFailoverWaitMs: number;
  /**
   * DATABASE_REPLICA_URL: one or more streaming standbys (a host list, as DATABASE_URL takes) that serve the
   * reads which may lag (src/db/read-replicas.ts, docs/deployment.md «Reading from standbys»); undefined: every
   * read on the primary
   */
  databaseReplicaUrl: string | undefined;
  /**
   * REPLICA_WAIT_MS: how long a read that sent a Consistency-Token back waits for a standby to replay that far
   * before it is served by the primary
   */
  replicaWaitMs: number;
  /** REPLICA_MAX_LAG_MS: a standby further behind than this is skipped until it catches up */
  replicaMaxLagMs: number;
  dnsListen: HostPort | undefined;
  catalogZone: string;
  secondaries: HostPort[];
  transferAllow: string[];
  /** addresses / CIDRs a DNS UPDATE (RFC 2136) may come from; it must also be signed with a user's TSIG key */
  updateAllow: string[];
  tsigKey: TsigKey | undefined;
  /** NOTIFY_RATE_PER_SECONDARY: NOTIFYs a second to a secondary until its pace is learnt (worker/notify-pacing.ts) */
  notifyRatePerSecondary: number;
  /**
   * VIEWS_UNSIGNED_TRANSFERS: what an SOA query, AXFR or IXFR of a zone with views' zones gets when it is not
   * signed with a view's key (docs/views.md): `base`, the base zone (the implicit default view); `refuse`, REFUSED
   * with an Extended DNS Error (RFC 8914), so that a secondary that lost its view's key serves nothing rather than
   * the wrong view
   */
  viewsUnsignedTransfers: 'base' | 'refuse';
  roles: Role[];
  logLevel: LogLevel;
  /** largest request body, in bytes (REST and GraphQL), a zone-file import's aside */
  bodyLimit: number;
  /**
   * largest body of a zone-file import (`importZone`, POST /api/domain/import/:zone), in bytes: sized for a zone
   * of the record quota; never below bodyLimit (src/http/body-limits.ts)
   */
  importBodyLimit: number;
  /**
   * IMPORT_PARSER_HEAP_MB: the old generation of the zone-file parser's worker thread, in MiB; a file whose
   * records it cannot hold is refused (413 ZONE_FILE_TOO_LARGE), the process untouched (src/services/zones/zone-file-parser.ts)
   */
  importParserHeapMb: number;
  /** on SIGTERM/SIGINT, how long in-flight HTTP requests may run before their connections are closed */
  shutdownGraceMs: number;
  /**
   * HEAVY_REQUESTS_AT_ONCE: how many heavy requests (large bodies, costly or zone-file GraphQL operations, whole
   * zones over REST) run at once in the process, whoever sends them; the others wait (src/http/heavy-requests.ts)
   */
  heavyRequestsAtOnce: number;
  /** GraphQL cost ceiling for one operation (src/graphql/limits.ts) */
  graphqlMaxComplexity: number;
  /** GraphQL nesting ceiling for one operation */
  graphqlMaxDepth: number;
  /** most items one list page may return */
  maxPageSize: number;
  /** the most changes one change set (applyZoneChanges) may hold */
  maxChangesPerSet: number;
  /**
   * the longest RRset comment GraphQL, REST, the CLI, the console and a zone file's line may give, in characters
   * (docs/changes.md, «Comments»); the PowerDNS API keeps PowerDNS's own bounds
   */
  maxCommentLength: number;
  /** the change history (journal) kept: days, and rows per zone; older rows are pruned by the worker */
  historyKeepDays: number;
  historyKeepRows: number;
  /**
   * FAST_PATHS: the measured fast paths of GraphQL execution (compiled execution with graphql-jit, direct
   * field resolvers; docs/performance.md); off runs graphql-js and type-graphql as written, for comparison
   * and for diagnosing a suspected fast-path bug
   */
  fastPaths: boolean;
  /**
   * DNSSEC (docs/dnssec.md): the key-encryption key that seals the zones' private keys (32 bytes, from
   * DNSSEC_KEY_ENCRYPTION_KEY as base64 or DNSSEC_KEY_ENCRYPTION_KEY_FILE; unset: a file in DATA_DIR, generated
   * on first use), and the signatures' timing in seconds: validity, the margin before expiry at which they are
   * refreshed, and the jitter that spreads expirations (RFC 6781 §4.4.2)
   */
  dnssecKeyEncryptionKey: Buffer | { file: string };
  dnssecSignatureValidity: number;
  dnssecSignatureRefresh: number;
  dnssecSignatureJitter: number;
  /**
   * key rollovers (RFC 7583), in seconds: how long a ZSK and a KSK/CSK sign before they are rolled (0: only by
   * hand), and the propagation delay added to every TTL wait (the time a change takes to reach every secondary)
   */
  dnssecZskLifetime: number;
  dnssecKskLifetime: number;
  dnssecPropagationDelay: number;
  /**
   * the parent's DS checked at these servers (a parent outside Zonekeeper; RFC 7344 §4.1, RFC 7583 §3.3.1):
   * the authoritative servers of the parent zone, asked for the zone's DS RRset; empty, the default: the
   * operator confirms by hand. Asked every `dnssecParentDsCheckInterval` seconds while a zone waits.
   */
  dnssecParentDsServers: HostPort[];
  dnssecParentDsCheckInterval: number;
  /**
   * Seconds between two sweeps of the RFC 9615 signalling records (services/dnssec/bootstrap-signals.ts): a
   * key step updates its zone's signals at once; the sweep catches what no key step tells (NS edited, a
   * signalling zone signed later, a zone deleted).
   */
  dnssecBootstrapSweepInterval: number;
  /**
   * DNSSEC_CDS_NOTIFY_ALLOW: CIDR blocks a parent's NOTIFY(CDS) endpoint (its DSYNC record, RFC 9859) may be in
   * although not public (loopback, private); the parent's DNS data names the endpoint, so the service's own
   * host and private networks are refused otherwise (src/outbound/addresses.ts)
   */
  dnssecCdsNotifyAllow: string[];
  /**
   * TRANSFER_SERVERS_ALLOW: CIDR blocks a user's key may name as a server the service transfers a zone from (a
   * secondary zone's primaries, an import's source) or sends a zone's NOTIFYs to (its extra secondaries) although
   * not public (a customer's primary behind a VPN: its private range); the admin key names any server
   * (src/outbound/addresses.ts)
   */
  transferServersAllow: string[];
  /**
   * DNSSEC_FOREIGN_KEYS_FETCH_ALLOW: CIDR blocks the other signer's server (multi-signer, RFC 8901; the address
   * a caller gives `addForeignDnskeys` to read its DNSKEY RRset from) may be in although not public (loopback,
   * private); the caller names the address, so the service's own host and private networks are refused otherwise
   */
  dnssecForeignKeysFetchAllow: string[];
  /**
   * DNSSEC_FOREIGN_KEYS_REFRESH_INTERVAL: seconds between two readings of the other signers' DNSKEY RRsets at
   * the servers their keys were read from (services/dnssec/foreign-keys.ts, refreshForeignKeys): their key rolls
   * followed. 0: never (their new keys are added by hand)
   */
  dnssecForeignKeysRefreshInterval: number;
  /**
   * ALIAS/ANAME flattening (docs/templates-and-alias.md): the resolvers asked for a target's A and AAAA (empty:
   * no ALIAS is taken, since nothing could serve it), and the floor and cap, in seconds, of the refresh
   * interval and of the derived records' TTL (the answers' smallest TTL, clamped)
   */
  aliasResolvers: HostPort[];
  aliasMinTtl: number;
  aliasMaxTtl: number;
  /**
   * Zone health (docs/health.md): every zone's delegation, DS and signatures checked from where resolvers stand,
   * by iterative resolution from these root servers. `interval` seconds between two checks of a zone (0: no
   * scheduled checks; a check asked for, checkHealth, still runs); `serialGrace` seconds a nameserver may serve an older serial than the one
   * committed before it is a finding; `signatureThreshold` seconds: a served RRSIG expiring sooner is one;
   * `allowNetworks`: CIDRs the checker may query although they are loopback, private or link-local (addresses
   * learned from the DNS, which a zone's owner chooses); `queryTimeoutMs` per query; `zonesAtOnce` zones checked
   * at once by a worker; `ipv6`: AAAA addresses of nameservers are asked too
   */
  health: {
    interval: number;
    rootHints: HostPort[];
    serialGrace: number;
    signatureThreshold: number;
    allowNetworks: string[];
    queryTimeoutMs: number;
    zonesAtOnce: number;
    ipv6: boolean;
  };
  /**
   * Steering (docs/steering.md): health-checked pools decided in the primary and published as records.
   * `checkInterval` seconds between two probes of a check (a check may set its own, 1–300 s); `checkTimeoutMs`
   * a probe's time to connect and answer, below the interval; `fall` failures in a row before an endpoint is
   * down, `rise` successes in a row before it is up again; `allowNetworks`: CIDRs a check may probe although they
   * are loopback, private or link-local (the outbound rule: a check's address is its zone owner's choice);
   * `externalLease` seconds a report of an external check holds when the report names no lease of its own;
   * `holdSeconds` a check that changed state keeps it at least this long (flap damping); `vantage` this prober's
   * name, `quorum` the share of the sound vantages that decides, `canaries` the addresses every vantage probes to
   * know its own network works, `panic` the one-vantage freeze's rule (docs/steering.md, «Vantages and the quorum»)
   */
  steering: {
    vantage: string;
    quorum: Quorum;
    canaries: { address: string; port: number }[];
    panic: PanicRule;
    checkInterval: number;
    checkTimeoutMs: number;
    fall: number;
    rise: number;
    holdSeconds: number;
    allowNetworks: string[];
    externalLease: number;
  };
  /**
   * Rate limits (README "Rate limits and quotas"): token buckets of `burst` requests refilled at `perSecond`,
   * one per user (RATE_LIMIT_*) shared by all of its keys, and one per key (KEY_RATE_LIMIT_*) besides; the
   * admin sets other values per user and per key. 0 = no limit. Counted in each API process on its own.
   */
  rateLimit: { user: RateLimit; key: RateLimit };
  /**
   * RATE_LIMIT_REFUSAL_DELAY_MS: how long an HTTP request over its rate limit waits at least before its 429 is
   * sent (each hold is 1 to 1.5 times this): bounds what a client that ignores Retry-After costs the process
   */
  rateLimitRefusalDelayMs: number;
  /**
   * RATE_LIMIT_CONCURRENCY: how many requests of one user (HTTP, and GraphQL queries and mutations over
   * WebSocket) run at once in a process (0 = no cap); the others wait their turn in order, at most
   * RATE_LIMIT_QUEUE of them, and beyond that are refused 429 (RATE_LIMITED)
   */
  rateLimitConcurrency: { perUser: number; queue: number };
  /** ZONE_CHANGES_PER_SECOND / ZONE_CHANGES_BURST: the changes (serial steps) one zone takes per second; 0 = no limit */
  zoneChangeLimit: RateLimit;
  /** the quotas of a user without values of their own (the admin sets others); 0 = no quota */
  quotas: { maxZones: number; maxRecordsPerZone: number };
  /**
   * People's sessions (docs/people.md): SESSION_IDLE_TIMEOUT and SESSION_ABSOLUTE_TIMEOUT in seconds,
   * INVITATION_TTL (seconds an invitation link stays good), RECOVERY_LINK_TTL (seconds a recovery link stays
   * good), TRUST_PROXY (Express's `trust proxy`: behind a TLS
   * proxy the cookie is `Secure` when the proxy says https), PUBLIC_ORIGIN (the console's origin, for the CSRF
   * Origin check; unset: the request's own host)
   */
  sessions: {
    idleSeconds: number;
    absoluteSeconds: number;
    invitationSeconds: number;
    recoverySeconds: number;
    trustProxy: string | undefined;
    publicOrigin: string | undefined;
  };
  /**
   * Webhooks (docs/events.md): WEBHOOK_ALLOW (CIDR blocks an endpoint may be in although not public: loopback,
   * private…; empty: public addresses only), WEBHOOK_CONNECT_TIMEOUT_MS and WEBHOOK_TIMEOUT_MS (a delivery's
   * connect and total time), WEBHOOK_RETRY_BASE_MS (the first retry's delay, doubling), WEBHOOK_RETRY_MAX_SECONDS
   * (the longest delay), WEBHOOK_RETRY_HOURS (how long a delivery is retried before it is failed),
   * WEBHOOK_DISABLE_AFTER_DAYS (an endpoint failing that long is disabled), WEBHOOK_CONCURRENCY (deliveries under
   * way at once per endpoint), WEBHOOK_SECRET_OVERLAP_HOURS (how long a rotated secret still signs, counted from
   * the rotation that retired it; a decimal number of hours), WEBHOOK_MAX_SECRETS (the secrets that may sign an
   * endpoint's deliveries at once, the current one included: a rotation that would make more is refused)
   */
  webhooks: {
    allow: string[];
    connectTimeoutMs: number;
    timeoutMs: number;
    retryBaseMs: number;
    retryMaxSeconds: number;
    retryHours: number;
    disableAfterDays: number;
    concurrency: number;
    secretOverlapHours: number;
    maxSecrets: number;
  };
  /**
   * OpenID Connect sign-in (docs/people.md): OIDC_ISSUER (the provider's issuer URL, discovered), OIDC_CLIENT_ID,
   * OIDC_CLIENT_SECRET, OIDC_REDIRECT_URL (unset: <origin>/auth/oidc/callback), OIDC_PROVIDER_NAME (the words of
   * the console's "Sign in with …"), OIDC_SCOPES (scopes asked beyond `openid email`), OIDC_OPERATOR_CLAIM and
   * OIDC_OPERATOR_VALUES (both or neither: the claim whose value, or one of whose values, makes the person an
   * operator; docs/people.md, «The operator»); undefined: no OIDC sign-in
   */
  oidc:
    | {
        issuer: string;
        clientId: string;
        clientSecret: string | undefined;
        redirectUrl: string | undefined;
        providerName: string | undefined;
        /** scopes asked beyond `openid email` (a provider that releases the operator claim under a scope of its own) */
        scopes: string[];
        /** the operator mapping; undefined: sign-ins grant and remove no operator */
        operator: { claim: string; values: string[] } | undefined;
      }
    | undefined;
  /** the query analytics (docs/analytics.md) */
  analytics: AnalyticsSettings;
}

export interface RateLimit {
  perSecond: number;
  burst: number;
}

export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid settings: ${problems.join('; ')}`);
  }
}

/** the IPv4 addresses of the thirteen root servers (a.root-servers.net … m.root-servers.net, root hints of 2023) */
export const ROOT_SERVERS_V4 = [
  '198.41.0.4',
  '170.247.170.2',
  '192.33.4.12',
  '199.7.91.13',
  '192.203.230.10',
  '192.5.5.241',
  '192.112.36.4',
  '198.97.190.53',
  '192.36.148.17',
  '192.58.128.30',
  '193.0.14.129',
  '199.7.83.42',
  '202.12.27.33',
];

function list(value: string): string[] {
  return value
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
}

export function parseHostPort(value: string): HostPort | undefined {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(value.trim());
  if (!match) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1], port } : undefined;
}

/** an IP address with its port (`192.0.2.1:5300`, `[2001:db8::1]:5300`) or without (port 53: `2001:db8::1`) */
/**
 * STEERING_QUORUM: the share of the sound vantages that must see a check fail (or pass) for it to go down (or
 * up): `majority` (more than half, the default), or a percentage that must be reached
 */
export type Quorum = 'majority' | number;

/** STEERING_PANIC and STEERING_PANIC_MIN_CHECKS: the one-vantage panic freeze's rule (docs/steering.md) */
export interface PanicRule {
  enabled: boolean;
  minChecks: number;
}

export function parseServerAddress(value: string): HostPort | undefined {
  const item = value.trim();
  const colons = (item.match(/:/g) ?? []).length;
  const parsed =
    item.startsWith('[') && item.endsWith(']')
      ? parseHostPort(`${item}:53`)
      : !item.startsWith('[') && colons > 1
        ? parseHostPort(`[${item}]:53`)
        : colons === 0
          ? parseHostPort(`${item}:53`)
          : parseHostPort(item);
  return parsed && isIP(parsed.host) ? parsed : undefined;
}

export function isHostName(value: string): boolean {
  return /^([a-z0-9_]([a-z0-9-_]{0,61}[a-z0-9_])?\.)+$/i.test(value) && value.length <= 254;
}

/** an address or a CIDR block, as the allow-list settings hold them (src/dns/ip.ts) */
function isAddressOrCidr(value: string): boolean {
  return parseCidr(value) !== undefined;
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env, projectRoot = process.cwd()): Settings {
  const problems: string[] = [];
  const read = (name: string) => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!allowed.includes(raw.toLowerCase() as T)) {
      problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw.toLowerCase() as T;
  };
  const hostName = (name: string, fallback: string): string => {
    const raw = (read(name) ?? fallback).toLowerCase();
    const absolute = raw.endsWith('.') ? raw : `${raw}.`;
    if (!isHostName(absolute)) problems.push(`${name} must be a host name (got "${raw}")`);
    return absolute;
  };

  /** a TTL policy setting: values, ranges or `any` (src/dns/ttl.ts parseAllowedTtls), named for its refusals */
  const ttlPolicy = (name: string, fallback: AllowedTtls): AllowedTtls => {
    const raw = read(name);
    const parsed = raw === undefined ? fallback : parseAllowedTtls(raw);
    if (!parsed)
      problems.push(
        `${name} must be \`any\` or a comma-separated list of whole numbers and ranges (60-86400) from 0 to 2147483647 (got "${raw}")`,
      );
    return namedTtlPolicy(parsed ?? fallback, name);
  };
  // RESTKnot's preserved values are the REST contract's (docs/decisions.md §3); the other edges take any TTL of
  // RFC 2181 §8 unless the operator sets a policy for them: a TTL is never changed without a word
  const allowedTtls = ttlPolicy('ALLOWED_TTLS', DEFAULT_ALLOWED_TTLS);
  const allowedTtlsBeyondRest = ttlPolicy('ALLOWED_TTLS_BEYOND_REST', []);

  const defaultNs = (() => {
    const raw = read('DEFAULT_NS') ?? 'ns1.example.net., ns2.example.net.';
    const names = list(raw).map((n) => (n.endsWith('.') ? n : `${n}.`).toLowerCase());
    if (!names.length || names.some((n) => !isHostName(n))) problems.push(`DEFAULT_NS must list host names (got "${raw}")`);
    return names;
  })();

  const operatorAccount = (read('OPERATOR_ACCOUNT') ?? 'operator@localhost.localdomain').trim();
  // the same rule as a user's e-mail (GraphQL's UserInput): the operator is a user like any other
  if (!isEmail(operatorAccount) || operatorAccount.length > 254)
    problems.push(`OPERATOR_ACCOUNT must be an e-mail address (got "${operatorAccount}")`);

  const dnsListen = (() => {
    const raw = env.DNS_LISTEN === undefined ? '127.0.0.1:5353' : env.DNS_LISTEN.trim();
    if (raw === '') return undefined;
    const parsed = parseHostPort(raw);
    if (!parsed) problems.push(`DNS_LISTEN must be address:port, or empty to disable (got "${raw}")`);
    return parsed;
  })();

  const secondaries = list(read('SECONDARIES') ?? '').flatMap((item) => {
    const parsed = parseHostPort(item);
    if (!parsed) problems.push(`SECONDARIES must list address:port entries (got "${item}")`);
    return parsed ? [parsed] : [];
  });

  const transferAllow = list(read('TRANSFER_ALLOW') ?? '127.0.0.0/8,::1/128');
  for (const item of transferAllow) {
    if (!isAddressOrCidr(item)) problems.push(`TRANSFER_ALLOW must list addresses or CIDR blocks (got "${item}")`);
  }
  const metricsAllow = list(read('METRICS_ALLOW') ?? '127.0.0.0/8,::1/128');
  for (const item of metricsAllow) {
    if (!isAddressOrCidr(item)) problems.push(`METRICS_ALLOW must list addresses or CIDR blocks (got "${item}")`);
  }
  const webhookAllow = list(read('WEBHOOK_ALLOW') ?? '');
  const cdsNotifyAllow = list(read('DNSSEC_CDS_NOTIFY_ALLOW') ?? '');
  for (const item of cdsNotifyAllow)
    if (!isAddressOrCidr(item)) problems.push(`DNSSEC_CDS_NOTIFY_ALLOW must list addresses or CIDR blocks (got "${item}")`);
  const foreignKeysFetchAllow = list(read('DNSSEC_FOREIGN_KEYS_FETCH_ALLOW') ?? '');
  for (const item of foreignKeysFetchAllow)
    if (!isAddressOrCidr(item)) problems.push(`DNSSEC_FOREIGN_KEYS_FETCH_ALLOW must list addresses or CIDR blocks (got "${item}")`);
  for (const item of webhookAllow) {
    if (!isAddressOrCidr(item)) problems.push(`WEBHOOK_ALLOW must list addresses or CIDR blocks (got "${item}")`);
  }
  const transferServersAllow = list(read('TRANSFER_SERVERS_ALLOW') ?? '');
  for (const item of transferServersAllow)
    if (!isAddressOrCidr(item)) problems.push(`TRANSFER_SERVERS_ALLOW must list addresses or CIDR blocks (got "${item}")`);
  const updateAllow = list(read('UPDATE_ALLOW') ?? '127.0.0.0/8,::1/128');
  for (const item of updateAllow) {
    if (!isAddressOrCidr(item)) problems.push(`UPDATE_ALLOW must list addresses or CIDR blocks (got "${item}")`);
  }

  const tsigKey = (() => {
    const raw = read('TSIG_KEY');
    if (raw === undefined) return undefined;
    const [name, algorithm, secret, ...rest] = raw.split(':');
    const decoded = secret ? Buffer.from(secret, 'base64') : Buffer.alloc(0);
    if (rest.length || !name || algorithm?.toLowerCase() !== 'hmac-sha256' || decoded.length < 16) {
      // never echo the secret
      problems.push('TSIG_KEY must be name:hmac-sha256:<base64 secret of at least 16 bytes>');
      return undefined;
    }
    return { name: name.toLowerCase().replace(/\.$/, ''), algorithm: 'hmac-sha256' as const, secret: decoded };
  })();

  const steeringInterval = integer('STEERING_CHECK_INTERVAL', 10, 1, 300);

  const analytics = loadAnalyticsSettings({ read, integer, problems });
  const roles = (() => {
    // a collector runs by default where it has somewhere to listen
    const raw = read('ROLES') ?? (analytics.dnstapListen ? 'api,dns,worker,collector' : 'api,dns,worker');
    const values = list(raw.toLowerCase());
    const bad = values.filter((v) => !ROLE_NAMES.includes(v as Role));
    if (!values.length || bad.length) problems.push(`ROLES must list api, dns, worker, prober and/or collector (got "${raw}")`);
    if (values.includes('collector') && !analytics.dnstapListen)
      problems.push('ROLES=collector needs ANALYTICS_DNSTAP_LISTEN (the unix socket or address:port dnstap is sent to)');
    if (analytics.metricsPort !== undefined && values.includes('api'))
      problems.push(`METRICS_PORT is for a process without the api role (ROLES=${raw}): its /metrics is on PORT`);
    return [...new Set(values.filter((v) => !bad.includes(v)))] as Role[];
  })();

  const databaseUrl = read('DATABASE_URL');
  if (databaseUrl !== undefined) {
    // a URL or libpq's keyword/value pairs, with one host or a host list (db/database-hosts.ts)
    try {
      parseDatabaseUrl(databaseUrl);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  const databaseReplicaUrl = read('DATABASE_REPLICA_URL');
  if (databaseReplicaUrl !== undefined) {
    // the same forms as DATABASE_URL; each host is a standby read on its own, so no session attribute that
    // asks for a writable server fits
    try {
      const { sessionAttrs } = parseDatabaseUrl(databaseReplicaUrl);
      if (sessionAttrs !== 'any' && /target_session_attrs/.test(databaseReplicaUrl))
        problems.push(`DATABASE_REPLICA_URL names standbys: target_session_attrs must be any or left out (got ${sessionAttrs})`);
    } catch (error) {
      problems.push((error as Error).message.replace(/^DATABASE_URL/, 'DATABASE_REPLICA_URL'));
    }
    // the embedded PostgreSQL has no standbys: reads on a standby of another server would read another database
    if (databaseUrl === undefined) problems.push('DATABASE_REPLICA_URL needs DATABASE_URL (the primary its standbys stream from)');
  }
  const apiKey = read('API_KEY');
  if (apiKey !== undefined && apiKey.length < 16) problems.push('API_KEY must be at least 16 characters long');

  const catalogZone = (read('CATALOG_ZONE') ?? 'catalog.zonekeeper.invalid').toLowerCase().replace(/\.$/, '');
  if (!isHostName(`${catalogZone}.`)) problems.push(`CATALOG_ZONE must be a domain name (got "${catalogZone}")`);

  // a key's own bucket defaults to its user's values: one key alone is limited as its user is
  const userRate = { perSecond: integer('RATE_LIMIT_PER_SECOND', 50, 0, 1_000_000), burst: integer('RATE_LIMIT_BURST', 500, 1, 1_000_000) };
  const keyRate = {
    perSecond: integer('KEY_RATE_LIMIT_PER_SECOND', userRate.perSecond, 0, 1_000_000),
    burst: integer('KEY_RATE_LIMIT_BURST', userRate.burst, 1, 1_000_000),
  };

  const settings: Settings = {
    port: integer('PORT', 3000, 0, 65535),
    host: read('HOST') ?? '127.0.0.1',
    metricsAllow,
    databaseUrl,
    dataDir: path.resolve(projectRoot, read('DATA_DIR') ?? '.data'),
    apiKey,
    allowedTtls,
    allowedTtlsBeyondRest,
    defaultSoaMname: hostName('DEFAULT_SOA_MNAME', 'ns1.example.net.'),
    defaultSoaRname: hostName('DEFAULT_SOA_RNAME', 'hostmaster.example.net.'),
    defaultNs,
    operatorAccount,
    defaultWwwCname: oneOf('DEFAULT_WWW_CNAME', ['on', 'off'] as const, 'on') === 'on',
    serialPolicy: oneOf('SERIAL_POLICY', ['date', 'increment', 'unixtime'] as const, 'date'),
    restEnvelope: oneOf('REST_ENVELOPE', ['none', 'restknot'] as const, 'none'),
    preparedStatements: oneOf('DATABASE_PREPARED_STATEMENTS', ['on', 'off'] as const, 'on'),
    databasePoolSize: integer('DATABASE_POOL_SIZE', 20, 1, 1000),
    databaseFailoverWaitMs: integer('DATABASE_FAILOVER_WAIT_MS', 2500, 0, 30_000),
    databaseReplicaUrl,
    replicaWaitMs: integer('REPLICA_WAIT_MS', 500, 0, 30_000),
    // below 100 ms a standby's own apply of a busy primary's WAL would skip it most of the time
    replicaMaxLagMs: integer('REPLICA_MAX_LAG_MS', 5000, 100, 3_600_000),
    dnsListen,
    catalogZone,
    secondaries,
    transferAllow,
    updateAllow,
    tsigKey,
    // a change to 100,000 zones leaves in 500 s even where nothing is learnt (the dns role in another process)
    notifyRatePerSecondary: integer('NOTIFY_RATE_PER_SECONDARY', 200, 1, 100_000),
    viewsUnsignedTransfers: oneOf('VIEWS_UNSIGNED_TRANSFERS', ['base', 'refuse'] as const, 'base'),
    roles,
    logLevel: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    bodyLimit: integer('BODY_LIMIT', 1024 * 1024, 1024, 64 * 1024 * 1024),
    // 100,000 records (MAX_RECORDS_PER_ZONE's default) are some 7 MB of zone file as an export writes them; 32 MiB
    // leaves room for comments, long TXT (DKIM keys) and a JSON body's escapes
    importBodyLimit: integer('IMPORT_BODY_LIMIT', 32 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    // a file of the record quota (100,000 records) takes some 60 MiB of the parser's heap (docs/performance.md)
    importParserHeapMb: integer('IMPORT_PARSER_HEAP_MB', 256, 16, 65_536),
    shutdownGraceMs: integer('SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    heavyRequestsAtOnce: integer('HEAVY_REQUESTS_AT_ONCE', 4, 0, 10_000),
    graphqlMaxComplexity: integer('GRAPHQL_MAX_COMPLEXITY', 200_000, 10, 100_000_000),
    graphqlMaxDepth: integer('GRAPHQL_MAX_DEPTH', 8, 2, 64),
    maxPageSize: integer('MAX_PAGE_SIZE', 10_000, 1, 1_000_000),
    maxChangesPerSet: integer('MAX_CHANGES_PER_SET', 10_000, 1, 1_000_000),
    maxCommentLength: integer('MAX_COMMENT_LENGTH', 512, 1, 65_535),
    historyKeepDays: integer('HISTORY_KEEP_DAYS', 90, 1, 36_500),
    historyKeepRows: integer('HISTORY_KEEP_ROWS', 10_000, 10, 100_000_000),
    fastPaths: oneOf('FAST_PATHS', ['on', 'off'] as const, 'on') === 'on',
    dnssecKeyEncryptionKey: (() => {
      const inline = read('DNSSEC_KEY_ENCRYPTION_KEY');
      if (inline !== undefined) {
        const key = Buffer.from(inline, 'base64');
        if (key.length !== 32) problems.push('DNSSEC_KEY_ENCRYPTION_KEY must be 32 bytes in base64 (openssl rand -base64 32)');
        return key;
      }
      return {
        file: path.resolve(projectRoot, read('DNSSEC_KEY_ENCRYPTION_KEY_FILE') ?? path.join(read('DATA_DIR') ?? '.data', 'dnssec-kek')),
      };
    })(),
    dnssecSignatureValidity: integer('DNSSEC_SIGNATURE_VALIDITY', 14 * 86400, 60, 366 * 86400),
    dnssecSignatureRefresh: integer('DNSSEC_SIGNATURE_REFRESH', 7 * 86400, 30, 365 * 86400),
    dnssecSignatureJitter: integer('DNSSEC_SIGNATURE_JITTER', 86400, 0, 30 * 86400),
    dnssecZskLifetime: integer('DNSSEC_ZSK_LIFETIME', 30 * 86400, 0, 10 * 366 * 86400),
    dnssecKskLifetime: integer('DNSSEC_KSK_LIFETIME', 0, 0, 10 * 366 * 86400),
    dnssecPropagationDelay: integer('DNSSEC_PROPAGATION_DELAY', 3600, 0, 7 * 86400),
    dnssecParentDsServers: list(read('DNSSEC_PARENT_DS_SERVERS') ?? '').flatMap((item) => {
      const parsed = parseServerAddress(item);
      if (!parsed) problems.push(`DNSSEC_PARENT_DS_SERVERS must list IP addresses, each with :port or not (port 53) (got "${item}")`);
      return parsed ? [parsed] : [];
    }),
    dnssecParentDsCheckInterval: integer('DNSSEC_PARENT_DS_CHECK_INTERVAL', 300, 1, 86400),
    dnssecBootstrapSweepInterval: integer('DNSSEC_BOOTSTRAP_SWEEP_INTERVAL', 300, 1, 86400),
    dnssecCdsNotifyAllow: cdsNotifyAllow,
    transferServersAllow,
    dnssecForeignKeysFetchAllow: foreignKeysFetchAllow,
    dnssecForeignKeysRefreshInterval: integer('DNSSEC_FOREIGN_KEYS_REFRESH_INTERVAL', 300, 0, 86400),
    aliasResolvers: list(read('ALIAS_RESOLVERS') ?? '').flatMap((item) => {
      const parsed = parseServerAddress(item);
      if (!parsed) problems.push(`ALIAS_RESOLVERS must list IP addresses, each with :port or not (port 53) (got "${item}")`);
      return parsed ? [parsed] : [];
    }),
    aliasMinTtl: integer('ALIAS_MIN_TTL', 60, 1, 86400),
    aliasMaxTtl: integer('ALIAS_MAX_TTL', 3600, 1, 7 * 86400),
    steering: {
      vantage: (() => {
        const name = read('STEERING_VANTAGE') ?? 'primary';
        if (!/^[a-z0-9][a-z0-9._-]{0,62}$/i.test(name))
          problems.push(`STEERING_VANTAGE must be a name of letters, digits, '.', '_' and '-', up to 63 characters (got "${name}")`);
        return name;
      })(),
      quorum: ((): Quorum => {
        const raw = read('STEERING_QUORUM') ?? 'majority';
        if (raw === 'majority') return 'majority';
        const percent = Number(raw.replace(/%$/, ''));
        if (!Number.isInteger(percent) || percent < 1 || percent > 100) {
          problems.push(`STEERING_QUORUM must be majority (more than half) or a percentage from 1 to 100 (got "${raw}")`);
          return 'majority';
        }
        return percent;
      })(),
      canaries: list(read('STEERING_VANTAGE_CANARIES') ?? '').flatMap((item) => {
        // each with its port: a canary is a TCP connection, to 192.0.2.1:443 or [2001:db8::1]:443
        const parsed = /^(\[[^\]]+\]|[^:[\]]+):\d+$/.test(item) ? parseServerAddress(item) : undefined;
        if (!parsed)
          problems.push(`STEERING_VANTAGE_CANARIES must list IP addresses with their TCP port, such as 192.0.2.1:443 (got "${item}")`);
        return parsed ? [{ address: parsed.host, port: parsed.port }] : [];
      }),
      panic: {
        enabled: oneOf('STEERING_PANIC', ['on', 'off'] as const, 'on') === 'on',
        minChecks: integer('STEERING_PANIC_MIN_CHECKS', 10, 1, 1_000_000),
      },
      checkInterval: steeringInterval,
      // unset: 2 s, or 80 % of a shorter STEERING_CHECK_INTERVAL (a 2 s interval, as a drill sets, needs no second setting)
      checkTimeoutMs: integer('STEERING_CHECK_TIMEOUT_MS', Math.min(2000, Math.max(100, steeringInterval * 800)), 100, 299_000),
      fall: integer('STEERING_FALL', 3, 1, 100),
      rise: integer('STEERING_RISE', 3, 1, 100),
      holdSeconds: integer('STEERING_HOLD', 30, 1, 3600),
      allowNetworks: list(read('STEERING_ALLOW_NETWORKS') ?? '').filter((item) => {
        if (!isAddressOrCidr(item)) problems.push(`STEERING_ALLOW_NETWORKS must list addresses or CIDR blocks (got "${item}")`);
        return isAddressOrCidr(item);
      }),
      externalLease: integer('STEERING_EXTERNAL_LEASE', 60, 1, 86400),
    },
    health: {
      interval: integer('HEALTH_CHECK_INTERVAL', 3600, 0, 7 * 86400),
      rootHints: list(read('HEALTH_ROOT_HINTS') ?? ROOT_SERVERS_V4.join(',')).flatMap((item) => {
        const parsed = parseServerAddress(item);
        if (!parsed) problems.push(`HEALTH_ROOT_HINTS must list IP addresses, each with :port or not (port 53) (got "${item}")`);
        return parsed ? [parsed] : [];
      }),
      serialGrace: integer('HEALTH_SERIAL_GRACE', 60, 0, 7 * 86400),
      signatureThreshold: integer('HEALTH_SIGNATURE_THRESHOLD', 3 * 86400, 0, 366 * 86400),
      allowNetworks: list(read('HEALTH_ALLOW_NETWORKS') ?? '').filter((item) => {
        if (!isAddressOrCidr(item)) problems.push(`HEALTH_ALLOW_NETWORKS must list addresses or CIDR blocks (got "${item}")`);
        return isAddressOrCidr(item);
      }),
      queryTimeoutMs: integer('HEALTH_QUERY_TIMEOUT_MS', 2000, 100, 30_000),
      zonesAtOnce: integer('HEALTH_ZONES_AT_ONCE', 50, 1, 10_000),
      ipv6: oneOf('HEALTH_IPV6', ['on', 'off'] as const, 'off') === 'on',
    },
    rateLimit: { user: userRate, key: keyRate },
    rateLimitRefusalDelayMs: integer('RATE_LIMIT_REFUSAL_DELAY_MS', 1000, 0, 10_000),
    rateLimitConcurrency: {
      perUser: integer('RATE_LIMIT_CONCURRENCY', 4, 0, 10_000),
      queue: integer('RATE_LIMIT_QUEUE', 100, 0, 1_000_000),
    },
    zoneChangeLimit: {
      perSecond: integer('ZONE_CHANGES_PER_SECOND', 20, 0, 1_000_000),
      burst: integer('ZONE_CHANGES_BURST', 100, 1, 1_000_000),
    },
    quotas: {
      maxZones: integer('MAX_ZONES_PER_USER', 1000, 0, 100_000_000),
      maxRecordsPerZone: integer('MAX_RECORDS_PER_ZONE', 100_000, 0, 100_000_000),
    },
    sessions: {
      idleSeconds: integer('SESSION_IDLE_TIMEOUT', 1800, 60, 30 * 86400),
      absoluteSeconds: integer('SESSION_ABSOLUTE_TIMEOUT', 12 * 3600, 300, 365 * 86400),
      invitationSeconds: integer('INVITATION_TTL', 7 * 86400, 60, 90 * 86400),
      // shorter than an invitation's: the link hands over a person who has accounts already
      recoverySeconds: integer('RECOVERY_LINK_TTL', 86400, 60, 30 * 86400),
      trustProxy: read('TRUST_PROXY'),
      publicOrigin: read('PUBLIC_ORIGIN')?.replace(/\/+$/, ''),
    },
    webhooks: {
      allow: webhookAllow,
      connectTimeoutMs: integer('WEBHOOK_CONNECT_TIMEOUT_MS', 5000, 100, 600_000),
      timeoutMs: integer('WEBHOOK_TIMEOUT_MS', 15_000, 100, 600_000),
      retryBaseMs: integer('WEBHOOK_RETRY_BASE_MS', 1000, 10, 3_600_000),
      retryMaxSeconds: integer('WEBHOOK_RETRY_MAX_SECONDS', 3600, 1, 86_400),
      retryHours: integer('WEBHOOK_RETRY_HOURS', 24, 0, 24 * 30),
      disableAfterDays: integer('WEBHOOK_DISABLE_AFTER_DAYS', 5, 1, 365),
      concurrency: integer('WEBHOOK_CONCURRENCY', 4, 1, 1000),
      secretOverlapHours: (() => {
        // hours, and a part of one (0.5: half an hour), from 0 (a rotated secret stops at once) to 30 days
        const raw = read('WEBHOOK_SECRET_OVERLAP_HOURS');
        if (raw === undefined) return 24;
        if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) > 24 * 30) {
          problems.push(`WEBHOOK_SECRET_OVERLAP_HOURS must be a number of hours from 0 to ${24 * 30} (got "${raw}")`);
          return 24;
        }
        return Number(raw);
      })(),
      maxSecrets: integer('WEBHOOK_MAX_SECRETS', 10, 2, 100),
    },
    oidc: (() => {
      const issuer = read('OIDC_ISSUER');
      const clientId = read('OIDC_CLIENT_ID');
      if (issuer === undefined && clientId === undefined) return undefined;
      if (issuer === undefined || clientId === undefined || !URL.canParse(issuer)) {
        problems.push('OIDC_ISSUER (a URL) and OIDC_CLIENT_ID are set together');
        return undefined;
      }
      const claim = read('OIDC_OPERATOR_CLAIM');
      // commas only: a group's name may hold a space
      const values = (read('OIDC_OPERATOR_VALUES') ?? '')
        .split(',')
        .map((value) => value.trim())
        .filter(Boolean);
      if ((claim === undefined) !== (values.length === 0))
        problems.push('OIDC_OPERATOR_CLAIM (a claim name) and OIDC_OPERATOR_VALUES (comma-separated values) are set together');
      return {
        issuer,
        clientId,
        clientSecret: read('OIDC_CLIENT_SECRET'),
        redirectUrl: read('OIDC_REDIRECT_URL'),
        providerName: read('OIDC_PROVIDER_NAME'),
        scopes: list(read('OIDC_SCOPES') ?? '').filter((scope) => scope !== 'openid' && scope !== 'email'),
        operator: claim !== undefined && values.length ? { claim, values } : undefined,
      };
    })(),
    analytics,
  };
  if (settings.dnssecSignatureRefresh + settings.dnssecSignatureJitter >= settings.dnssecSignatureValidity) {
    problems.push('DNSSEC_SIGNATURE_REFRESH + DNSSEC_SIGNATURE_JITTER must be less than DNSSEC_SIGNATURE_VALIDITY');
  }
  // a probe that could outlast its interval would overlap the next one of the same check
  if (settings.steering.checkTimeoutMs >= settings.steering.checkInterval * 1000)
    problems.push('STEERING_CHECK_TIMEOUT_MS must be below STEERING_CHECK_INTERVAL (in milliseconds)');
  if (settings.aliasMinTtl > settings.aliasMaxTtl) problems.push('ALIAS_MIN_TTL must not exceed ALIAS_MAX_TTL');
  if (problems.length) throw new SettingsError(problems);
  return settings;
}
