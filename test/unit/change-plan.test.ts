import { type KeyPolicy, UNRESTRICTED } from '../../src/auth/policy';
import { parseApiRecord, recordIdentity } from '../../src/dns/record';
import { DEFAULT_ALLOWED_TTLS } from '../../src/dns/ttl';
import { withSerial } from '../../src/dns/zone-rules';
import { changesOfPatch } from '../../src/powerdns/zone-routes';
import { parseZoneChanges } from '../../src/services/zones/change-parse';
import type { ChangePlan } from '../../src/services/write-engine/plan';
import {
  disabledRecordsRead,
  type PlanOutcome,
  planChangeSet,
  planChangesNothing,
  plannedRrsets,
  type ZoneAsRead,
} from '../../src/services/zones/change-plan';
import type { ZoneChangeOptions, ZoneChangeSpec } from '../../src/services/zones/zone-change-set';
import type { StoredRow } from '../../src/repositories/zone-writes';
import type { DisabledRecord } from '../../src/repositories/disabled-records';

/*
 * The planner alone (services/zones/change-plan.ts): no database, no connection. PowerDNS's PATCH semantics as its
 * changetypes arrive (changesOfPatch, the PowerDNS API's own reading), the change kinds of GraphQL and REST, and
 * DNSControl's rule: planning again what a plan made plans nothing.
 */

const ZONE = 'plan.test';
const SOA = 'ns1.plan.test. hostmaster.plan.test. 1 7200 3600 1209600 3600';
const APEX = ['@ SOA 3600 ' + SOA, '@ NS 3600 ns1.example.net.', '@ NS 3600 ns2.example.net.'];

/** a record line `owner type ttl rdata` read as the DNS model reads it (canonical) */
function read(line: string): { owner: string; type: string; ttl: number; rdata: string } {
  const [owner, type, ttl, ...rdata] = line.split(' ');
  const parsed = parseApiRecord(ZONE, { owner, type, ttl: Number(ttl), rdata: rdata.join(' ') }, []);
  if (!parsed.ok) throw new Error(`${line}: ${JSON.stringify(parsed.problems)}`);
  const { record } = parsed;
  return { owner: record.owner, type: record.type, ttl: record.ttl, rdata: record.rdata };
}

let lastId = 0;
/** a zone as the service reads it: the apex, the served records given and those kept disabled */
function zoneOf(served: readonly string[], disabled: readonly string[] = [], serial = 1): ZoneAsRead {
  const records: StoredRow[] = [...APEX, ...served].map((line) => ({ ...read(line), id: ++lastId }));
  const soa = records.find((r) => r.type === 'SOA')!;
  return { name: ZONE, serial, soa: { rdata: soa.rdata, ttl: soa.ttl }, records, disabled: disabledRecordsRead(disabled.map(read)) };
}

type Given = { pdns: unknown[] } | { changes: ZoneChangeSpec[] };

/** the changes a test gives: a PowerDNS PATCH's rrsets as that API reads them, or change-set changes */
function specsOf(given: Given): { changes: ZoneChangeSpec[]; options: ZoneChangeOptions } {
  if ('changes' in given) return { changes: given.changes, options: {} };
  const { changes } = changesOfPatch({ rrsets: given.pdns }, [], []);
  // as the PowerDNS API applies them (CONTENT_AS_POWERDNS): content stands alone, the SOA by its fields
  return { changes, options: { rdataNames: 'fullyQualified', soa: 'fields' } };
}

function plan(zone: ZoneAsRead, given: Given): PlanOutcome {
  const { changes, options } = specsOf(given);
  const parsed = parseZoneChanges(ZONE, changes, DEFAULT_ALLOWED_TTLS, options);
  return planChangeSet(zone, parsed, { soa: options.soa });
}

function planned(zone: ZoneAsRead, given: Given): ChangePlan {
  const outcome = plan(zone, given);
  if ('refusal' in outcome) throw new Error(`refused: ${outcome.refusal.message}`);
  return outcome.plan;
}

