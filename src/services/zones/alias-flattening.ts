/**
 * ALIAS/ANAME flattening (docs/templates-and-alias.md), run by the worker. Each ALIAS or ANAME names a target;
 * its A and AAAA are asked of ALIAS_RESOLVERS and published at the owner as ordinary A/AAAA records marked as
 * derived (`records.derived_from`), through the write engine as a change of the service's own: a serial step
 * with its journal row, so secondaries take them by IXFR and a signed zone signs them as any change. The
 * answer set is written only when it differs; the next refresh comes after the answers' smallest TTL, clamped
 * to ALIAS_MIN_TTL..ALIAS_MAX_TTL, which is also the derived records' TTL. A target that answers NXDOMAIN or
 * SERVFAIL, has no address, or does not answer keeps the last addresses; the schedule row says why.
 * Derived rows whose ALIAS is gone are removed the same way. A secondary zone's ALIAS is flattened too: the
 * derived rows are the service's, not the primary's data, so the change is one a secondary zone takes (the
 * engine's `alias` writer, write-engine/writers.ts) and its transfers leave them alone (docs/transfers.md,
 * «ALIAS in secondary zones»).
 */
import { servicePrincipal } from '../../auth/principal';
import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import {
  aliasStillThere,
  derivedRowsOf,
  DueAlias,
  forgetAlias,
  leaseDueAliases,
  markDerived,
  saveAliasOutcome,
} from '../../repositories/alias-refresh';
import { resolveAddresses } from '../../dns-client/dns-client';
import type { WriteEngine } from '../write-engine';
import type { JournalRecord } from '../../entities/change.entity';

/** a refresh being made is leased this long; a worker that dies leaves it to another after that */
const LEASE_SECONDS = 60;
/** schedule rows taken per tick (a refresh, or the removal of a gone ALIAS's derived rows) */
const REFRESH_BATCH = 20;

/** the service's own changes pass the engine's scope checks as the admin; the history names no person */
const SERVICE = servicePrincipal('alias flattening');

type Resolved = { ok: true; addresses: JournalRecord[]; ttl: number; authenticated: boolean } | { ok: false; reason: string };

/**
 * Refreshes the due ALIAS/ANAME records (at most REFRESH_BATCH), and removes the derived rows of those gone;
 * answers how many zones were changed. It reads only the due schedule rows: the write engine keeps the
 * schedule as records are written (repositories/alias-refresh.ts), so nothing scans the ALIAS records or the
 * derived rows.
 */
export async function refreshDueAliases(engine: WriteEngine, db: Database, settings: Settings): Promise<number> {
  if (!settings.aliasResolvers.length) return 0;
  let changed = 0;
  for (const alias of await leaseDueAliases(db, REFRESH_BATCH, LEASE_SECONDS)) {
    if (alias.gone) {
      if (await removeOrphans(engine, db, settings, { domainId: alias.domainId, aliasId: alias.recordId })) changed++;
      await forgetAlias(db, alias.recordId);
    } else if (await refreshAlias(engine, db, settings, alias)) changed++;
  }
  return changed;
}

/** one ALIAS: resolve, publish when the set differs, and note the outcome and the next refresh */
export async function refreshAlias(engine: WriteEngine, db: Database, settings: Settings, alias: DueAlias): Promise<boolean> {
  const resolved = await resolveTarget(settings, alias.target);
  if (!resolved.ok) {
    // the last addresses stay served (the issue: a target that stops resolving keeps them); ask again soon
    await saveAliasOutcome(db, alias.recordId, {
      state: 'stale',
      reason: resolved.reason,
      addresses: (await derivedRowsOf(db, alias.recordId)).map((r) => r.rdata),
      authenticated: false,
      nextRefreshInSeconds: settings.aliasMinTtl,
    });
    return false;
  }
  const owner = alias.owner === '@' ? `${alias.zone}.` : `${alias.owner}.${alias.zone}.`;
  const published = await engine.changeZone(
    db,
    settings,
    SERVICE,
    {
      zone: { id: alias.domainId },
      owner: alias.owner,
      writer: { kind: 'alias', note: `${alias.type} refresh of ${owner} → ${alias.target}` },
    },
    async (change) => {
      // two statements (the rows, then their marker): a transaction holding the zone row's lock
      change.requireLock();
      const sql = change.connection;
      if (!(await aliasStillThere(sql, alias.recordId, alias.target))) return false;
      const current = await derivedRowsOf(sql, alias.recordId);
      // the owner counts: an ALIAS moved to another owner takes its addresses along
      const key = (r: JournalRecord) => `${r.owner} ${r.type} ${r.rdata} ${r.ttl}`;
      const wanted = new Set(resolved.addresses.map(key));
      const have = new Set(current.map(key));
      const stale = current.filter((r) => !wanted.has(key(r)));
      const fresh = resolved.addresses.filter((r) => !have.has(key(r)));
      if (!stale.length && !fresh.length) return false;
      for (const row of stale) change.remove(row);
      for (const record of fresh) change.insert(record);
      await markDerived(sql, await change.commit(), alias.recordId);
      return true;
    },
  );
  await saveAliasOutcome(db, alias.recordId, {
    state: 'ok',
    reason: null,
    addresses: resolved.addresses.map((r) => r.rdata),
    authenticated: resolved.authenticated,
    nextRefreshInSeconds: resolved.ttl,
  });
  return published;

  /** the target's A and AAAA from the first resolver that answers both, as records at the owner */
  async function resolveTarget(settings: Settings, target: string): Promise<Resolved> {
    let reason = 'no resolver answered';
    for (const resolver of settings.aliasResolvers) {
      const [a, aaaa] = await Promise.all([resolveAddresses(resolver, target, 'A'), resolveAddresses(resolver, target, 'AAAA')]);
      if (!a.ok || !aaaa.ok) {
        reason = !a.ok ? a.reason : (aaaa as { reason: string }).reason;
        continue;
      }
      if (!a.addresses.length && !aaaa.addresses.length) return { ok: false, reason: `${target} has no A or AAAA record` };
      const ttls = [a.ttl, aaaa.ttl].filter((t): t is number => t !== undefined);
      const ttl = Math.min(settings.aliasMaxTtl, Math.max(settings.aliasMinTtl, ttls.length ? Math.min(...ttls) : settings.aliasMaxTtl));
      const addresses = [
        ...a.addresses.map((rdata) => ({ owner: alias.owner, type: 'A', rdata, ttl })),
        ...aaaa.addresses.map((rdata) => ({ owner: alias.owner, type: 'AAAA', rdata, ttl })),
      ];
      // a validating resolver sets AD on both answers when it validated them (RFC 4035 §3.2.3)
      return { ok: true, addresses, ttl, authenticated: a.authenticated && aaaa.authenticated };
    }
    return { ok: false, reason };
  }
}

/** removes the derived rows of an ALIAS/ANAME that was deleted (or changed to another target) */
async function removeOrphans(
  engine: WriteEngine,
  db: Database,
  settings: Settings,
  orphan: { domainId: number; aliasId: number },
): Promise<boolean> {
  return engine.changeZone(
    db,
    settings,
    SERVICE,
    { zone: { id: orphan.domainId }, owner: '@', writer: { kind: 'alias', note: 'ALIAS removed: its derived addresses go' } },
    async (change) => {
      const rows = await derivedRowsOf(change.connection, orphan.aliasId);
      if (!rows.length) return false;
      for (const row of rows) change.remove(row);
      await change.commit();
      return true;
    },
  );
}
