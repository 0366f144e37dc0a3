/**
 * One thing wrong with an input. Validation never stops at the first problem: callers get the whole list, so a
 * client can fix everything in one round trip (docs/decisions.md §1 "details lists every problem found").
 */
export interface Problem {
  /** the input field the problem is about: `zone`, `owner`, `type`, `rdata` or `ttl` (zone files: same names) */
  field: string;
  /** stable UPPER_SNAKE code, safe for clients to switch on */
  code: string;
  /** for people: names the field, the reason and the limit */
  message: string;
  /** the limit that was broken, when there is one (e.g. 255 for a too long character-string) */
  limit?: number;
  /** for a conflict at an owner: the type of the record already there */
  existingType?: string;
  /** for a conflict at an owner holding several types: each of them, in the order found (`existingType` first) */
  existingTypes?: string[];
  /** 1-based line of a zone file, for zone-file import */
  line?: number;
}

export function problem(field: string, code: string, message: string, limit?: number): Problem {
  const result: Problem = { field, code, message };
  if (limit !== undefined) result.limit = limit;
  return result;
}

/**
 * Which of a type's RDATA fields (its `fields` name: `preference`, `exchange`) a problem is about, where the
 * parser knows: the API's typed RDATA input then names that field (`data.mx.preference`) instead of `rdata`.
 * Not enumerable, so it never leaves in an answer's `details` nor changes a problem's equality: it is a hint
 * for the service that put the RDATA together from fields (services/zones/records.service.ts).
 */
const RDATA_FIELD = Symbol('rdataField');

export function inRdataField<T extends Problem>(problems: T[], field: string): T[] {
  for (const p of problems) Object.defineProperty(p, RDATA_FIELD, { value: field, enumerable: false, configurable: true });
  return problems;
}

/** the RDATA field a problem is about (`inRdataField`), when its parser said */
export const rdataFieldOf = (p: Problem): string | undefined => (p as unknown as Record<symbol, string | undefined>)[RDATA_FIELD];