/** the zone after a plan, as the engine would leave it: one serial step, ids for the new records */
function applied(zone: ZoneAsRead, p: ChangePlan): ZoneAsRead {
  if (planChangesNothing(p, zone)) return zone;
  const gone = new Set(p.removals.map((r) => r.row.id));
  const serial = p.soa.serialSetByCaller ?? zone.serial + 1;
  const soa = { rdata: withSerial(p.soa.soaRdata ?? zone.soa.rdata, serial), ttl: p.soa.soaTtl ?? zone.soa.ttl };
  const records: StoredRow[] = [
    ...zone.records.filter((r) => !gone.has(r.id)).map((r) => (r.type === 'SOA' ? { ...r, ...soa } : r)),
    ...p.insertions.map(({ record }) => ({ owner: record.owner, type: record.type, ttl: record.ttl, rdata: record.rdata, id: ++lastId })),
  ];
  const away = new Set(p.disabled.removed.map((r) => recordIdentity(r)));
  const disabled: DisabledRecord[] = [...zone.disabled.byIdentity.values()].filter((r) => !away.has(recordIdentity(r)));
  disabled.push(...p.disabled.added);
  return { name: ZONE, serial, soa, records, disabled: disabledRecordsRead(disabled) };
}

/** what a zone serves and keeps, as sorted lines (the apex's SOA and NS left out) */
function shown(zone: ZoneAsRead): { served: string[]; disabled: string[] } {
  const line = (r: { owner: string; type: string; ttl: number; rdata: string }) => `${r.owner} ${r.type} ${r.ttl} ${r.rdata}`;
  const apex = new Set(APEX.map((l) => line(read(l))));
  return {
    served: zone.records
      .filter((r) => r.type !== 'SOA')
      .map(line)
      .filter((l) => !apex.has(l))
      .sort(),
    disabled: [...zone.disabled.byIdentity.values()].map(line).sort(),
  };
}

const rr = (name: string, type: string, changetype: string, records: { content: string; disabled?: boolean }[], ttl = 300) => ({
  name: name === '@' ? `${ZONE}.` : `${name}.${ZONE}.`,
  type,
  ttl,
  changetype,
  records,
});

interface Row {
  what: string;
  served: string[];
  disabled?: string[];
  given: Given;
  /** what the zone serves and keeps after the plan; `nothing`: the plan changes nothing */
  after: { served: string[]; disabled?: string[] } | 'nothing';
}

const WWW = ['www A 300 192.0.2.1', 'www A 300 192.0.2.2'];

