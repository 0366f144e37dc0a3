import { ownerToFqdn } from '../dns/name';
import type { DomainRow } from '../repositories/read-model';
import { absoluteName, powerDnsContent } from './presenters';
import { PowerDnsRoute, isInputError, refuse, SERVER } from './route-kit';

/** search-data: zones and records by name or content, as PowerDNS finds them */
export const SEARCH_ROUTES: PowerDnsRoute[] = [
  {
    /**
     * PowerDNS-Admin's search (ws-api.cc apiServerSearchData): `q` (`*` any run, `?` one character) matched whole,
     * in any letter case, against zone names, then records' names and contents (as PowerDNS stores them: names
     * without their final dot, an MX's or SRV's priority apart), up to `max` zones and `max` records. Zones by
     * the zone list (DomainsService, `nameMatches`), records by the search across zones (RecordSearchService),
     * both over what the key may read (docs/powerdns-api.md)
     */
    method: 'get',
    path: `${SERVER}/search-data`,
    async handle({ services, ctx, query }) {
      const q = typeof query.q === 'string' ? query.q.trim() : '';
      if (!q) throw refuse("Query q can't be blank");
      const max = query.max === undefined ? 100 : Number(query.max);
      if (!Number.isInteger(max) || max <= 0) throw refuse('Maximum entries must be larger than 0');
      const objectType = typeof query.object_type === 'string' ? query.object_type : 'all';
      if (!['all', 'zone', 'record', 'comment'].includes(objectType))
        throw refuse('object_type must be one of the following options: all, zone, record, comment');
      if (q.length > 255) throw refuse('q: at most 255 characters');
      const limit = Math.min(max, services.settings.maxPageSize);
      const results: Record<string, unknown>[] = [];
      if (objectType === 'all' || objectType === 'zone') {
        // the part before the first wildcard is a prefix (one range of the names' index); the match is the service's
        const prefix = q.toLowerCase().split(/[*?]/)[0].replace(/\.$/, '');
        let found: DomainRow[] = [];
        try {
          found = await services.domains.list(ctx, { nameStartsWith: prefix, nameMatches: q }, { first: limit });
        } catch (error) {
          if (!isInputError(error)) throw error;
        }
        for (const zone of found) results.push({ object_type: 'zone', name: absoluteName(zone.name), zone_id: absoluteName(zone.name) });
      }
      // `max` bounds each kind apart, as PowerDNS bounds its zones and its records' query
      if (objectType === 'all' || objectType === 'record') {
        const records = await services.search.search(ctx, { query: q, mode: 'glob', field: 'q' }, { first: limit });
        for (const record of records)
          results.push({
            object_type: 'record',
            name: ownerToFqdn(record.owner, record.zone),
            type: record.type,
            ttl: record.ttl,
            content: powerDnsContent(record.zone, record.type, record.rdata),
            disabled: false,
            zone: absoluteName(record.zone),
            zone_id: absoluteName(record.zone),
          });
      }
      // comments (PowerDNS-Admin's rrset comments) are not searched: object_type=comment answers []
      return { status: 200, body: results };
    },
  },
];
