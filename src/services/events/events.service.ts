import { timingSafeEqual } from 'node:crypto';
import dns from 'node:dns/promises';
import net from 'node:net';
import type { Settings } from '../../config/settings';
import type { RequestContext } from '../context';
import type { Principal } from '../../auth/principal';
import { requireWebhookManager } from '../../auth/principal';
import { forbidden, KeyPolicy, ReadRules, readRulesOf, readsRecord, seesZone, UNRESTRICTED } from '../../auth/policy';
import { DomainError, ErrorDetail, errorFromProblems } from '../../errors/catalogue';
import { parseZoneName } from '../../dns/name';
import { EVENT_TYPES, formatCursor, parseCursor, readFeed, StoredEvent } from '../../repositories/events';
import {
  deleteSubscription,
  deliveriesOf,
  DeliveryRow,
  insertSubscription,
  listSubscriptions,
  zonesOfUser,
  lockSecrets,
  redeliver,
  rotateSecret,
  subscriptionOf,
  SubscriptionRow,
} from '../../repositories/webhooks';
import { mayConnect } from '../../outbound/addresses';
import { newSecret, parseSecret, WebhookSecrets } from './webhook-secrets';
import type { SettingsKeyVault } from '../dnssec/settings-key-vault';

/** an event as a reader gets it, in the feed and in a webhook's body */
export interface EventView {
  id: number;
  type: string;
  /** when its transaction wrote it */
  timestamp: string;
  zone: string | null;
  data: Record<string, unknown>;
}

/**
 * Who may read which events: the policies of keys (src/auth/policy.ts), as for the zones themselves. The admin
 * sees every event; a user's key or session the events of its user's zones (and its user's own, such as a
 * disabled webhook); a key whose rules name zones only those, and of a zone's changes only the records it may read.
 */
export interface ReaderScope {
  /** undefined: every user's (the operator) */
  userId?: number;
  /** the key's read rules; undefined: unrestricted within its user */
  readRules?: ReadRules;
}

export function scopeOf(principal: Principal): ReaderScope {
  return { userId: principal.kind === 'user' ? principal.userId : undefined, readRules: readRulesOf(principal.policy) };
}

const policyOfRules = (rules: ReadRules): KeyPolicy => ({
  ...UNRESTRICTED,
  rules: rules.map((rule) => ({ ...rule, access: 'read' as const })),
});

/** the zones a scope is limited to by its rules, or undefined: every zone of its user */
function zonesOf(scope: ReaderScope): string[] | undefined {
  if (!scope.readRules || scope.readRules.some((rule) => rule.zone === null)) return undefined;
  return scope.readRules.map((rule) => rule.zone as string);
}

/** does the scope see the event (the fan-out asks this of every subscription, the feed asks it in SQL too)? */
export function scopeSees(scope: ReaderScope, event: Pick<StoredEvent, 'userId' | 'zone'>): boolean {
  if (scope.userId !== undefined && event.userId !== scope.userId) return false;
  if (scope.readRules && event.zone !== null && !seesZone(policyOfRules(scope.readRules), event.zone)) return false;
  if (scope.readRules && event.zone === null && zonesOf(scope)) return false;
  return true;
}

/**
 * the event as the scope may read it: a zone change's records (and RRsets' comments) the key's rules do not let it read are left out,
 * and so is what a steered RRset it may not read served, a view's overlay or a lock of an RRset it may not read (the event
 * stays, as a zone change with no record of its does: the key sees the zone)
 */
export function eventView(event: StoredEvent, scope: ReaderScope): EventView {
  let data = event.data;
  if (scope.readRules && event.zone !== null) {
    const policy = policyOfRules(scope.readRules);
    const zone = event.zone;
    const readable = (records: unknown) =>
      (records as { owner: string; type: string }[]).filter((r) => readsRecord(policy, zone, r.owner, r.type));
    if (event.type === 'zone.changed' && Array.isArray(data.added)) {
      data = { ...data, added: readable(data.added), removed: readable(data.removed) };
    }
    // a comment names its RRset: one the key may not read is left out (the event stays, as a change's does)
    if ((event.type === 'zone.changed' || event.type === 'zone.comments_changed') && Array.isArray(data.comments)) {
      data = { ...data, comments: readable(data.comments) };
    } else if (
      (event.type === 'steering.changed' ||
        event.type === 'view.changed' ||
        (event.type === 'zone.rules_changed' && data.owner !== undefined)) &&
      !readsRecord(policy, zone, String(data.owner), String(data.type))
    ) {
      data = {};
    }
  }
  return { id: event.id, type: event.type, timestamp: event.createdAt.toISOString(), zone: event.zone, data };
}