// PowerDNS's PATCH (ws-auth.cc patchZone): REPLACE, DELETE, EXTEND and PRUNE, `disabled` on each record
const POWERDNS: Row[] = [
  {
    what: 'an empty REPLACE deletes the RRset',
    served: WWW,
    given: { pdns: [rr('www', 'A', 'REPLACE', [])] },
    after: { served: [] },
  },
  {
    what: 'a DELETE deletes the RRset, its disabled records too',
    served: WWW,
    disabled: ['www A 300 192.0.2.9'],
    given: { pdns: [rr('www', 'A', 'DELETE', [])] },
    after: { served: [], disabled: [] },
  },
  {
    what: 'a REPLACE with what the RRset holds changes nothing',
    served: WWW,
    given: { pdns: [rr('www', 'A', 'REPLACE', [{ content: '192.0.2.2' }, { content: '192.0.2.1' }])] },
    after: 'nothing',
  },
  {
    what: 'a REPLACE with another TTL replaces the RRset (one TTL per RRset, RFC 2181 §5.2)',
    served: WWW,
    given: { pdns: [rr('www', 'A', 'REPLACE', [{ content: '192.0.2.1' }, { content: '192.0.2.2' }], 900)] },
    after: { served: ['www A 900 192.0.2.1', 'www A 900 192.0.2.2'] },
  },
  {
    what: 'an EXTEND of a record the RRset holds changes nothing',
    served: WWW,
    given: { pdns: [rr('www', 'A', 'EXTEND', [{ content: '192.0.2.1' }])] },
    after: 'nothing',
  },
  {
    what: 'an EXTEND adds what the RRset lacks and leaves the rest',
    served: WWW,
    given: { pdns: [rr('www', 'A', 'EXTEND', [{ content: '192.0.2.3' }])] },
    after: { served: [...WWW, 'www A 300 192.0.2.3'] },
  },
  {
    what: 'an EXTEND of a record kept disabled leaves it as it is',
    served: WWW,
    disabled: ['www A 300 192.0.2.9'],
    given: { pdns: [rr('www', 'A', 'EXTEND', [{ content: '192.0.2.9' }])] },
    after: 'nothing',
  },
  {
    what: 'a PRUNE of a record the RRset lacks changes nothing',
    served: WWW,
    given: { pdns: [rr('www', 'A', 'PRUNE', [{ content: '192.0.2.99' }])] },
    after: 'nothing',
  },
  {
    what: 'a PRUNE removes what the RRset holds and leaves the rest',
    served: WWW,
    given: { pdns: [rr('www', 'A', 'PRUNE', [{ content: '192.0.2.1' }])] },
    after: { served: ['www A 300 192.0.2.2'] },
  },
  {
    what: 'a PRUNE takes a disabled record away too',
    served: WWW,
    disabled: ['www A 300 192.0.2.9'],
    given: { pdns: [rr('www', 'A', 'PRUNE', [{ content: '192.0.2.9' }])] },
    after: { served: WWW, disabled: [] },
  },
  {
    what: 'disabled: true on a served record disables it (kept, not served)',
    served: WWW,
    given: { pdns: [rr('www', 'A', 'REPLACE', [{ content: '192.0.2.1' }, { content: '192.0.2.2', disabled: true }])] },
    after: { served: ['www A 300 192.0.2.1'], disabled: ['www A 300 192.0.2.2'] },
  },
  {
    what: 'disabled: false on a disabled record enables it (served again)',
    served: ['www A 300 192.0.2.1'],
    disabled: ['www A 300 192.0.2.2'],
    given: { pdns: [rr('www', 'A', 'REPLACE', [{ content: '192.0.2.1' }, { content: '192.0.2.2' }])] },
    after: { served: WWW, disabled: [] },
  },
  {
    what: 'a REPLACE that keeps the disabled ones disabled changes nothing',
    served: ['www A 300 192.0.2.1'],
    disabled: ['www A 300 192.0.2.2'],
    given: { pdns: [rr('www', 'A', 'REPLACE', [{ content: '192.0.2.1' }, { content: '192.0.2.2', disabled: true }])] },
    after: 'nothing',
  },
  {
    what: 'an EXTEND with disabled: true brings the record disabled',
    served: WWW,
    given: { pdns: [rr('www', 'A', 'EXTEND', [{ content: '192.0.2.3', disabled: true }])] },
    after: { served: WWW, disabled: ['www A 300 192.0.2.3'] },
  },
  {
    what: "a REPLACE of the SOA with its own fields changes nothing (its serial is the zone's)",
    served: [],
    given: { pdns: [rr('@', 'SOA', 'REPLACE', [{ content: SOA.replace(' 1 ', ' 99 ') }], 3600)] },
    after: 'nothing',
  },
];

