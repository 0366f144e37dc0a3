import { parseApiRecord } from '../../src/dns/record';
import { DEFAULT_ALLOWED_TTLS } from '../../src/dns/ttl';
import { parseZoneChanges } from '../../src/services/zones/change-parse';
import { apexNsNotAtParent } from '../../src/dns/zone-checks';
import {
  disabledRecordsRead,
  mayChangeApexNs,
  type PlanGuards,
  type PlanOutcome,
  planChangeSet,
  safetyRefusal,
  type ZoneAsRead,
} from '../../src/services/zones/change-plan';
import type { ZoneChangeSpec } from '../../src/services/zones/zone-change-set';
import type { StoredRow } from '../../src/repositories/zone-writes';

/*
 * The checks on a change set's plan (dns/zone-checks.ts through services/zones/change-plan.ts), as tables, with
 * no database: each faulty zone gives exactly its findings (an error refuses the set, a warning is answered with
 * the plan), a clean one none; locked RRsets, strictChecks and the safety threshold.
 */

const ZONE = 'checks.test';
const APEX = [
  '@ SOA 3600 ns1.example.net. hostmaster.example.net. 1 7200 3600 1209600 3600',
  '@ NS 3600 ns1.example.net.',
  'host A 3600 192.0.2.1',
  'alias CNAME 3600 host.checks.test.',
];

let lastId = 0;
function zoneOf(lines: readonly string[]): ZoneAsRead {
  const records: StoredRow[] = [...APEX, ...lines].map((line) => {
    const [owner, type, ttl, ...rdata] = line.split(' ');
    const parsed = parseApiRecord(ZONE, { owner, type, ttl: Number(ttl), rdata: rdata.join(' ') }, []);
    if (!parsed.ok) throw new Error(`${line}: ${JSON.stringify(parsed.problems)}`);
    return { ...parsed.record, id: ++lastId };
  });
  const soa = records.find((r) => r.type === 'SOA')!;
  return { name: ZONE, serial: 1, soa: { rdata: soa.rdata, ttl: soa.ttl }, records, disabled: disabledRecordsRead([]) };
}

const add = (owner: string, type: string, rdata: string): ZoneChangeSpec => ({ kind: 'ADD', owner, type, rdata, ttl: 3600 });
const plan = (zone: ZoneAsRead, changes: ZoneChangeSpec[], guards?: PlanGuards): PlanOutcome =>
  planChangeSet(zone, parseZoneChanges(ZONE, changes, DEFAULT_ALLOWED_TTLS), { guards });
/** the findings of a plan, `field code severity` each: the refusal's, or the plan's warnings */
const findings = (outcome: PlanOutcome) =>
  'refusal' in outcome
    ? outcome.problems.map((p) => `${p.field} ${p.code} ${p.severity ?? ''}`.trim())
    : outcome.plan.warnings.map((w) => `${w.field} ${w.code} ${w.severity}`);

