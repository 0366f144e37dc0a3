import { Command } from 'commander';
import { MAX_TTL, parseDuration } from '../dns/ttl';
import type { TypedDocument } from '../graphql/typed-document';
import { CONSISTENCY_TOKEN_HEADER, ConsistencyTokens } from './consistency';
import { UserIdByEmailDocument, ZoneExistsDocument, type CliProposedChangeFragment } from './generated/shared';
import { storedSession } from './stored-sessions';

/** what the command groups of the CLI (src/cli/commands) share: the API call, the printing, the option readers, the exit codes */

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** `readerGone`: SIGPIPE's status as a shell reports it (128 + 13), the reader of the output having gone away */
export const EXIT = { ok: 0, api: 1, usage: 2, unreachable: 3, critical: 4, readerGone: 141 } as const;

/** a command that ran and whose answer is an exit code of its own (`health`: the zone is critical), its output printed */
export class ExitWith extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** a mistake in the command's words that commander cannot see (a value out of range): exit 2 */
export class UsageError extends Error {}

/**
 * A server given on the command line, ADDRESS[#PORT][=TSIG_KEY_NAME] ('#' for the port, as Unbound and dnsdist write
 * it: an IPv6 address has colons of its own), as the GraphQL ServerInput; `keyRequired`: the key part must be there.
 */
