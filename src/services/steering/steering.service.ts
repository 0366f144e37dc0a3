/**
 * Steering's definitions (docs/steering.md): a zone's health checks and its steered RRsets, created, changed,
 * paused and deleted by people through the API. Every write is a change of the zone through the write engine,
 * in a transaction holding the zone row's lock, so a definition and the served records it leads to are written
 * together (one serial, when the served records move) and a prober's publication of the same zone waits its turn.
 * Who may: the key's policy as for the records themselves (auth/policy.ts): a steered RRset is written where its
 * owner and type may be written; a check where some record of the zone may be, and where every RRset that
 * follows it may be.
 */
import { readsRecord, requireAllowed, seesZone, writesSomewhere, forbidden } from '../../auth/policy';
import { requireAdmin } from '../../auth/principal';
import type { Settings } from '../../config/settings';
import type { Sql } from '../../db/pool';
import { parseApiRecord } from '../../dns/record';
import { checkRecordPlacement } from '../../dns/zone-rules';
import { normaliseZoneName } from '../../dns/zone-name';
import { DomainError, ErrorDetail, errorFromProblems } from '../../errors/catalogue';
import { mayConnect } from '../../outbound/addresses';
import {
  CheckDefinition,
  CheckRow,
  checkById,
  checksOfZone,
  deleteCheck,
  deleteRrset,
  everyPool,
  insertCheck,
  insertRrset,
  RrsetRow,
  rrsetById,
  rrsetsOfZone,
  rrsetsUsingCheck,
  recentServedChanges,
  saveSteeringDefaults,
  steeringDefaultsOf,
  ServedChangeRow,
  saveReport,
  SteeredType,
  NO_STEERING_DEFAULTS,
  SteeringDefaults,
  SteeringPool,
  SteeringRule,
  STEERED_TYPES,
  updateCheck,
  updateRrset,
  zoneOfCheck,
  zoneOfRrset,
} from '../../repositories/steering';
import { heldChecks, vantages, VantageRow, votesOfZones, VoteRow } from '../../repositories/steering-vantages';
import { allowedTtlsOf, type RequestContext } from '../context';
import type { WriteEngine, ZoneChange } from '../write-engine';
import { externalThresholds, nextCheckState } from './decision';
import { commitSteered } from './materialise';
import { decodeOctodnsDynamic, OctodnsPoolValue } from './octodns-dynamic';
import { compileRuleViews, dropUnusedRuleViews, MAX_RULES, parseRuleNetworks, refuseOverlappingRules } from './rules';
import {
  ADMIN_STATUSES,
  ALL_DOWN,
  MAX_LEASE_SECONDS,
  MAX_MEMBERS,
  MAX_POOLS,
  SteeredRrsetInput,
  SteeredRrsetView,
  SteeringCheckInput,
  SteeringDefaultsInput,
  SteeringPoolInput,
  canonicalValue,
  commitServed,
  defaultTtl,
  deleteUnfollowedOctodnsChecks,
  memberCheckSettings,
  notFoundAs,
  octodnsCheckName,
  oneOf,
  parseCheckSettings,
  parseSteeringDefaults,
  refuseDuplicateCheck,
  ruleViewNames,
  viewOf,
} from './steering-inputs';

export class SteeringService {
  constructor(
    private readonly settings: Settings,
    private readonly engine: WriteEngine,
  ) {}

  // -- reads: the zone is one the caller sees (Domain's fields); a restricted key sees the RRsets it may read

  async checksOfZone(ctx: RequestContext, zone: { id: number; name: string }): Promise<CheckRow[]> {
    if (!seesZone(ctx.principal.policy, zone.name)) return [];
    return checksOfZone(ctx.db, zone.id);
  }