/** [case, zone beside the apex, changes, the findings (an error first refuses), refused] */
const CASES: [string, string[], ZoneChangeSpec[], string[], boolean][] = [
  [
    'a CNAME beside other data (RFC 1034 §3.6.2)',
    ['www A 3600 192.0.2.2'],
    [add('www', 'CNAME', 'host')],
    ['changes[0].type CNAME_CONFLICT'],
    true,
  ],
  ['an MX to an alias (RFC 2181 §10.3)', [], [add('@', 'MX', '10 alias')], ['changes[0].rdata TARGET_IS_CNAME error'], true],
  ['an NS to an alias', [], [add('sub', 'NS', 'alias.checks.test.')], ['changes[0].rdata TARGET_IS_CNAME error'], true],
  ['an SRV to an alias', [], [add('_sip._tcp', 'SRV', '0 0 5060 alias')], ['changes[0].rdata TARGET_IS_CNAME error'], true],
  [
    'data below a delegation',
    ['sub NS 3600 ns1.example.net.'],
    [add('x.sub', 'TXT', '"hidden"')],
    ['changes[0].owner OCCLUDED_DATA error'],
    true,
  ],
  ['a delegation whose name server has no glue', [], [add('sub', 'NS', 'ns.sub')], ['changes[0].rdata GLUE_MISSING error'], true],
  ['an in-zone NS name without an address', [], [add('@', 'NS', 'ns2')], ['changes[0].rdata NS_TARGET_NO_ADDRESS error'], true],
  // a delegation's name server in the zone (not below it) without an address: BIND says so and loads the zone
  ['a delegation to an in-zone name server not there', [], [add('sub', 'NS', 'ns3')], ['rdata TARGET_MISSING warning'], false],
  ['a CNAME to a name not in the zone', [], [add('cn', 'CNAME', 'nothere')], ['rdata TARGET_MISSING warning'], false],
  ['an MX to a name not in the zone', [], [add('@', 'MX', '10 nothere')], ['rdata TARGET_MISSING warning'], false],
  ['an SRV to a name not in the zone', [], [add('_x._tcp', 'SRV', '0 0 1 nothere')], ['rdata TARGET_MISSING warning'], false],
  [
    'two SPF records at one owner (RFC 7208 §3.2)',
    ['@ TXT 3600 "v=spf1 -all"'],
    [add('@', 'TXT', '"v=spf1 mx -all"')],
    ['rdata SPF_MULTIPLE_RECORDS warning'],
    false,
  ],
  // clean: glue where it belongs, targets that exist, one SPF record, out-of-zone names
  [
    'a delegation with its glue',
    [],
    [
      add('sub', 'NS', 'ns.sub'),
      add('ns.sub', 'A', '192.0.2.53'),
      add('sub', 'DS', '60485 13 2 2BB183AF5F22588179A53B0A98631FAD1A2921182BB183AF5F22588179A53B0A'),
    ],
    [],
    false,
  ],
  ['an MX and an SRV to a host', [], [add('@', 'MX', '10 host'), add('_x._tcp', 'SRV', '0 0 1 host')], [], false],
  [
    'a CNAME out of the zone, an in-zone NS with an address',
    ['ns2 A 3600 192.0.2.9'],
    [add('ext', 'CNAME', 'www.example.org.'), add('@', 'NS', 'ns2')],
    [],
    false,
  ],
];

test.each(CASES)('%s', (_name, lines, changes, expected, refused) => {
  const outcome = plan(zoneOf(lines), changes);
  expect('refusal' in outcome).toBe(refused);
  expect(findings(outcome)).toEqual(expected);
  if ('refusal' in outcome)
    expect(outcome.refusal.code).toBe(expected[0].includes('CNAME_CONFLICT') ? 'CNAME_CONFLICT' : 'ZONE_RULE_VIOLATION');
  else
    for (const w of outcome.plan.warnings)
      expect(w).toMatchObject({ owner: changes[0].owner, type: changes[0].type, rfc: expect.stringMatching(/^RFC /) });
});

test('a finding about the zone as it is, not about what the set adds, refuses nothing', () => {
  // the zone has an MX to an alias already: a set that adds a TXT elsewhere is not held to it
  const outcome = plan(zoneOf(['@ MX 3600 10 alias.checks.test.']), [add('t', 'TXT', '"x"')]);
  expect('plan' in outcome && outcome.plan.warnings).toEqual([]);
});

test('strictChecks refuses a warning as an error', () => {
  const outcome = plan(zoneOf([]), [add('cn', 'CNAME', 'nothere')], { strictChecks: true });
  expect(findings(outcome)).toEqual(['changes[0].rdata TARGET_MISSING warning']);
  expect('refusal' in outcome && outcome.refusal.code).toBe('ZONE_RULE_VIOLATION');
});

