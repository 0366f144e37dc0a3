import { singleNameType } from './single-name';

/**
 * ANAME (draft-ietf-dnsop-aname): the same flattening as ALIAS, as the draft names it; code 65305, the one
 * the draft's implementations used (private use, RFC 6895 §3.1). Served only as the derived A and AAAA
 * (docs/templates-and-alias.md).
 */
export const ANAME = singleNameType({
  type: 'ANAME',
  code: 65305,
  rfcs: ['draft-ietf-dnsop-aname', 'RFC 6895 §3.1'],
  fieldName: 'target',
  description: 'the name whose A and AAAA this owner answers with (flattened by the service)',
});
