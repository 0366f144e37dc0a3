import { requireAllowed } from '../../auth/policy';
import type { Settings } from '../../config/settings';
import { parseOwner } from '../../dns/name';
import { getRecordType } from '../../dns/record-types';
import { normaliseZoneName } from '../../dns/zone-name';
import { DomainError, errorFromProblems } from '../../errors/catalogue';
import {
  changePolicyOfZones,
  lockRrset,
  protectedRrsetsOfZone,
  type ProtectedRrsetRow,
  setStrictChecks,
  type ZoneChangePolicy,
  unlockRrset,
} from '../../repositories/protected-rrsets';
import type { RequestContext } from '../context';
import { type AuditEventKind, recordAuditEvent } from '../audit-log';
import { appendEvent } from '../../repositories/events';
import { changeAuthor, type Principal } from '../../auth/principal';
import type { Sql } from '../../db/pool';
import type { WriteEngine, ZoneChange } from '../write-engine';

/** the roles of an account whose people may lock and unlock a zone's RRsets and set its strictChecks */
const GUARDING_ROLES = new Set(['owner', 'admin']);

/** one change of a zone's rules: an RRset locked or unlocked, its strictChecks, the approvals a change needs */
export type ZoneRuleChange =
  | { rule: 'protectedRrset'; owner: string; type: string; locked: boolean }
  | { rule: 'strictChecks'; before: boolean; after: boolean }
  | { rule: 'requiredApprovals'; before: number; after: number };

/**
 * A change of a zone's rules is audited and told in the event feed (`zone.rules_changed`), in the transaction that
 * makes it (docs/changes.md, «A zone's rules»; docs/audit-log.md): who, and the zone's serial then, so that the
 * changes at or below it were written before it and those above after it. A call that changes nothing records
 * nothing (its caller does not call this).
 */
export async function recordZoneRuleChange(
  sql: Sql,
  principal: Principal,
  zone: { id: number; name: string; serial: number },
  change: ZoneRuleChange,
): Promise<void> {
  const rrset = change.rule === 'protectedRrset';
  const fact = rrset ? { owner: change.owner, type: change.type } : { before: change.before, after: change.after };
  await recordAuditEvent(sql, {
    kind: rrset ? (change.locked ? 'rrset-locked' : 'rrset-unlocked') : AUDIT_KIND_OF_RULE[change.rule],
    actor: principal,
    subject: `zone:${zone.name}`,
    detail: { ...fact, serial: zone.serial },
  });
  await appendEvent(sql, {
    type: 'zone.rules_changed',
    domainId: zone.id,
    data: {
      zone: zone.name,
      serial: zone.serial,
      rule: change.rule,
      ...(rrset ? { ...fact, before: !change.locked, after: change.locked } : fact),
      author: changeAuthor(principal),
    },
  });
}

const AUDIT_KIND_OF_RULE = {
  strictChecks: 'strict-checks-changed',
  requiredApprovals: 'required-approvals-changed',
} as const satisfies Record<Exclude<ZoneRuleChange['rule'], 'protectedRrset'>, AuditEventKind>;

/**
 * Protected RRsets (docs/changes.md): an owner or admin of a zone locks an RRset (owner and type: the apex NS, the
 * MX) so that no write of any edge changes it until one of them unlocks it. And a zone's strictChecks: its change
 * sets refuse the checks' warnings too. Each is a change of the zone's rules (`recordZoneRuleChange`), made in the
 * zone's turn (the write engine) holding its row's lock, never its records': a zone under review takes it as it is
 * (a rule is not a change request's), and it spends none of the zone's changes per second. A write that read the
 * rules before it is decided again on them (repositories/zone-writes.ts, `rules_version`), so that a lock and a
 * write of the RRset are never interleaved, whichever processes make them.
 */
export class ProtectedRrsetsService {
  constructor(
    private readonly settings: Settings,
    private readonly engine: WriteEngine,
  ) {}

