import { singleNameType } from './single-name';

/** DNAME: redirection of the subtree below the owner (RFC 6672 §2.1) */
export const DNAME = singleNameType({
  type: 'DNAME',
  code: 39,
  rfcs: ['RFC 6672 §2.1'],
  fieldName: 'target',
  description: 'the name the subtree below the owner is redirected to',
});
