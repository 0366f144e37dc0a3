import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import {
  ReportSteeringStatusDocument,
  SetSteeringDefaultsDocument,
  SetSteeringMemberAdminDocument,
  SteeringDefaultsDocument,
  SteeringDocument,
  SteeringVantagesDocument,
  UpdateSteeredRrsetDocument,
  type CliSteeredRrsetFragment,
  type CliSteeringCheckFragment,
  type CliSteeringPoolFragment,
} from '../generated/steering';
import { ApiError, gql, print, UsageError } from '../shared';

/** a steered RRset as the CLI reads it, and one of its pools */
type Rrset = CliSteeredRrsetFragment;
type Pool = CliSteeringPoolFragment;

/** a rule as the CLI's file gives it: networks, and pools whose members name their check by name */
interface RuleFile {
  subnets?: string[];
  geos?: string[];
  pools: { minHealthy?: number; members: { value: string; check?: string; admin?: string; weight?: number }[] }[];
}

/** pools as GraphQL's input: each member's check by its id */
const poolsInput = (pools: Pool[]) =>
  pools.map((pool) => ({
    minHealthy: pool.minHealthy,
    members: pool.members.map((m) => ({ value: m.value, checkId: m.check?.id ?? null, admin: m.admin, weight: m.weight })),
  }));

async function steeringOf(zone: string): Promise<{ name: string; checks: CliSteeringCheckFragment[]; rrsets: Rrset[] }> {
  const data = await gql(SteeringDocument, { zone });
  return { name: data.domain.name, checks: data.domain.steeringChecks, rrsets: data.domain.steeredRrsets };
}

/** the owner as the zone's RRsets name it: '@', `www`; an absolute name within the zone read as relative */
function relative(zone: string, owner: string): string {
  const z = zone.toLowerCase().replace(/\.$/, '');
  const o = owner.toLowerCase().replace(/\.$/, '');
  if (o === z) return '@';
  return o.endsWith(`.${z}`) ? o.slice(0, -z.length - 1) : o;
}

async function rrsetAt(zone: string, owner: string, type: string): Promise<Rrset> {
  const steering = await steeringOf(zone);
  const rrset = steering.rrsets.find((r) => r.type === type.toUpperCase() && r.owner.toLowerCase() === relative(steering.name, owner));
  if (!rrset) throw new ApiError('STEERED_RRSET_NOT_FOUND', `${zone} has no steered ${type.toUpperCase()} RRset at ${owner}`);
  return rrset;
}

/** one row per member: its pool, its admin status and its check's live state */
const memberRows = (rrset: Rrset) =>
  rrset.pools.flatMap((pool, p) =>
    pool.members.map((m) => ({
      owner: rrset.owner,
      type: rrset.type,
      pool: p + 1,
      value: m.value,
      admin: m.admin,
      healthy: m.healthy,
      check: m.check?.name ?? '',
      // the condition, never `up` while held (frozen: failing, held up by the panic freeze; no-sound-vantage)
      condition: m.condition.toLowerCase().replace(/_/g, '-'),
      since: m.check?.heldSince ?? m.check?.since ?? '',
      latencyMs: m.check?.latencyMs ?? '',
      lastError: m.check?.lastError ?? '',
      served: rrset.served.includes(m.value),
    })),
  );

/** a zone's defaults as rows, one per setting; one not set shows the service's default that applies */
const SERVICE_DEFAULTS: Record<string, string> = {
  protocol: 'https',
  port: '443 (https), 80 (http)',
  host: 'the record’s name',
  path: '/_dns',
  statusMin: '200',
  statusMax: '399',
  bodyContains: 'any body',
  verifyTls: 'false',
  intervalSeconds: 'STEERING_CHECK_INTERVAL',
};
const defaultsRows = (defaults: Record<string, unknown>) =>
  Object.entries(SERVICE_DEFAULTS).map(([setting, fallback]) => ({
    setting,
    value: defaults[setting] ?? '',
    applies: defaults[setting] ?? `${fallback} (the service's)`,
  }));

/** a whole number option, or a usage error naming it */
function wholeNumber(option: string, text: string | undefined): number | null {
  if (text === undefined) return null;
  if (!/^\d{1,5}$/.test(text)) throw new UsageError(`${option} is a whole number (got "${text}")`);
  return Number(text);
}

