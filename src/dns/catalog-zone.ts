/**
 * The catalog zone (RFC 9432, version 2): one zone whose PTR records list every managed zone, so that a
 * secondary configured with it adds and removes member zones by itself.
 */
export interface CatalogRecord {
  owner: string;
  type: string;
  ttl: number;
  rdata: string;
}

const CATALOG_TTL = 0;

/** RFC 9432 §4: the SOA and NS of a catalog are never queried for resolution; "invalid." is the convention. */
export function catalogSoaRdata(serial: number): string {
  return `invalid. invalid. ${serial} 3600 600 2147483646 0`;
}

export function catalogApexRecords(serial: number): CatalogRecord[] {
  return [
    { owner: '@', type: 'SOA', ttl: CATALOG_TTL, rdata: catalogSoaRdata(serial) },
    { owner: '@', type: 'NS', ttl: CATALOG_TTL, rdata: 'invalid.' },
    // RFC 9432 §4.2: the schema version, "2" for this specification
    { owner: 'version', type: 'TXT', ttl: CATALOG_TTL, rdata: '"2"' },
  ];
}

/**
 * RFC 9432 §4.3: each member is a PTR at `<unique-id>.zones.<catalog>` pointing at the member zone. The id
 * must change when a zone is deleted and created again (§5.4), so it is derived from the zone's row id,
 * which is never reused.
 */
export function catalogMemberRecord(domainId: number, zone: string): CatalogRecord {
  return { owner: `z${domainId}.zones`, type: 'PTR', ttl: CATALOG_TTL, rdata: `${zone}.` };
}
