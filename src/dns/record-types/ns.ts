import { singleNameType } from './single-name';

/**
 * NS: the authoritative name server for the owner (RFC 1035 §3.3.11). The root `.` is taken as a target: real
 * zones hold `NS .` (a deliberately lame delegation, e.g. PowerDNS's test zones) and both named-checkzone and
 * kzonecheck load it.
 */
export const NS = singleNameType({
  type: 'NS',
  code: 2,
  rfcs: ['RFC 1035 §3.3.11'],
  allowRoot: true,
  fieldName: 'nsdname',
  description: "host name of an authoritative name server (relative names are completed with the zone); '.' is loaded as written",
});