/** one row per rule: its networks, the view of steering's own that serves it, its pools' values */
const ruleRows = (rrset: Rrset) =>
  rrset.rules.map((rule, r) => ({
    rule: r + 1,
    subnets: rule.subnets.join(' '),
    geos: rule.geos.join(' '),
    view: rule.view ?? '',
    pools: rule.pools.map((pool) => pool.members.map((m) => m.value).join(',')).join(' > '),
  }));
const RULE_COLUMNS = ['rule', 'subnets', 'geos', 'view', 'pools'];

const MEMBER_COLUMNS = ['pool', 'value', 'admin', 'healthy', 'served', 'check', 'condition', 'since', 'latencyMs', 'lastError'];

/**
 * `zonekeeper steering`: steered RRsets and their members' live state, pausing a member, and reporting an
 * external check's status (docs/steering.md)
 */
export function registerSteeringCommands(program: Command): void {
  const steering = program
    .command('steering')
    .description('health-checked failover: steered RRsets, their pools and members (docs/steering.md)');
  steering
    .command('list <zone>')
    .description("the zone's steered RRsets, a row per member with its check's live state")
    .action(async (zone: string) => {
      const { rrsets } = await steeringOf(zone);
      if (program.opts().json) print(program, rrsets);
      else print(program, rrsets.flatMap(memberRows), ['owner', 'type', ...MEMBER_COLUMNS]);
    });
  steering
    .command('vantages')
    .description('the vantages the checks are probed from: whether each is isolated (its probes not counted) and why, or in a panic freeze')
    .action(async () => {
      const data = await gql(SteeringVantagesDocument, {});
      print(program, data.steeringVantages, ['name', 'seenAt', 'isolated', 'isolatedReason', 'isolatedSince', 'panic']);
    });
  steering
    .command('show <zone> <owner> <type>')
    .description('one steered RRset: what it serves, its pools and each member’s state')
    .action(async (zone: string, owner: string, type: string) => {
      const rrset = await rrsetAt(zone, owner, type);
      if (program.opts().json) {
        print(program, rrset);
        return;
      }
      process.stdout.write(`${rrset.owner} ${rrset.type} (ttl ${rrset.ttl}) serves: ${rrset.served.join(' ') || '(nothing)'}\n`);
      print(program, memberRows(rrset), MEMBER_COLUMNS);
      if (rrset.rules.length) {
        process.stdout.write('rules by network and country (each served through its view), the first matching first:\n');
        print(program, ruleRows(rrset), RULE_COLUMNS);
      }
    });
  steering
    .command('set-member <zone> <owner> <type> <value> <admin>')
    .description('a member’s admin status: down (paused), up (forced) or obey (its check decides)')
    .action(async (zone: string, owner: string, type: string, value: string, admin: string) => {
      if (!['up', 'down', 'obey'].includes(admin)) throw new UsageError(`admin is up, down or obey (got "${admin}")`);
      const rrset = await rrsetAt(zone, owner, type);
      const changed = (await gql(SetSteeringMemberAdminDocument, { id: rrset.id, value, admin })).setSteeringMemberAdmin;
      if (program.opts().json) print(program, changed);
      else {
        process.stdout.write(`${changed.owner} ${changed.type} serves: ${changed.served.join(' ') || '(nothing)'}\n`);
        print(program, memberRows(changed), MEMBER_COLUMNS);
      }
    });
  steering
    .command('defaults <zone>')
    .description('the zone’s defaults for the check made for each new member of an octoDNS dynamic record')
    .action(async (zone: string) => {
      const data = await gql(SteeringDefaultsDocument, { zone });
      if (program.opts().json) print(program, data.domain.steeringDefaults);
      else print(program, defaultsRows(data.domain.steeringDefaults), ['setting', 'value', 'applies']);
    });
  steering
    .command('set-defaults <zone>')
    .description(
      'replace the zone’s defaults for new members’ checks (octoDNS dynamic records); an option not given is unset, the service’s default applying; existing checks keep what they have',
    )
    .option('--protocol <protocol>', 'http, https or tcp')
    .option('--port <port>', 'the port probed (a TCP default names one)')
    .option('--host <name>', 'HTTP(S): the Host header and TLS server name')
    .option('--path <path>', 'HTTP(S): the path asked for')
    .option('--status <min-max>', 'HTTP(S): the status range that passes, e.g. 200-299')
    .option('--body <text>', 'HTTP(S): a text the body must contain')
    .option('--verify-tls', 'HTTPS: verify the certificate')
    .option('--interval <seconds>', 'seconds between two probes, 1–300')
    .action(
      async (
        zone: string,
        options: {
          protocol?: string;
          port?: string;
          host?: string;
          path?: string;
          status?: string;
          body?: string;
          verifyTls?: boolean;
          interval?: string;
        },
      ) => {
        const status = options.status === undefined ? undefined : /^(\d{3})-(\d{3})$/.exec(options.status);
        if (status === null) throw new UsageError(`--status is a range MIN-MAX, e.g. 200-299 (got "${options.status}")`);
        const input = {
          protocol: options.protocol ?? null,
          port: wholeNumber('--port', options.port),
          host: options.host ?? null,
          path: options.path ?? null,
          statusMin: status ? Number(status[1]) : null,
          statusMax: status ? Number(status[2]) : null,
          bodyContains: options.body ?? null,
          verifyTls: options.verifyTls ?? null,
          intervalSeconds: wholeNumber('--interval', options.interval),
        };
        const data = await gql(SetSteeringDefaultsDocument, { zone, input });
        if (program.opts().json) print(program, data.setSteeringDefaults);
        else print(program, defaultsRows(data.setSteeringDefaults), ['setting', 'value', 'applies']);
      },
    );
  steering
    .command('set-rules <zone> <owner> <type> <file>')
    .description(
      'the RRset’s rules by network and country, from a JSON file (- for standard input): [{"subnets": [...], "geos": ["EU-DE"], "pools": [{"members": [{"value": "...", "check": "<check name>"}]}]}]; [] removes them',
    )
    .action(async (zone: string, owner: string, type: string, file: string) => {
      let rules: RuleFile[];
      try {
        rules = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
      } catch (error) {
        throw new UsageError(`${file}: not JSON (${(error as Error).message})`);
      }
      if (!Array.isArray(rules)) throw new UsageError(`${file}: a list of rules`);
      const { checks } = await steeringOf(zone);
      const checkId = (name: string | undefined) => {
        if (name === undefined) return null;
        const check = checks.find((c) => c.name === name);
        if (!check) throw new ApiError('STEERING_CHECK_NOT_FOUND', `${zone} has no check named ${name}`);
        return check.id;
      };
      const rrset = await rrsetAt(zone, owner, type);
      const input = {
        owner: rrset.owner,
        type: rrset.type,
        ttl: rrset.ttl,
        maxAnswers: rrset.maxAnswers,
        backup: rrset.backup,
        allDown: rrset.allDown,
        pools: poolsInput(rrset.pools),
        rules: rules.map((rule) => ({
          subnets: rule.subnets ?? null,
          geos: rule.geos ?? null,
          pools: (rule.pools ?? []).map((pool) => ({
            minHealthy: pool.minHealthy ?? null,
            members: (pool.members ?? []).map((m) => ({
              value: m.value,
              checkId: checkId(m.check),
              admin: m.admin ?? null,
              weight: m.weight ?? null,
            })),
          })),
        })),
      };
      const changed = (await gql(UpdateSteeredRrsetDocument, { id: rrset.id, input })).updateSteeredRrset;
      if (program.opts().json) print(program, changed);
      else print(program, ruleRows(changed), RULE_COLUMNS);
    });
  steering
    .command('report <zone> <check> <status>')
    .description('report an external check’s status, up or down; it holds for the lease, then counts as down')
    .option('--lease <seconds>', 'how long the report holds, 1–86400 (default STEERING_EXTERNAL_LEASE)')
    .option('--message <text>', 'why it is down (shown as the check’s last error)')
    .action(async (zone: string, name: string, status: string, options: { lease?: string; message?: string }) => {
      if (status !== 'up' && status !== 'down') throw new UsageError(`status is up or down (got "${status}")`);
      if (options.lease !== undefined && !/^\d{1,5}$/.test(options.lease))
        throw new UsageError(`--lease is a number of seconds (got "${options.lease}")`);
      const { checks } = await steeringOf(zone);
      const check = checks.find((c) => c.name === name);
      if (!check) throw new ApiError('STEERING_CHECK_NOT_FOUND', `${zone} has no check named ${name}`);
      const data = await gql(ReportSteeringStatusDocument, {
        id: check.id,
        up: status === 'up',
        leaseSeconds: options.lease === undefined ? null : Number(options.lease),
        message: options.message ?? null,
      });
      print(program, data.reportSteeringStatus, ['name', 'status', 'since', 'lastOk', 'lastError', 'leaseUntil']);
    });
}