  async rrsetsOfZone(ctx: RequestContext, zone: { id: number; name: string }): Promise<SteeredRrsetView[]> {
    const rrsets = (await rrsetsOfZone(ctx.db, zone.id)).filter((r) => readsRecord(ctx.principal.policy, zone.name, r.owner, r.type));
    if (!rrsets.length) return [];
    const checks = new Map((await checksOfZone(ctx.db, zone.id)).map((c) => [c.id, c]));
    const views = await ruleViewNames(ctx.db);
    return rrsets.map((rrset) => viewOf(rrset, checks, views));
  }

  /**
   * the RRset's recent changes of what it serves, newest first: its steering.changed events (a view of the RRset
   * is one the caller may read: rrsetsOfZone)
   */
  async recentChanges(ctx: RequestContext, rrset: { id: number; domainId: number }, limit: number): Promise<ServedChangeRow[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw DomainError.invalid('limit', 'limit: 1 to 100');
    return recentServedChanges(ctx.db, rrset.domainId, rrset.id, limit);
  }

  /** every vantage's vote on the zones' probed checks, by zone (a zone the caller sees: Domain's fields) */
  async votesOfZones(ctx: RequestContext, domainIds: readonly number[]): Promise<Map<number, VoteRow[]>> {
    const votes = await votesOfZones(ctx.db, [...domainIds], this.settings.steering.checkInterval);
    const byZone = new Map<number, VoteRow[]>(domainIds.map((id) => [id, []]));
    for (const vote of votes) byZone.get(vote.domainId)?.push(vote);
    return byZone;
  }

  /**
   * the vantages seen within the last day, live ones first (docs/steering.md, «Vantages and the quorum»): the
   * operator's, as the fleet's places and canaries are (a zone's owner sees an isolated vantage's effect on its
   * checks: their votes, and the home's attention)
   */
  vantages(ctx: RequestContext): Promise<VantageRow[]> {
    requireAdmin(ctx.principal);
    return vantages(ctx.db);
  }

  /** the held checks' counts of every zone: the metric zonekeeper_steering_checks_held (the operator's) */
  heldCounts(sql: Sql): Promise<{ held: string; count: number }[]> {
    return heldChecks(sql);
  }

  // -- checks

  async createCheck(ctx: RequestContext, zoneName: string, input: SteeringCheckInput): Promise<CheckRow> {
    const zone = normaliseZoneName(zoneName);
    const check = this.parseCheck(input);
    const id = await this.engine.changeZone(
      ctx.db,
      this.settings,
      ctx.principal,
      { zone: { name: zone }, owner: '@', writer: { kind: 'steering' } },
      async (change) => {
        change.requireLock();
        if (!writesSomewhere(ctx.principal.policy, zone)) throw forbidden(`write access to some record of zone ${zone}`);
        await refuseDuplicateCheck(change.connection, change.zone.id, check.name);
        return insertCheck(change.connection, change.zone.id, check, this.settings.steering.externalLease);
      },
    );
    return (await checkById(ctx.db, id)) as CheckRow;
  }

  /** a changed check starts again from unknown (served), and the RRsets that follow it are decided again */
  async updateCheck(ctx: RequestContext, id: number, input: SteeringCheckInput): Promise<CheckRow> {
    const check = this.parseCheck(input);
    await this.changeOfCheck(ctx, id, async (change, current) => {
      await this.requireCheckWritable(ctx, change, id);
      if (current.name !== check.name) await refuseDuplicateCheck(change.connection, change.zone.id, check.name);
      await updateCheck(change.connection, id, check, this.settings.steering.externalLease);
      await commitServed(change);
    });
    return (await checkById(ctx.db, id)) as CheckRow;
  }

  async deleteCheck(ctx: RequestContext, id: number): Promise<boolean> {
    await this.changeOfCheck(ctx, id, async (change) => {
      await this.requireCheckWritable(ctx, change, id);
      const users = await rrsetsUsingCheck(change.connection, change.zone.id, id);
      if (users.length) {
        const message = `id: the check is followed by members of ${users.join(', ')}; change them first`;
        throw new DomainError('STEERING_CHECK_IN_USE', message, [{ field: 'id', code: 'STEERING_CHECK_IN_USE', message }]);
      }
      await deleteCheck(change.connection, id);
    });
    return true;
  }

