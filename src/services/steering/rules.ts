/**
 * Steering's rules by client network and by country, compiled into views (docs/steering.md, «Rules by network and
 * country»). A rule's networks (its subnets, and its countries' and continents' networks from the IPtoASN
 * database) are the client networks of a view of steering's own, one per distinct text of subnets and geos; the
 * rule's pools, health-filtered and in fallback order as the RRset's own, are that view's overlay of the RRset; the
 * catch-all (the RRset's own pools) is the base zone. A secondary with views (BIND's `match-clients`) then answers
 * each asker by the address it asks from: the resolver's, not the client's behind it (EDNS Client Subnet, RFC
 * 7871, is not read by a view).
 *
 * A view is chosen by the asker's address alone, for every zone at once, so the views' networks must not overlap
 * unless they are the same networks: two rules (of any RRsets) whose networks overlap otherwise are refused
 * (STEERING_RULES_OVERLAP), and so are two rules of one RRset with the same networks and different pools (octoDNS
 * would serve the first; a view cannot keep an order).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../../db/pool';
import { AddressRange, cidrRange, mergeRanges, rangesOverlap, rangesToCidrs } from '../../dns/networks';
import { DomainError } from '../../errors/catalogue';
import { UNRESTRICTED } from '../../auth/policy';
import type { Principal } from '../../auth/principal';
import { insertTsigKey, revokeTsigKey } from '../../repositories/accounts';
import { rrsetsOfZone, statusesOfZone, SteeringPool, SteeringRule } from '../../repositories/steering';
import {
  deleteView,
  insertSteeringView,
  overlaysOfZone,
  setViewNetworks,
  steeringViewNames,
  steeringViews,
} from '../../repositories/views';
import { recordAuditEvent } from '../audit-log';
import type { ZoneChange } from '../write-engine';
import { geoCountries, networksOfCountries } from './country-networks';
import { servedValues } from './decision';

/** the most subnets and geos one rule may name */
const MAX_RULE_NETWORKS = 256;
/** the most rules one steered RRset may have */
export const MAX_RULES = 32;

/** a rule's subnets and geos as one text (sorted, space-separated): the name of its networks, one view per text */
export function ruleNetworksText(rule: { subnets: readonly string[]; geos: readonly string[] }): string {
  return [...rule.subnets, ...rule.geos].join(' ');
}

/** a rule's networks as given, read: CIDR blocks without host bits, octoDNS geos upper-cased; both sorted */
export function parseRuleNetworks(
  rule: { subnets?: readonly string[] | null; geos?: readonly string[] | null },
  field: string,
): { subnets: string[]; geos: string[] } {
  const given = [...(rule.subnets ?? []), ...(rule.geos ?? [])];
  if (!given.length)
    throw DomainError.invalid(field, `${field}: a rule names subnets or geos (the steered RRset's own pools answer everyone else)`);
  if (given.length > MAX_RULE_NETWORKS) throw DomainError.invalid(field, `${field}: at most ${MAX_RULE_NETWORKS} subnets and geos`);
  const subnets = (rule.subnets ?? []).map((text, i) => {
    const range = cidrRange(String(text));
    if (!range) throw DomainError.invalid(`${field}.subnets[${i}]`, `${field}.subnets[${i}]: ${JSON.stringify(text)} is not a CIDR block`);
    const [block] = rangesToCidrs([range]);
    return block;
  });
  const geos = (rule.geos ?? []).map((text, i) => {
    const geo = String(text).trim().toUpperCase();
    if (!geoCountries(geo))
      throw DomainError.invalid(
        `${field}.geos[${i}]`,
        `${field}.geos[${i}]: ${JSON.stringify(text)} is not a continent (EU) or a continent and country (EU-DE) as octoDNS writes them; provinces are not in the country database`,
      );
    return geo;
  });
  return { subnets: [...new Set(subnets)].sort(), geos: [...new Set(geos)].sort() };
}

/** a rule's client networks: its subnets and its countries' networks (a continent's are its countries'), merged */
export function ruleRanges(rule: { subnets: readonly string[]; geos: readonly string[] }): AddressRange[] {
  const subnets = rule.subnets.map((block) => cidrRange(block)!);
  const countries = rule.geos.flatMap((geo) => geoCountries(geo) ?? []);
  return mergeRanges([...subnets, ...networksOfCountries(countries)]);
}

function overlapError(field: string, message: string): DomainError {
  return new DomainError('STEERING_RULES_OVERLAP', message, [{ field, code: 'STEERING_RULES_OVERLAP', message }]);
}

