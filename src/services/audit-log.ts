import type { Database, Sql } from '../db/pool';
import { logger } from '../logger';
import { Principal, requireAdmin } from '../auth/principal';
import type { Unusable } from '../auth/policy';
import {
  addFailedAuthentications,
  addRefusals,
  AuditEventFilter,
  AuditEventInsert,
  AuditEventRow,
  countAuditEvents,
  insertAuditEvent,
  listAuditEvents,
  markKeyLimitAudited,
} from '../repositories/audit-events';
import { DomainError } from '../errors/catalogue';
import { normaliseZoneName } from '../dns/zone-name';
import type { RequestContext } from './context';
import type { PageRequest } from '../repositories/read-model';

export type { AuditEventRow } from '../repositories/audit-events';

/** The kinds of audit event (docs/audit-log.md). */
export const AUDIT_EVENT_KINDS = [
  'api-key-created',
  'api-key-changed',
  'api-key-revoked',
  'api-key-first-used',
  'tsig-key-created',
  'tsig-key-changed',
  'tsig-key-revoked',
  'tsig-key-first-used',
  'tsig-key-secret-read',
  'key-expired',
  'key-idle',
  'key-wrong-network',
  'authentication-failed',
  'policy-refused',
  'rate-limited',
  'quota-exceeded',
  'user-created',
  'user-deleted',
  'zone-deleted-by-admin',
  // people (docs/people.md)
  'signed-in',
  'sign-in-failed',
  'session-ended',
  'member-invited',
  'invitation-revoked',
  'member-joined',
  'member-role-changed',
  'member-removed',
  'passkey-added',
  'recovery-link-made',
  'recovery-link-used',
  'passkey-removed',
  'second-factor-passed',
  // a terminal's sign-in approved or denied on a second device (docs/people.md, «Signing in from a terminal»)
  'device-sign-in-approved',
  'device-sign-in-denied',
  // the operator as a person (docs/people.md, «The operator»)
  'operator-granted',
  'operator-revoked',
  // zone transfers between accounts (docs/people.md)
  'zone-transfer-offered',
  'zone-transfer-accepted',
  'zone-transfer-cancelled',
  'zone-moved-by-admin',
  // nameserver sets (docs/transfers.md)
  'nameserver-set-created',
  'nameserver-set-changed',
  'nameserver-set-deleted',
  'zone-moved-to-nameserver-set',
  // a set's zones followed its new NS names, the worker's walk ended (its counts, the zones whose rules refused)
  'nameserver-set-ns-followed',
  // protected RRsets (docs/changes.md)
  'rrset-locked',
  'rrset-unlocked',
  // a zone's rules (docs/changes.md, «A zone's rules»)
  'strict-checks-changed',
  'required-approvals-changed',
] as const;
export type AuditEventKind = (typeof AUDIT_EVENT_KINDS)[number];

export interface AuditEvent {
  kind: AuditEventKind;
  /** who did it: the key of the request (API key, or TSIG key of a DNS UPDATE) and its user */
  actor?: Principal;
  /** what it was done to, as `api-key:12`, `tsig-key:3`, `user:5`, `zone:example.com` */
  subject?: string;
  /** what else there is to say: plain facts, never a secret (the row and the log line carry it as it is) */
  detail?: Record<string, unknown>;
  /** the client's address (HTTP peer, DNS client) */
  sourceAddress?: string;
}

function rowOf(event: AuditEvent): AuditEventInsert {
  const actor = event.actor;
  // a person acting before a session of theirs begins (joining by an invitation link, taking a recovery link, an
  // OpenID Connect sign-in's grants): named by address, with no session and no account, rather than as 0
  const beforeSession = actor?.via === 'session' && actor.keyId === 0;
  return {
    kind: event.kind,
    actorKeyType: actor ? (actor.via ?? 'api') : null,
    actorKeyId: beforeSession ? null : (actor?.keyId ?? null),
    actorKeyName: actor?.keyName ?? null,
    actorUserId: actor?.kind === 'user' && !(beforeSession && actor.userId === 0) ? actor.userId : null,
    actorAdmin: actor?.kind === 'admin',
    // a person by e-mail: an operator person's session too (of kind admin: actorAdmin)
    actorEmail: actor?.via === 'session' ? (actor.person?.email ?? null) : null,
    subject: event.subject ?? null,
    detail: event.detail ?? {},
    sourceAddress: event.sourceAddress ?? null,
  };
}

