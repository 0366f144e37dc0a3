import { singleNameType } from './single-name';

/** PTR: a pointer to another name, typically in reverse zones (RFC 1035 §3.3.12) */
export const PTR = singleNameType({
  type: 'PTR',
  code: 12,
  rfcs: ['RFC 1035 §3.3.12'],
  fieldName: 'ptrdname',
  description: 'the name this owner points to',
});
