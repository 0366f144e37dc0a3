#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { MAX_TTL, parseDuration } from '../dns/ttl';

/**
 * `zonekeeper`: the operator's command line (as pdnsutil is for PowerDNS), a client of the running service's
 * GraphQL API: ZONEKEEPER_URL (default http://localhost:3000) and ZONEKEEPER_API_KEY. Tables for people,
 * `--json` for scripts. Exit codes: 0 done, 1 the API refused or failed (its code and message on stderr),
 * 2 a usage mistake, 3 the service could not be reached.
 */

class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const EXIT = { ok: 0, api: 1, usage: 2, unreachable: 3 } as const;

/** a mistake in the command's words that commander cannot see (a value out of range): exit 2 */
class UsageError extends Error {}

/**
 * A server given on the command line, ADDRESS[#PORT][=TSIG_KEY_NAME] ('#' for the port, as Unbound and dnsdist write
 * it: an IPv6 address has colons of its own), as the GraphQL ServerInput; `keyRequired`: the key part must be there.
 */
function serverSpec(spec: string, keyRequired: boolean): { address: string; port: number | null; tsigKeyName: string | null } {
  const match = /^([^#=]+)(?:#(\d{1,5}))?(?:=(.+))?$/.exec(spec);
  if (!match || (keyRequired && !match[3]))
    throw new UsageError(`a server is ADDRESS[#PORT]${keyRequired ? '' : '['}=TSIG_KEY_NAME${keyRequired ? '' : ']'} (got "${spec}")`);
  return { address: match[1], port: match[2] === undefined ? null : Number(match[2]), tsigKeyName: match[3] ?? null };
}

async function gql<T = any>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const base = (process.env.ZONEKEEPER_URL ?? 'http://localhost:3000').replace(/\/$/, '');
  const key = process.env.ZONEKEEPER_API_KEY;
  if (!key) throw new ApiError('NO_API_KEY', 'set ZONEKEEPER_API_KEY to an API key of the service');
  let res: Response;
  try {
    res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query, variables }),
    });
  } catch (error) {
    throw Object.assign(new Error(`cannot reach ${base}: ${(error as Error).cause ?? (error as Error).message}`), { unreachable: true });
  }
  const body = (await res.json().catch(() => ({}))) as {
    data?: T;
    errors?: { message: string; extensions?: { code?: string; details?: { message: string }[] } }[];
    extensions?: { warnings?: { message: string }[] };
    /** the error body of an answer given before GraphQL ran (docs/decisions.md §1) */
    error?: string;
    message?: string;
  };
  // what the service took but thinks worth a look (zone checks, unusual names): said, never a failure
  for (const warning of body.extensions?.warnings ?? []) process.stderr.write(`warning: ${warning.message}\n`);
  if (body.errors?.length) {
    const [first] = body.errors;
    const details = first.extensions?.details?.map((d) => `  - ${d.message}`).join('\n');
    throw new ApiError(first.extensions?.code ?? 'ERROR', `${first.message}${details ? `\n${details}` : ''}`);
  }
  if (!res.ok && typeof body.error === 'string') throw new ApiError(body.error, body.message ?? `the service answered ${res.status}`);
  if (!res.ok || !body.data) throw new ApiError(`HTTP_${res.status}`, `the service answered ${res.status}`);
  return body.data;
}

