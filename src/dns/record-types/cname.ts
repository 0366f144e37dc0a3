import { singleNameType } from './single-name';

/** CNAME: the canonical name of an alias (RFC 1035 §3.3.1); placement rules are in zone-rules.ts (RFC 1034 §3.6.2) */
export const CNAME = singleNameType({
  type: 'CNAME',
  code: 5,
  rfcs: ['RFC 1035 §3.3.1', 'RFC 1034 §3.6.2', 'RFC 2181 §10.1'],
  fieldName: 'cname',
  description: 'the canonical (target) name of this alias',
});