  /**
   * An external check's report (as PowerDNS's `ifurlextup`): up or not, holding for `leaseSeconds` (else
   * STEERING_EXTERNAL_LEASE), after which the check counts as failing unless reported again. The report moves the
   * check's state as a probe would (one report is enough: fall and rise 1; hold and flap damping apply) and the
   * RRsets that follow it are decided in the same change, so the served records have moved when it answers.
   * Who may: a key that may write every RRset following the check (as for changing the check).
   */
  async reportStatus(
    ctx: RequestContext,
    id: number,
    up: boolean,
    leaseSeconds?: number | null,
    message?: string | null,
  ): Promise<CheckRow> {
    const lease = leaseSeconds ?? this.settings.steering.externalLease;
    if (!Number.isInteger(lease) || lease < 1 || lease > MAX_LEASE_SECONDS)
      throw DomainError.invalid('leaseSeconds', `leaseSeconds: 1 to ${MAX_LEASE_SECONDS} seconds (none: STEERING_EXTERNAL_LEASE)`);
    const text = message?.trim() || null;
    if (text !== null && text.length > 255) throw DomainError.invalid('message', 'message: at most 255 characters');
    await this.changeOfCheck(ctx, id, async (change, current) => {
      await this.requireCheckWritable(ctx, change, id);
      if (current.protocol !== 'external') {
        const message = `id: the check ${current.name} is probed (${current.protocol}); only an external check's status is reported`;
        throw new DomainError('STEERING_CHECK_NOT_EXTERNAL', message, [{ field: 'id', code: 'STEERING_CHECK_NOT_EXTERNAL', message }]);
      }
      const now = new Date();
      const next = nextCheckState(current, up, now, externalThresholds(this.settings.steering.holdSeconds));
      const report = { ok: up, error: up ? null : (text ?? 'reported down'), latencyMs: null };
      await saveReport(
        change.connection,
        id,
        next,
        report,
        now,
        new Date(now.getTime() + lease * 1000),
        this.settings.steering.checkInterval,
      );
      if (next.status !== current.status) await commitServed(change);
    });
    return (await checkById(ctx.db, id)) as CheckRow;
  }

  // -- a zone's defaults for the checks made for new members (octoDNS's dynamic records)

  async defaultsOfZone(ctx: RequestContext, zone: { id: number; name: string }): Promise<SteeringDefaults> {
    if (!seesZone(ctx.principal.policy, zone.name)) return NO_STEERING_DEFAULTS;
    return steeringDefaultsOf(ctx.db, zone.id);
  }

  /**
   * Replaces the zone's defaults (what is not given is unset: the service's default applies). They apply to the
   * checks made from now on; a check that exists keeps what it has. Who may: as for a check of the zone.
   */
  async setDefaults(ctx: RequestContext, zoneName: string, input: SteeringDefaultsInput): Promise<SteeringDefaults> {
    const zone = normaliseZoneName(zoneName);
    const defaults = parseSteeringDefaults(input);
    await this.engine.changeZone(
      ctx.db,
      this.settings,
      ctx.principal,
      { zone: { name: zone }, owner: '@', writer: { kind: 'steering' } },
      async (change) => {
        change.requireLock();
        if (!writesSomewhere(ctx.principal.policy, zone)) throw forbidden(`write access to some record of zone ${zone}`);
        await saveSteeringDefaults(change.connection, change.zone.id, defaults);
      },
    );
    return defaults;
  }

  // -- steered RRsets

