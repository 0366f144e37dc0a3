import {
  CreateSteeredRrsetDocument,
  DeleteSteeredRrsetDocument,
  ReportSteeringStatusDocument,
  SetSteeringDefaultsDocument,
  SetSteeringMemberAdminDocument,
  SteeringDocument,
  SteeringVantagesDocument,
  UpdateSteeredRrsetDocument,
  type RestSteeredRrsetFragment,
  type RestSteeringCheckFragment,
  type RestSteeringDefaultsFragment,
  type RestSteeringPoolFragment,
} from './generated/steering';
import { DomainError } from '../errors/catalogue';
import { FieldSpec, Inputs, ref, RouteSpec, Runner } from './route-spec';

/**
 * A zone's steering REST routes: /domain/steering/:zone… (docs/steering.md), beside the documented paths. Each
 * runs the GraphQL operation of the same name on the same services, so the policy, the checks of a definition and
 * the write through the write engine are GraphQL's; a steered RRset is named by its owner and type, a check by
 * its name, as a person writes them (GraphQL names them by id).
 */

/** GraphQL's SteeringCondition as REST writes its words: FROZEN → frozen, NO_SOUND_VANTAGE → no-sound-vantage */
const conditionWord = (condition: string) => condition.toLowerCase().replace(/_/g, '-');

const presentCheck = (c: RestSteeringCheckFragment) => ({
  id: Number(c.id),
  name: c.name,
  protocol: c.protocol,
  ...(c.protocol === 'external' ? {} : { address: c.address, port: c.port, host: c.host, path: c.path }),
  interval_seconds: c.intervalSeconds,
  status: c.status,
  condition: conditionWord(c.condition),
  since: c.since,
  held_since: c.heldSince,
  pinned: c.pinned,
  last_ok: c.lastOk,
  last_error: c.lastError,
  latency_ms: c.latencyMs,
  checked_at: c.checkedAt,
  lease_until: c.leaseUntil,
});

const presentDefaults = (d: RestSteeringDefaultsFragment) => ({
  protocol: d.protocol,
  port: d.port,
  host: d.host,
  path: d.path,
  status_min: d.statusMin,
  status_max: d.statusMax,
  body_contains: d.bodyContains,
  verify_tls: d.verifyTls,
  interval_seconds: d.intervalSeconds,
});

const presentPools = (pools: RestSteeringPoolFragment[]) =>
  pools.map((pool) => ({
    min_healthy: pool.minHealthy,
    members: pool.members.map((m) => ({
      value: m.value,
      check: m.check?.name ?? null,
      admin: m.admin,
      weight: m.weight,
      healthy: m.healthy,
      condition: conditionWord(m.condition),
      status: m.check?.status ?? null,
      since: m.check?.since ?? null,
      held_since: m.check?.heldSince ?? null,
      last_error: m.check?.lastError ?? null,
      latency_ms: m.check?.latencyMs ?? null,
      lease_until: m.check?.leaseUntil ?? null,
    })),
  }));

const presentRrset = (r: RestSteeredRrsetFragment) => ({
  id: Number(r.id),
  zone: r.zone,
  owner: r.owner,
  type: r.type,
  ttl: r.ttl,
  max_answers: r.maxAnswers,
  backup: r.backup,
  all_down: r.allDown,
  served: r.served,
  pools: presentPools(r.pools),
  rules: r.rules.map((rule) => ({ subnets: rule.subnets, geos: rule.geos, view: rule.view, pools: presentPools(rule.pools) })),
});