test('a steered RRset refuses every change of it, naming the change, and nothing else', () => {
  const zone = zoneOf(['www A 3600 192.0.2.7']);
  const guards = { steeredRrsets: new Set(['www A']) };
  const emptied = plan(zone, [add('t', 'TXT', '"x"'), { kind: 'REPLACE_RRSET', owner: 'www', type: 'A', rdatas: [] }], guards);
  expect('refusal' in emptied && emptied.refusal.code).toBe('RRSET_STEERED');
  expect('refusal' in emptied && emptied.problems.map((p) => [p.field, p.code, p.owner, p.type])).toEqual([
    ['changes[1]', 'RRSET_STEERED', 'www', 'A'],
  ]);
  expect('refusal' in emptied && emptied.refusal.message).toMatch(/www A .* is steered: .*through steering/);
  const replaced = plan(zone, [{ kind: 'REPLACE_RRSET', owner: 'www', type: 'A', rdatas: ['192.0.2.8'], ttl: 3600 }], guards);
  expect('refusal' in replaced && replaced.refusal.code).toBe('RRSET_STEERED');
  expect('refusal' in plan(zone, [add('www', 'A', '192.0.2.9')], guards)).toBe(true);
  // a REPLACE with what steering serves changes nothing, and another type at the owner is another RRset: taken
  expect('plan' in plan(zone, [{ kind: 'REPLACE_RRSET', owner: 'www', type: 'A', rdatas: ['192.0.2.7'], ttl: 3600 }], guards)).toBe(true);
  expect('plan' in plan(zone, [add('www', 'TXT', '"x"')], guards)).toBe(true);
});

test('a locked RRset refuses every change of it, and nothing else', () => {
  const zone = zoneOf(['@ MX 3600 10 host.checks.test.']);
  const guards = { protectedRrsets: new Set(['@ MX', '@ NS']) };
  const refused = plan(zone, [add('t', 'TXT', '"x"'), add('@', 'MX', '20 host')], guards);
  expect('refusal' in refused && refused.refusal.code).toBe('RRSET_PROTECTED');
  expect('refusal' in refused && refused.problems.map((p) => p.field)).toEqual(['changes[1]']);
  expect(
    'refusal' in plan(zone, [{ kind: 'REPLACE_RRSET', owner: '@', type: 'NS', rdatas: ['ns9.example.net.'], ttl: 3600 }], guards),
  ).toBe(true);
  // a REPLACE with what the locked RRset holds changes nothing, so it is taken
  expect('plan' in plan(zone, [{ kind: 'REPLACE_RRSET', owner: '@', type: 'MX', rdatas: ['10 host'], ttl: 3600 }], guards)).toBe(true);
  expect('plan' in plan(zone, [add('t', 'TXT', '"x"')], guards)).toBe(true);
});

