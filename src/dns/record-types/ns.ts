import { singleNameType } from './single-name';

/** NS: the authoritative name server for the owner (RFC 1035 §3.3.11); a host name, never the root */
export const NS = singleNameType({
  type: 'NS', code: 2, rfcs: ['RFC 1035 §3.3.11'],
  fieldName: 'nsdname', description: 'host name of an authoritative name server (relative names are completed with the zone)',
});