const nullable = (type: string) => ({ type: [type, 'null'] });
const CONDITIONS = ['unknown', 'up', 'down', 'flapping', 'frozen', 'no-sound-vantage', 'paused', 'forced-up'];
/** the OpenAPI schemas of the answers (components of the document) */
export const STEERING_SCHEMAS = {
  SteeringCheck: {
    type: 'object',
    description: 'A health check and its live state; an external check (its status reported, not probed) has no address or port',
    properties: {
      id: { type: 'integer' },
      name: { type: 'string' },
      protocol: { enum: ['http', 'https', 'tcp', 'external'] },
      address: { type: 'string' },
      port: { type: 'integer' },
      host: nullable('string'),
      path: { type: 'string' },
      interval_seconds: nullable('integer'),
      status: { enum: ['unknown', 'up', 'down'] },
      condition: {
        enum: CONDITIONS,
        description:
          'what it is, never up while held: frozen (failing, held up by the panic freeze), no-sound-vantage (every vantage probing it is isolated), flapping (held down)',
      },
      since: { type: 'string' },
      held_since: { ...nullable('string'), description: 'since when its state is held (frozen, no-sound-vantage)' },
      pinned: { type: 'boolean' },
      last_ok: nullable('boolean'),
      last_error: nullable('string'),
      latency_ms: nullable('integer'),
      checked_at: nullable('string'),
      lease_until: { ...nullable('string'), description: 'an external check: until when its last report holds' },
    },
    required: ['id', 'name', 'protocol', 'status', 'since', 'pinned', 'last_ok', 'last_error', 'latency_ms', 'checked_at', 'lease_until'],
  },
  SteeredRrset: {
    type: 'object',
    description: 'A steered RRset: its pools in fallback order, each member with its live state, and what is served now',
    properties: {
      id: { type: 'integer' },
      zone: { type: 'string' },
      owner: { type: 'string' },
      type: { enum: ['A', 'AAAA', 'CNAME'] },
      ttl: { type: 'integer' },
      max_answers: { type: 'integer' },
      backup: { type: 'array', items: { type: 'string' } },
      all_down: { enum: ['backup', 'empty'] },
      served: { type: 'array', items: { type: 'string' } },
      pools: ref('SteeringPools'),
      rules: {
        type: 'array',
        description:
          'answers by the asker’s network or country, first match first, each through a view of steering’s own (docs/steering.md, «Rules by network and country»)',
        items: {
          type: 'object',
          properties: {
            subnets: { type: 'array', items: { type: 'string' } },
            geos: { type: 'array', items: { type: 'string' }, description: 'as octoDNS writes them: EU, EU-DE' },
            view: { ...nullable('string'), description: 'the view of steering’s own that serves the rule' },
            pools: ref('SteeringPools'),
          },
          required: ['subnets', 'geos', 'view', 'pools'],
        },
      },
    },
    required: ['id', 'zone', 'owner', 'type', 'ttl', 'max_answers', 'backup', 'all_down', 'served', 'pools', 'rules'],
  },
  SteeringPools: {
    type: 'array',
    description: 'pools in fallback order, each member with its live state',
    items: {
      type: 'object',
      properties: {
        min_healthy: { type: 'integer' },
        members: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              value: { type: 'string' },
              check: { ...nullable('string'), description: 'the name of the check it follows' },
              admin: { enum: ['up', 'down', 'obey'] },
              weight: { type: 'integer' },
              healthy: {
                type: 'boolean',
                description: 'its admin status and its check say it is healthy; never while its check is held (see condition)',
              },
              condition: { enum: CONDITIONS, description: 'its admin status (paused, forced-up), then its check’s condition' },
              status: { ...nullable('string'), description: 'its check’s status: unknown, up or down' },
              since: nullable('string'),
              held_since: nullable('string'),
              last_error: nullable('string'),
              latency_ms: nullable('integer'),
              lease_until: nullable('string'),
            },
            required: ['value', 'check', 'admin', 'weight', 'healthy', 'status', 'since', 'last_error', 'latency_ms', 'lease_until'],
          },
        },
      },
      required: ['min_healthy', 'members'],
    },
  },
  SteeringVantage: {
    type: 'object',
    description: 'A place the checks are probed from (a prober’s STEERING_VANTAGE): isolated while its votes are not counted',
    properties: {
      name: { type: 'string' },
      seen_at: { type: 'string' },
      isolated: { type: 'boolean' },
      isolated_reason: nullable('string'),
      isolated_since: nullable('string'),
      panic: { type: 'boolean', description: 'its own probes are in a panic freeze' },
    },
    required: ['name', 'seen_at', 'isolated', 'isolated_reason', 'isolated_since', 'panic'],
  },
  SteeringDefaults: {
    type: 'object',
    description:
      'A zone’s defaults for the check made for each new member of an octoDNS dynamic record; null where not set (the service’s default: https, port 443 or 80 by protocol, path /_dns, the record’s name as host, status 200–399, no body text, not verified, STEERING_CHECK_INTERVAL)',
    properties: {
      protocol: { ...nullable('string'), enum: ['http', 'https', 'tcp', null] },
      port: nullable('integer'),
      host: nullable('string'),
      path: nullable('string'),
      status_min: nullable('integer'),
      status_max: nullable('integer'),
      body_contains: nullable('string'),
      verify_tls: nullable('boolean'),
      interval_seconds: nullable('integer'),
    },
    required: ['protocol', 'port', 'host', 'path', 'status_min', 'status_max', 'body_contains', 'verify_tls', 'interval_seconds'],
  },
  Steering: {
    type: 'object',
    properties: {
      zone: { type: 'string' },
      checks: { type: 'array', items: ref('SteeringCheck') },
      rrsets: { type: 'array', items: ref('SteeredRrset') },
      defaults: ref('SteeringDefaults'),
    },
    required: ['zone', 'checks', 'rrsets', 'defaults'],
  },
};