/** rows as an aligned table, or as JSON with --json */
function print(program: Command, rows: Record<string, unknown>[] | Record<string, unknown>, columns?: string[]): void {
  if (program.opts().json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const list = Array.isArray(rows) ? rows : [rows];
  if (!list.length) {
    process.stdout.write('(none)\n');
    return;
  }
  const cols = columns ?? Object.keys(list[0]);
  const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...list.map((r) => text(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${[line(cols.map((c) => c.toUpperCase())), ...list.map((r) => line(cols.map((c) => text(r[c]))))].join('\n')}\n`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** items per request when a list is read page by page: under any MAX_PAGE_SIZE an operator is likely to set */
const PAGE = 100;

/**
 * A list read page by page (cursors) up to `limit` items; when more exist, stderr says so, so that a list
 * is never cut without a word.
 */
async function listUpTo(
  query: string,
  pick: (data: any) => { nodes: any[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } },
  variables: Record<string, unknown>,
  limit: number,
  what: string,
): Promise<any[]> {
  const items: any[] = [];
  let after: string | undefined;
  let pageSize = PAGE;
  for (;;) {
    let data: any;
    try {
      data = await gql(query, { ...variables, first: Math.min(pageSize, limit - items.length), after });
    } catch (error) {
      // a service with a smaller MAX_PAGE_SIZE says its limit: ask again in pages of that size
      const smaller = error instanceof ApiError && /first must be at most (\d+)/.exec(error.message);
      if (!smaller || Number(smaller[1]) >= pageSize) throw error;
      pageSize = Number(smaller[1]);
      continue;
    }
    const page = pick(data);
    items.push(...page.nodes);
    if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor) return items;
    if (items.length >= limit) {
      process.stderr.write(`showing the first ${items.length} ${what}; there are more (--limit N shows more)\n`);
      return items;
    }
    after = page.pageInfo.endCursor;
  }
}

/** a user named by id or by e-mail (`ops@example.org`), as its id: people remember the e-mail */
async function userIdOf(user: string): Promise<string> {
  if (/^\d+$/.test(user)) return user;
  return (await gql<{ user: { id: string } }>(`query($e: String!) { user(email: $e) { id } }`, { e: user })).user.id;
}

/**
 * Stops with ZONE_NOT_FOUND (exit 1) when the zone does not exist or the key cannot see it: a listing filtered
 * by a zone that is not there is empty, and "(none)" would say the zone is
 */
async function requireZone(name: string): Promise<void> {
  try {
    await gql(`query($z: String!) { domain(name: $z) { id } }`, { z: name });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'ZONE_NOT_FOUND')
      throw new ApiError('ZONE_NOT_FOUND', `no zone ${name} (it does not exist, or this key cannot see it)`);
    throw error;
  }
}

/**
 * --ttl's value: seconds, or BIND's units as a zone file takes them (`300`, `1h`, `1d`, `1w`, `1h30m`), read by
 * the DNS model's own reader of master-file TTLs; the service then holds it to ALLOWED_TTLS
 */
function ttlOf(text: string): number {
  const seconds = parseDuration(text.trim());
  // RFC 2181 §8: a TTL is 0..2^31-1
  if (seconds === undefined || seconds > MAX_TTL)
    throw new UsageError(`--ttl takes seconds or BIND's units: 300, 30m, 1h, 1h30m, 1d, 1w (at most ${MAX_TTL} s; got "${text}")`);
  return seconds;
}

/** --limit's value: a whole number above 0 */
function limitOf(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--limit takes a whole number above 0 (got "${text}")`);
  return Number(text);
}

/**
 * A destructive command goes ahead with --yes, or when the person at the terminal types what it names; without
 * a terminal and without --yes it stops (exit 2): a script must say --yes.
 */
async function confirm(options: { yes?: boolean }, what: string, answer: string): Promise<void> {
  if (options.yes) return;
  if (!process.stdin.isTTY) throw new UsageError(`${what}: this cannot be undone; add --yes to confirm (no terminal to ask)`);
  const { createInterface } = await import('node:readline/promises');
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const typed = (await prompt.question(`${what}: this cannot be undone. Type ${JSON.stringify(answer)} to confirm: `)).trim();
    if (typed !== answer) throw new UsageError('not confirmed; nothing was done');
  } finally {
    prompt.close();
  }
}

export function buildProgram(): Command {
  const program = new Command('zonekeeper')
    .description('Manage Zonekeeper users, keys, zones and records (ZONEKEEPER_URL, ZONEKEEPER_API_KEY)')
    .option('--json', 'print JSON for scripts instead of tables')
    .showHelpAfterError()
    .exitOverride();

  const user = program.command('user').description('users, who own zones');
  user
    .command('add <email>')
    .description('create a user')
    .action(async (email: string) => {
      print(
        program,
        (await gql(`mutation($e: String!) { createUser(input: {email: $e}) { id email createdAt } }`, { e: email })).createUser,
      );
    });
  user
    .command('list')
    .description('list users')
    .option('--limit <n>', 'at most this many', '1000')
    .action(async (options: { limit: string }) => {
      const users = await listUpTo(
        `query($first: Int!, $after: String) { users(first: $first, after: $after) { nodes { id email createdAt } pageInfo { hasNextPage endCursor } } }`,
        (d) => d.users,
        {},
        limitOf(options.limit),
        'users',
      );
      print(program, users, ['id', 'email', 'createdAt']);
    });
  user
    .command('delete <userId>')
    .description('delete a user with all its zones and records')
    .option('--yes', 'do not ask')
    .action(async (userId: string, options: { yes?: boolean }) => {
      await confirm(options, `delete user ${userId} with all its zones and records`, userId);
      await gql(`mutation($id: ID!) { deleteUser(id: $id) }`, { id: userId });
      print(program, { id: userId, deleted: true });
    });

  const limitOptions = (command: Command, fields: [string, string][]) =>
    fields.reduce((c, [flag, what]) => c.option(`--${flag} <n>`, `${what}: a whole number (0: no limit), or "default"`), command);
  /** the options given as the GraphQL input: a number, or null for "default"; an option not given is left out */
  const limitValues = (options: Record<string, string | undefined>, fields: [string, string][]) => {
    const input: Record<string, number | null> = {};
    for (const [flag] of fields) {
      const name = flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
      const raw = options[name];
      if (raw === undefined) continue;
      if (raw === 'default') input[name] = null;
      else if (/^\d{1,10}$/.test(raw)) input[name] = Number(raw);
      else throw new UsageError(`--${flag} must be a whole number or "default" (got "${raw}")`);
    }
    return input;
  };
  const USER_LIMIT_FIELDS: [string, string][] = [
    ['rate-per-second', 'requests per second its rate bucket refills'],
    ['rate-burst', 'requests its rate bucket holds'],
    ['max-zones', 'zones the user may have'],
    ['max-records-per-zone', 'records one of its zones may hold'],
  ];
  const LIMITS =
    'ratePerSecond rateBurst maxZones maxRecordsPerZone zoneCount effective { ratePerSecond rateBurst maxZones maxRecordsPerZone }';
  limitOptions(
    user.command('limits <userId>').description("show a user's rate limit and quotas; with options, set them (admin key)"),
    USER_LIMIT_FIELDS,
  ).action(async (userId: string, options: Record<string, string | undefined>) => {
    const input = limitValues(options, USER_LIMIT_FIELDS);
    const limits = Object.keys(input).length
      ? (
          await gql(`mutation($id: ID!, $input: UserLimitsInput!) { setUserLimits(id: $id, input: $input) { ${LIMITS} } }`, {
            id: userId,
            input,
          })
        ).setUserLimits
      : (await gql(`query($id: ID!) { user(id: $id) { limits { ${LIMITS} } } }`, { id: userId })).user.limits;
    print(program, { userId, ...limits });
  });

  const key = program.command('key').description('API keys of a user');
  withPolicyOptions(
    key
      .command('create <user> <name>')
      .description('create an API key (its secret is shown once); with --preset or --rule a least-privilege key (docs/least-privilege.md)'),
  ).action(async (user: string, name: string, options: PolicyOptions) => {
    const userId = await userIdOf(user);
    const created = (
      await gql(
        `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { id name policy { restricted preset } } } }`,
        { input: { userId, name, ...policyInputFrom(options) } },
      )
    ).createApiKey;
    print(program, {
      id: created.apiKey.id,
      name: created.apiKey.name,
      restricted: created.apiKey.policy.restricted,
      preset: created.apiKey.policy.preset,
      secret: created.secret,
    });
  });
  key
    .command('list')
    .description('list API keys (no secrets)')
    .option('--user <userId>', 'only this user’s')
    .action(async (options: { user?: string }) => {
      print(
        program,
        (await gql(`query($u: ID) { apiKeys(userId: $u) { id userId name createdAt revokedAt } }`, { u: options.user })).apiKeys,
        ['id', 'userId', 'name', 'createdAt', 'revokedAt'],
      );
    });
  key
    .command('revoke <keyId>')
    .description('revoke an API key')
    .option('--yes', 'do not ask')
    .action(async (keyId: string, options: { yes?: boolean }) => {
      await confirm(options, `revoke API key ${keyId}`, keyId);
      print(program, (await gql(`mutation($id: ID!) { revokeApiKey(id: $id) { id name revokedAt } }`, { id: keyId })).revokeApiKey);
    });

  const KEY_RATE_FIELDS: [string, string][] = [
    ['rate-per-second', 'requests per second the key’s own bucket refills'],
    ['rate-burst', 'requests the key’s own bucket holds'],
  ];
  limitOptions(
    key.command('rate <keyId>').description('set an API key’s own rate limit, besides its user’s (admin key)'),
    KEY_RATE_FIELDS,
  ).action(async (keyId: string, options: Record<string, string | undefined>) => {
    const input = limitValues(options, KEY_RATE_FIELDS);
    if (!Object.keys(input).length) throw new UsageError('give --rate-per-second and/or --rate-burst');
    const rate = (
      await gql(`mutation($id: ID!, $input: ApiKeyRateInput!) { setApiKeyRate(id: $id, input: $input) { ratePerSecond rateBurst } }`, {
        id: keyId,
        input,
      })
    ).setApiKeyRate;
    print(program, { keyId, ...rate });
  });

  const tsig = program.command('tsig').description('TSIG keys for DNS UPDATE (RFC 2136): nsupdate, certbot, external-dns');
  withPolicyOptions(
    tsig
      .command('add <name>')
      .description('create a TSIG key (its base64 secret is shown once); with --preset or --rule a least-privilege key')
      .option('--user <user>', 'the user (id or e-mail) whose zones it updates; without it an admin key (any zone)')
      .option('--algorithm <algorithm>', 'hmac-sha256, hmac-sha384 or hmac-sha512', 'hmac-sha256'),
  ).action(async (name: string, options: { user?: string; algorithm: string } & PolicyOptions) => {
    const input = {
      name,
      userId: options.user === undefined ? null : await userIdOf(options.user),
      algorithm: options.algorithm,
      ...policyInputFrom(options),
    };
    const created = (
      await gql(`mutation($input: CreateTsigKeyInput!) { createTsigKey(input: $input) { secret tsigKey { id name algorithm } } }`, {
        input,
      })
    ).createTsigKey;
    print(program, { ...created.tsigKey, secret: created.secret });
  });
  tsig
    .command('list')
    .description('list TSIG keys')
    .option('--user <userId>', 'only this user’s')
    .action(async (options: { user?: string }) => {
      print(
        program,
        (await gql(`query($u: ID) { tsigKeys(userId: $u) { id userId name algorithm revokedAt } }`, { u: options.user })).tsigKeys,
        ['id', 'userId', 'name', 'algorithm', 'revokedAt'],
      );
    });
  tsig
    .command('revoke <id>')
    .description('revoke a TSIG key')
    .option('--yes', 'do not ask')
    .action(async (id: string, options: { yes?: boolean }) => {
      await confirm(options, `revoke TSIG key ${id}`, id);
      print(program, (await gql(`mutation($id: ID!) { revokeTsigKey(id: $id) { id name revokedAt } }`, { id })).revokeTsigKey);
    });

  const secondaries = program
    .command('secondaries')
    .description(
      "a zone's extra secondaries: a customer's own servers, NOTIFYed and allowed to transfer it with its TSIG key (docs/transfers.md)",
    );
  const SECONDARY_COLUMNS = ['address', 'port', 'tsigKeyName'];
  secondaries
    .command('list <zone>')
    .description("the zone's extra secondaries")
    .action(async (zone: string) => {
      const listed = await gql(`query($z: String) { domain(name: $z) { extraSecondaries { address port tsigKeyName } } }`, { z: zone });
      print(program, listed.domain.extraSecondaries, SECONDARY_COLUMNS);
    });
  secondaries
    .command('set <zone> [servers...]')
    .description('replace them: each server ADDRESS[#PORT]=TSIG_KEY_NAME (port 53 unless given); none given: remove them all')
    .action(async (zone: string, servers: string[]) => {
      const input = servers.map((server) => serverSpec(server, true));
      const set = await gql(
        `mutation($z: String!, $s: [ZoneSecondaryInput!]!) { setZoneSecondaries(zone: $z, secondaries: $s) { address port tsigKeyName } }`,
        { z: zone, s: input },
      );
      print(program, set.setZoneSecondaries, SECONDARY_COLUMNS);
    });

  const DNSSEC_FIELDS = `zone enabled state denial ds disableAt keys { keyTag role algorithm state activeAt nextEvent nextEventAt }
    parentDs { inZonekeeper waitingFor seenAt checkedAt nextCheckAt lastCheck { at want confirmed servers { server ok ds error } } }`;
  const printDnssec = (status: {
    zone: string;
    enabled: boolean;
    state: string;
    denial: string | null;
    ds: string[];
    disableAt: string | null;
    keys: Record<string, unknown>[];
    parentDs: {
      inZonekeeper: boolean;
      waitingFor: string;
      seenAt: string | null;
      lastCheck: { at: string; confirmed: boolean; servers: { server: string; ok: boolean; ds: string[]; error: string | null }[] } | null;
    } | null;
  }) => {
    if (program.opts().json) return print(program, status);
    process.stdout.write(`zone ${status.zone}: ${status.state}${status.denial ? ` (${status.denial})` : ''}\n`);
    if (status.disableAt) process.stdout.write(`unsigned at ${status.disableAt}\n`);
    if (status.keys.length) print(program, status.keys, ['keyTag', 'role', 'algorithm', 'state', 'activeAt', 'nextEvent', 'nextEventAt']);
    for (const ds of status.ds) process.stdout.write(`DS ${ds}\n`);
    const parent = status.parentDs;
    if (parent && parent.waitingFor !== 'NOTHING')
      process.stdout.write(
        `waiting for the parent: ${parent.waitingFor === 'DS_REMOVAL' ? 'the DS to be removed' : 'the DS to be published'}\n`,
      );
    for (const answer of parent?.lastCheck?.servers ?? [])
      process.stdout.write(
        `checked ${parent!.lastCheck!.at} at ${answer.server}: ${answer.ok ? (answer.ds.length ? answer.ds.join(', ') : 'no DS') : answer.error}\n`,
      );
  };
  const dnssec = program.command('dnssec').description('signing zones (DNSSEC): keys, and the DS to give the parent');
  dnssec
    .command('status <zone>')
    .description("the zone's DNSSEC state, keys and DS records")
    .action(async (name: string) => {
      printDnssec((await gql(`query($z: String) { domain(name: $z) { dnssec { ${DNSSEC_FIELDS} } } }`, { z: name })).domain.dnssec);
    });
  dnssec
    .command('enable <zone>')
    .description('sign the zone; then give its parent one of the DS records printed')
    .option('--algorithm <name>', 'ECDSAP256SHA256, ED25519 or RSASHA256', 'ECDSAP256SHA256')
    .option('--nsec3', 'NSEC3 (no salt, no extra iterations: RFC 9276) instead of NSEC')
    .option('--opt-out', 'NSEC3 opt-out: insecure delegations left out of the chain')
    .option('--csk', 'one combined signing key instead of a KSK and a ZSK')
    .action(async (name: string, options: { algorithm: string; nsec3?: boolean; optOut?: boolean; csk?: boolean }) => {
      const input = {
        zone: name,
        algorithm: options.algorithm,
        denial: options.nsec3 || options.optOut ? 'NSEC3' : 'NSEC',
        nsec3OptOut: !!options.optOut,
        keyLayout: options.csk ? 'CSK' : 'KSK_ZSK',
      };
      printDnssec(
        (await gql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { ${DNSSEC_FIELDS} } }`, { i: input })).enableDnssec,
      );
    });
  dnssec
    .command('disable <zone>')
    .description(
      "stop signing the zone (RFC 8078): DS-delete CDS/CDNSKEY published, signed until the parent's DS is gone, then unsigned and its keys destroyed",
    )
    .option('--force', "unsign now, without waiting for the parent's DS to go (a DS left there makes the zone bogus)")
    .option('--yes', 'do not ask')
    .action(async (name: string, options: { yes?: boolean; force?: boolean }) => {
      await confirm(options, options.force ? `stop signing ${name} now and destroy its keys` : `start unsigning ${name}`, name);
      printDnssec(
        (
          await gql(`mutation($z: String!, $f: Boolean!) { disableDnssec(zone: $z, force: $f) { ${DNSSEC_FIELDS} } }`, {
            z: name,
            f: !!options.force,
          })
        ).disableDnssec,
      );
    });
  dnssec
    .command('roll <zone>')
    .description('start a roll of a key now (RFC 7583); the worker runs its steps as the TTLs allow')
    .addOption(
      new Option('--role <role>', 'zsk (pre-publication) or ksk (double-DS; the CSK of a zone signed with --csk)')
        .choices(['zsk', 'ksk'])
        .makeOptionMandatory(),
    )
    .action(async (name: string, options: { role: 'zsk' | 'ksk' }) => {
      printDnssec(
        (
          await gql(`mutation($z: String!, $r: DnssecRollRole!) { rollDnssecKey(zone: $z, role: $r) { ${DNSSEC_FIELDS} } }`, {
            z: name,
            r: options.role.toUpperCase(),
          })
        ).rollDnssecKey,
      );
    });
  dnssec
    .command('confirm-ds <zone>')
    .description("say that the parent serves the zone's DS (after enable, or a KSK roll's new DS)")
    .action(async (name: string) => {
      printDnssec(
        (await gql(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { ${DNSSEC_FIELDS} } }`, { z: name }))
          .confirmDnssecDsPublished,
      );
    });
  dnssec
    .command('confirm-ds-removed <zone>')
    .description('say that the parent no longer serves the DS of a zone being unsigned')
    .action(async (name: string) => {
      printDnssec(
        (await gql(`mutation($z: String!) { confirmDnssecDsRemoved(zone: $z) { ${DNSSEC_FIELDS} } }`, { z: name })).confirmDnssecDsRemoved,
      );
    });
  dnssec
    .command('events <zone>')
    .description("the zone's key events, newest first: each step of each key (made, published, active, retired, removed) and why")
    .option('--limit <n>', 'at most this many', '1000')
    .action(async (name: string, options: { limit: string }) => {
      const events = await listUpTo(
        `query($z: String!, $first: Int!, $after: String) { domain(name: $z) { dnssecEvents(first: $first, after: $after) {
          nodes { id at keyId keyTag role algorithm fromState toState reason } pageInfo { hasNextPage endCursor } } } }`,
        (d: { domain: { dnssecEvents: { nodes: unknown[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } }) =>
          d.domain.dnssecEvents,
        { z: name },
        limitOf(options.limit),
        'events',
      );
      print(program, events, ['id', 'at', 'keyTag', 'role', 'algorithm', 'fromState', 'toState', 'reason']);
    });

  const audit = program.command('audit').description('the audit log (admin key only; docs/audit-log.md)');
  audit
    .command('list')
    .description('list audit events, newest first')
    .option('--kind <kind>', 'only events of this kind (api-key-created, authentication-failed, …)')
    .option('--since <time>', 'only events at or after this time (ISO 8601, e.g. 2026-11-24T09:00:00Z)')
    .option('--limit <n>', 'at most this many', '1000')
    .action(async (options: { kind?: string; since?: string; limit: string }) => {
      const events = await listUpTo(
        `query($first: Int!, $after: String, $kind: String, $since: DateTimeISO) { auditEvents(first: $first, after: $after, kind: $kind, since: $since) {
          nodes { id at kind actorKeyType actorKeyId actorKeyName actorUserId actorAdmin subject detail sourceAddress count } pageInfo { hasNextPage endCursor } } }`,
        (d) => d.auditEvents,
        { kind: options.kind, since: options.since },
        limitOf(options.limit),
        'events',
      );
      print(program, program.opts().json ? events : events.map((e) => ({ ...e, actor: e.actorKeyName ?? '' })), [
        'id',
        'at',
        'kind',
        'actor',
        'subject',
        'sourceAddress',
        'count',
        'detail',
      ]);
    });

  const template = program.command('template').description('record templates a new zone starts with (docs/templates-and-alias.md)');
  template
    .command('list')
    .description("the templates: the default (the settings'), the admin-wide ones and the user's")
    .option('--user <userId>', "with this user's own")
    .action(async (options: { user?: string }) => {
      const list = (
        await gql(`query($u: ID) { recordTemplates(userId: $u) { id userId name records { owner type rdata ttl } } }`, {
          u: options.user ?? null,
        })
      ).recordTemplates as { id: string | null; userId: string | null; name: string; records: unknown[] }[];
      if (program.opts().json) return print(program, list);
      print(
        program,
        list.map((t) => ({ id: t.id ?? '-', userId: t.userId ?? '-', name: t.name, records: t.records.length })),
        ['id', 'userId', 'name', 'records'],
      );
    });
  template
    .command('add <name> <file>')
    .description('save a template from a JSON file: [{"owner": "@", "type": "SOA", "rdata": "…", "ttl": 3600}, …]')
    .option('--user <userId>', "the user's own template; without it admin-wide (admin key) or the key's user")
    .action(async (name: string, file: string, options: { user?: string }) => {
      const records = JSON.parse(readFileSync(file, 'utf8'));
      print(
        program,
        (
          await gql(`mutation($i: CreateRecordTemplateInput!) { createRecordTemplate(input: $i) { id userId name } }`, {
            i: { userId: options.user ?? null, name, records },
          })
        ).createRecordTemplate,
      );
    });
  template
    .command('delete <id>')
    .description('delete a template (zones made from it keep their records)')
    .action(async (id: string) => {
      await gql(`mutation($id: ID!) { deleteRecordTemplate(id: $id) }`, { id });
      print(program, { id, deleted: true });
    });

  const nsSet = program
    .command('nameserver-set')
    .description('nameserver sets: fleets of secondaries with their NS names and catalog zone (admin key; docs/transfers.md)');
  const NS_SET_FIELDS = 'name isDefault secondaries nsNames catalogZone zoneCount';
  const nsSetRow = (set: { secondaries: string[]; nsNames: string[] } & Record<string, unknown>) =>
    program.opts().json ? set : { ...set, secondaries: set.secondaries.join(',') || '-', nsNames: set.nsNames.join(',') };
  const NS_SET_COLUMNS = ['name', 'secondaries', 'nsNames', 'catalogZone', 'zoneCount'];
  nsSet
    .command('list')
    .description('every set, `default` (the settings) first')
    .action(async () => {
      const sets = (await gql(`{ nameserverSets { ${NS_SET_FIELDS} } }`)).nameserverSets;
      print(program, sets.map(nsSetRow), NS_SET_COLUMNS);
    });
  nsSet
    .command('add <name> <catalogZone>')
    .description('create a set: its catalog zone, --secondary ADDRESS[:PORT] and --ns NAME (repeat each)')
    .option('--secondary <server>', 'a secondary, ADDRESS[:PORT]; repeat for more', (value: string, all: string[] = []) => [...all, value])
    .option('--ns <name>', 'an NS name of its zones; repeat for more', (value: string, all: string[] = []) => [...all, value])
    .action(async (name: string, catalogZone: string, options: { secondary?: string[]; ns?: string[] }) => {
      const made = await gql(`mutation($i: NameserverSetInput!) { createNameserverSet(input: $i) { ${NS_SET_FIELDS} } }`, {
        i: { name, catalogZone, secondaries: options.secondary ?? [], nsNames: options.ns ?? [] },
      });
      print(program, nsSetRow(made.createNameserverSet), NS_SET_COLUMNS);
    });
  nsSet
    .command('update <name>')
    .description("replace a set's secondaries and NS names (--secondary, --ns; repeat each)")
    .option('--secondary <server>', 'a secondary, ADDRESS[:PORT]; repeat for more', (value: string, all: string[] = []) => [...all, value])
    .option('--ns <name>', 'an NS name of its zones; repeat for more', (value: string, all: string[] = []) => [...all, value])
    .action(async (name: string, options: { secondary?: string[]; ns?: string[] }) => {
      const updated = await gql(
        `mutation($n: String!, $i: NameserverSetUpdateInput!) { updateNameserverSet(name: $n, input: $i) { ${NS_SET_FIELDS} } }`,
        { n: name, i: { secondaries: options.secondary ?? [], nsNames: options.ns ?? [] } },
      );
      print(program, nsSetRow(updated.updateNameserverSet), NS_SET_COLUMNS);
    });
  nsSet
    .command('delete <name>')
    .description('delete a set no zone is in')
    .action(async (name: string) => {
      await gql(`mutation($n: String!) { deleteNameserverSet(name: $n) }`, { n: name });
      print(program, { name, deleted: true });
    });
  nsSet
    .command('move <zone> <name>')
    .description("move a zone to a set: its NS follow when they were the old set's; it leaves the old catalog once the new set serves it")
    .action(async (zoneName: string, name: string) => {
      const moved = await gql(
        `mutation($z: String!, $n: String!) { moveZoneToNameserverSet(zone: $z, nameserverSet: $n) { name serial nameserverSet { name } } }`,
        { z: zoneName, n: name },
      );
      const zone = moved.moveZoneToNameserverSet;
      print(program, { zone: zone.name, serial: zone.serial, nameserverSet: zone.nameserverSet.name });
    });

  const zone = program.command('zone').description('zones (domains)');
  zone
    .command('add <user> <zone>')
    .description(
      'create a zone for a user given by id or e-mail: its default records, those of a template, or with --primary a SECONDARY zone taken from those servers',
    )
    .option('--template <name>', "the record template it starts with (the user's, else an admin-wide one); default: the settings'")
    .option('--nameserver-set <name>', 'the nameserver set that serves it (admin key); default: `default`')
    .option(
      '--primary <server>',
      'a primary of a SECONDARY zone, ADDRESS[#PORT][=TSIG_KEY_NAME]; repeat for more (tried in order)',
      (value: string, all: string[] = []) => [...all, value],
    )
    .action(async (user: string, name: string, options: { primary?: string[]; template?: string; nameserverSet?: string }) => {
      const primaries = options.primary?.map((spec) => serverSpec(spec, false));
      const userId = await userIdOf(user);
      print(
        program,
        (
          await gql(
            `mutation($u: ID!, $z: String!, $k: ZoneKind, $p: [ServerInput!], $t: String, $s: String) {
              createDomain(input: {userId: $u, zone: $z, kind: $k, primaries: $p, template: $t, nameserverSet: $s}) { id name serial kind } }`,
            {
              u: userId,
              z: name,
              k: primaries ? 'SECONDARY' : 'PRIMARY',
              p: primaries ?? null,
              t: options.template ?? null,
              s: options.nameserverSet ?? null,
            },
          )
        ).createDomain,
      );
    });
  zone
    .command('transfers <zone>')
    .description("a SECONDARY zone's transfers from its primaries: state, last error, timers, warnings (docs/transfers.md)")
    .action(async (name: string) => {
      const found = await gql(
        `query($z: String) { domain(name: $z) { name kind serial secondary { state lastError lastSuccessAt expiresAt nextRefreshAt transfers primarySerial warnings } } }`,
        { z: name },
      );
      const { secondary, ...domain } = found.domain;
      print(program, { ...domain, ...(secondary ?? {}) });
    });
  zone
    .command('promote <zone>')
    .description('turn a SECONDARY zone into a PRIMARY zone written here (the way off another provider)')
    .action(async (name: string) => {
      print(program, (await gql(`mutation($z: String!) { promoteZone(zone: $z) { id name serial kind } }`, { z: name })).promoteZone);
    });
  zone
    .command('import-axfr <zone> <server>')
    .description("replace a zone's records (the SOA aside) with one AXFR from ADDRESS[#PORT][=TSIG_KEY_NAME]")
    .action(async (name: string, server: string) => {
      const imported = await gql(
        `mutation($z: String!, $f: ServerInput!) { importZoneByTransfer(zone: $z, from: $f) { records zone { name serial } } }`,
        { z: name, f: serverSpec(server, false) },
      );
      print(program, { ...imported.importZoneByTransfer.zone, records: imported.importZoneByTransfer.records });
    });
  zone
    .command('list')
    .description('list zones')
    .option('--limit <n>', 'at most this many', '1000')
    .action(async (options: { limit: string }) => {
      const zones = await listUpTo(
        `query($first: Int!, $after: String) { domains(first: $first, after: $after) { nodes { id name serial } pageInfo { hasNextPage endCursor } } }`,
        (d) => d.domains,
        {},
        limitOf(options.limit),
        'zones',
      );
      print(program, zones, ['id', 'name', 'serial']);
    });
  zone
    .command('delete <zone>')
    .description('delete a zone and all its records')
    .option('--yes', 'do not ask')
    .action(async (name: string, options: { yes?: boolean }) => {
      await confirm(options, `delete zone ${name} and all its records`, name);
      await gql(`mutation($z: String!) { deleteDomain(zone: $z) }`, { z: name });
      print(program, { zone: name, deleted: true });
    });
  zone
    .command('export <zone>')
    .description('print the zone as an RFC 1035 master file')
    .action(async (name: string) => {
      const text = (await gql(`query($z: String!) { exportZone(zone: $z) }`, { z: name })).exportZone as string;
      if (program.opts().json) print(program, { zone: name, text });
      else process.stdout.write(text);
    });
  zone
    .command('import <zone> <file>')
    .description('import a master file, all or nothing')
    .option('--merge', 'add the file to the zone instead of replacing the zone with it')
    .option('--dry-run', 'show what would change and write nothing')
    .option('--clamp-ttls', 'give a TTL outside ALLOWED_TTLS the nearest allowed one (with a warning) instead of refusing the file')
    .action(async (name: string, file: string, options: { merge?: boolean; dryRun?: boolean; clampTtls?: boolean }) => {
      const text = readFileSync(file, 'utf8');
      const result = (
        await gql(
          `mutation($z: String!, $t: String!, $m: ZoneImportMode!, $d: Boolean, $p: ZoneImportTtlPolicy!) {
        importZone(zone: $z, text: $t, mode: $m, dryRun: $d, ttlPolicy: $p) { zone added removed serial dryRun addedRecords removedRecords warnings { line code message } } }`,
          {
            z: name,
            t: text,
            m: options.merge ? 'MERGE' : 'REPLACE',
            d: options.dryRun ?? false,
            p: options.clampTtls ? 'CLAMP' : 'REFUSE',
          },
        )
      ).importZone;
      if (program.opts().json) return print(program, result);
      print(program, { zone: result.zone, added: result.added, removed: result.removed, serial: result.serial, dryRun: result.dryRun });
      for (const r of result.addedRecords ?? []) process.stdout.write(`+ ${r}\n`);
      for (const r of result.removedRecords ?? []) process.stdout.write(`- ${r}\n`);
      for (const w of result.warnings) process.stderr.write(`warning: ${w.message}\n`);
    });
  zone
    .command('apply <zone> <file>')
    .description(
      'apply a change set from a JSON file: an array of {kind, id, owner, type, rdata, rdatas, ttl} (kind ADD, REMOVE, REPLACE, REPLACE_RRSET), all or nothing',
    )
    .option('--expect-serial <serial>', 'apply only if the zone is still at this serial (else SERIAL_MISMATCH)')
    .action(async (name: string, file: string, options: { expectSerial?: string }) => {
      let changes: unknown;
      try {
        changes = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error;
        throw new UsageError(`${file} is not JSON: ${(error as Error).message}`);
      }
      if (changes && !Array.isArray(changes) && Array.isArray((changes as { changes?: unknown }).changes))
        changes = (changes as { changes: unknown[] }).changes;
      if (!Array.isArray(changes)) throw new UsageError(`${file} must hold a JSON array of changes (or {"changes": [...]})`);
      const expect = options.expectSerial === undefined ? undefined : Number(options.expectSerial);
      const result = (
        await gql(
          `mutation($z: String!, $c: [ZoneChangeInput!]!, $e: Serial) { applyZoneChanges(zone: $z, changes: $c, expectSerial: $e) {
        zone serialBefore serial added { owner type rdata ttl } removed { owner type rdata ttl } } }`,
          { z: name, c: changes, e: expect },
        )
      ).applyZoneChanges;
      if (program.opts().json) return print(program, result);
      process.stdout.write(`zone ${result.zone}: serial ${result.serialBefore} → ${result.serial}\n`);
      for (const r of result.removed) process.stdout.write(`- ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
      for (const r of result.added) process.stdout.write(`+ ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
    });
  zone
    .command('diff <zone> <fromSerial> [toSerial]')
    .description('the records removed and added between two serials (default: to the current one)')
    .action(async (name: string, from: string, to: string | undefined) => {
      const diff = (
        await gql(
          `query($z: String!, $f: Serial!, $t: Serial) { domain(name: $z) { diff(fromSerial: $f, toSerial: $t) { fromSerial toSerial added { owner type rdata ttl } removed { owner type rdata ttl } } } }`,
          { z: name, f: Number(from), t: to === undefined ? undefined : Number(to) },
        )
      ).domain.diff;
      if (program.opts().json) return print(program, diff);
      process.stdout.write(`zone ${name}: ${diff.fromSerial} → ${diff.toSerial}\n`);
      for (const r of diff.removed) process.stdout.write(`- ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
      for (const r of diff.added) process.stdout.write(`+ ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
    });
  zone
    .command('revert <zone> <toSerial>')
    .description('bring the zone back to the records it had at a serial, as a new change (the serial rises)')
    .option('--yes', 'do not ask')
    .action(async (name: string, toSerial: string, options: { yes?: boolean }) => {
      await confirm(options, `revert zone ${name} to the records of serial ${toSerial}`, name);
      const result = (
        await gql(
          `mutation($z: String!, $t: Serial!) { revertZone(zone: $z, toSerial: $t) { zone serialBefore serial added { owner type rdata ttl } removed { owner type rdata ttl } } }`,
          { z: name, t: Number(toSerial) },
        )
      ).revertZone;
      if (program.opts().json) return print(program, result);
      process.stdout.write(`zone ${result.zone}: serial ${result.serialBefore} → ${result.serial}\n`);
      for (const r of result.removed) process.stdout.write(`- ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
      for (const r of result.added) process.stdout.write(`+ ${r.owner} ${r.ttl} ${r.type} ${r.rdata}\n`);
    });
  zone
    .command('check <zone>')
    .description("the zone checks (as named-checkzone's): warnings about the whole zone; exit 0 either way")
    .action(async (name: string) => {
      const result = (
        await gql(`query($z: String!) { checkZone(zone: $z) { zone serial warnings { owner type code message } } }`, { z: name })
      ).checkZone;
      if (program.opts().json) return print(program, result);
      process.stdout.write(
        `zone ${result.zone} serial ${result.serial}: ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}\n`,
      );
      if (result.warnings.length) print(program, result.warnings, ['owner', 'type', 'code', 'message']);
    });
  zone
    .command('changes <zone>')
    .description("the zone's committed changes, newest first")
    .option('--first <n>', 'how many', '20')
    .action(async (name: string, options: { first: string }) => {
      const data = await gql(
        `query($z: String!, $f: Int) { domain(name: $z) { changes(first: $f) { nodes { id serialAfter createdAt author { keyName admin } added { owner type rdata } removed { owner type rdata } } } } }`,
        { z: name, f: Number(options.first) },
      );
      const nodes = data.domain.changes.nodes as any[];
      if (program.opts().json) return print(program, nodes);
      print(
        program,
        nodes.map((n) => ({
          serial: n.serialAfter,
          at: n.createdAt,
          by: n.author ? (n.author.admin ? `admin (${n.author.keyName ?? ''})` : n.author.keyName) : 'service',
          added: n.added.filter((r: any) => r.type !== 'SOA').length,
          removed: n.removed.filter((r: any) => r.type !== 'SOA').length,
        })),
      );
    });

  const record = program.command('record').description('records of a zone');
  record
    .command('add <zone> <owner> <type> <rdata>')
    .description('add a record')
    .option('--ttl <ttl>', 'TTL: seconds or units (300, 30m, 1h, 1h30m, 1d, 1w)', '3600')
    .action(async (zoneName: string, owner: string, type: string, rdata: string, options: { ttl: string }) => {
      const ttl = ttlOf(options.ttl);
      print(
        program,
        (
          await gql(`mutation($i: RecordInput!) { createRecord(input: $i) { id owner type rdata ttl } }`, {
            i: { zone: zoneName, owner, type, rdata, ttl },
          })
        ).createRecord,
      );
    });
  record
    .command('edit <id> <zone> <owner> <type> <rdata>')
    .description('replace a record (an SOA edit must raise the serial)')
    .option('--ttl <ttl>', "TTL: seconds or units (300, 30m, 1h, 1h30m, 1d, 1w); without it, the record's own")
    .action(async (id: string, zoneName: string, owner: string, type: string, rdata: string, options: { ttl?: string }) => {
      // an edit replaces the record whole: without --ttl it keeps the TTL it has (read first), not a default
      const ttl =
        options.ttl !== undefined
          ? ttlOf(options.ttl)
          : (await gql<{ record: { ttl: number } }>(`query($id: ID!) { record(id: $id) { ttl } }`, { id })).record.ttl;
      print(
        program,
        (
          await gql(`mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { id owner type rdata ttl } }`, {
            id,
            i: { zone: zoneName, owner, type, rdata, ttl },
          })
        ).updateRecord,
      );
    });
  record
    .command('list <zone>')
    .description("list a zone's records")
    .option('--limit <n>', 'at most this many', '10000')
    .action(async (zoneName: string, options: { limit: string }) => {
      await requireZone(zoneName);
      const records = await listUpTo(
        `query($z: String!, $first: Int!, $after: String) { records(zone: $z, first: $first, after: $after) { nodes { id owner type rdata ttl } pageInfo { hasNextPage endCursor } } }`,
        (d) => d.records,
        { z: zoneName },
        limitOf(options.limit),
        'records',
      );
      print(program, records, ['id', 'owner', 'ttl', 'type', 'rdata']);
    });
  record
    .command('delete <id>')
    .description('delete a record')
    .option('--yes', 'do not ask')
    .action(async (id: string, options: { yes?: boolean }) => {
      await confirm(options, `delete record ${id}`, id);
      await gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id });
      print(program, { id, deleted: true });
    });

  program
    .command('status <zone>')
    .description('propagation: which secondary serves which serial')
    .option('--wait', 'wait until every secondary serves the current serial')
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 1)', '120')
    .action(async (name: string, options: { wait?: boolean; timeout: string }) => {
      const seconds = Number(options.timeout);
      if (!/^\d+(\.\d+)?$/.test(options.timeout) || !(seconds > 0))
        throw new UsageError(`--timeout takes a number of seconds above 0 (got "${options.timeout}")`);
      const deadline = Date.now() + seconds * 1000;
      for (;;) {
        const status = (
          await gql(
            `query($z: String!) { domain(name: $z) { serial propagation { state message servers { server servedSerial state error } } } }`,
            { z: name },
          )
        ).domain;
        const servers = status.propagation.servers as any[];
        // with no secondaries configured there is nothing to wait for
        const done = status.propagation.state === 'in_sync' || status.propagation.state === 'no_secondaries';
        // progress rewrites one line on a terminal; a log or a pipe gets a line per update
        const inPlace = process.stderr.isTTY === true;
        if (!options.wait || done) {
          if (options.wait && inPlace && !program.opts().json) process.stderr.write('\n');
          if (program.opts().json) return print(program, status);
          process.stdout.write(
            `zone ${name} serial ${status.serial}: ${status.propagation.state}${status.propagation.message ? `: ${status.propagation.message}` : ''}\n`,
          );
          return print(program, servers, ['server', 'state', 'servedSerial', 'error']);
        }
        if (Date.now() > deadline) {
          if (inPlace && !program.opts().json) process.stderr.write('\n');
          throw new ApiError('TIMEOUT', `not every secondary serves serial ${status.serial} after ${options.timeout} s`);
        }
        const synced = servers.filter((s) => s.state === 'in_sync').length;
        const progress = `serial ${status.serial}: ${synced}/${servers.length} secondaries in sync…`;
        if (!program.opts().json) process.stderr.write(inPlace ? `\r${progress}` : `${progress}\n`);
        await sleep(500);
      }
    });
  return program;
}