  async createRrset(ctx: RequestContext, zoneName: string, input: SteeredRrsetInput): Promise<SteeredRrsetView> {
    const zone = normaliseZoneName(zoneName);
    const owner = this.parseOwner(ctx, zone, input);
    const id = await this.engine.changeZone(
      ctx.db,
      this.settings,
      ctx.principal,
      { zone: { name: zone }, owner, writer: { kind: 'steering' } },
      async (change) => {
        change.requireLock();
        const definition = await this.parseRrset(ctx, change, input);
        // the write engine's last word sees only the served records that change: steering an RRset whose records
        // stay as they are is a write of it all the same
        requireAllowed(ctx.principal.policy, { zone, owner: definition.owner, type: definition.type, access: 'write' });
        const existing = (await rrsetsOfZone(change.connection, change.zone.id)).find(
          (r) => r.owner === definition.owner && r.type === definition.type,
        );
        if (existing) {
          const message = `owner: ${definition.owner} already has a steered ${definition.type} RRset (id ${existing.id})`;
          throw new DomainError('DUPLICATE_STEERING', message, [{ field: 'owner', code: 'DUPLICATE_STEERING', message }]);
        }
        const created = await insertRrset(change.connection, change.zone.id, definition);
        await compileRuleViews(change.connection, definition.rules, ctx.principal);
        await commitServed(change);
        return created;
      },
    );
    return this.viewById(ctx, id);
  }

  async updateRrset(ctx: RequestContext, id: number, input: SteeredRrsetInput): Promise<SteeredRrsetView> {
    await this.changeOfRrset(ctx, id, async (change, current) => {
      const definition = await this.parseRrset(ctx, change, input);
      if (definition.owner !== current.owner || definition.type !== current.type) {
        const message = `owner: a steered RRset keeps its owner and type (${current.owner} ${current.type}); delete it and create another`;
        throw DomainError.invalid('owner', message);
      }
      await updateRrset(change.connection, id, definition);
      await compileRuleViews(change.connection, definition.rules, ctx.principal);
      await commitServed(change);
      await dropUnusedRuleViews(change.connection);
    });
    return this.viewById(ctx, id);
  }

  /** pauses (down), forces (up) or lets the check decide (obey) every member of the RRset with the value */
  async setMemberAdmin(ctx: RequestContext, id: number, value: string, admin: string): Promise<SteeredRrsetView> {
    const status = oneOf(admin.toLowerCase(), ADMIN_STATUSES, 'admin');
    await this.changeOfRrset(ctx, id, async (change, current) => {
      const canonical = canonicalValue(current.zone, current, value, 'value');
      let found = false;
      const withAdmin = (pools: SteeringPool[]) =>
        pools.map((pool) => ({
          ...pool,
          members: pool.members.map((m) => (m.value === canonical ? ((found = true), { ...m, admin: status }) : m)),
        }));
      const pools = withAdmin(current.pools);
      const rules = (current.rules ?? []).map((rule) => ({ ...rule, pools: withAdmin(rule.pools) }));
      if (!found)
        throw DomainError.invalid('value', `value: ${canonical} is no member of the steered RRset ${current.owner} ${current.type}`);
      await updateRrset(change.connection, id, { ...current, pools, rules });
      await commitServed(change);
    });
    return this.viewById(ctx, id);
  }

  /** the RRset's served records go with it, in the same change */
  async deleteRrset(ctx: RequestContext, id: number): Promise<boolean> {
    await this.changeOfRrset(ctx, id, async (change, current) => {
      await deleteRrset(change.connection, id);
      await compileRuleViews(change.connection, [], ctx.principal);
      await commitSteered(change, { only: [], removed: [current] });
      await dropUnusedRuleViews(change.connection);
    });
    return true;
  }

  // -- octoDNS's dynamic records through the PowerDNS API (docs/steering.md)