/** types given as a JSON list or a comma-separated text; `*` (or none): every type, null */
export function parseEventTypes(input: unknown, field = 'events'): string[] | null {
  const items = Array.isArray(input) ? input.map(String) : typeof input === 'string' ? input.split(',') : [];
  const types = [...new Set(items.map((item) => item.trim()).filter(Boolean))];
  if (!types.length || types.includes('*')) return null;
  for (const type of types)
    if (!(EVENT_TYPES as readonly string[]).includes(type))
      throw DomainError.invalid(
        field,
        `${field}: ${JSON.stringify(type)} is not an event type (${EVENT_TYPES.join(', ')}, or *)`,
        'INVALID_CHOICE',
      );
  return types;
}

export const MAX_FEED_PAGE = 1000;

export interface SubscriptionView extends Omit<SubscriptionRow, 'readRules' | 'userId'> {
  userId: number | null;
  /** until when a previous secret still signs (the last of `previousSecrets` to end), or null */
  previousSecretUntil: Date | null;
}

/**
 * Events out (docs/events.md): the pull feed, and the webhook subscriptions the worker delivers to
 * (worker/webhook-delivery.ts). Every edge (GraphQL, REST through it, the CLI) calls these.
 */
export class EventsService {
  /** the webhooks' signing secrets, sealed in the process's key vault (the worker's deliveries open them too) */
  readonly secrets: WebhookSecrets;

  constructor(
    private readonly settings: Settings,
    keys: SettingsKeyVault,
  ) {
    this.secrets = new WebhookSecrets(keys);
  }

