import type { Database, Sql } from '../db/pool';
import { logger } from '../logger';
import { Principal, requireAdmin } from '../auth/principal';
import {
  addFailedAuthentications,
  AuditEventFilter,
  AuditEventInsert,
  AuditEventRow,
  countAuditEvents,
  insertAuditEvent,
  listAuditEvents,
} from '../repositories/audit-events';
import { DomainError } from '../errors/catalogue';
import type { RequestContext } from './context';

export type { AuditEventRow } from '../repositories/audit-events';

/**
 * The kinds of audit event (docs/audit-log.md). The last ones are reserved for callers to come: the policy
 * engine (a key's request refused by its rules, a key expired or idle) and the rate limiter and quotas.
 */
export const AUDIT_EVENT_KINDS = [
  'api-key-created',
  'api-key-revoked',
  'api-key-first-used',
  'tsig-key-created',
  'tsig-key-revoked',
  'tsig-key-first-used',
  'authentication-failed',
  'user-created',
  'user-deleted',
  'zone-deleted-by-admin',
  // reserved
  'api-key-changed',
  'tsig-key-changed',
  'key-expired',
  'policy-refused',
  'rate-limited',
  'quota-exceeded',
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
  return {
    kind: event.kind,
    actorKeyType: actor ? (actor.via === 'tsig' ? 'tsig' : 'api') : null,
    actorKeyId: actor?.keyId ?? null,
    actorKeyName: actor?.keyName ?? null,
    actorUserId: actor?.kind === 'user' ? actor.userId : null,
    actorAdmin: actor?.kind === 'admin',
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
          row.actorKeyId === null
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
  return address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

/**
 * Failed authentications, summarised: counted in memory per source address and minute, and added to one row
 * per address and minute (`authentication-failed`, with `count`) every FLUSH_MS: a guesser sending thousands
 * of wrong keys costs one upsert a second, not a write per attempt, and its row says how many. Several
 * processes add to the same row. At most MAX_PENDING addresses wait per flush; beyond that, attempts are
 * counted only in the log line that says so (a flood from many addresses must not grow memory without bound).
 */
export class FailedAuthentications {
  static readonly FLUSH_MS = 1000;
  static readonly MAX_PENDING = 10_000;
  private pending = new Map<string, { sourceAddress: string; minute: Date; count: number }>();
  private overflow = 0;
  private timer: NodeJS.Timeout | undefined;
  private db: Database | undefined;
  private flushing: Promise<void> = Promise.resolve();

  note(db: Database, sourceAddress: string, at: Date = new Date()): void {
    this.db = db;
    const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
    const key = `${sourceAddress} ${minute.getTime()}`;
    const entry = this.pending.get(key);
    if (entry) entry.count++;
    else if (this.pending.size < FailedAuthentications.MAX_PENDING) this.pending.set(key, { sourceAddress, minute, count: 1 });
    else this.overflow++;
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FailedAuthentications.FLUSH_MS);
      this.timer.unref();
    }
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
    if (overflow)
      logger.warn({ audit: { kind: 'authentication-failed', uncounted: overflow } }, 'audit: authentication-failed beyond the summary');
    if (!counts.length || !this.db) return;
    try {
      await addFailedAuthentications(this.db, counts);
      for (const c of counts) {
        logger.warn(
          { audit: { kind: 'authentication-failed', source: c.sourceAddress, minute: c.minute.toISOString(), count: c.count } },
          `audit: authentication-failed from ${c.sourceAddress} (${c.count})`,
        );
      }
    } catch (error) {
      // the database is away: the counts wait for the next flush (merged with what comes meanwhile)
      logger.warn({ err: error }, 'audit: failed authentications could not be written; kept for the next try');
      for (const c of counts) {
        const key = `${c.sourceAddress} ${c.minute.getTime()}`;
        const entry = this.pending.get(key);
        if (entry) entry.count += c.count;
        else this.pending.set(key, c);
      }
      if (!this.timer) {
        this.timer = setTimeout(() => void this.flush(), 5 * FailedAuthentications.FLUSH_MS);
        this.timer.unref();
      }
    }
  }

  /** at shutdown: the last counts written, no timer left */
  async stop(): Promise<void> {
    await this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** The audit log as the admin reads it (GraphQL auditEvents, REST GET /api/audit, `zonekeeper audit list`). */
export class AuditLogService {
  readonly failedAuthentications = new FailedAuthentications();

  list(ctx: RequestContext, filter: { kind?: string; since?: Date }, page: { first: number; after?: number }): Promise<AuditEventRow[]> {
    requireAdmin(ctx.principal);
    return listAuditEvents(ctx.db, checkedFilter(filter), page);
  }

  count(ctx: RequestContext, filter: { kind?: string; since?: Date }): Promise<number> {
    requireAdmin(ctx.principal);
    return countAuditEvents(ctx.db, checkedFilter(filter));
  }
}

function checkedFilter(filter: { kind?: string; since?: Date }): AuditEventFilter {
  if (filter.kind !== undefined && !(AUDIT_EVENT_KINDS as readonly string[]).includes(filter.kind)) {
    throw DomainError.invalid(
      'kind',
      `kind: ${JSON.stringify(filter.kind)} is not one of ${AUDIT_EVENT_KINDS.join(', ')}`,
      'UNKNOWN_AUDIT_KIND',
    );
  }
  if (filter.since !== undefined && Number.isNaN(filter.since.getTime()))
    throw DomainError.invalid('since', 'since: not a date-time', 'INVALID_DATE');
  return filter;
}