// the change kinds of GraphQL, REST and the CLI that PowerDNS's API has no word for
const CHANGE_SETS: Row[] = [
  {
    what: 'DISABLE of a served record disables it',
    served: WWW,
    given: { changes: [{ kind: 'DISABLE', owner: 'www', type: 'A', rdata: '192.0.2.2' }] },
    after: { served: ['www A 300 192.0.2.1'], disabled: ['www A 300 192.0.2.2'] },
  },
  {
    what: 'DISABLE of a disabled record leaves it as it is',
    served: ['www A 300 192.0.2.1'],
    disabled: ['www A 300 192.0.2.2'],
    given: { changes: [{ kind: 'DISABLE', owner: 'www', type: 'A', rdata: '192.0.2.2' }] },
    after: 'nothing',
  },
  {
    what: 'ENABLE of a disabled record serves it with its TTL',
    served: ['www A 300 192.0.2.1'],
    disabled: ['www A 300 192.0.2.2'],
    given: { changes: [{ kind: 'ENABLE', owner: 'www', type: 'A', rdata: '192.0.2.2' }] },
    after: { served: WWW, disabled: [] },
  },
  {
    what: 'ENABLE of a served record changes nothing',
    served: WWW,
    given: { changes: [{ kind: 'ENABLE', owner: 'www', type: 'A', rdata: '192.0.2.2' }] },
    after: 'nothing',
  },
  {
    what: 'a REMOVE and an ADD of the same record change nothing',
    served: WWW,
    given: {
      changes: [
        { kind: 'REMOVE', owner: 'www', type: 'A', rdata: '192.0.2.1' },
        { kind: 'ADD', owner: 'www', type: 'A', rdata: '192.0.2.1', ttl: 300 },
      ],
    },
    after: 'nothing',
  },
  {
    what: 'a REPLACE_RRSET given in another spelling (case, absolute owner) changes nothing',
    served: ['mail MX 300 10 mx.example.net.'],
    given: { changes: [{ kind: 'REPLACE_RRSET', owner: 'MAIL.plan.test.', type: 'mx', ttl: 300, rdatas: ['10 MX.example.net.'] }] },
    after: 'nothing',
  },
];

describe.each([
  ['PowerDNS PATCH', POWERDNS],
  ['change sets', CHANGE_SETS],
])('%s through the planner', (_edge, rows) => {
  test.each(rows.map((row) => [row.what, row] as const))('%s', (_what, row) => {
    const zone = zoneOf(row.served, row.disabled);
    const p = planned(zone, row.given);
    if (row.after === 'nothing') {
      expect(planChangesNothing(p, zone)).toBe(true);
      expect(plannedRrsets(zone, p)).toEqual([]);
      return;
    }
    expect(planChangesNothing(p, zone)).toBe(false);
    const after = shown(applied(zone, p));
    expect(after.served).toEqual(
      [...row.after.served].map((l) => `${read(l).owner} ${read(l).type} ${read(l).ttl} ${read(l).rdata}`).sort(),
    );
    expect(after.disabled).toEqual([...(row.after.disabled ?? row.disabled ?? [])].sort());
  });
});

// DNSControl's rule (and octoDNS's): a declared state planned on the zone a plan made plans nothing. It holds for
// every declarative change (REPLACE, DELETE, EXTEND, PRUNE, DISABLE, ENABLE); ADD and REMOVE name a step, not a
// state, and the second of them is refused (a duplicate, a record not found), which writes nothing either
describe('planning the result of a plan plans nothing', () => {
  const declarative = [...POWERDNS, ...CHANGE_SETS].filter(
    (row) => !('changes' in row.given) || row.given.changes.every((c) => c.kind !== 'ADD' && c.kind !== 'REMOVE'),
  );
  test.each(declarative.map((row) => [row.what, row] as const))('%s', (_what, row) => {
    const zone = zoneOf(row.served, row.disabled);
    const once = applied(zone, planned(zone, row.given));
    const again = planned(once, row.given);
    expect(planChangesNothing(again, once)).toBe(true);
    expect(again.removals).toEqual([]);
    expect(again.insertions).toEqual([]);
    expect(again.disabled).toEqual({ removed: [], added: [] });
  });

  test('a whole PATCH of several RRsets, planned twice', () => {
    const zone = zoneOf([...WWW, 'mail MX 300 10 mx.example.net.', 'txt TXT 300 "a"'], ['www A 300 192.0.2.9']);
    const patch = {
      pdns: [
        rr('www', 'A', 'REPLACE', [{ content: '192.0.2.1' }, { content: '192.0.2.3', disabled: true }]),
        rr('mail', 'MX', 'DELETE', []),
        rr('txt', 'TXT', 'EXTEND', [{ content: '"b"' }]),
        rr('new', 'AAAA', 'REPLACE', [{ content: '2001:db8::1' }]),
      ],
    };
    const first = planned(zone, patch);
    expect(plannedRrsets(zone, first).map((r) => `${r.owner} ${r.type}`)).toEqual(['www A', 'mail MX', 'txt TXT', 'new AAAA']);
    const once = applied(zone, first);
    expect(shown(once)).toEqual({
      served: ['new AAAA 300 2001:db8::1', 'txt TXT 300 "a"', 'txt TXT 300 "b"', 'www A 300 192.0.2.1'],
      disabled: ['www A 300 192.0.2.3'],
    });
    expect(planChangesNothing(planned(once, patch), once)).toBe(true);
  });
});