describe("the apex NS against the parent's, as the health checker last saw it", () => {
  // the zone's apex NS is ns1.example.net. (APEX)
  const zone = zoneOf([]);
  const ns = (rdatas: string[]): ZoneChangeSpec => ({ kind: 'REPLACE_RRSET', owner: '@', type: 'NS', rdatas, ttl: 3600 });

  test('a plan that changes the set to one the parent does not list is warned (refused with strictChecks, naming the change)', () => {
    const guards = { parentNs: ['ns1.example.net'] };
    const outcome = plan(zone, [add('t', 'TXT', '"x"'), add('@', 'NS', 'ns2.example.net.')], guards);
    expect(findings(outcome)).toEqual(['rdata APEX_NS_NOT_AT_PARENT warning']);
    expect('plan' in outcome && outcome.plan.warnings[0]).toMatchObject({
      owner: '@',
      type: 'NS',
      rfc: 'RFC 1034 §4.2.2',
      message: expect.stringMatching(/the parent does not list ns2\.example\.net\./),
    });
    const strict = plan(zone, [add('t', 'TXT', '"x"'), add('@', 'NS', 'ns2.example.net.')], { ...guards, strictChecks: true });
    expect(findings(strict)).toEqual(['changes[1].rdata APEX_NS_NOT_AT_PARENT warning']);
    expect('refusal' in strict && strict.refusal.code).toBe('ZONE_RULE_VIOLATION');
    // a removal that leaves the set other than the parent's names its change too
    const twoAtParent = zoneOf(['@ NS 3600 ns2.example.net.']);
    const removal: ZoneChangeSpec = { kind: 'REMOVE', owner: '@', type: 'NS', rdata: 'ns2.example.net.' };
    const removed = plan(twoAtParent, [removal], {
      parentNs: ['ns1.example.net', 'ns2.example.net', 'ns3.example.net'],
      strictChecks: true,
    });
    expect(findings(removed)).toEqual(['changes[0].rdata APEX_NS_NOT_AT_PARENT warning']);
  });

  test("a set brought to the parent's, one that leaves it alone, and one whose parent's set is not known are not", () => {
    // the parent lists ns1 and ns2: adding ns2 makes them agree
    expect(findings(plan(zone, [add('@', 'NS', 'NS2.example.net.')], { parentNs: ['ns2.example.net', 'NS1.EXAMPLE.NET.'] }))).toEqual([]);
    // the zone differs from its parent already: a change elsewhere is not held to it, nor one of the NS TTL alone
    expect(findings(plan(zone, [add('t', 'TXT', '"x"')], { parentNs: ['ns9.example.net'] }))).toEqual([]);
    expect(findings(plan(zone, [{ ...ns(['ns1.example.net.']), ttl: 7200 }], { parentNs: ['ns9.example.net'] }))).toEqual([]);
    // never checked, not delegated, the parent out of reach: nothing known, nothing said
    expect(findings(plan(zone, [add('@', 'NS', 'ns2.example.net.')]))).toEqual([]);
  });

  test('the set read from the stored look only for a set that may change the apex NS', () => {
    const parse = (changes: ZoneChangeSpec[]) => parseZoneChanges(ZONE, changes, DEFAULT_ALLOWED_TTLS);
    const apexNs = zone.records.find((r) => r.owner === '@' && r.type === 'NS')!;
    expect(mayChangeApexNs(parse([ns(['ns2.example.net.'])]), zone.records)).toBe(true);
    expect(mayChangeApexNs(parse([add('@', 'NS', 'ns2.example.net.')]), zone.records)).toBe(true);
    expect(mayChangeApexNs(parse([{ kind: 'REMOVE', id: apexNs.id }]), zone.records)).toBe(true);
    expect(mayChangeApexNs(parse([add('@', 'MX', '10 host'), add('sub', 'NS', 'ns1.example.net.')]), zone.records)).toBe(false);
    expect(mayChangeApexNs(parse([{ kind: 'REMOVE', id: zone.records.find((r) => r.type === 'A')!.id }]), zone.records)).toBe(false);
  });

  test("the zone's set against the parent's: names compared in any case, with or without the final dot", () => {
    expect(apexNsNotAtParent(ZONE, ['NS1.example.net.', 'ns2.example.net.'], ['ns2.example.net', 'ns1.example.net'])).toBeUndefined();
    expect(apexNsNotAtParent(ZONE, ['ns1.example.net.'], undefined)).toBeUndefined();
    expect(apexNsNotAtParent(ZONE, ['ns1.example.net.', 'ns2.example.net.'], ['ns1.example.net', 'ns3.example.net'])?.message).toBe(
      "@ NS: the apex NS of checks.test. is ns1.example.net., ns2.example.net.; its parent lists ns1.example.net., ns3.example.net. (the health checker's last look): the parent does not list ns2.example.net.; the parent still lists ns3.example.net.; the two sides of the cut should agree (RFC 1034 §4.2.2)",
    );
  });
});

describe('the safety threshold', () => {
  const ten = Array.from({ length: 8 }, (_, i) => `h${i} A 3600 192.0.2.${10 + i}`);
  const zone = zoneOf(ten);
  const deleting = (n: number): ZoneChangeSpec[] =>
    ten.slice(0, n).map((line) => ({ kind: 'REPLACE_RRSET', owner: line.split(' ')[0], type: 'A', rdatas: [] }));
  const outcome = (changes: ZoneChangeSpec[]) => {
    const planned = plan(zone, changes);
    if (!('plan' in planned)) throw planned.refusal;
    return safetyRefusal(planned.plan, zone.records.filter((r) => r.type !== 'SOA').length);
  };
  test.each([
    [3, undefined],
    [4, 'CHANGE_NEEDS_FORCE'],
  ])('a zone of 11 records, %i deleted', (n, code) => expect(outcome(deleting(n))?.code).toBe(code));
  test('a zone under 10 records may lose any share; the apex NS never unforced', () => {
    const planned = plan(zoneOf([]), [{ kind: 'REPLACE_RRSET', owner: 'host', type: 'A', rdatas: [] }]);
    expect('plan' in planned && safetyRefusal(planned.plan, 3)).toBeUndefined();
    expect(outcome([add('@', 'NS', 'ns9.example.net.')])?.details.map((d) => d.code)).toEqual(['CHANGE_NEEDS_FORCE']);
  });
});