  /**
   * Takes an octoDNS dynamic record (a `LUA` record at `ownerName`, `content` as written) as the steered RRset of
   * its type at the owner, created or replaced, with a check per address, in one change of the zone. A member that
   * stays keeps the check it follows, as an operator may have changed it; a new member's check takes the zone's
   * defaults, then octoDNS's default health check (memberCheckSettings). The content is kept to be read back as
   * written; a steered RRset that an earlier LUA record put at the owner under another type goes, and so do the
   * checks no RRset follows any more.
   */
  async writeOctodnsDynamic(ctx: RequestContext, zoneName: string, ownerName: string, ttl: number, content: string): Promise<void> {
    const dynamic = decodeOctodnsDynamic(content);
    const zone = normaliseZoneName(zoneName);
    const owner = this.parseOwner(ctx, zone, { owner: ownerName, type: dynamic.type, ttl, pools: [] });
    const request = { zone: { name: zone }, owner, writer: { kind: 'steering' as const } };
    await this.engine.changeZone(ctx.db, this.settings, ctx.principal, request, async (change) => {
      change.requireLock();
      // as createRrset: the definition is a write of the RRset, whether or not its served records change now
      requireAllowed(ctx.principal.policy, { zone, owner, type: dynamic.type, access: 'write' });
      const host = `${owner === '@' ? zone : `${owner}.${zone}`}`.replace(/\.$/, '');
      const atOwner = (await rrsetsOfZone(change.connection, change.zone.id)).filter((r) => r.owner === owner);
      const current = atOwner.find((r) => r.type === dynamic.type);
      const checkIds = new Map<string, number>();
      if (dynamic.type !== 'CNAME') {
        const checks = await checksOfZone(change.connection, change.zone.id);
        // a member that stays keeps the check it follows as it is: what an operator set there is not octoDNS's
        const followed = new Map(
          [...(current?.pools ?? []), ...(current?.rules ?? []).flatMap((rule) => rule.pools)].flatMap((pool) =>
            pool.members.map((m) => [m.value, m.checkId] as const),
          ),
        );
        let defaults: SteeringDefaults | undefined;
        const values = [...dynamic.chain, ...dynamic.rules.flatMap((rule) => rule.chain)].flat().map((v) => v.value);
        for (const value of new Set(values)) {
          const name = octodnsCheckName(host, dynamic.type, value);
          const kept = checks.find((c) => c.id === followed.get(value)) ?? checks.find((c) => c.name === name);
          if (kept) {
            checkIds.set(value, kept.id);
            continue;
          }
          defaults ??= await steeringDefaultsOf(change.connection, change.zone.id);
          const definition = this.parseCheck({ ...memberCheckSettings(defaults, host), name, address: value });
          checkIds.set(value, await insertCheck(change.connection, change.zone.id, definition, this.settings.steering.externalLease));
        }
      }
      const pools = (chain: OctodnsPoolValue[][]) =>
        chain.map((values) => ({
          members: values.map((v) => ({ value: v.value, checkId: checkIds.get(v.value) ?? null, admin: v.status, weight: v.weight })),
        }));
      const definition = await this.parseRrset(ctx, change, {
        owner: ownerName,
        type: dynamic.type,
        ttl,
        pools: pools(dynamic.chain),
        // all down: the record's own values, the catch-all pool's, as octoDNS serves them when every pool is down
        backup: dynamic.chain[0].map((v) => v.value),
        rules: dynamic.rules.map((rule) => ({ subnets: rule.subnets, geos: rule.geos, pools: pools(rule.chain) })),
      });
      if (current) await updateRrset(change.connection, current.id, { ...definition, luaContent: content });
      else await insertRrset(change.connection, change.zone.id, { ...definition, luaContent: content });
      const removed = atOwner.filter((r) => r.type !== dynamic.type && r.luaContent != null);
      for (const rrset of removed) {
        requireAllowed(ctx.principal.policy, { zone, owner, type: rrset.type, access: 'write' });
        await deleteRrset(change.connection, rrset.id);
      }
      await deleteUnfollowedOctodnsChecks(change.connection, change.zone.id);
      await compileRuleViews(change.connection, definition.rules, ctx.principal);
      await commitSteered(change, { removed });
      await dropUnusedRuleViews(change.connection);
    });
  }