describe('what the planner refuses', () => {
  test.each<[string, string[], Given, string]>([
    [
      'a record served and disabled in one REPLACE (PowerDNS: a duplicate record)',
      WWW,
      { pdns: [rr('www', 'A', 'REPLACE', [{ content: '192.0.2.1' }, { content: '192.0.2.1', disabled: true }])] },
      'DUPLICATE_RECORD',
    ],
    [
      'a record added served and disabled in one set',
      [],
      {
        changes: [
          { kind: 'ADD', owner: 'x', type: 'A', rdata: '192.0.2.5', ttl: 300 },
          { kind: 'ADD', owner: 'x', type: 'A', rdata: '192.0.2.5', ttl: 300, disabled: true },
        ],
      },
      'DUPLICATE_RECORD',
    ],
    [
      'a REMOVE of a record the zone lacks',
      WWW,
      { changes: [{ kind: 'REMOVE', owner: 'www', type: 'A', rdata: '192.0.2.7' }] },
      'RECORD_NOT_FOUND',
    ],
    [
      'an ENABLE of a record the zone lacks',
      WWW,
      { changes: [{ kind: 'ENABLE', owner: 'www', type: 'A', rdata: '192.0.2.7' }] },
      'RECORD_NOT_FOUND',
    ],
    [
      'a CNAME beside other data (RFC 1034 §3.6.2)',
      WWW,
      { pdns: [rr('www', 'CNAME', 'REPLACE', [{ content: 'x.example.net.' }])] },
      'CNAME_CONFLICT',
    ],
    ['the apex left without NS (RFC 1034 §4.2.1)', [], { pdns: [rr('@', 'NS', 'DELETE', [])] }, 'APEX_NS_MISSING'],
  ])('%s', (_what, served, given, code) => {
    const outcome = plan(zoneOf(served), given);
    expect('refusal' in outcome).toBe(true);
    if (!('refusal' in outcome)) return;
    expect(outcome.problems.map((p) => p.code)).toContain(code);
    expect(outcome.problems.every((p) => /^changes\[\d+\]/.test(p.field))).toBe(true);
  });

  test("a restricted key's policy refuses what it may not write, and does not see what it may not read", () => {
    const zone = zoneOf(WWW);
    const parsed = parseZoneChanges(ZONE, [{ kind: 'REPLACE_RRSET', owner: 'www', type: 'A', ttl: 300, rdatas: [] }], DEFAULT_ALLOWED_TTLS);
    const keyPolicy: KeyPolicy = { ...UNRESTRICTED, rules: [{ zone: ZONE, owner: '_acme-challenge', types: ['TXT'], access: 'write' }] };
    const outcome = planChangeSet(zone, parsed, { keyPolicy });
    expect('refusal' in outcome && outcome.refusal.code).toBe('FORBIDDEN_BY_POLICY');
  });
});

