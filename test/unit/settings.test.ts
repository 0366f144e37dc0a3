import { loadSettings, SettingsError } from '../../src/config/settings';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) return error.problems;
    throw error;
  }
  return [];
};

describe('settings', () => {
  it('has working defaults', () => {
    const settings = loadSettings({});
    // RESTKnot's nine preserved values on the REST layer; any TTL elsewhere; each policy names its setting
    expect([...settings.allowedTtls]).toEqual([86400, 43200, 28800, 14400, 7200, 3600, 1800, 900, 300]);
    expect(settings.allowedTtls.setting).toBe('ALLOWED_TTLS');
    expect([...settings.allowedTtlsBeyondRest]).toEqual([]);
    expect(settings.allowedTtlsBeyondRest.setting).toBe('ALLOWED_TTLS_BEYOND_REST');
    expect(settings).toMatchObject({
      port: 3000,
      // loopback until told otherwise; /metrics without a key from loopback only
      host: '127.0.0.1',
      metricsAllow: ['127.0.0.0/8', '::1/128'],
      heavyRequestsAtOnce: 4,
      databaseUrl: undefined,
      defaultNs: ['ns1.example.net.', 'ns2.example.net.'],
      defaultWwwCname: true,
      serialPolicy: 'date',
      restEnvelope: 'none',
      dnsListen: { host: '127.0.0.1', port: 5353 },
      catalogZone: 'catalog.zonekeeper.invalid',
      secondaries: [],
      roles: ['api', 'dns', 'worker'],
    });
  });

  it('rate limits and quotas: documented defaults, a key bucket that follows its user, and bounds', () => {
    expect(loadSettings({})).toMatchObject({
      rateLimit: { user: { perSecond: 50, burst: 500 }, key: { perSecond: 50, burst: 500 } },
      rateLimitRefusalDelayMs: 1000,
      rateLimitConcurrency: { perUser: 4, queue: 100 },
      zoneChangeLimit: { perSecond: 20, burst: 100 },
      quotas: { maxZones: 1000, maxRecordsPerZone: 100_000 },
    });
    // a key's own bucket defaults to what its user's is set to
    expect(loadSettings({ RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '10' }).rateLimit.key).toEqual({ perSecond: 5, burst: 10 });
    expect(loadSettings({ RATE_LIMIT_PER_SECOND: '0', MAX_ZONES_PER_USER: '0' })).toMatchObject({
      rateLimit: { user: { perSecond: 0 } },
      quotas: { maxZones: 0 },
    });
    expect(problemsOf({ RATE_LIMIT_BURST: '0', ZONE_CHANGES_PER_SECOND: 'fast' })).toEqual([
      'RATE_LIMIT_BURST must be a whole number from 1 to 1000000 (got "0")',
      'ZONE_CHANGES_PER_SECOND must be a whole number from 0 to 1000000 (got "fast")',
    ]);
  });

  it('reads METRICS_ALLOW as addresses and CIDR blocks', () => {
    expect(loadSettings({ METRICS_ALLOW: '192.0.2.0/24, 2001:db8::1' }).metricsAllow).toEqual(['192.0.2.0/24', '2001:db8::1']);
    expect(problemsOf({ METRICS_ALLOW: 'anywhere' })).toEqual(['METRICS_ALLOW must list addresses or CIDR blocks (got "anywhere")']);
  });

  it('parses lists, host:port pairs and a TSIG key', () => {
    const settings = loadSettings({
      ALLOWED_TTLS: '60, 300 3600',
      DEFAULT_NS: 'a.example.org b.example.org.',
      SECONDARIES: '127.0.0.1:5301,[::1]:5302',
      TSIG_KEY: `xfr:hmac-sha256:${Buffer.alloc(32, 7).toString('base64')}`,
      DNS_LISTEN: '',
      ROLES: 'api',
      DEFAULT_WWW_CNAME: 'OFF',
    });
    expect(settings.defaultWwwCname).toBe(false);
    expect([...settings.allowedTtls]).toEqual([3600, 300, 60]);
    expect([...loadSettings({ ALLOWED_TTLS_BEYOND_REST: '300-86400' }).allowedTtlsBeyondRest]).toEqual([[300, 86400]]);
    expect(settings.defaultNs).toEqual(['a.example.org.', 'b.example.org.']);
    expect(settings.secondaries).toEqual([
      { host: '127.0.0.1', port: 5301 },
      { host: '::1', port: 5302 },
    ]);
    expect(settings.tsigKey?.name).toBe('xfr');
    expect(settings.dnsListen).toBeUndefined();
    expect(settings.roles).toEqual(['api']);
  });

  it('reads the parent DS servers: address:port, [v6]:port, or a bare address on port 53', () => {
    const settings = loadSettings({ DNSSEC_PARENT_DS_SERVERS: '192.0.2.1:5300, 192.0.2.2 [2001:db8::1]:53 2001:db8::2' });
    expect(settings.dnssecParentDsServers).toEqual([
      { host: '192.0.2.1', port: 5300 },
      { host: '192.0.2.2', port: 53 },
      { host: '2001:db8::1', port: 53 },
      { host: '2001:db8::2', port: 53 },
    ]);
    expect(loadSettings({}).dnssecParentDsServers).toEqual([]);
  });

  it('reads the ALIAS resolvers and TTL bounds (docs/templates-and-alias.md), and refuses a floor above the cap', () => {
    const settings = loadSettings({ ALIAS_RESOLVERS: '192.0.2.53, [2001:db8::53]:5353', ALIAS_MIN_TTL: '30', ALIAS_MAX_TTL: '600' });
    expect(settings.aliasResolvers).toEqual([
      { host: '192.0.2.53', port: 53 },
      { host: '2001:db8::53', port: 5353 },
    ]);
    expect([settings.aliasMinTtl, settings.aliasMaxTtl]).toEqual([30, 600]);
    expect(loadSettings({})).toMatchObject({ aliasResolvers: [], aliasMinTtl: 60, aliasMaxTtl: 3600 });
    expect(() => loadSettings({ ALIAS_MIN_TTL: '700', ALIAS_MAX_TTL: '600' })).toThrow(/ALIAS_MIN_TTL must not exceed ALIAS_MAX_TTL/);
    expect(() => loadSettings({ ALIAS_RESOLVERS: 'resolver.example' })).toThrow(/ALIAS_RESOLVERS/);
  });

  it('reads the steering settings (docs/steering.md): the probe interval, timeout, fall, rise, hold, allowed networks and vantages', () => {
    expect(loadSettings({}).steering).toEqual({
      vantage: 'primary',
      quorum: 'majority',
      canaries: [],
      panic: { enabled: true, minChecks: 10 },
      checkInterval: 10,
      checkTimeoutMs: 2000,
      fall: 3,
      rise: 3,
      holdSeconds: 30,
      allowNetworks: [],
      externalLease: 60,
    });
    const set = loadSettings({
      STEERING_CHECK_INTERVAL: '2',
      STEERING_CHECK_TIMEOUT_MS: '1500',
      STEERING_FALL: '1',
      STEERING_RISE: '2',
      STEERING_ALLOW_NETWORKS: '127.0.0.0/8, ::1',
      STEERING_EXTERNAL_LEASE: '300',
      STEERING_HOLD: '5',
    }).steering;
    expect(set).toMatchObject({
      checkInterval: 2,
      checkTimeoutMs: 1500,
      fall: 1,
      rise: 2,
      holdSeconds: 5,
      allowNetworks: ['127.0.0.0/8', '::1'],
      externalLease: 300,
    });
    // a vantage elsewhere, its quorum, canaries and the panic rule
    expect(
      loadSettings({
        STEERING_VANTAGE: 'eu-west',
        STEERING_QUORUM: '50',
        STEERING_VANTAGE_CANARIES: '192.0.2.10:443, [2001:db8::1]:443',
        STEERING_PANIC: 'off',
        STEERING_PANIC_MIN_CHECKS: '3',
      }).steering,
    ).toMatchObject({
      vantage: 'eu-west',
      quorum: 50,
      canaries: [
        { address: '192.0.2.10', port: 443 },
        { address: '2001:db8::1', port: 443 },
      ],
      panic: { enabled: false, minChecks: 3 },
    });
    // a short interval's probes time out within it unless told otherwise
    expect(loadSettings({ STEERING_CHECK_INTERVAL: '2' }).steering.checkTimeoutMs).toBe(1600);
    expect(() => loadSettings({ STEERING_QUORUM: 'most' })).toThrow(/STEERING_QUORUM/);
    expect(() => loadSettings({ STEERING_VANTAGE_CANARIES: '192.0.2.10' })).toThrow(/STEERING_VANTAGE_CANARIES/);
    expect(() => loadSettings({ STEERING_VANTAGE: 'east west' })).toThrow(/STEERING_VANTAGE/);
    expect(() => loadSettings({ STEERING_HOLD: '0' })).toThrow(/STEERING_HOLD/);
    expect(() => loadSettings({ STEERING_EXTERNAL_LEASE: '0' })).toThrow(/STEERING_EXTERNAL_LEASE/);
    expect(() => loadSettings({ STEERING_CHECK_INTERVAL: '2', STEERING_CHECK_TIMEOUT_MS: '2000' })).toThrow(
      /STEERING_CHECK_TIMEOUT_MS must be below STEERING_CHECK_INTERVAL/,
    );
    expect(() => loadSettings({ STEERING_CHECK_INTERVAL: '0' })).toThrow(/STEERING_CHECK_INTERVAL/);
    expect(() => loadSettings({ STEERING_CHECK_INTERVAL: '301' })).toThrow(/STEERING_CHECK_INTERVAL/);
    expect(() => loadSettings({ STEERING_FALL: '0' })).toThrow(/STEERING_FALL/);
    expect(() => loadSettings({ STEERING_ALLOW_NETWORKS: 'loopback' })).toThrow(/STEERING_ALLOW_NETWORKS/);
  });

  it("reads what a transfer of a zone with views gets without a view's key (docs/views.md): the base zone by default", () => {
    expect(loadSettings({}).viewsUnsignedTransfers).toBe('base');
    expect(loadSettings({ VIEWS_UNSIGNED_TRANSFERS: 'refuse' }).viewsUnsignedTransfers).toBe('refuse');
    expect(problemsOf({ VIEWS_UNSIGNED_TRANSFERS: 'drop' }).join('\n')).toMatch(/VIEWS_UNSIGNED_TRANSFERS/);
  });

  it('reads the health checker’s settings (docs/health.md), the real root servers by default', () => {
    const defaults = loadSettings({}).health;
    expect(defaults).toMatchObject({ interval: 3600, serialGrace: 60, signatureThreshold: 259200, allowNetworks: [], ipv6: false });
    expect(defaults.rootHints).toHaveLength(13);
    expect(defaults.rootHints[0]).toEqual({ host: '198.41.0.4', port: 53 });
    const set = loadSettings({
      HEALTH_CHECK_INTERVAL: '0',
      HEALTH_ROOT_HINTS: '127.0.53.1, [::1]:5300',
      HEALTH_ALLOW_NETWORKS: '127.0.53.0/24',
      HEALTH_IPV6: 'on',
    }).health;
    expect(set).toMatchObject({ interval: 0, allowNetworks: ['127.0.53.0/24'], ipv6: true });
    expect(set.rootHints).toEqual([
      { host: '127.0.53.1', port: 53 },
      { host: '::1', port: 5300 },
    ]);
    expect(() => loadSettings({ HEALTH_ROOT_HINTS: 'a.root-servers.net' })).toThrow(/HEALTH_ROOT_HINTS/);
    expect(() => loadSettings({ HEALTH_ALLOW_NETWORKS: '10.0.0.0/33' })).toThrow(/HEALTH_ALLOW_NETWORKS/);
    expect(() => loadSettings({ HEALTH_CHECK_INTERVAL: '-1' })).toThrow(/HEALTH_CHECK_INTERVAL/);
  });

  it.each([
    ['PORT', 'eighty'],
    ['ALLOWED_TTLS', '3600,abc'],
    ['ALLOWED_TTLS_BEYOND_REST', '60-'],
    ['SERIAL_POLICY', 'weekly'],
    ['REST_ENVELOPE', 'soap'],
    ['DNS_LISTEN', 'localhost'],
    ['SECONDARIES', '127.0.0.1'],
    ['DNSSEC_PARENT_DS_SERVERS', 'ns1.example.net'],
    ['DNSSEC_PARENT_DS_SERVERS', '192.0.2.1:99999'],
    ['DNSSEC_PARENT_DS_CHECK_INTERVAL', '0'],
    ['TRANSFER_ALLOW', 'everyone'],
    ['TSIG_KEY', 'name:hmac-md5:c2VjcmV0'],
    ['ROLES', 'api,frontend'],
    ['DATABASE_URL', 'mysql://x'],
    ['API_KEY', 'short'],
    ['DEFAULT_NS', 'not a host!'],
    ['DEFAULT_WWW_CNAME', 'yes'],
    ['LOG_LEVEL', 'loud'],
    ['ANALYTICS_DNSTAP_LISTEN', 'localhost:6000'],
    ['ANALYTICS_NAMES_PER_MINUTE', '0'],
    ['ANALYTICS_FLUSH_MS', '10'],
    ['ANALYTICS_IN_USE_DAYS', 'week'],
  ])('refuses a wrong %s with a message naming it', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(name);
  });

  it('runs the dnstap collector where ANALYTICS_DNSTAP_LISTEN is set, and refuses ROLES=collector without it (docs/analytics.md)', () => {
    expect(loadSettings({}).roles).toEqual(['api', 'dns', 'worker']);
    expect(loadSettings({ ANALYTICS_DNSTAP_LISTEN: '/run/zk/dnstap.sock' })).toMatchObject({
      roles: ['api', 'dns', 'worker', 'collector'],
      analytics: { dnstapListen: { path: '/run/zk/dnstap.sock' }, namesPerMinute: 1000, flushMs: 5000, inUseDays: 7 },
    });
    expect(loadSettings({ ANALYTICS_DNSTAP_LISTEN: '[::1]:6000' }).analytics.dnstapListen).toEqual({ host: '::1', port: 6000 });
    expect(problemsOf({ ROLES: 'collector' })).toEqual([expect.stringContaining('ANALYTICS_DNSTAP_LISTEN')]);
    expect(problemsOf({ ANALYTICS_HOURS_KEEP_DAYS: '3', ANALYTICS_MINUTES_KEEP_HOURS: '100' })).toEqual([
      'ANALYTICS_HOURS_KEEP_DAYS must cover ANALYTICS_MINUTES_KEEP_HOURS',
    ]);
  });

  it('reads standbys for reads as DATABASE_URL is read, with their wait and lag bounds (docs/deployment.md)', () => {
    expect(loadSettings({})).toMatchObject({ databaseReplicaUrl: undefined, replicaWaitMs: 500, replicaMaxLagMs: 5000 });
    const primary = 'postgresql://zk@10.0.0.1:5432/zonekeeper';
    const standbys = 'postgresql://zk@10.0.0.2:5432,10.0.0.3:5433/zonekeeper';
    expect(
      loadSettings({ DATABASE_URL: primary, DATABASE_REPLICA_URL: standbys, REPLICA_WAIT_MS: '0', REPLICA_MAX_LAG_MS: '250' }),
    ).toMatchObject({ databaseReplicaUrl: standbys, replicaWaitMs: 0, replicaMaxLagMs: 250 });
    // libpq's keyword/value pairs, as DATABASE_URL takes them
    expect(
      loadSettings({ DATABASE_URL: primary, DATABASE_REPLICA_URL: 'host=10.0.0.2,10.0.0.3 port=5432 dbname=zonekeeper' })
        .databaseReplicaUrl,
    ).toBe('host=10.0.0.2,10.0.0.3 port=5432 dbname=zonekeeper');
    // each problem names the setting, never DATABASE_URL for the replica's own mistake
    expect(problemsOf({ DATABASE_URL: primary, DATABASE_REPLICA_URL: 'mysql://x' })).toEqual([
      expect.stringMatching(/^DATABASE_REPLICA_URL/),
    ]);
    expect(problemsOf({ DATABASE_URL: primary, DATABASE_REPLICA_URL: 'host=a,b port=1,2,3 dbname=zk' })).toEqual([
      expect.stringMatching(/^DATABASE_REPLICA_URL/),
    ]);
    expect(problemsOf({ DATABASE_URL: primary, DATABASE_REPLICA_URL: `${standbys}?target_session_attrs=read-write` })).toEqual([
      expect.stringContaining('DATABASE_REPLICA_URL names standbys'),
    ]);
    expect(loadSettings({ DATABASE_URL: primary, DATABASE_REPLICA_URL: `${standbys}?target_session_attrs=any` }).databaseReplicaUrl).toBe(
      `${standbys}?target_session_attrs=any`,
    );
    // standbys of what: the embedded PostgreSQL has none
    expect(problemsOf({ DATABASE_REPLICA_URL: standbys })).toEqual([expect.stringContaining('needs DATABASE_URL')]);
    expect(problemsOf({ REPLICA_WAIT_MS: '-1' })).toEqual([expect.stringContaining('REPLICA_WAIT_MS')]);
    expect(problemsOf({ REPLICA_WAIT_MS: '30001' })).toEqual([expect.stringContaining('REPLICA_WAIT_MS')]);
    expect(problemsOf({ REPLICA_MAX_LAG_MS: '50' })).toEqual([expect.stringContaining('REPLICA_MAX_LAG_MS')]);
  });

  it("reads a webhook secret's overlap in hours, a part of one too, and the secrets that may sign at once (docs/events.md)", () => {
    expect(loadSettings({}).webhooks).toMatchObject({ secretOverlapHours: 24, maxSecrets: 10 });
    expect(loadSettings({ WEBHOOK_SECRET_OVERLAP_HOURS: '0.5', WEBHOOK_MAX_SECRETS: '2' }).webhooks).toMatchObject({
      secretOverlapHours: 0.5,
      maxSecrets: 2,
    });
    expect(loadSettings({ WEBHOOK_SECRET_OVERLAP_HOURS: '0' }).webhooks.secretOverlapHours).toBe(0);
    for (const bad of ['-1', '1e3', '.5', 'x', '721'])
      expect(problemsOf({ WEBHOOK_SECRET_OVERLAP_HOURS: bad })).toEqual([expect.stringContaining('WEBHOOK_SECRET_OVERLAP_HOURS')]);
    expect(problemsOf({ WEBHOOK_MAX_SECRETS: '1' })).toEqual([expect.stringContaining('WEBHOOK_MAX_SECRETS')]);
  });

  it('lists every wrong setting at once and never echoes a secret', () => {
    const secret = 'c2VjcmV0LXNlY3JldC1zZWNyZXQ=';
    const problems = problemsOf({ PORT: '-1', SERIAL_POLICY: 'x', TSIG_KEY: `k:hmac-md5:${secret}` });
    expect(problems).toHaveLength(3);
    expect(problems.join(' ')).not.toContain(secret);
  });
});