const ZONE_PARAM: Record<string, FieldSpec> = { zone: { kind: 'string', required: true, description: 'zone name' } };
const RRSET_PARAMS: Record<string, FieldSpec> = {
  ...ZONE_PARAM,
  owner: { kind: 'string', required: true, description: "owner, relative to the zone ('@' = apex)" },
  type: { kind: 'string', required: true, choices: ['A', 'AAAA', 'CNAME'], description: 'A, AAAA or CNAME' },
};

const POOL_ITEMS = {
  type: 'object',
  additionalProperties: false,
  properties: {
    min_healthy: { type: 'integer', description: 'served when at least this many members are healthy (default 1)' },
    members: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          value: { type: 'string', description: 'an address (A, AAAA) or a target (CNAME)' },
          check: { type: 'string', description: 'the name of a check of the zone the member follows' },
          admin: { enum: ['up', 'down', 'obey'] },
          weight: { type: 'integer' },
        },
        required: ['value'],
      },
    },
  },
  required: ['members'],
};

async function readSteering(
  runner: Runner,
  zone: unknown,
): Promise<{
  name: string;
  steeringChecks: RestSteeringCheckFragment[];
  steeredRrsets: RestSteeredRrsetFragment[];
  steeringDefaults: RestSteeringDefaultsFragment;
}> {
  const data = await runner.run(SteeringDocument, {
    name: zone,
  });
  return data.domain;
}

/** the owner as the zone's RRsets name it ('@', `www`; an absolute name within the zone taken as relative) */
function sameOwner(zone: string, owner: string, written: string): boolean {
  const z = zone.toLowerCase().replace(/\.$/, '');
  let w = written.toLowerCase().replace(/\.$/, '');
  if (w === z) w = '@';
  else if (w.endsWith(`.${z}`)) w = w.slice(0, -z.length - 1);
  return owner.toLowerCase() === w;
}

async function rrsetAt(runner: Runner, inputs: Inputs): Promise<RestSteeredRrsetFragment | undefined> {
  const steering = await readSteering(runner, inputs.zone);
  return steering.steeredRrsets.find((r) => r.type === inputs.type && sameOwner(steering.name, r.owner, String(inputs.owner)));
}