describe('a plan is a value', () => {
  test('planning reads the zone and changes nothing of it; the same input plans the same', () => {
    const zone = zoneOf(WWW, ['www A 300 192.0.2.9']);
    const snapshot = JSON.stringify({ ...zone, disabled: [...zone.disabled.byIdentity.values()] });
    const given: Given = { pdns: [rr('www', 'A', 'REPLACE', [{ content: '192.0.2.3' }])] };
    const first = planned(zone, given);
    expect(planned(zone, given)).toEqual(first);
    expect(JSON.stringify({ ...zone, disabled: [...zone.disabled.byIdentity.values()] })).toBe(snapshot);
    expect(plannedRrsets(zone, first)).toEqual([
      {
        owner: 'www',
        type: 'A',
        before: zone.records.filter((r) => r.owner === 'www'),
        after: [expect.objectContaining({ owner: 'www', type: 'A', ttl: 300, rdata: '192.0.2.3' })],
      },
    ]);
    expect(first.disabled.removed).toEqual([read('www A 300 192.0.2.9')]);
  });

  test("the SOA's fields given otherwise are an SOA edit; a caller's serial that rises is one too", () => {
    const zone = zoneOf([]);
    const other = planned(zone, { pdns: [rr('@', 'SOA', 'REPLACE', [{ content: SOA.replace('3600 1209600', '1800 1209600') }], 3600)] });
    expect(planChangesNothing(other, zone)).toBe(false);
    expect(other.soa.soaRdata).toContain(' 1800 ');
  });
});

/*
 * A person's single-record writes (RecordsService, through ZoneChangesService.applyOne) are plans of one change:
 * createRecord an ADD, updateRecord a REPLACE by id written in place (the record keeps its id), removeRecord a
 * REMOVE by id. The same planner, the same refusals, and planning again what the write made plans nothing.
 */
describe("a person's single-record write is a plan of one change", () => {
  const zone = zoneOf(WWW, ['www A 300 192.0.2.9']);
  const www1 = zone.records.find((r) => r.owner === 'www' && r.rdata === '192.0.2.1')!;

  test('a create is one ADD; a record kept disabled is enabled by it; planned again, it plans nothing', () => {
    const created = planned(zone, { changes: [{ kind: 'ADD', owner: 'www', type: 'A', ttl: 300, rdata: '192.0.2.9' }] });
    expect(created.insertions).toEqual([{ record: expect.objectContaining({ rdata: '192.0.2.9' }), toggled: true }]);
    expect(created.disabled.removed).toEqual([read('www A 300 192.0.2.9')]);
    const after = applied(zone, created);
    expect(
      planChangesNothing(
        planned(after, { changes: [{ kind: 'EXTEND_RRSET', owner: 'www', type: 'A', ttl: 300, rdatas: ['192.0.2.9'] }] }),
        after,
      ),
    ).toBe(true);
  });

  test('an edit is one REPLACE by id, written in place: its removal and insertion are the row kept with its id', () => {
    const parsed = parseZoneChanges(
      ZONE,
      [{ kind: 'REPLACE', id: www1.id, owner: 'www', type: 'A', ttl: 300, rdata: '192.0.2.3' }],
      DEFAULT_ALLOWED_TTLS,
    );
    const outcome = planChangeSet(zone, parsed, { editInPlace: www1.id });
    if ('refusal' in outcome) throw outcome.refusal;
    expect(outcome.plan.inPlace).toEqual({ row: www1, record: expect.objectContaining({ owner: 'www', rdata: '192.0.2.3' }) });
    expect(outcome.plan.removals.map((r) => r.row)).toEqual([www1]);
    // without editInPlace (a change set's REPLACE by id) the row is removed and another inserted
    const asSet = planChangeSet(zone, parsed);
    if ('refusal' in asSet) throw asSet.refusal;
    expect(asSet.plan.inPlace).toBeUndefined();
  });

  test('a delete is one REMOVE by id; a record the zone lacks is RECORD_NOT_FOUND, named as the set names it', () => {
    const removed = planned(zone, { changes: [{ kind: 'REMOVE', id: www1.id }] });
    expect(removed.removals).toEqual([{ row: www1, toggled: false }]);
    expect(shown(applied(zone, removed)).served).toEqual(['www A 300 192.0.2.2']);
    const missing = plan(zone, { changes: [{ kind: 'REMOVE', id: 999_999 }] });
    expect('refusal' in missing && missing.refusal.code).toBe('RECORD_NOT_FOUND');
    expect('refusal' in missing && missing.problems.map((p) => p.field)).toEqual(['changes[0].id']);
  });
});
