/**
 * Record templates: the records a new zone starts with, written once for any zone name
 * (docs/templates-and-alias.md). Owners are relative to the zone (`@` the apex) or absolute, names inside
 * RDATA without a final dot are relative to the zone (as in a master file, RFC 1035 §5.1), and `{zone}`
 * anywhere stands for the zone's name without a final dot (`hostmaster.{zone}.`, `"v=spf1 include:_spf.{zone}"`).
 * The SOA's serial in a template is a placeholder: a new zone gets its own (the serial policy).
 */
import { Problem } from './problem';
import { CanonicalRecord, parseRecord } from './record';
import { AllowedTtls } from './ttl';
import { checkZoneIndexed, withSerial } from './zone-rules';

export const ZONE_PLACEHOLDER = /\{zone\}/gi;

export interface TemplateRecordInput {
  owner: string;
  type: string;
  rdata: string;
  ttl: number;
}

/** a zone name that stands for every zone when a template is checked on its own (short: see checkTemplate) */
export const TEMPLATE_PROBE_ZONE = 'template.example';

const expand = (text: string, zone: string) => String(text ?? '').replace(ZONE_PLACEHOLDER, zone);

/**
 * The template's records for `zone`, canonical and checked as a whole zone (checkZoneIndexed: one SOA and
 * NS at the apex, no CNAME beside other data, …), or every problem, each naming its record as
 * `records[i].field` and, in its message, the record's owner and type.
 */
export function expandTemplate(
  zone: string,
  records: readonly TemplateRecordInput[],
  allowedTtls: AllowedTtls,
  serial = 0,
): { ok: true; records: CanonicalRecord[] } | { ok: false; problems: Problem[] } {
  const problems: Problem[] = [];
  const parsed: CanonicalRecord[] = [];
  const positions: number[] = [];
  const about = (i: number, record: { owner: string; type: string }, p: Problem): Problem => ({
    ...p,
    field: `records[${i}].${p.field}`,
    message: `records[${i}] (${record.owner || '?'} ${String(record.type ?? '?').toUpperCase()}): ${p.message}`,
  });
  records.forEach((record, i) => {
    const result = parseRecord(zone, { ...record, owner: expand(record.owner, zone), rdata: expand(record.rdata, zone) }, allowedTtls);
    if (!result.ok) {
      problems.push(...result.problems.map((p) => about(i, record, p)));
      return;
    }
    const canonical = result.record.type === 'SOA' ? { ...result.record, rdata: withSerial(result.record.rdata, serial) } : result.record;
    parsed.push(canonical);
    positions.push(i);
  });
  if (problems.length) return { ok: false, problems };
  for (const found of checkZoneIndexed(zone, parsed)) {
    if (found.index === undefined) problems.push({ ...found.problem, field: 'records' });
    else problems.push(about(positions[found.index], records[positions[found.index]], found.problem));
  }
  return problems.length ? { ok: false, problems } : { ok: true, records: parsed };
}
