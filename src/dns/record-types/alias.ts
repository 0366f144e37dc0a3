import { singleNameType } from './single-name';

/**
 * ALIAS as PowerDNS writes it in zone files (`@ ALIAS cdn.example.net.`): the owner answers with the target's
 * A and AAAA. Not a DNS wire type: Zonekeeper flattens it (docs/templates-and-alias.md), the secondaries get
 * the derived addresses and never the ALIAS. The code is PowerDNS's (65401, private use, RFC 6895 §3.1), for
 * what PowerDNS's tools exchange; placement rules are in zone-rules.ts.
 */
export const ALIAS = singleNameType({
  type: 'ALIAS',
  code: 65401,
  rfcs: ['PowerDNS ALIAS', 'RFC 6895 §3.1'],
  fieldName: 'target',
  description: 'the name whose A and AAAA this owner answers with (flattened by the service)',
});