const samePools = (a: readonly SteeringPool[], b: readonly SteeringPool[]) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Refuses what views cannot express among one RRset's rules: networks that overlap without being the same, and
 * the same networks with different pools (the first rule would win; a view keeps no order).
 */
export function refuseOverlappingRules(rules: readonly SteeringRule[]): void {
  const ranges = rules.map(ruleRanges);
  for (let j = 1; j < rules.length; j++)
    for (let i = 0; i < j; i++) {
      const same = ruleNetworksText(rules[i]) === ruleNetworksText(rules[j]);
      if (same && samePools(rules[i].pools, rules[j].pools)) continue;
      if (!same && !rangesOverlap(ranges[i], ranges[j])) continue;
      throw overlapError(
        `rules[${j}]`,
        same
          ? `rules[${i}] and rules[${j}] name the same networks with different pools: octoDNS would answer the first, and a view (chosen by the asker's address alone) keeps no order between rules`
          : `rules[${i}] and rules[${j}]: their networks overlap without being the same; a view is chosen by the asker's address alone, so an address in both could not be given the first rule's pool`,
      );
    }
}

/**
 * the views of steering's own are made, dropped and read again one transaction at a time across processes (a
 * transaction-scoped lock): a view found in use is not dropped under a rule that is being written
 */
async function lockRuleViews(sql: Sql): Promise<void> {
  await sql.rows(`select pg_advisory_xact_lock(hashtext('zonekeeper steering views'))`);
}