  /** deletes the steered RRsets that LUA records put at the owner, their served records and their checks */
  async deleteOctodnsDynamic(ctx: RequestContext, zoneName: string, ownerName: string): Promise<void> {
    const zone = normaliseZoneName(zoneName);
    const owner = this.parseOwner(ctx, zone, { owner: ownerName, type: 'A', pools: [] });
    const request = { zone: { name: zone }, owner, writer: { kind: 'steering' as const } };
    await this.engine.changeZone(ctx.db, this.settings, ctx.principal, request, async (change) => {
      change.requireLock();
      const removed = (await rrsetsOfZone(change.connection, change.zone.id)).filter((r) => r.owner === owner && r.luaContent != null);
      if (!removed.length) return;
      for (const rrset of removed) {
        requireAllowed(ctx.principal.policy, { zone, owner, type: rrset.type, access: 'write' });
        await deleteRrset(change.connection, rrset.id);
      }
      await deleteUnfollowedOctodnsChecks(change.connection, change.zone.id);
      await compileRuleViews(change.connection, [], ctx.principal);
      await commitSteered(change, { only: [], removed });
      await dropUnusedRuleViews(change.connection);
    });
  }

  /** the steered RRsets written as LUA records, with their content as written (the PowerDNS API shows them so) */
  async luaRrsetsOfZone(ctx: RequestContext, zone: { id: number; name: string }): Promise<RrsetRow[]> {
    const rrsets = (await rrsetsOfZone(ctx.db, zone.id)).filter(
      (r) => r.luaContent != null && readsRecord(ctx.principal.policy, zone.name, r.owner, r.type),
    );
    return rrsets;
  }

  // -- the parts

  /** a change of the zone of check `id`, in its transaction; a check the caller cannot see is not there */
  private async changeOfCheck(ctx: RequestContext, id: number, work: (change: ZoneChange, current: CheckRow) => Promise<void>) {
    const domainId = await zoneOfCheck(ctx.db, id);
    if (domainId === undefined) throw DomainError.notFound('STEERING_CHECK_NOT_FOUND', 'id');
    await notFoundAs('STEERING_CHECK_NOT_FOUND', () =>
      this.engine.changeZone(
        ctx.db,
        this.settings,
        ctx.principal,
        { zone: { id: domainId }, owner: '@', writer: { kind: 'steering' } },
        async (change) => {
          change.requireLock();
          const current = await checkById(change.connection, id);
          if (!current || current.domainId !== change.zone.id || !seesZone(ctx.principal.policy, change.zone.name))
            throw DomainError.notFound('STEERING_CHECK_NOT_FOUND', 'id');
          await work(change, current);
        },
      ),
    );
  }

  private async changeOfRrset(ctx: RequestContext, id: number, work: (change: ZoneChange, current: RrsetRow) => Promise<void>) {
    const domainId = await zoneOfRrset(ctx.db, id);
    if (domainId === undefined) throw DomainError.notFound('STEERED_RRSET_NOT_FOUND', 'id');
    await notFoundAs('STEERED_RRSET_NOT_FOUND', () =>
      this.engine.changeZone(
        ctx.db,
        this.settings,
        ctx.principal,
        { zone: { id: domainId }, owner: '@', writer: { kind: 'steering' } },
        async (change) => {
          change.requireLock();
          const current = await rrsetById(change.connection, id);
          if (
            !current ||
            current.domainId !== change.zone.id ||
            !readsRecord(ctx.principal.policy, change.zone.name, current.owner, current.type)
          )
            throw DomainError.notFound('STEERED_RRSET_NOT_FOUND', 'id');
          requireAllowed(ctx.principal.policy, { zone: change.zone.name, owner: current.owner, type: current.type, access: 'write' });
          await work(change, current);
        },
      ),
    );
  }