/**
 * Records one audit event: a row of `audit_events` in the caller's unit of work (`sql`: a transaction, so the
 * row commits with what it records, or the Database for a statement of its own), and a structured log line.
 * The one entry for every caller, the policy engine and the rate limiter included. The line is written when
 * the row is; a transaction that then rolls back leaves the line without its row (the table is the record).
 */
export async function recordAuditEvent(sql: Sql, event: AuditEvent): Promise<void> {
  const row = rowOf(event);
  await insertAuditEvent(sql, row);
  logger.info(
    {
      audit: {
        kind: row.kind,
        actor:
          row.actorKeyType === null
            ? undefined
            : {
                keyType: row.actorKeyType,
                keyId: row.actorKeyId,
                keyName: row.actorKeyName,
                userId: row.actorUserId,
                admin: row.actorAdmin,
              },
        subject: row.subject ?? undefined,
        detail: row.detail,
        source: row.sourceAddress ?? undefined,
      },
    },
    `audit: ${row.kind}${row.subject ? ` ${row.subject}` : ''}`,
  );
}

/** an address as the peer gave it, an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as the IPv4 one */
export function sourceAddressOf(address: string | undefined): string {
  if (!address) return 'unknown';
  // every request's authentication passes here: most addresses are not mapped ones, and need no pattern run
  if (!address.startsWith('::ffff:')) return address;
  return address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

/**
 * Events summarised per minute: counted in memory under a key (a source address, a key and a kind…) and added
 * to one row per key and minute (with `count`) every FLUSH_MS: a flood costs one upsert a second, not a write
 * per attempt, and its row says how many. Several processes add to the same row. At most MAX_PENDING keys wait
 * per flush; beyond that, events are counted only in the log line that says so (a flood from many sources
 * must not grow memory without bound). The database away: the counts wait for the next flush.
 */
class MinuteSummary<E> {
  static readonly FLUSH_MS = 1000;
  static readonly MAX_PENDING = 10_000;
  private pending = new Map<string, { event: E; minute: Date; count: number }>();
  private overflow = 0;
  private timer: NodeJS.Timeout | undefined;
  private db: Database | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly kind: string,
    private readonly keyOf: (event: E) => string,
    private readonly write: (db: Database, counts: { event: E; minute: Date; count: number }[]) => Promise<void>,
    private readonly describe: (entry: { event: E; minute: Date; count: number }) => { fields: Record<string, unknown>; text: string },
  ) {}

  protected add(db: Database, event: E, at: Date = new Date()): void {
    this.db = db;
    const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
    const key = `${this.keyOf(event)} ${minute.getTime()}`;
    const entry = this.pending.get(key);
    if (entry) {
      entry.count++;
      entry.event = event;
    } else if (this.pending.size < MinuteSummary.MAX_PENDING) this.pending.set(key, { event, minute, count: 1 });
    else this.overflow++;
    this.schedule(MinuteSummary.FLUSH_MS);
  }

  private schedule(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), ms);
    this.timer.unref();
  }

  /** writes what was counted; one flush at a time */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  private async writePending(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const counts = [...this.pending.values()];
    const overflow = this.overflow;
    this.pending = new Map();
    this.overflow = 0;
    if (overflow) logger.warn({ audit: { kind: this.kind, uncounted: overflow } }, `audit: ${this.kind} beyond the summary`);
    if (!counts.length || !this.db) return;
    try {
      await this.write(this.db, counts);
      for (const c of counts) {
        const { fields, text } = this.describe(c);
        logger.warn(
          { audit: { kind: this.kind, minute: c.minute.toISOString(), count: c.count, ...fields } },
          `audit: ${this.kind} ${text} (${c.count})`,
        );
      }
    } catch (error) {
      logger.warn({ err: error }, `audit: ${this.kind} could not be written; kept for the next try`);
      for (const c of counts) {
        const key = `${this.keyOf(c.event)} ${c.minute.getTime()}`;
        const entry = this.pending.get(key);
        if (entry) entry.count += c.count;
        else this.pending.set(key, c);
      }
      this.schedule(5 * MinuteSummary.FLUSH_MS);
    }
  }

  /** at shutdown: the last counts written, no timer left */
  async stop(): Promise<void> {
    await this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Failed authentications, summarised per source address and minute (`authentication-failed`). */
export class FailedAuthentications extends MinuteSummary<{ sourceAddress: string }> {
  constructor() {
    super(
      'authentication-failed',
      (e) => e.sourceAddress,
      (db, counts) =>
        addFailedAuthentications(
          db,
          counts.map((c) => ({ sourceAddress: c.event.sourceAddress, minute: c.minute, count: c.count })),
        ),
      (c) => ({ fields: { source: c.event.sourceAddress }, text: `from ${c.event.sourceAddress}` }),
    );
  }

  note(db: Database, sourceAddress: string, at: Date = new Date()): void {
    this.add(db, { sourceAddress }, at);
  }
}

/** the refusals the audit log keeps (summarised per kind, key and minute), by the error code that refused */
const REFUSAL_KINDS = { FORBIDDEN_BY_POLICY: 'policy-refused', RATE_LIMITED: 'rate-limited', QUOTA_EXCEEDED: 'quota-exceeded' } as const;
/** and a key presented from outside its allowedNetworks (FORBIDDEN_BY_POLICY too, told apart by its caller) */
type RefusalKind = (typeof REFUSAL_KINDS)[keyof typeof REFUSAL_KINDS] | 'key-wrong-network';

/**
 * Policy refusals, rate-limit hits, quota hits and keys used from outside their networks, summarised per kind,
 * key and minute: the row keeps the count, the last refusal's message (which rule was missing, which limit)
 * and the last source address. Fed by every edge: HTTP (REST and GraphQL), subscriptions and DNS UPDATE.
 */
export class Refusals extends MinuteSummary<{
  kind: RefusalKind;
  actor: Principal;
  message: string;
  subject?: string;
  sourceAddress?: string;
}> {
  constructor() {
    super(
      'refusal',
      (e) => `${e.kind} ${e.actor.via ?? 'api'} ${e.actor.keyId}`,
      (db, counts) =>
        addRefusals(
          db,
          counts.map((c) => {
            const { actorKeyType, actorKeyId, actorKeyName, actorUserId, actorAdmin } = rowOf({ kind: c.event.kind, actor: c.event.actor });
            return {
              kind: c.event.kind,
              minute: c.minute,
              count: c.count,
              actor: { actorKeyType, actorKeyId, actorKeyName, actorUserId, actorAdmin },
              detail: { message: c.event.message },
              subject: c.event.subject ?? null,
              sourceAddress: c.event.sourceAddress ?? null,
            };
          }),
        ),
      (c) => ({
        fields: { refusal: c.event.kind, keyId: c.event.actor.keyId, keyName: c.event.actor.keyName, source: c.event.sourceAddress },
        text: `${c.event.kind} key ${c.event.actor.keyName ?? c.event.actor.keyId}`,
      }),
    );
  }

  /**
   * notes `error` when it is a refusal the audit log keeps (FORBIDDEN_BY_POLICY, RATE_LIMITED, QUOTA_EXCEEDED):
   * a DomainError, or a GraphQL error carrying one (its code in `extensions` or its `originalError`); from
   * `sourceAddress` when the edge knows it (a transfer)
   */
  note(db: Database, actor: Principal | undefined, error: unknown, sourceAddress?: string): void {
    if (!actor || !error || typeof error !== 'object') return;
    const e = error as { code?: unknown; message?: unknown; extensions?: { code?: unknown }; originalError?: { code?: unknown } };
    const code = e.extensions?.code ?? e.originalError?.code ?? e.code;
    const kind = typeof code === 'string' ? REFUSAL_KINDS[code as keyof typeof REFUSAL_KINDS] : undefined;
    if (kind) this.add(db, { kind, actor, message: typeof e.message === 'string' ? e.message : '', sourceAddress });
  }

  /** a key presented from an address outside its allowedNetworks (`key-wrong-network`) */
  noteWrongNetwork(db: Database, actor: Principal, message: string, sourceAddress: string | undefined): void {
    const subject = `${actor.via === 'tsig' ? 'tsig-key' : 'api-key'}:${actor.keyId}`;
    this.add(db, { kind: 'key-wrong-network', actor, message, subject, sourceAddress });
  }
}

/**
 * A key refused for its limits (src/auth/policy.ts `unusable`), on every edge (HTTP, subscriptions, DNS UPDATE
 * and transfers). Expiry and idleness are facts about the key, not about an attempt: each is recorded once per
 * key (`key-expired`, `key-idle`), by the one update that finds the key's `expiry_audited_at`/`idle_audited_at`
 * null, so concurrent processes write it once; changing the key's policy clears them. A key used from outside
 * its networks is an attempt, which may come again from elsewhere: summarised per key and minute
 * (`key-wrong-network`, in `Refusals`). A key recorded here is not asked about again for REMEMBER_MS, so a
 * client retrying an expired key costs no write per attempt.
 */
export class KeyLimitRefusals {
  private static readonly REMEMBER_MS = 60_000;
  private readonly recorded = new Map<string, number>();

  constructor(private readonly refusals: Refusals) {}

  async note(db: Database, actor: Principal, refusal: Unusable, sourceAddress: string | undefined): Promise<void> {
    if (refusal.limit === 'network') return this.refusals.noteWrongNetwork(db, actor, refusal.message, sourceAddress);
    const keyType = actor.via === 'tsig' ? 'tsig' : 'api';
    const memo = `${keyType} ${actor.keyId} ${refusal.limit}`;
    const at = this.recorded.get(memo);
    if (at !== undefined && Date.now() - at < KeyLimitRefusals.REMEMBER_MS) return;
    await db.transaction(async (sql) => {
      if (!(await markKeyLimitAudited(sql, keyType, actor.keyId, refusal.limit as 'expired' | 'idle'))) return;
      const detail: Record<string, unknown> =
        refusal.limit === 'expired'
          ? { message: refusal.message, expiresAt: actor.policy?.expiresAt?.toISOString() ?? null }
          : { message: refusal.message, idleDays: actor.policy?.idleDays ?? null };
      await recordAuditEvent(sql, {
        kind: refusal.limit === 'expired' ? 'key-expired' : 'key-idle',
        actor,
        subject: `${keyType === 'tsig' ? 'tsig-key' : 'api-key'}:${actor.keyId}`,
        detail,
        sourceAddress,
      });
    });
    if (this.recorded.size > 10_000) this.recorded.clear();
    this.recorded.set(memo, Date.now());
  }

  /** the key's policy changed (its audited marks cleared): this process asks again at its next refusal */
  forget(keyType: 'api' | 'tsig', keyId: number): void {
    this.recorded.delete(`${keyType} ${keyId} expired`);
    this.recorded.delete(`${keyType} ${keyId} idle`);
  }
}

/** The audit log as the admin reads it (GraphQL auditEvents, REST GET /api/audit, `zonekeeper audit list`). */
export class AuditLogService {
  readonly failedAuthentications = new FailedAuthentications();
  readonly refusals = new Refusals();
  readonly keyLimits = new KeyLimitRefusals(this.refusals);

  list(ctx: RequestContext, filter: AuditEventFilter & { zone?: string }, page: PageRequest): Promise<AuditEventRow[]> {
    requireAdmin(ctx.principal);
    return listAuditEvents(ctx.db, checkedFilter(filter), page);
  }

  count(ctx: RequestContext, filter: AuditEventFilter & { zone?: string }): Promise<number> {
    requireAdmin(ctx.principal);
    return countAuditEvents(ctx.db, checkedFilter(filter));
  }
}

/** the filter checked, its zone as the subject events name it (`zone:example.com`) */
function checkedFilter(filter: AuditEventFilter & { zone?: string }): AuditEventFilter {
  if (filter.kind !== undefined && !(AUDIT_EVENT_KINDS as readonly string[]).includes(filter.kind)) {
    throw DomainError.invalid(
      'kind',
      `kind: ${JSON.stringify(filter.kind)} is not one of ${AUDIT_EVENT_KINDS.join(', ')}`,
      'UNKNOWN_AUDIT_KIND',
    );
  }
  if (filter.since !== undefined && Number.isNaN(filter.since.getTime()))
    throw DomainError.invalid('since', 'since: not a date-time', 'INVALID_DATE');
  if (filter.until !== undefined && Number.isNaN(filter.until.getTime()))
    throw DomainError.invalid('until', 'until: not a date-time', 'INVALID_DATE');
  if (filter.actor !== undefined && filter.actor.length > 320) throw DomainError.invalid('actor', 'actor: at most 320 characters');
  const { zone, ...rest } = filter;
  return zone === undefined || zone.trim() === '' ? rest : { ...rest, subject: `zone:${normaliseZoneName(zone)}` };
}