  /**
   * The feed after the cursor `after` (empty: from the start of what is kept), in order, up to `limit` events
   * the caller may read; `next` is the cursor to ask from next (the one given when nothing new is there).
   */
  async feed(
    ctx: RequestContext,
    args: { after?: string | null; limit?: number | null; types?: unknown },
  ): Promise<{ events: EventView[]; next: string }> {
    const after = parseCursor(String(args.after ?? '').trim());
    if (!after)
      throw DomainError.invalid('after', 'after: not a cursor of the event feed (the `next` of an earlier answer)', 'INVALID_CURSOR');
    const limit = args.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_FEED_PAGE)
      throw DomainError.invalid('limit', `limit: from 1 to ${MAX_FEED_PAGE} events (got ${limit})`, 'INVALID_LIMIT');
    const types = args.types === undefined || args.types === null ? null : parseEventTypes(args.types, 'types');
    const scope = scopeOf(ctx.principal);
    const events = await readFeed(ctx.db, { after, limit, userId: scope.userId, zones: zonesOf(scope), types: types ?? undefined });
    // the SQL's scope is the user and the named zones; the rules' finer reading (records) is applied here
    const last = events.at(-1);
    return {
      events: events.filter((event) => scopeSees(scope, event)).map((event) => eventView(event, scope)),
      next: last ? formatCursor({ xid: last.xid, id: last.id }) : formatCursor(after),
    };
  }

  // ---- webhook subscriptions ----

  /**
   * A new subscription of the caller's user (the operator's for the admin key): `url` (http or https, to an
   * address the service may reach: WEBHOOK_ALLOW), `events` (types, or every one), `zones` (names, or every zone
   * the caller may read). It delivers only what the caller may read, as its rules are now. Answers the secret,
   * once.
   */
  async add(
    ctx: RequestContext,
    input: { url: string; events?: unknown; zones?: unknown },
  ): Promise<{ subscription: SubscriptionView; secret: string }> {
    const { principal } = ctx;
    if (principal.kind === 'user' && principal.userId === 0) throw new DomainError('FORBIDDEN_BY_ROLE');
    requireWebhookManager(principal);
    const url = await this.checkUrl(input.url);
    const eventTypes = parseEventTypes(input.events ?? '*');
    const zones = await this.parseZones(ctx, input.zones);
    const secret = newSecret();
    const row = await insertSubscription(
      ctx.db,
      {
        userId: principal.kind === 'user' ? principal.userId : null,
        keyId: principal.via === undefined ? principal.keyId || null : null,
        readRules: readRulesOf(principal.policy) ?? null,
        url,
        eventTypes,
        zones,
      },
      (id) => this.secrets.seal(id, secret.bytes),
    );
    return { subscription: view(row), secret: secret.text };
  }

  async list(ctx: RequestContext): Promise<SubscriptionView[]> {
    return (await listSubscriptions(ctx.db, scopeOf(ctx.principal).userId)).map(view);
  }

  async get(ctx: RequestContext, id: number): Promise<SubscriptionView> {
    return view(await this.own(ctx, id));
  }

  async remove(ctx: RequestContext, id: number): Promise<void> {
    requireWebhookManager(ctx.principal);
    if (!(await deleteSubscription(ctx.db, id, scopeOf(ctx.principal).userId))) throw DomainError.notFound('WEBHOOK_NOT_FOUND', 'id');
  }

  /**
   * A new secret, answered once: `secret` when the caller gives one (parseSecret's rule; never one of the
   * secrets signing now), else a random one. The current secret is retired: it signs too for
   * WEBHOOK_SECRET_OVERLAP_HOURS from now, and every previous secret still in its overlap keeps signing until its
   * own ends, so a receiver on any of them keeps verifying however many rotations come meanwhile. At most
   * WEBHOOK_MAX_SECRETS sign at once: a rotation past it is refused (TOO_MANY_WEBHOOK_SECRETS, naming when the
   * first previous one ends), before anything is written.
   */
  async rotate(
    ctx: RequestContext,
    id: number,
    input: { secret?: string | null } = {},
  ): Promise<{ subscription: SubscriptionView; secret: string }> {
    requireWebhookManager(ctx.principal);
    const given = input.secret !== undefined && input.secret !== null;
    const { secretOverlapHours: hours, maxSecrets } = this.settings.webhooks;
    const userId = scopeOf(ctx.principal).userId;
    const secret = await ctx.db.transaction(async (sql) => {
      const current = await lockSecrets(sql, id, userId);
      // another user's webhook is not found, whatever the body holds
      if (!current) throw DomainError.notFound('WEBHOOK_NOT_FOUND', 'id');
      const secret = given ? parseSecret(input.secret!) : newSecret();
      // a secret the caller chose may be one signing now (a random one is not): no rotation, then
      const signing = [current.sealed.secret, ...current.sealed.previous];
      if (given && signing.some((sealed) => sameBytes(this.secrets.open(id, sealed), secret.bytes)))
        throw DomainError.invalid('secret', 'secret: it is one this webhook signs with now; a rotation needs a new one', 'SECRET_IN_USE');
      // after the rotation: the new secret, the retired one (unless the overlap is none), the previous ones
      const after = 1 + (hours > 0 ? 1 : 0) + current.sealed.previous.length;
      if (after > maxSecrets) {
        const message = `${signing.length} secrets sign this webhook's deliveries, and WEBHOOK_MAX_SECRETS=${maxSecrets} allows no more; the first previous one ends at ${current.firstEnds?.toISOString()} (or the operator raises WEBHOOK_MAX_SECRETS)`;
        throw new DomainError('TOO_MANY_WEBHOOK_SECRETS', message, [
          { field: 'id', code: 'TOO_MANY_WEBHOOK_SECRETS', message, limit: maxSecrets },
        ]);
      }
      await rotateSecret(sql, id, this.secrets.seal(id, secret.bytes), hours);
      return secret;
    });
    return { subscription: view(await this.own(ctx, id)), secret: secret.text };
  }

  async deliveries(ctx: RequestContext, id: number, page: { first: number; beforeId?: number }): Promise<DeliveryRow[]> {
    await this.own(ctx, id);
    return deliveriesOf(ctx.db, id, page);
  }

  /**
   * Delivers again the events given (their deliveries to this endpoint), or every failed one; answers how many.
   * An event this endpoint never had a delivery of (no such event, or not one it received) is refused
   * (EVENT_NOT_FOUND naming each such id), and then nothing is redelivered.
   */
  async redeliver(ctx: RequestContext, id: number, eventIds?: number[] | null): Promise<number> {
    requireWebhookManager(ctx.principal);
    await this.own(ctx, id);
    if (eventIds && eventIds.some((e) => !Number.isSafeInteger(e) || e < 1))
      throw DomainError.invalid('events', 'events: event ids (whole numbers)', 'INVALID_VALUE');
    const ids = eventIds?.length ? [...new Set(eventIds)] : null;
    const { redelivered, missing } = await redeliver(ctx.db, id, ids);
    if (missing.length) {
      const message = `events: this webhook has no delivery of the event${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (no such event, or not one it received)`;
      throw new DomainError(
        'EVENT_NOT_FOUND',
        message,
        missing.map((event) => ({
          field: `events[${eventIds!.indexOf(event)}]`,
          code: 'EVENT_NOT_FOUND',
          message: `events[${eventIds!.indexOf(event)}]: this webhook has no delivery of the event ${event}`,
        })),
      );
    }
    return redelivered;
  }

  private async own(ctx: RequestContext, id: number): Promise<SubscriptionRow> {
    const row = await subscriptionOf(ctx.db, id, scopeOf(ctx.principal).userId);
    if (!row) throw DomainError.notFound('WEBHOOK_NOT_FOUND', 'id');
    return row;
  }

  /**
   * The endpoint's URL, checked: http or https, no credentials in it, and a host whose every address the service
   * may reach (the outbound rule, mayConnect; WEBHOOK_ALLOW). Each delivery checks the address again as it connects (the
   * name may point elsewhere by then: webhook-delivery.ts); this check answers the mistake at once.
   */
  private async checkUrl(input: unknown): Promise<string> {
    const text = String(input ?? '').trim();
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw DomainError.invalid('url', `url: ${JSON.stringify(text)} is not a URL`, 'INVALID_URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw DomainError.invalid('url', 'url: an http or https URL', 'INVALID_URL');
    if (url.username || url.password) throw DomainError.invalid('url', 'url: no user name or password in the URL', 'INVALID_URL');
    if (text.length > 2000) throw DomainError.invalid('url', 'url: at most 2000 characters', 'INVALID_URL');
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: string[];
    if (net.isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await dns.lookup(host, { all: true })).map((a) => a.address);
      } catch {
        throw DomainError.invalid('url', `url: the host ${host} does not resolve`, 'HOST_NOT_FOUND');
      }
    }
    for (const address of addresses) {
      const outbound = mayConnect(address, this.settings.webhooks.allow);
      if (!outbound.ok) {
        const message = `url: ${host}: ${outbound.reason}; the WEBHOOK_ALLOW setting lets the operator allow it`;
        throw new DomainError('ADDRESS_NOT_ALLOWED', message, [{ field: 'url', code: 'ADDRESS_NOT_ALLOWED', message }]);
      }
    }
    return url.toString();
  }

  /**
   * Zone names, checked, each a zone the caller may read; none: every zone. Every name that is wrong is named, each
   * once (its first problem: the DNS model lists one per label): first the names that are not zone names (422),
   * then those the key's rules do not let it read (403 FORBIDDEN_BY_POLICY), then those that are no zone of the
   * caller's (404 ZONE_NOT_FOUND: none by that name, or another user's, which is not told apart).
   */
  private async parseZones(ctx: RequestContext, input: unknown): Promise<string[] | null> {
    const { principal } = ctx;
    const items = Array.isArray(input) ? input.map(String) : typeof input === 'string' ? input.split(',') : [];
    const given = [...new Set(items.map((item) => item.trim()).filter(Boolean))];
    if (!given.length) return null;
    const invalid: ErrorDetail[] = [];
    const zones: { field: string; name: string }[] = [];
    for (const [i, text] of given.entries()) {
      const parsed = parseZoneName(text, `zones[${i}]`);
      if (parsed.ok) zones.push({ field: `zones[${i}]`, name: parsed.name });
      else invalid.push(parsed.problems[0]);
    }
    if (invalid.length) throw errorFromProblems(invalid);
    const unseen = zones.filter((zone) => !seesZone(principal.policy, zone.name));
    if (unseen.length)
      throw forbidden(
        `no rule lets this key read ${unseen.map((zone) => zone.name).join(', ')}`,
        unseen[0].field,
        unseen.slice(1).map((zone) => ({
          field: zone.field,
          code: 'FORBIDDEN_BY_POLICY',
          message: `${zone.field}: no rule lets this key read ${zone.name}`,
        })),
      );
    const known = await zonesOfUser(
      ctx.db,
      zones.map((zone) => zone.name),
      scopeOf(principal).userId,
    );
    const unknown = zones.filter((zone) => !known.has(zone.name));
    if (unknown.length) {
      const names = unknown.map((zone) => zone.name).join(', ');
      throw new DomainError(
        'ZONE_NOT_FOUND',
        `zones: no zone ${names} that this key may read`,
        unknown.map((zone) => ({
          field: zone.field,
          code: 'ZONE_NOT_FOUND',
          message: `${zone.field}: no zone ${zone.name} that this key may read`,
        })),
      );
    }
    return [...new Set(zones.map((zone) => zone.name))];
  }
}

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

const view = (row: SubscriptionRow): SubscriptionView => {
  const { readRules: _rules, ...rest } = row;
  return { ...rest, previousSecretUntil: row.previousSecrets.at(-1)?.until ?? null };
};