async function requireRrsetAt(runner: Runner, inputs: Inputs): Promise<RestSteeredRrsetFragment> {
  const rrset = await rrsetAt(runner, inputs);
  if (!rrset) throw DomainError.notFound('STEERED_RRSET_NOT_FOUND', 'owner');
  return rrset;
}

type BodyPool = { min_healthy?: number; members?: { value?: string; check?: string; admin?: string; weight?: number }[] };

/** the body's pools as GraphQL's input: each member's check named by its name, read as the zone's check's id */
function poolsInput(given: BodyPool[], at: string, checks: RestSteeringCheckFragment[]) {
  return given.map((pool, p) => {
    if (typeof pool !== 'object' || pool === null || !Array.isArray(pool.members))
      throw DomainError.invalid(`${at}[${p}]`, `${at}[${p}]: an object with its members (a list)`);
    return {
      minHealthy: pool.min_healthy ?? null,
      members: pool.members.map((m, i) => {
        const field = `${at}[${p}].members[${i}]`;
        if (typeof m !== 'object' || m === null || typeof m.value !== 'string')
          throw DomainError.invalid(`${field}.value`, `${field}.value: an address or a target`);
        const check = m.check == null ? undefined : checks.find((c) => c.name === m.check);
        if (m.check != null && !check) throw DomainError.notFound('STEERING_CHECK_NOT_FOUND', `${field}.check`);
        return { value: m.value, checkId: check?.id ?? null, admin: m.admin ?? null, weight: m.weight ?? null };
      }),
    };
  });
}

/** the body as GraphQL's input */
function rrsetInput(inputs: Inputs, checks: RestSteeringCheckFragment[]) {
  const rules = (inputs.rules as { subnets?: string[]; geos?: string[]; pools?: BodyPool[] }[] | undefined)?.map((rule, r) => {
    if (typeof rule !== 'object' || rule === null) throw DomainError.invalid(`rules[${r}]`, `rules[${r}]: an object`);
    return {
      subnets: rule.subnets ?? null,
      geos: rule.geos ?? null,
      pools: Array.isArray(rule.pools) ? poolsInput(rule.pools, `rules[${r}].pools`, checks) : null,
    };
  });
  return {
    owner: String(inputs.owner),
    type: String(inputs.type),
    ttl: (inputs.ttl as number | undefined) ?? null,
    maxAnswers: (inputs.max_answers as number | undefined) ?? null,
    backup: (inputs.backup as string[] | undefined) ?? null,
    allDown: (inputs.all_down as string | undefined) ?? null,
    pools: poolsInput(inputs.pools as BodyPool[], 'pools', checks),
    rules: rules ?? null,
  };
}