export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof ApiError) {
      process.stderr.write(`error: ${error.code}: ${error.message}\n`);
      return EXIT.api;
    }
    if ((error as { unreachable?: boolean }).unreachable) {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      return EXIT.unreachable;
    }
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

if (require.main === module) {
  run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

/** the least-privilege options of `key create` and `tsig add` (docs/least-privilege.md) */
interface PolicyOptions {
  preset?: string;
  zone?: string;
  rule?: string[];
  mayCreateZones?: boolean;
  mayDeleteZones?: boolean;
  mayManageKeys?: boolean;
  expires?: string;
  idleDays?: string;
  network?: string[];
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function withPolicyOptions(command: Command): Command {
  return command
    .option('--preset <preset>', 'read-only, one-zone or acme')
    .option('--zone <zone>', 'the zone of the preset (one-zone: required)')
    .option(
      '--rule <rule>',
      'a rule, access:zone:owner:types (`-` for every zone, any owner, every type), e.g. write:example.com:_acme-challenge.*:TXT; repeatable',
      collect,
    )
    .option('--may-create-zones', 'a restricted key that may create zones')
    .option('--may-delete-zones', 'a restricted key that may delete zones')
    .option('--may-manage-keys', 'a restricted key that may manage keys (never making one with more rights)')
    .option('--expires <dateTime>', 'refused from then on (RFC 3339, e.g. 2027-01-01T00:00:00Z)')
    .option('--idle-days <days>', 'refused once unused for that many days')
    .option('--network <cidr>', 'a network the key may be used from; repeatable', collect);
}

function policyInputFrom(options: PolicyOptions): Record<string, unknown> {
  const any = (part: string | undefined) => (part === undefined || part === '' || part === '-' ? null : part);
  const rules = options.rule?.map((text) => {
    const [access, zone, owner, types] = text.split(':');
    return { access: String(access).toUpperCase(), zone: any(zone), owner: any(owner), types: any(types)?.split(',') ?? null };
  });
  const flags = options.mayCreateZones || options.mayDeleteZones || options.mayManageKeys;
  const policy = {
    ...(rules ? { rules } : {}),
    ...(options.mayCreateZones ? { mayCreateZones: true } : {}),
    ...(options.mayDeleteZones ? { mayDeleteZones: true } : {}),
    ...(options.mayManageKeys ? { mayManageKeys: true } : {}),
    ...(options.expires ? { expiresAt: options.expires } : {}),
    ...(options.idleDays ? { idleDays: Number(options.idleDays) } : {}),
    ...(options.network ? { allowedNetworks: options.network } : {}),
  };
  return {
    ...(rules || flags || options.expires || options.idleDays || options.network ? { policy } : {}),
    ...(options.preset ? { preset: options.preset.toUpperCase().replace(/-/g, '_') } : {}),
    ...(options.zone ? { zone: options.zone } : {}),
  };
}