export function serverSpec(spec: string, keyRequired: boolean): { address: string; port: number | null; tsigKeyName: string | null } {
  const match = /^([^#=]+)(?:#(\d{1,5}))?(?:=(.+))?$/.exec(spec);
  if (!match || (keyRequired && !match[3]))
    throw new UsageError(`a server is ADDRESS[#PORT]${keyRequired ? '' : '['}=TSIG_KEY_NAME${keyRequired ? '' : ']'} (got "${spec}")`);
  return { address: match[1], port: match[2] === undefined ? null : Number(match[2]), tsigKeyName: match[3] ?? null };
}

/** the command's Consistency-Tokens, for the service it talks to (made at its first request) */
let tokens: ConsistencyTokens | undefined;

/** the service's base URL (ZONEKEEPER_URL), without a final slash: the key of its stored session too */
export const serviceUrl = (): string => (process.env.ZONEKEEPER_URL ?? 'http://localhost:3000').replace(/\/$/, '');

/**
 * The credentials of a request: ZONEKEEPER_SESSION (a person's session token), else ZONEKEEPER_API_KEY, else the
 * session `zonekeeper login` stored; `as: 'person'` (what only a person does: a review) takes a stored session
 * before the key. A session goes as the console's cookie would, with X-Requested-With (the CSRF gate).
 */
function credentialsOf(base: string, as: 'any' | 'person'): Record<string, string> {
  const key = process.env.ZONEKEEPER_API_KEY;
  const session = process.env.ZONEKEEPER_SESSION || (as === 'person' || !key ? storedSession(base)?.session : undefined);
  if (session) return { cookie: `zk_session=${session}`, 'x-requested-with': 'zonekeeper-cli' };
  if (key) return { 'x-api-key': key };
  throw new ApiError(
    'NO_API_KEY',
    'set ZONEKEEPER_API_KEY to an API key of the service (or sign in as a person: `zonekeeper login`, or ZONEKEEPER_SESSION)',
  );
}

/** the service could not be reached (exit 3): what fetch said */
export const unreachable = (base: string, error: unknown): Error =>
  Object.assign(new Error(`cannot reach ${base}: ${(error as Error).cause ?? (error as Error).message}`), { unreachable: true });

/**
 * An operation's variables as a command hands them: each name the operation declares and no other, those it
 * requires required. Their values are what the command line and the files gave, checked by the operation's own
 * coercion (a wrong one is the API's error, its field named)
 */
export type VariablesOf<TVariables> = { [name in keyof TVariables]: unknown };

/**
 * Runs one of the CLI's operations (src/cli/operations/*.graphql) on the service's GraphQL API, answering its
 * data as the generated type says; a GraphQL error is an ApiError with its code. `as: 'person'`: what only a
 * person does (a review), as credentialsOf says
 */
export async function gql<TResult, TVariables>(
  document: TypedDocument<TResult, TVariables>,
  variables: VariablesOf<TVariables>,
  as: 'any' | 'person' = 'any',
): Promise<TResult> {
  const base = serviceUrl();
  const credentials = credentialsOf(base, as);
  tokens ??= new ConsistencyTokens(base);
  // the latest write's token goes with every request: a read is then never older than what this CLI wrote
  const token = tokens.current();
  let res: Response;
  try {
    res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...credentials, ...(token ? { [CONSISTENCY_TOKEN_HEADER]: token } : {}) },
      body: JSON.stringify({ query: document, variables }),
    });
  } catch (error) {
    throw unreachable(base, error);
  }
  const body = (await res.json().catch(() => ({}))) as {
    data?: TResult;
    errors?: { message: string; extensions?: { code?: string; details?: { message: string }[] } }[];
    extensions?: { warnings?: { message: string }[]; consistencyToken?: string };
    /** the error body of an answer given before GraphQL ran (docs/decisions.md §1) */
    error?: string;
    message?: string;
  };
  // a write's answer carries its token (with standbys for reads): the header, and the same in `extensions`
  tokens.note(res.headers.get(CONSISTENCY_TOKEN_HEADER) ?? body.extensions?.consistencyToken);
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
export function print(program: Command, rows: Record<string, unknown>[] | Record<string, unknown>, columns?: string[]): void {
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

/** who made a change, as the CLI prints it: the person by e-mail, else the key (the admin's named so); `none` without one */
export function authorLabel(
  author: { keyName?: string | null; admin?: boolean; email?: string | null } | null | undefined,
  none: string,
): string {
  if (!author) return none;
  return author.email ?? (author.admin ? `admin (${author.keyName ?? ''})` : (author.keyName ?? none));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** items per request when a list is read page by page: under any MAX_PAGE_SIZE an operator is likely to set */
const PAGE = 100;

/**
 * A list read page by page (cursors) up to `limit` items; when more exist, stderr says so, so that a list
 * is never cut without a word.
 */
export async function listUpTo<TResult, TVariables extends { first: unknown; after?: unknown }, TNode>(
  document: TypedDocument<TResult, TVariables>,
  pick: (data: TResult) => { nodes: TNode[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } },
  variables: Omit<VariablesOf<TVariables>, 'first' | 'after'>,
  limit: number,
  what: string,
): Promise<TNode[]> {
  const items: TNode[] = [];
  let after: string | undefined;
  let pageSize = PAGE;
  for (;;) {
    let data: TResult;
    try {
      // the page's own variables beside the command's (the document declares both: TVariables says so)
      const page = { ...variables, first: Math.min(pageSize, limit - items.length), after } as VariablesOf<TVariables>;
      data = await gql(document, page);
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
export async function userIdOf(user: string): Promise<string> {
  if (/^\d+$/.test(user)) return user;
  return (await gql(UserIdByEmailDocument, { email: user })).user.id;
}

/**
 * Stops with ZONE_NOT_FOUND (exit 1) when the zone does not exist or the key cannot see it: a listing filtered
 * by a zone that is not there is empty, and "(none)" would say the zone is
 */
export async function requireZone(name: string): Promise<void> {
  if (!(await zoneExists(name))) throw new ApiError('ZONE_NOT_FOUND', `no zone ${name} (it does not exist, or this key cannot see it)`);
}

/** does the zone exist for this key (ZONE_NOT_FOUND: it does not, or the key cannot see it)? */
export async function zoneExists(name: string): Promise<boolean> {
  try {
    await gql(ZoneExistsDocument, { zone: name });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'ZONE_NOT_FOUND') return false;
    throw error;
  }
}

/** a yes-or-no question at the terminal (on stderr, so that stdout stays the command's answer); yes only when typed */
export async function askYesNo(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

/**
 * --ttl's value: seconds, or BIND's units as a zone file takes them (`300`, `1h`, `1d`, `1w`, `1h30m`), read by
 * the DNS model's own reader of master-file TTLs; the service then holds it to its TTL policy (ALLOWED_TTLS_BEYOND_REST)
 */
export function ttlOf(text: string): number {
  const seconds = parseDuration(text.trim());
  // RFC 2181 §8: a TTL is 0..2^31-1
  if (seconds === undefined || seconds > MAX_TTL)
    throw new UsageError(`--ttl takes seconds or BIND's units: 300, 30m, 1h, 1h30m, 1d, 1w (at most ${MAX_TTL} s; got "${text}")`);
  return seconds;
}

/** --limit's value: a whole number above 0 */
export function limitOf(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--limit takes a whole number above 0 (got "${text}")`);
  return Number(text);
}

/**
 * A destructive command goes ahead with --yes, or when the person at the terminal types what it names; without
 * a terminal and without --yes it stops (exit 2): a script must say --yes.
 */
export async function confirm(options: { yes?: boolean }, what: string, answer: string): Promise<void> {
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

export const limitOptions = (command: Command, fields: [string, string][]) =>
  fields.reduce((c, [flag, what]) => c.option(`--${flag} <n>`, `${what}: a whole number (0: no limit), or "default"`), command);
/** the options given as the GraphQL input: a number, or null for "default"; an option not given is left out */
export const limitValues = (options: Record<string, string | undefined>, fields: [string, string][]) => {
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

/** the least-privilege options of `key create` and `tsig add` (docs/least-privilege.md) */
export interface PolicyOptions {
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

export function withPolicyOptions(command: Command): Command {
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

export function policyInputFrom(options: PolicyOptions): Record<string, unknown> {
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

/** what a write to a zone that requires approvals became: a change request, nothing written (docs/changes.md, «Review») */
export type ProposedChange = CliProposedChangeFragment;

/** says that a write became a change request: its id and the approvals it waits for */
export function printProposed(program: Command, zone: string, request: ProposedChange): void {
  if (program.opts().json) return print(program, { zone, changeRequest: request });
  const approvals = `${request.requiredApprovals} approval${request.requiredApprovals === 1 ? '' : 's'}`;
  process.stdout.write(`zone ${zone}: requires ${approvals}; proposed as change request ${request.id}, nothing written\n`);
}

/** a record's write answered: said as the change request it became, or, written, by `printWritten` */
export function printOutcome<T extends { zone: string; changeRequest: ProposedChange | null }>(
  program: Command,
  outcome: T,
  printWritten: (written: T) => void,
): void {
  if (outcome.changeRequest) printProposed(program, outcome.zone, outcome.changeRequest);
  else printWritten(outcome);
}