  /** a check is written where the key may write some record of the zone and every RRset that follows it */
  private async requireCheckWritable(ctx: RequestContext, change: ZoneChange, id: number): Promise<void> {
    const zone = change.zone.name;
    if (!writesSomewhere(ctx.principal.policy, zone)) throw forbidden(`write access to some record of zone ${zone}`);
    for (const rrset of await rrsetsOfZone(change.connection, change.zone.id))
      if (everyPool(rrset).some((pool) => pool.members.some((m) => m.checkId === id)))
        requireAllowed(ctx.principal.policy, { zone, owner: rrset.owner, type: rrset.type, access: 'write' });
  }

  private async viewById(ctx: RequestContext, id: number): Promise<SteeredRrsetView> {
    const rrset = await rrsetById(ctx.db, id);
    if (!rrset) throw DomainError.notFound('STEERED_RRSET_NOT_FOUND', 'id');
    const checks = new Map((await checksOfZone(ctx.db, rrset.domainId)).map((c) => [c.id, c]));
    return viewOf(rrset, checks, await ruleViewNames(ctx.db));
  }

  private parseCheck(input: SteeringCheckInput): CheckDefinition {
    const problems: ErrorDetail[] = [];
    const bad = (field: string, message: string) => problems.push({ field, code: 'INVALID_VALUE', message: `${field}: ${message}` });
    const name = String(input.name ?? '').trim();
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(name)) bad('name', 'letters, digits, dot, dash and underscore, 1 to 63 of them');
    let address = '';
    if (String(input.protocol ?? '').toLowerCase() === 'external') {
      // reported, not probed (reportSteeringStatus): nothing to connect to
      if (input.address != null && input.address !== '') bad('address', 'an external check probes nothing: its status is reported');
    } else {
      address = String(input.address ?? '').trim();
      const outbound = mayConnect(address, this.settings.steering.allowNetworks);
      if (!outbound.ok)
        problems.push({ field: 'address', code: 'ADDRESS_NOT_ALLOWED', message: `address: ${outbound.reason} (STEERING_ALLOW_NETWORKS)` });
    }
    const settings = parseCheckSettings(input, bad);
    if (problems.length) throw errorFromProblems(problems);
    return { name, address, ...settings };
  }

  /** the owner read, and the TTL held to the request's policy (allowedTtlsOf), as a record's are */
  private parseOwner(ctx: RequestContext, zone: string, input: SteeredRrsetInput): string {
    const allowedTtls = allowedTtlsOf(ctx, this.settings);
    const parsed = parseApiRecord(
      zone,
      { owner: input.owner, type: 'TXT', rdata: '"x"', ttl: input.ttl ?? defaultTtl(allowedTtls) },
      allowedTtls,
    );
    if (!parsed.ok) throw errorFromProblems(parsed.problems, 'TXT');
    return parsed.record.owner;
  }

  /** the definition read and checked against the zone as it is (its checks, what else is at the owner) */
  private async parseRrset(ctx: RequestContext, change: ZoneChange, input: SteeredRrsetInput) {
    const zone = change.zone.name;
    const type = String(input.type ?? '').toUpperCase() as SteeredType;
    if (!(STEERED_TYPES as readonly string[]).includes(type))
      throw DomainError.invalid('type', `type: a steered RRset is one of ${STEERED_TYPES.join(', ')}`, 'INVALID_CHOICE');
    const ttl = input.ttl ?? defaultTtl(allowedTtlsOf(ctx, this.settings));
    const owner = this.parseOwner(ctx, zone, { ...input, ttl });
    requireAllowed(ctx.principal.policy, { zone, owner, type, access: 'write' });
    const rrset = { owner, type, ttl };
    if (!input.pools?.length || input.pools.length > MAX_POOLS)
      throw DomainError.invalid('pools', `pools: 1 to ${MAX_POOLS} pools, in fallback order`);
    const checks = new Set((await checksOfZone(change.connection, change.zone.id)).map((c) => c.id));
    const parsePools = (given: SteeringPoolInput[], at: string): SteeringPool[] =>
      given.map((pool, p) => {
        if (!pool.members?.length || pool.members.length > MAX_MEMBERS)
          throw DomainError.invalid(`${at}[${p}].members`, `${at}[${p}].members: 1 to ${MAX_MEMBERS} members`);
        const minHealthy = pool.minHealthy ?? 1;
        if (!Number.isInteger(minHealthy) || minHealthy < 1 || minHealthy > pool.members.length)
          throw DomainError.invalid(`${at}[${p}].minHealthy`, `${at}[${p}].minHealthy: 1 to the pool's ${pool.members.length} members`);
        return {
          minHealthy,
          members: pool.members.map((member, m) => {
            const field = `${at}[${p}].members[${m}]`;
            const checkId = member.checkId ?? null;
            if (checkId !== null && !checks.has(checkId)) throw DomainError.notFound('STEERING_CHECK_NOT_FOUND', `${field}.checkId`);
            const weight = member.weight ?? 1;
            if (!Number.isInteger(weight) || weight < 0 || weight > 255)
              throw DomainError.invalid(`${field}.weight`, `${field}.weight: 0 to 255`);
            return {
              value: canonicalValue(zone, rrset, member.value, `${field}.value`),
              checkId,
              admin: oneOf(String(member.admin ?? 'obey').toLowerCase(), ADMIN_STATUSES, `${field}.admin`),
              weight,
            };
          }),
        };
      });
    const pools = parsePools(input.pools, 'pools');
    // rules by network and country: each its networks and its own pools, compiled into views (rules.ts)
    if ((input.rules?.length ?? 0) > MAX_RULES) throw DomainError.invalid('rules', `rules: at most ${MAX_RULES}`);
    const rules: SteeringRule[] = (input.rules ?? []).map((rule, r) => {
      const networks = parseRuleNetworks(rule, `rules[${r}]`);
      if (!rule.pools?.length || rule.pools.length > MAX_POOLS)
        throw DomainError.invalid(`rules[${r}].pools`, `rules[${r}].pools: 1 to ${MAX_POOLS} pools, in fallback order`);
      return { ...networks, pools: parsePools(rule.pools, `rules[${r}].pools`) };
    });
    refuseOverlappingRules(rules);
    const backup = (input.backup ?? []).map((value, i) => canonicalValue(zone, rrset, value, `backup[${i}]`));
    const maxAnswers = input.maxAnswers ?? 8;
    if (!Number.isInteger(maxAnswers) || maxAnswers < 1 || maxAnswers > 64) throw DomainError.invalid('maxAnswers', 'maxAnswers: 1 to 64');
    const allDown = oneOf(String(input.allDown ?? 'backup').toLowerCase(), ALL_DOWN, 'allDown');
    // what else is at the owner: a CNAME stands alone (RFC 1034 §3.6.2), and nothing stands beside one
    const others = change.zone.sameOwner.filter((r) => r.owner === owner && r.type !== type);
    const allPools = everyPool({ pools, rules });
    for (const value of new Set([...allPools.flatMap((p) => p.members.map((m) => m.value)), ...backup])) {
      const problems = checkRecordPlacement(zone, others, { owner, type, ttl, rdata: value });
      if (problems.length) throw errorFromProblems(problems, type);
    }
    // weights are kept, not served: a standard secondary answers every record of the RRset (docs/steering.md)
    if (allPools.some((pool) => new Set(pool.members.map((m) => m.weight)).size > 1))
      ctx.warnings?.push({
        field: 'pools',
        code: 'WEIGHTS_NOT_SERVED',
        message:
          'pools: weights are stored but not served: a standard secondary answers every record of an RRset, so every healthy member of the active pool is served',
      });
    return { owner, type, ttl, pools, maxAnswers, backup, allDown, rules };
  }
}