  async lock(ctx: RequestContext, input: { zone: string; owner: string; type: string }): Promise<ProtectedRrsetRow> {
    return this.guarded(ctx, input, async (change, owner, type) => {
      const by = ctx.principal.via === 'session' ? (ctx.principal.person?.email ?? null) : (ctx.principal.keyName ?? null);
      if (await lockRrset(change.connection, change.zone.id, owner, type, by))
        await recordZoneRuleChange(change.connection, ctx.principal, change.zone, { rule: 'protectedRrset', owner, type, locked: true });
      return (await protectedRrsetsOfZone(change.connection, change.zone.id)).find((r) => r.owner === owner && r.type === type)!;
    });
  }

  /** true when it was locked (unlocking an RRset that is not records nothing) */
  async unlock(ctx: RequestContext, input: { zone: string; owner: string; type: string }): Promise<boolean> {
    return this.guarded(ctx, input, async (change, owner, type) => {
      const was = await unlockRrset(change.connection, change.zone.id, owner, type);
      if (was)
        await recordZoneRuleChange(change.connection, ctx.principal, change.zone, { rule: 'protectedRrset', owner, type, locked: false });
      return was;
    });
  }

  async setStrictChecks(ctx: RequestContext, zone: string, strict: boolean): Promise<boolean> {
    return this.inZone(ctx, zone, async (change) => {
      requireAllowed(ctx.principal.policy, { zone: change.zone.name, owner: '@', type: 'SOA', access: 'write' });
      const before = change.zone.strictChecks;
      if (before !== strict) {
        await setStrictChecks(change.connection, change.zone.id, strict);
        await recordZoneRuleChange(change.connection, ctx.principal, change.zone, { rule: 'strictChecks', before, after: strict });
      }
      return strict;
    });
  }

  /**
   * What the changes of zones the caller has already read are held to: strictChecks and the approvals each change
   * needs (a list of zones in one statement; a zone gone meanwhile has neither)
   */
  async changePolicyOf(ctx: RequestContext, zones: readonly { id: number }[]): Promise<ZoneChangePolicy[]> {
    const policies = await changePolicyOfZones(
      ctx.db,
      zones.map((zone) => zone.id),
    );
    return zones.map((zone) => policies.get(zone.id) ?? { strictChecks: false, requiredApprovals: 0 });
  }

  /** the locked RRsets of a zone the caller sees */
  async ofZone(ctx: RequestContext, zone: { id: number }): Promise<ProtectedRrsetRow[]> {
    return protectedRrsetsOfZone(ctx.db, zone.id);
  }

  private guarded<T>(
    ctx: RequestContext,
    input: { zone: string; owner: string; type: string },
    work: (change: ZoneChange, owner: string, type: string) => Promise<T>,
  ): Promise<T> {
    const zone = normaliseZoneName(input.zone);
    const owner = parseOwner(input.owner, zone);
    if (!owner.ok) throw errorFromProblems(owner.problems);
    const type = getRecordType(String(input.type).toUpperCase());
    if (!type) throw DomainError.invalid('type', `type: ${input.type} is not a record type Zonekeeper knows`, 'INVALID_TYPE');
    return this.inZone(ctx, zone, (change) => {
      // the lock is the RRset's write: a key must be allowed to write it
      requireAllowed(ctx.principal.policy, { zone: change.zone.name, owner: owner.name, type: type.type, access: 'write' });
      return work(change, owner.name, type.type);
    });
  }

  /** in the zone's turn, under its row's lock; a person must be an owner or admin of the account */
  private inZone<T>(ctx: RequestContext, zone: string, work: (change: ZoneChange) => Promise<T>): Promise<T> {
    return this.engine.changeZone(
      ctx.db,
      this.settings,
      ctx.principal,
      { zone: { name: normaliseZoneName(zone) }, owner: '@', writer: { kind: 'rules' } },
      (change) => {
        change.requireLock();
        const person = ctx.principal.via === 'session' ? ctx.principal.person : undefined;
        if (person && !(person.role && GUARDING_ROLES.has(person.role)))
          throw new DomainError('FORBIDDEN_BY_ROLE', `a ${person.role ?? 'person acting in no account'} may not lock a zone's RRsets`, [
            { field: 'role', code: 'FORBIDDEN_BY_ROLE', message: `only an owner or admin of the account may lock or unlock RRsets` },
          ]);
        return work(change);
      },
    );
  }
}
