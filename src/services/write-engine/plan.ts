import type { CanonicalRecord } from '../../dns/record';
import type { ErrorDetail } from '../../errors/catalogue';
import type { StoredRow } from '../../repositories/zone-writes';
import type { DisabledRecord } from '../../repositories/disabled-records';

/*
 * What the write engine applies (apply-plan.ts): a plan, made by the planner above it (zones/change-plan.ts) and
 * handed down as a value.
 */

/** the serial and SOA fields a plan sets: the engine's commit options (write-engine/staging.ts, CommitOptions) */
export interface SoaEdit {
  serialSetByCaller?: number;
  soaRdata?: string;
  soaTtl?: number;
}

/** A change set planned on a zone as read: what to remove and insert, the disabled delta, the SOA edit, the warnings. */
export interface ChangePlan {
  zone: string;
  /** the serial the plan was made on */
  serialBefore: number;
  /** served records to remove; `toggled`: it is disabled (kept, not served), which the journal says */
  removals: { row: StoredRow; toggled: boolean }[];
  /** records to serve; `toggled`: it was kept disabled and is enabled */
  insertions: { record: CanonicalRecord; toggled: boolean }[];
  /** what is kept disabled changes beside the served records */
  disabled: { removed: DisabledRecord[]; added: DisabledRecord[] };
  soa: SoaEdit;
  /** the zone checks' warnings about what the plan adds (each with its severity and RFC) */
  warnings: ErrorDetail[];
  /**
   * a person's edit of one record: its one removal and one insertion, written as one row replaced in place, which
   * keeps its id (the record API's promise: ZoneChange.replace)
   */
  inPlace?: { row: StoredRow; record: CanonicalRecord };
}
