/** The read model's rows: plain objects, a creation time parsed when it is read */
import type { ZoneKind } from '../../entities/domain.entity';
import type { RowOptions } from '../../db/pool';

export interface UserRow {
  id: number;
  email: string;
  createdAt: Date;
}
export interface DomainRow {
  id: number;
  userId: number;
  name: string;
  serial: number;
  createdAt: Date;
  /** `primary` (ours) or `secondary` (taken by transfer): docs/transfers.md */
  kind: ZoneKind;
}
export interface RecordRow {
  id: number;
  domainId: number;
  zone: string;
  owner: string;
  type: string;
  rdata: string;
  ttl: number;
  /** the zone as the same statement saw it (record lists): a read racing a zone's deletion stays consistent */
  zoneRow?: DomainRow;
}
/**
 * A keyset page of a list: at most `first` rows after the row `after` and before the row `before` (ids: rows of
 * the list), in the list's order; with `fromEnd`, the rows nearest `before` (or the list's end) are read, in the
 * reverse of the list's order (the caller turns them round).
 */
export interface PageRequest {
  first: number;
  after?: number;
  before?: number;
  fromEnd?: boolean;
}

/** timestamps as text, parsed when read (see ReadUserRow) */
export const LAZY_TIMES: RowOptions = { timestamps: 'text' };

/**
 * a timestamp as pg hands it over (a Date), or as text (`2026-11-22 02:57:39.346+00`, LAZY_TIMES): ISO 8601 once
 * the space is a `T` and an offset of hours only has its minutes, put together by position rather than by two
 * regular expressions (0.23 µs a timestamp against 0.6: a zone list reads one a zone)
 */
export function toDate(value: Date | string): Date {
  if (value instanceof Date) return value;
  const iso = value.charCodeAt(10) === SPACE ? `${value.slice(0, 10)}T${value.slice(11)}` : value;
  const sign = value.charCodeAt(value.length - 3);
  return new Date(sign === PLUS || sign === MINUS ? `${iso}:00` : iso);
}
const SPACE = 0x20;
const PLUS = 0x2b;
const MINUS = 0x2d;

/**
 * Rows whose creation time is parsed when it is read: a nested answer carries 1,100 users and zones and rarely
 * asks for it, and parsing every timestamp was 4% of such an answer's CPU (docs/performance.md, «Reading zones»).
 */
class ReadUserRow implements UserRow {
  constructor(
    readonly id: number,
    readonly email: string,
    private readonly createdAtText: Date | string,
  ) {}
  get createdAt(): Date {
    return toDate(this.createdAtText);
  }
}
class ReadDomainRow implements DomainRow {
  constructor(
    readonly id: number,
    readonly userId: number,
    readonly name: string,
    readonly serial: number,
    private readonly createdAtText: Date | string,
    readonly kind: ZoneKind = 'primary',
  ) {}
  get createdAt(): Date {
    return toDate(this.createdAtText);
  }
}

export const toUser = (row: any): UserRow => new ReadUserRow(Number(row.id), row.email, row.created_at);
export const toDomain = (row: any): DomainRow =>
  new ReadDomainRow(Number(row.id), Number(row.user_id), row.name, Number(row.serial), row.created_at, row.kind ?? 'primary');
/**
 * Record rows with their zone as the same statement saw it. The records of one zone share one zone row: a list
 * of 100,000 records of 1,000 zones makes 1,000 zone objects, not 100,000. A row may leave its zone's columns
 * null when a row before it in the same statement had them (listRecords).
 */
export function recordsWithZones(rows: any[]): RecordRow[] {
  const zones = new Map<number, DomainRow>();
  return rows.map((row): RecordRow => {
    const domainId = Number(row.domain_id);
    let zoneRow = zones.get(domainId);
    if (!zoneRow) {
      zoneRow = new ReadDomainRow(
        domainId,
        Number(row.zone_user_id),
        row.zone,
        Number(row.zone_serial),
        row.zone_created_at,
        row.zone_kind ?? 'primary',
      );
      zones.set(domainId, zoneRow);
    }
    return { id: Number(row.id), domainId, zone: zoneRow.name, owner: row.owner, type: row.type, rdata: row.rdata, ttl: row.ttl, zoneRow };
  });
}