export const STEERING_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/steering/vantages',
    operationId: 'getSteeringVantages',
    tag: 'steering',
    uncached: true,
    status: 200,
    summary: 'The vantages the checks are probed from, seen within the last day, each with whether it is isolated and why',
    response: { type: 'object', properties: { vantages: { type: 'array', items: ref('SteeringVantage') } }, required: ['vantages'] },
    async handle(_inputs, runner) {
      const data = await runner.run(SteeringVantagesDocument, {});
      return {
        body: {
          vantages: data.steeringVantages.map((v) => ({
            name: v.name,
            seen_at: v.seenAt,
            isolated: v.isolated,
            isolated_reason: v.isolatedReason,
            isolated_since: v.isolatedSince,
            panic: v.panic,
          })),
        },
      };
    },
  },
  {
    method: 'get',
    path: '/domain/steering/:zone',
    operationId: 'getSteering',
    tag: 'steering',
    // every transition is a serial step of the zone; a report that moves nothing served changes the live state only
    uncached: true,
    status: 200,
    summary: "A zone's health checks and steered RRsets, each member with its live state (status, since, last error, latency)",
    params: ZONE_PARAM,
    response: ref('Steering'),
    async handle(inputs, runner) {
      const steering = await readSteering(runner, inputs.zone);
      return {
        body: {
          zone: steering.name,
          checks: steering.steeringChecks.map(presentCheck),
          rrsets: steering.steeredRrsets.map(presentRrset),
          defaults: presentDefaults(steering.steeringDefaults),
        },
      };
    },
  },
  {
    method: 'put',
    path: '/domain/steering/:zone/rrset/:owner/:type',
    operationId: 'putSteeredRrset',
    tag: 'steering',
    names: 'zone',
    status: 200,
    summary:
      'Steers the RRset at the owner and type, or replaces its definition: its records become the service’s to decide; needs write access to the owner and type',
    params: RRSET_PARAMS,
    body: {
      pools: { kind: 'list', required: true, description: 'the pools in fallback order', items: POOL_ITEMS },
      ttl: {
        kind: 'int',
        description: 'the served records’ TTL (default 60, or the shortest ALLOWED_TTLS allows above it)',
        max: 2_147_483_647,
      },
      max_answers: { kind: 'int', description: 'at most this many records served (default 8)', max: 64 },
      backup: { kind: 'list', description: 'values served when no pool has enough healthy members', items: { type: 'string' } },
      all_down: { kind: 'string', choices: ['backup', 'empty'], description: 'backup (default: fail open) or empty' },
      rules: {
        kind: 'list',
        description:
          'answers by the asker’s network or country, first match first, each with its own pools; the RRset’s pools answer everyone else (docs/steering.md, «Rules by network and country»)',
        items: {
          type: 'object',
          additionalProperties: false,
          properties: {
            subnets: { type: 'array', items: { type: 'string' }, description: 'CIDR blocks' },
            geos: { type: 'array', items: { type: 'string' }, description: 'a continent (EU) or a continent and country (EU-DE)' },
            pools: { type: 'array', items: POOL_ITEMS, description: 'the rule’s pools in fallback order' },
          },
          required: ['pools'],
        },
      },
    },
    response: ref('SteeredRrset'),
    async handle(inputs, runner) {
      const steering = await readSteering(runner, inputs.zone);
      const input = rrsetInput(inputs, steering.steeringChecks);
      const current = steering.steeredRrsets.find((r) => r.type === inputs.type && sameOwner(steering.name, r.owner, String(inputs.owner)));
      if (current) {
        const data = await runner.run(UpdateSteeredRrsetDocument, { id: current.id, input });
        return { body: presentRrset(data.updateSteeredRrset) };
      }
      const data = await runner.run(CreateSteeredRrsetDocument, { zone: steering.name, input });
      return { body: presentRrset(data.createSteeredRrset) };
    },
  },
  {
    method: 'delete',
    path: '/domain/steering/:zone/rrset/:owner/:type',
    operationId: 'deleteSteeredRrset',
    tag: 'steering',
    status: 204,
    summary: 'Stops steering the RRset; its served records go in the same change',
    params: RRSET_PARAMS,
    async handle(inputs, runner) {
      const rrset = await requireRrsetAt(runner, inputs);
      await runner.run(DeleteSteeredRrsetDocument, { id: rrset.id });
      return { empty: true };
    },
  },
  {
    method: 'post',
    path: '/domain/steering/:zone/rrset/:owner/:type/admin',
    operationId: 'setSteeringMemberAdmin',
    tag: 'steering',
    names: 'zone',
    status: 200,
    summary: 'Sets the admin status of the members with this value: down (paused), up (forced) or obey (its check decides)',
    params: RRSET_PARAMS,
    body: {
      value: { kind: 'string', required: true, description: 'the member’s value' },
      admin: { kind: 'string', required: true, choices: ['up', 'down', 'obey'], description: 'up, down or obey' },
    },
    response: ref('SteeredRrset'),
    async handle(inputs, runner) {
      const rrset = await requireRrsetAt(runner, inputs);
      const data = await runner.run(SetSteeringMemberAdminDocument, {
        id: rrset.id,
        value: inputs.value,
        admin: inputs.admin,
      });
      return { body: presentRrset(data.setSteeringMemberAdmin) };
    },
  },
  {
    method: 'put',
    path: '/domain/steering/:zone/defaults',
    operationId: 'putSteeringDefaults',
    tag: 'steering',
    names: 'zone',
    status: 200,
    summary:
      'Replaces the zone’s defaults for the check made for each new member of an octoDNS dynamic record (a field not sent is unset: the service’s default applies); a check that exists keeps what it has; needs write access to some record of the zone',
    params: ZONE_PARAM,
    body: {
      protocol: { kind: 'string', choices: ['http', 'https', 'tcp'], description: 'http, https or tcp (default https)' },
      port: { kind: 'int', description: 'default 443 (https) or 80 (http); a TCP default names one', max: 65_535 },
      host: { kind: 'string', description: 'HTTP(S): the Host header and TLS server name (default: the record’s name)' },
      path: { kind: 'string', description: 'HTTP(S): the path asked for (default /_dns)' },
      status_min: { kind: 'int', description: 'the lowest status that passes (default 200)', max: 599 },
      status_max: { kind: 'int', description: 'the highest status that passes (default 399)', max: 599 },
      body_contains: { kind: 'string', description: 'HTTP(S): a text the body must contain' },
      verify_tls: { kind: 'string', choices: ['true', 'false'], description: 'HTTPS: verify the certificate (default false)' },
      interval_seconds: { kind: 'int', description: 'seconds between two probes, 1–300 (default STEERING_CHECK_INTERVAL)', max: 300 },
    },
    response: ref('SteeringDefaults'),
    async handle(inputs, runner) {
      const input = {
        protocol: inputs.protocol ?? null,
        port: inputs.port ?? null,
        host: inputs.host ?? null,
        path: inputs.path ?? null,
        statusMin: inputs.status_min ?? null,
        statusMax: inputs.status_max ?? null,
        bodyContains: inputs.body_contains ?? null,
        verifyTls: inputs.verify_tls === undefined || inputs.verify_tls === null ? null : inputs.verify_tls === 'true',
        intervalSeconds: inputs.interval_seconds ?? null,
      };
      const data = await runner.run(SetSteeringDefaultsDocument, { zone: inputs.zone, input });
      return { body: presentDefaults(data.setSteeringDefaults) };
    },
  },
  {
    method: 'post',
    path: '/domain/steering/:zone/check/:name/status',
    operationId: 'reportSteeringStatus',
    tag: 'steering',
    names: 'zone',
    status: 200,
    summary:
      'Reports an external check’s status (as PowerDNS’s ifurlextup): it holds for lease_seconds (default STEERING_EXTERNAL_LEASE), then counts as down unless reported again; needs write access to every RRset that follows the check',
    params: { ...ZONE_PARAM, name: { kind: 'string', required: true, description: 'the check’s name' } },
    body: {
      up: { kind: 'string', required: true, choices: ['true', 'false'], description: 'true: up; false: down' },
      lease_seconds: { kind: 'int', description: 'how long the report holds, 1–86400 seconds', max: 86_400 },
      message: { kind: 'string', description: 'why it is down (shown as the check’s last error)' },
    },
    response: ref('SteeringCheck'),
    async handle(inputs, runner) {
      const steering = await readSteering(runner, inputs.zone);
      const check = steering.steeringChecks.find((c) => c.name === inputs.name);
      if (!check) throw DomainError.notFound('STEERING_CHECK_NOT_FOUND', 'name');
      const data = await runner.run(ReportSteeringStatusDocument, {
        id: check.id,
        up: inputs.up === 'true',
        leaseSeconds: inputs.lease_seconds ?? null,
        message: inputs.message ?? null,
      });
      return { body: presentCheck(data.reportSteeringStatus) };
    },
  },
];