/** a view's name for a rule's networks: steering's prefix and a digest of their text */
const viewNameOf = (text: string) => `steering-${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;

/**
 * The views of an RRset's rules, found by their networks' text or made (each with a TSIG key of its own, the
 * operator's, as every view has), their networks computed from the rule now. A rule whose networks overlap
 * another view of steering's (another RRset's rule, in any zone) without being the same is refused. One at a time
 * across processes (a transaction-scoped lock), so that two zones' writes never make two views of one text. Called
 * before the change touches any view's overlay (with no rules, it takes the lock alone when there are views):
 * the lock is then taken before the overlays' rows, in the order every other holder of both takes them.
 */
export async function compileRuleViews(sql: Sql, rules: readonly SteeringRule[], actor: Principal): Promise<void> {
  if (!rules.length && !(await steeringViewNames(sql)).length) return;
  await lockRuleViews(sql);
  if (!rules.length) return;
  const views = await steeringViews(sql);
  const done = new Set<string>();
  for (const [index, rule] of rules.entries()) {
    const text = ruleNetworksText(rule);
    if (done.has(text)) continue;
    done.add(text);
    const ranges = ruleRanges(rule);
    for (const other of views) {
      if (other.steeringNetworks === text) continue;
      if (rangesOverlap(ranges, mergeRanges(other.networks.map((n) => cidrRange(n)!))))
        throw overlapError(
          `rules[${index}]`,
          `rules[${index}]: its networks overlap those of view ${other.name} (${other.steeringNetworks}), another steered RRset's rule, without being the same; a view is chosen by the asker's address alone, for every zone`,
        );
    }
    const networks = rangesToCidrs(ranges);
    const found = views.find((v) => v.steeringNetworks === text);
    if (found) {
      if (found.networks.join(' ') !== networks.join(' ')) await setViewNetworks(sql, found.id, networks);
      continue;
    }
    const name = viewNameOf(text);
    const key = await insertTsigKey(sql, {
      userId: null,
      name: `${name}-key`,
      algorithm: 'hmac-sha256',
      secret: randomBytes(32),
      policy: { ...UNRESTRICTED, preset: null },
    });
    if (!key) throw new Error(`the TSIG key of steering view ${name} was not made`);
    await recordAuditEvent(sql, {
      kind: 'tsig-key-created',
      actor,
      subject: `tsig-key:${key.id}`,
      detail: { name: key.name, algorithm: key.algorithm, userId: null, steeringView: name },
    });
    await insertSteeringView(sql, { name, networks, tsigKeyId: key.id, steeringNetworks: text });
  }
}

/**
 * The views of steering's own that no rule uses any more go, with their overlays, serials and keys (revoked).
 * After a definition's change or deletion, once its overlays were cleared, and hourly (a zone deleted with its
 * steered RRsets leaves their views unused).
 */
export async function dropUnusedRuleViews(sql: Sql): Promise<void> {
  if (!(await steeringViewNames(sql)).length) return;
  await lockRuleViews(sql);
  const views = await steeringViewNames(sql);
  const rows = await sql.rows<{ rules: SteeringRule[] }>(`select rules from steered_rrsets where rules <> '[]'::jsonb`);
  const used = new Set(rows.flatMap((r) => r.rules.map(ruleNetworksText)));
  for (const view of views)
    if (!used.has(view.steeringNetworks)) {
      await deleteView(sql, view.id);
      await revokeTsigKey(sql, view.tsigKeyId);
    }
}

/**
 * Every view of steering's own with its networks computed again from its text: the country database may have
 * changed (an upgrade of its package); those no rule uses go first. Run at each worker's start and hourly;
 * answers the views whose networks moved.
 */
export async function refreshRuleViews(sql: Sql): Promise<string[]> {
  await dropUnusedRuleViews(sql);
  const moved: string[] = [];
  for (const view of await steeringViews(sql)) {
    const [subnets, geos] = [[] as string[], [] as string[]];
    for (const part of view.steeringNetworks!.split(' ')) (part.includes('/') ? subnets : geos).push(part);
    const networks = rangesToCidrs(ruleRanges({ subnets, geos }));
    if (networks.join(' ') === view.networks.join(' ')) continue;
    await setViewNetworks(sql, view.id, networks);
    moved.push(view.name);
  }
  return moved;
}

/** the overlay a view holds of an RRset: a rule's answer (replace), or nothing served (hide) */
interface WantedOverlay {
  viewId: number;
  view: string;
  owner: string;
  type: string;
  action: 'replace' | 'hide';
  records: { ttl: number; rdata: string }[];
}

/**
 * Writes, in `change`, each view of steering's own's overlay of the zone's steered RRsets as their rules answer
 * now: in the view of a rule's networks, the rule's healthy pool (its fallback chain, then the RRset's backup, as
 * the RRset's own pools are served), and no overlay where no rule of the RRset names the view. Only what differs
 * is written; each write steps that view's serial of the zone. Answers how many overlays moved.
 */
export async function writeRuleOverlays(change: ZoneChange): Promise<number> {
  const sql = change.connection;
  const views = await steeringViewNames(sql);
  if (!views.length) return 0;
  const statuses = await statusesOfZone(sql, change.zone.id);
  const statusOf = (checkId: number) => statuses.get(checkId);
  const byText = new Map(views.map((v) => [v.steeringNetworks, v]));
  const wanted = new Map<string, WantedOverlay>();
  const keyOf = (o: { viewId: number; owner: string; type: string }) => `${o.viewId} ${o.owner} ${o.type}`;
  for (const rrset of await rrsetsOfZone(sql, change.zone.id))
    for (const rule of rrset.rules ?? []) {
      const view = byText.get(ruleNetworksText(rule));
      if (!view) continue;
      const overlay = { viewId: view.id, view: view.name, owner: rrset.owner, type: rrset.type };
      // the first rule of the networks answers them (the others of the same text have its pools)
      if (wanted.has(keyOf(overlay))) continue;
      const answer = servedValues({ ...rrset, pools: rule.pools }, rrset.type, statusOf);
      const records = answer.values.map((rdata) => ({ ttl: rrset.ttl, rdata }));
      wanted.set(keyOf(overlay), { ...overlay, action: records.length ? 'replace' : 'hide', records });
    }
  const steering = new Map(views.map((v) => [v.id, v]));
  const current = (await overlaysOfZone(sql, change.zone.id)).filter((o) => steering.has(o.viewId));
  let moved = 0;
  for (const overlay of current)
    if (!wanted.has(keyOf(overlay))) {
      await change.writeViewOverlay({
        domainId: change.zone.id,
        viewId: overlay.viewId,
        view: steering.get(overlay.viewId)!.name,
        owner: overlay.owner,
        type: overlay.type,
        records: [],
      });
      moved++;
    }
  const sameRecords = (a: readonly { ttl: number; rdata: string }[], b: readonly { ttl: number; rdata: string }[]) =>
    JSON.stringify(a.map((r) => `${r.ttl} ${r.rdata}`).sort()) === JSON.stringify(b.map((r) => `${r.ttl} ${r.rdata}`).sort());
  for (const overlay of wanted.values()) {
    const now = current.find((o) => keyOf(o) === keyOf(overlay));
    if (now && now.action === overlay.action && sameRecords(now.records, overlay.records)) continue;
    await change.writeViewOverlay({ domainId: change.zone.id, ...overlay });
    moved++;
  }
  return moved;
}
